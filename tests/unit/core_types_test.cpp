// The library's shared basic types (include/ptxpp/core): one type each, named the
// same from every layer.
#include <gtest/gtest.h>

#include <type_traits>

#include "ptxpp/core/diagnostic.hpp"
#include "ptxpp/core/dim3.hpp"
#include "ptxpp/core/ptx_version.hpp"
#include "ptxpp/core/target.hpp"
#include "ptxpp/core/type_class.hpp"
#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/dsl/types.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/spec/validator.hpp"
#include "ptxpp/text/diagnostic.hpp"

namespace {

// The old names are aliases of the shared types, so values pass between layers unconverted.
static_assert(std::is_same_v<ptx::emu::Dim3, ptx::Dim3>);
static_assert(std::is_same_v<ptx::ir::PtxVersion, ptx::PtxVersion>);
static_assert(std::is_same_v<ptx::spec::PtxIsaVersion, ptx::PtxVersion>);
static_assert(std::is_same_v<ptx::spec::PtxVersionReq, ptx::PtxVersion>);
static_assert(std::is_same_v<ptx::spec::Target, ptx::Target>);
static_assert(std::is_same_v<ptx::spec::Diagnostic, ptx::Diagnostic>);
static_assert(std::is_same_v<ptx::text::Diagnostic, ptx::Diagnostic>);
static_assert(std::is_same_v<ptx::spec::Severity, ptx::Severity>);
static_assert(std::is_same_v<decltype(ptx::Traced::ptx_version), ptx::PtxVersion>);
// One class enum: the DSL's register types and the validator's type rules (src/spec/type_rules.hpp
// names ptx::TypeClass too).
static_assert(std::is_same_v<decltype(ptx::TypeFacts::cls), ptx::TypeClass>);

TEST(PtxVersion, ParsesMajorDotMinorOnly) {
  EXPECT_EQ(ptx::PtxVersion::parse("8.7"), (ptx::PtxVersion{8, 7}));
  EXPECT_EQ(ptx::PtxVersion::parse("10.0"), (ptx::PtxVersion{10, 0}));
  EXPECT_FALSE(ptx::PtxVersion::parse("8"));
  EXPECT_FALSE(ptx::PtxVersion::parse("8.7.1"));
  EXPECT_FALSE(ptx::PtxVersion::parse("8x.7"));
  EXPECT_FALSE(ptx::PtxVersion::parse("-8.7"));
  EXPECT_FALSE(ptx::PtxVersion::parse(".7"));
}

TEST(PtxVersion, OrdersByMajorThenMinor) {
  EXPECT_LT((ptx::PtxVersion{7, 8}), (ptx::PtxVersion{8, 0}));
  EXPECT_LT((ptx::PtxVersion{8, 0}), (ptx::PtxVersion{8, 10}));
  EXPECT_EQ((ptx::PtxVersion{8, 7}).str(), "8.7");
}

TEST(Target, ParsesAndNames) {
  EXPECT_EQ(ptx::Target::parse("sm_90a"), (ptx::Target{90, 'a'}));
  EXPECT_EQ(ptx::Target::parse("sm_100f"), (ptx::Target{100, 'f'}));
  EXPECT_EQ(ptx::Target::parse("sm_80")->name(), "sm_80");
  EXPECT_FALSE(ptx::Target::parse("sm_90b"));
  EXPECT_FALSE(ptx::Target::parse("compute_90"));
  EXPECT_FALSE(ptx::Target::parse("sm_"));
}

TEST(Dim3, DefaultsToOneAndConvertsFromANumber) {
  const ptx::Dim3 d = 256;
  EXPECT_EQ(d, (ptx::Dim3{256, 1, 1}));
  EXPECT_EQ(ptx::Dim3{}, (ptx::Dim3{1, 1, 1}));
}

TEST(Diagnostic, FormatsItsSeverity) {
  ptx::Diagnostic d = ptx::text::locate("k.ptx", "add.u32 r;\n", 4, "bad");
  EXPECT_EQ(d.offset, 4u);
  EXPECT_EQ(d.format(), "k.ptx:1:5: error: bad\nadd.u32 r;\n    ^");
  d.severity = ptx::Severity::Warning;
  EXPECT_EQ(d.format(), "k.ptx:1:5: warning: bad\nadd.u32 r;\n    ^");
}

}  // namespace
