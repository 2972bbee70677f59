// The Hopper helpers (ptx::hopper, sm_90+) from Python: mbarriers and full/empty pipelines,
// TMA tensor copies (tile loads, stores, reductions, prefetches), bulk groups and proxy fences,
// warp specialization and wgmma (the tensor-map edits, im2col and the fragment maps:
// hopper_forms.cpp). Each emits what the C++ helper emits (docs/dsl.md, "Hopper helpers").
#include <fmt/format.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.hpp"
#include "tma_coords.hpp"

namespace ptxpy {

namespace {

namespace hop = ptx::hopper;

struct PyMbarrier {
  hop::Mbarrier bar;
  uint32_t trace;
  const hop::Mbarrier& get() const {
    check_same_trace(trace, "an mbarrier");
    return bar;
  }
};

struct PyPipeline {
  PyPipeline(hop::Pipeline&& p, uint32_t t) : pipe(std::move(p)), trace(t) {}
  hop::Pipeline pipe;
  uint32_t trace;
  const hop::Pipeline& get() const {
    check_same_trace(trace, "a pipeline");
    return pipe;
  }
};

struct PyPipelineState {
  PyPipelineState(hop::PipelineState&& s, nb::object p) : state(std::move(s)), pipeline(std::move(p)) {}
  PyPipelineState(const PyPipelineState&) = delete;  // its phase register: a copy would be a mov
  PyPipelineState& operator=(const PyPipelineState&) = delete;
  PyPipelineState(PyPipelineState&&) = default;
  PyPipelineState& operator=(PyPipelineState&&) = default;
  hop::PipelineState state;
  nb::object pipeline;  // keeps the Pipeline the state points to alive
  hop::PipelineState& get() {
    nb::inst_ptr<PyPipeline>(pipeline)->get();  // same trace
    return state;
  }
};

nb::object wrap_bar(hop::Mbarrier b) { return nb::cast(PyMbarrier{std::move(b), ptx::dsl::running_trace_id()}); }

const ptx::Reg* optional_reg(nb::handle h) { return h.is_none() ? nullptr : &reg_of(h); }

hop::WgmmaKind checked_kind(ptx::DType a, ptx::DType b, ptx::DType d, bool satfinite) {
  const hop::WgmmaKind k{a, b, d, satfinite};
  if (const char* problem = hop::wgmma_kind_info(k).problem)
    throw ptx::Error(fmt::format("not a wgmma.mma_async kind: {}", problem), {});
  return k;
}

void bind_wgmma(nb::module_& h) {
  nb::enum_<hop::DescSwizzle>(h, "DescSwizzle")
      .value("None_", hop::DescSwizzle::None)
      .value("B128", hop::DescSwizzle::B128)
      .value("B64", hop::DescSwizzle::B64)
      .value("B32", hop::DescSwizzle::B32);
  nb::class_<hop::MatrixDescriptor>(h, "MatrixDescriptor", "A wgmma shared-memory matrix descriptor's fields")
      .def_rw("start", &hop::MatrixDescriptor::start)
      .def_rw("lbo", &hop::MatrixDescriptor::lbo)
      .def_rw("sbo", &hop::MatrixDescriptor::sbo)
      .def_rw("base_offset", &hop::MatrixDescriptor::base_offset)
      .def_rw("swizzle", &hop::MatrixDescriptor::swizzle)
      .def("bits", [](const hop::MatrixDescriptor& d) { return d.bits(python_location()); })
      .def_static("decode", &hop::MatrixDescriptor::decode)
      .def("__eq__", [](const hop::MatrixDescriptor& x, const hop::MatrixDescriptor& y) { return x == y; });
  h.def("k_major", &hop::k_major, nb::arg("start"), nb::arg("swizzle"), nb::arg("sbo"), nb::arg("lbo") = 16);
  h.def("mn_major", &hop::mn_major, nb::arg("start"), nb::arg("swizzle"), nb::arg("lbo"), nb::arg("sbo"));
  h.def(
      "make_descriptor",
      [](nb::handle addr, const hop::MatrixDescriptor& d) {
        return make_reg(hop::make_descriptor(reg_of(addr), d, here()));
      },
      "the 64-bit descriptor of a shared matrix at a 32-bit shared address (five instructions)");
  h.def("wgmma_fence", [] { hop::wgmma_fence(here()); });
  h.def("wgmma_commit", [] { hop::wgmma_commit(here()); });
  h.def("wgmma_wait", [](int n) { hop::wgmma_wait(n, here()); });
  nb::class_<hop::WgmmaKind>(h, "WgmmaKind", "A, B and D types of wgmma.mma_async (checked)")
      .def(
          "__init__",
          [](hop::WgmmaKind* self, ptx::DType a, ptx::DType b, ptx::DType d, bool satfinite) {
            new (self) hop::WgmmaKind(checked_kind(a, b, d, satfinite));
          },
          nb::arg("a"), nb::arg("b"), nb::arg("d"), nb::arg("satfinite") = false)
      .def_ro("a", &hop::WgmmaKind::a)
      .def_ro("b", &hop::WgmmaKind::b)
      .def_ro("d", &hop::WgmmaKind::d)
      .def_ro("satfinite", &hop::WgmmaKind::satfinite);
  h.def(
      "mma_async",
      [](int n, nb::handle kind, nb::handle acc, int first, nb::handle a, nb::handle desc_b, nb::handle scale_d,
         int scale_a, int scale_b, int trans_a, int trans_b, int first_a) {
        const hop::WgmmaKind k =
            nb::isinstance<hop::WgmmaKind>(kind)
                ? nb::cast<hop::WgmmaKind>(kind)
                : checked_kind(nb::cast<ptx::DType>(kind), nb::cast<ptx::DType>(kind), ptx::DType::f32, false);
        const hop::WgmmaImmediates imm{scale_a, scale_b, trans_a, trans_b};
        if (nb::isinstance<PyReg>(a))  // A from shared memory, through its descriptor
          hop::mma_async(n, k, reg_array_of(acc), first, reg_of(a), reg_of(desc_b), reg_of(scale_d), imm, here());
        else  // A from registers
          hop::mma_async(n, k, reg_array_of(acc), first, reg_array_of(a), first_a, reg_of(desc_b), reg_of(scale_d), imm,
                         here());
      },
      nb::arg("n"), nb::arg("kind"), nb::arg("acc"), nb::arg("first"), nb::arg("a"), nb::arg("desc_b"),
      nb::arg("scale_d"), nb::arg("scale_a") = 1, nb::arg("scale_b") = 1, nb::arg("trans_a") = 0,
      nb::arg("trans_b") = 0, nb::arg("first_a") = 0,
      "wgmma.mma_async.sync.aligned.m64nNkK...: kind a WgmmaKind, or a 16-bit type (f32 accumulators); a: A's "
      "descriptor, "
      "or a reg.array holding A (from first_a)");
  h.def(
      "accumulator_row_col",
      [](int n, ptx::DType d, int thread, int reg, int half) {
        const auto [r, c] = hop::accumulator_row_col(n, d, thread, reg, half);
        return nb::make_tuple(r, c);
      },
      nb::arg("n"), nb::arg("d"), nb::arg("thread"), nb::arg("reg"), nb::arg("half") = 0);
  h.def("accumulator_slot", [](int n, ptx::DType d, int row, int col) {
    const hop::FragmentSlot s = hop::accumulator_slot(n, d, row, col);
    return nb::make_tuple(s.thread, s.reg, s.element);
  });
}

}  // namespace

bool is_mbarrier(nb::handle h) { return nb::isinstance<PyMbarrier>(h); }

const ptx::hopper::Mbarrier& mbarrier_of(nb::handle h) {
  if (!nb::isinstance<PyMbarrier>(h)) throw nb::type_error("expected an mbarrier (ptx.hopper.Mbarrier)");
  return nb::inst_ptr<PyMbarrier>(h)->get();
}

void bind_hopper(nb::module_& m) {
  nb::module_ h = m.def_submodule("hopper", "The Hopper helpers (ptx::hopper, sm_90+)");
  nb::class_<PyMbarrier>(h, "Mbarrier",
                         "An mbarrier (8 bytes) at a shared address: a buffer's addr(off) or ptx.addr(u32 reg)")
      .def("__init__",
           [](PyMbarrier* self, nb::handle addr) {
             new (self) PyMbarrier{hop::Mbarrier(to_operand(addr, FloatAs::F32), here()), ptx::dsl::running_trace_id()};
           })
      .def(
          "init", [](const PyMbarrier& b, uint32_t n, nb::handle g) { b.get().init(n, optional_reg(g), here()); },
          nb::arg("count"), nb::arg("guard") = nb::none(), "mbarrier.init.shared::cta.b64 [addr], count;")
      .def(
          "arrive", [](const PyMbarrier& b, nb::handle g) { b.get().arrive(optional_reg(g), here()); },
          nb::arg("guard") = nb::none())
      .def(
          "arrive_expect_tx",
          [](const PyMbarrier& b, uint32_t n, nb::handle g) { b.get().arrive_expect_tx(n, optional_reg(g), here()); },
          nb::arg("bytes"), nb::arg("guard") = nb::none())
      .def(
          "expect_tx",
          [](const PyMbarrier& b, uint32_t n, nb::handle g) { b.get().expect_tx(n, optional_reg(g), here()); },
          nb::arg("bytes"), nb::arg("guard") = nb::none())
      .def(
          "arrive_cluster", [](const PyMbarrier& b, nb::handle g) { b.get().arrive_cluster(optional_reg(g), here()); },
          nb::arg("guard") = nb::none())
      .def(
          "wait", [](const PyMbarrier& b, nb::handle phase) { b.get().wait(to_operand(phase, FloatAs::F32), here()); },
          "the try_wait.parity spin on `phase` (a register or 0/1)");
  h.def("fence_mbarrier_init", [] { hop::fence_mbarrier_init(here()); });
  h.def("map_shared_rank", [](nb::handle addr, nb::handle rank) {
    return make_reg(hop::map_shared_rank(reg_of(addr), to_operand(rank, FloatAs::F32), here()));
  });
  h.def("cluster_sync", [] { hop::cluster_sync(here()); });

  nb::class_<PyPipeline>(h, "Pipeline", "`stages` full/empty mbarrier pairs in a shared buffer")
      .def("__init__",
           [](PyPipeline* self, nb::handle buffer, int stages) {
             new (self) PyPipeline(hop::Pipeline(buffer_of(buffer), stages, here()), ptx::dsl::running_trace_id());
           })
      .def_prop_ro("stages", [](const PyPipeline& p) { return p.get().stages(); })
      .def("full", [](const PyPipeline& p, int s) { return wrap_bar(p.get().full(s, here())); })
      .def("empty", [](const PyPipeline& p, int s) { return wrap_bar(p.get().empty(s, here())); })
      .def(
          "init",
          [](const PyPipeline& p, uint32_t full, uint32_t empty, nb::handle g) {
            p.get().init(full, empty, optional_reg(g), here());
          },
          nb::arg("full_count"), nb::arg("empty_count"), nb::arg("guard") = nb::none());
  nb::class_<PyPipelineState>(h, "PipelineState", "A stage and phase walking a Pipeline")
      .def("__init__",
           [](PyPipelineState* self, nb::handle pipeline, uint32_t phase) {
             const hop::Pipeline& p = nb::cast<const PyPipeline&>(pipeline).get();
             new (self) PyPipelineState(hop::PipelineState(p, phase, here()), nb::borrow(pipeline));
           })
      .def_prop_ro("stage", [](PyPipelineState& s) { return s.get().stage(); })
      .def_prop_ro("phase", [](PyPipelineState& s) { return make_reg(alias(s.get().phase())); })
      .def("wait_full", [](PyPipelineState& s) { s.get().wait_full(here()); })
      .def("wait_empty", [](PyPipelineState& s) { s.get().wait_empty(here()); })
      .def("full", [](PyPipelineState& s) { return wrap_bar(s.get().full(here())); })
      .def("empty", [](PyPipelineState& s) { return wrap_bar(s.get().empty(here())); })
      .def("advance", [](PyPipelineState& s) { s.get().advance(here()); });

  h.def(
      "tma_load",
      [](nb::handle dst, nb::handle map, nb::handle coords, nb::handle bar, nb::handle guard, nb::handle multicast,
         nb::handle cache_hint) {
        const hop::TmaOptions opt{optional_reg(guard), optional_reg(multicast), optional_reg(cache_hint)};
        const ptx::Operand d = to_operand(dst, FloatAs::F32);
        with_coords(coords, [&](std::initializer_list<ptx::Operand> c) {
          hop::tma_load(d, reg_of(map), c, mbarrier_of(bar), opt, here());
        });
      },
      nb::arg("dst"), nb::arg("map"), nb::arg("coords"), nb::arg("bar"), nb::arg("guard") = nb::none(),
      nb::arg("multicast") = nb::none(), nb::arg("cache_hint") = nb::none(),
      "cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [map, {c...}], [bar];");
  h.def(
      "tma_store",
      [](nb::handle map, nb::handle coords, nb::handle src, nb::handle guard, nb::handle cache_hint) {
        const hop::TmaCacheOptions opt{optional_reg(guard), optional_reg(cache_hint)};
        const ptx::Operand s = to_operand(src, FloatAs::F32);
        with_coords(coords,
                    [&](std::initializer_list<ptx::Operand> c) { hop::tma_store(reg_of(map), c, s, opt, here()); });
      },
      nb::arg("map"), nb::arg("coords"), nb::arg("src"), nb::arg("guard") = nb::none(),
      nb::arg("cache_hint") = nb::none());
  nb::enum_<hop::TmaReduceOp>(h, "TmaReduceOp")
      .value("add", hop::TmaReduceOp::add)
      .value("min", hop::TmaReduceOp::min)
      .value("max", hop::TmaReduceOp::max)
      .value("inc", hop::TmaReduceOp::inc)
      .value("dec", hop::TmaReduceOp::dec)
      .value("and_", hop::TmaReduceOp::bit_and)
      .value("or_", hop::TmaReduceOp::bit_or)
      .value("xor", hop::TmaReduceOp::bit_xor);
  h.def(
      "tma_reduce",
      [](hop::TmaReduceOp op, nb::handle map, nb::handle coords, nb::handle src, nb::handle guard,
         nb::handle cache_hint) {
        const hop::TmaCacheOptions opt{optional_reg(guard), optional_reg(cache_hint)};
        const ptx::Operand s = to_operand(src, FloatAs::F32);
        with_coords(coords, [&](std::initializer_list<ptx::Operand> c) {
          hop::tma_reduce(op, reg_of(map), c, s, opt, here());
        });
      },
      nb::arg("op"), nb::arg("map"), nb::arg("coords"), nb::arg("src"), nb::arg("guard") = nb::none(),
      nb::arg("cache_hint") = nb::none());
  h.def(
      "tma_prefetch",
      [](nb::handle map, nb::handle coords, nb::handle guard, nb::handle cache_hint) {
        const hop::TmaCacheOptions opt{optional_reg(guard), optional_reg(cache_hint)};
        with_coords(coords,
                    [&](std::initializer_list<ptx::Operand> c) { hop::tma_prefetch(reg_of(map), c, opt, here()); });
      },
      nb::arg("map"), nb::arg("coords"), nb::arg("guard") = nb::none(), nb::arg("cache_hint") = nb::none());
  h.def(
      "bulk_commit", [] { hop::bulk_commit(here()); }, "cp.async.bulk.commit_group;");
  h.def(
      "bulk_wait", [](int n, bool read_only) { hop::bulk_wait(n, read_only, here()); }, nb::arg("n"),
      nb::arg("read_only") = false);
  h.def("fence_proxy_async", [] { hop::fence_proxy_async(here()); });
  h.def(
      "warp_specialize",
      [](nb::handle tid, uint32_t producer_regs, uint32_t consumer_regs, nb::callable producer,
         nb::callable consumers) {
        hop::warp_specialize(
            reg_of(tid), hop::WarpRoles{producer_regs, consumer_regs}, [&] { producer(); },
            [&](const ptx::Reg& ct) { consumers(make_reg(alias(ct))); }, here());
      },
      nb::arg("tid"), nb::arg("producer_regs") = 40, nb::arg("consumer_regs") = 232, nb::arg("producer"),
      nb::arg("consumers"),
      "warpgroup 0's first warp runs producer(), the warpgroups after it consumers(consumer_tid), with setmaxnreg");
  bind_wgmma(h);
  bind_hopper_forms(h);
}

}  // namespace ptxpy
