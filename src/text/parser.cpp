#include "ptxpp/text/parser.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "ptxpp/text/lexer.hpp"
#include "syntax_error.hpp"

namespace ptx::text {

using namespace ptx::ir;

namespace {

// How a directive's operand list is written.
struct DirectiveRule {
  uint8_t min_items;
  uint8_t max_items;      // 255: unbounded
  bool semicolon;         // ends with ';'
  bool space_separated;   // items may follow each other without a comma (.loc, .file)
};

enum class Where : uint8_t { Module, Body, FunctionHeader, Section };

struct DirectiveInfo {
  DirectiveRule rule;
  bool module, body, header, section;  // where it may appear
};

const std::unordered_map<std::string_view, DirectiveInfo>& directive_table() {
  static const std::unordered_map<std::string_view, DirectiveInfo> table = [] {
    std::unordered_map<std::string_view, DirectiveInfo> t;
    auto add = [&](std::string_view n, DirectiveRule r, bool mod, bool body, bool header, bool sect) {
      t.emplace(n, DirectiveInfo{r, mod, body, header, sect});
    };
    constexpr uint8_t kMany = 255;
    add(".version", {1, 1, false, false}, true, false, false, false);
    add(".target", {1, kMany, false, false}, true, false, false, false);
    add(".address_size", {1, 1, false, false}, true, false, false, false);
    add(".file", {2, 4, false, true}, true, false, false, false);
    add(".alias", {2, 2, true, false}, true, true, false, false);  // ptxas also takes it in a body
    add(".pragma", {1, kMany, true, false}, true, true, true, false);
    add(".loc", {3, kMany, false, true}, false, true, false, false);
    add(".branchtargets", {1, kMany, true, false}, false, true, false, false);
    add(".calltargets", {1, kMany, true, false}, false, true, false, false);
    for (auto n : {".maxntid", ".reqntid", ".reqnctapercluster"}) add(n, {1, 3, false, false}, false, false, true, false);
    for (auto n : {".minnctapersm", ".maxnctapersm", ".maxnreg", ".maxclusterrank", ".abi_preserve",
                   ".abi_preserve_control"})
      add(n, {1, 1, false, false}, false, false, true, false);
    for (auto n : {".noreturn", ".explicitcluster", ".blocksareclusters"})
      add(n, {0, 0, false, false}, false, false, true, false);
    for (auto n : {".b8", ".b16", ".b32", ".b64"}) add(n, {1, kMany, false, false}, false, false, false, true);
    return t;
  }();
  return table;
}

// Words that may begin a declaration or a function header.
bool starts_declaration(std::string_view w) {
  static const std::unordered_map<std::string_view, bool> words = {
      {".reg", true},    {".sreg", true},   {".local", true},  {".shared", true},  {".param", true},
      {".const", true},  {".global", true}, {".tex", true},    {".extern", true},  {".visible", true},
      {".weak", true},   {".common", true}, {".entry", true},  {".func", true},
  };
  return words.count(w) != 0;
}

struct BinaryOp {
  Op op;
  int prec;  // 0: not a binary operator
};

BinaryOp binary_op(Tok t) {
  switch (t) {
    case Tok::OrOr: return {Op::LogOr, 2};
    case Tok::AndAnd: return {Op::LogAnd, 3};
    case Tok::Pipe: return {Op::BitOr, 4};
    case Tok::Caret: return {Op::BitXor, 5};
    case Tok::Amp: return {Op::BitAnd, 6};
    case Tok::EqEq: return {Op::Eq, 7};
    case Tok::NotEq: return {Op::Ne, 7};
    case Tok::Lt: return {Op::Lt, 8};
    case Tok::Gt: return {Op::Gt, 8};
    case Tok::LtEq: return {Op::Le, 8};
    case Tok::GtEq: return {Op::Ge, 8};
    case Tok::Shl: return {Op::Shl, 9};
    case Tok::Shr: return {Op::Shr, 9};
    case Tok::Plus: return {Op::Add, 10};
    case Tok::Minus: return {Op::Sub, 10};
    case Tok::Star: return {Op::Mul, 11};
    case Tok::Slash: return {Op::Div, 11};
    case Tok::Percent: return {Op::Rem, 11};
    default: return {Op::Add, 0};
  }
}
constexpr int kTernaryPrec = 1;
constexpr int kShiftPrec = 9;  // `<N>` ranges stop before relational operators

class Parser {
 public:
  Parser(std::string_view src, Module& m, uint32_t max_depth)
      : lex_(src),
        m_(m),
        max_depth_(max_depth),
        src_end_(src.data() + src.size()),
        // 64 to 2048 entries: small inputs get a small cache
        recent_bits_(std::clamp(static_cast<int>(std::bit_width(src.size() / 256)), 6, 11)),
        recent_(size_t{1} << recent_bits_) {
    for (std::string_view s : {" ", "\t", "\n", "\n\t", " \t", "\n\n", "\n\n\t", ", "})
      common_.push_back({s, m_.strings.trivia(s)});
    const size_t n = src.size();
    // Measured on the nvcc corpus: one expression per ~11 bytes, one list item per
    // ~12, one modifier per ~32, one instruction per ~50. Reserve a little more so
    // large files do not reallocate (and briefly double) their biggest pools.
    m_.exprs.reserve(n / 10 + 16);
    m_.items.reserve(n / 11 + 16);
    m_.modifiers.reserve(n / 28 + 16);
    m_.instructions.reserve(n / 45 + 16);
    scratch_.reserve(256);
  }

