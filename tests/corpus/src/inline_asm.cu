// ptxpp corpus: inline PTX as written by hand in CUDA code: multi-instruction
// blocks with scoped .reg declarations, local labels made unique with %=,
// loops and branches inside asm, predicates and predicate negation, every
// constraint letter (h r l f d n), immediates in several bases, vector
// operands, video instructions with byte/half selectors, and asm with
// comments embedded in the string.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_100a sm_120a   variants: G:sm_90a lineinfo:sm_100a
#include "corpus.h"

// Count leading zeros of a 64-bit value via a loop written in PTX.
CORPUS_DEV unsigned clz64_loop(unsigned long long v) {
  unsigned n;
  asm(
      "{\n\t"
      ".reg .pred %%p<3>;\n\t"
      ".reg .b64 %%t;\n\t"
      ".reg .u32 %%cnt;\n\t"
      "mov.b64 %%t, %1;\n\t"
      "mov.u32 %%cnt, 0;\n\t"
      "setp.eq.u64 %%p0, %%t, 0;\n\t"
      "@%%p0 bra.uni ZERO_%=;\n"
      "LOOP_%=:\n\t"
      "setp.lt.s64 %%p1, %%t, 0;      // top bit set?\n\t"
      "@%%p1 bra.uni DONE_%=;\n\t"
      "shl.b64 %%t, %%t, 1;\n\t"
      "add.u32 %%cnt, %%cnt, 1;\n\t"
      "bra.uni LOOP_%=;\n"
      "ZERO_%=:\n\t"
      "mov.u32 %%cnt, 64;\n"
      "DONE_%=:\n\t"
      "mov.u32 %0, %%cnt;\n\t"
      "}"
      : "=r"(n)
      : "l"(v));
  return n;
}

// Integer square root by Newton iteration inside asm.
CORPUS_DEV unsigned isqrt_asm(unsigned x) {
  unsigned r;
  asm(
      "{\n\t"
      ".reg .u32 a, b, q;\n\t"
      ".reg .pred done;\n\t"
      "mov.u32 a, %1;\n\t"
      "shr.u32 b, %1, 1;\n\t"
      "add.u32 b, b, 1;\n"
      "ITER_%=:\n\t"
      "setp.ge.u32 done, b, a;\n\t"
      "@done bra END_%=;\n\t"
      "mov.u32 a, b;\n\t"
      "div.u32 q, %1, a;\n\t"
      "add.u32 b, a, q;\n\t"
      "shr.u32 b, b, 1;\n\t"
      "bra ITER_%=;\n"
      "END_%=:\n\t"
      "mov.u32 %0, a;\n\t"
      "}"
      : "=r"(r)
      : "r"(x));
  return r;
}

// 128-bit addition with carry chains.
CORPUS_DEV void add128(unsigned (&a)[4], const unsigned (&b)[4]) {
  asm("add.cc.u32 %0, %0, %4;\n\t"
      "addc.cc.u32 %1, %1, %5;\n\t"
      "addc.cc.u32 %2, %2, %6;\n\t"
      "addc.u32 %3, %3, %7;"
      : "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3])
      : "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]));
}

// 256-bit multiply-accumulate (schoolbook) with mad.lo.cc/madc.hi.
CORPUS_DEV void mul_wide_256(unsigned (&r)[8], const unsigned (&a)[4], const unsigned (&b)[4]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) r[i] = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    unsigned carry = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      asm("{\n\t.reg .u32 lo, hi;\n\t"
          "mad.lo.cc.u32 lo, %2, %3, %0;\n\t"
          "madc.hi.u32 hi, %2, %3, 0;\n\t"
          "add.cc.u32 %0, lo, %1;\n\t"
          "addc.u32 %1, hi, 0;\n\t}"
          : "+r"(r[i + j]), "+r"(carry)
          : "r"(a[i]), "r"(b[j]));
    }
    r[i + 4] = carry;
  }
}

