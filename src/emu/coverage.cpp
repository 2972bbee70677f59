#include "ptxpp/emu/coverage.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "program.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/spec/isa.hpp"
#include "ptxpp/text/parser.hpp"

namespace ptx::emu {

namespace {

struct EmuSample {
  uint32_t form;
  bool independent;  // a .samplerref sample: the module is texmode_independent
  const char* text;  // (not a string_view: measuring 5,000 literals at compile time exceeds clang's constexpr step limit)
};

#include "emu_samples.inc"

// A module with one kernel per sample (s0, s1, ...), in the context gen_samples.py gives them.
std::string module_of(std::span<const EmuSample> samples) {
  std::string text = fmt::format(".version 9.0\n.target sm_100a{}\n.address_size 64\n\n{}",
                                 samples[0].independent ? ", texmode_independent" : "", kSampleModuleDecls);
  if (samples[0].independent) text += ".global .samplerref sample_smp;\n";
  for (size_t i = 0; i < samples.size(); ++i)
    text += fmt::format("\n.visible .entry s{}(.param .u64 sample_param)\n{{\n{}\t{};\n$L_sample_end:\n\tret;\n}}\n", i,
                        kSampleKernelDecls, samples[i].text);
  return text;
}

// A decoder report without the sample kernel's name and the sample's text: what is refused.
std::string tidy(std::string_view report) {
  if (report.starts_with("kernel s")) report.remove_prefix(std::min(report.size(), report.find(": ") + 2));
  return std::string(report.substr(0, report.find(" (at '")));
}

// Decodes each sample's kernel; counts those that decode and keeps the first refusal.
void probe(std::span<const EmuSample> samples, FormCoverage& c) {
  const ir::Module m = text::parse_or_throw(module_of(samples));
  for (size_t i = 0; i < samples.size(); ++i) {
    Memory memory;
    try {
      decode(m, fmt::format("s{}", i), memory);
      ++c.decoded;
    } catch (const Unsupported& e) {
      if (c.reason.empty()) c.reason = tidy(e.what());
    } catch (const Error& e) {
      if (c.reason.empty()) c.reason = "refused: " + tidy(e.what());
    }
  }
}

}  // namespace

std::vector<FormCoverage> emulator_coverage() {
  std::vector<FormCoverage> out(spec::forms().size());
  for (uint32_t i = 0; i < out.size(); ++i) out[i].form = i;
  const std::span<const EmuSample> all(kEmuSamples);
  for (size_t first = 0; first < all.size();) {
    size_t last = first;
    while (last < all.size() && all[last].form == all[first].form && all[last].independent == all[first].independent) ++last;
    FormCoverage& c = out.at(all[first].form);
    c.samples += static_cast<uint32_t>(last - first);
    probe(all.subspan(first, last - first), c);
    first = last;
  }
  return out;
}

}  // namespace ptx::emu
