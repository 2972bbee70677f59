// ptx::block: `{ ... }` scopes whose registers and labels are their own, so inline wait
// loops come out the way Triton and CUTLASS write them; names never hide one the block
// sees; a block's names used outside it are errors at the user's line.
#include "dsl_test_util.hpp"

namespace ptx::test {
namespace {

// The wait on an mbarrier phase, as compilers' inline asm writes it.
void wait_block(const Reg& bar, uint32_t phase) {
  block([&] {
    Reg p(pred, "P1");
    Label wait("waitLoop");
    place(wait);
    inst::mbarrier.try_wait.parity.shared_cta.b64(p, addr(bar), phase);
    bra_unless(p, wait);
  });
}

TEST(DslBlock, SiblingWaitLoopsRepeatTheirNames) {
  auto t = trace_body([] {
    Reg bar(u64);
    inst::mov.u64(bar, 0);
    wait_block(bar, 0);
    wait_block(bar, 1);
    ret();
  });
  std::string loops;
  for (int phase = 0; phase < 2; ++phase)
    loops += "\t{\n\t\t.reg .pred %P1;\n\t$L__waitLoop:\n\t\tmbarrier.try_wait.parity.shared::cta.b64 \t%P1, [%rd1], " +
             std::to_string(phase) + ";\n\t\t@!%P1 bra \t$L__waitLoop;\n\t}\n";
  const std::string want =
      ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n"
      "\t.reg .b64 %rd<2>;\n\tmov.u64 \t%rd1, 0;\n" +
      loops + "\tret;\n}\n";
  EXPECT_EQ(t->ptx, want);
  expect_clean(t->ptx, "sm_90a");
}

TEST(DslBlock, NamesNeverHideWhatTheBlockSees) {
  auto t = trace_body([] {
    Reg x(u32, "x");
    Label out("out");
    x = 1;
    block([&] {
      Reg inner(u32, "x");  // %x is seen here: the block's is %x_2
      Reg tmp(u32);         // auto-named: the function's next number
      inner = x;
      tmp = inner + 2;
      x = tmp;
      bra(out);  // an outer label, from inside
      block([&] {
        Reg deeper(u32, "x");
        deeper = inner;
      });
    });
    place(out);
    ret();
  });
  for (const char* want : {"\t\t.reg .b32 %x_2;", "\t\t.reg .b32 %r1;", "\t\t\t.reg .b32 %x_3;", "mov.u32 \t%x_2, %x;",
                           "mov.u32 \t%x_3, %x_2;", "bra.uni \t$L__out;"})
    EXPECT_NE(t->ptx.find(want), std::string::npos) << want << "\n" << t->ptx;
  expect_clean(t->ptx, "sm_90a");
}

// The ptx::Error tracing `body` throws.
Error traced_error(const std::function<void()>& body) {
  try {
    (void)trace_body(body);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no ptx::Error";
  return Error("none", {});
}

TEST(DslBlock, ABlocksNamesAreNotSeenAfterIt) {
  int line = 0;
  Error e = traced_error([&] {
    Reg kept;
    block([&] { kept = Reg(u32, "t"); });
    line = __LINE__ + 1;
    inst::add.u32(kept, kept, 1);
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("register %t belongs to the ptx::block at line"), std::string::npos) << e.what();

  e = traced_error([&] {
    Label* kept = nullptr;
    Label storage;
    block([&] {
      storage = Label("wait");
      kept = &storage;
      place(storage);
    });
    line = __LINE__ + 1;
    bra(*kept);
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("label $L__wait belongs to the ptx::block"), std::string::npos) << e.what();

  e = traced_error([&] {
    Label outer("outer");
    block([&] {
      line = __LINE__ + 1;
      place(outer);
    });
  });
  EXPECT_EQ(e.where().line(), static_cast<uint32_t>(line)) << e.what();
  EXPECT_NE(e.message().find("belongs to the function body"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace ptx::test
