// The validator: module header, symbols and scopes, labels, modifiers,
// operands and requirements, with every problem reported at its location.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ptxpp/spec/decoded.hpp"
#include "ptxpp/spec/validator.hpp"
#include "test_util.hpp"

using ptx::spec::Diagnostic;
using ptx::spec::Severity;

namespace {

struct Found {
  uint32_t line, column;
  Severity severity;
  std::string message;
};

std::vector<Found> check(const std::string& text, const ptx::spec::CheckOptions& opts = {}) {
  auto m = ptx::test::parse_ok(text);
  std::vector<Found> out;
  for (const Diagnostic& d : ptx::spec::check(m, opts)) {
    const auto lc = m.source.locate(d.offset);
    out.push_back({lc.line, lc.column, d.severity, d.message});
  }
  return out;
}

std::vector<Found> errors(const std::string& text, const ptx::spec::CheckOptions& opts = {}) {
  std::vector<Found> out;
  for (const Found& f : check(text, opts))
    if (f.severity == Severity::Error) out.push_back(f);
  return out;
}

std::string dump(const std::vector<Found>& fs) {
  std::string s;
  for (const Found& f : fs) s += std::to_string(f.line) + ":" + std::to_string(f.column) + ": " + f.message + "\n";
  return s;
}

const std::string kHead = ".version 9.0\n.target sm_90a\n.address_size 64\n";  // lines 1-3

std::string kernel(const std::string& body) {
  return kHead + ".visible .entry k(.param .u64 p)\n{\n"  // lines 4-5
         "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<4>;\n\t.reg .pred %p<3>;\n"  // lines 6-9
         + body + "\n}\n";  // body from line 10
}

TEST(Validator, CleanKernelHasNoDiagnostics) {
  const auto fs = check(kernel("\tadd.u32 %r1, %r2, 7;\n$L1:\n\t@!%p1 bra $L1;\n\tret;"));
  EXPECT_TRUE(fs.empty()) << dump(fs);
}

// check_and_decode keeps what the validator matched: the form, each group's value in the
// generated vocabulary, the operands written, and whether the requirements hold.
TEST(Validator, DecodedInstructionsAreWhatTheValidatorMatched) {
  auto m = ptx::test::parse_ok(kernel("\tadd.rn.ftz.f32 %f1, %f2, %f3;\n\tfoo %r1;\n"
                                      "\tatom.global.cas.b32 %r1, [%rd1], %r2, %r3;\n"
                                      "\tld.global.relaxed.gpu.v2.u32 {%r1, %r2}, [%rd1+8];\n\tret;"));
  const ptx::spec::CheckedModule c = ptx::spec::check_and_decode(m);
  ASSERT_EQ(c.diagnostics.size(), 1u);  // foo: unknown instruction
  EXPECT_EQ(c.diagnostics[0].message, "unknown instruction 'foo'");
  ASSERT_EQ(c.instructions.size(), 4u);  // add, atom, ld, ret
  EXPECT_EQ(c.find(1), nullptr);         // foo
  const ptx::spec::DecodedInstruction& add = c.instructions[0];
  EXPECT_EQ(add.instruction, 0u);
  EXPECT_EQ(add.decoded->opcode, ptx::spec::Opcode::add);
  EXPECT_EQ(add.decoded->mods, (std::vector<ptx::spec::Mod>{ptx::spec::Mod::rn, ptx::spec::Mod::ftz, ptx::spec::Mod::f32}));
  EXPECT_EQ(add.fit->form->opcode, "add");
  ASSERT_NE(add.fit->chosen(".rnd"), nullptr);
  EXPECT_EQ(add.fit->chosen(".rnd")->text, ".rn");
  EXPECT_EQ(add.fit->chosen(".sat"), nullptr);
  EXPECT_EQ(add.fit->order, ptx::spec::ModifierOrder::Manual);
  ASSERT_EQ(add.operands.size(), 3u);
  EXPECT_EQ(add.operands[0]->name, "d");
  EXPECT_TRUE(add.requirements_met);
  const ptx::spec::DecodedInstruction* cas = c.find(2);
  ASSERT_NE(cas, nullptr);
  ASSERT_EQ(cas->operands.size(), 4u);  // cas's form: d, [a], b, c
  EXPECT_EQ(cas->operands[3]->name, "c");
  const ptx::spec::DecodedInstruction* ld = c.find(3);
  ASSERT_NE(ld, nullptr);
  EXPECT_EQ(ld->fit->order, ptx::spec::ModifierOrder::Reordered);  // .global before .relaxed.gpu
  ASSERT_NE(ld->fit->chosen(".vec"), nullptr);
  EXPECT_EQ(ld->fit->chosen(".vec")->text, ".v2");
  // Requirements: the same module for sm_60 / PTX 5.0 keeps the match, not the permission (.relaxed: sm_70).
  const ptx::spec::CheckedModule old = ptx::spec::check_and_decode(m, {.target = ptx::Target::parse("sm_60"), .version = ptx::PtxVersion{5, 0}});
  const ptx::spec::DecodedInstruction* old_ld = old.find(3);
  ASSERT_NE(old_ld, nullptr);
  EXPECT_FALSE(old_ld->requirements_met);
  EXPECT_TRUE(old.find(0)->requirements_met);
  // The decoding of modifiers is shared by every instruction with the mnemonic.
  EXPECT_EQ(ptx::spec::decode_modifiers(m, m.instructions[0]).get(), add.decoded.get());
  const std::string_view bogus[] = {".rn", ".nope"};
  const auto unknown = ptx::spec::decode_modifiers("add", bogus);
  EXPECT_EQ(unknown->unknown_at, 1u);
  EXPECT_TRUE(unknown->fits.empty());
  EXPECT_FALSE(ptx::spec::decode_modifiers("frobnicate", {})->opcode);
}

TEST(Validator, ModuleHeader) {
  auto fs = errors(".target sm_90a\n.visible .entry k() { ret; }");
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].message, "missing .version directive at the start of the module");
  fs = errors(".version 9.0\n.visible .entry k() { ret; }");
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].message, "missing .target directive");
  fs = errors(".version 9.0\n.target sm_42\n");
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].message, "unknown target 'sm_42'");
  fs = errors(".version 8.0\n.target sm_100a\n");
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].message, "target sm_100a needs PTX ISA 8.6 or later");
  fs = errors(".version 9.0\n.target sm_90a, texmode_bogus\n");
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].message, "unknown .target option 'texmode_bogus'");
  fs = errors(".target sm_90a\n.version 9.0\n");
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].message, ".version must be the first statement of the module");
}

