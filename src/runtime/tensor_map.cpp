// Tensor maps: the driver's rules (cuda.h, cuTensorMapEncodeTiled / Im2col), checked
// before any call so that a mistake is named instead of CUDA_ERROR_INVALID_VALUE.
#include "ptxpp/runtime/tensor_map.hpp"

#include <fmt/format.h>

#include "device_impl.hpp"
#include "ptxpp/emu/tensor_map.hpp"

namespace ptx {

namespace {

uint32_t element_bytes(TmaType t) { return emu::tensor_map_element_bytes(static_cast<uint8_t>(t)); }

bool is_float(TmaType t) {
  switch (t) {
    case TmaType::f16: case TmaType::f32: case TmaType::f64: case TmaType::bf16: case TmaType::f32_ftz:
    case TmaType::tf32: case TmaType::tf32_ftz: return true;
    default: return false;
  }
}

uint32_t swizzle_span(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::none: return 0;
    case TmaSwizzle::b32: return 32;
    case TmaSwizzle::b64: return 64;
    default: return 128;
  }
}

std::string rule(const std::string& what) { return "tensor map: " + what; }

}  // namespace

std::vector<uint64_t> byte_strides(const TensorMapSpec& s) {
  if (!s.strides.empty() || s.dims.empty()) return s.strides;
  std::vector<uint64_t> out;
  uint64_t stride = element_bytes(s.type);
  for (size_t i = 1; i < s.dims.size(); ++i) out.push_back(stride *= s.dims[i - 1]);
  return out;
}

std::string check_tensor_map(const TensorMapSpec& s, uint64_t base) {
  const uint32_t es = element_bytes(s.type);
  if (es == 0) return rule(fmt::format("unknown element type {}", static_cast<int>(s.type)));
  const size_t rank = s.dims.size();
  const bool im2col = s.mode == TensorMapSpec::Mode::im2col;
  if (im2col ? (rank < 3 || rank > 5) : (rank < 1 || rank > 5))
    return rule(fmt::format("{} dimensions; {} takes {}", rank, im2col ? "im2col" : "a tiled map", im2col ? "3 to 5" : "1 to 5"));
  if (s.interleave != TmaInterleave::none && rank < 3)
    return rule(fmt::format("{} dimensions; an interleaved layout takes at least 3", rank));
  if (static_cast<uint8_t>(s.interleave) > 2) return rule("unknown interleave");
  if (static_cast<uint8_t>(s.swizzle) > 6) return rule("unknown swizzle");
  if (static_cast<uint8_t>(s.l2_promotion) > 3) return rule("unknown L2 promotion");
  if (static_cast<uint8_t>(s.oob_fill) > 1) return rule("unknown out-of-bounds fill");
  const uint64_t align = s.interleave == TmaInterleave::b32 ? 32 : 16;
  if (base % align) return rule(fmt::format("the base address 0x{:x} is not {}-byte aligned", base, align));
  for (size_t i = 0; i < rank; ++i)
    if (s.dims[i] == 0 || s.dims[i] > (uint64_t{1} << 32))
      return rule(fmt::format("dims[{}] = {}: each dimension must be 1 to 2^32", i, s.dims[i]));
  if (!s.strides.empty() && s.strides.size() != rank - 1)
    return rule(fmt::format("{} strides for {} dimensions: give the byte strides of dimensions 1..{} (or none: packed)",
                            s.strides.size(), rank, rank - 1));
  for (size_t i = 0; i < s.strides.size(); ++i) {
    const uint64_t st = s.strides[i];
    const uint64_t stride_align = s.interleave == TmaInterleave::b32 ? 32 : 16;
    if (st % stride_align || st >= (uint64_t{1} << 40))
      return rule(fmt::format("strides[{}] = {} bytes: a stride must be a multiple of {} and below 2^40", i, st, stride_align));
    const uint64_t inner = i == 0 ? s.dims[0] * es : s.strides[i - 1] * s.dims[i];
    if (st < inner)
      return rule(fmt::format("strides[{}] = {} bytes is less than the {} bytes of the dimension inside it", i, st, inner));
  }
  if (s.strides.empty() && rank > 1 && (s.dims[0] * es) % align)
    return rule(fmt::format("packed rows of {} bytes: a row stride must be a multiple of {}; give strides", s.dims[0] * es, align));
  const std::vector<uint32_t> ones(rank, 1);
  const std::vector<uint32_t>& estr = s.element_strides.empty() ? ones : s.element_strides;
  if (estr.size() != rank) return rule(fmt::format("{} element strides for {} dimensions", estr.size(), rank));
  for (size_t i = 0; i < rank; ++i)
    if (estr[i] < 1 || estr[i] > 8) return rule(fmt::format("element_strides[{}] = {}: must be 1 to 8", i, estr[i]));
  uint64_t inner_bytes = 0;
  if (!im2col) {
    if (s.box.size() != rank) return rule(fmt::format("{} box sizes for {} dimensions", s.box.size(), rank));
    for (size_t i = 0; i < rank; ++i)
      if (s.box[i] < 1 || s.box[i] > 256) return rule(fmt::format("box[{}] = {}: must be 1 to 256", i, s.box[i]));
    inner_bytes = uint64_t{s.box[0]} * es;
    if (s.interleave == TmaInterleave::none && inner_bytes % 16)
      return rule(fmt::format("box[0] = {} elements of {} bytes = {} bytes: must be a multiple of 16", s.box[0], es, inner_bytes));
  } else {
    const size_t spatial = rank - 2;
    if (s.lower.size() != spatial || s.upper.size() != spatial)
      return rule(fmt::format("im2col of rank {} takes {} lower and upper corner offsets", rank, spatial));
    const int limit = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
    for (size_t i = 0; i < spatial; ++i)
      for (int v : {s.lower[i], s.upper[i]})
        if (v < -limit || v > limit - 1)
          return rule(fmt::format("corner offset {} out of range [{}, {}] for rank {}", v, -limit, limit - 1, rank));
    if (s.channels_per_pixel < 1 || s.channels_per_pixel > 256)
      return rule(fmt::format("channels_per_pixel = {}: must be 1 to 256", s.channels_per_pixel));
    if (s.pixels_per_column < 1 || s.pixels_per_column > 1024)
      return rule(fmt::format("pixels_per_column = {}: must be 1 to 1024", s.pixels_per_column));
    inner_bytes = uint64_t{s.channels_per_pixel} * es;
  }
  if (s.interleave == TmaInterleave::b32 && s.swizzle != TmaSwizzle::b32)
    return rule("a 32-byte interleave takes the 32-byte swizzle");
  if (s.interleave == TmaInterleave::none && s.swizzle != TmaSwizzle::none && inner_bytes > swizzle_span(s.swizzle))
    return rule(fmt::format("the inner box dimension is {} bytes; the {}-byte swizzle takes at most {}", inner_bytes,
                            swizzle_span(s.swizzle), swizzle_span(s.swizzle)));
  if (s.oob_fill == TmaOobFill::nan_request_zero_fma && !is_float(s.type))
    return rule("the NaN out-of-bounds fill needs a floating-point element type");
  return {};
}

