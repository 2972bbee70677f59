// Tensor maps (TMA descriptors) as the CPU emulator reads them. On a GPU a tensor
// map is the driver's opaque 128-byte CUtensorMap; on the CPU device the runtime
// writes this description into the same 128 bytes instead (encode), and the
// emulator's cp.async.bulk.tensor reads it back (decode). The enumerations use the
// driver's values (CUtensorMapDataType, CUtensorMapSwizzle, ...).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace ptx::emu {

enum class TensorMapKind : uint8_t { Tiled = 1, Im2col = 2 };

struct TensorMapDesc {
  TensorMapKind kind = TensorMapKind::Tiled;
  uint8_t dtype = 0;       // CUtensorMapDataType
  uint8_t rank = 0;        // 1..5
  uint8_t interleave = 0;  // CUtensorMapInterleave
  uint8_t swizzle = 0;     // CUtensorMapSwizzle
  uint8_t l2_promotion = 0;
  uint8_t oob_nan = 0;     // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
  uint64_t base = 0;       // global address
  std::array<uint64_t, 5> dims{};     // elements, innermost first
  std::array<uint64_t, 5> strides{};  // bytes; strides[0] is the element size, strides[i] of dimension i
  std::array<uint16_t, 5> box{};      // tiled: elements per dimension
  std::array<uint8_t, 5> element_strides{};
  // im2col
  std::array<int16_t, 3> lower{}, upper{};  // pixel box corners {D, H, W} (rank - 2 of them)
  uint16_t channels_per_pixel = 0, pixels_per_column = 0;

  friend bool operator==(const TensorMapDesc&, const TensorMapDesc&) = default;
};

inline constexpr size_t kTensorMapBytes = 128;
using TensorMapBytes = std::array<uint8_t, kTensorMapBytes>;

TensorMapBytes encode(const TensorMapDesc& d);
// The description in `bytes`, or nullopt when they are not an encoded tensor map.
std::optional<TensorMapDesc> decode(const uint8_t* bytes);
// Bytes per element of a CUtensorMapDataType (0 for the packed sub-byte types and unknown values).
uint32_t tensor_map_element_bytes(uint8_t dtype);

}  // namespace ptx::emu