__global__ void bignum(const unsigned* in, unsigned* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  unsigned a[4] = {in[4 * t], in[4 * t + 1], in[4 * t + 2], in[4 * t + 3]};
  unsigned b[4] = {in[4 * t + 4], in[4 * t + 5], in[4 * t + 6], in[4 * t + 7]};
  add128(a, b);
  unsigned r[8];
  mul_wide_256(r, a, b);
#pragma unroll
  for (int i = 0; i < 8; ++i) out[8 * t + i] = r[i];
  out[8 * n + t] = clz64_loop(((unsigned long long)a[1] << 32) | a[0]) + isqrt_asm(b[2]);
}

// Every constraint letter and several immediate spellings.
__global__ void constraints(short* s, int* i, long long* l, float* f, double* d) {
  short hs = s[threadIdx.x];
  int ir = i[threadIdx.x];
  long long ll = l[threadIdx.x];
  float ff = f[threadIdx.x];
  double dd = d[threadIdx.x];
  asm("add.s16 %0, %0, 0x7F;\n\t"
      "mul.lo.s16 %0, %0, -3;\n\t"
      "xor.b16 %0, %0, 0xABCD;"
      : "+h"(hs));
  asm("add.s32 %0, %0, %1;\n\t"
      "and.b32 %0, %0, 0xFFFF00FF;\n\t"
      "or.b32 %0, %0, 0x10;\n\t"
      "shl.b32 %0, %0, %2;"
      : "+r"(ir)
      : "n"(1234), "n"(3));
  asm("add.s64 %0, %0, 0x100000000;\n\t"
      "sub.s64 %0, %0, -1;\n\t"
      "mul.lo.s64 %0, %0, 077;"
      : "+l"(ll));
  asm("fma.rn.f32 %0, %0, 0f3FC00000, 0fBF800000;\n\t"
      "add.ftz.f32 %0, %0, 0F40490FDB;\n\t"
      "mul.rz.f32 %0, %0, %1;"
      : "+f"(ff)
      : "f"(1.25f));
  asm("fma.rn.f64 %0, %0, 0d3FF8000000000000, 0dBFF0000000000000;\n\t"
      "add.rm.f64 %0, %0, 0D400921FB54442D18;\n\t"
      "div.rn.f64 %0, %0, %1;"
      : "+d"(dd)
      : "d"(3.0));
  {
    // predicate logic with negation and and/or combining
    int sel;
    asm("{\n\t"
        ".reg .pred p, q, r;\n\t"
        "setp.gt.s32 p, %1, 0;\n\t"
        "setp.lt.f32 q, %2, 0f00000000;\n\t"
        "and.pred r, p, !q;\n\t"
        "or.pred r, r, q;\n\t"
        "xor.pred r, r, p;\n\t"
        "not.pred q, r;\n\t"
        "setp.ne.and.s32 p, %1, 7, q;\n\t"
        "setp.eq.or.s32 p|q, %1, 9, !r;\n\t"
        "selp.s32 %0, 1, -1, p;\n\t"
        "@!q add.s32 %0, %0, 10;\n\t"
        "@q sub.s32 %0, %0, 10;\n\t"
        "}"
        : "=r"(sel)
        : "r"(ir), "f"(ff));
    ir += sel;
  }
  s[threadIdx.x] = hs;
  i[threadIdx.x] = ir;
  l[threadIdx.x] = ll;
  f[threadIdx.x] = ff;
  d[threadIdx.x] = dd;
}

// Vector loads/stores written directly, with sink operands.
__global__ void vectors(const float* in, float* out) {
  const float* p = in + blockIdx.x * 256 + threadIdx.x * 4;
  float a, b, c, e;
  asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(e) : "l"(p));
  float x, y;
  asm volatile("ld.global.v2.f32 {%0, %1}, [%2+8];" : "=f"(x), "=f"(y) : "l"(p));
  float z;
  asm volatile("ld.global.v4.f32 {%0, _, _, _}, [%1+-16];" : "=f"(z) : "l"(p + 16));
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(out + blockIdx.x * 256 + threadIdx.x * 4),
               "f"(a + x), "f"(b + y), "f"(c + z), "f"(e)
               : "memory");
  unsigned lo, hi;
  asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(reinterpret_cast<unsigned long long>(p)));
  unsigned short h0, h1;
  asm("mov.b32 {%0, %1}, %2;" : "=h"(h0), "=h"(h1) : "r"(lo));
  asm("mov.b32 {%0, _}, %1;" : "=h"(h0) : "r"(hi));
  unsigned long long packed;
  asm("mov.b64 %0, {%1, %2};" : "=l"(packed) : "r"(lo), "r"(hi));
  out[blockIdx.x * 256 + 255] = (float)(packed + h0 + h1);
}

