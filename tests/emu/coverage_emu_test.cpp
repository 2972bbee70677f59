// The emulator's coverage list (ptx::emu::emulator_coverage, `ptxpp spec --coverage --emulator`):
// every form of the ISA table has sample instructions and a verdict, from the decoder itself.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ptxpp/emu/coverage.hpp"
#include "ptxpp/spec/isa.hpp"

namespace {

const std::vector<ptx::emu::FormCoverage>& coverage() {
  static const auto c = ptx::emu::emulator_coverage();
  return c;
}

const ptx::emu::FormCoverage& of(std::string_view syntax) {
  for (const auto& c : coverage())
    if (ptx::spec::forms()[c.form].syntax == syntax) return c;
  throw std::runtime_error("no form " + std::string(syntax));
}

TEST(EmuCoverage, EveryFormOfTheTableHasSamplesAndAVerdict) {
  ASSERT_EQ(coverage().size(), ptx::spec::forms().size());
  for (const auto& c : coverage()) {
    EXPECT_GT(c.samples, 0u) << ptx::spec::forms()[c.form].syntax;
    EXPECT_EQ(c.runs(), c.reason.empty()) << ptx::spec::forms()[c.form].syntax;
  }
}

TEST(EmuCoverage, VerdictsComeFromTheDecoder) {
  EXPECT_TRUE(of("add.type d, a, b").runs());
  EXPECT_TRUE(of("vote.sync.mode.pred d, a, membermask").runs());
  const auto& grad = of("tex.grad.geom.v4.dtype.ctype d{|p}, [a, {b,} c], dPdx, dPdy{, e}{, f}");
  EXPECT_FALSE(grad.runs());
  EXPECT_NE(grad.reason.find("tex.grad"), std::string::npos) << grad.reason;
}

// A sample the table accepts but the decoder calls malformed (not merely unsupported) is a bug in
// one of them (tex.level with its depth-compare operand was one: 5 operands refused).
TEST(EmuCoverage, DecoderRefusesNoSampleOfTheTable) {
  for (const auto& c : coverage())
    EXPECT_NE(c.reason.rfind("refused: ", 0), 0u) << ptx::spec::forms()[c.form].syntax << ": " << c.reason;
}

// docs/emulator.md quotes the summary line; it changes with the table or the emulator.
TEST(EmuCoverage, TheDocsQuoteTheCurrentSummary) {
  size_t runs = 0, partly = 0;
  for (const auto& c : coverage()) runs += c.runs(), partly += c.partly();
  const std::string line = "the emulator runs " + std::to_string(runs) + " of " + std::to_string(coverage().size()) + " forms, " +
                           std::to_string(partly) + " more in part, " + std::to_string(coverage().size() - runs - partly) +
                           " not at all";
  std::ifstream in(PTXPP_DOCS_DIR "/emulator.md");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find(line), std::string::npos) << "docs/emulator.md should quote: " << line;
}

}  // namespace
