// Texture and surface objects and the instructions that use them (PTX ISA 9.7.10, 9.7.11), in
// the unified mode of CUDA's texture and surface objects: the texture operand is a 64-bit handle.
//
// Sampling follows the CUDA programming guide's texture fetching appendix: point sampling reads
// T[floor(x)]; linear filtering reads T[i] and T[i + 1] at i = floor(x - 0.5) and weighs them
// (1 - a) and a, a = frac(x - 0.5) held in 9-bit fixed point with 8 fractional bits (here rounded
// to the nearest 1/256), per dimension. Normalized coordinates are scaled by the size first.
// Out-of-range texel indices follow the address mode (wrap, mirror, clamp, border) of their
// dimension; linear-memory textures read zero outside (tex1Dfetch).
#include "texture.hpp"
#include "value_types.hpp"
#include "vocab_util.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <shared_mutex>

#include <fmt/format.h>

#include "bounds.hpp"
#include "float_formats.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/emu/texture.hpp"

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;

// ---- objects ------------------------------------------------------------------------------

// Handles: this base (no memory window is here: shared 0x1000.., local 0x2000.., functions
// 0x3000.., global 0x7000..) plus a serial number from 1.
constexpr uint64_t kObjectBase = 0x0000400000000000ull;

class TextureObjects {
 public:
  struct Entry {
    TextureObject object;
    bool destroyed = false;
  };
  mutable std::shared_mutex mu;
  std::map<uint64_t, Entry> entries;  // by handle
  uint64_t next = 1;
};

uint32_t channel_bytes(ChannelKind k) {
  switch (k) {
    case ChannelKind::U8: case ChannelKind::S8: return 1;
    case ChannelKind::U16: case ChannelKind::S16: case ChannelKind::F16: return 2;
    case ChannelKind::U32: case ChannelKind::S32: case ChannelKind::F32: return 4;
  }
  return 0;
}

namespace {

const char* shape_name(ResourceShape s) {
  switch (s) {
    case ResourceShape::Linear: return "linear";
    case ResourceShape::Pitch2D: return "pitch-2D";
    case ResourceShape::Array1D: return "1D array";
    case ResourceShape::Array2D: return "2D array";
    case ResourceShape::Array3D: return "3D array";
    case ResourceShape::Layered1D: return "layered 1D array";
    case ResourceShape::Layered2D: return "layered 2D array";
  }
  return "?";
}

bool is_float(ChannelKind k) { return k == ChannelKind::F16 || k == ChannelKind::F32; }
bool is_signed(ChannelKind k) { return k == ChannelKind::S8 || k == ChannelKind::S16 || k == ChannelKind::S32; }

uint64_t row_pitch(const Resource& r) { return r.pitch ? r.pitch : uint64_t{r.width} * texel_bytes(r.format); }
// Rows of the resource: height times the slices (depth or layers).
uint64_t slices(const Resource& r) { return r.shape == ResourceShape::Array3D ? r.depth : r.layers; }

// Throws Error when the resource is not one the emulator (or CUDA) takes.
void check_resource(const Resource& r, const Memory& mem, const char* what) {
  auto bad = [&](const std::string& why) { throw Error(fmt::format("{} over a {} resource: {}", what, shape_name(r.shape), why)); };
  const ChannelFormat f = r.format;
  if (static_cast<uint8_t>(f.kind) > static_cast<uint8_t>(ChannelKind::F32)) bad("the channel kind is not one of u8, s8, u16, s16, u32, s32, f16, f32");
  if (f.channels != 1 && f.channels != 2 && f.channels != 4) bad(fmt::format("{} channels (1, 2 or 4)", f.channels));
  if (static_cast<uint8_t>(r.shape) > static_cast<uint8_t>(ResourceShape::Layered2D)) bad("an unknown resource shape");
  if (r.width == 0) bad("width 0");
  const bool two_d = r.shape == ResourceShape::Pitch2D || r.shape == ResourceShape::Array2D || r.shape == ResourceShape::Array3D ||
                     r.shape == ResourceShape::Layered2D;
  if (!two_d && r.height != 1) bad(fmt::format("height {} (a one-dimensional resource has height 1)", r.height));
  if (r.height == 0) bad("height 0");
  if (r.shape != ResourceShape::Array3D && r.depth != 1) bad(fmt::format("depth {} (only a 3D array has a depth)", r.depth));
  if (r.depth == 0) bad("depth 0");
  const bool layered = r.shape == ResourceShape::Layered1D || r.shape == ResourceShape::Layered2D;
  if (!layered && r.layers != 1) bad(fmt::format("{} layers (only a layered array has layers)", r.layers));
  if (r.layers == 0) bad("0 layers");
  const uint64_t tb = texel_bytes(f);
  const uint64_t row = uint64_t{r.width} * tb;
  if (r.shape == ResourceShape::Pitch2D && r.pitch == 0) bad("no pitch (a pitch-2D resource needs the bytes between rows)");
  if (r.pitch && r.pitch < row) bad(fmt::format("pitch {} bytes is less than a row ({} texels of {} bytes)", r.pitch, r.width, tb));
  const uint64_t align = std::min<uint64_t>(tb, 16);  // texels are read whole, naturally aligned
  if (r.pitch % align) bad(fmt::format("pitch {} bytes is not a multiple of {} (the texel's alignment)", r.pitch, align));
  if (r.address % align) bad(fmt::format("address {:#x} is not {}-byte aligned (the texel's alignment)", r.address, align));
  const uint64_t rows = uint64_t{r.height} * slices(r);
  if (rows >= (uint64_t{1} << 32) || row_pitch(r) >= (uint64_t{1} << 32)) bad("2^32 rows or bytes per row, or more");
  const uint64_t extent = row_pitch(r) * (rows - 1) + row;  // < rows * row pitch < 2^64
  const Memory::Allocation* a = mem.owner(r.address);
  if (!a) bad(fmt::format("address {:#x} is not in any allocation", r.address));
  if (a->freed) bad(fmt::format("its memory ({}) was freed", mem.describe(r.address)));
  if (r.address >= a->base + a->bytes.size()) bad(fmt::format("address {:#x} is not in any allocation", r.address));
  const uint64_t off = r.address - a->base;
  if (extent > a->bytes.size() - off)
    bad(fmt::format("it needs {} bytes from {}, but the buffer has {} bytes ({} past its offset)", extent, mem.describe(r.address),
                    a->bytes.size(), a->bytes.size() - off));
}

void check_texture(const TextureDesc& d, const Memory& mem) {
  check_resource(d.resource, mem, "texture");
  auto bad = [&](const std::string& why) { throw Error(fmt::format("texture over a {} resource: {}", shape_name(d.resource.shape), why)); };
  const ChannelKind k = d.resource.format.kind;
  if (static_cast<uint8_t>(d.read_mode) > 1) bad("an unknown read mode");
  if (static_cast<uint8_t>(d.filter) > 1) bad("an unknown filter mode");
  for (AddressMode m : d.address)
    if (static_cast<uint8_t>(m) > 3) bad("an unknown address mode");
  if (d.read_mode == ReadMode::NormalizedFloat && channel_bytes(k) > 2)
    bad("the normalized-float read mode takes 8- and 16-bit integer channels only");
  if (d.read_mode == ReadMode::NormalizedFloat && is_float(k)) bad("the normalized-float read mode takes integer channels only");
  const bool float_result = is_float(k) || d.read_mode == ReadMode::NormalizedFloat;
  if (d.filter == FilterMode::Linear && !float_result)
    bad("linear filtering needs floating-point results (f16/f32 channels, or 8/16-bit integers read as normalized floats)");
  if (d.resource.shape == ResourceShape::Linear && (d.filter == FilterMode::Linear || d.normalized_coords))
    bad("a linear-memory texture takes neither linear filtering nor normalized coordinates (it is read like tex1Dfetch)");
  for (int i = 0; i < 3; ++i)
    if (!d.normalized_coords && (d.address[i] == AddressMode::Wrap || d.address[i] == AddressMode::Mirror))
      bad(fmt::format("address mode {} of dimension {} needs normalized coordinates (CUDA's rule)",
                      d.address[i] == AddressMode::Wrap ? "wrap" : "mirror", i));
}

}  // namespace