// Video (SIMD-within-a-register) instructions with operand selectors.
__global__ void video(const unsigned* a, const unsigned* b, unsigned* o) {
  const unsigned x = a[threadIdx.x], y = b[threadIdx.x];
  unsigned r = 0, t;
  asm("vadd.u32.u32.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vadd.s32.u32.s32.sat %0, %1.b0, %2.b3, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vsub.u32.s32.s32.add %0, %1.h1, %2.h0, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vabsdiff.u32.u32.u32.max %0, %1.b1, %2.b2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vmin.s32.s32.s32 %0.h0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vmax.u32.u32.u32.min %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vshl.u32.u32.u32.clamp %0, %1, %2;" : "=r"(t) : "r"(x), "r"(y & 31));
  r ^= t;
  asm("vshr.s32.s32.u32.wrap.add %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vmad.s32.s32.u32.sat %0, %1.h0, %2.h1, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vmad.u32.u32.u32.shr15 %0, -%1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vset.u32.u32.lt %0, %1.b2, %2.b1;" : "=r"(t) : "r"(x), "r"(y));
  r ^= t;
  asm("vset.s32.u32.ge.add %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vadd2.u32.u32.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vadd2.s32.s32.s32.sat %0.h10, %1.h01, %2.h11, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vsub2.s32.s32.s32.add %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vavrg2.u32.u32.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vabsdiff2.s32.s32.s32.add %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vmin2.u32.u32.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vmax2.s32.s32.s32.add %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vset2.u32.u32.ne %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vadd4.u32.u32.u32.sat %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vadd4.s32.s32.s32 %0.b3210, %1.b7654, %2.b0123, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vsub4.s32.s32.s32.sat %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vavrg4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vmin4.s32.s32.s32 %0, %1.b4567, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vmax4.u32.u32.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  asm("vset4.s32.s32.gt.add %0, %1, %2, %3;" : "=r"(t) : "r"(x), "r"(y), "r"(r));
  r ^= t;
  o[threadIdx.x] = r;
}

// Floating-point odds: testp, copysign, rcp/sqrt approx, ex2/lg2, tanh, mixed
// precision fma, min/max with NaN and xorsign.
__global__ void float_asm(const float* in, float* out, const double* din, double* dout) {
  const float x = in[threadIdx.x];
  float r, t;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  asm("sqrt.approx.f32 %0, %1;" : "=f"(t) : "f"(x));
  r += t;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(t) : "f"(x));
  r += t;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(t) : "f"(x));
  r += t;
  asm("lg2.approx.f32 %0, %1;" : "=f"(t) : "f"(x));
  r += t;
  asm("sin.approx.ftz.f32 %0, %1;" : "=f"(t) : "f"(x));
  r += t;
  asm("cos.approx.f32 %0, %1;" : "=f"(t) : "f"(x));
  r += t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(x));
  r += t;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(t) : "f"(x), "f"(r));
  r += t;
#if __CUDA_ARCH__ >= 860
  asm("max.xorsign.abs.f32 %0, %1, %2;" : "=f"(t) : "f"(x), "f"(r));
  r += t;
