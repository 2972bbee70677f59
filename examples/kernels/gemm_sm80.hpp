// A bf16 GEMM for Ampere (sm_80+) on mma.sync: C = A * B^T.
//
//   A: M x K bf16, row-major (K contiguous)
//   B: N x K bf16, row-major (K contiguous): the K x N operand stored column-major, as a
//      PyTorch Linear weight is (C = A @ W.T). Both operands then load with plain ldmatrix.
//   C: M x N f32, row-major
//
// One CTA computes a 128 x 128 tile of C with 8 warps (2 along M x 4 along N, 64 x 32
// each), stepping K by 32. A and B tiles (128 rows x 64 bytes) stream into shared memory
// through a 3-stage cp.async ring (cp.async.cg 16 bytes; two chunks of A and two of B per
// thread per tile). The tiles are stored with the 64-byte XOR swizzle (ptx::smem::swizzle,
// Swizzle::B64: 16-byte chunk c of row r at chunk c ^ ((r / 2) % 4)), so that the eight
// row addresses of each ldmatrix fall in eight different bank groups. Per 16-wide K step
// each warp issues 4 ldmatrix.x4 for A, 2 ldmatrix.x4 for B and 16
// mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32. 48 KB of static shared memory.
//
// The K loop is a run-time loop whose body covers 3 tiles (one per stage), so that every
// stage offset is a trace-time immediate; K/32 mod 3 leftover tiles follow it unrolled.
// Loads of tiles past the end in the loop are predicated off (empty cp.async groups keep
// the group count uniform). M and N must be multiples of 128 and K of 32 (an error
// otherwise); offsets are computed in 32 bits, so each matrix must be under 4 GiB.
#pragma once

#include <cstdint>
#include <string>

#include <ptxpp/dsl.hpp>