uint64_t Memory::create_texture(const TextureDesc& d) {
  check_texture(d, *this);
  if (!objects_) objects_ = std::make_shared<TextureObjects>();
  std::unique_lock lock(objects_->mu);
  const uint64_t h = kObjectBase + objects_->next++;
  objects_->entries[h] = {TextureObject{false, d}, false};
  return h;
}

uint64_t Memory::create_surface(const SurfaceDesc& d) {
  check_resource(d.resource, *this, "surface");
  if (!objects_) objects_ = std::make_shared<TextureObjects>();
  std::unique_lock lock(objects_->mu);
  const uint64_t h = kObjectBase + objects_->next++;
  TextureDesc t;
  t.resource = d.resource;
  objects_->entries[h] = {TextureObject{true, t}, false};
  return h;
}

namespace {
void destroy(const std::shared_ptr<TextureObjects>& objects, uint64_t h, bool surface) {
  const char* what = surface ? "surface" : "texture";
  if (!objects) throw Error(fmt::format("destroy_{} of {:#x}: not a {} object", what, h, what));
  std::unique_lock lock(objects->mu);
  auto it = objects->entries.find(h);
  if (it == objects->entries.end() || it->second.object.surface != surface)
    throw Error(fmt::format("destroy_{} of {:#x}: not a {} object", what, h, what));
  if (it->second.destroyed) throw Error(fmt::format("destroy_{} of {:#x}: destroyed already", what, h));
  it->second.destroyed = true;
}
}  // namespace

void Memory::destroy_texture(uint64_t handle) { destroy(objects_, handle, false); }
void Memory::destroy_surface(uint64_t handle) { destroy(objects_, handle, true); }

const TextureObject* Memory::texture_object(uint64_t handle, std::string* why) const {
  if (objects_) {
    std::shared_lock lock(objects_->mu);
    auto it = objects_->entries.find(handle);
    if (it != objects_->entries.end()) {
      if (!it->second.destroyed) return &it->second.object;
      if (why) *why = fmt::format("{:#x} is a destroyed {} object", handle, it->second.object.surface ? "surface" : "texture");
      return nullptr;
    }
  }
  if (why) {
    const Allocation* a = owner(handle);
    if (a && handle < a->base + a->bytes.size())
      *why = fmt::format("{:#x} is the address {}, not a texture or surface object", handle, describe(handle));
    else
      *why = fmt::format("{:#x} is not a texture or surface object (Memory::create_texture / create_surface give them)", handle);
  }
  return nullptr;
}

// ---- decoding -----------------------------------------------------------------------------

bool is_texture_opcode(Opcode op) {
  return op == Opcode::tex || op == Opcode::tld4 || op == Opcode::txq || op == Opcode::suld || op == Opcode::sust || op == Opcode::sured || op == Opcode::suq ||
         op == Opcode::istypep;
}

