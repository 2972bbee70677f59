// Cost of turning N error offsets into `file:line:col` diagnostics, as
// `ptxpp check` does for a file with one error a line: with a LineIndex built
// once (a binary search each) against text::locate per error (a count from the
// start each: quadratic in N).
//
//   diagnostic_bench [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <iostream>
#include <string>
#include <vector>

#include "ptxpp/text/diagnostic.hpp"

namespace {

constexpr const char* kLine = "\tadd.u32 %r1, %r1, %undeclared;\n";
constexpr size_t kColumn = 19;  // of %undeclared

// A kernel body of n lines, each with an error, and the errors' offsets.
struct Input {
  std::string text;
  std::vector<size_t> offsets;
};

Input make_input(size_t n) {
  Input in;
  in.text = ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n";
  in.offsets.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    in.offsets.push_back(in.text.size() + kColumn);
    in.text += kLine;
  }
  in.text += "\tret;\n}\n";
  return in;
}

void BM_LineIndex(benchmark::State& state) {
  const Input in = make_input(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    const ptx::text::LineIndex lines(in.text);
    size_t bytes = 0;
    for (size_t off : in.offsets) bytes += lines.locate("e.ptx", off, "undeclared register").format().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.offsets.size()));
  state.counters["errors"] = static_cast<double>(in.offsets.size());
}

void BM_LocateEach(benchmark::State& state) {
  const Input in = make_input(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    size_t bytes = 0;
    for (size_t off : in.offsets)
      bytes += ptx::text::locate("e.ptx", in.text, off, "undeclared register").format().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.offsets.size()));
  state.counters["errors"] = static_cast<double>(in.offsets.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::cerr
      << "diagnostic_bench: time to locate and format N errors, one a line, in a generated PTX file;\n"
         "  line_index = text::LineIndex built once (what `ptxpp check` does), locate_each = text::locate per error\n";
  benchmark::RegisterBenchmark("line_index", BM_LineIndex)
      ->RangeMultiplier(10)
      ->Range(1000, 200000)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("locate_each", BM_LocateEach)
      ->RangeMultiplier(10)
      ->Range(1000, 10000)
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
