// Transpiler throughput on the corpus: PTX -> ptxpp C++, plain and with --sugar,
// next to parsing the same text in the same run. clang-format (which the CLI
// runs afterwards) is not part of this: it is a separate program.
//
//   transpile_bench [--corpus DIR] [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <iostream>

#include "corpus.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/transpile/transpile.hpp"

namespace {

ptx::bench::Corpus g_corpus;

void BM_Parse(benchmark::State& state) {
  for (auto _ : state)
    for (const auto& f : g_corpus.files) {
      auto r = ptx::text::parse(f);
      benchmark::DoNotOptimize(r);
    }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * g_corpus.bytes));
}

void BM_Transpile(benchmark::State& state, bool sugar) {
  std::vector<ptx::ir::Module> modules;
  for (const auto& f : g_corpus.files) modules.push_back(ptx::text::parse_or_throw(f));
  ptx::transpile::Options o;
  o.sugar = sugar;
  size_t cpp_bytes = 0;
  for (auto _ : state) {
    cpp_bytes = 0;
    for (size_t i = 0; i < modules.size(); ++i) cpp_bytes += ptx::transpile::to_cpp(modules[i], g_corpus.files[i], o).size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * g_corpus.bytes));  // PTX bytes in
  state.counters["files"] = static_cast<double>(modules.size());
  state.counters["ptx_bytes"] = static_cast<double>(g_corpus.bytes);
  state.counters["cpp_bytes"] = static_cast<double>(cpp_bytes);
}

}  // namespace

int main(int argc, char** argv) {
  const auto dirs = ptx::bench::corpus_dirs_from_args(argc, argv);
  g_corpus = ptx::bench::load_corpus(dirs);
  if (g_corpus.files.empty()) {
    std::cerr << "transpile_bench: no .ptx files under " << ptx::bench::describe(dirs) << "\n";
    return 1;
  }
  benchmark::RegisterBenchmark("parse", BM_Parse)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("transpile", BM_Transpile, false)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("transpile_sugar", BM_Transpile, true)->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