namespace {

// The texture instructions' data and coordinate types: .b, .u, .s and .f of 8 to 64 bits (.f16 a
// 16-bit float of kind 'f' here).
std::optional<Ty> type_of(Mod m) {
  if (m == Mod::f16) return Ty{'f', 16};
  const auto t = data_type(m);
  if (!t || (t->k != 'b' && t->k != 'u' && t->k != 's' && t->k != 'f') || t->bits > 64) return std::nullopt;
  return t;
}

unsigned coords_needed(TexGeom g) {
  switch (g) {
    case TexGeom::D1: return 1;
    case TexGeom::D2: return 2;
    case TexGeom::D3: return 3;
    case TexGeom::A1D: return 2;
    case TexGeom::A2D: return 3;
  }
  return 1;
}

const char* geom_name(TexGeom g) {
  switch (g) {
    case TexGeom::D1: return "1d";
    case TexGeom::D2: return "2d";
    case TexGeom::D3: return "3d";
    case TexGeom::A1D: return "a1d";
    case TexGeom::A2D: return "a2d";
  }
  return "?";
}

using DecodeResult = std::optional<TextureDecodeError>;

TextureDecodeError malformed(std::string what) { return TextureDecodeError{false, std::move(what)}; }
// a real form that the emulator does not run
TextureDecodeError unsupported(std::string what) { return TextureDecodeError{true, std::move(what)}; }

TexOp tex_op_of(Opcode op) {
  return op == Opcode::tex ? TexOp::Tex : op == Opcode::tld4 ? TexOp::Tld4 : op == Opcode::txq ? TexOp::Txq : op == Opcode::suld ? TexOp::Suld
       : op == Opcode::sust ? TexOp::Sust : op == Opcode::sured ? TexOp::Sured : op == Opcode::suq ? TexOp::Suq : TexOp::Istypep;
}

// What the modifiers leave for the operands' checks: the types in order (.dtype.ctype, or the
// data type) and whether a geometry was given.
struct TexModifiers {
  std::vector<Ty> types;
  bool geom_seen = false;
};

// One modifier of t's instruction (t.op set) into t or `seen`.
DecodeResult apply_modifier(Opcode op, Mod m, TextureInst& t, TexModifiers& seen) {
  static constexpr std::pair<Mod, TexQuery> kQueries[] = {
      {Mod::width, TexQuery::Width}, {Mod::height, TexQuery::Height}, {Mod::depth, TexQuery::Depth},
      {Mod::channel_data_type, TexQuery::ChannelDataType}, {Mod::channel_order, TexQuery::ChannelOrder},
      {Mod::normalized_coords, TexQuery::NormalizedCoords}, {Mod::force_unnormalized_coords, TexQuery::ForceUnnormalizedCoords},
      {Mod::filter_mode, TexQuery::FilterMode}, {Mod::addr_mode_0, TexQuery::AddrMode0}, {Mod::addr_mode_1, TexQuery::AddrMode1},
      {Mod::addr_mode_2, TexQuery::AddrMode2}, {Mod::array_size, TexQuery::ArraySize}, {Mod::num_mipmap_levels, TexQuery::NumMipmapLevels},
      {Mod::num_samples, TexQuery::NumSamples}, {Mod::memory_layout, TexQuery::MemoryLayout}};
  if (auto ty = type_of(m)) {
    seen.types.push_back(*ty);
  } else if (m == Mod::_1d || m == Mod::_2d || m == Mod::_3d || m == Mod::a1d || m == Mod::a2d) {
    t.geom = m == Mod::_1d ? TexGeom::D1 : m == Mod::_2d ? TexGeom::D2 : m == Mod::_3d ? TexGeom::D3 : m == Mod::a1d ? TexGeom::A1D : TexGeom::A2D;
    seen.geom_seen = true;
  } else if (m == Mod::cube || m == Mod::acube || m == Mod::_2dms || m == Mod::a2dms) {
    return unsupported(fmt::format("{} with {} (cubemap and multi-sample textures)", op, m));
  } else if (m == Mod::v2 || m == Mod::v4) {
    t.vec = static_cast<uint8_t>(spec::vector_width(m));
  } else if (m == Mod::f16x2) {
    t.f16x2 = true;
    seen.types.push_back(Ty{'f', 16});
  } else if (m == Mod::base) {
    // the base level: the only one a texture without mipmaps has
  } else if (m == Mod::level) {
    (t.op == TexOp::Txq ? t.query_level : t.level) = true;
  } else if (m == Mod::grad) {
    return unsupported("tex.grad (derivatives select mipmap levels and anisotropic footprints)");
  } else if ((m == Mod::r || m == Mod::g || m == Mod::b || m == Mod::a) && t.op == TexOp::Tld4) {
    t.comp = m == Mod::r ? 0 : m == Mod::g ? 1 : m == Mod::b ? 2 : 3;
  } else if (m == Mod::b && t.op != TexOp::Tex) {
    t.formatted = false;
  } else if (m == Mod::p) {
    t.formatted = true;
  } else if (m == Mod::trap || m == Mod::clamp || m == Mod::zero) {
    t.oob = m == Mod::trap ? SurfOob::Trap : m == Mod::clamp ? SurfOob::Clamp : SurfOob::Zero;
  } else if (t.op == TexOp::Sured && (m == Mod::add || m == Mod::min || m == Mod::max || m == Mod::and_ || m == Mod::or_)) {
    t.red = m == Mod::add ? SurfRed::Add : m == Mod::min ? SurfRed::Min : m == Mod::max ? SurfRed::Max : m == Mod::and_ ? SurfRed::And : SurfRed::Or;
  } else if (t.op == TexOp::Istypep && (m == Mod::texref || m == Mod::samplerref || m == Mod::surfref)) {
    t.comp = m == Mod::texref ? 0 : m == Mod::samplerref ? 1 : 2;
  } else if (m == Mod::ca || m == Mod::cg || m == Mod::cs || m == Mod::cv || m == Mod::wb || m == Mod::wt) {
    // cache operations: no effect here
  } else if (const auto* q = find_in(kQueries, m); q && (t.op == TexOp::Txq || t.op == TexOp::Suq)) {
    t.query = q->second;
  } else {
    return unsupported(fmt::format("the modifier {} of {}", m, op));
  }
  return std::nullopt;
}

// The [a, ...] operand: a the handle (a .u64 register), then the coordinates (one vector or
// value) when `coords`.
DecodeResult decode_bracket(const TexOperand& o, bool coords, TextureInst& t) {
  if (!o.bracket || o.items.empty()) return malformed(fmt::format("{}: '{}' is not a [texture, coordinates] operand", t.name, o.text));
  const TexOperand& a = o.items[0];
  if (a.vector || a.values.size() != 1) return malformed(fmt::format("{}: the texture or surface operand '{}' is not a register", t.name, a.text));
  t.handle = a.values[0];
  if (t.handle.kind == Opnd::Imm && t.handle.symbol)
    return unsupported(fmt::format("'{}': texture, sampler and surface references (.texref/.samplerref/.surfref module "
                                   "variables); use texture and surface objects (a .u64 register holding the handle)", a.text));
  if (t.handle.kind != Opnd::Reg && t.handle.kind != Opnd::Imm)
    return malformed(fmt::format("{}: the texture or surface operand '{}' is not a register", t.name, a.text));
  if (!coords) return o.items.size() == 1 ? std::nullopt : std::optional(malformed(fmt::format("{}: '{}' takes no coordinates", t.name, o.text)));
  if (o.items.size() == 3) return unsupported(fmt::format("{} with an explicit sampler (the independent texturing mode)", t.name));
  if (o.items.size() != 2) return malformed(fmt::format("{}: '{}' is not [texture, coordinates]", t.name, o.text));
  t.coords = o.items[1].values;
  if (t.coords.size() < coords_needed(t.geom))
    return malformed(fmt::format("{}: {} coordinate{} for .{} (it needs {})", t.name, t.coords.size(), t.coords.size() == 1 ? "" : "s",
                                 geom_name(t.geom), coords_needed(t.geom)));
  for (const Opnd& c : t.coords)
    if (c.kind == Opnd::Sink) return malformed(fmt::format("{}: the sink _ as a coordinate", t.name));
  return std::nullopt;
}

DecodeResult operand_count(const TextureInst& t, size_t n, size_t lo, size_t hi) {
  if (n < lo || n > hi) return malformed(fmt::format("{} has {} operands", t.name, n));
  return std::nullopt;
}

// istypep.type p, a
DecodeResult decode_istypep(std::span<const TexOperand> operands, TextureInst& t) {
  if (auto e = operand_count(t, operands.size(), 2, 2)) return e;
  if (operands[0].vector || operands[0].bracket || operands[1].vector || operands[1].bracket)
    return malformed(fmt::format("{}: the operands are a predicate and a .u64 register", t.name));
  t.dst = operands[0].values;
  t.handle = operands[1].values[0];
  return std::nullopt;
}

// tex and tld4: d, [a, c]{, lod}{, offsets}{, depth compare}
DecodeResult decode_fetch(const TexModifiers& seen, std::span<const TexOperand> operands, TextureInst& t) {
  const size_t n = operands.size();
  if (!seen.geom_seen) return malformed(fmt::format("{} without a geometry", t.name));
  if (t.op == TexOp::Tld4 && t.geom != TexGeom::D2 && t.geom != TexGeom::A2D) return malformed(fmt::format("{}: tld4 takes .2d and .a2d", t.name));
  if (seen.types.size() != 2) return malformed(fmt::format("{} without .dtype.ctype", t.name));
  t.dtype = seen.types[0], t.ctype = seen.types[1];
  if (t.ctype != Ty{'s', 32} && t.ctype != Ty{'f', 32}) return malformed(fmt::format("{}: coordinates of type .{}{}", t.name, t.ctype.k, t.ctype.bits));
  if (t.op == TexOp::Tld4 && t.ctype != Ty{'f', 32}) return malformed(fmt::format("{}: tld4 takes .f32 coordinates", t.name));
  if (auto e = operand_count(t, n, 2, t.level ? 5 : 4)) return e;
  const TexOperand& d = operands[0];
  if (!d.vector || d.values.size() != (t.f16x2 ? 2u : 4u))
    return malformed(fmt::format("{}: the destination '{}' is not a vector of {} registers", t.name, d.text, t.f16x2 ? 2 : 4));
  t.dst = d.values;
  t.pred = d.pred;
  if (auto e = decode_bracket(operands[1], true, t)) return e;
  size_t next = 2;
  if (t.level) {
    if (n < 3 || operands[2].vector) return malformed(fmt::format("{}: no level of detail", t.name));
    t.lod = operands[2].values[0];
    next = 3;
  }
  for (; next < n; ++next) {
    if (!operands[next].vector) return unsupported(fmt::format("{} with a depth compare value (depth textures)", t.name));
    if (!t.offsets.empty()) return malformed(fmt::format("{}: two offset vectors", t.name));
    t.offsets = operands[next].values;
  }
  if (!t.offsets.empty() && t.offsets.size() < coords_needed(t.geom) - (t.geom == TexGeom::A1D || t.geom == TexGeom::A2D ? 1 : 0))
    return malformed(fmt::format("{}: too few offsets", t.name));
  return std::nullopt;
}

// txq and suq: d, [a]{, lod}
DecodeResult decode_query(std::span<const TexOperand> operands, TextureInst& t) {
  if (auto e = operand_count(t, operands.size(), t.query_level ? 3 : 2, t.query_level ? 3 : 2)) return e;
  if (operands[0].vector || operands[0].values.size() != 1) return malformed(fmt::format("{}: the destination is not a register", t.name));
  t.dst = operands[0].values;
  if (auto e = decode_bracket(operands[1], false, t)) return e;
  if (t.query_level) {
    if (t.query != TexQuery::Width && t.query != TexQuery::Height && t.query != TexQuery::Depth)
      return malformed(fmt::format("{}: txq.level queries .width, .height or .depth", t.name));
    t.lod = operands[2].values.empty() ? Opnd{} : operands[2].values[0];
  }
  if (t.op == TexOp::Suq && (t.query == TexQuery::NormalizedCoords || t.query == TexQuery::ForceUnnormalizedCoords || t.query == TexQuery::FilterMode ||
                             t.query == TexQuery::AddrMode0 || t.query == TexQuery::AddrMode1 || t.query == TexQuery::AddrMode2 ||
                             t.query == TexQuery::NumMipmapLevels || t.query == TexQuery::NumSamples))
    return malformed(fmt::format("{}: not a surface query", t.name));
  if (t.op == TexOp::Txq && t.query == TexQuery::MemoryLayout) return malformed(fmt::format("{}: not a texture query", t.name));
  return std::nullopt;
}

// suld d, [a, c]; sust and sured [a, c], d
DecodeResult decode_surface(const TexModifiers& seen, std::span<const TexOperand> operands, TextureInst& t) {
  if (!seen.geom_seen) return malformed(fmt::format("{} without a geometry", t.name));
  if (seen.types.size() != 1) return malformed(fmt::format("{} without its data type", t.name));
  t.dtype = seen.types[0];
  if (auto e = operand_count(t, operands.size(), 2, 2)) return e;
  if (t.op == TexOp::Suld && t.formatted) return unsupported("suld.p (formatted surface loads)");
  if (t.op == TexOp::Sured && t.vec != 1) return malformed(fmt::format("{}: sured takes no vector", t.name));
  const TexOperand& data = operands[t.op == TexOp::Suld ? 0 : 1];
  const TexOperand& where = operands[t.op == TexOp::Suld ? 1 : 0];
  if (auto e = decode_bracket(where, true, t)) return e;
  const size_t want = t.vec;
  if (data.values.size() != want && !(t.op != TexOp::Suld && !data.vector && data.values.size() == 1 && want == 1))
    return malformed(fmt::format("{}: '{}' is not {} value{}", t.name, data.text, want, want == 1 ? "" : "s"));
  if (data.has_pred) return malformed(fmt::format("{}: a predicate destination", t.name));
  (t.op == TexOp::Suld ? t.dst : t.src) = data.values;
  if (t.formatted && t.dtype.bits != 32 && !(t.op == TexOp::Sured && t.dtype.bits == 64))
    return malformed(fmt::format("{}: formatted accesses take .b32 data", t.name));
  if (t.op == TexOp::Sured && t.formatted && t.dtype.bits == 64) return unsupported("sured.p.b64 (no 64-bit surface formats here)");
  return std::nullopt;
}

}  // namespace

