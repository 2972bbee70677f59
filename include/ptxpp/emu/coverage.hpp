// Which forms of the ISA table the emulator runs: its decoder is run on sample instructions of
// every form (spec/gen/gen_emu_samples.py picks, from the validator's samples, ones that show
// every modifier value and operand kind), so a form added to the table is listed as not run
// until the emulator handles it. `ptxpp spec --coverage --emulator` prints it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptx::emu {

struct FormCoverage {
  uint32_t form = 0;     // index in spec::forms()
  uint32_t samples = 0;  // sample instructions of the form
  uint32_t decoded = 0;  // those the emulator decodes, and so runs
  std::string reason;    // why the first refused sample is refused; empty when all decode

  bool runs() const { return samples != 0 && decoded == samples; }
  bool partly() const { return decoded != 0 && decoded < samples; }
};

// One entry per form of spec::forms(), in that order.
std::vector<FormCoverage> emulator_coverage();

}  // namespace ptx::emu
