// Internal: ldmatrix and stmatrix (PTX ISA 9.7.14.5.15-16), the warp's collective moves of
// whole matrices between shared memory and its registers, for the emulator. decode.cpp hands
// the instruction's modifiers to ldmatrix_decode; exec.cpp runs it through ldmatrix_execute,
// giving it the warp's registers and checked shared-memory rows behind LdmatrixWarp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "program.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

struct LdmatrixDecodeError {
  bool unsupported = false;  // a modifier the emulator does not know, not a malformed form
  std::string what;
};

// Fills `d` (op Ldmatrix or Stmatrix, set already) from the modifiers: the shape in mma_m/mma_n,
// the matrix count in vec, .trans in flags, the shared-memory format in sub (LdmatrixSource),
// .shared in space; checks the combination against the ISA's forms.
std::optional<LdmatrixDecodeError> ldmatrix_decode(DInst& d, std::span<const spec::Mod> mods);

// DInst::sub of ldmatrix: what a 16-byte row of shared memory holds.
enum LdmatrixSource : uint8_t { kRowPlain = 0, kRowB6x16P32 = 1, kRowB4x16P64 = 2 };

// What ldmatrix/stmatrix need of the warp executing it.
class LdmatrixWarp {
 public:
  virtual uint64_t& reg(uint32_t slot, int lane) = 0;
  // The 16 bytes of the row whose address lane `lane` gives, checked as a load or a store (of
  // `stored`, the bytes it will write).
  virtual uint8_t* row(int lane, bool store, const uint8_t* stored = nullptr) = 0;
  [[noreturn]] virtual void fail(int lane, const std::string& what) = 0;

 protected:
  ~LdmatrixWarp() = default;
};

// The whole warp's ldmatrix (store false) or stmatrix (true); all 32 lanes take part.
void ldmatrix_execute(const Program& p, const DInst& in, LdmatrixWarp& w, bool store);

}  // namespace ptx::emu
