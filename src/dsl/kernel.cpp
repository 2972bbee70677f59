#include "ptxpp/dsl/kernel.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "kernel_impl.hpp"
#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/text/printer.hpp"
#include "trace.hpp"

namespace ptx {

using dsl::Trace;


TensorSpec tensor(DType dtype, std::vector<Dim> shape, std::vector<Dim> strides) {
  return TensorSpec{dtype, std::move(shape), std::move(strides)};
}

namespace {

int64_t bind(const Dim& d, const Bindings& b, ptx::SourceLocation where) {
  if (!d.symbolic()) return d.value;
  auto it = b.find(d.symbol);
  if (it == b.end()) throw Error(fmt::format("dimension '{}' is not bound; pass it to ptx()/trace()", d.symbol), where);
  return it->second;
}

Dim3 eval(const std::variant<Dim3, std::function<Dim3(const Bindings&)>>& v, const Bindings& b) {
  if (const Dim3* d = std::get_if<Dim3>(&v)) return *d;
  return std::get<1>(v)(b);
}


std::string quote(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

namespace {
std::string_view kind_of(const dsl::detail::Param& p) {
  return p.is_tensor ? "a tensor" : p.is_tensor_map ? "a tensor map" : "a scalar";
}
}  // namespace

Tensor::Tensor(const dsl::detail::Param& p) : p_(&p) {
  if (!p.is_tensor) throw Error(fmt::format("kernel parameter '{}' is {}; the body takes it as ptx::Tensor", p.name, kind_of(p)), {});
}
Scalar::Scalar(const dsl::detail::Param& p) : p_(&p) {
  if (p.is_tensor || p.is_tensor_map)
    throw Error(fmt::format("kernel parameter '{}' is {}; the body takes it as ptx::Scalar", p.name, kind_of(p)), {});
}
TensorMapParam::TensorMapParam(const dsl::detail::Param& p) : p_(&p) {
  if (!p.is_tensor_map)
    throw Error(fmt::format("kernel parameter '{}' is {}; the body takes it as ptx::TensorMapParam", p.name, kind_of(p)), {});
}
Reg TensorMapParam::generic_address(ptx::SourceLocation where) const {
  dsl::Trace& t = dsl::Trace::current(where);
  Reg a(DType::b64, {}, where);
  const Operand mov_ops[] = {a, Operand(OperandKind::Symbol, DType::none, t.m.add_name(p_->name))};
  t.emit(inst::mov.b64, mov_ops, where);
  Reg g(DType::u64, {}, where);
  const Operand cvta_ops[] = {g, a};
  t.emit(inst::cvta.param.u64, cvta_ops, where);
  return g;
}

int64_t TensorMapParam::bound(std::string_view symbol, ptx::SourceLocation where) const {
  auto it = p_->bindings->find(symbol);
  if (it == p_->bindings->end()) throw Error(fmt::format("dimension '{}' is not bound; pass it to ptx()/trace()", symbol), where);
  return it->second;
}

Operand tensor_coords(const Reg& map, std::initializer_list<Operand> coords, ptx::SourceLocation where) {
  dsl::Trace& t = dsl::Trace::current(where);
  t.check_reg(map, where);
  if (coords.size() < 1 || coords.size() > 5)
    throw Error(fmt::format("a tensor map takes 1 to 5 coordinates, not {}", coords.size()), where);
  std::vector<ir::ExprId> cs;
  for (const Operand& c : coords) cs.push_back(c.expr);
  const ir::ExprId list = t.m.add_list(ir::Delim::Bracket, {map.expr(), t.m.add_list(ir::Delim::Brace, cs)});
  return Operand(OperandKind::Addr, DType::none, list);
}

int64_t Tensor::dim(size_t i, ptx::SourceLocation where) const {
  if (i >= rank()) throw Error(fmt::format("dimension {} of a rank-{} tensor", i, rank()), where);
  return bind(p_->spec.shape[i], *p_->bindings, where);
}

int64_t Tensor::stride(size_t i, ptx::SourceLocation where) const {
  if (i >= rank()) throw Error(fmt::format("stride {} of a rank-{} tensor", i, rank()), where);
  if (!p_->spec.strides.empty()) return bind(p_->spec.strides[i], *p_->bindings, where);
  int64_t s = 1;
  for (size_t k = i + 1; k < rank(); ++k) s *= dim(k, where);
  return s;
}

int64_t Tensor::numel(ptx::SourceLocation where) const {
  int64_t n = 1;
  for (size_t i = 0; i < rank(); ++i) n *= dim(i, where);
  return n;
}

Reg Tensor::ptr(ptx::SourceLocation where) const {
  Trace& t = Trace::current(where);
  Reg r = t.new_reg(DType::u64, {}, where);
  const Operand ops[] = {Operand(r), addr(p_->name)};
  t.emit(inst::ld.param.u64, ops, where);
  return r;
}

Reg Tensor::global_ptr(ptx::SourceLocation where) const {
  Trace& t = Trace::current(where);
  Reg p = ptr(where);
  Reg g = t.new_reg(DType::u64, {}, where);
  const Operand ops[] = {Operand(g), Operand(p)};
  t.emit(inst::cvta.to.global.u64, ops, where);
  return g;
}

Reg Scalar::load(ptx::SourceLocation where) const {
  Trace& t = Trace::current(where);
  Reg r = t.new_reg(p_->dtype, {}, where);
  const Operand ops[] = {Operand(r), addr(p_->name)};
  t.emit(dsl::RuntimeChain(inst::ld.param).then(name(dsl::param_type(p_->dtype)), where), ops, where);
  return r;
}

Kernel::Kernel(std::string name, ptx::SourceLocation where) : impl_(std::make_shared<Impl>()) {
  if (!dsl::is_identifier(name))
    throw Error(fmt::format("kernel name '{}' is not a PTX identifier", name), where);
  impl_->name = std::move(name);
  impl_->where = where;
}

const std::string& Kernel::name() const { return impl_->name; }

Kernel& Kernel::in(TensorSpec t) {
  impl_->params.push_back({true, fmt::format("{}_param_{}", impl_->name, impl_->params.size()), std::move(t), DType::u64, nullptr, false});
  impl_->outputs.push_back(false);
  return *this;
}
Kernel& Kernel::out(TensorSpec t) {
  in(std::move(t));
  impl_->outputs.back() = true;
  return *this;
}
Kernel& Kernel::in(std::string name, TensorSpec t) {
  check_param_name(name);
  impl_->params.push_back({true, fmt::format("{}_{}", impl_->name, name), std::move(t), DType::u64, nullptr, false, name});
  impl_->outputs.push_back(false);
  return *this;
}
Kernel& Kernel::out(std::string name, TensorSpec t) {
  in(std::move(name), std::move(t));
  impl_->outputs.back() = true;
  return *this;
}
std::vector<ParamSpec> Kernel::params() const {
  std::vector<ParamSpec> out;
  for (size_t i = 0; i < impl_->params.size(); ++i) {
    const auto& p = impl_->params[i];
    ParamSpec s;
    s.kind = p.is_tensor_map ? ParamSpec::Kind::tensor_map
             : p.is_tensor   ? (impl_->outputs[i] ? ParamSpec::Kind::output : ParamSpec::Kind::input)
                             : ParamSpec::Kind::scalar;
    s.name = p.label;
    s.spec = p.spec;
    s.dtype = p.is_tensor ? p.spec.dtype : p.dtype;
    out.push_back(std::move(s));
  }
  return out;
}
void Kernel::check_param_name(const std::string& name) const {
  const bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
                  std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  if (!ok) throw Error(fmt::format("kernel {}: parameter name '{}' is not an identifier", impl_->name, name), impl_->where);
  for (const auto& p : impl_->params)
    if (p.label == name) throw Error(fmt::format("kernel {}: two parameters named '{}'", impl_->name, name), impl_->where);
}
Kernel& Kernel::scalar(std::string name, DType t) {
  if (t == DType::pred || t == DType::none || t == DType::b128 || t == DType::b1)
    throw Error(fmt::format("kernel scalar '{}' cannot be {}: pass a .u32 and compare it", name, ptx::name(t)), impl_->where);
  check_param_name(name);
  impl_->params.push_back({false, fmt::format("{}_{}", impl_->name, name), {}, t, nullptr, false, name});
  impl_->outputs.push_back(false);
  return *this;
}
Kernel& Kernel::tensor_map(std::string name) {
  check_param_name(name);
  impl_->params.push_back({false, fmt::format("{}_{}", impl_->name, name), {}, DType::b8, nullptr, true, name});
  impl_->outputs.push_back(false);
  return *this;
}
Kernel& Kernel::grid(Dim3 d) { return impl_->grid = d, *this; }
Kernel& Kernel::grid(std::function<Dim3(const Bindings&)> f) { return impl_->grid = std::move(f), *this; }
Kernel& Kernel::block(Dim3 d) { return impl_->block = d, *this; }
Kernel& Kernel::block(std::function<Dim3(const Bindings&)> f) { return impl_->block = std::move(f), *this; }
Kernel& Kernel::cluster(Dim3 d) {
  impl_->cluster = d;
  impl_->has_cluster = true;
  return *this;
}
Kernel& Kernel::arch(std::string_view target, ptx::SourceLocation where) {
  std::string text(target);
  if (text == "auto") {
    const char* env = std::getenv("PTXPP_ARCH");
    text = env && *env ? env : "sm_80";
  }
  auto t = Target::parse(text);
  if (!t || spec::min_ptx_for(*t).major == 0) throw Error(fmt::format("unknown target '{}'", text), where);
  impl_->target = *t;
  return *this;
}
Kernel& Kernel::ptx_version(int major, int minor) {
  impl_->version = dsl::requested_version(major, minor);
  return *this;
}
Kernel& Kernel::maxntid(Dim3 d) { return impl_->directives.push_back({".maxntid", {d.x, d.y, d.z}}), *this; }
Kernel& Kernel::reqntid(Dim3 d) { return impl_->directives.push_back({".reqntid", {d.x, d.y, d.z}}), *this; }
Kernel& Kernel::minnctapersm(uint32_t n) { return impl_->directives.push_back({".minnctapersm", {n}}), *this; }
Kernel& Kernel::maxnreg(uint32_t n) { return impl_->directives.push_back({".maxnreg", {n}}), *this; }
Kernel& Kernel::explicitcluster() { return impl_->directives.push_back({".explicitcluster", {}}), *this; }
Kernel& Kernel::reqnctapercluster(Dim3 d) {
  impl_->directives.push_back({".reqnctapercluster", {d.x, d.y, d.z}});
  if (!impl_->has_cluster) cluster(d);
  return *this;
}
Kernel& Kernel::maxclusterrank(uint32_t n) { return impl_->directives.push_back({".maxclusterrank", {n}}), *this; }
Kernel& Kernel::debug(bool on) { return impl_->debug = on, *this; }
Kernel& Kernel::validate(bool on) { return impl_->validate = on, *this; }
void Kernel::set_body(Body b) { impl_->body = std::move(b); }

void Kernel::check_arity(size_t params, size_t args) {
  if (params != args)
    throw Error(fmt::format("the body takes {} arguments, the kernel has {} parameters", args, params), {});
}

namespace dsl {

uint64_t smem_limit(Target t) {
  switch (t.number) {
    case 80: case 87: return 163 * 1024;
    case 90: case 100: case 101: case 103: case 110: return 227 * 1024;
    default: return 99 * 1024;  // sm_86, sm_89, sm_120, sm_121
  }
}

KernelPiece trace_kernel_into(Trace& t, Kernel::Impl& k, const Bindings& bindings, Target target) {
  if (!k.body) throw Error(fmt::format("kernel '{}' has no body", k.name), k.where);
  bool dynamic = false;
  for (;;) {
    t.begin_function();
    t.options.dynamic_smem = dynamic;
    ir::Module& m = t.m;
    std::vector<dsl::detail::Param> params = k.params;
    for (auto& p : params) p.bindings = &bindings;
    std::vector<uint32_t> param_decls;
    for (const auto& p : params) {
      if (p.is_tensor_map) {  // .param .align 64 .b8 name[128]
        const ir::ExprId dims[] = {m.add_list(ir::Delim::Bracket, {m.add_int(128)})};
        const uint32_t d = m.add_decl({".param", ".align", ".b8"}, p.name, {}, dims, {}, false);
        m.specs[m.decls[d].specs.first + 1].arg = m.add_int(64);
        param_decls.push_back(d);
        t.unique_name(p.name);
        continue;
      }
      const std::string_view ty = p.is_tensor ? ".u64" : name(param_type(p.dtype));
      param_decls.push_back(m.add_decl({".param", ty}, p.name, {}, {}, {}, false));
      t.unique_name(p.name);
    }
    k.body(params);
    if (!dynamic && t.smem_bytes > 48 * 1024) {  // above the static limit: shared memory goes dynamic
      dynamic = true;
      continue;
    }
    if (t.smem_bytes > smem_limit(target))
      throw Error(fmt::format("kernel '{}' uses {} bytes of shared memory; {} allows {}", k.name, t.smem_bytes,
                              target.name(), smem_limit(target)),
                  k.where);
    std::vector<ir::Stmt> stmts = t.finish_body();
    std::vector<ir::Stmt> header;
    for (const auto& d : k.directives) {
      if (const spec::DirectiveSpec* ds = spec::find_directive(d.name)) {
        if (!spec::allows(ds->req, target))
          throw Error(fmt::format("{} needs {}; the kernel's target is {}", d.name, spec::describe(ds->req), target.name()), k.where);
        t.need(ds->req.ptx);
      }
      std::vector<ir::ExprId> args;
      for (uint32_t a : d.args) args.push_back(m.add_int(a));
      header.push_back(m.add_directive(d.name, args));
    }
    const uint32_t body_block = m.add_block();
    m.blocks[body_block].stmts = std::move(stmts);
    KernelPiece piece;
    piece.function = m.add_function({".visible", ".entry"}, k.name, param_decls, body_block);
    for (const ir::Stmt& h : header) m.functions[piece.function.index].header.push_back(h.index);
    piece.dynamic_smem = dynamic;
    piece.smem_bytes = t.smem_bytes;
    for (size_t i = 0; i < params.size(); ++i) {
      ParamInfo pi{params[i].name, params[i].is_tensor, params[i].is_tensor ? params[i].spec.dtype : params[i].dtype, {}, k.outputs[i],
                   params[i].is_tensor_map};
      for (const Dim& d : params[i].spec.shape) pi.shape.push_back(bind(d, bindings, k.where));
      piece.params.push_back(std::move(pi));
    }
    return piece;
  }
}

PtxVersion requested_version(int major, int minor) {
  auto clamp = [](int n) { return static_cast<uint16_t>(std::clamp(n, 0, 0xFFFF)); };
  return {clamp(major), clamp(minor)};
}

void assemble_module(Trace& t, std::vector<ir::Stmt> body, Target target,
                     std::optional<PtxVersion> version, bool dynamic_smem, ptx::SourceLocation where) {
  ir::Module& m = t.m;
  t.need(spec::min_ptx_for(target));
  if (version) {
    if (*version < t.needed)
      throw Error(fmt::format("the module asks for PTX {}, but its target and instructions need {}", version->str(),
                              t.needed.str()),
                  where);
    t.needed = *version;
  }
  std::vector<ir::Stmt> root;
  const PtxVersion v = t.needed;
  root.push_back(m.add_directive(".version", {m.add_float_spelled(v.major + v.minor / 10.0, v.str())}));
  root.push_back(m.add_directive(".target", {m.add_name(target.name())}));
  root.push_back(m.add_directive(".address_size", {m.add_int(64)}));
  for (size_t i = 0; i < t.files.size(); ++i) {
    root.push_back(m.add_directive(".file", {m.add_int(i + 1), m.add_string(quote(t.files[i]))}));
    for (ir::ListItem& it : m.slice(m.directives[root.back().index].items)) it.comma = false;  // .file 1 "a.cpp"
  }
  if (dynamic_smem) {
    root.push_back(ir::Stmt{ir::StmtKind::Decl,
                            m.add_decl({".extern", ".shared", ".align", ".b8"}, "dyn_smem", {},
                                       std::vector<ir::ExprId>{m.add_list(ir::Delim::Bracket, std::span<const ir::ExprId>{})})});
    m.specs[m.decls.back().specs.first + 2].arg = m.add_int(1024);
  }
  root.insert(root.end(), body.begin(), body.end());
  m.root().stmts = std::move(root);
}

std::shared_ptr<Traced> traced_of(const Kernel::Impl& k, KernelPiece piece, const Bindings& bindings, const Trace& t,
                                  Target target) {
  auto out = std::make_shared<Traced>();
  out->name = k.name;
  out->ptx = text::print(t.m, text::PrintMode::Canonical);
  out->target = target.name();
  out->ptx_version = t.needed;
  out->grid = eval(k.grid, bindings);
  out->block = eval(k.block, bindings);
  out->cluster = k.cluster;
  out->instructions = t.m.instructions.size();
  (piece.dynamic_smem ? out->dynamic_smem_bytes : out->static_smem_bytes) = piece.smem_bytes;
  out->params = std::move(piece.params);
  return out;
}

}  // namespace dsl

namespace {

std::shared_ptr<const Traced> run_trace(Kernel::Impl& k, const Bindings& bindings) {
  dsl::TraceOptions o;
  o.target = k.target;
  o.debug = k.debug;
  o.validate = k.validate;
  Trace t(o);
  Trace::Scope scope(t);
  dsl::KernelPiece piece = dsl::trace_kernel_into(t, k, bindings, k.target);
  dsl::assemble_module(t, {piece.function}, k.target, k.version, piece.dynamic_smem, k.where);
  return dsl::traced_of(k, std::move(piece), bindings, t, k.target);
}

}  // namespace

std::shared_ptr<const Traced> Kernel::trace(const Bindings& b) const {
  std::string key = impl_->target.name();
  for (const auto& [n, v] : b) key += fmt::format(";{}={}", n, v);
  {
    std::lock_guard lock(impl_->mu);
    if (auto it = impl_->cache.find(key); it != impl_->cache.end()) return it->second;
  }
  // Traced outside the lock: two threads may trace the same key; the first result is kept.
  auto traced = run_trace(*impl_, b);
  std::lock_guard lock(impl_->mu);
  return impl_->cache.emplace(key, std::move(traced)).first->second;
}

}  // namespace ptx
