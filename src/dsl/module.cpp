#include "ptxpp/dsl/module.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kernel_impl.hpp"
#include "ptxpp/dsl/control.hpp"
#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/text/printer.hpp"
#include "trace.hpp"

namespace ptx {

using dsl::Trace;

struct Func::Impl {
  std::string name;
  ptx::SourceLocation where;
  std::optional<DType> ret;
  std::vector<DType> params;
  std::function<void(const FuncArgs&)> body;
};

namespace {

// Parameters and return values travel as .b registers of their width (.pred as .b32... not allowed: checked).
DType func_param_type(DType t, ptx::SourceLocation where) {
  if (t == DType::pred || t == DType::none || t == DType::b128)
    throw Error(fmt::format("a device function parameter cannot be {}", name(t)), where);
  switch (bits(t)) {
    case 8: return DType::b8;
    case 16: return DType::b16;
    case 32: return DType::b32;
    default: return DType::b64;
  }
}

std::string_view ld_type(DType t) { return name(func_param_type(t, {})); }

}  // namespace

Func::Func(std::string name, ptx::SourceLocation where) : impl_(std::make_shared<Impl>()) {
  if (!dsl::is_identifier(name)) throw Error(fmt::format("function name '{}' is not a PTX identifier", name), where);
  impl_->name = std::move(name);
  impl_->where = where;
}
Func& Func::ret(DType t) {
  func_param_type(t, impl_->where);
  impl_->ret = t;
  return *this;
}
Func& Func::param(DType t) {
  func_param_type(t, impl_->where);
  impl_->params.push_back(t);
  return *this;
}
Func& Func::body(std::function<void(const FuncArgs&)> b) {
  impl_->body = std::move(b);
  return *this;
}
const std::string& Func::name() const { return impl_->name; }
std::optional<DType> Func::ret_type() const { return impl_->ret; }
const std::vector<DType>& Func::params() const { return impl_->params; }
std::string Func::param_symbol(size_t i) const { return fmt::format("{}_param_{}", impl_->name, i); }
std::string Func::ret_symbol() const { return fmt::format("{}_retval", impl_->name); }

Reg FuncArgs::param(size_t i, ptx::SourceLocation where) const {
  Trace& t = Trace::current(where);
  if (i >= f_->params().size())
    throw Error(fmt::format("{} has {} parameters, not {}", f_->name(), f_->params().size(), i + 1), where);
  const DType ty = f_->params()[i];
  Reg r = t.new_reg(ty, {}, where);
  const Operand ops[] = {Operand(r), addr(f_->param_symbol(i))};
  t.emit(dsl::RuntimeChain(inst::ld.param).then(ld_type(ty), where), ops, where);
  return r;
}

void FuncArgs::ret(const Reg& value, ptx::SourceLocation where) const {
  Trace& t = Trace::current(where);
  t.check_reg(value, where);
  if (!f_->ret_type()) throw Error(fmt::format("{} returns nothing", f_->name()), where);
  if (bits(value.type()) != bits(*f_->ret_type()))
    throw Error(fmt::format("{} returns {}, not {}", f_->name(), name(*f_->ret_type()), name(value.type())), where);
  const Operand ops[] = {addr(f_->ret_symbol()), Operand(value)};
  t.emit(dsl::RuntimeChain(inst::st.param).then(ld_type(value.type()), where), ops, where);
  t.emit(inst::ret, {}, where);
}

Reg call(const Func& f, std::initializer_list<Operand> args, ptx::SourceLocation where) {
  return call(f, std::span<const Operand>(args.begin(), args.size()), where);
}

Reg call(const Func& f, std::span<const Operand> args, ptx::SourceLocation where) {
  Trace& t = Trace::current(where);
  if (!t.in_module) throw Error(fmt::format("calling {}: kernels that call device functions are traced by a ptx::Module", f.name()), where);
  if (args.size() != f.params().size())
    throw Error(fmt::format("{} takes {} arguments, not {}", f.name(), f.params().size(), args.size()), where);
  ir::Module& m = t.m;
  const uint32_t n = t.call_serial++;
  std::vector<ir::ExprId> param_names;
  size_t i = 0;
  for (const Operand& a : args) {
    const DType pt = f.params()[i];
    if ((a.kind == OperandKind::Reg && bits(a.type) != bits(pt)) || a.kind == OperandKind::Pred)
      throw Error(fmt::format("argument {} of {}: {} for a {} parameter", i, f.name(), dsl::describe(a), name(pt)), where);
    const std::string pname = fmt::format("param_{}_{}", n, i);
    t.body.push_back(ir::Stmt{ir::StmtKind::Decl, m.add_decl({".param", ld_type(pt)}, pname)});
    Operand value = a;
    Reg staged;
    if (a.kind != OperandKind::Reg) {  // st.param takes a register: immediates go through a mov first
      staged = read(a, pt, where);
      value = Operand(staged);
    }
    const Operand ops[] = {addr(pname), value};
    t.emit(dsl::RuntimeChain(inst::st.param).then(ld_type(pt), where), ops, where);
    param_names.push_back(m.add_name(pname));
    ++i;
  }
  Reg result;
  std::string rname;
  if (f.ret_type()) {
    rname = fmt::format("retval_{}", n);
    t.body.push_back(ir::Stmt{ir::StmtKind::Decl, m.add_decl({".param", ld_type(*f.ret_type())}, rname)});
  }
  std::vector<Operand> ops;
  if (f.ret_type()) ops.emplace_back(OperandKind::Args, DType::none, m.add_list(ir::Delim::Paren, {m.add_name(rname)}));
  ops.emplace_back(OperandKind::Symbol, DType::none, m.add_name(f.name()));
  if (!param_names.empty()) ops.emplace_back(OperandKind::Args, DType::none, m.add_list(ir::Delim::Paren, param_names));
  t.emit(inst::call.uni, ops, where);
  if (f.ret_type()) {
    result = t.new_reg(*f.ret_type(), {}, where);
    const Operand ld[] = {Operand(result), addr(rname)};
    t.emit(dsl::RuntimeChain(inst::ld.param).then(ld_type(*f.ret_type()), where), ld, where);
  }
  return result;
}

struct Module::Impl {
  Target target{80, 0};
  std::optional<PtxVersion> version;
  bool debug = false;
  struct Var {
    std::string space, name;
    DType type;
    uint32_t count, align;
    std::vector<double> init;
  };
  std::vector<Var> vars;
  std::vector<Func> funcs;
  std::vector<Kernel> kernels;
  ptx::SourceLocation where;
};

Module::Module() : impl_(std::make_shared<Impl>()) {}

Module& Module::arch(std::string_view target, ptx::SourceLocation where) {
  auto t = Target::parse(target);
  if (!t || spec::min_ptx_for(*t).major == 0) throw Error(fmt::format("unknown target '{}'", target), where);
  impl_->target = *t;
  impl_->where = where;
  return *this;
}
Module& Module::ptx_version(int major, int minor) {
  impl_->version = dsl::requested_version(major, minor);
  return *this;
}
Module& Module::debug(bool on) {
  impl_->debug = on;
  return *this;
}
Module& Module::global(std::string name, DType t, uint32_t count, std::vector<double> init, uint32_t align) {
  if (!dsl::is_identifier(name)) throw Error(fmt::format("variable name '{}' is not a PTX identifier", name), {});
  if (t == DType::pred || t == DType::none) throw Error("a module variable needs a data type", {});
  impl_->vars.push_back({".global", std::move(name), t, count, align, std::move(init)});
  return *this;
}
Module& Module::constant(std::string name, DType t, uint32_t count, std::vector<double> init, uint32_t align) {
  global(std::move(name), t, count, std::move(init), align);
  impl_->vars.back().space = ".const";
  return *this;
}
Module& Module::add(const Func& f) {
  impl_->funcs.push_back(f);
  return *this;
}
Module& Module::add(const Kernel& k) {
  impl_->kernels.push_back(k);
  return *this;
}

namespace {

// `.func (.param .b32 f_retval) f(.param .b32 f_param_0, ...)`, without a body (a declaration) or with one.
ir::Stmt func_statement(ir::Module& m, const Func& f, uint32_t body_block) {
  std::vector<uint32_t> params;
  for (size_t i = 0; i < f.params().size(); ++i)
    params.push_back(m.add_decl({".param", ld_type(f.params()[i])}, f.param_symbol(i), {}, {}, {}, false));
  ir::Stmt s = m.add_function({".visible", ".func"}, f.name(), params, body_block);
  ir::Function& fn = m.functions[s.index];
  if (f.ret_type()) {
    const uint32_t r = m.add_decl({".param", ld_type(*f.ret_type())}, f.ret_symbol(), {}, {}, {}, false);
    fn.ret.present = true;
    fn.ret.params.first = static_cast<uint32_t>(m.items.size());
    m.items.push_back(ir::ListItem{r, {}, false});
    fn.ret.params.count = 1;
  }
  return s;
}

ir::ExprId init_value(ir::Module& m, DType t, double v) {
  if (t == DType::f32) return m.add_f32(static_cast<float>(v));
  if (t == DType::f64) return m.add_f64(v);
  if (v < 0) return m.add_unary(ir::Op::Neg, m.add_int(static_cast<uint64_t>(-v)));
  return m.add_int(static_cast<uint64_t>(v));
}

}  // namespace

namespace {

// Traces the whole module for `b`; `done(t, pieces)` gets the assembled trace and each kernel's
// piece (in the order they were added), and its result is returned.
template <class F>
auto trace_module(Module::Impl& mi, const Bindings& b, F done) {
  dsl::TraceOptions o;
  o.target = mi.target;
  o.debug = mi.debug;
  Trace t(o);
  Trace::Scope scope(t);
  t.in_module = true;
  ir::Module& m = t.m;
  std::vector<ir::Stmt> body;
  for (const auto& v : mi.vars) {
    std::vector<ir::ExprId> dims;
    if (v.count) dims.push_back(m.add_list(ir::Delim::Bracket, {m.add_int(v.count)}));
    ir::ExprId init;
    if (!v.init.empty()) {
      if (v.init.size() > std::max<uint32_t>(v.count, 1)) throw Error(fmt::format("{}: more initializers than elements", v.name), mi.where);
      std::vector<ir::ExprId> vals;
      for (double x : v.init) vals.push_back(init_value(m, v.type, x));
      init = v.count ? m.add_list(ir::Delim::Brace, vals) : vals[0];
    }
    const std::string_view ty = is_float(v.type) && bits(v.type) == 16 ? ".b16" : name(v.type);
    const uint32_t d = v.align ? m.add_decl({v.space, ".align", ty}, v.name, {}, dims, init)
                               : m.add_decl({v.space, ty}, v.name, {}, dims, init);
    if (v.align) m.specs[m.decls[d].specs.first + 1].arg = m.add_int(v.align);
    body.push_back(ir::Stmt{ir::StmtKind::Decl, d});
  }
  for (const Func& f : mi.funcs) body.push_back(func_statement(m, f, ir::Function::kNoBody));
  for (const Func& f : mi.funcs) {
    if (!f.impl().body) throw Error(fmt::format("device function '{}' has no body", f.name()), f.impl().where);
    t.begin_function();
    t.options.dynamic_smem = false;
    FuncArgs args(f);
    f.impl().body(args);
    std::vector<ir::Stmt> stmts = t.finish_body();
    const uint32_t block = m.add_block();
    m.blocks[block].stmts = std::move(stmts);
    body.push_back(func_statement(m, f, block));
  }
  bool dynamic = false;
  std::vector<dsl::KernelPiece> pieces;
  for (const Kernel& k : mi.kernels) {
    pieces.push_back(dsl::trace_kernel_into(t, *k.impl(), b, mi.target));
    dynamic = dynamic || pieces.back().dynamic_smem;
    body.push_back(pieces.back().function);
  }
  dsl::assemble_module(t, std::move(body), mi.target, mi.version, dynamic, mi.where);
  return done(t, pieces);
}

}  // namespace

std::string Module::ptx(const Bindings& b) const {
  return trace_module(*impl_, b, [](Trace& t, std::vector<dsl::KernelPiece>&) {
    return text::print(t.m, text::PrintMode::Canonical);
  });
}

std::shared_ptr<const Traced> Module::trace(std::string_view kernel, const Bindings& b) const {
  const auto& ks = impl_->kernels;
  const auto it = std::find_if(ks.begin(), ks.end(), [&](const Kernel& k) { return k.name() == kernel; });
  if (it == ks.end()) throw Error(fmt::format("the module has no kernel '{}'", kernel), impl_->where);
  const size_t i = static_cast<size_t>(it - ks.begin());
  return trace_module(*impl_, b, [&](Trace& t, std::vector<dsl::KernelPiece>& pieces) {
    return std::shared_ptr<const Traced>(dsl::traced_of(*ks[i].impl(), std::move(pieces[i]), b, t, impl_->target));
  });
}

}  // namespace ptx
