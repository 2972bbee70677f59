// What the DSL gives front ends in other languages (the Python package): the chain
// automaton walked at run time, bodies that take their parameters as a list, and the
// id of the running trace.
#include <algorithm>

#include <gtest/gtest.h>
#include <ptxpp/dsl.hpp>
#include <ptxpp/dsl/chains.hpp>

namespace ptx::test {
namespace {

using namespace ptx::types;

std::optional<dsl::ChainMove> move_named(const std::vector<dsl::ChainMove>& moves, std::string_view ptx) {
  const auto it = std::find_if(moves.begin(), moves.end(), [&](const dsl::ChainMove& m) { return m.ptx == ptx; });
  if (it == moves.end()) return std::nullopt;
  return *it;
}

TEST(Frontend, ChainAutomatonSpellsWhatPtxInstSpells) {
  const auto ld = move_named(dsl::chain_opcodes(), "ld");
  ASSERT_TRUE(ld);
  EXPECT_FALSE(dsl::chain_accepting(ld->to));  // "ld" alone is not an instruction
  const auto global = move_named(dsl::chain_moves(ld->to), ".global");
  ASSERT_TRUE(global);
  EXPECT_EQ(global->cxx, "global");
  const auto f32_move = move_named(dsl::chain_moves(global->to), ".f32");
  ASSERT_TRUE(f32_move);
  EXPECT_TRUE(dsl::chain_accepting(f32_move->to));
  EXPECT_FALSE(move_named(dsl::chain_moves(f32_move->to), ".global"));  // ld.global.f32.global: no
  // The token ids are ptx::inst's: the key of the walked chain is the key of inst::ld.global.f32.
  const uint16_t tokens[] = {ld->token, global->token, f32_move->token};
  EXPECT_EQ(dsl::detail::key_text(dsl::detail::chain_key(tokens)), "ld.global.f32");
  EXPECT_EQ(inst::ld.global.f32.mnemonic(), "ld.global.f32");
  EXPECT_TRUE(dsl::chain_moves(0xFFFFFFFFu).empty());  // a bad state: nothing, not a crash
  EXPECT_FALSE(dsl::chain_accepting(0xFFFFFFFFu));
}

TEST(Frontend, BodyParamsTakesTheParametersAsAList) {
  size_t seen = 0;
  auto k = kernel("k").in(tensor(f32, {"N"})).scalar("s", u32).arch("sm_90a");
  k.body_params([&](std::span<const dsl::detail::Param> ps) {
    seen = ps.size();
    ASSERT_TRUE(ps[0].is_tensor);
    ASSERT_FALSE(ps[1].is_tensor);
    Tensor x(ps[0]);
    Scalar s(ps[1]);
    EXPECT_EQ(x.dim(0), 64);
    [[maybe_unused]] Reg v = s.load();
    ptx::ret();
  });
  const std::string text = k.ptx({{"N", 64}});
  EXPECT_EQ(seen, 2u);
  EXPECT_NE(text.find("ld.param.u32"), std::string::npos);
}

TEST(Frontend, RunningTraceIdIsTheRegistersTrace) {
  EXPECT_EQ(dsl::running_trace_id(), 0u);  // no trace on this thread
  uint32_t id = 0, reg_trace = 1;
  kernel("k")
      .arch("sm_90a")
      .body([&] {
        id = dsl::running_trace_id();
        reg_trace = Reg(u32).trace();
      })
      .trace();
  EXPECT_NE(id, 0u);
  EXPECT_EQ(id, reg_trace);
  EXPECT_EQ(dsl::running_trace_id(), 0u);
}

}  // namespace
}  // namespace ptx::test