  void parse_module() {
    advance();
    std::vector<Stmt> stmts;
    while (tok_.kind != Tok::Eof) stmts.push_back(with_trail(parse_stmt(Where::Module)));
    m_.eof = triv(tok_.lead);
    m_.root().stmts = std::move(stmts);
  }

 private:
  // ---- tokens ------------------------------------------------------------
  void advance() { lex_.next(tok_); }
  [[noreturn]] void fail_at(uint32_t offset, std::string msg) { throw detail::SyntaxError{offset, std::move(msg)}; }
  [[noreturn]] void expected(std::string_view what) {
    std::string found = tok_.kind == Tok::Eof ? std::string("end of input")
                                              : std::string(describe(tok_.kind)) + " '" +
                                                    std::string(tok_.text.substr(0, 40)) + "'";
    if (tok_.kind != Tok::Eof && tok_.kind != Tok::Ident && tok_.kind != Tok::DotWord &&
        tok_.kind != Tok::Number && tok_.kind != Tok::String)
      found = describe(tok_.kind);
    fail_at(tok_.offset, "expected " + std::string(what) + ", found " + found);
  }
  Trivia triv(std::string_view s) {
    if (s.empty()) return Trivia::none();
    if (s.size() <= 3) {
      for (const auto& [text, t] : common_) {
        if (text.size() != s.size()) continue;
        bool same = true;
        for (size_t i = 0; i < s.size(); ++i) same = same && text[i] == s[i];
        if (same) return t;
      }
    }
    return Trivia{pool_id(s)};
  }
  // Consumes a token of kind `k`; returns its leading trivia.
  Trivia expect(Tok k, std::string_view what) {
    if (tok_.kind != k) expected(what);
    Trivia t = triv(tok_.lead);
    advance();
    return t;
  }
  Symbol sym(std::string_view s) { return Symbol{pool_id(s)}; }

