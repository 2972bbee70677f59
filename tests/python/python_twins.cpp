// The C++ twins of python/tests' programs for the Python bindings that have no C++ example: each
// prints the PTX of one program written with the C++ DSL; the Python test writes the same program
// with ptxpp and compares the text byte for byte (test_blackwell_forms.py, test_module.py).
//   ptxpp_python_twins NAME   (mma_forms, mma_pair_forms, copy_shift, gather4, module, hopper_forms)
#include <array>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include <ptxpp/dsl.hpp>

namespace {

using namespace ptx::types;
namespace bw = ptx::blackwell;
namespace inst = ptx::inst;

bw::BlockScaledDescriptor scaled(bw::ScaledKind kind, bw::MmaType t, bw::ScaleVec vec, int m, int n,
                                 bw::CtaGroup g = bw::CtaGroup::One) {
  return {.kind = kind, .a = t, .b = t, .vec = vec, .m = m, .n = n, .group = g};
}

// A kernel `k` with no parameters for sm_100a.
std::string sm100(const std::function<void()>& body) {
  return ptx::kernel("k").arch("sm_100a").body([&] { body(); }).ptx();
}

void block_scaled_forms(const ptx::Reg& d, const ptx::Reg& at, const ptx::Reg& sa, const ptx::Reg& sb,
                        const ptx::Reg& meta, const ptx::Reg& da, const ptx::Reg& db, const ptx::Reg& idesc,
                        const ptx::Reg& p) {
  using bw::MmaType, bw::ScaledKind, bw::ScaleVec;
  bw::mma_block_scaled(scaled(ScaledKind::MXF8F6F4, MmaType::e4m3, ScaleVec::X1, 128, 64), d, da, db, sa, sb, p);
  bw::mma_block_scaled(scaled(ScaledKind::MXF8F6F4, MmaType::e2m3, ScaleVec::Default, 128, 8), d, da, db, sa, sb, p,
                       {.collector_a = bw::CollectorOp::Fill});
  bw::mma_block_scaled(scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::Block32, 128, 32), d, da, db, sa, sb, p);
  bw::BlockScaledDescriptor nv = scaled(ScaledKind::MXF4NVF4, MmaType::e2m1, ScaleVec::Block16, 128, 16);
  nv.scale_type = bw::ScaleType::ue4m3;
  bw::mma_block_scaled_tmem_a(nv, d, at, db, sa, sb, p, {.collector_a = bw::CollectorOp::LastUse});
  bw::mma_block_scaled(bw::CtaGroup::One, ScaledKind::MXF4NVF4, ScaleVec::X2, d, da, db, idesc, sa, sb, p);
  bw::BlockScaledDescriptor sparse_f4 = scaled(ScaledKind::MXF4, MmaType::e2m1, ScaleVec::X2, 128, 64);
  sparse_f4.sparse = true;
  bw::mma_block_scaled(sparse_f4, d, da, db, sa, sb, p, {.sparse_metadata = &meta});
}

