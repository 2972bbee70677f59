// A tensor map parameter's descriptor from Python's description of its array: dimensions and box
// outermost first (as NumPy), the element type, the swizzle in bytes. Errors name the parameter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ptxpp/runtime/tensor_map.hpp>

namespace ptxpy {

ptx::TensorMapSpec tensor_map_spec(const std::vector<uint64_t>& dims, const std::vector<uint32_t>& box, ptx::DType dtype,
                                   uint32_t swizzle, const std::string& param);

}  // namespace ptxpy