TensorMap make_tensor_map(const Device& dev, DevicePtr base, const TensorMapSpec& spec) {
  if (!dev) throw runtime::Error("make_tensor_map: an empty ptx::Device");
  if (base.device && base.device != dev.impl().get())
    throw runtime::Error("make_tensor_map: the base pointer belongs to another device");
  if (const std::string why = check_tensor_map(spec, base.address); !why.empty()) throw runtime::Error(why);
  return dev.impl()->encode_tensor_map(base.address, spec);
}

void replace_address(const Device& dev, TensorMap& map, DevicePtr base) {
  if (!dev) throw runtime::Error("replace_address: an empty ptx::Device");
  if (base.address % 16) throw runtime::Error(fmt::format("tensor map: the base address 0x{:x} is not 16-byte aligned", base.address));
  dev.impl()->replace_tensor_map_address(map, base.address);
}

TensorMap TensorMapCache::get(const Device& dev, DevicePtr base, const TensorMapSpec& spec) {
  const void* key = dev.impl().get();
  {
    std::lock_guard lock(mu_);
    for (const auto& [k, m] : entries_)
      if (k.first == key && k.second == spec) {
        if (const std::string why = check_tensor_map(spec, base.address); !why.empty()) throw runtime::Error(why);
        TensorMap copy = m;
        replace_address(dev, copy, base);
        return copy;
      }
  }
  TensorMap m = make_tensor_map(dev, base, spec);
  std::lock_guard lock(mu_);
  entries_.push_back({{key, spec}, m});
  ++encodes_;
  return m;
}

size_t TensorMapCache::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace ptx
