// Special registers (%tid.x, %laneid, %clock64, %envreg3, ...) as operands:
//   ptx::inst::mov.u32(r, ptx::special::tid.x());   Reg r = ptx::read(ptx::special::laneid);
// The objects are generated from the ISA table (ptxpp/dsl/inst.hpp); using one
// checks the kernel's target and PTX version against the register's requirements.
#pragma once

#include <cstdint>
#include "ptxpp/dsl/source_location.hpp"
#include <string_view>

#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/types.hpp"

namespace ptx::dsl::detail {
Operand special_operand(std::string_view name, std::string_view component, DType t, ptx::SourceLocation where);
}  // namespace ptx::dsl::detail

namespace ptx::special {

// A scalar special register: %laneid.
struct Scalar {
  std::string_view name;
  DType type;
  operator Operand() const { return dsl::detail::special_operand(name, {}, type, {}); }  // NOLINT
  Operand operator()(ptx::SourceLocation w = ptx::SourceLocation::current()) const {
    return dsl::detail::special_operand(name, {}, type, w);
  }
};
// A vector special register: %tid.x / .y / .z.
struct Vector {
  std::string_view name;
  DType type;
  Operand x(ptx::SourceLocation w = ptx::SourceLocation::current()) const { return dsl::detail::special_operand(name, ".x", type, w); }
  Operand y(ptx::SourceLocation w = ptx::SourceLocation::current()) const { return dsl::detail::special_operand(name, ".y", type, w); }
  Operand z(ptx::SourceLocation w = ptx::SourceLocation::current()) const { return dsl::detail::special_operand(name, ".z", type, w); }
};
// A numbered family: %envreg0..%envreg31.
struct Numbered {
  std::string_view name;
  DType type;
  uint32_t count;
  Operand operator()(uint32_t n, ptx::SourceLocation w = ptx::SourceLocation::current()) const;
};

}  // namespace ptx::special
