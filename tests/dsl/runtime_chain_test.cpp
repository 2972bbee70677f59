// ptx::dsl::RuntimeChain: how the library's helpers spell instructions whose modifiers depend on
// values. The fixed part is a chain of ptx::inst (checked when compiled; compile_fail case 5);
// each modifier added at run time is checked against the ISA table's chains when it is added.
#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

using dsl::RuntimeChain;

TEST(RuntimeChain, SpellsWhatTheCompileTimeChainSpells) {
  auto fixed = trace_body([] {
    Reg p = read(special::tid.x(), u32);
    Reg r(u32);
    inst::ld.shared.u32(r, addr(p));
    inst::ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16(vec(r, p), addr(p));
  });
  auto built = trace_body([] {
    Reg p = read(special::tid.x(), u32);
    Reg r(u32);
    RuntimeChain(inst::ld.shared).then(name(u32))(r, addr(p));
    RuntimeChain(inst::ldmatrix.sync.aligned.m8n8).then(".x2").then_if(true, ".trans").then(".shared.b16")(vec(r, p), addr(p));
  });
  EXPECT_EQ(built->ptx, fixed->ptx);
  EXPECT_NE(built->ptx.find("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"), std::string::npos);
}

TEST(RuntimeChain, MisspelledModifierIsTheTablesError) {
  // a shape the table does not have: the error names the ones it has
  const std::string shape = thrown_by([] { RuntimeChain(inst::ldmatrix.sync.aligned.m8n8).then(".x3"); });
  EXPECT_NE(shape.find("runtime_chain_test.cpp:"), std::string::npos) << shape;  // the line that added it
  EXPECT_NE(shape.find("'.x3' does not follow 'ldmatrix.sync.aligned.m8n8' in the ISA table; it goes on with .x1, .x2, .x4"),
            std::string::npos)
      << shape;
  // a misspelled type, and modifiers out of the manual's order
  EXPECT_NE(thrown_by([] { RuntimeChain(inst::ld.param).then(".f33"); }).find("'.f33' does not follow 'ld.param'"), std::string::npos);
  EXPECT_NE(thrown_by([] { RuntimeChain(inst::ld).then(".f32.global"); }).find("'.global' does not follow 'ld.f32'"),
            std::string::npos);
  // not a modifier at all
  EXPECT_NE(thrown_by([] { RuntimeChain(inst::add).then("u32"); }).find("'u32' does not follow 'add'"), std::string::npos);
  // a tensor rank past the table's 5
  EXPECT_NE(thrown_by([] { RuntimeChain(inst::cp.async.bulk.tensor).then(".6d"); }).find(".1d, .2d, .3d, .4d, .5d"),
            std::string::npos);
}

TEST(RuntimeChain, IncompleteChainIsAnErrorAtTheCall) {
  const std::string e = error_of([] {
    Reg p = read(special::tid.x(), u32);
    Reg r(u32);
    RuntimeChain(inst::ld.param)(r, addr(p));
  });
  EXPECT_NE(e.find("'ld.param' is not a complete instruction of the ISA table; it goes on with"), std::string::npos) << e;
  EXPECT_NE(e.find("runtime_chain_test.cpp"), std::string::npos) << e;
}

}  // namespace
}  // namespace ptx::test
