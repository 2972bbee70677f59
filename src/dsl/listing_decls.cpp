// Typed declarations of a listing: the helpers that build them, their checks, and
// the PTX they stand for (listing_text.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "listing_text.hpp"

namespace ptx::listing {

Ptr ptr(uint32_t align) { return Ptr{std::nullopt, align}; }
Ptr ptr(Space space, uint32_t align) { return Ptr{space, align}; }

Param param(DType type, std::string_view name, ParamOptions options) {
  return Param{Space::param, type, std::string(name), std::move(options)};
}
Param reg_param(DType type, std::string_view name) { return Param{Space::reg, type, std::string(name), {}}; }

namespace {
FunctionDirective dims3(DirectiveKind k, uint32_t x, std::optional<uint32_t> y, std::optional<uint32_t> z) {
  FunctionDirective d{k, {x}};
  if (y) d.values.push_back(*y);
  if (z) d.values.push_back(*z);
  return d;
}
}  // namespace

FunctionDirective maxntid(uint32_t x, std::optional<uint32_t> y, std::optional<uint32_t> z) {
  return dims3(DirectiveKind::maxntid, x, y, z);
}
FunctionDirective reqntid(uint32_t x, std::optional<uint32_t> y, std::optional<uint32_t> z) {
  return dims3(DirectiveKind::reqntid, x, y, z);
}
FunctionDirective reqnctapercluster(uint32_t x, std::optional<uint32_t> y, std::optional<uint32_t> z) {
  return dims3(DirectiveKind::reqnctapercluster, x, y, z);
}
FunctionDirective minnctapersm(uint32_t n) { return {DirectiveKind::minnctapersm, {n}}; }
FunctionDirective maxnreg(uint32_t n) { return {DirectiveKind::maxnreg, {n}}; }
FunctionDirective maxclusterrank(uint32_t n) { return {DirectiveKind::maxclusterrank, {n}}; }
FunctionDirective explicitcluster() { return {DirectiveKind::explicitcluster, {}}; }
FunctionDirective noreturn() { return {DirectiveKind::noreturn, {}}; }
FunctionDirective blocksareclusters() { return {DirectiveKind::blocksareclusters, {}}; }
FunctionDirective abi_preserve(uint32_t n) { return {DirectiveKind::abi_preserve, {n}}; }
FunctionDirective abi_preserve_control(uint32_t n) { return {DirectiveKind::abi_preserve_control, {n}}; }

namespace detail {

std::string_view space_name(Space s) {
  static constexpr std::string_view kNames[] = {".reg", ".param", ".global", ".const", ".shared", ".local"};
  return kNames[static_cast<size_t>(s)];
}

std::string_view linkage_name(Linkage l) {
  static constexpr std::string_view kNames[] = {"", ".visible", ".extern", ".weak", ".common"};
  return kNames[static_cast<size_t>(l)];
}

std::string_view directive_name(DirectiveKind k) {
  static constexpr std::string_view kNames[] = {
      ".maxntid",  ".reqntid",           ".minnctapersm", ".maxnreg",     ".maxclusterrank",      ".reqnctapercluster",
      ".explicitcluster", ".noreturn", ".blocksareclusters", ".abi_preserve", ".abi_preserve_control"};
  return kNames[static_cast<size_t>(k)];
}

namespace {
bool declarable(DType t) { return t != DType::none && t != DType::b1; }

std::string dims_text(const std::vector<uint64_t>& dims) {
  std::string out;
  for (const uint64_t d : dims) out += d ? fmt::format("[{}]", d) : "[]";
  return out;
}
}  // namespace

std::string param_problem(const Param& p, bool entry) {
  if (p.name.empty()) return "a parameter needs a name";
  if (!declarable(p.type)) return fmt::format("parameter '{}': {} is not a type to declare", p.name, name(p.type));
  if (p.space != Space::param && p.space != Space::reg)
    return fmt::format("parameter '{}': a parameter is .param or .reg, not {}", p.name, space_name(p.space));
  if (p.space == Space::reg && (p.options.align || !p.options.dims.empty() || p.options.ptr))
    return fmt::format("parameter '{}': a .reg parameter has no .align, array size or .ptr", p.name);
  if (p.options.ptr && !entry) return fmt::format("parameter '{}': .ptr is for kernel (.entry) parameters", p.name);
  if (p.options.ptr && p.options.ptr->space && *p.options.ptr->space != Space::global &&
      *p.options.ptr->space != Space::const_ && *p.options.ptr->space != Space::shared &&
      *p.options.ptr->space != Space::local)
    return fmt::format("parameter '{}': .ptr points to .global, .const, .shared or .local", p.name);
  return {};
}

std::string directive_problem(const FunctionDirective& d) {
  size_t lo = 1, hi = 1;
  switch (d.kind) {
    case DirectiveKind::maxntid:
    case DirectiveKind::reqntid:
    case DirectiveKind::reqnctapercluster: hi = 3; break;
    case DirectiveKind::explicitcluster:
    case DirectiveKind::noreturn:
    case DirectiveKind::blocksareclusters: lo = hi = 0; break;
    default: break;
  }
  if (d.values.size() < lo || d.values.size() > hi)
    return fmt::format("{} takes {} values, not {}", directive_name(d.kind), lo == hi ? fmt::format("{}", lo) : fmt::format("{} to {}", lo, hi),
                       d.values.size());
  return {};
}

std::string variable_problem(Space s, DType t, const VarOptions& o) {
  if (s == Space::reg || s == Space::param) return fmt::format("a module variable is not {}", space_name(s));
  if (!declarable(t)) return fmt::format("{} is not a type to declare", name(t));
  if (o.dims.empty() && o.init.size() > 1) return "a scalar variable has one initial value";
  return {};
}

std::string param_text(const Param& p) {
  std::string out(space_name(p.space));
  if (p.options.align) out += fmt::format(" .align {}", p.options.align);
  out += fmt::format(" {}", name(p.type));
  if (const auto& ptr = p.options.ptr) {
    out += " .ptr";
    if (ptr->space) out += fmt::format(" {}", space_name(*ptr->space));
    if (ptr->align) out += fmt::format(" .align {}", ptr->align);
  }
  out += fmt::format(" {}{}", p.name, dims_text(p.options.dims));
  return out;
}

std::string function_header(bool entry, std::string_view name, const std::vector<Param>* ret,
                            const std::vector<Param>& params, const FunctionOptions& o) {
  std::string out(linkage_name(o.linkage));
  if (!out.empty()) out += ' ';
  out += entry ? ".entry" : ".func";
  if (ret) {
    std::vector<std::string> rs;
    for (const Param& p : *ret) rs.push_back(param_text(p));
    out += fmt::format(" ({})", fmt::join(rs, ", "));
  }
  out += fmt::format(" {}(", name);
  for (size_t i = 0; i < params.size(); ++i) out += fmt::format("{}\n\t{}", i ? "," : "", param_text(params[i]));
  out += params.empty() ? ")" : "\n)";
  for (const FunctionDirective& d : o.directives)
    out += fmt::format("\n{}{}{}", directive_name(d.kind), d.values.empty() ? "" : " ", fmt::join(d.values, ", "));
  return out;
}

std::string variable_text(Space s, DType t, std::string_view var, const VarOptions& o) {
  std::string out(linkage_name(o.linkage));
  if (!out.empty()) out += ' ';
  out += space_name(s);
  if (o.align) out += fmt::format(" .align {}", o.align);
  out += fmt::format(" {} {}{}", name(t), var, dims_text(o.dims));
  if (!o.init.empty()) {
    if (o.dims.empty()) out += fmt::format(" = {}", o.init[0]);
    else out += fmt::format(" = {{{}}}", fmt::join(o.init, ", "));
  }
  return out + ";";
}

}  // namespace detail
}  // namespace ptx::listing