TEST(Validator, RegistersAndRanges) {
  const auto fs = errors(kernel(
      "\tadd.u32 %r7, %r0, 1;\n"       // line 10: %r<8> declares %r0..%r7
      "\tadd.u32 %r8, %r1, 1;\n"       // 11: out of range
      "\tadd.u32 %r1, %q, 1;\n"        // 12: never declared
      "\tadd.u32 %r01, %r1, 1;\n"      // 13: a leading zero names no register
      "\t.reg .b32 %x;\n\t.reg .b32 %x;"));  // 14-15: redeclaration
  ASSERT_EQ(fs.size(), 4u) << dump(fs);
  EXPECT_EQ(fs[0].line, 11u);
  EXPECT_EQ(fs[0].column, 10u);
  EXPECT_EQ(fs[0].message, "operand 'd': undeclared register '%r8'");
  EXPECT_EQ(fs[1].line, 12u);
  EXPECT_EQ(fs[1].message, "operand 'a': undeclared register '%q'");
  EXPECT_EQ(fs[2].line, 13u);
  EXPECT_EQ(fs[3].line, 15u);
  EXPECT_EQ(fs[3].message, "redeclaration of '%x'");
}

TEST(Validator, NestedBlocksScopeTheirDeclarations) {
  const auto fs = errors(kernel(
      "\t{\n\t.reg .b32 %t;\n\tadd.u32 %t, %t, 1;\n\t}\n"  // lines 10-13
      "\t{\n\t.reg .b32 %t;\n\t}\n"                       // 14-16: a new scope may declare %t again
      "\tadd.u32 %t, %r1, 1;"));                          // 17: out of scope
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].line, 17u);
  EXPECT_EQ(fs[0].message, "operand 'd': undeclared register '%t'");
}

