// The rest of ptx::blackwell from Python: the block-scaled descriptor and tcgen05.mma forms, the
// weight-stationary (.ws) forms, the sparse options of tcgen05.mma (with .ashift and
// disable-output-lane), tcgen05.cp and tcgen05.shift, and the TMA row gather/scatter. Each emits
// what the C++ helper emits (docs/dsl.md, "Blackwell helpers"); the argument names are C++'s.
#include <array>
#include <vector>

#include "blackwell_args.hpp"
#include "tma_coords.hpp"

namespace ptxpy {

namespace bw = ptx::blackwell;

void bind_blackwell_form_enums(nb::module_& b) {
  nb::enum_<bw::WsMaxShift>(b, "WsMaxShift")
      .value("None_", bw::WsMaxShift::None)
      .value("By8", bw::WsMaxShift::By8)
      .value("By16", bw::WsMaxShift::By16)
      .value("By32", bw::WsMaxShift::By32);
  nb::enum_<bw::CollectorBuffer>(b, "CollectorBuffer")
      .value("B0", bw::CollectorBuffer::B0)
      .value("B1", bw::CollectorBuffer::B1)
      .value("B2", bw::CollectorBuffer::B2)
      .value("B3", bw::CollectorBuffer::B3);
  nb::enum_<bw::ScaledKind>(b, "ScaledKind")
      .value("MXF8F6F4", bw::ScaledKind::MXF8F6F4)
      .value("MXF4", bw::ScaledKind::MXF4)
      .value("MXF4NVF4", bw::ScaledKind::MXF4NVF4);
  nb::enum_<bw::ScaleVec>(b, "ScaleVec")
      .value("Default", bw::ScaleVec::Default)
      .value("X1", bw::ScaleVec::X1)
      .value("X2", bw::ScaleVec::X2)
      .value("X4", bw::ScaleVec::X4)
      .value("Block16", bw::ScaleVec::Block16)
      .value("Block32", bw::ScaleVec::Block32);
  nb::enum_<bw::ScaleType>(b, "ScaleType").value("ue4m3", bw::ScaleType::ue4m3).value("ue8m0", bw::ScaleType::ue8m0);
  nb::enum_<bw::CpShape>(b, "CpShape")
      .value("S128x256b", bw::CpShape::S128x256b)
      .value("S4x256b", bw::CpShape::S4x256b)
      .value("S128x128b", bw::CpShape::S128x128b)
      .value("S64x128b_02_13", bw::CpShape::S64x128b_02_13)
      .value("S64x128b_01_23", bw::CpShape::S64x128b_01_23)
      .value("S32x128b", bw::CpShape::S32x128b);
  nb::enum_<bw::CpSource>(b, "CpSource")
      .value("Plain", bw::CpSource::Plain)
      .value("B6x16_P32", bw::CpSource::B6x16_P32)
      .value("B4x16_P64", bw::CpSource::B4x16_P64);
  nb::class_<bw::CollectorB>(b, "CollectorB", "A .ws B collector hint: one of the four buffers and what to do with it")
      .def(nb::init<>())
      .def(
          "__init__",
          [](bw::CollectorB* self, bw::CollectorBuffer buffer, bw::CollectorOp op) {
            new (self) bw::CollectorB{buffer, op};
          },
          nb::arg("buffer"), nb::arg("op"))
      .def_rw("buffer", &bw::CollectorB::buffer)
      .def_rw("op", &bw::CollectorB::op);
}

namespace {

void bind_block_scaled_descriptor(nb::module_& b) {
  using D = bw::BlockScaledDescriptor;
  nb::class_<D>(b, "BlockScaledDescriptor", "The 32-bit block-scaled tcgen05.mma instruction descriptor's fields")
      .def(
          "__init__",
          [](D* self, bw::ScaledKind kind, bw::MmaType a, bw::MmaType bt, bw::ScaleVec vec, bw::ScaleType st, int m,
             int n, bw::CtaGroup group, int sa, int sb, bool ta, bool tb, bool na, bool nb_, bool sparse, bool k96) {
            new (self) D{.kind = kind,
                         .a = a,
                         .b = bt,
                         .vec = vec,
                         .scale_type = st,
                         .m = m,
                         .n = n,
                         .group = group,
                         .scale_a_id = sa,
                         .scale_b_id = sb,
                         .transpose_a = ta,
                         .transpose_b = tb,
                         .negate_a = na,
                         .negate_b = nb_,
                         .sparse = sparse,
                         .k96 = k96};
          },
          nb::arg("kind") = bw::ScaledKind::MXF8F6F4, nb::arg("a") = bw::MmaType::e4m3,
          nb::arg("b") = bw::MmaType::e4m3, nb::arg("vec") = bw::ScaleVec::X1,
          nb::arg("scale_type") = bw::ScaleType::ue8m0, nb::arg("m") = 128, nb::arg("n") = 256,
          nb::arg("group") = bw::CtaGroup::One, nb::arg("scale_a_id") = 0, nb::arg("scale_b_id") = 0,
          nb::arg("transpose_a") = false, nb::arg("transpose_b") = false, nb::arg("negate_a") = false,
          nb::arg("negate_b") = false, nb::arg("sparse") = false, nb::arg("k96") = false)
      .def_rw("kind", &D::kind)
      .def_rw("a", &D::a)
      .def_rw("b", &D::b)
      .def_rw("vec", &D::vec)
      .def_rw("scale_type", &D::scale_type)
      .def_rw("m", &D::m)
      .def_rw("n", &D::n)
      .def_rw("group", &D::group)
      .def_rw("scale_a_id", &D::scale_a_id)
      .def_rw("scale_b_id", &D::scale_b_id)
      .def_rw("transpose_a", &D::transpose_a)
      .def_rw("transpose_b", &D::transpose_b)
      .def_rw("negate_a", &D::negate_a)
      .def_rw("negate_b", &D::negate_b)
      .def_rw("sparse", &D::sparse)
      .def_rw("k96", &D::k96)
      .def(
          "bits", [](const D& d) { return d.bits(python_location()); }, "encodes (and checks) it")
      .def_static("decode", &D::decode, nb::arg("bits"), nb::arg("kind"), nb::arg("vec"),
                  nb::arg("group") = bw::CtaGroup::One)
      .def("__eq__", [](const D& x, const D& y) { return x == y; });
  b.def(
      "mma_k", [](const D& d) { return bw::mma_k(d); }, nb::arg("desc"),
      "the K of one block-scaled instruction: 32 (mxf8f6f4), 64 (mxf4 kinds; 96 with k96); sparse twice");
  b.def(
      "scale_factors_per_row", [](const D& d) { return bw::scale_factors_per_row(d, python_location()); },
      nb::arg("desc"));
}

// The registers of disable_output_lane (a list of registers or a reg.array), as aliases.
std::vector<ptx::Reg> lane_regs(nb::handle h, const char* fn) {
  std::vector<ptx::Reg> out;
  if (h.is_none()) return out;
  if (nb::isinstance<PyRegArray>(h)) {
    const ptx::RegArray& a = reg_array_of(h);
    for (size_t i = 0; i < a.size(); ++i) out.push_back(alias(a[i]));
    return out;
  }
  if (!nb::isinstance<nb::list>(h) && !nb::isinstance<nb::tuple>(h))
    wrong_argument(fn, "disable_output_lane", "a list of registers", h);
  for (nb::handle x : h) out.push_back(alias(reg_arg(x, fn, "disable_output_lane")));
  return out;
}

}  // namespace

bw::MmaOptions mma_options(const MmaKeywords& k, std::vector<ptx::Reg>& lanes, const char* fn) {
  bw::MmaOptions o;
  o.collector_a = optional_enum_arg<bw::CollectorOp>(k.collector_a, fn, "collector_a");
  if (!k.scale_input_d.is_none()) {
    if (!PyLong_Check(k.scale_input_d.ptr())) wrong_argument(fn, "scale_input_d", "an int", k.scale_input_d);
    o.scale_input_d = nb::cast<int>(k.scale_input_d);
  }
  o.ashift = k.ashift;
  o.sparse_metadata = optional_reg_arg(k.sparse_metadata, fn, "sparse_metadata");
  lanes = lane_regs(k.disable_output_lane, fn);
  o.disable_output_lane = lanes;
  return o;
}

namespace {

bw::MmaWsOptions ws_options(nb::handle collector_b, nb::handle meta, nb::handle zcm, const char* fn) {
  bw::MmaWsOptions o;
  if (!collector_b.is_none()) {
    if (!nb::isinstance<bw::CollectorB>(collector_b))
      wrong_argument(fn, "collector_b", "a ptx.blackwell.CollectorB", collector_b);
    o.collector_b = nb::cast<bw::CollectorB>(collector_b);
  }
  o.sparse_metadata = optional_reg_arg(meta, fn, "sparse_metadata");
  o.zero_column_mask = optional_reg_arg(zcm, fn, "zero_column_mask");
  return o;
}

void bind_ws(nb::module_& b) {
  b.def(
      "mma_ws",
      [](nb::handle id, nb::handle d, nb::handle a, nb::handle bdesc, nb::handle enable, nb::handle kind,
         nb::handle collector_b, nb::handle meta, nb::handle zcm) {
        const char* fn = "mma_ws";
        const bw::MmaWsOptions o = ws_options(collector_b, meta, zcm, fn);
        ptx::Reg &dr = reg_arg(d, fn, "d_tmem"), &ar = reg_arg(a, fn, "a_desc"), &br = reg_arg(bdesc, fn, "b_desc");
        ptx::Reg& p = reg_arg(enable, fn, "enable_input_d");
        if (nb::isinstance<bw::InstrDescriptor>(id))  // a trace-time descriptor: an immediate
          return bw::mma_ws(nb::cast<bw::InstrDescriptor>(id), dr, ar, br, p, o, here());
        if (kind.is_none()) throw nb::type_error("mma_ws with a run-time descriptor (a register) needs kind=");
        bw::mma_ws(enum_arg<bw::MmaKind>(kind, fn, "kind"), dr, ar, br, reg_arg(id, fn, "idesc"), p, o, here());
      },
      nb::arg("idesc"), nb::arg("d_tmem"), nb::arg("a_desc"), nb::arg("b_desc"), nb::arg("enable_input_d"),
      nb::arg("kind") = nb::none(), nb::arg("collector_b") = nb::none(), nb::arg("sparse_metadata") = nb::none(),
      nb::arg("zero_column_mask") = nb::none(),
      "tcgen05.mma.ws{.sp}.cta_group::1.kind::K{.collector::bN::OP} [d_tmem], a_desc, b_desc, {[meta],} IDESC, "
      "enable_input_d{, zero_column_mask}; idesc an InstrDescriptor (checked with ws set) or a 32-bit register "
      "(then kind=)");
  b.def(
      "mma_ws_tmem_a",
      [](const bw::InstrDescriptor& id, nb::handle d, nb::handle a, nb::handle bdesc, nb::handle enable,
         nb::handle collector_b, nb::handle meta, nb::handle zcm) {
        const char* fn = "mma_ws_tmem_a";
        bw::mma_ws_tmem_a(id, reg_arg(d, fn, "d_tmem"), reg_arg(a, fn, "a_tmem"), reg_arg(bdesc, fn, "b_desc"),
                          reg_arg(enable, fn, "enable_input_d"), ws_options(collector_b, meta, zcm, fn), here());
      },
      nb::arg("idesc"), nb::arg("d_tmem"), nb::arg("a_tmem"), nb::arg("b_desc"), nb::arg("enable_input_d"),
      nb::arg("collector_b") = nb::none(), nb::arg("sparse_metadata") = nb::none(),
      nb::arg("zero_column_mask") = nb::none(),
      "tcgen05.mma.ws.cta_group::1.kind::K [d_tmem], [a_tmem], b_desc, IDESC, enable_input_d;");
}

bw::BlockScaledOptions scaled_options(nb::handle collector_a, nb::handle meta, const char* fn) {
  bw::BlockScaledOptions o;
  o.collector_a = optional_enum_arg<bw::CollectorOp>(collector_a, fn, "collector_a");
  o.sparse_metadata = optional_reg_arg(meta, fn, "sparse_metadata");
  return o;
}

// The operands every block-scaled form takes after the descriptor, in C++'s order.
struct ScaledOperands {
  ptx::Reg &d, &a, &b, &sa, &sb, &p;
};
ScaledOperands scaled_operands(nb::handle d, nb::handle a, nb::handle b, nb::handle sa, nb::handle sb, nb::handle p,
                               const char* fn, const char* a_name) {
  return {reg_arg(d, fn, "d_tmem"),        reg_arg(a, fn, a_name),          reg_arg(b, fn, "b_desc"),
          reg_arg(sa, fn, "scale_a_tmem"), reg_arg(sb, fn, "scale_b_tmem"), reg_arg(p, fn, "enable_input_d")};
}

void bind_block_scaled(nb::module_& b) {
  b.def(
      "mma_block_scaled",
      [](nb::handle id, nb::handle d, nb::handle a, nb::handle bdesc, nb::handle sa, nb::handle sb, nb::handle enable,
         nb::handle group, nb::handle kind, nb::handle vec, nb::handle collector_a, nb::handle meta) {
        const char* fn = "mma_block_scaled";
        const ScaledOperands o = scaled_operands(d, a, bdesc, sa, sb, enable, fn, "a_desc");
        const bw::BlockScaledOptions opt = scaled_options(collector_a, meta, fn);
        if (nb::isinstance<bw::BlockScaledDescriptor>(id))
          return bw::mma_block_scaled(nb::cast<bw::BlockScaledDescriptor>(id), o.d, o.a, o.b, o.sa, o.sb, o.p, opt,
                                      here());
        if (group.is_none() || kind.is_none() || vec.is_none())
          throw nb::type_error("mma_block_scaled with a run-time descriptor (a register) needs group=, kind= and vec=");
        bw::mma_block_scaled(enum_arg<bw::CtaGroup>(group, fn, "group"), enum_arg<bw::ScaledKind>(kind, fn, "kind"),
                             enum_arg<bw::ScaleVec>(vec, fn, "vec"), o.d, o.a, o.b, reg_arg(id, fn, "idesc"), o.sa,
                             o.sb, o.p, opt, here());
      },
      nb::arg("idesc"), nb::arg("d_tmem"), nb::arg("a_desc"), nb::arg("b_desc"), nb::arg("scale_a_tmem"),
      nb::arg("scale_b_tmem"), nb::arg("enable_input_d"), nb::arg("group") = nb::none(), nb::arg("kind") = nb::none(),
      nb::arg("vec") = nb::none(), nb::arg("collector_a") = nb::none(), nb::arg("sparse_metadata") = nb::none(),
      "tcgen05.mma{.sp}.cta_group::N.kind::K.block_scale{.VEC} [d_tmem], a_desc, b_desc, {[meta],} IDESC, "
      "[scale_a_tmem], [scale_b_tmem], enable_input_d; idesc a BlockScaledDescriptor (an immediate) or a 32-bit "
      "register (then group=, kind= and vec=)");
  b.def(
      "mma_block_scaled_tmem_a",
      [](const bw::BlockScaledDescriptor& id, nb::handle d, nb::handle a, nb::handle bdesc, nb::handle sa,
         nb::handle sb, nb::handle enable, nb::handle collector_a, nb::handle meta) {
        const char* fn = "mma_block_scaled_tmem_a";
        const ScaledOperands o = scaled_operands(d, a, bdesc, sa, sb, enable, fn, "a_tmem");
        bw::mma_block_scaled_tmem_a(id, o.d, o.a, o.b, o.sa, o.sb, o.p, scaled_options(collector_a, meta, fn), here());
      },
      nb::arg("idesc"), nb::arg("d_tmem"), nb::arg("a_tmem"), nb::arg("b_desc"), nb::arg("scale_a_tmem"),
      nb::arg("scale_b_tmem"), nb::arg("enable_input_d"), nb::arg("collector_a") = nb::none(),
      nb::arg("sparse_metadata") = nb::none());
}

void bind_copy_shift(nb::module_& b) {
  b.def(
      "tmem_copy",
      [](nb::handle group, nb::handle shape, nb::handle taddr, nb::handle s_desc, nb::handle src) {
        const char* fn = "tmem_copy";
        bw::tmem_copy(enum_arg<bw::CtaGroup>(group, fn, "group"), enum_arg<bw::CpShape>(shape, fn, "shape"),
                      reg_arg(taddr, fn, "taddr"), reg_arg(s_desc, fn, "s_desc"),
                      enum_arg<bw::CpSource>(src, fn, "src"), here());
      },
      nb::arg("group"), nb::arg("shape"), nb::arg("taddr"), nb::arg("s_desc"), nb::arg("src") = bw::CpSource::Plain,
      "tcgen05.cp.cta_group::N.SHAPE{.warpx..}{.b8x16.SRC} [taddr], s_desc;");
  b.def(
      "tmem_shift_down",
      [](nb::handle group, nb::handle taddr) {
        bw::tmem_shift_down(enum_arg<bw::CtaGroup>(group, "tmem_shift_down", "group"),
                            reg_arg(taddr, "tmem_shift_down", "taddr"), here());
      },
      nb::arg("group"), nb::arg("taddr"), "tcgen05.shift.cta_group::N.down [taddr];");
}

std::array<ptx::Operand, 4> four_rows(nb::handle rows, const char* fn) {
  std::vector<ptx::Operand> v;
  for (nb::handle x : rows) v.push_back(to_operand(x, FloatAs::F32));
  if (v.size() != 4)
    throw nb::value_error(
        fmt::format("{}{}: argument 'rows' holds the 4 row coordinates, not {}", at_user(), fn, v.size()).c_str());
  return {v[0], v[1], v[2], v[3]};
}

void bind_gather(nb::module_& b) {
  b.def(
      "tma_load_gather4",
      [](nb::handle dst, nb::handle map, nb::handle col, nb::handle rows, nb::handle bar, nb::handle guard,
         nb::handle multicast, nb::handle cache_hint) {
        const char* fn = "tma_load_gather4";
        const ptx::hopper::TmaOptions opt{optional_reg_arg(guard, fn, "guard"),
                                          optional_reg_arg(multicast, fn, "multicast"),
                                          optional_reg_arg(cache_hint, fn, "cache_hint")};
        bw::tma_load_gather4(to_operand(dst, FloatAs::F32), reg_arg(map, fn, "map"), to_operand(col, FloatAs::F32),
                             four_rows(rows, fn), mbarrier_of(bar), opt, here());
      },
      nb::arg("dst"), nb::arg("map"), nb::arg("col"), nb::arg("rows"), nb::arg("bar"), nb::arg("guard") = nb::none(),
      nb::arg("multicast") = nb::none(), nb::arg("cache_hint") = nb::none(),
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [dst], "
      "[map, {col, row0, row1, row2, row3}], [bar];");
  b.def(
      "tma_store_scatter4",
      [](nb::handle map, nb::handle col, nb::handle rows, nb::handle src, nb::handle guard, nb::handle cache_hint) {
        const char* fn = "tma_store_scatter4";
        const ptx::hopper::TmaCacheOptions opt{optional_reg_arg(guard, fn, "guard"),
                                               optional_reg_arg(cache_hint, fn, "cache_hint")};
        bw::tma_store_scatter4(reg_arg(map, fn, "map"), to_operand(col, FloatAs::F32), four_rows(rows, fn),
                               to_operand(src, FloatAs::F32), opt, here());
      },
      nb::arg("map"), nb::arg("col"), nb::arg("rows"), nb::arg("src"), nb::arg("guard") = nb::none(),
      nb::arg("cache_hint") = nb::none(),
      "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [map, {col, row0, ...}], [src];");
}

}  // namespace

void bind_blackwell_forms(nb::module_& b) {
  bind_block_scaled_descriptor(b);
  bind_ws(b);
  bind_block_scaled(b);
  bind_copy_shift(b);
  bind_gather(b);
}

}  // namespace ptxpy
