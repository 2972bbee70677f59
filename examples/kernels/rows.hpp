// Row-wise example kernels: RMS norm, LayerNorm, softmax over an M x N matrix.
// One warp per row: each lane walks the row with stride 32 (a run-time loop),
// then the warp combines its partial results with butterfly shuffles.
#pragma once

#include <functional>
#include <string>

#include <ptxpp/dsl.hpp>

namespace examples {

using namespace ptx::types;
namespace inst = ptx::inst;

inline ptx::Dim3 one_block_per_row(const ptx::Bindings& b) { return ptx::Dim3(static_cast<uint32_t>(b.at("M"))); }

struct Row {
  ptx::Reg lane;  // %tid.x
  ptx::Reg x, y;  // global addresses of this row in the input and the output
};

// mov %ctaid.x; mov %tid.x; mul.lo (row bytes); two mad.wide (row addresses)
inline Row row_of(const ptx::Reg& px, const ptx::Reg& py, int64_t n) {
  ptx::Reg row = ptx::read(ptx::special::ctaid.x(), u32);
  ptx::Reg lane = ptx::read(ptx::special::tid.x(), u32);
  ptx::Reg bytes = row * static_cast<uint32_t>(n * 4);
  return Row{std::move(lane), px + bytes, py + bytes};
}

// for (k = lane; k < n; k += 32) body(byte offset of column k)
inline void for_columns(const Row& r, int64_t n, const std::function<void(const ptx::Reg& off)>& body) {
  ptx::loop(r.lane, static_cast<uint32_t>(n), 32, [&](const ptx::Reg& k) { body(k * 4); });
}

inline ptx::Reg load(const ptx::Reg& base, const ptx::Reg& off) {
  ptx::Reg v(f32);
  inst::ld.global.f32(v, ptx::addr(base + off));
  return v;
}

// y = x * rsqrt(mean(x^2) + eps) * w
inline ptx::Kernel rmsnorm(const std::string& arch) {
  return ptx::kernel("rmsnorm")
      .in(ptx::tensor(f32, {"M", "N"}))
      .in(ptx::tensor(f32, {"N"}))
      .out(ptx::tensor(f32, {"M", "N"}))
      .scalar("eps", f32)
      .block(32)
      .grid(one_block_per_row)
      .arch(arch)
      .body([](ptx::Tensor x, ptx::Tensor w, ptx::Tensor y, ptx::Scalar eps) {
        const int64_t n = x.dim(1);
        // named registers, not a structured binding: lambdas below capture them (Clang 14)
        ptx::Reg px = x.global_ptr(), pw = w.global_ptr(), py = y.global_ptr();
        Row r = row_of(px, py, n);
        ptx::Reg acc(f32);
        acc = 0.0f;
        for_columns(r, n, [&](const ptx::Reg& off) {
          ptx::Reg v = load(r.x, off);
          inst::fma.rn.f32(acc, v, v, acc);
        });
        ptx::Reg total = ptx::warp::reduce(acc);
        ptx::Reg ms = total * (1.0f / static_cast<float>(n));
        ms += eps.load();
        ptx::Reg inv(f32);
        inst::rsqrt.approx.f32(inv, ms);
        for_columns(r, n, [&](const ptx::Reg& off) {
          ptx::Reg v = load(r.x, off);
          ptx::Reg g = load(pw, off);
          ptx::Reg o = v * inv;
          o = o * g;
          inst::st.global.f32(ptx::addr(r.y + off), o);
        });
        ptx::ret();
      });
}

// y = (x - mean) * rsqrt(var + eps) * w + b
inline ptx::Kernel layernorm(const std::string& arch) {
  return ptx::kernel("layernorm")
      .in(ptx::tensor(f32, {"M", "N"}))
      .in(ptx::tensor(f32, {"N"}))
      .in(ptx::tensor(f32, {"N"}))
      .out(ptx::tensor(f32, {"M", "N"}))
      .scalar("eps", f32)
      .block(32)
      .grid(one_block_per_row)
      .arch(arch)
      .body([](ptx::Tensor x, ptx::Tensor w, ptx::Tensor b, ptx::Tensor y, ptx::Scalar eps) {
        const int64_t n = x.dim(1);
        ptx::Reg px = x.global_ptr(), pw = w.global_ptr(), pb = b.global_ptr(), py = y.global_ptr();
        Row r = row_of(px, py, n);
        ptx::Reg sum(f32), sq(f32);
        sum = 0.0f;
        sq = 0.0f;
        for_columns(r, n, [&](const ptx::Reg& off) {
          ptx::Reg v = load(r.x, off);
          sum += v;
          inst::fma.rn.f32(sq, v, v, sq);
        });
        ptx::Reg mean = ptx::warp::reduce(sum) * (1.0f / static_cast<float>(n));
        ptx::Reg ex2 = ptx::warp::reduce(sq) * (1.0f / static_cast<float>(n));
        ptx::Reg var(f32);
        inst::mul.rn.f32(var, mean, mean);
        var = ex2 - var;
        var += eps.load();
        ptx::Reg inv(f32);
        inst::rsqrt.approx.f32(inv, var);
        for_columns(r, n, [&](const ptx::Reg& off) {
          ptx::Reg v = load(r.x, off);
          ptx::Reg c = v - mean;
          c *= inv;
          ptx::Reg gw = load(pw, off);
          ptx::Reg gb = load(pb, off);
          ptx::Reg o(f32);
          inst::fma.rn.f32(o, c, gw, gb);
          inst::st.global.f32(ptx::addr(r.y + off), o);
        });
        ptx::ret();
      });
}

// y = exp(x - max(x)) / sum(exp(x - max(x)))
inline ptx::Kernel softmax(const std::string& arch) {
  return ptx::kernel("softmax")
      .in(ptx::tensor(f32, {"M", "N"}))
      .out(ptx::tensor(f32, {"M", "N"}))
      .block(32)
      .grid(one_block_per_row)
      .arch(arch)
      .body([](ptx::Tensor x, ptx::Tensor y) {
        const int64_t n = x.dim(1);
        constexpr float kLog2e = 1.4426950408889634f;
        auto [px, py] = ptx::global_ptrs(x, y);
        Row r = row_of(px, py, n);
        ptx::Reg m(f32);
        m = -3.4028234663852886e38f;
        for_columns(r, n, [&](const ptx::Reg& off) { inst::max.f32(m, m, load(r.x, off)); });
        ptx::Reg mx = ptx::warp::reduce(m, ptx::warp::Reduce::Max);
        ptx::Reg neg_scaled_max = mx * -kLog2e;
        ptx::Reg sum(f32);
        sum = 0.0f;
        auto exp_of = [&](const ptx::Reg& off) {
          ptx::Reg v = load(r.x, off);
          ptx::Reg e(f32), t(f32);
          inst::fma.rn.f32(t, v, kLog2e, neg_scaled_max);
          inst::ex2.approx.ftz.f32(e, t);
          return e;
        };
        for_columns(r, n, [&](const ptx::Reg& off) { sum += exp_of(off); });
        ptx::Reg total = ptx::warp::reduce(sum);
        ptx::Reg inv(f32);
        inst::rcp.rn.f32(inv, total);
        for_columns(r, n, [&](const ptx::Reg& off) {
          ptx::Reg o = exp_of(off) * inv;
          inst::st.global.f32(ptx::addr(r.y + off), o);
        });
        ptx::ret();
      });
}

}  // namespace examples
