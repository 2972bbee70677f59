// The emulator's tensor-map encoding: a magic word, the fields at fixed offsets.
#include "ptxpp/emu/tensor_map.hpp"

#include <cstring>

namespace ptx::emu {

namespace {
constexpr uint32_t kMagic = 0x414d5450;  // "PTMA"
// Offsets in the 128 bytes.
// header: magic, then kind, dtype, rank, interleave, swizzle, l2 promotion, oob fill (bytes 4..10)
constexpr size_t kHeader = 0, kBase = 12, kDims = 20, kStrides = 60, kBox = 92, kElementStrides = 102, kLower = 107,
                 kUpper = 113, kChannels = 119, kPixels = 121;
static_assert(kPixels + 2 <= kTensorMapBytes);

template <class T>
void put(TensorMapBytes& b, size_t at, const T& v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}
template <class T>
T get(const uint8_t* b, size_t at) {
  T v;
  std::memcpy(&v, b + at, sizeof v);
  return v;
}
}  // namespace

TensorMapBytes encode(const TensorMapDesc& d) {
  TensorMapBytes b{};
  put(b, kHeader, kMagic);
  const uint8_t h[] = {static_cast<uint8_t>(d.kind), d.dtype, d.rank, d.interleave, d.swizzle, d.l2_promotion, d.oob_nan};
  std::memcpy(b.data() + 4, h, sizeof h);
  put(b, kBase, d.base);
  put(b, kDims, d.dims);
  // strides[0] (the element size) is implied by dtype; dimension strides 1..4 take 8 bytes each
  for (size_t i = 1; i < 5; ++i) put(b, kStrides + (i - 1) * 8, d.strides[i]);
  put(b, kBox, d.box);
  put(b, kElementStrides, d.element_strides);
  put(b, kLower, d.lower);
  put(b, kUpper, d.upper);
  put(b, kChannels, d.channels_per_pixel);
  put(b, kPixels, d.pixels_per_column);
  return b;
}

std::optional<TensorMapDesc> decode(const uint8_t* b) {
  if (get<uint32_t>(b, kHeader) != kMagic) return std::nullopt;
  TensorMapDesc d;
  d.kind = static_cast<TensorMapKind>(b[4]);
  d.dtype = b[5];
  d.rank = b[6];
  d.interleave = b[7];
  d.swizzle = b[8];
  d.l2_promotion = b[9];
  d.oob_nan = b[10];
  if ((d.kind != TensorMapKind::Tiled && d.kind != TensorMapKind::Im2col) || d.rank < 1 || d.rank > 5 ||
      tensor_map_element_bytes(d.dtype) == 0)
    return std::nullopt;
  d.base = get<uint64_t>(b, kBase);
  d.dims = get<std::array<uint64_t, 5>>(b, kDims);
  d.strides[0] = tensor_map_element_bytes(d.dtype);
  for (size_t i = 1; i < 5; ++i) d.strides[i] = get<uint64_t>(b, kStrides + (i - 1) * 8);
  d.box = get<std::array<uint16_t, 5>>(b, kBox);
  d.element_strides = get<std::array<uint8_t, 5>>(b, kElementStrides);
  d.lower = get<std::array<int16_t, 3>>(b, kLower);
  d.upper = get<std::array<int16_t, 3>>(b, kUpper);
  d.channels_per_pixel = get<uint16_t>(b, kChannels);
  d.pixels_per_column = get<uint16_t>(b, kPixels);
  return d;
}

uint32_t tensor_map_element_bytes(uint8_t dtype) {
  switch (dtype) {
    case 0: return 1;                           // UINT8
    case 1: case 6: case 9: return 2;           // UINT16, FLOAT16, BFLOAT16
    case 2: case 3: case 7: case 10: case 11: case 12: return 4;  // UINT32, INT32, FLOAT32(_FTZ), TFLOAT32(_FTZ)
    case 4: case 5: case 8: return 8;           // UINT64, INT64, FLOAT64
    default: return 0;
  }
}

}  // namespace ptx::emu
