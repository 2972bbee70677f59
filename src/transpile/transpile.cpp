// PTX -> ptxpp C++ or Python. The module header, variables and function headers become
// typed listing declarations where they print back the same (declarations.hpp), else
// text as written; each function body becomes DSL calls, one per statement: ptx::inst chains for
// the instructions the ISA table spells, ptx::listing for declarations, labels,
// directives, nested blocks, comments and blank lines. What to write is decided
// here, once for both languages; language.hpp spells it.
#include "ptxpp/transpile/transpile.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "../dsl/listing_text.hpp"
#include "declarations.hpp"
#include "fold_repeats.hpp"
#include "language.hpp"
#include "ptxpp/dsl/chains.hpp"
#include "ptxpp/dsl/types.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/ir/scopes.hpp"
#include "ptxpp/ir/walk.hpp"
#include "ptxpp/spec/isa.hpp"
#include "ptxpp/spec/validator.hpp"
#include "ptxpp/text/printer.hpp"

#include <cxxabi.h>
#include <cstdlib>

namespace ptx::transpile {

namespace {

using namespace ir;

// How the output names a register declaration: a Reg, a RegArray (its registers by
// index), or, for a declaration written as text, lst::reg_ref of a type (the language's
// spelling of the DType; of "none" when the DSL has no such register type: .v4 .f32).
struct RegCxx {
  enum Kind : uint8_t { Reg, Array, Ref } kind;
  std::string text;  // the output's name (Reg, Array) or the type (Ref)
};

class Writer {
 public:
  Writer(const Module& m, std::string_view source, const Options& o, const Language& lang)
      : m_(m), o_(o), lang_(lang), sc_(m) {
    (void)source;  // the module prints it back (Exact): the statements are written from the module
  }

  std::string run() {
    const bool valid = spec::check(m_).empty();
    std::string target = "sm_90a";
    for (std::string_view w : target_words(m_))
      if (Target::parse(w)) {
        target = std::string(w);
        break;
      }
    // .version/.target/.address_size as listing options when they are the usual three lines
    const std::optional<ModuleHeader> header = typed_header(m_, target);
    // the ISA check of each instruction is on when the whole module passes the validator
    out_ += lang_.file_begin(o_, target, valid, header ? header->version : "", header ? header->address_size : 64);
    depth_ = 1;
    module_level_ = true;
    const std::vector<Stmt>& stmts = m_.root().stmts;
    for (size_t i = 0; i < stmts.size(); ++i) {
      lead(lead_of(m_, stmts[i]));
      if (header && i == 0 && module_written_) module_call("header", "");  // after the comments that open the file
      module_written_ = module_written_ || header;
      if (!(header && i < 3)) module_statement(stmts[i]);
      trail(stmts[i].trail);
    }
    lead(m_.eof);
    out_ += lang_.file_end(o_);
    return std::move(out_);
  }

 private:
  const Module& m_;
  const Options& o_;
  const Language& lang_;
  std::string out_;
  int depth_ = 0;
  // Names are resolved through the module's scopes (ir::Scopes), at the statement being written.
  Scopes sc_;
  uint32_t scope_ = Scopes::kModule, at_ = Scopes::kAnywhere;
  std::map<uint32_t, RegCxx> regs_;                         // register declaration -> how the output names it
  std::map<uint32_t, std::string> labels_;                  // label declaration -> its name in the output
  std::set<std::string, std::less<>> cxx_names_;            // names taken in this function
  size_t lines_ = 0;                                        // lines written so far (an empty body needs one)

  void line(std::string_view s, bool foldable = false, int nest = 0, bool omitted = false) {
    ++lines_;
    if (buffer_) {
      buffer_->push_back({depth_, std::string(s), foldable, nest, omitted});
      return;
    }
    write(Line{depth_, std::string(s), foldable, nest, omitted});
  }
  void write(const Line& l) {
    if (l.omitted) return;
    if (!l.text.empty()) out_.append(static_cast<size_t>(l.depth * lang_.indent_width()), ' ');
    out_ += l.text;
    out_ += '\n';
  }
  std::string quote(std::string_view s) const { return lang_.quote(s); }

  // A nested body (a function body, a block, a loop): the language's opening lines, the
  // body one level deeper, then its closing line.
  template <class F>
  void nested(const std::vector<std::string>& open, const F& body, bool uni_loop = false) {
    for (const std::string& l : open) line(l);
    ++depth_;
    const size_t before = lines_;
    body();
    if (lines_ == before)
      if (const auto empty = lang_.empty_body()) line(*empty);
    --depth_;
    if (const auto close = lang_.close_call(uni_loop)) line(*close);
  }

  std::vector<Line>* buffer_ = nullptr;  // a function body's lines, while sugar passes may still rewrite them

  // ---- module-level statements: typed declarations, else as written ----------------
  bool module_level_ = false;  // comments and blank lines are the listing's (m.comment), not a body's
  bool module_written_ = false;

  void module_call(std::string_view fn, std::string_view args) {
    line(lang_.call_statement(Ns::Module, fn, args));
    module_written_ = true;
  }

  void module_statement(Stmt s) {
    if (s.kind == StmtKind::Function) return function(m_.functions[s.index], s);
    const std::string text = exact_text(s);
    if (s.kind == StmtKind::Decl && text.find('/') == std::string::npos)
      if (const auto v = typed_variable(m_, m_.decls[s.index], text)) return variable(*v);
    module_call("stmt", lang_.text_literal(text));
  }

