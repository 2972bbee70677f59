// Throughput of the text layer on the PTX corpus: parse, exact print, canonical
// print, and parse + exact print together (the figure docs/design.md targets), plus
// the peak heap in use while a file is parsed and printed, per byte of input.
//
//   parse_print_bench [--corpus DIR]... [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"

// ---- heap accounting: live and peak bytes of every allocation in this process ----
namespace {
size_t g_live = 0, g_peak = 0;
}
void* operator new(size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  g_live += n;
  g_peak = std::max(g_peak, g_live);
  return static_cast<char*>(p) + 16;
}
void operator delete(void* p) noexcept {
  if (!p) return;
  char* base = static_cast<char*>(p) - 16;
  g_live -= *reinterpret_cast<size_t*>(base);
  std::free(base);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void* operator new[](size_t n) { return operator new(n); }
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }

namespace {

ptx::bench::Corpus& corpus() {
  static ptx::bench::Corpus c;
  return c;
}

void BM_Parse(benchmark::State& state) {
  for (auto _ : state)
    for (const auto& f : corpus().files) {
      auto r = ptx::text::parse(f);
      benchmark::DoNotOptimize(r);
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus().bytes));
}

void BM_Print(benchmark::State& state, ptx::text::PrintMode mode) {
  std::vector<ptx::ir::Module> modules;
  for (const auto& f : corpus().files) modules.push_back(ptx::text::parse_or_throw(f));
  std::string out;
  for (auto _ : state)
    for (const auto& m : modules) {
      out.clear();
      ptx::text::print(m, out, mode);
      benchmark::DoNotOptimize(out.data());
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus().bytes));
}

// The docs/design.md figure: parse + exact print, single thread.
void BM_ParseExactPrint(benchmark::State& state) {
  std::string out;
  for (auto _ : state)
    for (const auto& f : corpus().files) {
      auto m = ptx::text::parse_or_throw(f);
      out.clear();
      ptx::text::print(m, out);
      if (out.size() != f.size()) state.SkipWithError("round trip changed the size");
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus().bytes));
}

// Peak heap while one file is parsed and printed (module and output alive), per input byte.
void BM_PeakMemory(benchmark::State& state) {
  double worst = 0, total_peak = 0;
  for (auto _ : state) {
    worst = total_peak = 0;
    for (const auto& f : corpus().files) {
      const size_t base = g_live;
      g_peak = g_live;
      {
        auto m = ptx::text::parse_or_throw(f);
        std::string out = ptx::text::print(m);
        benchmark::DoNotOptimize(out.data());
      }
      const double peak = static_cast<double>(g_peak - base);
      total_peak += peak;
      worst = std::max(worst, peak / static_cast<double>(std::max<size_t>(f.size(), 1)));
    }
  }
  state.counters["peak_bytes_per_input_byte"] = total_peak / static_cast<double>(corpus().bytes);
  state.counters["worst_file_peak_bytes_per_input_byte"] = worst;
  state.counters["corpus_bytes"] = static_cast<double>(corpus().bytes);
  state.counters["corpus_files"] = static_cast<double>(corpus().files.size());
}

}  // namespace

int main(int argc, char** argv) {
  const auto dirs = ptx::bench::corpus_dirs_from_args(argc, argv);
  corpus() = ptx::bench::load_corpus(dirs);
  if (corpus().files.empty()) {
    std::cerr << "parse_print_bench: no .ptx files under " << ptx::bench::describe(dirs) << "\n";
    return 1;
  }
  std::cerr << "corpus: " << corpus().files.size() << " files, " << corpus().bytes << " bytes from " << ptx::bench::describe(dirs) << "\n";
  benchmark::RegisterBenchmark("parse", BM_Parse)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("print_exact", BM_Print, ptx::text::PrintMode::Exact)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("print_canonical", BM_Print, ptx::text::PrintMode::Canonical)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("parse_exact_print", BM_ParseExactPrint)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("peak_memory", BM_PeakMemory)->Iterations(1)->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
