// Listings: text pieces and traced bodies, joined, parsed again and printed in
// canonical form. Statements written as text (stmt, instruction) stay text
// inside the body's trace (a directive node whose name is the whole statement)
// until that final parse.
#include "ptxpp/dsl/listing.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/dsl/instruction_call.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"
#include "listing_text.hpp"
#include "trace.hpp"

namespace ptx {

using dsl::Trace;

Listing::Listing(ListingOptions o) : options_(std::move(o)) {}

Listing& Listing::text(std::string ptx_text) {
  pieces_.push_back({Kind::Raw, std::move(ptx_text), {}});
  return *this;
}

Listing& Listing::body(Body body) {
  pieces_.push_back({Kind::Body, {}, std::move(body)});
  return *this;
}

Listing& Listing::stmt(std::string ptx_text) {
  pieces_.push_back({Kind::Line, std::move(ptx_text), {}});
  return *this;
}

Listing& Listing::comment(std::string text) {
  pieces_.push_back({Kind::Trivia, std::move(text), {}});
  return *this;
}

Listing& Listing::trail(std::string text) {
  pieces_.push_back({Kind::Trail, std::move(text), {}});
  return *this;
}

Listing& Listing::blank_line() { return comment({}); }

Listing& Listing::header(SourceLocation where) {
  if (options_.version.empty()) throw Error("ptx::Listing::header: the options have no .version to write", where);
  for (const Piece& p : pieces_)
    if (p.kind == Kind::Header) throw Error("ptx::Listing::header: the header is written once", where);
  pieces_.push_back({Kind::Header, {}, {}});
  return *this;
}

Listing& Listing::entry(std::string name, Params params, Body body, SourceLocation where) {
  return function(true, std::move(name), nullptr, params, {}, std::move(body), where);
}
Listing& Listing::entry(std::string name, Params params, listing::FunctionOptions o, Body body, SourceLocation where) {
  return function(true, std::move(name), nullptr, params, o, std::move(body), where);
}
Listing& Listing::func(std::string name, Params ret, Params params, Body body, SourceLocation where) {
  return function(false, std::move(name), ret.empty() ? nullptr : &ret, params, {}, std::move(body), where);
}
Listing& Listing::func(std::string name, Params ret, Params params, listing::FunctionOptions o, Body body,
                       SourceLocation where) {
  return function(false, std::move(name), ret.empty() ? nullptr : &ret, params, o, std::move(body), where);
}
Listing& Listing::func_decl(std::string name, Params ret, Params params, listing::FunctionOptions o,
                            SourceLocation where) {
  return function(false, std::move(name), ret.empty() ? nullptr : &ret, params, o, {}, where);
}

// The header as a statement of its own lines; the body (none: `;`) right after it.
Listing& Listing::function(bool entry, std::string name, const Params* ret, const Params& params,
                           const listing::FunctionOptions& o, Body body, SourceLocation where) {
  const std::string_view what = entry ? "entry" : "func";
  if (name.empty()) throw Error(fmt::format("ptx::Listing::{}: the function needs a name", what), where);
  for (const Params* list : {ret, &params})
    for (size_t i = 0; list && i < list->size(); ++i)
      if (std::string p = listing::detail::param_problem((*list)[i], entry); !p.empty())
        throw Error(fmt::format("ptx::Listing::{} '{}': {}", what, name, p), where);
  for (const listing::FunctionDirective& d : o.directives)
    if (std::string p = listing::detail::directive_problem(d); !p.empty())
      throw Error(fmt::format("ptx::Listing::{} '{}': {}", what, name, p), where);
  std::string header = listing::detail::function_header(entry, name, ret, params, o);
  if (!body) header += ';';
  pieces_.push_back({Kind::Line, std::move(header), {}});
  if (body) pieces_.push_back({Kind::Body, {}, std::move(body)});
  return *this;
}

Listing& Listing::var(listing::Space space, DType type, std::string name, listing::VarOptions o, SourceLocation where) {
  if (name.empty()) throw Error("ptx::Listing::var: the variable needs a name", where);
  if (std::string p = listing::detail::variable_problem(space, type, o); !p.empty())
    throw Error(fmt::format("ptx::Listing::var '{}': {}", name, p), where);
  pieces_.push_back({Kind::Line, listing::detail::variable_text(space, type, name, o), {}});
  return *this;
}
Listing& Listing::global(DType type, std::string name, listing::VarOptions o, SourceLocation where) {
  return var(listing::Space::global, type, std::move(name), std::move(o), where);
}
Listing& Listing::const_(DType type, std::string name, listing::VarOptions o, SourceLocation where) {
  return var(listing::Space::const_, type, std::move(name), std::move(o), where);
}
Listing& Listing::shared(DType type, std::string name, listing::VarOptions o, SourceLocation where) {
  return var(listing::Space::shared, type, std::move(name), std::move(o), where);
}

std::string Listing::header_text() const {
  return fmt::format(".version {}\n.target {}\n.address_size {}\n", options_.version, options_.target,
                     options_.address_size);
}

namespace {

// A function body traced and printed as `{ ... }`.
std::string traced_body(const std::function<void()>& body, Target target, bool validate) {
  dsl::TraceOptions o;
  o.target = target;
  o.validate = validate;
  Trace t(o);
  Trace::Scope scope(t);
  body();
  std::vector<ir::Stmt> stmts = t.finish_body();
  const size_t added = stmts.size() - t.body.size();
  const ir::Trivia close = t.apply_leads(stmts, added);
  const uint32_t block = t.m.add_block();
  t.m.blocks[block].stmts = std::move(stmts);
  t.m.blocks[block].open = ir::Trivia::none();
  t.m.blocks[block].close = close;
  return text::print_stmt(t.m, ir::Stmt{ir::StmtKind::Block, block}, text::PrintMode::Exact);
}

void start_line(std::string& out) {
  if (!out.empty() && out.back() != '\n') out += '\n';
}

}  // namespace

// Raw text and bodies are joined as they are; statements and comments start a line of
// their own, a trail ends the line before.
std::string Listing::ptx() const {
  const auto target = Target::parse(options_.target);
  if (!target) throw Error(fmt::format("ptx::Listing: '{}' is not a target", options_.target), {});
  std::string out;
  const bool placed = std::any_of(pieces_.begin(), pieces_.end(), [](const Piece& p) { return p.kind == Kind::Header; });
  if (!options_.version.empty() && !placed) out += header_text();
  for (const Piece& p : pieces_) {
    switch (p.kind) {
      case Kind::Raw: out += p.text; break;
      case Kind::Body: out += traced_body(p.body, *target, options_.validate); break;
      case Kind::Header:
        start_line(out);
        out += header_text();
        break;
      case Kind::Line:
      case Kind::Trivia:
        start_line(out);
        out += p.text;
        out += '\n';
        break;
      case Kind::Trail:
        if (!out.empty() && out.back() == '\n') out.pop_back();
        out += fmt::format(" {}\n", p.text);
        break;
    }
  }
  auto parsed = text::parse(out, {"<listing>"});
  if (!parsed) throw Error(fmt::format("ptx::Listing: the module does not parse: {}", parsed.error().format()), {});
  return text::print(parsed.module(), text::PrintMode::Canonical);
}

namespace listing {

namespace {

// `text` parsed as the body of a function; throws at `where` when it does not parse.
text::ParseResult parse_in_body(std::string_view what, std::string_view text, ptx::SourceLocation where) {
  std::string src = ".version 9.0\n.target sm_100a\n.address_size 64\n.entry _listing_()\n{\n";
  src += text;
  src += "\n}\n";
  auto parsed = text::parse(src, {"<listing>"});
  if (!parsed) throw Error(fmt::format("ptx::listing::{}: {}", what, parsed.error().message), where);
  return parsed;
}

size_t body_statements(const ir::Module& m) {
  for (const ir::Stmt& s : m.root().stmts)
    if (s.kind == ir::StmtKind::Function) return m.blocks[m.functions[s.index].body].stmts.size();
  return 0;
}

// A statement kept as text until the listing is parsed.
void verbatim(Trace& t, std::string_view text) {
  t.body.push_back(t.m.add_directive(text, std::span<const ir::ExprId>{}));
  t.last_instruction = t.last_dest = 0xFFFFFFFFu;
}

void add_lead(std::string_view text, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  t.leads[t.body.size()] += text;
}

}  // namespace

RegArray regs(DType t, std::string_view name, uint32_t count, ptx::SourceLocation where) {
  if (count == 0) throw Error("a register array needs at least one register", where);
  return RegArray(Trace::current(where).declare_regs(t, name, count, where));
}

Reg reg(DType t, std::string_view name, ptx::SourceLocation where) {
  std::vector<Reg> r = Trace::current(where).declare_regs(t, name, 0, where);
  return std::move(r[0]);
}

Reg reg_ref(DType t, std::string_view name, ptx::SourceLocation where) {
  return Trace::current(where).reg_ref(t, name, where);
}

Label label(std::string_view name, ptx::SourceLocation where) {
  return Label::adopt(Trace::current(where).new_label_exact(name, where), where);
}

void stmt(std::string_view text, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  auto parsed = parse_in_body("stmt", text, where);
  if (body_statements(parsed.module()) != 1) throw Error("ptx::listing::stmt takes exactly one statement", where);
  verbatim(t, text);
}

void instruction(std::string_view text, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  auto parsed = parse_in_body("instruction", text, where);
  if (parsed.module().instructions.size() != 1 || body_statements(parsed.module()) != 1)
    throw Error("ptx::listing::instruction takes exactly one instruction", where);
  verbatim(t, text);
}

Operand operand(std::string_view text, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  auto parsed = parse_in_body("operand", fmt::format("_operand_ {};", text), where);
  const ir::Module& pm = parsed.module();
  if (pm.instructions.size() != 1 || pm.instructions[0].operands.count != 1)
    throw Error(fmt::format("ptx::listing::operand: '{}' is not one operand", text), where);
  return dsl::import_operand(pm, pm.operand(pm.instructions[0], 0), t.m);
}

void block(const std::function<void()>& body, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  std::vector<ir::Stmt> outer = std::move(t.body);
  std::map<size_t, std::string> outer_leads = std::move(t.leads);
  t.body.clear();
  t.leads.clear();
  body();
  std::vector<ir::Stmt> inner = std::move(t.body);
  const ir::Trivia close = t.apply_leads(inner, 0);
  t.body = std::move(outer);
  t.leads = std::move(outer_leads);
  const uint32_t b = t.m.add_block();
  t.m.blocks[b].stmts = std::move(inner);
  t.m.blocks[b].close = close;
  t.body.push_back(ir::Stmt{ir::StmtKind::Block, b});
  t.last_instruction = t.last_dest = 0xFFFFFFFFu;
}

namespace {
void back_edge_loop(const Label& top, const Reg& p, bool negated, const std::function<void()>& body, bool uni,
                    ptx::SourceLocation where) {
  ptx::place(top, where);
  body();
  const Operand target(top);
  const Operand guard = dsl::detail::guard_operand(p, negated);
  const std::span<const Operand> ops(&target, 1);
  if (uni)
    dsl::Trace::current(where).emit(inst::bra.uni, ops, where, &guard);
  else
    dsl::Trace::current(where).emit(inst::bra, ops, where, &guard);
}
}  // namespace

void repeat_while(const Label& top, const Reg& p, const std::function<void()>& body, bool uni, ptx::SourceLocation where) {
  back_edge_loop(top, p, false, body, uni, where);
}

void repeat_until(const Label& top, const Reg& p, const std::function<void()>& body, bool uni, ptx::SourceLocation where) {
  back_edge_loop(top, p, true, body, uni, where);
}

void wait_loop(const Label& top, const Label& done, const Reg& p, const std::function<void()>& body,
               ptx::SourceLocation where) {
  ptx::place(top, where);
  body();
  dsl::Trace& t = dsl::Trace::current(where);
  const Operand to_done(done), to_top(top);
  const Operand guard = dsl::detail::guard_operand(p, false);
  t.emit(inst::bra, std::span<const Operand>(&to_done, 1), where, &guard);
  t.emit(inst::bra.uni, std::span<const Operand>(&to_top, 1), where);
  ptx::place(done, where);
}

void comment(std::string_view text, ptx::SourceLocation where) { add_lead(fmt::format("\n{}", text), where); }
void comment_same_line(std::string_view text, ptx::SourceLocation where) { add_lead(fmt::format(" {}", text), where); }
void blank_line(ptx::SourceLocation where) { add_lead("\n", where); }

void trail(std::string_view text, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (t.body.empty()) throw Error("ptx::listing::trail: no statement before it", where);
  t.body.back().trail = ir::Trivia{t.m.intern(fmt::format(" {}", text)).id};
}

}  // namespace listing
}  // namespace ptx
