// The typed declarations of declarations.hpp as the output language spells them: the
// arguments of m.global/m.entry/m.func/m.func_decl (language.hpp).
#include <fmt/format.h>

#include "../dsl/listing_text.hpp"
#include "declarations.hpp"
#include "language.hpp"

namespace ptx::transpile {

namespace {

template <class T>
std::string int_list(const Language& lang, const std::vector<T>& values) {
  std::vector<std::string> items;
  for (const T v : values) {
    const bool negative = v < 0;
    items.push_back(lang.integer(negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v), negative));
  }
  return lang.list(items);
}

std::string enum_value(const Language& lang, std::string_view type, std::string_view ptx_word) {
  return lang.enum_value(type, lang.member(ptx_word));
}

std::string param_expr(const Language& lang, const listing::Param& p) {
  const std::string args = fmt::format("{}, {}", lang.dtype(p.type), lang.quote(p.name));
  if (p.space == listing::Space::reg) return lang.call(Ns::Listing, "reg_param", args);
  std::vector<std::pair<std::string, std::string>> opts;
  if (p.options.align) opts.emplace_back("align", std::to_string(p.options.align));
  if (!p.options.dims.empty()) opts.emplace_back("dims", int_list(lang, p.options.dims));
  if (const auto& ptr = p.options.ptr) {
    const std::string a = std::to_string(ptr->align);
    opts.emplace_back("ptr", lang.call(Ns::Listing, "ptr",
                                       ptr->space ? fmt::format("{}, {}", enum_value(lang, "Space", listing::detail::space_name(*ptr->space)), a) : a));
  }
  return lang.call(Ns::Listing, "param", opts.empty() ? args : args + ", " + lang.options(opts));
}

std::string params_expr(const Language& lang, const std::vector<listing::Param>& ps) {
  std::vector<std::string> items;
  for (const listing::Param& p : ps) items.push_back(param_expr(lang, p));
  return lang.list(items);
}

}  // namespace

std::string variable_args(const Language& lang, const TypedVariable& v) {
  std::vector<std::pair<std::string, std::string>> opts;
  if (v.options.linkage != listing::Linkage::none)
    opts.emplace_back("linkage", enum_value(lang, "Linkage", listing::detail::linkage_name(v.options.linkage)));
  if (v.options.align) opts.emplace_back("align", std::to_string(v.options.align));
  if (!v.options.dims.empty()) opts.emplace_back("dims", int_list(lang, v.options.dims));
  if (!v.options.init.empty()) opts.emplace_back("init", int_list(lang, v.options.init));
  std::string args = fmt::format("{}, {}", lang.dtype(v.type), lang.quote(v.name));
  if (!opts.empty()) args += ", " + lang.options(opts);
  return args;
}

std::string function_args(const Language& lang, const TypedFunction& t) {
  std::string args = lang.quote(t.name);
  if (!t.entry) args += ", " + params_expr(lang, t.ret);
  args += ", " + params_expr(lang, t.params);
  std::vector<std::pair<std::string, std::string>> opts;
  if (t.options.linkage != listing::Linkage::none)
    opts.emplace_back("linkage", enum_value(lang, "Linkage", listing::detail::linkage_name(t.options.linkage)));
  if (!t.options.directives.empty()) {
    std::vector<std::string> ds;
    for (const listing::FunctionDirective& d : t.options.directives) {
      std::vector<std::string> vs;
      for (const uint32_t v : d.values) vs.push_back(std::to_string(v));
      ds.push_back(lang.call(Ns::Listing, listing::detail::directive_name(d.kind).substr(1), fmt::format("{}", fmt::join(vs, ", "))));
    }
    opts.emplace_back("directives", lang.list(ds));
  }
  if (!opts.empty()) args += ", " + lang.options(opts);
  return args;
}

}  // namespace ptx::transpile