TEST(Validator, SiblingBlocksRepeatALabel) {
  // Triton's and CUTLASS's inline-asm wait loops: the same label and predicate in sibling blocks (ptxas accepts it).
  const std::string loop =
      "\t{\n\t.reg .pred P1;\n\twaitLoop:\n\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%rd1], %r1;\n"
      "\t@!P1 bra waitLoop;\n\t}\n";
  auto fs = errors(kernel(loop + loop + loop + "\tret;"));
  EXPECT_TRUE(fs.empty()) << dump(fs);
  // the label is local to its block: not seen from outside it, nor from a sibling
  fs = errors(kernel(loop + "\tbra waitLoop;\n\t{ bra waitLoop; }"));
  ASSERT_EQ(fs.size(), 2u) << dump(fs);
  EXPECT_EQ(fs[0].line, 16u);
  EXPECT_EQ(fs[0].message, "operand 'tgt': undefined label 'waitLoop'");
  EXPECT_EQ(fs[1].line, 17u);
  // an inner label may repeat an outer one; two in one block are a duplicate
  fs = errors(kernel("$L:\n\t{\n$L:\n\tbra $L;\n\t}\n\t{\n$L:\n$L:\n\t}"));
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].line, 17u);
  EXPECT_EQ(fs[0].message, "duplicate label '$L'");
}

TEST(Validator, InnerDeclarationShadowsOneRegisterOfARange) {
  const auto fs =
      errors(kernel("\t.reg .b64 %tmp<2>;\n"                               // line 10
                    "\t{\n\t.reg .u64 %tmp;\n\t.reg .b32 %r<2>;\n"         // 11-13
                    "\tmov.u64 %tmp, %tmp0;\n\tadd.u64 %tmp1, %tmp, 1;\n"  // 14-15: %tmp0, %tmp1: the outer range's
                    "\tadd.u32 %r1, %r7, 1;\n\t}\n"                        // 16-17: %r7: the outer %r<8>'s
                    "\tmov.u64 %tmp, 0;\n"                                 // 18: the inner %tmp is gone
                    "\tmov.u32 %x, 1;\n\t.reg .b32 %x;"));                 // 19-20: used before its declaration
  ASSERT_EQ(fs.size(), 2u) << dump(fs);
  EXPECT_EQ(fs[0].line, 18u);
  EXPECT_EQ(fs[0].message, "operand 'd': undeclared register '%tmp'");
  EXPECT_EQ(fs[1].line, 19u);
  EXPECT_EQ(fs[1].message, "operand 'd': undeclared register '%x'");
}

TEST(Validator, LabelsRegistersAndParametersShareANamespace) {
  const auto fs = errors(kernel("\t.reg .b32 p;\n$L:\n\t.reg .b32 $L;\n\t.reg .b32 %r3;\n\t{\n\t.reg .b32 p;\n\t}"));
  ASSERT_EQ(fs.size(), 3u) << dump(fs);
  EXPECT_EQ(fs[0].line, 10u);
  EXPECT_EQ(fs[0].message, "redeclaration of 'p'");
  EXPECT_EQ(fs[1].line, 12u);
  EXPECT_EQ(fs[1].message, "redeclaration of '$L'");
  EXPECT_EQ(fs[2].line, 13u);
  EXPECT_EQ(fs[2].message, "redeclaration of '%r3'");
}

