// Internal: texture and surface instructions (PTX ISA 9.7.10 tex, tld4, txq, istypep; 9.7.11 suld, sust,
// sured, suq) on texture and surface objects (ptxpp/emu/texture.hpp). decode.cpp hands an
// instruction's modifiers and operands to texture_decode; exec.cpp runs it through
// texture_execute, giving it the warp's registers and checked global memory behind TextureWarp.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "program.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

class Memory;

// An operand as written: a value (register, immediate), a vector {..} (of values; `_` a Sink), a
// vector with a predicate {..}|p, or a bracketed [a, b, {c}] of such.
struct TexOperand {
  std::vector<Opnd> values;  // a value: one; a vector: its elements
  bool vector = false;
  uint32_t pred = kNoSlot;         // d|p: the predicate (kNoSlot: none, or the sink)
  bool has_pred = false;
  bool bracket = false;
  std::vector<TexOperand> items;   // bracket: its items
  std::string text;                // for reports
};

enum class TexOp : uint8_t { Tex, Tld4, Txq, Suld, Sust, Sured, Suq, Istypep };
enum class TexGeom : uint8_t { D1, D2, D3, A1D, A2D };
enum class TexQuery : uint8_t {
  Width, Height, Depth, ChannelDataType, ChannelOrder, NormalizedCoords, ForceUnnormalizedCoords, FilterMode,
  AddrMode0, AddrMode1, AddrMode2, ArraySize, NumMipmapLevels, NumSamples, MemoryLayout,
};
enum class SurfOob : uint8_t { Trap, Clamp, Zero };  // .trap, .clamp, .zero
enum class SurfRed : uint8_t { Add, Min, Max, And, Or };

// One decoded texture or surface instruction.
struct TextureInst {
  TexOp op = TexOp::Tex;
  TexGeom geom = TexGeom::D1;
  Ty dtype{'f', 32};        // tex/tld4: .dtype; suld/sust: .b8...b64 (the element); sured: .ctype
  Ty ctype{'s', 32};        // tex/tld4: the coordinates' type
  uint8_t vec = 1;          // suld/sust: elements (1, 2, 4); tex/tld4: 4 (2 with .f16x2)
  bool f16x2 = false;       // tex .v2.f16x2
  bool formatted = false;   // suld/sust/sured .p
  bool level = false;       // tex.level (lod in `lod`)
  uint8_t comp = 0;         // tld4 .r/.g/.b/.a; istypep: 0 .texref, 1 .samplerref, 2 .surfref
  TexQuery query = TexQuery::Width;
  bool query_level = false; // txq.level
  SurfOob oob = SurfOob::Trap;
  SurfRed red = SurfRed::Add;
  std::string name;         // "tex.2d", "suld.b.2d", ... for reports
  Opnd handle;              // the .u64 register holding the texture or surface object
  std::vector<Opnd> dst;    // destination registers (Sink for `_`)
  uint32_t pred = kNoSlot;  // d|p
  std::vector<Opnd> coords; // as written (arrays: the index first)
  std::vector<Opnd> offsets;  // tex/tld4 e
  Opnd lod;                 // tex.level / txq.level
  std::vector<Opnd> src;    // sust/sured values
};

struct TextureDecodeError {
  bool unsupported = false;  // a real form the emulator does not run, not a malformed one
  std::string what;
};

// Fills `t` from the opcode, the modifiers (types included) and the operands; checks the form.
std::optional<TextureDecodeError> texture_decode(spec::Opcode op, std::span<const spec::Mod> mods,
                                                 std::span<const TexOperand> operands, TextureInst& t);
bool is_texture_opcode(spec::Opcode op);

// What the instructions need of the warp executing them.
class TextureWarp {
 public:
  virtual uint64_t value(const Opnd& o, int lane) = 0;           // an operand in one lane
  virtual void write(const Opnd& d, int lane, uint64_t v, Ty t) = 0;  // a destination register
  virtual void write_pred(uint32_t slot, int lane, bool v) = 0;
  // `size` bytes of global memory at `address`, checked (bounds, freed); fails otherwise.
  virtual uint8_t* global(uint64_t address, unsigned size, bool store, int lane) = 0;
  virtual const Memory& memory() const = 0;
  virtual std::mutex& atomic_lock(const void* p) = 0;  // the lock atom/red take for this address
  [[noreturn]] virtual void fail(int lane, const std::string& what) = 0;

 protected:
  ~TextureWarp() = default;
};

// Runs `t` for the lanes of `exec`.
void texture_execute(const TextureInst& t, TextureWarp& w, uint32_t exec);

}  // namespace ptx::emu