  // The statement as printed without its lead, '\r' kept (a block comment inside keeps its bytes).
  std::string exact_text(Stmt s) const {
    std::string text = text::print_stmt(m_, s, text::PrintMode::Exact);
    if (const Trivia l = lead_of(m_, s); !l.synthesized()) text.erase(0, m_.text(l).size());
    return text;
  }

  void variable(const TypedVariable& v) {
    module_call(lang_.member(listing::detail::space_name(v.space)), variable_args(lang_, v));
  }

  // A function: typed header when it prints the same, else its header as written; then its body.
  void function(const Function& f, Stmt s) {
    const std::string text = exact_text(s);  // a header written as text keeps its line ends
    std::string header = text;
    if (f.has_body()) {
      const Block& body = m_.blocks[f.body];
      const std::string printed = text::print_stmt(m_, Stmt{StmtKind::Block, f.body}, text::PrintMode::Exact);
      header.resize(text.size() - (printed.size() - m_.text(body.open).size()));  // up to the `{`
    }
    const auto typed = header.find('/') == std::string::npos ? typed_function(m_, f, header) : std::nullopt;
    module_written_ = true;
    if (!f.has_body()) {
      if (typed) return module_call("func_decl", function_args(lang_, *typed));
      return module_call("stmt", lang_.text_literal(text));
    }
    if (typed) return function_body(f, m_.blocks[f.body], lang_.open_function(typed->entry ? "entry" : "func", function_args(lang_, *typed)));
    line(lang_.call_statement(Ns::Module, "text", lang_.text_literal(header)));
    function_body(f, m_.blocks[f.body], lang_.open_body());
  }

  // ---- names -------------------------------------------------------------------
  std::string cxx_name(std::string_view ptx, std::string_view prefix = {}) {
    std::string s(prefix);
    for (const char c : ptx) {
      const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (alnum) s += c;
      else if (!s.empty() && s.back() != '_') s += '_';
    }
    while (!s.empty() && s.back() == '_') s.pop_back();
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) s = "r_" + s;
    std::string name = s;
    for (int n = 2; lang_.reserved(name) || cxx_names_.count(name); ++n) name = fmt::format("{}_{}", s, n);
    cxx_names_.insert(name);
    return name;
  }

  std::optional<std::string> reg_expr(std::string_view name) const {
    const Resolved r = sc_.lookup(scope_, at_, name);
    const auto it = r ? regs_.find(r.declaration) : regs_.end();
    if (it == regs_.end()) return std::nullopt;
    switch (it->second.kind) {
      case RegCxx::Reg:
        return it->second.text;
      case RegCxx::Array:
        return fmt::format("{}[{}]", it->second.text, r.element);
      case RegCxx::Ref:
        return lang_.call(Ns::Listing, "reg_ref", fmt::format("{}, {}", it->second.text, quote(name)));
    }
    return std::nullopt;
  }

  // The label declaration `name` refers to here, if it is a label.
  std::optional<uint32_t> label_decl(std::string_view name) const {
    const Resolved r = sc_.lookup(scope_, Scopes::kAnywhere, name);
    if (!r || sc_.declaration(r.declaration).kind != Declaration::Label) return std::nullopt;
    return r.declaration;
  }
  bool is_label(std::string_view name) const { return label_decl(name).has_value(); }
  // The output's name of the label a label statement places.
  const std::string& label_of(Stmt s) const { return labels_.at(sc_.of_label(s.index)); }

  // ---- trivia: comments and blank lines ---------------------------------------------
  // Each comment with the newlines before it; then the newlines before the statement.
  void lead(Trivia t) {
    if (t.synthesized()) return;
    const std::string_view s = m_.text(t);
    int newlines = 0;
    for (size_t i = 0; i < s.size();) {
      if (s[i] == '/' && i + 1 < s.size() && (s[i + 1] == '/' || s[i + 1] == '*')) {
        size_t end = s[i + 1] == '/' ? s.find('\n', i) : s.find("*/", i + 2);
        end = end == std::string_view::npos ? s.size() : (s[i + 1] == '/' ? end : end + 2);
        std::string c(s.substr(i, end - i));
        while (!c.empty() && c.back() == '\r') c.pop_back();
        if (newlines == 0 && !(module_level_ && !module_written_)) {
          line(lang_.call_statement(ns(), module_level_ ? "trail" : "comment_same_line", quote(c)));
        } else {
          if (newlines >= 2) blank_line();
          line(lang_.call_statement(ns(), "comment", quote(c)));
        }
        module_written_ = true;
        newlines = 0;
        i = end;
      } else {
        if (s[i] == '\n') ++newlines;
        ++i;
      }
    }
    if (newlines >= 2) blank_line();
  }
  void blank_line() {
    if (module_level_ && !module_written_) return;  // before the first statement: the canonical form has none
    line(lang_.call_statement(ns(), "blank_line", ""));
  }
  Ns ns() const { return module_level_ ? Ns::Module : Ns::Listing; }

  void trail(Trivia t) {
    if (t.synthesized()) return;
    std::string s(m_.text(t));
    std::erase(s, '\r');
    const size_t first = s.find('/');
    if (first == std::string::npos) return;
    line(lang_.call_statement(ns(), "trail", quote(s.substr(first))));
  }