TEST(Validator, Labels) {
  const auto fs = errors(kernel("\tbra $L_nowhere;\n$L_twice:\n$L_twice:\n\tbra $L_twice;"));
  ASSERT_EQ(fs.size(), 2u) << dump(fs);
  EXPECT_EQ(fs[0].line, 10u);
  EXPECT_EQ(fs[0].message, "operand 'tgt': undefined label '$L_nowhere'");
  EXPECT_EQ(fs[1].line, 12u);
  EXPECT_EQ(fs[1].message, "duplicate label '$L_twice'");
}

TEST(Validator, Guards) {
  const auto fs = errors(kernel("\t@%r1 add.u32 %r1, %r1, 1;\n\t@!%nope add.u32 %r1, %r1, 1;"));
  ASSERT_EQ(fs.size(), 2u) << dump(fs);
  EXPECT_EQ(fs[0].message, "guard '%r1' is not a .pred register");
  EXPECT_EQ(fs[1].message, "undeclared register '%nope'");
  EXPECT_EQ(fs[1].column, 4u);
}

TEST(Validator, ModifiersAndOperands) {
  const auto fs = errors(kernel(
      "\tfrobnicate.u32 %r1;\n"          // 10
      "\tadd.bogus %r1, %r2, %r3;\n"     // 11
      "\tadd.u32 %r1, %r2;\n"            // 12
      "\tadd.u32 %f1, %r2, %r3;\n"       // 13
      "\tadd.u32 %r1, %r2, 1.5;\n"       // 14
      "\tadd.u32 %rd1, %r2, %r3;"));     // 15
  ASSERT_EQ(fs.size(), 6u) << dump(fs);
  EXPECT_EQ(fs[0].message, "unknown instruction 'frobnicate'");
  EXPECT_EQ(fs[1].message, "'.bogus' is not a modifier of 'add'");
  EXPECT_EQ(fs[2].message, "'add.u32' takes 3 operands, found 2");
  EXPECT_EQ(fs[3].message, "operand 'd': '%f1' is a .f32 register, expected .u32");
  EXPECT_EQ(fs[3].column, 10u);
  EXPECT_EQ(fs[4].message, "operand 'b': expected an integer immediate");
  EXPECT_EQ(fs[5].message, "operand 'd': '%rd1' is a .b64 register, expected .u32");
}

TEST(Validator, RelaxedTypeRules) {
  // Same-size .b and integer registers fit integer instructions of either signedness.
  const auto fs = check(kernel("\t.reg .s32 %s;\n\t.reg .u32 %u;\n\tadd.u32 %s, %u, %r1;\n\tadd.s32 %u, %s, %r1;"));
  EXPECT_TRUE(fs.empty()) << dump(fs);
}

TEST(Validator, ReorderedModifiersAreAPedanticWarning) {
  EXPECT_TRUE(check(kernel("\tld.u32.global %r1, [%rd1];")).empty());  // ptxas and nvcc do this
  ptx::spec::CheckOptions pedantic;
  pedantic.pedantic = true;
  const auto fs = check(kernel("\tld.u32.global %r1, [%rd1];"), pedantic);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].severity, Severity::Warning);
  EXPECT_NE(fs[0].message.find("not in the PTX ISA order"), std::string::npos) << fs[0].message;
}

TEST(Validator, RequirementsOfFormsAndValues) {
  const std::string old = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
                          "\tadd.u16x2 %r1, %r2, %r3;\n\tret;\n}\n";
  auto fs = errors(old);
  ASSERT_EQ(fs.size(), 1u) << dump(fs);
  EXPECT_EQ(fs[0].line, 7u);
  EXPECT_NE(fs[0].message.find("requires PTX ISA 8.0, sm_90 or later"), std::string::npos) << fs[0].message;
  // --target / --version override the module's own.
  ptx::spec::CheckOptions opts;
  opts.target = ptx::Target::parse("sm_90");
  opts.version = ptx::PtxVersion{8, 0};
  EXPECT_TRUE(errors(old, opts).empty());
}

