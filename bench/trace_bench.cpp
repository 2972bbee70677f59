// DSL tracing throughput (docs/design.md: >= 20 M instructions/s with validation on):
// a large unrolled kernel, one instruction per call, each checked against the ISA
// table and the target as it is emitted.
//
//   trace_bench [google-benchmark flags]
// Counters: instr/s (items_per_second, wall clock) and body_instr_per_cpu_s (the
// thread's CPU time, so a loaded machine does not hide the per-core rate) for
//   BM_TraceBody      the body alone (DSL calls -> IR), validation on
//   BM_TraceBodyNoCheck  the same with Kernel::validate(false)
//   BM_TraceAndPrint  Kernel::trace: the body, the module and its PTX text
#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>

#include <ptxpp/dsl.hpp>

namespace {

using namespace ptx::types;
namespace inst = ptx::inst;

constexpr int kUnroll = 1 << 14;  // loop iterations; 8 instructions each

// An unrolled FMA/ALU chain like a GEMM inner loop: typed inst calls and operators.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void body(ptx::Tensor x, double& seconds, double& cpu_seconds, size_t& emitted) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
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
  cpu_seconds = thread_cpu_seconds() - cpu_start;
  emitted = static_cast<size_t>(kUnroll) * 8 + 3;
}

void run(benchmark::State& state, bool validate, bool count_print) {
  int64_t instructions = 0;
  double body_seconds = 0, body_cpu_seconds = 0;
  int64_t n = 0;
  for (auto _ : state) {
    double seconds = 0, cpu_seconds = 0;
    size_t emitted = 0;
    auto k = ptx::kernel("unrolled").in(ptx::tensor(f32, {1024})).arch("sm_90a").validate(validate).body(
        [&](ptx::Tensor x) { body(x, seconds, cpu_seconds, emitted); });
    auto t = k.trace({{"run", ++n}});
    benchmark::DoNotOptimize(t);
    instructions += static_cast<int64_t>(emitted);
    body_seconds += seconds;
    body_cpu_seconds += cpu_seconds;
    if (!count_print) state.SetIterationTime(seconds);
  }
  state.SetItemsProcessed(instructions);
  state.counters["body_instr_per_s"] = benchmark::Counter(static_cast<double>(instructions) / body_seconds);
  state.counters["body_instr_per_cpu_s"] = benchmark::Counter(static_cast<double>(instructions) / body_cpu_seconds);
}

void BM_TraceBody(benchmark::State& state) { run(state, true, false); }
void BM_TraceBodyNoCheck(benchmark::State& state) { run(state, false, false); }
void BM_TraceAndPrint(benchmark::State& state) { run(state, true, true); }

// A tuning sweep: 200 variants of a row kernel (different unroll factors and shapes),
// each traced and printed. Reports variants/s.
void BM_TuningSweep(benchmark::State& state) {
  int64_t variants = 0, n = 0;
  for (auto _ : state) {
    for (int v = 0; v < 200; ++v) {
      const int unroll = 1 + v % 8;
      auto k = ptx::kernel("row").in(ptx::tensor(f32, {"M", "N"})).out(ptx::tensor(f32, {"M", "N"})).arch("sm_90a").body(
          [unroll](ptx::Tensor x, ptx::Tensor y) {
            ptx::Reg px = x.global_ptr(), py = y.global_ptr();
            ptx::Reg lane = ptx::read(ptx::special::tid.x(), u32);
            ptx::Reg off = lane * 4;
            ptx::Reg ax = px + off, ay = py + off;
            ptx::RegArray r(f32, static_cast<uint32_t>(unroll), "v");
            for (int i = 0; i < unroll; ++i) inst::ld.global.f32(r[static_cast<size_t>(i)], ptx::addr(ax, 128 * i));
            for (int i = 0; i < unroll; ++i) r[static_cast<size_t>(i)] = r[static_cast<size_t>(i)] * 2.0f;
            for (int i = 0; i < unroll; ++i) inst::st.global.f32(ptx::addr(ay, 128 * i), r[static_cast<size_t>(i)]);
            ptx::ret();
          });
      auto t = k.trace({{"M", 64}, {"N", 32 * (++n % 64 + 1)}});
      benchmark::DoNotOptimize(t);
      ++variants;
    }
  }
  state.SetItemsProcessed(variants);
}

BENCHMARK(BM_TuningSweep)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TraceBody)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_TraceBodyNoCheck)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_TraceAndPrint)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
