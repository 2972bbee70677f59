// Every kernel of the PTX corpus (tests/corpus) through the emulator with zeroed
// arguments: each decodes and runs, or is reported through emu::Error; and at
// least as many decode as when this test was written (a ratchet).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "emulator_property.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/text/parser.hpp"

namespace {

TEST(EmuCorpus, EveryKernelRunsOrIsReported) {
  size_t files = 0, kernels = 0, decoded = 0;
  std::ostringstream undecoded;  // printed, so that the log says what the emulator lacks
  for (const auto& e : std::filesystem::recursive_directory_iterator(PTXPP_CORPUS_DIR)) {
    if (e.path().extension() != ".ptx") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ptx::fuzz::check_emulator_property(ss.str()), "") << e.path();
    auto r = ptx::text::parse(ss.str());
    ASSERT_TRUE(bool(r)) << e.path();
    const auto& m = r.module();
    for (const auto& f : m.functions) {
      bool entry = false;
      for (const auto& s : m.specs_of(f.specs)) entry = entry || m.text(s.word) == ".entry";
      if (!entry || !f.has_body()) continue;
      ++kernels;
      try {
        ptx::emu::Emulator::parameter_sizes(m, m.text(f.name));
        ++decoded;
      } catch (const ptx::emu::Error& err) {
        undecoded << "  " << std::filesystem::relative(e.path(), PTXPP_CORPUS_DIR).string() << " "
                  << m.text(f.name).substr(0, 40) << ": " << std::string(err.what()).substr(0, 160) << "\n";
      }
    }
    ++files;
  }
  EXPECT_GT(files, 90u);
  EXPECT_GE(decoded, 713u) << "of " << kernels << " kernels";
  std::printf("%zu of %zu corpus kernels decode; the others:\n%s", decoded, kernels, undecoded.str().c_str());
}

}  // namespace