// The fp8 conversions: the manual says PTX ISA 8.1 and sm_89; ptxas 13 also takes them from
// PTX ISA 7.8 on sm_90 (and refuses sm_89 below 8.1).
TEST(Validator, Fp8ConversionsAsPtxasTakesThem) {
  auto module = [](const std::string& version, const std::string& target) {
    return ".version " + version + "\n.target " + target + "\n.address_size 64\n.visible .entry k()\n{\n"
           "\t.reg .b16 %h;\n\t.reg .b32 %r;\n\t.reg .f32 %f<3>;\n"                     // 6-8
           "\tcvt.rn.satfinite.e4m3x2.f32 %h, %f1, %f2;\n\tcvt.rn.satfinite.relu.e5m2x2.f16x2 %h, %r;\n"  // 9-10
           "\tcvt.rn.f16x2.e4m3x2 %r, %h;\n\tret;\n}\n";                                   // 11
  };
  for (const auto& [version, target] : {std::pair{"7.8", "sm_90"}, {"8.0", "sm_90a"}, {"8.1", "sm_89"}}) {
    const auto fs = errors(module(version, target));
    EXPECT_TRUE(fs.empty()) << version << " " << target << "\n" << dump(fs);
  }
  const auto fs = errors(module("8.0", "sm_89"));
  ASSERT_FALSE(fs.empty());
  for (const Found& f : fs) EXPECT_TRUE(f.line >= 9 && f.line <= 11) << dump(fs);
  EXPECT_EQ(fs.back().line, 11u) << dump(fs);
  EXPECT_EQ(fs[0].line, 9u);
  EXPECT_NE(fs[0].message.find("requires PTX ISA 8.1, sm_89 or later"), std::string::npos) << fs[0].message;
}

TEST(Validator, ModuleSymbols) {
  const auto fs = errors(kHead +
                         ".global .u32 g;\n.global .u32 g;\n"                     // 4-5
                         ".func f() { ret; }\n.func f() { ret; }\n"             // 6-7
                         ".func h();\n.func h() { ret; }\n");                   // 8-9: a prototype then its definition
  ASSERT_EQ(fs.size(), 2u) << dump(fs);
  EXPECT_EQ(fs[0].line, 5u);
  EXPECT_EQ(fs[0].message, "redeclaration of 'g'");
  EXPECT_EQ(fs[1].line, 7u);
  EXPECT_EQ(fs[1].message, "redefinition of 'f'");
}

TEST(Validator, AddressSpaces) {
  const auto fs = errors(kHead + ".shared .align 4 .b8 s[16];\n.global .align 4 .b8 g[16];\n"  // 4-5
                         ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f;\n"       // 6-9
                         "\tld.shared.u32 %r1, [s+4];\n"                                       // 10
                         "\tld.shared.u32 %r1, [g];\n"                                         // 11
                         "\tld.global.u32 %r1, [%f];\n"                                        // 12
                         "\tld.u32 %r1, [g];\n\tret;\n}\n");                                   // 13: generic
  ASSERT_EQ(fs.size(), 2u) << dump(fs);
  EXPECT_EQ(fs[0].line, 11u);
  EXPECT_EQ(fs[0].message, "operand 'a': 'g' is in the .global state space, not .shared");
  EXPECT_EQ(fs[1].line, 12u);
  EXPECT_EQ(fs[1].message, "operand 'a': an address register must be a 32- or 64-bit integer register");
}

