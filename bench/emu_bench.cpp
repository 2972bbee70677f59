// Emulator throughput in thread-instructions per second (docs/design.md: >= 200 M per
// core on ALU-bound kernels): an ALU-bound loop kernel and the RMS norm example; and warp
// instructions per second of one warp spinning on a uniform branch (a wait loop's shape).
//
//   emu_bench [google-benchmark flags]
// /1: one host thread (the per-core figure); /0: one thread per core.
#include <benchmark/benchmark.h>

#include <ptxpp/dsl.hpp>
#include <ptxpp/emu/emulator.hpp>
#include <ptxpp/text/parser.hpp>

#include "../examples/kernels/rows.hpp"

namespace {

using namespace ptx::types;
namespace inst = ptx::inst;

// Each thread runs a loop of 8 dependent FMA/ALU instructions per iteration.
std::string alu_kernel() {
  return ptx::kernel("alu").out(ptx::tensor(f32, {"N"})).arch("sm_90a").body([](ptx::Tensor y) {
    ptx::Reg p = y.global_ptr();
    ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
    ptx::Reg a(f32), b(f32), c(f32);
    inst::cvt.rn.f32.u32(a, tid);
    b = 1.0001f;
    c = 0.5f;
    ptx::Reg k(u32);
    k = 0u;
    ptx::loop(0u, 256u, 1, [&](const ptx::Reg&) {
      inst::fma.rn.f32(a, a, b, c);
      inst::fma.rn.f32(c, c, b, a);
      inst::mul.rn.f32(b, b, c);
      inst::add.rn.f32(a, a, b);
      k += 3;
    });
    ptx::Reg off = tid * 4;
    inst::st.global.f32(ptx::addr(p + off), a);
    ptx::ret();
  }).ptx({{"N", 256}});
}

void BM_AluBound(benchmark::State& state) {
  auto parsed = ptx::text::parse(alu_kernel());
  ptx::emu::Options o;
  o.threads = static_cast<unsigned>(state.range(0));
  ptx::emu::Emulator emu(o);
  const uint64_t y = emu.memory().alloc(256 * 4, "y");
  const std::vector<ptx::emu::Arg> args = {ptx::emu::Arg::pointer(y)};
  ptx::emu::LaunchConfig cfg;
  cfg.grid = {16, 1, 1};
  cfg.block = {256, 1, 1};
  const uint64_t before = emu.stats().thread_instructions;
  for (auto _ : state) emu.launch(parsed.module(), "alu", cfg, args);
  state.counters["thread_instr_per_s"] =
      benchmark::Counter(static_cast<double>(emu.stats().thread_instructions - before), benchmark::Counter::kIsRate);
}

void BM_RmsNorm(benchmark::State& state) {
  const int m = 64, n = 4096;
  auto t = examples::rmsnorm("sm_90a").trace({{"M", m}, {"N", n}});
  auto parsed = ptx::text::parse(t->ptx);
  ptx::emu::Options o;
  o.threads = static_cast<unsigned>(state.range(0));
  ptx::emu::Emulator emu(o);
  const uint64_t x = emu.memory().alloc(m * n * 4, "x"), w = emu.memory().alloc(n * 4, "w"), y = emu.memory().alloc(m * n * 4, "y");
  const std::vector<ptx::emu::Arg> args = {ptx::emu::Arg::pointer(x), ptx::emu::Arg::pointer(w), ptx::emu::Arg::pointer(y),
                                           ptx::emu::Arg::f32(1e-5f)};
  ptx::emu::LaunchConfig cfg;
  cfg.grid = {t->grid.x, 1, 1};
  cfg.block = {t->block.x, 1, 1};
  const uint64_t before = emu.stats().thread_instructions;
  for (auto _ : state) emu.launch(parsed.module(), "rmsnorm", cfg, args);
  state.counters["thread_instr_per_s"] =
      benchmark::Counter(static_cast<double>(emu.stats().thread_instructions - before), benchmark::Counter::kIsRate);
}

// One warp, every lane taking the same `bra` 10^6 times (3 instructions per iteration).
constexpr const char* kSpinKernel = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry spin()
{
	.reg .pred %p;
	.reg .b32 %r<2>;
	mov.u32 %r0, 0;
LOOP:
	add.u32 %r0, %r0, 1;
	setp.lt.u32 %p, %r0, 1000000;
	@%p bra LOOP;
	ret;
}
)";

void BM_UniformSpin(benchmark::State& state) {
  auto parsed = ptx::text::parse(kSpinKernel);
  ptx::emu::Emulator emu;
  ptx::emu::LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  const uint64_t before = emu.stats().thread_instructions;
  for (auto _ : state) emu.launch(parsed.module(), "spin", cfg, {});
  const double done = static_cast<double>(emu.stats().thread_instructions - before);
  state.counters["thread_instr_per_s"] = benchmark::Counter(done, benchmark::Counter::kIsRate);
  state.counters["warp_instr_per_s"] = benchmark::Counter(done / 32, benchmark::Counter::kIsRate);
}

// Arg: host threads (1 = the per-core figure). Rates are per wall-clock second.
BENCHMARK(BM_AluBound)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RmsNorm)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UniformSpin)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
