// What the emulator fuzzer checks of each generated case: the module parses and validates (the
// generator writes valid PTX), and its launch, under small limits, either completes or is reported
// through emu::Error (ConfigError included). Nothing else may escape; ASan/UBSan and libFuzzer's
// -timeout watch for crashes, memory errors and hangs.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "emu_case.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/text/parser.hpp"

namespace ptx::fuzz {

// Small limits, so that a kernel that recurses, allocates or loops without end is reported quickly.
inline emu::Options fuzz_options(const EmuCase& c) {
  emu::Options o;
  o.check_shared_init = o.check_races = !c.lenient;
  o.threads = 1;
  o.max_steps = 20000;
  o.max_stack_bytes = 64u << 10;
  o.max_launch_memory = 64u << 20;
  return o;
}

inline uint64_t resolve(const PointerArg& p, const std::vector<uint64_t>& bases) {
  return p.buffer < 0 ? p.offset : bases[static_cast<size_t>(p.buffer)] + p.offset;
}

// Makes the buffers and launches the case on `e`; emu::Error propagates.
inline void launch_case(emu::Emulator& e, const ir::Module& m, const EmuCase& c) {
  std::vector<uint64_t> bases;
  for (const Buffer& b : c.buffers) bases.push_back(e.memory().alloc(b.bytes, "buf" + std::to_string(bases.size())));
  for (size_t i = 0; i < c.buffers.size(); ++i)
    if (c.buffers[i].freed) e.memory().free(bases[i]);
  const std::vector<emu::Arg> args = {emu::Arg::pointer(resolve(c.buf0, bases)),
                                      emu::Arg::pointer(resolve(c.buf1, bases)), emu::Arg::u64(c.off),
                                      emu::Arg::u32(c.n)};
  e.launch(m, "k", c.config, args);
}

// "" when the property holds, else what went wrong.
inline std::string check_launch_property(const EmuCase& c) {
  auto parsed = text::parse(c.ptx);
  if (!parsed) return "the generated module does not parse: " + parsed.error().format();
  try {
    emu::Emulator::require_valid(parsed.module(), "k");
  } catch (const emu::Error& e) {
    return std::string("the validator refuses the generated module: ") + e.what();
  }
  try {
    emu::Emulator e(fuzz_options(c));
    launch_case(e, parsed.module(), c);
  } catch (const emu::Error&) {
    // a report: fine
  } catch (const std::exception& e) {
    return std::string("the emulator threw something other than emu::Error: ") + e.what();
  } catch (...) {
    return "the emulator threw something that is not a std::exception";
  }
  return {};
}

}  // namespace ptx::fuzz
