// Internal: wmma, the warp-level matrix load, store and multiply-accumulate of PTX ISA
// 9.7.14.4 (what nvcuda::wmma compiles to), for the emulator. decode.cpp hands the
// instruction's modifiers and operands to wmma_decode; exec.cpp runs wmma.load,
// wmma.store and wmma.mma through wmma_execute, giving it the warp's registers and
// checked memory behind WmmaWarp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "program.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

// DInst::sub of a wmma instruction: the operation in the low 3 bits, then the memory layout.
enum class WmmaOp : uint8_t { LoadA, LoadB, LoadC, StoreD, Mma };
enum WmmaBits : uint8_t { kWmmaOpMask = 7, kWmmaColMajor = 8, kWmmaAnd = 16 };  // kWmmaAnd: b1 .and (else .xor)

struct WmmaDecodeError {
  bool unsupported = false;  // a real form the emulator does not run, not a malformed one
  std::string what;
};

// Fills `d` (op Wmma) from the modifiers and decoded operands of a `wmma` instruction;
// checks shape, types, layouts and each fragment's register count against the ISA.
std::optional<WmmaDecodeError> wmma_decode(DInst& d, std::span<const spec::Mod> mods, std::span<const Opnd> ops,
                                           const Program& p);

// What a wmma instruction needs of the warp executing it (all 32 lanes).
class WmmaWarp {
 public:
  virtual uint64_t& reg(uint32_t slot, int lane) = 0;
  virtual uint64_t value(const Opnd& o, int lane) = 0;
  // `size` bytes at `offset` bytes past the instruction's address operand, as `lane` sees
  // them: through the emulator's checks (bounds, alignment, shared-memory races and
  // initialization), so each lane accesses what its fragment holds.
  virtual uint8_t* memory(int lane, uint64_t offset, unsigned size, bool store) = 0;
  [[noreturn]] virtual void fail(int lane, const std::string& what) = 0;

 protected:
  ~WmmaWarp() = default;
};

void wmma_execute(const Program& p, const DInst& in, WmmaWarp& w);

// The index of the address operand [p] of a wmma.load (1) or wmma.store (0).
inline size_t wmma_address_operand(const DInst& in) { return static_cast<WmmaOp>(in.sub & kWmmaOpMask) == WmmaOp::StoreD ? 0 : 1; }

// "wmma.load.a", "wmma.store.d", "wmma.mma": for reports.
const char* wmma_name(const DInst& in);

}  // namespace ptx::emu