// tests/dsl/blackwell_mma_forms_test.cpp's EveryFormEmitsExactlyItsInstruction.
std::string mma_forms() {
  return sm100([] {
    ptx::Reg d(b32), at(b32), sa(b32), sb(b32), meta(b32), da(b64), db(b64), zcm(b64), idesc(b32), p(pred);
    inst::mov.b32(d, 0);
    inst::mov.b32(at, 64);
    inst::mov.b32(sa, 128);
    inst::mov.b32(sb, 132);
    inst::mov.b32(meta, 136);
    inst::mov.b64(da, 0);
    inst::mov.b64(db, 0);
    inst::mov.b64(zcm, 0);
    inst::mov.b32(idesc, 0);
    inst::setp.ne.b32(p, d, 0);
    std::array<ptx::Reg, 4> lanes{ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32), ptx::Reg(b32)};
    for (auto& l : lanes) inst::mov.b32(l, 0);
    block_scaled_forms(d, at, sa, sb, meta, da, db, idesc, p);
    bw::InstrDescriptor sp = bw::bf16_f32(128, 64);
    sp.sparse = true;
    sp.sparsity_selector = 1;
    bw::mma(sp, d, da, db, p,
            {.collector_a = bw::CollectorOp::Use,
             .sparse_metadata = &meta,
             .disable_output_lane = lanes,
             .scale_input_d = 3});
    bw::mma_tmem_a(bw::bf16_f32(128, 64), d, at, db, p, {.collector_a = bw::CollectorOp::Discard, .ashift = true});
    bw::InstrDescriptor tf32{
        .kind = bw::MmaKind::TF32, .a = bw::MmaType::tf32, .b = bw::MmaType::tf32, .m = 64, .n = 8};
    bw::mma(tf32, d, da, db, p, {.scale_input_d = 15});
    bw::mma(bw::CtaGroup::One, bw::MmaKind::I8, d, da, db, idesc, p,
            {.sparse_metadata = &meta, .disable_output_lane = lanes});
    bw::mma_ws(bw::bf16_f32(128, 64), d, da, db, p);
    bw::mma_ws(
        bw::bf16_f32(32, 256), d, da, db, p,
        {.collector_b = bw::CollectorB{bw::CollectorBuffer::B2, bw::CollectorOp::Fill}, .zero_column_mask = &zcm});
    bw::InstrDescriptor ws_sp{
        .kind = bw::MmaKind::I8, .a = bw::MmaType::s8, .b = bw::MmaType::u8, .d = bw::AccType::s32, .m = 64, .n = 128};
    ws_sp.sparse = true;
    bw::mma_ws_tmem_a(
        ws_sp, d, at, db, p,
        {.collector_b = bw::CollectorB{bw::CollectorBuffer::B3, bw::CollectorOp::LastUse}, .sparse_metadata = &meta});
    bw::mma_ws(bw::MmaKind::F8F6F4, d, da, db, idesc, p, {.zero_column_mask = &zcm});
  });
}

// CtaPairFormsEmitExactlyTheirInstruction (one kernel per CTA group: ptxas refuses a mix).
std::string mma_pair_forms() {
  return sm100([] {
    ptx::Reg d(b32), sa(b32), sb(b32), meta(b32), da(b64), p(pred);
    inst::mov.b32(d, 0);
    inst::mov.b32(sa, 128);
    inst::mov.b32(sb, 132);
    inst::mov.b32(meta, 136);
    inst::mov.b64(da, 0);
    inst::setp.ne.b32(p, d, 0);
    std::array<ptx::Reg, 8> lanes{ptx::Reg(u32), ptx::Reg(u32), ptx::Reg(u32), ptx::Reg(u32),
                                  ptx::Reg(u32), ptx::Reg(u32), ptx::Reg(u32), ptx::Reg(u32)};
    for (auto& l : lanes) inst::mov.u32(l, 0);
    bw::mma(bw::bf16_f32(256, 128, bw::CtaGroup::Two), d, da, da, p,
            {.disable_output_lane = lanes, .scale_input_d = 1});
    bw::BlockScaledDescriptor f4 =
        scaled(bw::ScaledKind::MXF4, bw::MmaType::e2m1, bw::ScaleVec::X2, 256, 128, bw::CtaGroup::Two);
    f4.sparse = true;
    f4.scale_a_id = f4.scale_b_id = 2;
    bw::mma_block_scaled(f4, d, da, da, sa, sb, p, {.sparse_metadata = &meta});
    bw::mma_block_scaled(
        scaled(bw::ScaledKind::MXF8F6F4, bw::MmaType::e5m2, bw::ScaleVec::Block32, 256, 256, bw::CtaGroup::Two), d, da,
        da, sa, sb, p);
  });
}

// tcgen05.cp in each shape and source form, and tcgen05.shift (blackwell_test.cpp's program).
std::string copy_shift() {
  return sm100([] {
    ptx::Reg ta(b32);
    inst::mov.b32(ta, bw::tmem_address(32, 0));
    ptx::Reg sa = ptx::smem::alloc(b8, {4096}, 128).base();
    ptx::Reg sd = bw::make_smem_descriptor(sa, bw::k_major(0, bw::SmemSwizzle::None, 128, 256));
    bw::tmem_copy(bw::CtaGroup::One, bw::CpShape::S128x256b, ta, sd);
    bw::tmem_copy(bw::CtaGroup::One, bw::CpShape::S4x256b, ta, sd);
    bw::tmem_copy(bw::CtaGroup::One, bw::CpShape::S128x128b, ta, sd, bw::CpSource::B6x16_P32);
    bw::tmem_copy(bw::CtaGroup::One, bw::CpShape::S64x128b_02_13, ta, sd);
    bw::tmem_copy(bw::CtaGroup::One, bw::CpShape::S64x128b_01_23, ta, sd, bw::CpSource::B4x16_P64);
    bw::tmem_copy(bw::CtaGroup::One, bw::CpShape::S32x128b, ta, sd);
    bw::tmem_shift_down(bw::CtaGroup::One, ta);
  });
}

