// DSL tracing throughput (DESIGN.md: >= 20 M instructions/s with validation on):
// a large unrolled kernel, one instruction per call, each checked against the ISA
// table and the target as it is emitted.
//
//   trace_bench [google-benchmark flags]
// Counters: instr/s (items_per_second) for
//   BM_TraceBody      the body alone (DSL calls -> IR), validation on
//   BM_TraceBodyNoCheck  the same with Kernel::validate(false)
//   BM_TraceAndPrint  Kernel::trace: the body, the module and its PTX text
#include <benchmark/benchmark.h>

#include <chrono>

#include <ptxpp/dsl.hpp>

namespace {

using namespace ptx::types;
namespace inst = ptx::inst;

constexpr int kUnroll = 1 << 14;  // loop iterations; 8 instructions each

// An unrolled FMA/ALU chain like a GEMM inner loop: typed inst calls and operators.
void body(ptx::Tensor x, double& seconds, size_t& emitted) {
  const auto start = std::chrono::steady_clock::now();
  ptx::Reg p = x.global_ptr();
  ptx::RegArray acc(f32, 8, "acc");
  ptx::Reg a(f32), b(f32), i(u32);
  for (int k = 0; k < kUnroll; ++k) {
    inst::ld.global.f32(a, ptx::addr(p, 4 * (k % 64)));
    inst::ld.global.f32(b, ptx::addr(p, 4 * (k % 64) + 256));
    inst::fma.rn.f32(acc[k % 8], a, b, acc[k % 8]);
    inst::fma.rn.f32(acc[(k + 1) % 8], a, a, acc[(k + 1) % 8]);
    acc[(k + 2) % 8] = acc[(k + 2) % 8] + b;
    i += 1;
    inst::mad.lo.u32(i, i, i, 3u);
    inst::max.f32(a, a, b);
  }
  ptx::ret();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emitted = static_cast<size_t>(kUnroll) * 8 + 3;
}

void run(benchmark::State& state, bool validate, bool count_print) {
  int64_t instructions = 0;
  double body_seconds = 0;
  int64_t n = 0;
  for (auto _ : state) {
    double seconds = 0;
    size_t emitted = 0;
    auto k = ptx::kernel("unrolled").in(ptx::tensor(f32, {1024})).arch("sm_90a").validate(validate).body(
        [&](ptx::Tensor x) { body(x, seconds, emitted); });
    auto t = k.trace({{"run", ++n}});
    benchmark::DoNotOptimize(t);
    instructions += static_cast<int64_t>(emitted);
    body_seconds += seconds;
    if (!count_print) state.SetIterationTime(seconds);
  }
  state.SetItemsProcessed(instructions);
  state.counters["body_instr_per_s"] = benchmark::Counter(static_cast<double>(instructions) / body_seconds);
}

void BM_TraceBody(benchmark::State& state) { run(state, true, false); }
void BM_TraceBodyNoCheck(benchmark::State& state) { run(state, false, false); }
void BM_TraceAndPrint(benchmark::State& state) { run(state, true, true); }

BENCHMARK(BM_TraceBody)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_TraceBodyNoCheck)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_TraceAndPrint)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
