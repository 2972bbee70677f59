// What the fuzzer checks of the emulator on any module the parser accepts: every
// kernel either decodes and runs (zeroed arguments, one small CTA, a step budget)
// or is reported through emu::Error; nothing else escapes (no crash, no hang, no
// other exception; ASan/UBSan watch the rest).
#pragma once

#include <string>
#include <string_view>

#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/text/parser.hpp"

namespace ptx::fuzz {

inline std::string check_emulator_property(std::string_view text) {
  auto r = text::parse(text);
  if (!r) return {};
  const ir::Module& m = r.module();
  for (const ir::Function& f : m.functions) {
    if (!f.has_body()) continue;
    bool entry = false;
    for (const ir::Spec& s : m.specs_of(f.specs)) entry = entry || m.text(s.word) == ".entry";
    if (!entry) continue;
    try {
      emu::Options o;
      o.threads = 1;
      o.max_steps = 20000;
      emu::Emulator e(o);
      std::vector<emu::Arg> args;
      for (uint32_t size : emu::Emulator::parameter_sizes(m, m.text(f.name))) args.push_back(emu::Arg{std::vector<uint8_t>(size, 0)});
      emu::LaunchConfig cfg;
      cfg.block = {32, 1, 1};
      e.launch(m, m.text(f.name), cfg, args);
    } catch (const emu::Error&) {
      // a report: fine
    } catch (const std::exception& ex) {
      return std::string("the emulator threw something other than emu::Error: ") + ex.what();
    }
  }
  return {};
}

}  // namespace ptx::fuzz
