// ptx::ir walkers (ir/walk.hpp): every expression kind and nested blocks reached, in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ptxpp/ir/walk.hpp"
#include "test_util.hpp"

using namespace ptx::ir;

namespace {

const char* kModule = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %a, %b, %c;
	.reg .pred %q;
	@!%q add.s32 %a, %b, (1 ? %c : 2);
	{
		mov.b32 %a, {%b, %c};
		{
			sub.s32 %c, -%a, 3;
		}
	}
	ret;
}
)";

std::vector<std::string> names_in_order(const Module& m) {
  std::vector<std::string> out;
  const Function& f = m.functions[0];
  for_each_stmt(m, m.blocks[f.body], [&](const Stmt& s) {
    if (s.kind != StmtKind::Instruction) return;
    for_each_operand(m, m.instructions[s.index], [&](ExprId op) {
      for_each_name(m, op, [&](const Expr& e) { out.emplace_back(m.text(Symbol{e.a})); });
    });
  });
  return out;
}

TEST(Walk, NamesOfGuardsOperandsTernariesListsAndNestedBlocks) {
  const Module m = ptx::test::parse_ok(kModule);
  // the guard's %q (under !), add's %a %b and the ternary's %c, the nested mov's brace list, the
  // doubly nested sub's %c and -%a
  EXPECT_EQ(names_in_order(m), (std::vector<std::string>{"%q", "%a", "%b", "%c", "%a", "%b", "%c", "%c", "%a"}));
}

TEST(Walk, EveryExpressionOuterFirst) {
  const Module m = ptx::test::parse_ok(kModule);
  const Instruction& add = m.instructions[0];
  const auto ops = m.operands_of(add);
  std::vector<ExprKind> kinds;
  for_each_expr(m, ExprId{ops[2].node}, [&](ExprId, const Expr& e) { kinds.push_back(e.kind); });
  ASSERT_FALSE(kinds.empty());
  // (1 ? %c : 2): the parentheses (a list), the ternary, then 1, %c, 2
  EXPECT_EQ(kinds.back(), ExprKind::Int);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), ExprKind::Ternary), kinds.end());
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), ExprKind::Name), 1);
}

}  // namespace