  // The pool id of a token's text. Names and modifiers repeat a lot, so short ones
  // (up to 16 bytes, read as two words) go through a small direct-mapped cache first
  // instead of hashing and probing the pool each time.
  uint32_t pool_id(std::string_view s) {
    const size_t len = s.size();
    if (len == 0 || len > 16 || s.data() + 16 > src_end_) return m_.strings.intern_id(s);
    uint64_t w0 = 0, w1 = 0;
    std::memcpy(&w0, s.data(), 8);  // may read past the token, inside the input: masked below
    if (len <= 8) {
      w0 &= len == 8 ? ~0ull : (1ull << (8 * len)) - 1;
    } else {
      std::memcpy(&w1, s.data() + 8, 8);
      w1 &= len == 16 ? ~0ull : (1ull << (8 * (len - 8))) - 1;
    }
    const uint64_t h = (w0 * 0x9E3779B97F4A7C15ull) ^ (w1 * 0xC2B2AE3D27D4EB4Full) ^ len;
    RecentName& e = recent_[h >> (64 - recent_bits_)];
    if (e.w0 == w0 && e.w1 == w1 && e.len == len) return e.id;
    e = {w0, w1, static_cast<uint32_t>(len), m_.strings.intern_id(s)};
    return e.id;
  }

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > p.max_depth_) p.fail_at(p.tok_.offset, "nesting is too deep");
    }
    ~DepthGuard() { --p.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  // Parses `item (',' item)*` (items may also follow each other without a comma
  // while `adjacent(last_item)` says so) and moves them to the item pool.
  template <class ParseItem, class Adjacent>
  Range parse_items(ParseItem parse_item, Adjacent adjacent) {
    const size_t start = scratch_.size();
    for (;;) {
      ListItem it;
      it.node = parse_item();
      if (tok_.kind == Tok::Comma) {
        it.sep = triv(tok_.lead);
        scratch_.push_back(it);
        advance();
        continue;
      }
      it.comma = false;
      scratch_.push_back(it);
      if (!adjacent(it.node)) break;
    }
    return commit_items(start);
  }
  template <class ParseItem>
  Range parse_items(ParseItem parse_item) {
    return parse_items(parse_item, [](uint32_t) { return false; });
  }

  // Moves scratch_[start, end) to the module's item pool.
  Range commit_items(size_t start) {
    Range r{static_cast<uint32_t>(m_.items.size()), static_cast<uint32_t>(scratch_.size() - start)};
    m_.items.insert(m_.items.end(), scratch_.begin() + static_cast<ptrdiff_t>(start), scratch_.end());
    scratch_.resize(start);
    return r;
  }

  // ---- expressions ---------------------------------------------------------
  ExprId add(const Expr& e) {
    m_.exprs.push_back(e);
    return ExprId{static_cast<uint32_t>(m_.exprs.size() - 1)};
  }

  ExprId parse_expr(int min_prec = kTernaryPrec) {
    DepthGuard guard(*this);
    ExprId lhs = parse_unary();
    for (;;) {
      if (tok_.kind == Tok::Question && min_prec <= kTernaryPrec) {
        Expr e;
        e.kind = ExprKind::Ternary;
        e.loc = m_.expr(lhs).loc;
        e.lead = triv(tok_.lead);
        advance();
        e.a = lhs.v;
        e.b = parse_expr(kTernaryPrec).v;
        e.close = expect(Tok::Colon, "':' of a conditional expression");
        e.aux = parse_expr(kTernaryPrec).v;
        lhs = add(e);
        continue;
      }
      const BinaryOp bop = binary_op(tok_.kind);
      if (bop.prec == 0 || bop.prec < min_prec) break;
      Expr e;
      e.kind = ExprKind::Binary;
      e.sub = static_cast<uint8_t>(bop.op);
      e.loc = m_.expr(lhs).loc;
      e.lead = triv(tok_.lead);
      advance();
      e.a = lhs.v;
      e.b = parse_expr(bop.prec + 1).v;
      lhs = add(e);
    }
    return lhs;
  }

  ExprId parse_unary() {
    Op op;
    switch (tok_.kind) {
      case Tok::Minus: op = Op::Neg; break;
      case Tok::Plus: op = Op::Plus; break;
      case Tok::Bang: op = Op::Not; break;
      case Tok::Tilde: op = Op::BitNot; break;
      default: return parse_primary();
    }
    DepthGuard guard(*this);
    Expr e;
    e.kind = ExprKind::Unary;
    e.sub = static_cast<uint8_t>(op);
    e.loc = tok_.offset;
    e.lead = triv(tok_.lead);
    advance();
    e.a = parse_unary().v;
    return add(e);
  }

  ExprId parse_apply(ExprId callee) {
    Expr e;
    e.kind = ExprKind::Apply;
    e.loc = m_.expr(callee).loc;
    e.a = callee.v;
    e.b = parse_list(Delim::Paren).v;
    return add(e);
  }

  ExprId parse_primary() {
    Expr e;
    e.loc = tok_.offset;
    e.lead = triv(tok_.lead);
    switch (tok_.kind) {
      case Tok::Ident: {
        e.kind = ExprKind::Name;
        e.a = sym(tok_.text).id;
        const bool generic = tok_.text == "generic";
        advance();
        // `%tid.x`, `%r1.b0`: a component written right after the name.
        if (tok_.kind == Tok::DotWord && tok_.lead.empty()) {
          e.b = sym(tok_.text).id;
          advance();
        }
        ExprId id = add(e);
        if (generic && tok_.kind == Tok::LParen) return parse_apply(id);
        return id;
      }
      case Tok::DotWord: {
        e.kind = ExprKind::Name;
        e.a = sym(tok_.text).id;
        advance();
        ExprId id = add(e);
        if (tok_.kind == Tok::LParen) return parse_apply(id);
        return id;
      }
      case Tok::Number: {
        const NumberLiteral& n = tok_.number;
        e.kind = n.kind;
        e.flags = n.flags;
        e.value = n.value;
        if (n.spelled) {
          e.sub = static_cast<uint8_t>(Notation::Spelled);
          e.aux = sym(tok_.text).id;
        } else {
          e.sub = static_cast<uint8_t>(n.notation);
          e.aux = n.digits;
        }
        advance();
        ExprId id = add(e);
        // A byte mask applied to an address in an initializer: 0xff00(var).
        if (e.kind == ExprKind::Int && tok_.kind == Tok::LParen) return parse_apply(id);
        return id;
      }
      case Tok::String:
        e.kind = ExprKind::String;
        e.a = sym(tok_.text.substr(1, tok_.text.size() - 2)).id;
        advance();
        return add(e);
      case Tok::LParen: return parse_list(Delim::Paren);
      case Tok::LBrace: return parse_list(Delim::Brace);
      case Tok::LBracket: {
        const ExprId list = parse_list(Delim::Bracket);
        // `[a].unified`: an address qualified by a modifier (on the same line)
        if (tok_.kind == Tok::DotWord && tok_.lead.find('\n') == std::string_view::npos) {
          Expr q;
          q.kind = ExprKind::Suffixed;
          q.loc = m_.expr(list).loc;
          q.a = list.v;
          q.lead = triv(tok_.lead);
          q.b = sym(tok_.text).id;
          advance();
          return add(q);
        }
        return list;
      }
      default: expected("an operand or expression");
    }
  }

  // `addr_mode_0 = clamp_to_edge` in a sampler initializer; tok_ is '='.
  ExprId parse_assignment(ExprId lhs) {
    Expr e;
    e.kind = ExprKind::Binary;
    e.sub = static_cast<uint8_t>(Op::Assign);
    e.loc = m_.expr(lhs).loc;
    e.lead = triv(tok_.lead);
    advance();
    e.a = lhs.v;
    e.b = parse_expr().v;
    return add(e);
  }

  // tok_ is the opening delimiter.
  ExprId parse_list(Delim d) {
    DepthGuard guard(*this);
    const Tok close = d == Delim::Paren ? Tok::RParen : d == Delim::Brace ? Tok::RBrace : Tok::RBracket;
    const char* close_what = d == Delim::Paren ? "',' or ')'" : d == Delim::Brace ? "',' or '}'" : "',' or ']'";
    Expr e;
    e.kind = ExprKind::List;
    e.sub = static_cast<uint8_t>(d);
    e.loc = tok_.offset;
    e.lead = triv(tok_.lead);
    advance();
    Range r{static_cast<uint32_t>(m_.items.size()), 0};
    if (tok_.kind != close) {
      r = parse_items([&] {
        ExprId item = parse_expr();
        if (d == Delim::Brace && tok_.kind == Tok::Assign) item = parse_assignment(item);
        return item.v;
      });
    }
    e.close = expect(close, close_what);
    e.a = r.first;
    e.b = r.count;
    return add(e);
  }

  // ---- statements ------------------------------------------------------------
  // Moves the spaces and comments that end the statement's line from the next
  // token's trivia to the statement. Only when a newline follows them.
  Stmt with_trail(Stmt s) {
    const std::string_view t = tok_.lead;
    size_t i = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i;
      } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
        i = t.find('\n', i);
        if (i == std::string_view::npos) i = t.size();
      } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
        const size_t end = t.find("*/", i + 2);
        if (t.substr(i, end - i).find('\n') != std::string_view::npos) break;  // spans lines: leading
        i = end + 2;
      } else {
        break;
      }
    }
    if (i > 0 && i < t.size() && t[i] == '\n') {
      // Keep '\r' of a CRLF with the newline.
      size_t cut = i;
      if (cut > 0 && t[cut - 1] == '\r') --cut;
      if (cut > 0) {
        s.trail = triv(t.substr(0, cut));
        tok_.lead = t.substr(cut);
        return s;
      }
    }
    s.trail = Trivia::none();
    return s;
  }

  Stmt parse_stmt(Where where) {
    switch (tok_.kind) {
      case Tok::DotWord: return parse_dot_stmt(where);
      case Tok::LBrace:
        if (where != Where::Body) expected(where == Where::Module ? "a directive, declaration or function"
                                                                  : "a label or data directive");
        return Stmt{StmtKind::Block, parse_block(Where::Body)};
      case Tok::Ident:
        if (where == Where::Module) break;
        if (lex_.colon_follows()) return parse_label();
        if (where != Where::Body) break;
        return parse_instruction();
      case Tok::At:
        if (where != Where::Body) break;
        return parse_instruction();
      default: break;
    }
    switch (where) {
      case Where::Module: expected("a directive, declaration or function");
      case Where::Section: expected("a label or data directive");
      default: expected("an instruction, label, declaration or directive");
    }
  }

  Stmt parse_dot_stmt(Where where) {
    const std::string_view w = tok_.text;
    const auto& table = directive_table();
    if (auto it = table.find(w); it != table.end()) {
      const DirectiveInfo& info = it->second;
      const bool ok = (where == Where::Module && info.module) || (where == Where::Body && info.body) ||
                      (where == Where::Section && info.section);
      if (!ok) fail_at(tok_.offset, "directive '" + std::string(w) + "' is not allowed " + where_text(where));
      return Stmt{StmtKind::Directive, parse_directive(info.rule)};
    }
    if (w == ".section") {
      if (where != Where::Module) fail_at(tok_.offset, "'.section' is only allowed at module scope");
      return parse_section();
    }
    if (w == ".callprototype") {
      if (where != Where::Body) fail_at(tok_.offset, "'.callprototype' is only allowed inside a function");
      return parse_prototype();
    }
    if (where == Where::Section || !starts_declaration(w))
      fail_at(tok_.offset, "unknown directive '" + std::string(w.substr(0, 40)) + "' " + where_text(where));
    const uint32_t loc = tok_.offset;
    bool function = false;
    const Range specs = parse_specs(function);
    if (function) {
      if (where != Where::Module) fail_at(loc, "functions can only be defined at module scope");
      return parse_function(specs, loc);
    }
    return Stmt{StmtKind::Decl, parse_decl_rest(specs, loc, /*statement=*/true)};
  }

  static const char* where_text(Where w) {
    switch (w) {
      case Where::Module: return "at module scope";
      case Where::Body: return "inside a function body";
      case Where::FunctionHeader: return "in a function header";
      case Where::Section: return "inside a .section";
    }
    return "";
  }

  Stmt parse_label() {
    Label l;
    l.loc = tok_.offset;
    l.lead = triv(tok_.lead);
    l.name = sym(tok_.text);
    advance();
    l.colon = triv(tok_.lead);  // tok_ is ':'
    advance();
    m_.labels.push_back(l);
    return Stmt{StmtKind::Label, static_cast<uint32_t>(m_.labels.size() - 1)};
  }

  Stmt parse_instruction() {
    Instruction in;
    in.loc = tok_.offset;
    in.lead = triv(tok_.lead);
    if (tok_.kind == Tok::At) {
      advance();
      if (tok_.kind != Tok::Ident && tok_.kind != Tok::Bang) expected("a guard predicate after '@'");
      in.guard = parse_unary();
      in.opcode_lead = triv(tok_.lead);
    }
    if (tok_.kind != Tok::Ident) expected("an instruction opcode");
    in.opcode = sym(tok_.text);
    advance();
    in.modifiers.first = static_cast<uint32_t>(m_.modifiers.size());
    while (tok_.kind == Tok::DotWord) {
      m_.modifiers.push_back(Modifier{sym(tok_.text), triv(tok_.lead)});
      advance();
    }
    in.modifiers.count = static_cast<uint32_t>(m_.modifiers.size()) - in.modifiers.first;
    in.operands.first = static_cast<uint32_t>(m_.items.size());
    if (tok_.kind != Tok::Semi) in.operands = parse_items([&] { return parse_expr().v; });
    in.semi = expect(Tok::Semi, "',' or ';' after an operand");
    m_.instructions.push_back(in);
    return Stmt{StmtKind::Instruction, static_cast<uint32_t>(m_.instructions.size() - 1)};
  }

  // tok_ is the directive name.
  uint32_t parse_directive(const DirectiveRule& rule) {
    Directive d;
    d.loc = tok_.offset;
    d.lead = triv(tok_.lead);
    d.name = sym(tok_.text);
    const std::string name(tok_.text);
    advance();
    auto can_start_item = [&]() {
      switch (tok_.kind) {
        case Tok::Ident:
        case Tok::Number:
        case Tok::String:
        case Tok::Minus:
        case Tok::Plus:
        case Tok::Tilde:
        case Tok::Bang:
        case Tok::LParen:
        case Tok::LBrace:
          return true;
        case Tok::DotWord:
          // `.b32 .debug_abbrev` in a DWARF section.
          return rule.max_items > 0 && !directive_table().count(tok_.text) && tok_.text != ".section";
        default: return false;
      }
    };
    // .loc 1 2 3, function_name L, inlined_at 1 2 3 / .file 1 "name"
    auto adjacent = [&](uint32_t prev_item) {
      if (!rule.space_separated) return false;
      const std::string_view prev = m_.name_of(ExprId{prev_item});
      return tok_.kind == Tok::Number || tok_.kind == Tok::String || prev == "function_name" || prev == "inlined_at";
    };
    d.items.first = static_cast<uint32_t>(m_.items.size());
    if (rule.max_items > 0 && can_start_item()) d.items = parse_items([&] { return parse_expr().v; }, adjacent);
    const size_t count = d.items.count;
    if (count < rule.min_items || count > rule.max_items) {
      std::string msg = "'" + name + "' takes ";
      if (rule.max_items == 0) msg += "no operands";
      else if (rule.min_items == rule.max_items) msg += std::to_string(rule.min_items) + (rule.min_items == 1 ? " operand" : " operands");
      else if (rule.max_items == 255) msg += "at least " + std::to_string(rule.min_items) + (rule.min_items == 1 ? " operand" : " operands");
      else msg += std::to_string(rule.min_items) + " to " + std::to_string(rule.max_items) + " operands";
      msg += ", found " + std::to_string(count);
      fail_at(d.loc, msg);
    }
    if (rule.semicolon) {
      d.has_semi = true;
      d.semi = expect(Tok::Semi, "';' after the directive");
    }
    m_.directives.push_back(d);
    return static_cast<uint32_t>(m_.directives.size() - 1);
  }

  // Leading words of a declaration or function header, in order.
  Range parse_specs(bool& function) {
    Range r{static_cast<uint32_t>(m_.specs.size()), 0};
    while (tok_.kind == Tok::DotWord) {
      Spec s;
      s.word = sym(tok_.text);
      s.lead = triv(tok_.lead);
      const std::string_view w = tok_.text;
      if (w == ".entry" || w == ".func") function = true;
      advance();
      if (w == ".align") {
        if (tok_.kind != Tok::Number) expected("an alignment after '.align'");
        s.arg = parse_primary();
      } else if (w == ".attribute") {
        if (tok_.kind != Tok::LParen) expected("'(' after '.attribute'");
        s.arg = parse_list(Delim::Paren);
      }
      m_.specs.push_back(s);
    }
    r.count = static_cast<uint32_t>(m_.specs.size()) - r.first;
    return r;
  }

  Declarator parse_declarator(bool allow_init) {
    Declarator d;
    if (tok_.kind != Tok::Ident) expected("a name");
    d.name = sym(tok_.text);
    d.lead = triv(tok_.lead);
    advance();
    if (tok_.kind == Tok::Lt) {  // %r<100>
      DepthGuard guard(*this);
      Expr e;
      e.kind = ExprKind::List;
      e.sub = static_cast<uint8_t>(Delim::Angle);
      e.loc = tok_.offset;
      e.lead = triv(tok_.lead);
      advance();
      const size_t start = scratch_.size();
      ListItem it;
      it.node = parse_expr(kShiftPrec).v;
      it.comma = false;
      scratch_.push_back(it);
      e.close = expect(Tok::Gt, "'>' after a register count");
      const Range r = commit_items(start);
      e.a = r.first;
      e.b = r.count;
      d.range = add(e);
    }
    const size_t start = scratch_.size();
    while (tok_.kind == Tok::LBracket) {
      ListItem it;
      it.node = parse_list(Delim::Bracket).v;
      it.comma = false;
      scratch_.push_back(it);
      if (m_.expr(ExprId{it.node}).b > 1) fail_at(m_.expr(ExprId{it.node}).loc, "an array dimension takes one value");
    }
    d.dims = commit_items(start);
    if (tok_.kind == Tok::Assign) {
      if (!allow_init) fail_at(tok_.offset, "parameters cannot have initializers");
      d.eq = triv(tok_.lead);
      advance();
      d.init = parse_expr();
    }
    return d;
  }

  // After the specs: declarators and, for statements, ';'.
  uint32_t parse_decl_rest(Range specs, uint32_t loc, bool statement) {
    Decl decl;
    decl.loc = loc;
    decl.specs = specs;
    if (specs.count == 0) expected("a state space such as '.param' or '.reg'");
    decl.declarators.first = static_cast<uint32_t>(m_.declarators.size());
    for (;;) {
      Declarator d = parse_declarator(statement);
      if (statement && tok_.kind == Tok::Comma) {
        d.sep = triv(tok_.lead);
        m_.declarators.push_back(d);
        advance();
        continue;
      }
      m_.declarators.push_back(d);
      break;
    }
    decl.declarators.count = static_cast<uint32_t>(m_.declarators.size()) - decl.declarators.first;
    decl.has_semi = statement;
    if (statement) decl.semi = expect(Tok::Semi, "',' or ';' after a declaration");
    m_.decls.push_back(decl);
    return static_cast<uint32_t>(m_.decls.size() - 1);
  }

  // tok_ is '('.
  ParamList parse_param_list() {
    DepthGuard guard(*this);
    ParamList pl;
    pl.present = true;
    pl.open = triv(tok_.lead);
    advance();
    pl.params.first = static_cast<uint32_t>(m_.items.size());
    if (tok_.kind != Tok::RParen) {
      pl.params = parse_items([&] {
        if (tok_.kind != Tok::DotWord) expected("a parameter declaration such as '.param .u64 name'");
        const uint32_t loc = tok_.offset;
        bool function = false;
        const Range specs = parse_specs(function);
        if (function) fail_at(loc, "unexpected '.entry'/'.func' in a parameter list");
        return parse_decl_rest(specs, loc, /*statement=*/false);
      });
    }
    pl.close = expect(Tok::RParen, "',' or ')' in a parameter list");
    return pl;
  }

  Stmt parse_function(Range specs, uint32_t loc) {
    Function f;
    f.loc = loc;
    f.specs = specs;
    if (tok_.kind == Tok::LParen) f.ret = parse_param_list();
    if (tok_.kind != Tok::Ident) expected("a function name");
    f.name = sym(tok_.text);
    f.name_lead = triv(tok_.lead);
    advance();
    if (tok_.kind == Tok::LParen) f.params = parse_param_list();
    parse_header_directives(f.header);
    if (tok_.kind == Tok::LBrace) {
      f.body = parse_block(Where::Body);
    } else if (tok_.kind == Tok::Semi) {
      f.semi = triv(tok_.lead);
      advance();
    } else {
      expected("'{' or ';' after a function header");
    }
    m_.functions.push_back(std::move(f));
    return Stmt{StmtKind::Function, static_cast<uint32_t>(m_.functions.size() - 1)};
  }

  // .maxntid 256, 1, 1 .noreturn ...: the directives after a function's or a prototype's parameters.
  void parse_header_directives(std::vector<uint32_t>& out) {
    const auto& table = directive_table();
    while (tok_.kind == Tok::DotWord) {
      auto it = table.find(tok_.text);
      if (it == table.end() || !it->second.header)
        fail_at(tok_.offset, "'" + std::string(tok_.text.substr(0, 40)) + "' is not a function header directive");
      out.push_back(parse_directive(it->second.rule));
    }
  }

  Stmt parse_prototype() {
    Prototype p;
    p.loc = tok_.offset;
    p.lead = triv(tok_.lead);
    advance();
    if (tok_.kind == Tok::LParen) p.ret = parse_param_list();
    if (tok_.kind != Tok::Ident) expected("'_' after the return parameters of '.callprototype'");
    p.name = sym(tok_.text);
    p.name_lead = triv(tok_.lead);
    advance();
    if (tok_.kind != Tok::LParen) expected("'(' for the parameters of '.callprototype'");
    p.params = parse_param_list();
    parse_header_directives(p.header);  // .noreturn, .abi_preserve N, ... as on a function header
    p.semi = expect(Tok::Semi, "';' after '.callprototype'");
    m_.prototypes.push_back(std::move(p));
    return Stmt{StmtKind::Prototype, static_cast<uint32_t>(m_.prototypes.size() - 1)};
  }

  Stmt parse_section() {
    Section s;
    s.loc = tok_.offset;
    s.lead = triv(tok_.lead);
    advance();
    if (tok_.kind != Tok::DotWord && tok_.kind != Tok::Ident) expected("a section name");
    s.name = sym(tok_.text);
    s.name_lead = triv(tok_.lead);
    advance();
    if (tok_.kind != Tok::LBrace) expected("'{' to open the section");
    s.body = parse_block(Where::Section);
    m_.sections.push_back(s);
    return Stmt{StmtKind::Section, static_cast<uint32_t>(m_.sections.size() - 1)};
  }

  // tok_ is '{'.
  uint32_t parse_block(Where where) {
    DepthGuard guard(*this);
    const uint32_t idx = m_.add_block();
    const uint32_t loc = tok_.offset;
    const Trivia open = triv(tok_.lead);
    advance();
    std::vector<Stmt> stmts;
    while (tok_.kind != Tok::RBrace) {
      if (tok_.kind == Tok::Eof) fail_at(loc, "this '{' is never closed");
      stmts.push_back(with_trail(parse_stmt(where)));
    }
    Block& b = m_.blocks[idx];
    b.loc = loc;
    b.open = open;
    b.close = triv(tok_.lead);
    b.stmts = std::move(stmts);
    advance();
    return idx;
  }

  Lexer lex_;
  Module& m_;
  Token tok_;
  uint32_t depth_ = 0;
  uint32_t max_depth_;
  std::vector<ListItem> scratch_;
  std::vector<std::pair<std::string_view, Trivia>> common_;
  struct RecentName {
    uint64_t w0 = 0, w1 = 0;
    uint32_t len = 0, id = 0;
  };
  const char* src_end_;
  int recent_bits_;
  std::vector<RecentName> recent_;
};

}  // namespace

ParseResult parse(std::string_view text, const ParseOptions& options) {
  if (text.size() >= std::numeric_limits<uint32_t>::max())
    return ParseResult(locate(options.file_name, {}, 0, "input is larger than 4 GiB"));
  try {
    Module m;
    {
      Parser p(text, m, options.max_depth);
      p.parse_module();
    }
    m.source = SourceMap(options.file_name, text);
    return ParseResult(std::move(m));
  } catch (const detail::SyntaxError& e) {
    return ParseResult(locate(options.file_name, text, e.offset, e.message));
  }
}

Module parse_or_throw(std::string_view text, const ParseOptions& options) {
  ParseResult r = parse(text, options);
  if (!r) throw ParseFailure(r.error());
  return r.take();
}

}  // namespace ptx::text
