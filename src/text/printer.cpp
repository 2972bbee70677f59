#include "ptxpp/text/printer.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "ptxpp/text/number_literal.hpp"

namespace ptx::text {

using namespace ptx::ir;

namespace {

// The spacing a slot gets when its trivia is synthesized, or in canonical mode.
enum class Gap : uint8_t {
  None,   // ""
  Space,  // " "
  Tab,    // " \t" (between an opcode and its first operand)
  Line,   // newline + indentation of the current depth
  Label,  // newline + one level less (labels sit left of the instructions)
  Blank,  // blank line + indentation (before functions and sections)
};

const char* op_text(Op op) {
  switch (op) {
    case Op::Neg: return "-";
    case Op::Plus: return "+";
    case Op::Not: return "!";
    case Op::BitNot: return "~";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Rem: return "%";
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Shl: return "<<";
    case Op::Shr: return ">>";
    case Op::Lt: return "<";
    case Op::Gt: return ">";
    case Op::Le: return "<=";
    case Op::Ge: return ">=";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::BitAnd: return "&";
    case Op::BitXor: return "^";
    case Op::BitOr: return "|";
    case Op::LogAnd: return "&&";
    case Op::LogOr: return "||";
    case Op::Assign: return "=";
  }
  return "?";
}

// A '//' comment without the carriage returns of CRLF line ends.
std::string_view without_cr(std::string_view comment) {
  while (!comment.empty() && comment.back() == '\r') comment.remove_suffix(1);
  return comment;
}

// Appends to a std::string through a raw pointer: the string is grown ahead in
// large steps and cut to size at the end, so each token costs a bounds check
// and a short copy rather than a std::string::append call.
class Output {
 public:
  Output(std::string& s, size_t expected) : s_(s), start_(s.size()) {
    s_.resize(start_ + std::max<size_t>(expected, 4096));
    p_ = s_.data() + start_;
    end_ = s_.data() + s_.size();
  }
  ~Output() { s_.resize(size()); }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  size_t size() const { return static_cast<size_t>(p_ - s_.data()); }
  size_t start() const { return start_; }
  char back() const { return p_[-1]; }
  void operator+=(char c) {
    if (p_ == end_) grow(1);
    *p_++ = c;
  }
  void operator+=(std::string_view v) {
    const size_t n = v.size();
    if (static_cast<size_t>(end_ - p_) < n) grow(n);
    if (n <= 16) {
      for (size_t i = 0; i < n; ++i) p_[i] = v[i];
    } else {
      std::memcpy(p_, v.data(), n);
    }
    p_ += n;
  }
  void operator+=(const char* z) { *this += std::string_view(z); }
  // A string from the module's StringPool: it is followed by kReadPadding
  // readable bytes, so short ones are copied as a fixed 16-byte block.
  void put_pooled(std::string_view v) {
    static_assert(StringPool::kReadPadding >= 16);
    const size_t n = v.size();
    if (n == 0) return;  // the empty string has no storage
    if (static_cast<size_t>(end_ - p_) < n + 16) grow(n + 16);
    if (n <= 16) {
      std::memcpy(p_, v.data(), 16);
    } else {
      std::memcpy(p_, v.data(), n);
    }
    p_ += n;
  }

 private:
  void grow(size_t n) {
    const size_t used = size();
    s_.resize(std::max(s_.size() * 2, used + n + 4096));
    p_ = s_.data() + used;
    end_ = s_.data() + s_.size();
  }
  std::string& s_;
  size_t start_;
  char* p_;
  char* end_;
};

class Printer {
 public:
  // `expected`: a guess of the output size, so most prints allocate once.
  Printer(const Module& m, std::string& out, PrintMode mode, size_t expected)
      : m_(m), out_(out, expected), canonical_(mode == PrintMode::Canonical) {}

  void module() {
    const Block& root = m_.root();
    for (size_t i = 0; i < root.stmts.size(); ++i) {
      const Stmt s = root.stmts[i];
      const bool spaced = i > 0 && (s.kind == StmtKind::Function || s.kind == StmtKind::Section);
      stmt(s, spaced ? Gap::Blank : Gap::Line);
      trail(s.trail);
    }
    eof();
  }

  void stmt(Stmt s, Gap lead) {
    switch (s.kind) {
      case StmtKind::Instruction: instruction(m_.instructions[s.index], lead); break;
      case StmtKind::Label: label(m_.labels[s.index]); break;
      case StmtKind::Decl: decl(m_.decls[s.index], lead); break;
      case StmtKind::Directive: directive(m_.directives[s.index], lead); break;
      case StmtKind::Block: block(m_.blocks[s.index], lead); break;
      case StmtKind::Prototype: prototype(m_.prototypes[s.index], lead); break;
      case StmtKind::Function: function(m_.functions[s.index], lead); break;
      case StmtKind::Section: section(m_.sections[s.index], lead); break;
    }
  }

