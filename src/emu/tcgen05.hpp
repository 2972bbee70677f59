// Internal: tcgen05, the 5th-generation tensor core instructions of sm_100a (PTX ISA 9.7.16),
// for the emulator. decode.cpp hands the modifiers and operands of a `tcgen05` instruction to
// tcgen05_decode; exec.cpp keeps a TensorMemory per CTA, runs alloc/dealloc/commit itself (they
// touch shared memory and mbarriers) and the data movement and mma here, through Tcgen05Warp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "program.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

// DInst::sub of Opc::Tcgen05; DInst::vec is the .cta_group (1 or 2).
enum class Tc05Op : uint8_t { Alloc, Dealloc, Relinquish, Ld, St, Mma, Commit, Cp, Shift, WaitLd };

// DInst::flags of tcgen05 instructions.
constexpr uint32_t kTc05Pack = kTrans;        // ld .pack::16b / st .unpack::16b
constexpr uint32_t kTc05ATmem = kLeft;        // mma: A in tensor memory ([a-tmem])
constexpr uint32_t kTc05DisableLanes = kNaN;  // mma: ops[5] is disable-output-lane
constexpr uint32_t kTc05ScaleD = kClamp;      // mma: scale-input-d in DInst::mma_k
constexpr uint32_t kTc05Ws = kParity;         // mma: .ws (weight stationary)
constexpr uint32_t kTc05ZeroMask = kShiftAmt; // mma.ws: ops[5] is zero-column-mask-desc
constexpr uint32_t kTc05Sparse = kSat;        // mma.sp: [sp-meta-tmem] in ops[0].slot2 and ops[0].count
// ld.red: redval in ops[3], the reduction in DInst::type ('u', 's' or 'f' 32)
constexpr uint32_t kTc05Red = kLo, kTc05RedMax = kHi, kTc05RedAbs = kWide, kTc05RedNaN = kRn;

struct Tcgen05DecodeError {
  bool unsupported = false;  // a real form the emulator does not run, not a malformed one
  std::string what;
};

// Fills `d` (op Tcgen05, or Nop for tcgen05.wait::st and tcgen05.fence) from the modifiers and
// decoded operands; checks the form against the ISA manual.
std::optional<Tcgen05DecodeError> tcgen05_decode(DInst& d, std::span<const spec::Mod> mods, std::span<const Opnd> ops,
                                                 const Program& p);

// The tensor memory of one CTA: 128 lanes x 512 columns of 32 bits, allocated by columns. An
// address is lane << 16 | column.
class TensorMemory {
 public:
  static constexpr uint32_t kLanes = 128, kColumns = 512;
  void reset();
  // The first column of a new allocation of `columns` (a power of 2 in [32, 512]), at a multiple
  // of its size; nullopt when no such range is free.
  std::optional<uint32_t> alloc(uint32_t columns);
  // "" when [column, column + columns) is exactly a live allocation (now freed), else what is wrong.
  std::string dealloc(uint32_t column, uint32_t columns);
  bool allocated(uint32_t column, uint32_t columns) const;
  bool empty() const { return allocations_.empty(); }
  std::string describe() const;  // the live allocations, for reports
  uint32_t& cell(uint32_t lane, uint32_t column);
  bool relinquished = false;     // tcgen05.relinquish_alloc_permit was executed

 private:
  struct Allocation {
    uint32_t column, columns;
  };
  std::vector<Allocation> allocations_;
  std::vector<uint32_t> cells_;  // lane * kColumns + column; sized on first use
};

// What the data movement and mma instructions need of the warp executing them.
class Tcgen05Warp {
 public:
  virtual uint64_t value(const Opnd& o, int lane) = 0;
  virtual uint64_t& reg(uint32_t slot, int lane) = 0;
  virtual const uint8_t* shared16(uint32_t rank, uint64_t offset, int lane) = 0;  // CTA `rank`'s shared memory, checked
  virtual TensorMemory& tmem(uint32_t rank) = 0;                                  // CTA `rank`'s tensor memory
  virtual uint32_t rank() const = 0;                                              // this CTA's rank in the cluster
  virtual uint32_t cluster_size() const = 0;
  virtual uint32_t warp() const = 0;  // the warp's index in its CTA
  [[noreturn]] virtual void fail(int lane, const std::string& what) = 0;

 protected:
  ~Tcgen05Warp() = default;
};

// tcgen05.ld / tcgen05.st: the warp's registers from or to tensor memory (all 32 lanes).
void tcgen05_ld_st(const Program& p, const DInst& in, Tcgen05Warp& w, uint32_t exec);
// The tensor memory columns an mma wrote: [column, column + columns) in CTAs first_rank to
// first_rank + ctas - 1.
struct MmaWritten {
  uint32_t column = 0, columns = 0, first_rank = 0, ctas = 1;
};
// tcgen05.mma issued by one lane: computed to completion at issue.
MmaWritten tcgen05_mma(const Program& p, const DInst& in, Tcgen05Warp& w, int lane);
// The columns from taddr that a tcgen05.ld/st may touch (a bound: the shape's extent).
uint32_t tcgen05_ld_st_columns(const DInst& in);
// tcgen05.cp (shared memory to tensor memory) and tcgen05.shift, issued by one lane.
void tcgen05_cp(const DInst& in, Tcgen05Warp& w, int lane);
void tcgen05_shift(const DInst& in, Tcgen05Warp& w, int lane);

}  // namespace ptx::emu