TEST(Validator, SpecialRegisters) {
  const std::string head = ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"  // 1-5
                           "\t.reg .b32 %r<4>;\n\t.reg .b16 %h;\n\t.reg .b64 %rd;\n";                   // 6-8
  const auto fs = errors(head +
                         "\tmov.u32 %r1, %tid.x;\n"             // 9: fine
                         "\tmov.u16 %h, %ctaid.y;\n"            // 10: legacy 16-bit read: fine
                         "\tmov.u32 %r1, %clusterid.x;\n"       // 11: sm_90
                         "\tmov.u32 %r1, %tid;\n"               // 12: a component is needed
                         "\tadd.u32 %r1, %laneid, 1;\n"         // 13: only mov and cvt
                         "\tmov.u64 %rd, %laneid;\n"            // 14: .u32
                         "\tmov.u32 %r1, %envreg31;\n"          // 15: fine
                         "\tmov.u32 %r1, %envreg32;\n"          // 16: out of range
                         "\tmov.u32 %tid.x, %r1;\n"             // 17: read-only
                         "\tcvt.u32.u32 %laneid, %r1;\n"        // 18: read-only
                         "\tret;\n}\n");
  ASSERT_EQ(fs.size(), 7u) << dump(fs);
  EXPECT_EQ(fs[0].line, 11u);
  EXPECT_NE(fs[0].message.find("'%clusterid' requires PTX ISA 7.8, sm_90 or later"), std::string::npos) << fs[0].message;
  EXPECT_EQ(fs[1].line, 12u);
  EXPECT_EQ(fs[2].line, 13u);
  EXPECT_NE(fs[2].message.find("can only be read by mov or cvt"), std::string::npos) << fs[2].message;
  EXPECT_EQ(fs[3].line, 14u);
  EXPECT_EQ(fs[4].line, 16u);
  EXPECT_EQ(fs[5].line, 17u);
  EXPECT_NE(fs[5].message.find("special register '%tid.x' is read-only: it cannot be a destination"), std::string::npos) << fs[5].message;
  EXPECT_EQ(fs[6].line, 18u);
  EXPECT_NE(fs[6].message.find("'%laneid' is read-only"), std::string::npos) << fs[6].message;
}

// Operand forms ptxas 13.0 accepts (Triton and CUTLASS write them), and the ones it refuses.
TEST(Validator, OperandFormsPtxasAccepts) {
  const std::string head = kHead + ".func (.param .b32 r) seven() { st.param.b32 [r], 7; ret; }\n";  // line 4
  auto fs = errors(head + ".visible .entry k(.param .u64 p)\n{\n"
                   "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .pred %p<3>;\n"
                   "\t.shared .align 16 .b8 sm[64];\n"
                   "\tselp.u16 %rs1, %rs2, %rs3, 0;\n\tselp.b32 %r1, %r2, %r3, -1;\n"  // an immediate predicate
                   "\tvote.sync.all.pred %p1, 1, 0xffffffff;\n\tvote.sync.ballot.b32 %r1, !0, 0xffffffff;\n"
                   "\tsetp.eq.and.s32 %p1|%p2, %r1, %r2, 1;\n\tset.eq.and.u32.s32 %r1, %r2, %r3, 0;\n"
                   "\tcp.async.cg.shared.global [sm], [%rd1], 16, 1;\n"
                   "\tor.b64 %rd1, %rd1, ((128 >> 4) << 16);\n\tmov.u32 %r1, (1 << 3);\n"  // constant expressions
                   "\tadd.u32 %r1, %r2+1, %r3 + 0x10;\n\tst.global.u32 [%rd1], %r2+WARP_SZ;\n"  // register plus constant
                   "\tmad.lo.u32 %r1, %r2+1, %r3+2, %r4+3;\n\tsetp.eq.u32 %p1, %r2+4, 3;\n"
                   "\t{ .param .b32 rv; call (rv), seven; }\n"  // a call without arguments, with a result
                   "\tret;\n}\n");
  EXPECT_TRUE(fs.empty()) << dump(fs);
  fs = errors(kernel("\tselp.b32 %r1, %r2, %r3, 0f3F800000;\n"  // line 10: no float predicate
                     "\tadd.u32 %r1+1, %r2, 3;\n"                // 11: a destination is a register
                     "\tmov.b64 %rd1, {%r1+1, %r2};\n"           // 12: nor in a vector
                     "\tadd.u32 %r1, 3+%r2, 3;"));               // 13: the register comes first
  ASSERT_EQ(fs.size(), 4u) << dump(fs);
  EXPECT_EQ(fs[0].line, 10u);
  EXPECT_EQ(fs[1].line, 11u);
  EXPECT_EQ(fs[2].line, 12u);
  EXPECT_EQ(fs[3].line, 13u);
}