  static Trivia lead_of(const Module& m, Stmt s) {
    switch (s.kind) {
      case StmtKind::Instruction: return m.instructions[s.index].lead;
      case StmtKind::Label: return m.labels[s.index].lead;
      case StmtKind::Decl: {
        const Decl& d = m.decls[s.index];
        return d.specs.count ? m.specs[d.specs.first].lead : Trivia{};
      }
      case StmtKind::Directive: return m.directives[s.index].lead;
      case StmtKind::Block: return m.blocks[s.index].open;
      case StmtKind::Prototype: return m.prototypes[s.index].lead;
      case StmtKind::Function: {
        const Function& f = m.functions[s.index];
        return f.specs.count ? m.specs[f.specs.first].lead : Trivia{};
      }
      case StmtKind::Section: return m.sections[s.index].lead;
      default: return {};
    }
  }

  // The statement as written, without its lead trivia.
  std::string stmt_text(Stmt s) const {
    const std::string printed = text::print_stmt(m_, s, text::PrintMode::Exact);
    const Trivia l = lead_of(m_, s);
    std::string out = printed.substr(l.synthesized() ? 0 : m_.text(l).size());
    std::erase(out, '\r');
    return out;
  }

  // ---- functions -----------------------------------------------------------------
  void function_body(const Function& f, const Block& body, const std::vector<std::string>& open) {
    labels_.clear();
    cxx_names_.clear();
    regs_.clear();
    if (o_.sugar) {
      const std::string name(m_.text(f.name));
      int status = 0;
      char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
      if (status == 0 && demangled) line(lang_.comment(demangled));
      std::free(demangled);
    }
    module_level_ = false;
    nested(open, [&] { function_statements(f, body); });
    module_level_ = true;
  }

  void function_statements(const Function& f, const Block& body) {
    body_depth_ = depth_;
    std::vector<Line> lines;
    if (o_.sugar) buffer_ = &lines;
    // .reg parameters and return values (declared in the header): registers of the body
    const uint32_t fscope = sc_.of_function(function_index(f));
    for (const ParamList* list : {&f.ret, &f.params}) {
      if (list == &f.ret && !f.ret.present) continue;
      for (const ListItem& it : m_.slice(list->params)) text_registers(m_.decls[it.node]);
    }
    count_label_uses(fscope);
    declare_labels(fscope);
    function_name_ = m_.text(f.name);
    aliases_.clear();
    alias_lines_.clear();
    const size_t aliases_at = lines.size();
    if (o_.sugar) count_register_uses(body);
    statements(fscope);
    lead(body.close);
    if (buffer_) {
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(aliases_at), alias_lines_.begin(), alias_lines_.end());
      buffer_ = nullptr;
      fold_repeats(lines, std::vector<std::string>(cxx_names_.begin(), cxx_names_.end()), lang_);
      for (const Line& l : lines) write(l);
    }
  }

  // How often each label is an operand (a back edge raised into a loop must be its label's only use).
  std::map<uint32_t, size_t> label_uses_;
  void count_label_uses(uint32_t fscope) {
    label_uses_.clear();
    for (uint32_t s = fscope; s < sc_.size(); ++s) {
      if (sc_.scope(s).function != sc_.scope(fscope).function) continue;
      scope_ = s;
      for (const Stmt& st : m_.blocks[sc_.scope(s).block].stmts)
        if (st.kind == StmtKind::Instruction)
          for (const ListItem& it : m_.operands_of(m_.instructions[st.index])) count_names(ExprId{it.node});
    }
    scope_ = Scopes::kModule;
  }
  void count_names(ExprId id) {
    ir::for_each_name(m_, id, [&](const Expr& e) {
      if (const auto l = label_decl(m_.text(Symbol{e.a}))) ++label_uses_[*l];
    });
  }

  // The labels of a scope, declared where its scope in the output starts (a label is seen in its whole block).
  void declare_labels(uint32_t scope) {
    for (uint32_t d : sc_.declared_in(scope)) {
      const Declaration& l = sc_.declaration(d);
      if (l.kind != Declaration::Label) continue;
      const std::string name(m_.text(l.name));
      std::string_view bare = name;
      if (bare.starts_with("$L__")) bare.remove_prefix(4);
      const std::string cxx = o_.sugar ? cxx_name(short_label(bare)) : cxx_name(bare, "L_");
      labels_.emplace(d, cxx);
      line(lang_.declare(Holds::Label, cxx, lang_.call(Ns::Listing, "label", quote(name))));
    }
  }

  uint32_t function_index(const Function& f) const { return static_cast<uint32_t>(&f - m_.functions.data()); }

  void statements(uint32_t scope) {
    const uint32_t outer_scope = scope_, outer_at = at_;
    scope_ = scope;
    const Block& b = m_.blocks[sc_.scope(scope).block];
    range(b.stmts, 0, b.stmts.size());
    scope_ = outer_scope;
    at_ = outer_at;
  }