std::optional<TextureDecodeError> texture_decode(Opcode op, std::span<const Mod> mods,
                                                 std::span<const TexOperand> operands, TextureInst& t) {
  t.op = tex_op_of(op);
  t.name = std::string(spec::text_of(op));
  TexModifiers seen;
  for (Mod m : mods) {
    t.name += spec::text_of(m);
    if (auto e = apply_modifier(op, m, t, seen)) return e;
  }
  switch (t.op) {
    case TexOp::Istypep: return decode_istypep(operands, t);
    case TexOp::Tex:
    case TexOp::Tld4: return decode_fetch(seen, operands, t);
    case TexOp::Txq:
    case TexOp::Suq: return decode_query(operands, t);
    case TexOp::Suld:
    case TexOp::Sust:
    case TexOp::Sured: return decode_surface(seen, operands, t);
  }
  return malformed("an unknown texture instruction");
}

// ---- execution ----------------------------------------------------------------------------

namespace {

// A texel's four channels, as the instruction returns them: floats, or 32-bit integers.
struct Texel {
  float f[4] = {0, 0, 0, 1};
  uint32_t i[4] = {0, 0, 0, 1};
};

float f32_of(uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }

// A coordinate (a double, maybe NaN or huge) as a whole texel index, floor'ed; NaN reads as 0.
int64_t to_index(double x) {
  if (std::isnan(x)) return 0;
  return static_cast<int64_t>(std::floor(std::clamp(x, -1e12, 1e12)));
}

// The texel index i of a dimension of `size` texels under `mode`; nullopt: outside (border).
std::optional<int64_t> address(int64_t i, int64_t size, AddressMode mode) {
  switch (mode) {
    case AddressMode::Wrap: return ((i % size) + size) % size;
    case AddressMode::Mirror: {
      const int64_t m = ((i % (2 * size)) + 2 * size) % (2 * size);
      return m < size ? m : 2 * size - 1 - m;
    }
    case AddressMode::Clamp: return std::clamp<int64_t>(i, 0, size - 1);
    case AddressMode::Border: break;
  }
  if (i < 0 || i >= size) return std::nullopt;
  return i;
}

struct Exec {
  const TextureInst& t;
  TextureWarp& w;
  const Memory& mem;

