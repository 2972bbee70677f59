// Internal: wgmma, the warpgroup-level matrix multiply-accumulate of sm_90a (PTX ISA
// 9.7.15), for the emulator. decode.cpp hands the instruction's modifiers and operands
// to wgmma_decode; exec.cpp runs wgmma.mma_async through wgmma_execute, giving it the
// warp's registers and checked shared memory behind WgmmaWarp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "program.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

struct WgmmaDecodeError {
  bool unsupported = false;  // a real form the emulator does not run, not a malformed one
  std::string what;
};

// Fills `d` (op Wgmma, or Nop for wgmma.fence/commit_group/wait_group) from the
// modifiers and decoded operands of a `wgmma` instruction; checks shape, types and
// operands against the ISA manual. `p` is the program being decoded (register types,
// vector operands).
std::optional<WgmmaDecodeError> wgmma_decode(DInst& d, std::span<const spec::Mod> mods, std::span<const Opnd> ops,
                                             const Program& p);

// What wgmma.mma_async needs of the warp executing it.
class WgmmaWarp {
 public:
  virtual uint64_t value(const Opnd& o, int lane) = 0;     // an operand in one lane
  virtual uint64_t& reg(uint32_t slot, int lane) = 0;
  virtual const uint8_t* shared16(uint64_t offset) = 0;    // 16 bytes of the CTA's shared memory, checked
  [[noreturn]] virtual void fail(const std::string& what) = 0;
  virtual uint32_t rank() const = 0;                       // the warp's rank in its warpgroup, 0..3

 protected:
  ~WgmmaWarp() = default;
};

// This warp's 16 rows of D = A * B (+ D); all 32 lanes take part.
void wgmma_execute(const Program& p, const DInst& in, WgmmaWarp& w);

}  // namespace ptx::emu