  void range(const std::vector<Stmt>& stmts, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      const Stmt& s = stmts[i];
      at_ = static_cast<uint32_t>(i);
      lead(lead_of(m_, s));
      if (o_.sugar) {
        if (const size_t use = address_group(stmts, i, to)) {
          address_arithmetic(stmts, i, use);
          i = use - 1;
          continue;
        }
      }
      if (o_.sugar && s.kind == StmtKind::Label) {
        if (const size_t end = forward_wait(stmts, i, to)) {
          wait(stmts, i, end);
          i = end;
          continue;
        }
        if (const size_t end = back_edge(stmts, i, to)) {
          loop(stmts, i, end);
          i = end;
          continue;
        }
      }
      statement(s);
      trail(s.trail);
    }
  }

  // The index of `@p bra L` / `@!p bra L` (or bra.uni) closing a loop that starts at label
  // stmts[at] in this block, when that branch is the label's only use; 0 when there is none.
  size_t back_edge(const std::vector<Stmt>& stmts, size_t at, size_t to) {
    const std::string name(m_.text(m_.labels[stmts[at].index].name));
    if (label_uses_[sc_.of_label(stmts[at].index)] != 1 || has_comment(stmts[at].trail)) return 0;
    for (size_t j = at + 1; j < to; ++j) {
      if (stmts[j].kind == StmtKind::Decl) return 0;  // its name must outlive the loop's body (a lambda, a def)
      if (stmts[j].kind != StmtKind::Instruction) continue;
      const Instruction& in = m_.instructions[stmts[j].index];
      if (m_.text(in.opcode) != "bra" || !in.guard || in.operands.count != 1) continue;
      if (m_.name_of(m_.operand(in, 0)) != name) continue;
      const auto mods = m_.modifiers_of(in);
      if (mods.size() > 1 || (mods.size() == 1 && m_.text(mods[0].name) != ".uni")) return 0;
      if (stmt_text(stmts[j]).find('/') != std::string::npos) return 0;
      return guard_of(in.guard) ? j : 0;
    }
    return 0;
  }

  // `W: body  @p bra D;  bra.uni W;  D:` with W and D used only there: the index of D's label, else 0.
  size_t forward_wait(const std::vector<Stmt>& stmts, size_t at, size_t to) {
    const std::string top(m_.text(m_.labels[stmts[at].index].name));
    if (label_uses_[sc_.of_label(stmts[at].index)] != 1 || has_comment(stmts[at].trail)) return 0;
    for (size_t j = at + 1; j + 2 < to; ++j) {
      if (stmts[j].kind == StmtKind::Decl || stmts[j].kind == StmtKind::Label) return 0;
      if (stmts[j].kind != StmtKind::Instruction) continue;
      const Instruction& br = m_.instructions[stmts[j].index];
      if (m_.text(br.opcode) != "bra" || !br.guard) continue;
      const std::string done(m_.name_of(m_.operand(br, 0)));
      const Stmt& back = stmts[j + 1];
      const Stmt& end = stmts[j + 2];
      if (br.modifiers.count || br.operands.count != 1 || back.kind != StmtKind::Instruction || end.kind != StmtKind::Label)
        return 0;
      const Instruction& bu = m_.instructions[back.index];
      const auto g = guard_of(br.guard);
      if (!g || g->negated || m_.text(bu.opcode) != "bra" || bu.guard || bu.modifiers.count != 1 ||
          m_.text(m_.modifiers_of(bu)[0].name) != ".uni" || bu.operands.count != 1 ||
          m_.name_of(m_.operand(bu, 0)) != top || m_.text(m_.labels[end.index].name) != done ||
          label_uses_[sc_.of_label(end.index)] != 1)
        return 0;
      for (size_t k = j; k <= j + 2; ++k)
        if (has_comment(stmts[k].trail) || !plain_lead(lead_of(m_, stmts[k])) || stmt_text(stmts[k]).find('/') != std::string::npos)
          return 0;
      return j + 2;
    }
    return 0;
  }

  void wait(const std::vector<Stmt>& stmts, size_t at, size_t end) {
    const Instruction& br = m_.instructions[stmts[end - 2].index];
    nested(lang_.open_wait(label_of(stmts[at]), label_of(stmts[end]), guard_of(br.guard)->reg),
           [&] { range(stmts, at + 1, end - 2); });
    trail(stmts[end].trail);
  }

  void loop(const std::vector<Stmt>& stmts, size_t at, size_t end) {
    const Instruction& br = m_.instructions[stmts[end].index];
    const Guard g = *guard_of(br.guard);
    const bool uni = br.modifiers.count == 1;
    nested(lang_.open_loop(g.negated, label_of(stmts[at]), g.reg, uni), [&] {
      range(stmts, at + 1, end);
      lead(lead_of(m_, stmts[end]));  // comments before the back edge
    }, uni);
    trail(stmts[end].trail);
  }

  // No comment and no blank line: nothing a helper that writes the statement itself would lose.
  bool plain_lead(Trivia t) const {
    if (t.synthesized()) return true;
    const std::string_view s = m_.text(t);
    return s.find('/') == std::string_view::npos && std::count(s.begin(), s.end(), '\n') <= 1;
  }

  bool has_comment(Trivia t) const { return !t.synthesized() && m_.text(t).find('/') != std::string_view::npos; }

  // ---- sugar: address arithmetic ------------------------------------------------------
  // How often each name appears as an operand or guard in this function.
  std::map<std::string, size_t, std::less<>> name_uses_;
  void count_register_uses(const Block& b) {
    name_uses_.clear();
    ir::for_each_stmt(m_, b, [&](const Stmt& s) {
      if (s.kind != StmtKind::Instruction) return;
      ir::for_each_operand(m_, m_.instructions[s.index], [&](ExprId op) {
        name_texts(op, [&](std::string_view n) { ++name_uses_[std::string(n)]; });
      });
    });
  }
  template <class F>
  void name_texts(ExprId id, const F& f) const {
    ir::for_each_name(m_, id, [&](const Expr& e) { f(m_.text(Symbol{e.a})); });
  }

  // The register an instruction writes, when it is an unguarded integer ALU
  // instruction of the kind that computes addresses; else empty.
  std::string_view address_step_result(Stmt s) const {
    static constexpr std::string_view kSteps[] = {"add", "sub", "mul", "mad", "shl", "shr", "cvt", "cvta",
                                                  "mov", "and", "or",  "mul24", "mad24"};
    if (s.kind != StmtKind::Instruction) return {};
    const Instruction& in = m_.instructions[s.index];
    if (in.guard || in.operands.count < 2 || has_comment(s.trail)) return {};
    if (std::find(std::begin(kSteps), std::end(kSteps), m_.text(in.opcode)) == std::end(kSteps)) return {};
    const ExprId dst = m_.operand(in, 0);
    if (m_.expr(dst).kind != ExprKind::Name || m_.expr(dst).b) return {};
    const std::string_view n = m_.name_of(dst);
    return reg_expr(n) ? n : std::string_view{};
  }

  // The register an instruction's [reg] or [reg+imm] operand is based on; else empty.
  std::string_view address_base(Stmt s) const {
    if (s.kind != StmtKind::Instruction) return {};
    const Instruction& in = m_.instructions[s.index];
    const std::string_view op = m_.text(in.opcode);
    if (op == "bra" || op == "call" || op == "brx") return {};
    for (const ListItem& it : m_.operands_of(in)) {
      const Expr& e = m_.expr(ExprId{it.node});
      if (e.kind != ExprKind::List || e.sub != static_cast<uint8_t>(Delim::Bracket) || e.b != 1) continue;
      ExprId inner{m_.items[e.a].node};
      if (m_.expr(inner).kind == ExprKind::Binary && m_.expr(inner).sub == static_cast<uint8_t>(Op::Add))
        inner = ExprId{m_.expr(inner).a};
      if (m_.expr(inner).kind == ExprKind::Name && !m_.expr(inner).b && reg_expr(m_.name_of(inner)))
        return m_.name_of(inner);
    }
    return {};
  }

  // When stmts[at..use) is the whole computation of the address the instruction
  // stmts[use] reads (two or more steps, each result used once, by the next steps
  // or the address): use; else 0.
  size_t address_group(const std::vector<Stmt>& stmts, size_t at, size_t to) {
    constexpr size_t kMaxSteps = 16;
    size_t use = at;
    while (use < to && use - at <= kMaxSteps && !address_step_result(stmts[use]).empty() &&
           (use == at || plain_lead(lead_of(m_, stmts[use]))))
      ++use;
    if (use - at < 2 || use >= to || use - at > kMaxSteps) return 0;
    const std::string_view base = address_base(stmts[use]);
    if (base.empty()) return 0;
    std::set<std::string, std::less<>> needed{std::string(base)};
    for (size_t j = use; j-- > at;) {
      const std::string_view dst = address_step_result(stmts[j]);
      auto it = needed.find(dst);
      if (it == needed.end() || name_uses_[std::string(dst)] != 2) return 0;  // written once, read once
      needed.erase(it);
      const Instruction& in = m_.instructions[stmts[j].index];
      const auto ops = m_.operands_of(in);
      for (size_t k = 1; k < ops.size(); ++k)
        name_texts(ExprId{ops[k].node}, [&](std::string_view n) { needed.emplace(n); });
    }
    return use;
  }

  void address_arithmetic(const std::vector<Stmt>& stmts, size_t at, size_t use) {
    const std::string text = stmt_text(stmts[use]);
    const std::string mnemonic = text.substr(0, text.find_first_of(" \t"));
    const std::optional<std::string> close = lang_.close_group();
    line(lang_.open_group(mnemonic), true, +1);
    if (close) ++depth_;
    for (size_t k = at; k < use; ++k) {
      if (k > at) lead(lead_of(m_, stmts[k]));
      statement(stmts[k]);
      trail(stmts[k].trail);
    }
    if (close) --depth_;
    line(close.value_or(""), true, -1, !close);
  }

  // ---- sugar: names ------------------------------------------------------------------
  // $L__BB0_12 -> bb12
  static std::string short_label(std::string_view bare) {
    if (!bare.starts_with("BB")) return std::string(bare);
    const size_t us = bare.find('_');
    const std::string_view fn = bare.substr(2, us == std::string_view::npos ? 0 : us - 2);
    const std::string_view n = us == std::string_view::npos ? std::string_view{} : bare.substr(us + 1);
    const auto digits = [](std::string_view d) { return !d.empty() && d.find_first_not_of("0123456789") == std::string_view::npos; };
    return digits(fn) && digits(n) ? fmt::format("bb{}", n) : std::string(bare);
  }

  // A symbol operand: with --sugar, a mangled name becomes a constant of the output named
  // after what it demangles to (param_0, As, shfl_xor_sync), declared at the top
  // of the body; other names stay string literals.
  std::string_view function_name_;
  std::map<std::string, std::string, std::less<>> aliases_;
  std::vector<Line> alias_lines_;
  int body_depth_ = 0;

  std::string symbol_ref(std::string_view n) {
    if (!o_.sugar) return quote(n);
    if (auto it = aliases_.find(n); it != aliases_.end()) return it->second;
    const std::string base = alias_base(n);
    if (base.empty()) return quote(n);
    const std::string cxx = cxx_name(base);
    aliases_.emplace(std::string(n), cxx);
    alias_lines_.push_back({body_depth_, lang_.declare(Holds::SymbolName, cxx, quote(n)), false, 0});
    return cxx;
  }

  std::string alias_base(std::string_view n) const {
    if (n.starts_with(function_name_) && n.substr(function_name_.size()).starts_with("_param_")) {
      const std::string_view index = n.substr(function_name_.size() + 7);
      if (!index.empty() && index.find_first_not_of("0123456789") == std::string_view::npos)
        return fmt::format("param_{}", index);
    }
    if (!n.starts_with("_Z")) return {};
    int status = 0;
    char* d = abi::__cxa_demangle(std::string(n).c_str(), nullptr, nullptr, &status);
    const std::string demangled = status == 0 && d ? d : "";
    std::free(d);
    // the last name at nesting depth 0: f<int>(float*)::As -> As; ns::g(int) -> g
    std::string last;
    int nest = 0;
    for (size_t i = 0; i < demangled.size(); ++i) {
      const char c = demangled[i];
      if (c == '<' || c == '(' || c == '[') ++nest;
      else if (c == '>' || c == ')' || c == ']') --nest;
      else if (nest == 0 && c == ':' && i + 1 < demangled.size() && demangled[i + 1] == ':') {
        last.clear();
        ++i;
      } else if (nest == 0 && c == ' ') last.clear();  // `void f<...>(...)`: the return type
      else if (nest == 0) last += c;
    }
    const size_t start = last.find_first_not_of('_');
    if (start == std::string::npos || !is_cxx_identifier(last.substr(start))) return {};
    return last.substr(start);
  }

  void statement(Stmt s) {
    switch (s.kind) {
      case StmtKind::Instruction: instruction(s); break;
      case StmtKind::Label:
        line(lang_.call_statement(Ns::Dsl, "place", label_of(s)));
        break;
      case StmtKind::Decl: declaration(s); break;
      case StmtKind::Block: {
        const Block& b = m_.blocks[s.index];
        nested(lang_.open_block(), [&] {
          declare_labels(sc_.of_block(s.index));
          statements(sc_.of_block(s.index));
          lead(b.close);
        });
        break;
      }
      default: text_statement("stmt", stmt_text(s)); break;
    }
  }

  // `.reg .T %name<N>;` and `.reg .T %name;` as typed registers; anything else as written.
  void declaration(Stmt s) {
    const Decl& d = m_.decls[s.index];
    const auto specs = m_.specs_of(d.specs);
    const auto decls = m_.declarators_of(d);
    std::optional<DType> type;
    if (specs.size() == 2 && m_.text(specs[0].word) == ".reg" && !specs[1].arg && decls.size() == 1 &&
        !decls[0].dims.count && !decls[0].init)
      type = dtype(m_.text(specs[1].word));
    const bool plain_text = stmt_text(s).find('/') == std::string::npos;  // no comments inside
    if (type && plain_text) {
      const Declarator& dc = decls[0];
      const std::string name(m_.text(dc.name));
      const std::string_view bare = name[0] == '%' ? std::string_view(name).substr(1) : std::string_view(name);
      const std::string type_expr = lang_.dtype(type);
      if (!dc.range) {
        const std::string cxx = cxx_name(bare);
        line(lang_.declare(Holds::Reg, cxx, lang_.call(Ns::Listing, "reg", fmt::format("{}, {}", type_expr, quote(name)))));
        regs_[sc_.of_declarator(d.declarators.first)] = {RegCxx::Reg, cxx};
        return;
      }
      const Expr& list = m_.expr(dc.range);
      // value_or, not *optional: GCC 12 -Wmaybe-uninitialized misfires on the latter here
      const int64_t n = (list.b == 1 ? eval_int(m_, ExprId{m_.items[list.a].node}) : std::nullopt).value_or(0);
      const Expr& count = m_.expr(ExprId{m_.items[list.a].node});
      if (n > 0 && n <= (1 << 20) && count.kind == ExprKind::Int && count.sub == static_cast<uint8_t>(Notation::Dec) &&
          text::print_expr(m_, ExprId{m_.items[list.a].node}) == std::to_string(n)) {
        const std::string cxx = cxx_name(bare);
        line(lang_.declare(Holds::RegArray, cxx,
                           lang_.call(Ns::Listing, "regs", fmt::format("{}, {}, {}", type_expr, quote(name), n))));
        regs_[sc_.of_declarator(d.declarators.first)] = {RegCxx::Array, cxx};
        return;
      }
    }
    text_statement("stmt", stmt_text(s));
    text_registers(d);
  }

  // The registers a `.reg` declaration written as text declares: lst::reg_ref of its type.
  void text_registers(const Decl& d) {
    const auto specs = m_.specs_of(d.specs);
    if (specs.empty() || m_.text(specs[0].word) != ".reg") return;
    std::optional<DType> t = specs.size() == 2 && !specs[1].arg ? dtype(m_.text(specs[1].word)) : std::nullopt;
    const std::string type_expr = lang_.dtype(t);
    for (uint32_t i = 0; i < d.declarators.count; ++i) {
      const uint32_t decl = sc_.of_declarator(d.declarators.first + i);
      if (decl != Scopes::kNone && sc_.declaration(decl).count != Declaration::kUnknownCount)
        regs_[decl] = {RegCxx::Ref, type_expr};
    }
  }

  static std::optional<DType> dtype(std::string_view spelled) {
    for (int i = 0; i < static_cast<int>(DType::none); ++i) {
      const auto t = static_cast<DType>(i);
      if (ptx::name(t) == spelled) return t;
    }
    return std::nullopt;
  }

  // ---- instructions ---------------------------------------------------------------
  void instruction(Stmt s) {
    const Instruction& in = m_.instructions[s.index];
    const std::string text = stmt_text(s);
    std::vector<std::string_view> mods;
    mnemonic_ = m_.text(in.opcode);
    for (const Modifier& md : m_.modifiers_of(in)) {
      mods.push_back(m_.text(md.name));
      mnemonic_ += m_.text(md.name);
    }
    const auto chain = lang_.chain(m_.text(in.opcode), mods);
    std::optional<Guard> guard;
    if (in.guard) guard = guard_of(in.guard);
    std::vector<std::string> ops;
    bool ok = chain && (!in.guard || guard) && text.find('/') == std::string::npos;  // comments inside: as written
    for (const ListItem& it : m_.operands_of(in)) {
      if (!ok) break;
      ops.push_back(operand(ExprId{it.node}, ops.empty()));
    }
    if (!ok) {
      text_statement("instruction", text);
      return;
    }
    line(lang_.instruction(*chain, guard ? guard_text(*guard) : "", fmt::format("{}", fmt::join(ops, ", "))), true);
  }
  std::string mnemonic_;  // of the instruction being written: "cvt.rn.f32.f64"

  // A statement as written (lst::stmt, lst::instruction); one line of it may fold into a loop.
  void text_statement(std::string_view fn, std::string_view text) {
    line(lang_.call_statement(Ns::Listing, fn, lang_.text_literal(text)), fn == "instruction" && text.find('\n') == std::string::npos);
  }

  // A guard `@p` / `@!p` on a register the output names.
  struct Guard {
    std::string reg;
    bool negated = false;
  };
  std::optional<Guard> guard_of(ExprId id) const {
    const Expr& e = m_.expr(id);
    if (e.kind == ExprKind::Name && !e.b) {
      if (const auto r = reg_expr(m_.name_of(id))) return Guard{*r, false};
    }
    if (e.kind == ExprKind::Unary && e.sub == static_cast<uint8_t>(Op::Not)) {
      const ExprId a{e.a};
      if (m_.expr(a).kind == ExprKind::Name && !m_.expr(a).b)
        if (const auto r = reg_expr(m_.name_of(a))) return Guard{*r, true};
    }
    return std::nullopt;
  }
  std::string guard_text(const Guard& g) const { return g.negated ? lang_.negated(g.reg, false) : g.reg; }

  // An operand as an expression of the output; first: the first operand of a call (in C++ it
  // must convert to ptx::Located).
  std::string operand(ExprId id, bool first) {
    if (auto typed = typed_operand(id, first)) return *typed;
    return lang_.call(Ns::Listing, "operand", quote(text::print_expr(m_, id)));
  }

  std::optional<std::string> typed_operand(ExprId id, bool first) {
    const Expr& e = m_.expr(id);
    switch (e.kind) {
      case ExprKind::Name: return name_operand(id);
      case ExprKind::Int: return int_literal(id, false);
      case ExprKind::Float: return float_literal(e);
      case ExprKind::Unary: {
        const ExprId a{e.a};
        if (e.sub == static_cast<uint8_t>(Op::Neg) && m_.expr(a).kind == ExprKind::Int && !m_.expr(a).lead.id) return int_literal(a, true);
        if (e.sub == static_cast<uint8_t>(Op::Not) && m_.expr(a).kind == ExprKind::Name && !m_.expr(a).b)
          if (const auto r = reg_expr(m_.name_of(a))) return lang_.negated(*r, first);
        return std::nullopt;
      }
      case ExprKind::Binary: {
        const Expr& a = m_.expr(ExprId{e.a});
        const Expr& b = m_.expr(ExprId{e.b});
        if (e.sub == static_cast<uint8_t>(Op::BitOr) && a.kind == ExprKind::Name && b.kind == ExprKind::Name && !a.b && !b.b) {
          const auto ra = reg_expr(m_.name_of(ExprId{e.a}));
          const auto rb = reg_expr(m_.name_of(ExprId{e.b}));
          if (ra && rb) return lang_.call(Ns::Dsl, "pair", fmt::format("{}, {}", *ra, *rb));
        }
        return std::nullopt;
      }
      case ExprKind::List: return list_operand(e);
      default: return std::nullopt;
    }
  }

  std::optional<std::string> name_operand(ExprId id) {
    const Expr& e = m_.expr(id);
    const std::string_view n = m_.text(Symbol{e.a});
    if (e.b) {  // %tid.x
      const std::string_view comp = m_.text(Symbol{e.b});
      const spec::SpecialRegister* r = spec::find_special_register(n);
      if (r && r->name == n && !r->components.empty() && (comp == ".x" || comp == ".y" || comp == ".z"))
        return lang_.special(n.substr(1), comp);
      return std::nullopt;
    }
    if (n == "_") return lang_.sink();
    if (const auto r = reg_expr(n)) return *r;
    if (const auto l = label_decl(n)) return labels_.at(*l);
    if (!n.empty() && n[0] == '%') {
      const spec::SpecialRegister* r = spec::find_special_register(n);
      if (r && r->name == n && r->components.empty() && r->count == 0) return lang_.special(n.substr(1), {});
      return std::nullopt;
    }
    return lang_.call(Ns::Dsl, "symbol", symbol_ref(n));
  }

  // Decimal literals as integers of the output; other notations keep their spelling.
  std::optional<std::string> int_literal(ExprId id, bool negative) const {
    const Expr& e = m_.expr(id);
    if (e.sub != static_cast<uint8_t>(Notation::Dec) || e.flags != 0) return std::nullopt;
    if (text::print_expr(m_, id) != std::to_string(e.value)) return std::nullopt;  // leading zeros
    if (negative && e.value > (uint64_t{1} << 63)) return std::nullopt;
    return lang_.integer(e.value, negative);
  }

  // 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX in the DSL's spelling (as floats of the output, or by bits).
  std::optional<std::string> float_literal(const Expr& e) const {
    const bool f32 = e.sub == static_cast<uint8_t>(Notation::F32Hex);
    if (!(f32 || e.sub == static_cast<uint8_t>(Notation::F64Hex))) return std::nullopt;
    // the DSL writes 0f3F800000: lower-case prefix, upper-case digits, all of them
    const std::string dsl = f32 ? fmt::format("0f{:08X}", e.value) : fmt::format("0d{:016X}", e.value);
    if (text::print_expr(m_, ExprId{static_cast<uint32_t>(&e - m_.exprs.data())}) != dsl) return std::nullopt;
    return lang_.floating(e.value, f32, mnemonic_);
  }

  std::optional<std::string> list_operand(const Expr& e) {
    if (e.sub == static_cast<uint8_t>(Delim::Bracket) && e.b == 1) {
      const ExprId inner{m_.items[e.a].node};
      const Expr& x = m_.expr(inner);
      if (x.kind == ExprKind::Name && !x.b) return address(m_.name_of(inner), Offset::None, {});
      if (x.kind == ExprKind::Binary && x.sub == static_cast<uint8_t>(Op::Add)) {
        const ExprId base{x.a}, off{x.b};
        if (m_.expr(base).kind != ExprKind::Name || m_.expr(base).b) return std::nullopt;
        const Expr& o = m_.expr(off);
        std::optional<std::string> n;
        if (o.kind == ExprKind::Int) n = int_literal(off, false);
        else if (o.kind == ExprKind::Unary && o.sub == static_cast<uint8_t>(Op::Neg) && m_.expr(ExprId{o.a}).kind == ExprKind::Int)
          n = int_literal(ExprId{o.a}, true);
        // ptx::addr drops a zero offset unless it is written ptx::offset(0); [r+-0], [r+-2^63]
        // and positive offsets over a C++ int stay as written
        const bool neg = o.kind != ExprKind::Int;
        const uint64_t v = (neg ? m_.expr(ExprId{o.a}) : o).value;
        if (!n || (neg && (v == 0 || v == (uint64_t{1} << 63))) || (!neg && v > 0x7fffffffu)) return std::nullopt;
        if (v == 0) return address(m_.name_of(base), Offset::KeptZero, {});
        return address(m_.name_of(base), Offset::Value, *n);
      }
      return std::nullopt;
    }
    if (e.sub == static_cast<uint8_t>(Delim::Paren) && e.b > 0) {  // (param0, param1): a call's arguments
      std::vector<std::string> names;
      for (uint32_t i = 0; i < e.b; ++i) {
        const ExprId el{m_.items[e.a + i].node};
        const Expr& x = m_.expr(el);
        if (x.kind != ExprKind::Name || x.b) return std::nullopt;
        const std::string_view n = m_.name_of(el);
        if (n.empty() || n[0] == '%' || reg_expr(n) || is_label(n) || n == "_") return std::nullopt;
        names.push_back(symbol_ref(n));
      }
      return lang_.arguments(names);
    }
    if (e.sub == static_cast<uint8_t>(Delim::Brace) && e.b > 0) {
      std::vector<std::string> elems;
      for (uint32_t i = 0; i < e.b; ++i) {
        const ExprId el{m_.items[e.a + i].node};
        const Expr& x = m_.expr(el);
        std::optional<std::string> s;
        if (x.kind == ExprKind::Name) s = name_operand(el);
        if (!s) return std::nullopt;
        elems.push_back(std::move(*s));
      }
      if (o_.sugar && elems.size() >= 8)
        if (auto r = as_range(elems)) return r;
      return lang_.vector(elems);
    }
    return std::nullopt;
  }

  // {f[1], f[2], ..., f[64]} -> f.range(1, 64) (Python: f[1:65])
  std::optional<std::string> as_range(const std::vector<std::string>& elems) const {
    std::string array;
    size_t first = 0;
    for (size_t i = 0; i < elems.size(); ++i) {
      const std::string& el = elems[i];
      const size_t open = el.find('[');
      if (open == std::string::npos || el.back() != ']' || el.find('(') != std::string::npos) return std::nullopt;
      const std::string name = el.substr(0, open), index = el.substr(open + 1, el.size() - open - 2);
      if (index.empty() || index.size() > 9 || index.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      const size_t n = std::stoul(index);
      if (i == 0) {
        array = name;
        first = n;
      } else if (name != array || n != first + i) {
        return std::nullopt;
      }
    }
    return lang_.range(array, first, elems.size());
  }

  std::optional<std::string> address(std::string_view base, Offset kind, std::string_view offset) {
    std::string b;
    if (const auto r = reg_expr(base)) b = *r;
    else if (!base.empty() && base[0] != '%' && !is_label(base) && base != "_")
      b = symbol_ref(base);
    else return std::nullopt;
    return lang_.address(b, kind, offset);
  }
};

}  // namespace

bool is_cxx_identifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9') || cpp_language()->reserved(name)) return false;
  return name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string_view::npos;
}

bool is_identifier(std::string_view name, Lang language) {
  return language == Lang::Python ? python_language()->is_identifier(name) : is_cxx_identifier(name);
}

std::string transpile(const ir::Module& m, std::string_view source, const Options& options) {
  const auto lang = options.language == Lang::Python ? python_language() : cpp_language();
  return Writer(m, source, options, *lang).run();
}

std::string to_cpp(const ir::Module& m, std::string_view source, const Options& options) {
  Options o = options;
  o.language = Lang::Cpp;
  return transpile(m, source, o);
}

}  // namespace ptx::transpile
