// Cost of validating the corpus against the ISA table, next to the cost of
// parsing it, in the same run (docs/design.md: validation costs no more than parsing).
//
//   validate_bench [--corpus DIR] [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <iostream>

#include "corpus.hpp"
#include "ptxpp/spec/validator.hpp"
#include "ptxpp/text/parser.hpp"

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

void BM_Validate(benchmark::State& state) {
  std::vector<ptx::ir::Module> modules;
  for (const auto& f : g_corpus.files) modules.push_back(ptx::text::parse_or_throw(f));
  size_t diagnostics = 0;
  for (auto _ : state) {
    diagnostics = 0;
    for (const auto& m : modules) diagnostics += ptx::spec::check(m).size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * g_corpus.bytes));
  size_t instructions = 0;
  for (const auto& m : modules) instructions += m.instructions.size();
  state.counters["instructions"] = static_cast<double>(instructions);
  state.counters["diagnostics"] = static_cast<double>(diagnostics);
}

}  // namespace

int main(int argc, char** argv) {
  const auto dirs = ptx::bench::corpus_dirs_from_args(argc, argv);
  g_corpus = ptx::bench::load_corpus(dirs);
  if (g_corpus.files.empty()) {
    std::cerr << "validate_bench: no .ptx files under " << ptx::bench::describe(dirs) << "\n";
    return 1;
  }
  benchmark::RegisterBenchmark("parse", BM_Parse)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("validate", BM_Validate)->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