// tma_modes_test.cpp's row gather and scatter.
std::string gather4() {
  return ptx::kernel("g4")
      .tensor_map("m")
      .arch("sm_100a")
      .body([](ptx::TensorMapParam m) {
        auto buf = ptx::smem::alloc(bf16, {4, 64}, 128);
        auto bars = ptx::smem::alloc(b64, {1}, 8);
        ptx::hopper::Mbarrier bar(bars.addr(0));
        ptx::Reg map = m.generic_address();
        ptx::Reg r = ptx::read(ptx::special::tid.x(), s32);
        ptx::Reg policy(b64);
        inst::createpolicy.fractional.L2_evict_last.b64(policy, 1.0f);
        bw::tma_load_gather4(buf.addr(0), map, 0, {r, 7, r, 3}, bar);
        bw::tma_load_gather4(buf.addr(0), map, 64, {0, 1, 2, 3}, bar, {.cache_hint = &policy});
        ptx::hopper::fence_proxy_async();
        bw::tma_store_scatter4(map, 0, {3, r, 1, 0}, buf.addr(0));
        bw::tma_store_scatter4(map, 64, {3, 2, 1, r}, buf.addr(0), {.cache_hint = &policy});
        ptx::hopper::bulk_commit();
        ptx::hopper::bulk_wait(0);
        ptx::ret();
      })
      .ptx();
}

// Device functions in a module with two kernels (python/tests/test_module.py's program).
std::string module() {
  auto add = ptx::func("add").ret(u32).param(u32).param(u32).body([](const ptx::FuncArgs& a) {
    ptx::Reg x = a.param(0), y = a.param(1);
    a.ret(x + y);
  });
  auto twice_plus1 = ptx::func("twice_plus1").ret(u32).param(u32).body([&](const ptx::FuncArgs& a) {
    ptx::Reg x = a.param(0);
    ptx::Reg y = ptx::call(add, {x, x});
    a.ret(ptx::call(add, {y, 1u}));
  });
  auto store = ptx::func("store").param(u64).param(u32).body([](const ptx::FuncArgs& a) {
    ptx::Reg p = a.param(0), v = a.param(1);
    inst::st.global.u32(ptx::addr(p), v);
    ptx::ret();
  });
  auto k = ptx::kernel("k")
               .in(ptx::tensor(u32, {"N"}))
               .out(ptx::tensor(u32, {"N"}))
               .block(ptx::Dim3(64))
               .body([&](ptx::Tensor x, ptx::Tensor y) {
                 ptx::Reg px = x.global_ptr(), py = y.global_ptr();
                 ptx::Reg i = ptx::read(ptx::special::tid.x(), u32);
                 ptx::Reg off = i * 4;
                 ptx::Reg v(u32);
                 inst::ld.global.u32(v, ptx::addr(px + off));
                 ptx::call(store, {py + off, ptx::call(twice_plus1, {v})});
                 ptx::ret();
               });
  auto k2 = ptx::kernel("k2").scalar("s", u32).body([&](ptx::Scalar s) {
    ptx::Reg r = ptx::call(add, {s.load(), 5u});
    (void)r;
    ptx::ret();
  });
  ptx::Module mod;
  mod.arch("sm_90a")
      .global("table", u32, 4, {1, 2, 3}, 16)
      .constant("coeffs", f32, 2, {0.5, -1})
      .add(add)
      .add(twice_plus1)
      .add(store)
      .add(k)
      .add(k2);
  return mod.ptx({{"N", 64}});
}