  void expr(ExprId id, Gap lead) {
    const Expr& e = m_.expr(id);
    switch (e.kind) {
      case ExprKind::Name:
        gap(e.lead, lead);
        out_.put_pooled(m_.strings.view_id(e.a));
        if (e.b) out_.put_pooled(m_.strings.view_id(e.b));
        break;
      case ExprKind::Int:
      case ExprKind::Float:
        gap(e.lead, lead);
        if (static_cast<Notation>(e.sub) == Notation::Spelled)
          out_.put_pooled(m_.strings.view_id(e.aux));
        else
        {
          char buf[kMaxNumberLength];
          out_ += std::string_view(buf, format_number(buf, static_cast<Notation>(e.sub), e.flags, e.aux, e.value));
        }
        break;
      case ExprKind::String:
        gap(e.lead, lead);
        out_ += '"';
        out_.put_pooled(m_.strings.view_id(e.a));
        out_ += '"';
        break;
      case ExprKind::Unary:
        gap(e.lead, lead);
        out_ += op_text(static_cast<Op>(e.sub));
        expr(ExprId{e.a}, Gap::None);
        break;
      case ExprKind::Binary: {
        const Op op = static_cast<Op>(e.sub);
        expr(ExprId{e.a}, lead);
        gap(e.lead, op == Op::Assign ? Gap::Space : Gap::None);
        out_ += op_text(op);
        // `a % b` must not become `a %b`: `%b` would read as one identifier.
        expr(ExprId{e.b}, op == Op::Rem || op == Op::Assign ? Gap::Space : Gap::None);
        break;
      }
      case ExprKind::Ternary:
        expr(ExprId{e.a}, lead);
        gap(e.lead, Gap::Space);
        out_ += '?';
        expr(ExprId{e.b}, Gap::Space);
        gap(e.close, Gap::Space);
        out_ += ':';
        expr(ExprId{e.aux}, Gap::Space);
        break;
      case ExprKind::List: {
        static constexpr char kOpen[] = {'(', '{', '[', '<'};
        static constexpr char kClose[] = {')', '}', ']', '>'};
        gap(e.lead, lead);
        out_ += kOpen[e.sub];
        items(Range{e.a, e.b}, Gap::None, Gap::Space);
        gap(e.close, Gap::None);
        out_ += kClose[e.sub];
        break;
      }
      case ExprKind::Apply:
        expr(ExprId{e.a}, lead);
        expr(ExprId{e.b}, Gap::None);
        break;
      case ExprKind::Suffixed:
        expr(ExprId{e.a}, lead);
        gap(e.lead, Gap::None);
        out_.put_pooled(m_.strings.view_id(e.b));
        break;
    }
  }

 private:
  // ---- trivia --------------------------------------------------------------
  bool at_start() const { return out_.size() == out_.start(); }

  void newline(int depth) {
    out_ += '\n';
    for (int i = 0; i < depth; ++i) out_ += '\t';
  }

  void spacing(Gap g) {
    switch (g) {
      case Gap::None: break;
      case Gap::Space: out_ += ' '; break;
      case Gap::Tab: out_ += " \t"; break;
      case Gap::Blank:
        if (!at_start()) out_ += '\n';
        [[fallthrough]];
      case Gap::Line:
        if (!at_start()) newline(depth_);
        break;
      case Gap::Label:
        if (!at_start()) newline(depth_ > 0 ? depth_ - 1 : 0);
        break;
    }
  }

  void gap(Trivia t, Gap def) {
    if (t.synthesized()) {
      spacing(def);
    } else if (!canonical_) {
      out_.put_pooled(m_.strings.view(t));
    } else {
      canonical_gap(m_.strings.view(t), def);
    }
  }