  [[noreturn]] void fail(int lane, const std::string& what) {
    w.fail(lane, fmt::format("{}: {}", t.name, what));
    std::abort();  // (TextureWarp::fail does not return)
  }

  const TextureObject& object(int lane, bool surface) {
    const uint64_t h = w.value(t.handle, lane);
    std::string why;
    const TextureObject* o = mem.texture_object(h, &why);
    if (!o) fail(lane, fmt::format("the {} operand: {}", surface ? "surface" : "texture", why));
    if (o->surface != surface)
      fail(lane, fmt::format("the {} operand: {:#x} is a {} object", surface ? "surface" : "texture", h, o->surface ? "surface" : "texture"));
    return *o;
  }

  // The instruction's geometry must be the resource's.
  void check_geometry(int lane, const Resource& r) {
    const TexGeom want = r.shape == ResourceShape::Linear || r.shape == ResourceShape::Array1D ? TexGeom::D1
                       : r.shape == ResourceShape::Pitch2D || r.shape == ResourceShape::Array2D ? TexGeom::D2
                       : r.shape == ResourceShape::Array3D ? TexGeom::D3
                       : r.shape == ResourceShape::Layered1D ? TexGeom::A1D : TexGeom::A2D;
    if (want != t.geom) fail(lane, fmt::format(".{} on a {} resource (it takes .{})", geom_name(t.geom), shape_name(r.shape), geom_name(want)));
  }

  // The bytes of texel (x, y, s), s the z coordinate or the layer, all in range; checked memory.
  const uint8_t* bytes_at(int lane, const Resource& r, int64_t x, int64_t y, int64_t s, unsigned size, uint64_t xbytes, bool store) {
    const uint64_t addr = r.address + (static_cast<uint64_t>(s) * r.height + static_cast<uint64_t>(y)) * row_pitch(r) + xbytes;
    const Memory::Allocation* a = mem.owner(addr);
    if (!a || a->freed || !within(addr, size, a->base, a->bytes.size()))
      fail(lane, fmt::format("{} ({}, {}, {}) at {}: {}", t.op == TexOp::Tex || t.op == TexOp::Tld4 ? "texel" : "element", x, y, s,
                             mem.describe(addr), !a ? "outside every allocation" : a->freed ? "the resource's memory was freed" : "past the end of its buffer"));
    return w.global(addr, size, store, lane);
  }

  Texel read_texel(int lane, const TextureDesc& d, int64_t x, int64_t y, int64_t s) {
    const Resource& r = d.resource;
    const ChannelFormat f = r.format;
    const unsigned cb = channel_bytes(f.kind);
    const uint8_t* p = bytes_at(lane, r, x, y, s, cb * f.channels, static_cast<uint64_t>(x) * cb * f.channels, false);
    Texel out;  // integer channels: both the element (i) and the normalized float (f); the read mode picks
    for (unsigned c = 0; c < f.channels; ++c) {
      uint32_t raw = 0;
      std::memcpy(&raw, p + c * cb, cb);
      switch (f.kind) {
        case ChannelKind::U8: out.i[c] = raw & 0xFF, out.f[c] = static_cast<float>(raw & 0xFF) / 255.0f; break;
        case ChannelKind::S8: {
          const int32_t v = static_cast<int8_t>(raw & 0xFF);
          out.i[c] = static_cast<uint32_t>(v), out.f[c] = std::max(static_cast<float>(v) / 127.0f, -1.0f);
          break;
        }
        case ChannelKind::U16: out.i[c] = raw & 0xFFFF, out.f[c] = static_cast<float>(raw & 0xFFFF) / 65535.0f; break;
        case ChannelKind::S16: {
          const int32_t v = static_cast<int16_t>(raw & 0xFFFF);
          out.i[c] = static_cast<uint32_t>(v), out.f[c] = std::max(static_cast<float>(v) / 32767.0f, -1.0f);
          break;
        }
        case ChannelKind::U32: case ChannelKind::S32: out.i[c] = raw; break;
        case ChannelKind::F16: out.f[c] = static_cast<float>(decode(Format::F16, raw & 0xFFFF)); break;
        case ChannelKind::F32: out.f[c] = std::bit_cast<float>(raw); break;
      }
    }
    return out;
  }