// The Hopper helpers of python/src/hopper_forms.cpp: tma_modes_test.cpp's tensor-map edits and
// im2col copies in one kernel (python/tests/test_hopper_forms.py's program).
void edit_tensormap(const ptx::smem::Buffer& smap, const ptx::Reg& src, const ptx::Reg& dst, const ptx::Reg& ptr) {
  namespace hop = ptx::hopper;
  using hop::TensormapSpace;
  ptx::Reg rows(u32);
  inst::mov.u32(rows, 40);
  ptx::Reg stride(u64);
  inst::mov.u64(stride, 256);
  hop::tensormap_replace_global_address(TensormapSpace::shared, smap.addr(0), ptr);
  hop::tensormap_replace_rank(TensormapSpace::shared, smap.addr(0), 2);
  hop::tensormap_replace_box_dim(TensormapSpace::shared, smap.addr(0), 1, 8);
  hop::tensormap_replace_global_dim(TensormapSpace::shared, smap.addr(0), 1, rows);
  hop::tensormap_replace_global_stride(TensormapSpace::shared, smap.addr(0), 1, stride);
  hop::tensormap_replace_element_stride(TensormapSpace::global, ptx::addr(src), 0, 1);
  hop::tensormap_replace(TensormapSpace::shared, smap.addr(0), hop::TensormapElemtype::bf16);
  hop::tensormap_replace(TensormapSpace::shared, smap.addr(0), hop::TensormapInterleave::none);
  hop::tensormap_replace(TensormapSpace::shared, smap.addr(0), hop::TensormapSwizzle::b128);
  hop::tensormap_replace(TensormapSpace::global, ptx::addr(src), hop::TensormapFill::nan_request_zero_fma);
  hop::tensormap_publish(ptx::addr(dst), smap.addr(0));
  hop::tensormap_acquire(ptr);
}

std::string hopper_forms() {
  namespace hop = ptx::hopper;
  return ptx::kernel("hf")
      .in("tmpl", ptx::tensor(u8, {128}))
      .in("ws", ptx::tensor(u8, {128}))
      .tensor_map("m")
      .arch("sm_90a")
      .body([](ptx::Tensor tmpl, ptx::Tensor ws, ptx::TensorMapParam m) {
        auto smap = ptx::smem::alloc(b64, {16}, 128);
        auto buf = ptx::smem::alloc(f32, {256}, 128);
        auto bars = ptx::smem::alloc(b64, {1}, 8);
        ptx::Reg src = tmpl.global_ptr(), dst = ws.global_ptr(), ptr = ws.ptr();  // in Python's order
        edit_tensormap(smap, src, dst, ptr);
        hop::Mbarrier bar(bars.addr(0));
        ptx::Reg map = m.generic_address();
        ptx::Reg x = ptx::read(ptx::special::tid.x(), u32);
        ptx::Reg p = x == 0u;
        ptx::Reg off(u16);
        inst::mov.u16(off, 2);
        ptx::Reg policy(b64);
        inst::createpolicy.fractional.L2_evict_first.b64(policy, 1.0f);
        ptx::Reg mask(b16);
        inst::mov.b16(mask, 1);
        hop::tma_load_im2col(buf.addr(0), map, {x, 0, 0}, {off}, bar);
        hop::tma_load_im2col(buf.addr(0), map, {x, 0, 0, 0, 1}, {off, 1, 65535}, bar,
                             {.guard = &p, .multicast = &mask, .cache_hint = &policy});
        hop::tma_prefetch_im2col(map, {x, 0, 0, 0}, {off, 0}, {.cache_hint = &policy});
        hop::tma_prefetch_im2col(map, {x, 0, 0}, {7}, {.guard = &p});
        ptx::ret();
      })
      .ptx();
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::function<std::string()>> programs = {{"mma_forms", mma_forms},
                                                                        {"mma_pair_forms", mma_pair_forms},
                                                                        {"copy_shift", copy_shift},
                                                                        {"gather4", gather4},
                                                                        {"module", module},
                                                                        {"hopper_forms", hopper_forms}};
  const auto it = argc == 2 ? programs.find(argv[1]) : programs.end();
  if (it == programs.end()) {
    std::fprintf(stderr, "usage: ptxpp_python_twins mma_forms|mma_pair_forms|copy_shift|gather4|module|hopper_forms\n");
    return 2;
  }
  std::fputs(it->second().c_str(), stdout);
  return 0;
}