  // Keeps the comments of a trivia and lays the rest out canonically.
  void canonical_gap(std::string_view t, Gap def) {
    const bool line_slot = def == Gap::Line || def == Gap::Label || def == Gap::Blank;
    const int indent = def == Gap::Label ? (depth_ > 0 ? depth_ - 1 : 0) : depth_;
    uint32_t newlines = 0;   // since the previous comment
    bool any_comment = false;
    bool line_broken = false;  // the last thing written was a '//' comment and its newline
    size_t i = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '/' && i + 1 < t.size() && (t[i + 1] == '/' || t[i + 1] == '*')) {
        size_t end;
        const bool line_comment = t[i + 1] == '/';
        if (line_comment) {
          end = t.find('\n', i);
          if (end == std::string_view::npos) end = t.size();
        } else {
          end = t.find("*/", i + 2);
          end = end == std::string_view::npos ? t.size() : end + 2;
        }
        std::string_view comment = t.substr(i, end - i);
        if (line_comment) comment = without_cr(comment);
        if (line_slot) {
          if (at_start()) {
            // nothing before: the comment opens the file
          } else if (newlines == 0 && !line_broken) {
            out_ += ' ';
          } else {
            if (newlines >= 2) out_ += '\n';
            newline(indent);
          }
          out_ += comment;
          line_broken = false;
          if (line_comment) line_broken = true;
        } else {
          if (!line_broken) out_ += ' ';
          out_ += comment;
          line_broken = false;
          if (line_comment) {
            newline(depth_ + 1);
            line_broken = true;
          }
        }
        any_comment = true;
        newlines = 0;
        i = end;
      } else {
        if (c == '\n') ++newlines;
        ++i;
      }
    }
    if (line_slot) {
      if (at_start()) return;
      const bool blank = def == Gap::Blank || newlines >= 2;
      if (blank) out_ += '\n';
      newline(indent);
      (void)any_comment;
    } else if (!line_broken) {
      spacing(def);
    }
  }

  // Comments on the rest of a statement's line.
  void trail(Trivia t) {
    if (t.synthesized()) return;
    const std::string_view s = m_.strings.view(t);
    if (!canonical_) {
      out_ += s;
      return;
    }
    for (size_t i = 0; i < s.size();) {
      if (s[i] == '/' && i + 1 < s.size()) {
        const bool line_comment = s[i + 1] == '/';
        size_t end = line_comment ? s.size() : s.find("*/", i + 2) + 2;
        out_ += ' ';
        out_ += line_comment ? without_cr(s.substr(i, end - i)) : s.substr(i, end - i);
        i = end;
      } else {
        ++i;
      }
    }
  }

  void eof() {
    const Trivia t = m_.eof;
    if (!canonical_ && !t.synthesized()) {
      out_.put_pooled(m_.strings.view(t));
      return;
    }
    if (!t.synthesized()) {
      // Comments after the last statement, each on its own line.
      const std::string_view s = m_.strings.view(t);
      const int saved = depth_;
      depth_ = 0;
      size_t before = out_.size();
      canonical_gap(s, Gap::Line);
      // canonical_gap ends with a newline (+ no indent at depth 0) when anything was written.
      if (out_.size() > before && out_.back() == '\n') {
        depth_ = saved;
        return;
      }
      depth_ = saved;
    }
    if (!at_start()) out_ += '\n';
  }

  // ---- lists -----------------------------------------------------------------
  // Items of a list: the first gets `first`, later ones `rest` after their ','
  // (or after whitespace when the item list is not comma-separated).
  void items(Range r, Gap first, Gap rest) {
    for (uint32_t i = 0; i < r.count; ++i) {
      const ListItem& it = m_.items[r.first + i];
      expr(ExprId{it.node}, i == 0 ? first : rest);
      if (it.comma) {
        gap(it.sep, Gap::None);
        out_ += ',';
      }
    }
  }

  // ---- statements ------------------------------------------------------------
  void instruction(const Instruction& in, Gap lead) {
    if (in.guard) {
      gap(in.lead, lead);
      out_ += '@';
      expr(in.guard, Gap::None);
      gap(in.opcode_lead, Gap::Space);
    } else {
      gap(in.lead, lead);
    }
    out_.put_pooled(m_.strings.view(in.opcode));
    for (const Modifier& mod : m_.modifiers_of(in)) {
      gap(mod.lead, Gap::None);
      out_.put_pooled(m_.strings.view(mod.name));
    }
    items(in.operands, Gap::Tab, Gap::Space);
    gap(in.semi, Gap::None);
    out_ += ';';
  }

  void label(const Label& l) {
    gap(l.lead, Gap::Label);
    out_.put_pooled(m_.strings.view(l.name));
    gap(l.colon, Gap::None);
    out_ += ':';
  }

  void specs(Range r, Gap first) {
    for (uint32_t i = 0; i < r.count; ++i) {
      const Spec& s = m_.specs[r.first + i];
      gap(s.lead, i == 0 ? first : Gap::Space);
      const std::string_view w = m_.strings.view(s.word);
      out_.put_pooled(w);
      if (s.arg) expr(s.arg, w == ".attribute" ? Gap::None : Gap::Space);
    }
  }

