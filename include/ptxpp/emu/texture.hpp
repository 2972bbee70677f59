// Texture and surface objects for the CPU emulator: what cudaCreateTextureObject and
// cudaCreateSurfaceObject describe on a GPU. The texels live in emulator memory (an allocation of
// ptx::emu::Memory); Memory::create_texture / create_surface return the 64-bit handle a kernel
// takes as a .u64 parameter and hands to tex, tld4, txq, suld, sust, sured and suq (the unified
// mode of PTX texturing: no .texref/.samplerref module variables).
//
//   ptx::emu::TextureDesc t;
//   t.resource = {.shape = ptx::emu::ResourceShape::Pitch2D, .address = buf, .width = 64, .height = 32,
//                 .pitch = 256, .format = {ptx::emu::ChannelKind::F32, 1}};
//   t.filter = ptx::emu::FilterMode::Linear;
//   uint64_t tex = emu.memory().create_texture(t);   // pass as Arg::u64(tex)
#pragma once

#include <array>
#include <cstdint>

namespace ptx::emu {

// The type of each channel of a texel (cudaChannelFormatDesc: kind and bits).
enum class ChannelKind : uint8_t { U8, S8, U16, S16, U32, S32, F16, F32 };

struct ChannelFormat {
  ChannelKind kind = ChannelKind::F32;
  uint8_t channels = 1;  // 1, 2 or 4 (x, y, z, w / r, g, b, a)
};

// Bytes of one channel and of one texel.
uint32_t channel_bytes(ChannelKind k);
inline uint32_t texel_bytes(ChannelFormat f) { return channel_bytes(f.kind) * f.channels; }

// Where the texels are and how many. Texel (x, y, s) is at address + (s * height + y) * row pitch +
// x * texel bytes, s the z coordinate (Array3D) or the layer (Layered1D/2D).
enum class ResourceShape : uint8_t {
  Linear,     // cudaResourceTypeLinear: `width` texels in a row (tex.1d; suld/sust .1d)
  Pitch2D,    // cudaResourceTypePitch2D: rows `pitch` bytes apart (.2d)
  Array1D,    // a CUDA array of one dimension (.1d)
  Array2D,    // (.2d)
  Array3D,    // width x height x depth (.3d)
  Layered1D,  // `layers` rows of `width` (.a1d)
  Layered2D,  // `layers` images of width x height (.a2d)
};

struct Resource {
  ResourceShape shape = ResourceShape::Linear;
  uint64_t address = 0;  // a device address in emulator memory
  uint32_t width = 0;    // in texels
  uint32_t height = 1;   // 2D, 3D, Layered2D
  uint32_t depth = 1;    // Array3D
  uint32_t layers = 1;   // Layered1D/2D
  uint64_t pitch = 0;    // bytes between rows; 0: width * texel bytes (dense). Pitch2D needs it.
  ChannelFormat format;
};

enum class ReadMode : uint8_t { ElementType, NormalizedFloat };  // cudaReadMode*
enum class FilterMode : uint8_t { Point, Linear };                // cudaFilterMode*
enum class AddressMode : uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };  // cudaAddressMode*, same values

struct TextureDesc {
  Resource resource;
  ReadMode read_mode = ReadMode::ElementType;  // NormalizedFloat: 8/16-bit integer channels read as [0, 1] / [-1, 1]
  FilterMode filter = FilterMode::Point;
  std::array<AddressMode, 3> address{AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};  // x, y, z
  bool normalized_coords = false;  // coordinates in [0, 1) instead of [0, size)
  std::array<float, 4> border_color{0, 0, 0, 0};  // AddressMode::Border: the value outside the texture
};

struct SurfaceDesc {
  Resource resource;
};

// What a handle names (Memory::texture_object): a texture, or a surface (`surface`, whose
// `texture.resource` is the surface's resource).
struct TextureObject {
  bool surface = false;
  TextureDesc texture;
};

}  // namespace ptx::emu
