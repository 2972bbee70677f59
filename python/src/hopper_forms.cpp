// The rest of ptx::hopper from Python: editing tensor maps on the device (tensormap.replace,
// publish, acquire), the im2col TMA load and prefetch, the A and accumulator fragment maps, and
// what wgmma_kind_info knows of a kind. Each emits what the C++ helper emits (docs/dsl.md,
// "Hopper helpers"); the argument names are C++'s, and a wrong one is a TypeError naming it.
#include <nanobind/stl/tuple.h>

#include "arg_checks.hpp"
#include "tma_coords.hpp"

namespace ptxpy {

namespace {

namespace hop = ptx::hopper;

void bind_tensormap_enums(nb::module_& h) {
  nb::enum_<hop::TensormapSpace>(h, "TensormapSpace")
      .value("global_", hop::TensormapSpace::global)
      .value("shared", hop::TensormapSpace::shared);
  using E = hop::TensormapElemtype;
  nb::enum_<E>(h, "TensormapElemtype")
      .value("u8", E::u8)
      .value("u16", E::u16)
      .value("u32", E::u32)
      .value("s32", E::s32)
      .value("u64", E::u64)
      .value("s64", E::s64)
      .value("f16", E::f16)
      .value("f32", E::f32)
      .value("f32_ftz", E::f32_ftz)
      .value("f64", E::f64)
      .value("bf16", E::bf16)
      .value("tf32", E::tf32)
      .value("tf32_ftz", E::tf32_ftz)
      .value("b4x16", E::b4x16)
      .value("b4x16_p64", E::b4x16_p64)
      .value("b6x16_p32", E::b6x16_p32);
  nb::enum_<hop::TensormapInterleave>(h, "TensormapInterleave")
      .value("none", hop::TensormapInterleave::none)
      .value("b16", hop::TensormapInterleave::b16)
      .value("b32", hop::TensormapInterleave::b32);
  nb::enum_<hop::TensormapSwizzle>(h, "TensormapSwizzle")
      .value("none", hop::TensormapSwizzle::none)
      .value("b32", hop::TensormapSwizzle::b32)
      .value("b64", hop::TensormapSwizzle::b64)
      .value("b128", hop::TensormapSwizzle::b128)
      .value("b96", hop::TensormapSwizzle::b96);
  nb::enum_<hop::TensormapSwizzleAtomicity>(h, "TensormapSwizzleAtomicity")
      .value("b16", hop::TensormapSwizzleAtomicity::b16)
      .value("b32", hop::TensormapSwizzleAtomicity::b32)
      .value("b32_flip_8b", hop::TensormapSwizzleAtomicity::b32_flip_8b)
      .value("b64", hop::TensormapSwizzleAtomicity::b64);
  nb::enum_<hop::TensormapFill>(h, "TensormapFill")
      .value("zero", hop::TensormapFill::zero)
      .value("nan_request_zero_fma", hop::TensormapFill::nan_request_zero_fma);
}

// tensormap_replace(space, map, v): the enumerated field v's type names the field.
void replace_enum_field(hop::TensormapSpace space, const ptx::Operand& map, nb::handle v) {
  const char* fn = "tensormap_replace";
  if (nb::isinstance<hop::TensormapElemtype>(v))
    return hop::tensormap_replace(space, map, nb::cast<hop::TensormapElemtype>(v), here());
  if (nb::isinstance<hop::TensormapInterleave>(v))
    return hop::tensormap_replace(space, map, nb::cast<hop::TensormapInterleave>(v), here());
  if (nb::isinstance<hop::TensormapSwizzle>(v))
    return hop::tensormap_replace(space, map, nb::cast<hop::TensormapSwizzle>(v), here());
  if (nb::isinstance<hop::TensormapSwizzleAtomicity>(v))
    return hop::tensormap_replace(space, map, nb::cast<hop::TensormapSwizzleAtomicity>(v), here());
  if (nb::isinstance<hop::TensormapFill>(v))
    return hop::tensormap_replace(space, map, nb::cast<hop::TensormapFill>(v), here());
  wrong_argument(fn, "v",
                 "a ptx.hopper.TensormapElemtype, TensormapInterleave, TensormapSwizzle, TensormapSwizzleAtomicity or "
                 "TensormapFill",
                 v);
}

// The replace functions of one dimension's field: (space, map, dim, value).
using DimReplace = void (*)(hop::TensormapSpace, const ptx::Operand&, int, const ptx::Operand&, ptx::SourceLocation);

void def_dim_replace(nb::module_& h, const char* fn, DimReplace f, const char* doc) {
  h.def(
      fn,
      [fn, f](nb::handle space, nb::handle map, nb::handle dim, nb::handle value) {
        f(enum_arg<hop::TensormapSpace>(space, fn, "space"), operand_arg(map, fn, "map"), int_arg(dim, fn, "dim"),
          operand_arg(value, fn, "value"), here());
      },
      nb::arg("space"), nb::arg("map"), nb::arg("dim"), nb::arg("value"), doc);
}

void bind_tensormap(nb::module_& h) {
  bind_tensormap_enums(h);
  h.def(
      "tensormap_replace_global_address",
      [](nb::handle space, nb::handle map, nb::handle value) {
        const char* fn = "tensormap_replace_global_address";
        hop::tensormap_replace_global_address(enum_arg<hop::TensormapSpace>(space, fn, "space"),
                                              operand_arg(map, fn, "map"), operand_arg(value, fn, "value"), here());
      },
      nb::arg("space"), nb::arg("map"), nb::arg("value"),
      "tensormap.replace.tile.global_address.SPACE.b1024.b64 [map], value;");
  h.def(
      "tensormap_replace_rank",
      [](nb::handle space, nb::handle map, nb::handle rank) {
        const char* fn = "tensormap_replace_rank";
        hop::tensormap_replace_rank(enum_arg<hop::TensormapSpace>(space, fn, "space"), operand_arg(map, fn, "map"),
                                    int_arg(rank, fn, "rank"), here());
      },
      nb::arg("space"), nb::arg("map"), nb::arg("rank"),
      "tensormap.replace.tile.rank.SPACE.b1024.b32 [map], rank - 1;");
  def_dim_replace(h, "tensormap_replace_box_dim", &hop::tensormap_replace_box_dim,
                  "tensormap.replace.tile.box_dim.SPACE.b1024.b32 [map], dim, value;");
  def_dim_replace(h, "tensormap_replace_global_dim", &hop::tensormap_replace_global_dim,
                  "tensormap.replace.tile.global_dim.SPACE.b1024.b32 [map], dim, value;");
  def_dim_replace(h, "tensormap_replace_global_stride", &hop::tensormap_replace_global_stride,
                  "tensormap.replace.tile.global_stride.SPACE.b1024.b64 [map], dim - 1, value; (bytes, dim 1 to 4)");
  def_dim_replace(h, "tensormap_replace_element_stride", &hop::tensormap_replace_element_stride,
                  "tensormap.replace.tile.element_stride.SPACE.b1024.b32 [map], dim, value;");
  h.def(
      "tensormap_replace",
      [](nb::handle space, nb::handle map, nb::handle v) {
        const char* fn = "tensormap_replace";
        replace_enum_field(enum_arg<hop::TensormapSpace>(space, fn, "space"), operand_arg(map, fn, "map"), v);
      },
      nb::arg("space"), nb::arg("map"), nb::arg("v"),
      "tensormap.replace.tile.FIELD.SPACE.b1024.b32 [map], CODE; (FIELD: elemtype, interleave_layout, "
      "swizzle_mode, swizzle_atomicity or fill_mode, from v's type)");
  h.def(
      "tensormap_publish",
      [](nb::handle global_map, nb::handle shared_map) {
        const char* fn = "tensormap_publish";
        hop::tensormap_publish(operand_arg(global_map, fn, "global_map"), operand_arg(shared_map, fn, "shared_map"),
                               here());
      },
      nb::arg("global_map"), nb::arg("shared_map"),
      "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [global_map], "
      "[shared_map], 128; (a whole warp)");
  h.def(
      "tensormap_acquire",
      [](nb::handle map) { hop::tensormap_acquire(reg_arg(map, "tensormap_acquire", "map"), here()); }, nb::arg("map"),
      "fence.proxy.tensormap::generic.acquire.gpu [map], 128;");
}

void bind_im2col(nb::module_& h) {
  h.def(
      "tma_load_im2col",
      [](nb::handle dst, nb::handle map, nb::handle coords, nb::handle offsets, nb::handle bar, nb::handle guard,
         nb::handle multicast, nb::handle cache_hint) {
        const char* fn = "tma_load_im2col";
        const hop::TmaOptions opt{optional_reg_arg(guard, fn, "guard"), optional_reg_arg(multicast, fn, "multicast"),
                                  optional_reg_arg(cache_hint, fn, "cache_hint")};
        const ptx::Operand d = operand_arg(dst, fn, "dst");
        const ptx::Reg& m = reg_arg(map, fn, "map");
        if (!is_mbarrier(bar)) wrong_argument(fn, "bar", "a ptx.hopper.Mbarrier", bar);
        with_coords_offsets(coords, offsets,
                            [&](std::initializer_list<ptx::Operand> c, std::initializer_list<ptx::Operand> o) {
                              hop::tma_load_im2col(d, m, c, o, mbarrier_of(bar), opt, here());
                            });
      },
      nb::arg("dst"), nb::arg("map"), nb::arg("coords"), nb::arg("offsets"), nb::arg("bar"),
      nb::arg("guard") = nb::none(), nb::arg("multicast") = nb::none(), nb::arg("cache_hint") = nb::none(),
      "cp.async.bulk.tensor.Nd.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [dst], [map, {c...}], "
      "[bar], {o...}; (N - 2 offsets for N = 3 to 5 coordinates)");
  h.def(
      "tma_prefetch_im2col",
      [](nb::handle map, nb::handle coords, nb::handle offsets, nb::handle guard, nb::handle cache_hint) {
        const char* fn = "tma_prefetch_im2col";
        const hop::TmaCacheOptions opt{optional_reg_arg(guard, fn, "guard"),
                                       optional_reg_arg(cache_hint, fn, "cache_hint")};
        const ptx::Reg& m = reg_arg(map, fn, "map");
        with_coords_offsets(coords, offsets,
                            [&](std::initializer_list<ptx::Operand> c, std::initializer_list<ptx::Operand> o) {
                              hop::tma_prefetch_im2col(m, c, o, opt, here());
                            });
      },
      nb::arg("map"), nb::arg("coords"), nb::arg("offsets"), nb::arg("guard") = nb::none(),
      nb::arg("cache_hint") = nb::none(), "cp.async.bulk.prefetch.tensor.Nd.L2.global.im2col [map, {c...}], {o...};");
}

nb::tuple slot_tuple(const hop::FragmentSlot& s) { return nb::make_tuple(s.thread, s.reg, s.element); }

// A WgmmaKind, or a tuple (a, b, d[, satfinite]) as C++'s braces `{a, b, d}` (not checked: the
// info says what is wrong with it).
hop::WgmmaKind unchecked_kind(nb::handle h) {
  if (nb::isinstance<hop::WgmmaKind>(h)) return nb::cast<hop::WgmmaKind>(h);
  if (!nb::isinstance<nb::tuple>(h) || (nb::len(h) != 3 && nb::len(h) != 4))
    wrong_argument("wgmma_kind_info", "kind", "a ptx.hopper.WgmmaKind or a tuple (a, b, d[, satfinite])", h);
  const nb::tuple t = nb::borrow<nb::tuple>(h);
  return {nb::cast<ptx::DType>(t[0]), nb::cast<ptx::DType>(t[1]), nb::cast<ptx::DType>(t[2]),
          t.size() == 4 && nb::cast<bool>(t[3])};
}

void bind_fragments_and_kinds(nb::module_& h) {
  h.def(
      "accumulator_thread_reg",
      [](int n, int row, int col) {
        const auto [t, r] = hop::accumulator_thread_reg(n, row, col);
        return nb::make_tuple(t, r);
      },
      nb::arg("n"), nb::arg("row"), nb::arg("col"), "(thread, register) of (row, col) of the 64 x N f32/s32 tile");
  h.def(
      "a_fragment_row_col",
      [](ptx::DType a, int thread, int reg, int element) {
        const auto [r, c] = hop::a_fragment_row_col(a, thread, reg, element);
        return nb::make_tuple(r, c);
      },
      nb::arg("a"), nb::arg("thread"), nb::arg("reg"), nb::arg("element"),
      "(row, col) of the 64 x K A tile that element `element` of register `reg` of `thread` holds");
  h.def(
      "a_fragment_slot", [](ptx::DType a, int row, int col) { return slot_tuple(hop::a_fragment_slot(a, row, col)); },
      nb::arg("a"), nb::arg("row"), nb::arg("col"), "(thread, register, element) holding (row, col) of A");
  nb::class_<hop::WgmmaKindInfo>(h, "WgmmaKindInfo", "What one wgmma.mma_async kind's instruction looks like")
      .def_prop_ro("problem",
                   [](const hop::WgmmaKindInfo& i) -> nb::object {
                     if (i.problem) return nb::str(i.problem);
                     return nb::none();
                   })
      .def_ro("k", &hop::WgmmaKindInfo::k)
      .def_ro("acc_per_n", &hop::WgmmaKindInfo::acc_per_n)
      .def_ro("scale", &hop::WgmmaKindInfo::scale)
      .def_ro("trans", &hop::WgmmaKindInfo::trans)
      .def_ro("integer", &hop::WgmmaKindInfo::integer)
      .def_ro("and_popc", &hop::WgmmaKindInfo::and_popc);
  h.def(
      "wgmma_kind_info", [](nb::handle kind) { return hop::wgmma_kind_info(unchecked_kind(kind)); }, nb::arg("kind"),
      "the kind's K, accumulator count, immediates; `problem` says why it is no kind of the ISA (else None)");
  h.def("wgmma_is_8bit_float", &hop::wgmma_is_8bit_float, nb::arg("t"));
  h.def("wgmma_is_8bit_int", &hop::wgmma_is_8bit_int, nb::arg("t"));
}

}  // namespace

void bind_hopper_forms(nb::module_& h) {
  bind_tensormap(h);
  bind_im2col(h);
  bind_fragments_and_kinds(h);
}

}  // namespace ptxpy
