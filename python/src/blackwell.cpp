// The Blackwell helpers (ptx::blackwell, sm_100a) from Python: tensor-memory allocation, the
// tcgen05.mma instruction and shared-memory descriptors, tcgen05.mma (A from shared or tensor
// memory, the descriptor a trace-time value or a register, with the options of MmaOptions:
// collector hints, .ashift, sparse metadata, disable-output-lane, scale-input-d),
// tcgen05.commit, tcgen05.ld/st with their fragment maps, the tcgen05 fences, and the TMA tile
// load of a CTA pair (tma_load_pair). The .ws and block-scaled forms, tcgen05.cp/shift and the
// TMA gather/scatter are in blackwell_forms.cpp. Each emits what the C++ helper emits
// (docs/dsl.md, "Blackwell helpers").
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>

#include "blackwell_args.hpp"
#include "tma_coords.hpp"

namespace ptxpy {

namespace {

namespace bw = ptx::blackwell;

const ptx::Reg* optional_reg(nb::handle h) { return h.is_none() ? nullptr : &reg_of(h); }

void bind_enums(nb::module_& b) {
  nb::enum_<bw::CtaGroup>(b, "CtaGroup").value("One", bw::CtaGroup::One).value("Two", bw::CtaGroup::Two);
  nb::enum_<bw::MmaKind>(b, "MmaKind")
      .value("F16", bw::MmaKind::F16)
      .value("TF32", bw::MmaKind::TF32)
      .value("F8F6F4", bw::MmaKind::F8F6F4)
      .value("I8", bw::MmaKind::I8);
  nb::enum_<bw::MmaType>(b, "MmaType")
      .value("f16", bw::MmaType::f16)
      .value("bf16", bw::MmaType::bf16)
      .value("tf32", bw::MmaType::tf32)
      .value("e4m3", bw::MmaType::e4m3)
      .value("e5m2", bw::MmaType::e5m2)
      .value("e2m3", bw::MmaType::e2m3)
      .value("e3m2", bw::MmaType::e3m2)
      .value("e2m1", bw::MmaType::e2m1)
      .value("u8", bw::MmaType::u8)
      .value("s8", bw::MmaType::s8);
  nb::enum_<bw::AccType>(b, "AccType")
      .value("f16", bw::AccType::f16)
      .value("f32", bw::AccType::f32)
      .value("s32", bw::AccType::s32);
  nb::enum_<bw::SmemSwizzle>(b, "SmemSwizzle")
      .value("None_", bw::SmemSwizzle::None)
      .value("B128_Base32B", bw::SmemSwizzle::B128_Base32B)
      .value("B128", bw::SmemSwizzle::B128)
      .value("B64", bw::SmemSwizzle::B64)
      .value("B32", bw::SmemSwizzle::B32);
  nb::enum_<bw::TmemShape>(b, "TmemShape")
      .value("S32x32b", bw::TmemShape::S32x32b)
      .value("S16x64b", bw::TmemShape::S16x64b)
      .value("S16x128b", bw::TmemShape::S16x128b)
      .value("S16x256b", bw::TmemShape::S16x256b);
  nb::enum_<bw::CollectorOp>(b, "CollectorOp")
      .value("Fill", bw::CollectorOp::Fill)
      .value("Use", bw::CollectorOp::Use)
      .value("LastUse", bw::CollectorOp::LastUse)
      .value("Discard", bw::CollectorOp::Discard);
}

void bind_descriptors(nb::module_& b) {
  nb::class_<bw::InstrDescriptor>(b, "InstrDescriptor", "The 32-bit tcgen05.mma instruction descriptor's fields")
      .def(
          "__init__",
          [](bw::InstrDescriptor* self, bw::MmaKind kind, bw::MmaType a, bw::MmaType bt, bw::AccType d, int m, int n,
             bw::CtaGroup group, bool transpose_a, bool transpose_b, bool negate_a, bool negate_b, bool saturate,
             bool sparse, int selector, bool ws, bw::WsMaxShift max_shift) {
            new (self) bw::InstrDescriptor{.kind = kind, .a = a, .b = bt, .d = d, .m = m, .n = n, .group = group,
                                           .transpose_a = transpose_a, .transpose_b = transpose_b,
                                           .negate_a = negate_a, .negate_b = negate_b, .saturate = saturate,
                                           .sparse = sparse, .sparsity_selector = selector, .ws = ws,
                                           .max_shift = max_shift};
          },
          nb::arg("kind") = bw::MmaKind::F16, nb::arg("a") = bw::MmaType::bf16, nb::arg("b") = bw::MmaType::bf16,
          nb::arg("d") = bw::AccType::f32, nb::arg("m") = 128, nb::arg("n") = 256, nb::arg("group") = bw::CtaGroup::One,
          nb::arg("transpose_a") = false, nb::arg("transpose_b") = false, nb::arg("negate_a") = false,
          nb::arg("negate_b") = false, nb::arg("saturate") = false, nb::arg("sparse") = false,
          nb::arg("sparsity_selector") = 0, nb::arg("ws") = false, nb::arg("max_shift") = bw::WsMaxShift::None)
      .def_rw("kind", &bw::InstrDescriptor::kind)
      .def_rw("a", &bw::InstrDescriptor::a)
      .def_rw("b", &bw::InstrDescriptor::b)
      .def_rw("d", &bw::InstrDescriptor::d)
      .def_rw("m", &bw::InstrDescriptor::m)
      .def_rw("n", &bw::InstrDescriptor::n)
      .def_rw("group", &bw::InstrDescriptor::group)
      .def_rw("transpose_a", &bw::InstrDescriptor::transpose_a)
      .def_rw("transpose_b", &bw::InstrDescriptor::transpose_b)
      .def_rw("negate_a", &bw::InstrDescriptor::negate_a)
      .def_rw("negate_b", &bw::InstrDescriptor::negate_b)
      .def_rw("saturate", &bw::InstrDescriptor::saturate)
      .def_rw("sparse", &bw::InstrDescriptor::sparse)
      .def_rw("sparsity_selector", &bw::InstrDescriptor::sparsity_selector)
      .def_rw("ws", &bw::InstrDescriptor::ws)
      .def_rw("max_shift", &bw::InstrDescriptor::max_shift)
      .def("bits", [](const bw::InstrDescriptor& d) { return d.bits(python_location()); }, "encodes (and checks) it")
      .def_static("decode", &bw::InstrDescriptor::decode, nb::arg("bits"), nb::arg("kind"),
                  nb::arg("group") = bw::CtaGroup::One, nb::arg("ws") = false)
      .def("__eq__", [](const bw::InstrDescriptor& x, const bw::InstrDescriptor& y) { return x == y; });
  b.def("bf16_f32", &bw::bf16_f32, nb::arg("m"), nb::arg("n"), nb::arg("group") = bw::CtaGroup::One,
        "bf16 A and B, f32 D, both K-major");
  b.def(
      "mma_k", [](bw::MmaKind k, bool sparse) { return bw::mma_k(k, sparse); }, nb::arg("kind"),
      nb::arg("sparse") = false);
  nb::class_<bw::SmemDescriptor>(b, "SmemDescriptor", "The 64-bit tcgen05 shared-memory matrix descriptor's fields")
      .def_rw("start", &bw::SmemDescriptor::start)
      .def_rw("lbo", &bw::SmemDescriptor::lbo)
      .def_rw("sbo", &bw::SmemDescriptor::sbo)
      .def_rw("base_offset", &bw::SmemDescriptor::base_offset)
      .def_rw("lbo_absolute", &bw::SmemDescriptor::lbo_absolute)
      .def_rw("swizzle", &bw::SmemDescriptor::swizzle)
      .def("bits", [](const bw::SmemDescriptor& d) { return d.bits(python_location()); })
      .def_static("decode", [](uint64_t bits) { return bw::SmemDescriptor::decode(bits, python_location()); })
      .def("__eq__", [](const bw::SmemDescriptor& x, const bw::SmemDescriptor& y) { return x == y; });
  b.def("k_major", &bw::k_major, nb::arg("start"), nb::arg("swizzle"), nb::arg("sbo"), nb::arg("lbo") = 16);
  b.def("mn_major", &bw::mn_major, nb::arg("start"), nb::arg("swizzle"), nb::arg("lbo"), nb::arg("sbo"));
  b.def(
      "make_smem_descriptor",
      [](nb::handle addr, const bw::SmemDescriptor& d) {
        return make_reg(bw::make_smem_descriptor(reg_of(addr), d, here()));
      },
      "the 64-bit descriptor of a shared matrix at a 32-bit shared address (four instructions)");
}

void bind_tmem(nb::module_& b) {
  b.def("tmem_address", [](uint32_t lane, uint32_t col) { return bw::tmem_address(lane, col, python_location()); });
  b.def(
      "tmem_alloc",
      [](nb::handle dst, uint32_t ncols, bw::CtaGroup g) {
        bw::tmem_alloc(to_operand(dst, FloatAs::F32), ncols, g, here());
      },
      nb::arg("dst"), nb::arg("ncols"), nb::arg("group") = bw::CtaGroup::One,
      "tcgen05.alloc.cta_group::N.sync.aligned.shared::cta.b32 [dst], ncols; (one whole warp)");
  b.def(
      "tmem_dealloc", [](nb::handle taddr, uint32_t ncols, bw::CtaGroup g) { bw::tmem_dealloc(reg_of(taddr), ncols, g, here()); },
      nb::arg("taddr"), nb::arg("ncols"), nb::arg("group") = bw::CtaGroup::One);
  b.def(
      "tmem_relinquish_alloc_permit", [](bw::CtaGroup g) { bw::tmem_relinquish_alloc_permit(g, here()); },
      nb::arg("group") = bw::CtaGroup::One);
  b.def("tmem_regs", [](bw::TmemShape s, int num) { return bw::tmem_regs(s, num, python_location()); });
  b.def("tmem_fragment_row_col", &bw::tmem_fragment_row_col, nb::arg("shape"), nb::arg("num"), nb::arg("thread"),
        nb::arg("reg"));
  b.def("tmem_fragment_thread_reg", &bw::tmem_fragment_thread_reg, nb::arg("shape"), nb::arg("num"), nb::arg("row"),
        nb::arg("col"));
  b.def(
      "tmem_load",
      [](bw::TmemShape s, int num, nb::handle dst, int first, nb::handle taddr, int64_t offset, bool pack16) {
        bw::tmem_load(s, num, reg_array_of(dst), first, reg_of(taddr), offset, pack16, here());
      },
      nb::arg("shape"), nb::arg("num"), nb::arg("dst"), nb::arg("first"), nb::arg("taddr"), nb::arg("offset") = 0,
      nb::arg("pack16") = false, "tcgen05.ld.sync.aligned.SHAPE.xNUM.b32 {dst[first], ...}, [taddr+offset];");
  b.def(
      "tmem_store",
      [](bw::TmemShape s, int num, nb::handle taddr, nb::handle src, int first, int64_t offset, bool unpack16) {
        bw::tmem_store(s, num, reg_of(taddr), reg_array_of(src), first, offset, unpack16, here());
      },
      nb::arg("shape"), nb::arg("num"), nb::arg("taddr"), nb::arg("src"), nb::arg("first"), nb::arg("offset") = 0,
      nb::arg("unpack16") = false);
  b.def("tmem_wait_ld", [] { bw::tmem_wait_ld(here()); });
  b.def("tmem_wait_st", [] { bw::tmem_wait_st(here()); });
}

void bind_mma(nb::module_& b) {
  b.def(
      "mma",
      [](nb::handle id, nb::handle d, nb::handle a, nb::handle bdesc, nb::handle enable, nb::handle group,
         nb::handle kind, nb::handle collector_a, nb::handle scale_input_d, bool ashift, nb::handle meta,
         nb::handle lanes) {
        const char* fn = "mma";
        std::vector<ptx::Reg> lane_regs;
        const bw::MmaOptions o = mma_options({collector_a, scale_input_d, meta, lanes, ashift}, lane_regs, fn);
        ptx::Reg &dr = reg_arg(d, fn, "d_tmem"), &ar = reg_arg(a, fn, "a_desc"), &br = reg_arg(bdesc, fn, "b_desc");
        ptx::Reg& p = reg_arg(enable, fn, "enable_input_d");
        if (nb::isinstance<bw::InstrDescriptor>(id))  // a trace-time descriptor: an immediate
          return bw::mma(nb::cast<bw::InstrDescriptor>(id), dr, ar, br, p, o, here());
        if (group.is_none() || kind.is_none())
          throw nb::type_error("mma with a run-time descriptor (a register) needs group= and kind=");
        bw::mma(enum_arg<bw::CtaGroup>(group, fn, "group"), enum_arg<bw::MmaKind>(kind, fn, "kind"), dr, ar, br,
                reg_arg(id, fn, "idesc"), p, o, here());
      },
      nb::arg("idesc"), nb::arg("d_tmem"), nb::arg("a_desc"), nb::arg("b_desc"), nb::arg("enable_input_d"),
      nb::arg("group") = nb::none(), nb::arg("kind") = nb::none(), nb::arg("collector_a") = nb::none(),
      nb::arg("scale_input_d") = nb::none(), nb::arg("ashift") = false, nb::arg("sparse_metadata") = nb::none(),
      nb::arg("disable_output_lane") = nb::none(),
      "tcgen05.mma{.sp}.cta_group::N.kind::K [d_tmem], a_desc, b_desc, {[meta],} IDESC, {{lanes},} enable_input_d; "
      "idesc an InstrDescriptor (an immediate) or a 32-bit register (then group= and kind=)");
  b.def(
      "mma_tmem_a",
      [](const bw::InstrDescriptor& id, nb::handle d, nb::handle a, nb::handle bdesc, nb::handle enable,
         nb::handle collector_a, nb::handle scale_input_d, bool ashift, nb::handle meta, nb::handle lanes) {
        const char* fn = "mma_tmem_a";
        std::vector<ptx::Reg> lane_regs;
        const bw::MmaOptions o = mma_options({collector_a, scale_input_d, meta, lanes, ashift}, lane_regs, fn);
        bw::mma_tmem_a(id, reg_arg(d, fn, "d_tmem"), reg_arg(a, fn, "a_tmem"), reg_arg(bdesc, fn, "b_desc"),
                       reg_arg(enable, fn, "enable_input_d"), o, here());
      },
      nb::arg("idesc"), nb::arg("d_tmem"), nb::arg("a_tmem"), nb::arg("b_desc"), nb::arg("enable_input_d"),
      nb::arg("collector_a") = nb::none(), nb::arg("scale_input_d") = nb::none(), nb::arg("ashift") = false,
      nb::arg("sparse_metadata") = nb::none(), nb::arg("disable_output_lane") = nb::none(),
      "tcgen05.mma.cta_group::N.kind::K [d_tmem], [a_tmem], b_desc, IDESC, enable_input_d;");
  b.def(
      "commit",
      [](bw::CtaGroup g, nb::handle bar, nb::handle guard) { bw::commit(g, mbarrier_of(bar), optional_reg(guard), here()); },
      nb::arg("group"), nb::arg("bar"), nb::arg("guard") = nb::none(),
      "tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster.b64 [bar];");
  b.def(
      "commit_multicast",
      [](bw::CtaGroup g, nb::handle bar, nb::handle mask, nb::handle guard) {
        bw::commit_multicast(g, mbarrier_of(bar), reg_of(mask), optional_reg(guard), here());
      },
      nb::arg("group"), nb::arg("bar"), nb::arg("cta_mask"), nb::arg("guard") = nb::none());
  b.def("fence_before_thread_sync", [] { bw::fence_before_thread_sync(here()); });
  b.def(
      "tma_load_pair",
      [](nb::handle dst, nb::handle map, nb::handle coords, nb::handle bar, nb::handle guard) {
        const ptx::Operand d = to_operand(dst, FloatAs::F32);
        with_coords(coords, [&](std::initializer_list<ptx::Operand> c) {
          bw::tma_load_pair(d, reg_of(map), c, mbarrier_of(bar), optional_reg(guard), here());
        });
      },
      nb::arg("dst"), nb::arg("map"), nb::arg("coords"), nb::arg("bar"), nb::arg("guard") = nb::none(),
      "cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [dst], "
      "[map, {c...}], [bar]; (bar: this CTA's mbarrier or its peer's, from hopper.map_shared_rank)");
  b.def("fence_after_thread_sync", [] { bw::fence_after_thread_sync(here()); });
}

}  // namespace

void bind_blackwell(nb::module_& m) {
  nb::module_ b = m.def_submodule("blackwell", "The Blackwell helpers (ptx::blackwell, sm_100a)");
  bind_enums(b);
  bind_blackwell_form_enums(b);
  bind_descriptors(b);
  bind_tmem(b);
  bind_mma(b);
  bind_blackwell_forms(b);
}

}  // namespace ptxpy
