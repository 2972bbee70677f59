// The declarations of a ptx::Listing outside function bodies, typed: function headers
// (linkage, return and parameter lists, performance directives) and module variables.
//
//   namespace lst = ptx::listing;
//   m.global(DType::b32, "counter", {.align = 4, .dims = {4}});        // .global .align 4 .b32 counter[4];
//   m.func("addone", {lst::reg_param(DType::b32, "r")}, {lst::reg_param(DType::b32, "a")}, [] { ... });
//   m.entry("k", {lst::param(DType::u64, "p"), lst::param(DType::u32, "n")},
//           {.linkage = lst::Linkage::visible, .directives = {lst::maxntid(128, 1, 1)}}, [] { ... });
//
// Names are written as given. Python spells the same (ptxpp.listing): keywords of the
// language get a trailing `_` (C++ Space::const_, Linkage::extern_; Python Space.global_).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/types.hpp"

namespace ptx::listing {

// The state spaces a declaration outside a body names.
enum class Space : uint8_t { reg, param, global, const_, shared, local };
// How a symbol is linked: `.visible`, `.extern`, `.weak`, `.common`; none: not written.
enum class Linkage : uint8_t { none, visible, extern_, weak, common };

// `.ptr .global .align 16` on a kernel parameter: the space the pointer points to
// (nullopt: generic, `.ptr .align 16`) and its alignment.
struct Ptr {
  std::optional<Space> space = {};
  uint32_t align = 0;  // ptxas wants one: `.ptr .align 1` at least
};
Ptr ptr(uint32_t align);
Ptr ptr(Space space, uint32_t align);

struct ParamOptions {
  uint32_t align = 0;          // `.align N`; 0: not written
  std::vector<uint64_t> dims = {};  // `[16]`, ...; 0: `[]`
  std::optional<Ptr> ptr = {};  // kernel parameters only
};

// One parameter or return value: `.param .align 8 .b8 p[16]`, `.reg .b32 r`.
struct Param {
  Space space = Space::param;
  DType type = DType::none;
  std::string name = {};
  ParamOptions options = {};
};
Param param(DType type, std::string_view name, ParamOptions options = {});
Param reg_param(DType type, std::string_view name);

// The directives between a function's parameter list and its body, in order.
enum class DirectiveKind : uint8_t {
  maxntid, reqntid, minnctapersm, maxnreg, maxclusterrank, reqnctapercluster, explicitcluster, noreturn,
  blocksareclusters, abi_preserve, abi_preserve_control
};
struct FunctionDirective {
  DirectiveKind kind = DirectiveKind::maxntid;
  std::vector<uint32_t> values = {};  // as written: `.maxntid 128` and `.maxntid 128, 1, 1` differ
};
FunctionDirective maxntid(uint32_t x, std::optional<uint32_t> y = {}, std::optional<uint32_t> z = {});
FunctionDirective reqntid(uint32_t x, std::optional<uint32_t> y = {}, std::optional<uint32_t> z = {});
FunctionDirective reqnctapercluster(uint32_t x, std::optional<uint32_t> y = {}, std::optional<uint32_t> z = {});
FunctionDirective minnctapersm(uint32_t n);
FunctionDirective maxnreg(uint32_t n);
FunctionDirective maxclusterrank(uint32_t n);
FunctionDirective explicitcluster();
FunctionDirective noreturn();
FunctionDirective blocksareclusters();
FunctionDirective abi_preserve(uint32_t n);
FunctionDirective abi_preserve_control(uint32_t n);

struct FunctionOptions {
  Linkage linkage = Linkage::none;
  std::vector<FunctionDirective> directives = {};
};

// A module variable's attributes: `.visible .global .align 4 .b32 counter[4] = {1, 2, 3, 4};`.
struct VarOptions {
  Linkage linkage = Linkage::none;
  uint32_t align = 0;          // 0: not written
  std::vector<uint64_t> dims = {};  // 0: `[]` (sized by the initializer, or dynamic .extern .shared)
  std::vector<int64_t> init = {};  // `= v` without dims, `= {a, b, ...}` with them; empty: none
};

}  // namespace ptx::listing