namespace examples {

using namespace ptx::types;
namespace inst = ptx::inst;

inline constexpr int kGemmTileM = 128, kGemmTileN = 128, kGemmTileK = 32, kGemmStages = 3;

inline ptx::Dim3 gemm_sm80_grid(const ptx::Bindings& b) {
  return ptx::Dim3(static_cast<uint32_t>((b.at("N") + kGemmTileN - 1) / kGemmTileN),
                   static_cast<uint32_t>((b.at("M") + kGemmTileM - 1) / kGemmTileM));
}

inline ptx::Kernel gemm_sm80(const std::string& arch) {
  return ptx::kernel("gemm_sm80")
      .in(ptx::tensor(bf16, {"M", "K"}))
      .in(ptx::tensor(bf16, {"N", "K"}))
      .out(ptx::tensor(f32, {"M", "N"}))
      .block(256)
      .grid(gemm_sm80_grid)
      .arch(arch)
      .body([](ptx::Tensor a, ptx::Tensor b, ptx::Tensor c) {
        namespace amp = ptx::ampere;
        using ptx::smem::Swizzle;
        const int64_t M = a.dim(0), K = a.dim(1), N = b.dim(0);
        if (M % kGemmTileM != 0 || N % kGemmTileN != 0 || K % kGemmTileK != 0)
          throw ptx::Error("gemm_sm80: M and N must be multiples of 128 and K of 32 (the CTA tile); got M=" +
                               std::to_string(M) + ", N=" + std::to_string(N) + ", K=" + std::to_string(K),
                           ptx::SourceLocation::current());
        if (M * K * 2 >= (int64_t{1} << 32) || N * K * 2 >= (int64_t{1} << 32) || M * N * 4 >= (int64_t{1} << 32))
          throw ptx::Error("gemm_sm80: each matrix must be under 4 GiB (32-bit offsets)", ptx::SourceLocation::current());
        const amp::MmaForm form = amp::forms::m16n8k16_bf16_f32;
        const int64_t kt_total = K / kGemmTileK;       // K tiles
        const uint64_t tile_bytes = 128 * 64;          // one stage of A (or B): 128 rows x 32 bf16
        const int64_t row_bytes = K * 2;               // a row of A or B in global memory

        auto smA = ptx::smem::alloc(bf16, {kGemmStages, 128, 32}, 1024, Swizzle::B64);
        auto smB = ptx::smem::alloc(bf16, {kGemmStages, 128, 32}, 1024, Swizzle::B64);
        ptx::Reg pa = a.global_ptr();
        ptx::Reg pb = b.global_ptr();
        ptx::Reg pc = c.global_ptr();
        ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg bx = ptx::read(ptx::special::ctaid.x(), u32);
        ptx::Reg by = ptx::read(ptx::special::ctaid.y(), u32);
        ptx::Reg lane = tid & 31;
        ptx::Reg warp = tid >> 5;
        ptx::Reg warp_m = warp >> 2;  // 0..1: rows warp_m*64 of the CTA tile
        ptx::Reg warp_n = warp & 3;   // 0..3: columns warp_n*32
        ptx::Reg sA = smA.base();
        ptx::Reg sB = smB.base();

        // ---- cp.async: thread t copies 16-byte chunk t%4 of tile rows t/4 and t/4+64 ----
        ptx::Reg lin = tid << 4;  // (t/4)*64 + (t%4)*16
        ptx::Reg swz = ptx::smem::swizzle(lin, Swizzle::B64);
        ptx::Reg dstA = sA + swz;
        ptx::Reg dstB = sB + swz;
        ptx::Reg row = tid >> 2;
        ptx::Reg chunk = tid & 3;
        ptx::Reg chunk_bytes = chunk << 4;
        ptx::Reg rowA = by << 7;
        rowA += row;
        ptx::Reg offA = rowA * static_cast<uint32_t>(row_bytes);
        offA += chunk_bytes;
        ptx::Reg gA = pa + offA;  // A[by*128 + t/4][(t%4)*8]
        ptx::Reg rowB = bx << 7;
        rowB += row;
        ptx::Reg offB = rowB * static_cast<uint32_t>(row_bytes);
        offB += chunk_bytes;
        ptx::Reg gB = pb + offB;  // B[bx*128 + t/4][(t%4)*8]
        // Copies tile `tile_off` bytes along K from (ga, gb) into the ring's write stage.
        auto load_tile = [&](const ptx::Reg& ga, const ptx::Reg& gb, int64_t k_bytes, uint64_t stage_off,
                             const ptx::Reg* guard) {
          for (int h = 0; h < 2; ++h) {
            const int64_t s_off = static_cast<int64_t>(stage_off) + h * 4096;
            const int64_t g_off = k_bytes + h * 64 * row_bytes;
            amp::cp_async_16(ptx::addr(dstA, s_off), ptx::addr(ga, g_off), guard);
            amp::cp_async_16(ptx::addr(dstB, s_off), ptx::addr(gb, g_off), guard);
          }
        };

        // ---- ldmatrix addresses (k step 0; k step 1 is chunk + 2: the swizzled offset ^ 32) ----
        // A, x4: lane l gives row warp_m*64 + l%16, chunk l/16 (matrices a0..a3 of m16n8k16).
        ptx::Reg ar = lane & 15;
        ptx::Reg wm64 = warp_m << 6;
        ar += wm64;
        ptx::Reg alin = ar << 6;
        ptx::Reg ac = lane >> 4;
        ptx::Reg ac16 = ac << 4;
        alin += ac16;
        ptx::Reg aswz = ptx::smem::swizzle(alin, Swizzle::B64);
        ptx::Reg ldA0 = sA + aswz;
        ptx::Reg aswz1 = aswz ^ 32;
        ptx::Reg ldA1 = sA + aswz1;
        // B, x4 over two n tiles: lane l gives n row warp_n*32 + l%8 + 8*(l/16), chunk (l/8)%2
        // (matrices b0, b1 of n tile j, then b0, b1 of n tile j+1).
        ptx::Reg br = lane & 7;
        ptx::Reg bhi = lane >> 4;
        ptx::Reg bhi8 = bhi << 3;
        br += bhi8;
        ptx::Reg wn32 = warp_n << 5;
        br += wn32;
        ptx::Reg blin = br << 6;
        ptx::Reg bc = lane >> 3;
        bc = bc & 1;
        ptx::Reg bc16 = bc << 4;
        blin += bc16;
        ptx::Reg bswz = ptx::smem::swizzle(blin, Swizzle::B64);
        ptx::Reg ldB0 = sB + bswz;
        ptx::Reg bswz1 = bswz ^ 32;
        ptx::Reg ldB1 = sB + bswz1;

        // ---- accumulators: 4 m tiles x 4 n tiles of m16n8 ----
        ptx::RegArray acc(f32, 64, "acc");
        std::vector<amp::Fragment> accs;
        for (int i = 0; i < 16; ++i) accs.push_back(amp::Fragment::view(form, amp::MmaOperand::C, acc, 4 * i));
        for (auto& f : accs) amp::zero(f);
        // A fragments of the 4 m tiles and B fragments of the 4 n tiles (one k step).
        ptx::RegArray ra(b32, 16, "fa"), rb(b32, 8, "fb");
        std::vector<amp::Fragment> fa, fb;
        for (int i = 0; i < 4; ++i) fa.push_back(amp::Fragment::view(form, amp::MmaOperand::A, ra, 4 * i));
        for (int j = 0; j < 4; ++j) fb.push_back(amp::Fragment::view(form, amp::MmaOperand::B, rb, 2 * j));

        auto compute = [&](uint64_t stage_off) {
          for (int ks = 0; ks < 2; ++ks) {
            const ptx::Reg& la = ks == 0 ? ldA0 : ldA1;
            const ptx::Reg& lb = ks == 0 ? ldB0 : ldB1;
            for (int i = 0; i < 4; ++i) amp::ldmatrix(fa[i], la, static_cast<int64_t>(stage_off) + i * 1024);
            for (int jp = 0; jp < 2; ++jp) {
              std::vector<ptx::Operand> regs = fb[2 * jp].operands();
              for (const ptx::Operand& o : fb[2 * jp + 1].operands()) regs.push_back(o);
              amp::ldmatrix(regs, lb, static_cast<int64_t>(stage_off) + jp * 1024);
            }
            for (int i = 0; i < 4; ++i)
              for (int j = 0; j < 4; ++j) amp::mma(form, accs[4 * i + j], fa[i], fb[j], accs[4 * i + j]);
          }
        };

        amp::CpAsyncRing ring(kGemmStages, tile_bytes);
        // Prologue: tiles 0 .. stages-2.
        for (int s = 0; s < kGemmStages - 1; ++s) {
          if (s < kt_total) load_tile(gA, gB, s * 64, ring.write_offset(), nullptr);
          ring.commit();
        }
        // The pointers to the next tile to load (tile stages-1).
        ptx::Reg nA = gA + static_cast<int64_t>((kGemmStages - 1) * 64);
        ptx::Reg nB = gB + static_cast<int64_t>((kGemmStages - 1) * 64);
        // One k tile: wait for the oldest tile, barrier, start the next load, compute.
        auto step = [&](const ptx::Reg* guard, bool load) {
          ring.wait();
          inst::bar.sync(0);
          if (load) {
            load_tile(nA, nB, 0, ring.write_offset(), guard);
            nA += 64;
            nB += 64;
          }
          ring.commit();
          compute(ring.read_offset());
          ring.release();
        };
        const int64_t rounds = kt_total / kGemmStages;
        if (rounds > 0) {
          ptx::loop(0u, static_cast<uint32_t>(rounds * kGemmStages), kGemmStages, [&](const ptx::Reg& kt) {
            for (int u = 0; u < kGemmStages; ++u) {
              // tile kt+u+stages-1 exists while kt < kt_total - (stages-1) - u
              const int64_t bound = kt_total - (kGemmStages - 1) - u;
              if (bound <= 0) {
                step(nullptr, false);
                continue;
              }
              if (bound > (rounds - 1) * kGemmStages) {  // every round loads
                step(nullptr, true);
                continue;
              }
              ptx::Reg p = kt < static_cast<uint32_t>(bound);
              step(&p, true);
            }
          });
        }
        for (int64_t kt = rounds * kGemmStages; kt < kt_total; ++kt) step(nullptr, kt + kGemmStages - 1 < kt_total);

        // ---- epilogue: c0,c1 at (g, 2t), c2,c3 at (g+8, 2t) of each m16n8 tile ----
        ptx::Reg g = lane >> 2;
        ptx::Reg t4 = lane & 3;
        ptx::Reg crow = by << 7;
        crow += wm64;
        crow += g;
        ptx::Reg ccol = bx << 7;
        ccol += wn32;
        ptx::Reg t2 = t4 << 1;
        ccol += t2;
        ptx::Reg coff = crow * static_cast<uint32_t>(N);
        coff += ccol;
        coff = coff << 2;
        ptx::Reg cptr = pc + coff;
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j)
            for (int h = 0; h < 2; ++h) {
              const int64_t off = ((i * 16 + h * 8) * N + j * 8) * 4;
              const amp::Fragment& f = accs[4 * i + j];
              inst::st.global.v2.f32(ptx::addr(cptr, off), ptx::vec(f[2 * h], f[2 * h + 1]));
            }
        ptx::ret();
      });
}

}  // namespace examples
