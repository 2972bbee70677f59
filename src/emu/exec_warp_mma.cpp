// The warp's matrix instructions (warp-mma.isa, wgmma.isa), run by ldmatrix.cpp, mma_sync.cpp, wmma.cpp, wgmma.cpp.
#include "ldmatrix.hpp"
#include "mma_sync.hpp"
#include "wgmma.hpp"
#include "wmma.hpp"

#include "runner.hpp"

namespace ptx::emu::engine {

// ldmatrix/stmatrix (ldmatrix.cpp): the whole warp's matrices, each row through the usual
// shared-memory checks as a 16-byte access of the lane that gives its address.
// movmatrix.sync.aligned.m8n8.trans.b16: the 8x8 .b16 matrix of the mma layout (lane 4r + c/2
// holds row r, columns c), transposed.
void Runner::movmatrix(Warp& w, const DInst& in, uint32_t exec, uint32_t active) {
  if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(exec ? exec : active), "movmatrix needs all 32 lanes of the warp");
  uint16_t m[8][8];
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t v = value(w, in.ops[1], l);
    m[l / 4][2 * (l % 4)] = static_cast<uint16_t>(v), m[l / 4][2 * (l % 4) + 1] = static_cast<uint16_t>(v >> 16);
  }
  for (int l = 0; l < kLanes; ++l)
    write(w, in.ops[0], l, uint64_t{m[2 * (l % 4)][l / 4]} | uint64_t{m[2 * (l % 4) + 1][l / 4]} << 16, Ty{'b', 32});
}

void Runner::ldmatrix(Warp& w, const DInst& in, uint32_t exec, bool store) {
  if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(exec), fmt::format("{} needs all 32 lanes of the warp", store ? "stmatrix" : "ldmatrix"));
  struct Access final : LdmatrixWarp {
    Runner& r;
    Warp& w;
    const DInst& in;
    Access(Runner& runner, Warp& warp, const DInst& inst) : r(runner), w(warp), in(inst) {}
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    uint8_t* row(int lane, bool st, const uint8_t* stored) override {
      return r.access(w, lane, in, st ? in.ops[0] : in.ops[1], 16, st, 0, stored);
    }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } access(*this, w, in);
  ldmatrix_execute(p_, in, access, store);
}

// mma.sync (mma_sync.cpp): the whole warp's D = A * B + C, from and into its registers.
void Runner::mma(Warp& w, const DInst& in, uint32_t exec) {
  if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(~exec), "mma.sync needs all 32 lanes of the warp");
  struct Access final : MmaWarp {
    Runner& r;
    Warp& w;
    Access(Runner& runner, Warp& warp) : r(runner), w(warp) {}
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } access(*this, w);
  mma_execute(p_, in, access);
}

// wgmma.mma_async (wgmma.cpp): this warp's 16 rows of its warpgroup's product, computed when
// the warp issues it. Shared memory is read through the usual checks (bounds, never written,
// races), as lane 0 of the warp.
void Runner::wgmma(Warp& w, const DInst& in, uint32_t exec) {
  if (exec == 0) return;  // guarded off in every lane
  if (exec != 0xFFFFFFFFu) fail(w, std::countr_zero(~exec), "wgmma.mma_async needs all 32 lanes of the warp");
  if (w.index / 4 * 4 + 4 > c_->warps.size())
    fail(w, 0, fmt::format("wgmma.mma_async needs a whole warpgroup (4 warps); the CTA has {} threads",
                           cfg_.block.x * cfg_.block.y * cfg_.block.z));
  struct Access final : WgmmaWarp {
    Runner& r;
    Warp& w;
    Access(Runner& runner, Warp& warp) : r(runner), w(warp) {}
    uint64_t value(const Opnd& o, int lane) override { return r.value(w, o, lane); }
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    const uint8_t* shared16(uint64_t offset) override { return r.resolve(w, 0, Space::Shared, offset, 16, false); }
    [[noreturn]] void fail(const std::string& what) override { r.fail(w, 0, what); }
    uint32_t rank() const override { return w.index % 4; }
  } access(*this, w);
  wgmma_execute(p_, in, access);
}

// wmma.load/store/mma (wmma.cpp): the warp's collective matrix instructions. Each lane
// accesses memory for the elements its fragment holds, through the usual checks.
void Runner::wmma(Warp& w, const DInst& in, uint32_t exec) {
  if (exec == 0) return;  // guarded off in every lane
  if (exec != 0xFFFFFFFFu)
    fail(w, std::countr_zero(exec), fmt::format("{} needs all 32 lanes of the warp (lanes executing it: {:#010x})", wmma_name(in), exec));
  struct Access final : WmmaWarp {
    Runner& r;
    Warp& w;
    const DInst& in;
    Access(Runner& runner, Warp& warp, const DInst& inst) : r(runner), w(warp), in(inst) {}
    uint64_t& reg(uint32_t slot, int lane) override { return r.reg(w, slot, lane); }
    uint64_t value(const Opnd& o, int lane) override { return r.value(w, o, lane); }
    uint8_t* memory(int lane, uint64_t offset, unsigned size, bool store) override {
      Opnd a = in.ops[wmma_address_operand(in)];
      a.imm += offset;
      return r.access(w, lane, in, a, size, store);
    }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } access(*this, w, in);
  wmma_execute(p_, in, access);
}

}  // namespace ptx::emu::engine
