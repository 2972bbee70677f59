// Compiled by the dsl.compile_fail.tcgen05_mma tests: with -DPTXPP_LEGAL it must compile, with
// each -DPTXPP_CASE=N it must not (an option the tcgen05.mma form has no operand or modifier for).
#include <ptxpp/dsl/blackwell/mma.hpp>
#include <ptxpp/dsl/blackwell/mma_block_scaled.hpp>

namespace bw = ptx::blackwell;

void f(const ptx::Reg& d, const ptx::Reg& a, const ptx::Reg& p, const bw::InstrDescriptor& id,
       const bw::BlockScaledDescriptor& bs) {
#if defined(PTXPP_LEGAL)
  bw::mma(id, d, a, a, p, {.collector_a = bw::CollectorOp::Fill, .scale_input_d = 1});
  bw::mma_ws(id, d, a, a, p, {.collector_b = bw::CollectorB{bw::CollectorBuffer::B1, bw::CollectorOp::Use}});
  bw::mma_block_scaled(bs, d, a, a, d, d, p, {.collector_a = bw::CollectorOp::Use});
#elif PTXPP_CASE == 1
  bw::mma(id, d, a, a, p, {.collector_b = bw::CollectorB{}});  // B collectors are .ws's
#elif PTXPP_CASE == 2
  bw::mma_block_scaled(bs, d, a, a, d, d, p, {.scale_input_d = 1});  // no scale-input-d with block scaling
#elif PTXPP_CASE == 3
  bw::mma_ws(id, d, a, a, p, {.collector_a = bw::CollectorOp::Fill});  // .ws takes B collectors only
#elif PTXPP_CASE == 4
  bw::mma_block_scaled(bs, d, a, a, d, d, p, {.ashift = true});  // no .ashift with block scaling
#endif
}