#endif
  asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(t) : "f"(x), "f"(r));
  r += t;
  asm("div.full.f32 %0, %1, %2;" : "=f"(t) : "f"(r), "f"(x));
  r += t;
  asm("abs.ftz.f32 %0, %1;\n\tneg.f32 %0, %0;" : "=f"(t) : "f"(x));
  r += t;
  asm("copysign.f32 %0, %1, %2;" : "=f"(t) : "f"(x), "f"(r));
  r += t;
  asm("{\n\t.reg .pred a, b, c, d;\n\t"
      "testp.finite.f32 a, %1;\n\t"
      "testp.infinite.f32 b, %1;\n\t"
      "testp.number.f32 c, %1;\n\t"
      "testp.notanumber.f32 d, %1;\n\t"
      "testp.normal.f32 a, %1;\n\t"
      "testp.subnormal.f32 b, %1;\n\t"
      "selp.f32 %0, 0f3F800000, 0f00000000, a;\n\t"
      "@b add.f32 %0, %0, 0f40000000;\n\t"
      "@!c add.f32 %0, %0, 0f40400000;\n\t"
      "@d add.f32 %0, %0, 0f40800000;\n\t}"
      : "=f"(t)
      : "f"(x));
  r += t;
  asm("{\n\t.reg .pred p;\n\t"
      "setp.nan.f32 p, %1, %1;\n\t"
      "setp.num.f32 p, %1, %2;\n\t"
      "setp.leu.ftz.f32 p, %1, %2;\n\t"
      "setp.gtu.f32 p, %2, %1;\n\t"
      "setp.equ.f32 p, %1, %2;\n\t"
      "setp.neu.f32 p, %1, %2;\n\t"
      "selp.f32 %0, %1, %2, p;\n\t}"
      : "=f"(t)
      : "f"(x), "f"(r));
  r += t;
  asm("{\n\t.reg .f16 h;\n\t.reg .f16x2 h2;\n\t"
      "cvt.rn.f16.f32 h, %1;\n\t"
      "mov.b32 h2, {h, h};\n\t"
      "fma.rn.f16x2 h2, h2, h2, h2;\n\t"
      "mov.b32 {h, _}, h2;\n\t"
      "cvt.f32.f16 %0, h;\n\t}"
      : "=f"(t)
      : "f"(x));
  r += t;
  out[threadIdx.x] = r;
  const double dx = din[threadIdx.x];
  double dr, dt;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(dr) : "d"(dx));
  asm("rsqrt.approx.f64 %0, %1;" : "=d"(dt) : "d"(dx));
  dr += dt;
  asm("sqrt.rn.f64 %0, %1;" : "=d"(dt) : "d"(dx));
  dr += dt;
  asm("rcp.rn.f64 %0, %1;" : "=d"(dt) : "d"(dx));
  dr += dt;
  asm("{\n\t.reg .b32 lo, hi;\n\tmov.b64 {lo, hi}, %1;\n\txor.b32 hi, hi, 0x80000000;\n\tmov.b64 %0, {lo, hi};\n\t}"
      : "=d"(dt)
      : "d"(dx));
  dr += dt;
  dout[threadIdx.x] = dr;
}

// Branch-heavy asm: jump table emulation with a compare chain, trap, exit.
__global__ void control_flow(const int* sel, int* out) {
  int v = sel[threadIdx.x], r;
  asm("{\n\t"
      ".reg .pred p;\n\t"
      "setp.eq.s32 p, %1, 0;\n\t"
      "@p bra C0_%=;\n\t"
      "setp.eq.s32 p, %1, 1;\n\t"
      "@p bra C1_%=;\n\t"
      "setp.eq.s32 p, %1, 2;\n\t"
      "@p bra C2_%=;\n\t"
      "mov.s32 %0, -1;\n\t"
      "bra.uni E_%=;\n"
      "C0_%=: mov.s32 %0, 100;\n\t"
      "bra.uni E_%=;\n"
      "C1_%=: mov.s32 %0, 200;\n\t"
      "bra.uni E_%=;\n"
      "C2_%=: mov.s32 %0, 300;\n"
      "E_%=:\n\t"
      "}"
      : "=r"(r)
      : "r"(v));
  if (r == 12345) asm volatile("trap;");
  if (r == 54321) asm volatile("exit;");
  out[threadIdx.x] = r;
}