TEST(Validator, RegisterComponentsAndNegation) {
  const auto fs = errors(kernel("\tvadd.u32.u32.u32.sat %r1, %r2.b0, %r3.h1;\n"          // 10: fine
                                "\tvadd.u32.u32.u32 %r1.b2, %r2, %r3, %r4;\n"            // 11: merge: fine
                                "\tvadd4.u32.u32.u32 %r1.b31, %r2.b7654, %r3.b0123, %r4;\n"  // 12: fine
                                "\tvmad.s32.s32.s32 %r1, -%r2, %r3, %r4;\n"               // 13: fine
                                "\tvadd.u32.u32.u32 %r1, %r2.b4, %r3;\n"                  // 14: no .b4
                                "\tvadd.u32.u32.u32 %r1.b0, %r2, %r3;\n"                  // 15: no selector on d
                                "\tvadd4.u32.u32.u32 %r1, %r2.b8000, %r3, %r4;\n"         // 16: digits 0-7
                                "\tvadd.u32.u32.u32 %r1, -%r2, %r3;\n"                    // 17: no negation
                                "\tret;"));
  ASSERT_EQ(fs.size(), 4u) << dump(fs);
  EXPECT_EQ(fs[0].line, 14u);
  EXPECT_NE(fs[0].message.find("'.b4' is not a .asel component"), std::string::npos) << fs[0].message;
  EXPECT_EQ(fs[1].line, 15u);
  EXPECT_EQ(fs[2].line, 16u);
  EXPECT_EQ(fs[3].line, 17u);
}

TEST(Validator, Directives) {
  const auto fs = errors(".version 7.8\n.target sm_80\n.address_size 64\n"                     // 1-3
                         ".reg .b32 modreg;\n"                                                    // 4: not at module scope
                         ".visible .entry k(.param .u64 .ptr .global .align 8 p) .maxntid 32 .reqntid 32 { ret; }\n"  // 5
                         ".visible .entry c() .explicitcluster { ret; }\n"                        // 6: sm_90
                         ".visible .func f(.param .u64 .ptr p) .noreturn { ret; }\n"              // 7: .ptr on .func
                         ".visible .entry e() .noreturn { ret; }\n");                             // 8: .noreturn on .entry
  ASSERT_EQ(fs.size(), 5u) << dump(fs);
  EXPECT_EQ(fs[0].line, 4u);
  EXPECT_EQ(fs[0].message, "'.reg' is not allowed at module scope");
  EXPECT_EQ(fs[1].line, 5u);
  EXPECT_EQ(fs[1].message, "'.reqntid' and '.maxntid' cannot both be given");
  EXPECT_EQ(fs[2].line, 6u);
  EXPECT_NE(fs[2].message.find("'.explicitcluster' requires PTX ISA 7.8, sm_90 or later"), std::string::npos)
      << fs[2].message;
  EXPECT_EQ(fs[3].line, 7u);
  EXPECT_EQ(fs[3].message, "'.ptr' is not allowed on a .func parameter");
  EXPECT_EQ(fs[4].line, 8u);
  EXPECT_EQ(fs[4].message, "'.noreturn' is not allowed in an .entry header");
}

}  // namespace
