// Internal: mma.sync, the warp-level matrix multiply-accumulate (PTX ISA 9.7.14.5), for
// the emulator. decode.cpp hands the instruction's modifiers and decoded operands to
// mma_decode; exec.cpp runs it through mma_execute, giving it the warp's registers
// behind MmaWarp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "program.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

struct MmaDecodeError {
  bool unsupported = false;  // a real form the emulator does not run (e.g. block-scaled), not a malformed one
  std::string what;
};

// Fills `d` (op Mma) from the modifiers and decoded operands of an `mma` instruction;
// checks the shape and types against the ISA's forms. `p`: the program being decoded.
std::optional<MmaDecodeError> mma_decode(DInst& d, std::span<const spec::Mod> mods, std::span<const Opnd> ops,
                                         const Program& p);

// What mma.sync needs of the warp executing it.
class MmaWarp {
 public:
  virtual uint64_t& reg(uint32_t slot, int lane) = 0;
  [[noreturn]] virtual void fail(int lane, const std::string& what) = 0;

 protected:
  ~MmaWarp() = default;
};

// D = A * B + C for the whole warp (all 32 lanes take part).
void mma_execute(const Program& p, const DInst& in, MmaWarp& w);

}  // namespace ptx::emu