  Texel border(const TextureDesc& d) {
    Texel b;
    for (int c = 0; c < 4; ++c) {
      b.f[c] = d.border_color[static_cast<size_t>(c)];
      // integer results: the border color converted, toward zero and saturated
      const double v = std::isnan(b.f[c]) ? 0.0 : b.f[c];
      b.i[c] = is_signed(d.resource.format.kind) ? static_cast<uint32_t>(static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0)))
                                                 : static_cast<uint32_t>(std::clamp(v, 0.0, 4294967295.0));
    }
    return b;
  }

  // The texel at whole indices (before addressing) of the texture's dimensions, layer `layer`.
  Texel fetch(int lane, const TextureDesc& d, const int64_t* idx, unsigned dims, int64_t layer) {
    const Resource& r = d.resource;
    const int64_t size[3] = {r.width, r.height, r.depth};
    int64_t at[3] = {0, 0, 0};
    for (unsigned k = 0; k < dims; ++k) {
      // linear memory: zero outside (tex1Dfetch); others by their address mode
      const AddressMode m = r.shape == ResourceShape::Linear ? AddressMode::Border : d.address[k];
      auto a = address(idx[k], size[k], m);
      if (!a) {
        if (r.shape == ResourceShape::Linear) return Texel{{0, 0, 0, 0}, {0, 0, 0, 0}};
        return border(d);
      }
      at[k] = *a;
    }
    return read_texel(lane, d, at[0], at[1], dims == 3 ? at[2] : layer);
  }

  bool float_result(const TextureDesc& d) const { return is_float(d.resource.format.kind) || d.read_mode == ReadMode::NormalizedFloat; }

  void check_dtype(int lane, const TextureDesc& d) {
    const bool fr = float_result(d);
    if (fr && t.dtype.k != 'f')
      fail(lane, fmt::format("integer results (.{}{}) from a texture of floating-point results ({}); use .f32", t.dtype.k, t.dtype.bits,
                             d.read_mode == ReadMode::NormalizedFloat ? "the normalized-float read mode" : "float channels"));
    if (!fr && t.dtype.k == 'f')
      fail(lane, "floating-point results from a texture of integer channels read as elements; use .s32/.u32 or the normalized-float read mode");
  }

  int64_t layer_of(int lane, const Resource& r) {
    const uint32_t idx = static_cast<uint32_t>(w.value(t.coords[0], lane));
    return std::min<int64_t>(idx, static_cast<int64_t>(r.layers) - 1);  // the array index is clamped to the last layer
  }

  // tex: point sampling, or linear filtering with 8-bit fractional weights.
  Texel sample(int lane, const TextureDesc& d) {
    const Resource& r = d.resource;
    const bool array = t.geom == TexGeom::A1D || t.geom == TexGeom::A2D;
    const unsigned dims = t.geom == TexGeom::D1 || t.geom == TexGeom::A1D ? 1 : t.geom == TexGeom::D3 ? 3 : 2;
    const int64_t layer = array ? layer_of(lane, r) : 0;
    const int64_t size[3] = {r.width, r.height, r.depth};
    int64_t off[3] = {0, 0, 0};
    for (unsigned k = 0; k < dims && k < t.offsets.size(); ++k) off[k] = static_cast<int32_t>(w.value(t.offsets[k], lane));
    if (t.ctype.k == 's') {  // integer coordinates: texel indices
      int64_t idx[3];
      for (unsigned k = 0; k < dims; ++k) idx[k] = static_cast<int32_t>(w.value(t.coords[k + (array ? 1 : 0)], lane)) + off[k];
      return fetch(lane, d, idx, dims, layer);
    }
    double x[3];
    for (unsigned k = 0; k < dims; ++k) {
      x[k] = f32_of(w.value(t.coords[k + (array ? 1 : 0)], lane));
      if (d.normalized_coords) x[k] *= static_cast<double>(size[k]);
      x[k] += static_cast<double>(off[k]);
    }
    if (d.filter == FilterMode::Point) {
      int64_t idx[3];
      for (unsigned k = 0; k < dims; ++k) idx[k] = to_index(x[k]);
      return fetch(lane, d, idx, dims, layer);
    }
    int64_t base[3];
    double a[3];
    for (unsigned k = 0; k < dims; ++k) {
      const double xb = x[k] - 0.5;
      base[k] = to_index(xb);
      const double frac = std::isnan(xb) ? 0.0 : std::clamp(xb, -1e12, 1e12) - static_cast<double>(base[k]);
      a[k] = std::floor(frac * 256.0 + 0.5) / 256.0;  // 9-bit fixed point, 8 fractional bits
    }
    double acc[4] = {0, 0, 0, 0};
    for (unsigned corner = 0; corner < (1u << dims); ++corner) {
      int64_t idx[3];
      double weight = 1;
      for (unsigned k = 0; k < dims; ++k) {
        const bool hi = corner >> k & 1;
        idx[k] = base[k] + (hi ? 1 : 0);
        weight *= hi ? a[k] : 1 - a[k];
      }
      const Texel v = fetch(lane, d, idx, dims, layer);
      for (int c = 0; c < 4; ++c) acc[c] += weight * static_cast<double>(v.f[c]);
    }
    Texel out;
    for (int c = 0; c < 4; ++c) out.f[c] = static_cast<float>(acc[c]);
    return out;
  }

  void tex(int lane) {
    const TextureObject& o = object(lane, false);
    const TextureDesc& d = o.texture;
    check_geometry(lane, d.resource);
    check_dtype(lane, d);
    // tex.level: a texture without mipmaps has level 0 only, where every level of detail clamps
    Texel v;
    if (t.op == TexOp::Tld4) {
      const Resource& r = d.resource;
      const bool array = t.geom == TexGeom::A2D;
      const int64_t layer = array ? layer_of(lane, r) : 0;
      double x[2];
      for (unsigned k = 0; k < 2; ++k) {
        x[k] = f32_of(w.value(t.coords[k + (array ? 1 : 0)], lane));
        if (d.normalized_coords) x[k] *= static_cast<double>(k == 0 ? r.width : r.height);
        if (k < t.offsets.size()) x[k] += static_cast<int32_t>(w.value(t.offsets[k], lane));
      }
      const int64_t i = to_index(x[0] - 0.5), j = to_index(x[1] - 0.5);
      // counter-clockwise from the lower left: (i, j+1), (i+1, j+1), (i+1, j), (i, j)
      const int64_t corners[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
      for (int c = 0; c < 4; ++c) {
        const Texel s = fetch(lane, d, corners[c], 2, layer);
        v.f[c] = s.f[t.comp], v.i[c] = s.i[t.comp];
      }
    } else {
      v = sample(lane, d);
    }
    const bool fr = float_result(d);
    if (t.f16x2) {
      for (int k = 0; k < 2; ++k) {
        const uint64_t lo = encode(Format::F16, v.f[2 * k]), hi = encode(Format::F16, v.f[2 * k + 1]);
        w.write(t.dst[static_cast<size_t>(k)], lane, lo | hi << 16, Ty{'b', 32});
      }
    } else {
      for (int c = 0; c < 4; ++c) {
        const uint64_t bits = !fr ? v.i[c] : t.dtype.bits == 16 ? encode(Format::F16, v.f[c]) : std::bit_cast<uint32_t>(v.f[c]);
        w.write(t.dst[static_cast<size_t>(c)], lane, bits, Ty{'b', static_cast<uint8_t>(t.dtype.bits == 16 ? 16 : 32)});
      }
    }
    if (t.pred != kNoSlot) w.write_pred(t.pred, lane, true);  // every texel is resident here
  }

  // The OpenCL enumerations a source language's txq/suq channel queries return (cl.h values).
  static uint32_t channel_data_type(const TextureDesc& d) {
    const bool norm = d.read_mode == ReadMode::NormalizedFloat;
    switch (d.resource.format.kind) {
      case ChannelKind::S8: return norm ? 0x10D0 : 0x10D7;   // CL_SNORM_INT8 / CL_SIGNED_INT8
      case ChannelKind::S16: return norm ? 0x10D1 : 0x10D8;  // CL_SNORM_INT16 / CL_SIGNED_INT16
      case ChannelKind::U8: return norm ? 0x10D2 : 0x10DA;   // CL_UNORM_INT8 / CL_UNSIGNED_INT8
      case ChannelKind::U16: return norm ? 0x10D3 : 0x10DB;  // CL_UNORM_INT16 / CL_UNSIGNED_INT16
      case ChannelKind::S32: return 0x10D9;                  // CL_SIGNED_INT32
      case ChannelKind::U32: return 0x10DC;                  // CL_UNSIGNED_INT32
      case ChannelKind::F16: return 0x10DD;                  // CL_HALF_FLOAT
      case ChannelKind::F32: return 0x10DE;                  // CL_FLOAT
    }
    return 0;
  }
  static uint32_t channel_order(const Resource& r) {
    return r.format.channels == 1 ? 0x10B0 : r.format.channels == 2 ? 0x10B2 : 0x10B5;  // CL_R, CL_RG, CL_RGBA
  }

  void query(int lane) {
    const bool surface = t.op == TexOp::Suq;
    const TextureObject& o = object(lane, surface);
    const TextureDesc& d = o.texture;
    const Resource& r = d.resource;
    if (t.query_level) {
      const uint64_t lod = w.value(t.lod, lane);
      if (static_cast<uint32_t>(lod) != 0) fail(lane, fmt::format("level {} of a texture without mipmaps (it has level 0 only)", static_cast<int32_t>(lod)));
    }
    const bool layered = r.shape == ResourceShape::Layered1D || r.shape == ResourceShape::Layered2D;
    // txq's sampler enumerations: addr_mode { wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border }
    auto addr_mode = [&](int k) -> uint32_t {
      switch (d.address[static_cast<size_t>(k)]) {
        case AddressMode::Wrap: return 0;
        case AddressMode::Mirror: return 1;
        case AddressMode::Clamp: return 3;
        case AddressMode::Border: return 4;
      }
      return 0;
    };
    uint32_t v = 0;
    switch (t.query) {
      case TexQuery::Width: v = r.width; break;
      case TexQuery::Height: v = r.height; break;
      case TexQuery::Depth: v = r.depth; break;
      case TexQuery::ChannelDataType: v = channel_data_type(d); break;
      case TexQuery::ChannelOrder: v = channel_order(r); break;
      case TexQuery::NormalizedCoords: v = d.normalized_coords; break;
      case TexQuery::ForceUnnormalizedCoords: v = 0; break;
      case TexQuery::FilterMode: v = d.filter == FilterMode::Linear; break;  // { nearest, linear }
      case TexQuery::AddrMode0: v = addr_mode(0); break;
      case TexQuery::AddrMode1: v = addr_mode(1); break;
      case TexQuery::AddrMode2: v = addr_mode(2); break;
      case TexQuery::ArraySize: v = layered ? r.layers : 0; break;
      case TexQuery::NumMipmapLevels: v = 1; break;
      case TexQuery::NumSamples: v = 0; break;
      case TexQuery::MemoryLayout: v = r.shape == ResourceShape::Linear || r.shape == ResourceShape::Pitch2D; break;  // 1: linear
    }
    w.write(t.dst[0], lane, v, Ty{'b', 32});
  }

  // suld, sust, sured: the element at the coordinates (x in bytes for .b, in elements for .p),
  // out-of-range coordinates handled as .trap/.clamp/.zero say. Returns nullptr for .zero.
  uint8_t* surface_element(int lane, const Resource& r, unsigned size, bool store) {
    const bool array = t.geom == TexGeom::A1D || t.geom == TexGeom::A2D;
    const unsigned dims = t.geom == TexGeom::D1 || t.geom == TexGeom::A1D ? 1 : t.geom == TexGeom::D3 ? 3 : 2;
    const uint64_t tb = texel_bytes(r.format);
    const uint64_t row = uint64_t{r.width} * tb;
    int64_t c[3] = {0, 0, 0};
    for (unsigned k = 0; k < dims; ++k) c[k] = static_cast<int32_t>(w.value(t.coords[k + (array ? 1 : 0)], lane));
    int64_t layer = array ? static_cast<int64_t>(static_cast<uint32_t>(w.value(t.coords[0], lane))) : 0;
    const char* names[3] = {"x", "y", "z"};
    if (size > row) fail(lane, fmt::format("the access of {} bytes is wider than a row of the surface ({} bytes)", size, row));
    // x in bytes: the access must lie inside the row and be aligned to its size
    int64_t xb = t.formatted ? c[0] * static_cast<int64_t>(tb) : c[0];
    if (xb % static_cast<int64_t>(size) != 0)
      fail(lane, fmt::format("x = {} {} is not a multiple of the access's {} bytes", c[0], t.formatted ? "elements" : "bytes", size));
    const int64_t size_of[3] = {static_cast<int64_t>(row) - static_cast<int64_t>(size) + 1, r.height, r.depth};
    bool out = false;
    std::string why;
    for (unsigned k = 0; k < dims; ++k) {
      const int64_t v = k == 0 ? xb : c[k];
      if (v >= 0 && v < size_of[k]) continue;
      out = true;
      if (why.empty())
        why = k == 0 ? fmt::format("x = {} {} is out of range: a row has {} bytes ({} elements of {} bytes){}", c[0], t.formatted ? "elements" : "bytes",
                                   row, r.width, tb, size > tb ? fmt::format(", and the access reads {} bytes", size) : "")
                     : fmt::format("{} = {} is out of range (the surface has {} {})", names[k], c[k], k == 1 ? r.height : r.depth, k == 1 ? "rows" : "slices");
      if (k == 0) xb = std::clamp<int64_t>(xb, 0, static_cast<int64_t>(row) - static_cast<int64_t>(size)) / static_cast<int64_t>(size) * static_cast<int64_t>(size);
      else c[k] = std::clamp<int64_t>(c[k], 0, size_of[k] - 1);
    }
    if (array && layer >= static_cast<int64_t>(r.layers)) {
      out = true;
      if (why.empty()) why = fmt::format("layer {} is out of range (the surface has {} layers)", layer, r.layers);
      layer = r.layers - 1;
    }
    if (out) {
      if (t.oob == SurfOob::Trap) fail(lane, fmt::format("{} (.trap)", why));
      if (t.oob == SurfOob::Zero) return nullptr;
    }
    return const_cast<uint8_t*>(bytes_at(lane, r, xb / static_cast<int64_t>(std::max<uint64_t>(tb, 1)), c[1], dims == 3 ? c[2] : layer, size,
                                               static_cast<uint64_t>(xb), store));
  }

  void suld(int lane) {
    const Resource& r = object(lane, true).texture.resource;
    check_geometry(lane, r);
    const unsigned es = t.dtype.bits / 8, size = es * t.vec;
    const uint8_t* p = surface_element(lane, r, size, false);
    for (unsigned k = 0; k < t.vec; ++k) {
      uint64_t v = 0;
      if (p) std::memcpy(&v, p + k * es, es);
      w.write(t.dst[k], lane, v, Ty{'b', static_cast<uint8_t>(std::max(32u, t.dtype.bits * 1u))});
    }
  }

  void sust(int lane) {
    const Resource& r = object(lane, true).texture.resource;
    check_geometry(lane, r);
    if (t.formatted) {  // sust.p: one element, converted to its format channel by channel
      const unsigned tb = texel_bytes(r.format), cb = channel_bytes(r.format.kind);
      uint8_t* p = surface_element(lane, r, tb, true);
      if (!p) return;
      for (unsigned c = 0; c < r.format.channels && c < t.src.size(); ++c) {
        const uint32_t v = static_cast<uint32_t>(w.value(t.src[c], lane));
        const uint32_t bits = r.format.kind == ChannelKind::F16 ? encode(Format::F16, f32_of(v)) : v;  // integers: the low bits
        std::memcpy(p + c * cb, &bits, cb);
      }
      return;
    }
    const unsigned es = t.dtype.bits / 8, size = es * t.vec;
    uint8_t* p = surface_element(lane, r, size, true);
    if (!p) return;
    for (unsigned k = 0; k < t.vec; ++k) {
      const uint64_t v = w.value(t.src[k], lane);
      std::memcpy(p + k * es, &v, es);
    }
  }

  void sured(int lane) {
    const Resource& r = object(lane, true).texture.resource;
    check_geometry(lane, r);
    const unsigned es = t.dtype.bits / 8;
    bool sgn = t.dtype.k == 's';
    if (t.formatted) {  // sured.p.b32: the element's format says signed or unsigned
      if (r.format.channels != 1 || channel_bytes(r.format.kind) != 4 || is_float(r.format.kind))
        fail(lane, "sured.p needs a surface of one 32-bit integer channel");
      sgn = r.format.kind == ChannelKind::S32;
    }
    uint8_t* p = surface_element(lane, r, es, true);
    if (!p) return;
    std::lock_guard lock(w.atomic_lock(p));
    uint64_t old = 0;
    std::memcpy(&old, p, es);
    const uint64_t b = w.value(t.src[0], lane);
    const uint64_t mask = es == 8 ? ~uint64_t{0} : 0xFFFFFFFFull;
    auto sx = [&](uint64_t v) { return es == 8 ? static_cast<int64_t>(v) : static_cast<int64_t>(static_cast<int32_t>(v)); };
    uint64_t res = old;
    switch (t.red) {
      case SurfRed::Add: res = old + b; break;
      case SurfRed::And: res = old & b; break;
      case SurfRed::Or: res = old | b; break;
      case SurfRed::Min:
      case SurfRed::Max: {
        const bool less = sgn ? sx(b) < sx(old) : (b & mask) < (old & mask);
        res = (less == (t.red == SurfRed::Min)) ? b : old;
        break;
      }
    }
    res &= mask;
    std::memcpy(p, &res, es);
  }
};

}  // namespace

void texture_execute(const TextureInst& t, TextureWarp& w, uint32_t exec) {
  Exec e{t, w, w.memory()};
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    switch (t.op) {
      case TexOp::Tex:
      case TexOp::Tld4: e.tex(l); break;
      case TexOp::Txq:
      case TexOp::Suq: e.query(l); break;
      case TexOp::Suld: e.suld(l); break;
      case TexOp::Sust: e.sust(l); break;
      case TexOp::Sured: e.sured(l); break;
      case TexOp::Istypep: {  // a texture object is also its sampler (the unified mode)
        const TextureObject* o = w.memory().texture_object(w.value(t.handle, l));
        w.write(t.dst[0], l, o && (t.comp == 2) == o->surface, Ty{'p', 1});
        break;
      }
    }
  }
}

}  // namespace ptx::emu