  void decl(const Decl& d, Gap lead) {
    specs(d.specs, lead);
    const auto ds = m_.declarators_of(d);
    for (size_t i = 0; i < ds.size(); ++i) {
      const Declarator& dc = ds[i];
      gap(dc.lead, Gap::Space);
      out_.put_pooled(m_.strings.view(dc.name));
      if (dc.range) expr(dc.range, Gap::None);
      for (const ListItem& dim : m_.slice(dc.dims)) expr(ExprId{dim.node}, Gap::None);
      if (dc.init) {
        gap(dc.eq, Gap::Space);
        out_ += '=';
        expr(dc.init, Gap::Space);
      }
      if (i + 1 < ds.size()) {
        gap(dc.sep, Gap::None);
        out_ += ',';
      }
    }
    if (d.has_semi) {
      gap(d.semi, Gap::None);
      out_ += ';';
    }
  }

  void directive(const Directive& d, Gap lead) {
    gap(d.lead, lead);
    out_.put_pooled(m_.strings.view(d.name));
    items(d.items, Gap::Space, Gap::Space);
    if (d.has_semi) {
      gap(d.semi, Gap::None);
      out_ += ';';
    }
  }

  void block(const Block& b, Gap lead) {
    gap(b.open, lead);
    out_ += '{';
    ++depth_;
    for (const Stmt& s : b.stmts) {
      stmt(s, Gap::Line);
      trail(s.trail);
    }
    --depth_;
    gap(b.close, Gap::Line);
    out_ += '}';
  }

  // One parameter per line (function parameters) or all on one line.
  void params(const ParamList& pl, Gap open, bool multiline) {
    gap(pl.open, open);
    out_ += '(';
    ++depth_;
    for (uint32_t i = 0; i < pl.params.count; ++i) {
      const ListItem& it = m_.items[pl.params.first + i];
      decl(m_.decls[it.node], multiline ? Gap::Line : (i == 0 ? Gap::None : Gap::Space));
      if (it.comma) {
        gap(it.sep, Gap::None);
        out_ += ',';
      }
    }
    --depth_;
    gap(pl.close, multiline && pl.params.count > 0 ? Gap::Line : Gap::None);
    out_ += ')';
  }

  void prototype(const Prototype& p, Gap lead) {
    gap(p.lead, lead);
    out_ += ".callprototype";
    if (p.ret.present) params(p.ret, Gap::Space, false);
    gap(p.name_lead, Gap::Space);
    out_.put_pooled(m_.strings.view(p.name));
    params(p.params, Gap::Space, false);
    for (uint32_t d : p.header) directive(m_.directives[d], Gap::Space);
    gap(p.semi, Gap::None);
    out_ += ';';
  }

  void function(const Function& f, Gap lead) {
    specs(f.specs, lead);
    if (f.ret.present) params(f.ret, Gap::Space, false);
    gap(f.name_lead, Gap::Space);
    out_.put_pooled(m_.strings.view(f.name));
    if (f.params.present) params(f.params, Gap::None, true);
    for (uint32_t d : f.header) directive(m_.directives[d], Gap::Line);
    if (f.has_body()) {
      block(m_.blocks[f.body], Gap::Line);
    } else {
      gap(f.semi, Gap::None);
      out_ += ';';
    }
  }

  void section(const Section& s, Gap lead) {
    gap(s.lead, lead);
    out_ += ".section";
    gap(s.name_lead, Gap::Space);
    out_.put_pooled(m_.strings.view(s.name));
    block(m_.blocks[s.body], Gap::Line);
  }

  const Module& m_;
  Output out_;
  bool canonical_;
  int depth_ = 0;
};

}  // namespace

void print(const Module& m, std::string& out, PrintMode mode) {
  // Parsed modules print to about their source size; built ones to ~40 bytes an instruction.
  const size_t expected = m.source.size() ? m.source.size() + m.source.size() / 8 : m.instructions.size() * 40;
  Printer p(m, out, mode, expected + 64);
  p.module();
}

std::string print(const Module& m, PrintMode mode) {
  std::string out;
  print(m, out, mode);
  return out;
}

std::string print_expr(const Module& m, ExprId e) {
  std::string out;
  {
    Printer p(m, out, PrintMode::Canonical, 64);
    p.expr(e, Gap::None);
  }
  return out;
}

std::string print_stmt(const Module& m, Stmt s, PrintMode mode) {
  m.check(s);
  std::string out;
  {
    Printer p(m, out, mode, 256);
    p.stmt(s, Gap::None);
  }
  return out;
}

}  // namespace ptx::text
