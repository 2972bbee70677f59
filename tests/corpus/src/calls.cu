// ptxpp corpus: the calling convention: non-inlined device functions with
// scalar, vector, struct (byval) and array arguments and returns, recursion,
// function pointers and virtual functions (indirect calls with prototypes),
// printf/vprintf, assert, trap, device malloc/free, and (with -rdc) extern
// functions and variables.
// nvcc corpus (see scripts/gen-corpus): archs: sm_90a sm_120a   variants: G:sm_90a lineinfo:sm_80 rdc:sm_90a
#include <cstdio>
#include <cassert>
#include <cuda_fp16.h>
#include "corpus.h"

struct Vec3 {
  float x, y, z;
};
struct __align__(16) Big {
  double d[3];
  int tag;
  char name[12];
};
struct Pair {
  long long a;
  short b;
};

__device__ __noinline__ float dot3(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ __noinline__ Vec3 cross3(const Vec3& a, const Vec3& b) {
  return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
__device__ __noinline__ Big make_big(int tag, double s) {
  Big b;
  for (int i = 0; i < 3; ++i) b.d[i] = s * (i + 1);
  b.tag = tag;
  for (int i = 0; i < 12; ++i) b.name[i] = (char)('a' + (tag + i) % 26);
  return b;
}
__device__ __noinline__ double sum_big(Big b) { return b.d[0] + b.d[1] + b.d[2] + b.tag + b.name[3]; }
__device__ __noinline__ Pair swap_pair(Pair p) { return Pair{p.b, (short)p.a}; }
__device__ __noinline__ float4 scale4(float4 v, float s) { return make_float4(v.x * s, v.y * s, v.z * s, v.w * s); }
__device__ __noinline__ __half2 hfma2(__half2 a, __half2 b, __half2 c) { return __hfma2(a, b, c); }
__device__ __noinline__ void out_params(int in, int* q, int* r) {
  *q = in / 7;
  *r = in % 7;
}
__device__ __noinline__ int many_args(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7, long long b0,
                                      long long b1, float c0, float c2, double d0, double d1, bool e0, char e1,
                                      short e2, unsigned char e3) {
  return a0 + a1 * 2 + a2 * 3 + a3 * 4 + a4 * 5 + a5 * 6 + a6 * 7 + a7 * 8 + (int)(b0 ^ b1) + (int)(c0 * c2) +
         (int)(d0 / (d1 + 1.0)) + e0 + e1 + e2 + e3;
}
__device__ __noinline__ void no_args_no_ret() { __threadfence_block(); }

// Recursion
__device__ __noinline__ unsigned long long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int ackermann(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}
__device__ __noinline__ void quicksort(int* a, int lo, int hi) {
  if (lo >= hi) return;
  int p = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < p) ++i;
    while (a[j] > p) --j;
    if (i <= j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}
// mutual recursion
__device__ __noinline__ bool is_odd(unsigned n);
__device__ __noinline__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

__global__ void call_conventions(float* f, double* d, int* i, float4* v, __half2* h) {
  const int t = threadIdx.x;
  Vec3 a{f[0], f[1], f[2]}, b{f[3], f[4], (float)t};
  Vec3 c = cross3(a, b);
  f[t] = dot3(a, c);
  Big bg = make_big(t, d[0]);
  d[t] = sum_big(bg);
  Pair p = swap_pair(Pair{(long long)t << 40, (short)t});
  int q, r;
  out_params(t * 13, &q, &r);
  i[t] = q + r + (int)p.a + p.b +
         many_args(t, 1, 2, 3, 4, 5, 6, 7, 8ll, 9ll, 1.5f, 2.5f, 3.5, 4.5, t & 1, 'x', (short)-3, 200);
  v[t] = scale4(v[t], 0.5f);
  h[t] = hfma2(h[t], h[t + 1], h[t + 2]);
  no_args_no_ret();
}

__global__ void recursion(unsigned long long* out, int* arr, int n) {
  const int t = threadIdx.x;
  out[t] = fib(t % 20) + ackermann(2, t % 5) + is_even(t) * 1000;
  if (t == 0) quicksort(arr, 0, n - 1);
}

// Function pointers
typedef float (*unary_fn)(float);
__device__ __noinline__ float op_sq(float x) { return x * x; }
__device__ __noinline__ float op_neg(float x) { return -x; }
__device__ __noinline__ float op_rsqrt(float x) { return rsqrtf(fabsf(x) + 1e-6f); }
__device__ __noinline__ float op_exp(float x) { return __expf(x); }
__device__ unary_fn g_table[4] = {op_sq, op_neg, op_rsqrt, op_exp};
typedef int (*binop)(int, int);
__device__ int add_i(int a, int b) { return a + b; }
__device__ int mul_i(int a, int b) { return a * b; }
__device__ int max_i(int a, int b) { return a > b ? a : b; }
__constant__ binop c_binops[3] = {add_i, mul_i, max_i};

__device__ __noinline__ float apply_chain(const int* sel, int n, float x) {
  for (int k = 0; k < n; ++k) x = g_table[sel[k] & 3](x);
  return x;
}
__global__ void func_pointers(const int* sel, float* data, int* idata, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  data[t] = apply_chain(sel, n, data[t]);
  binop op = c_binops[t % 3];
  idata[t] = op(idata[t], t);
  unary_fn local = (t & 1) ? op_sq : op_neg;
  data[t + n] = local(data[t + n]);
}

// Virtual functions (vtables in .global, indirect calls through them)
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual float perimeter() const { return 0.f; }
  __device__ virtual ~Shape() {}
};
struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r_) : r(r_) {}
  __device__ float area() const override { return 3.14159265f * r * r; }
  __device__ float perimeter() const override { return 2.f * 3.14159265f * r; }
};
struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ float area() const override { return w * h; }
  __device__ float perimeter() const override { return 2.f * (w + h); }
};
struct Square final : Rect {
  __device__ explicit Square(float s) : Rect(s, s) {}
  __device__ float area() const override { return w * w; }
};
__device__ __noinline__ float total(Shape* const* shapes, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i) s += shapes[i]->area() + 0.5f * shapes[i]->perimeter();
  return s;
}
__global__ void virtuals(float* out, const float* params) {
  Circle c(params[0]);
  Rect r(params[1], params[2]);
  Square s(params[3]);
  Shape* shapes[3] = {&c, &r, &s};
  out[threadIdx.x] = total(shapes, 1 + threadIdx.x % 3);
  Shape* heap = (threadIdx.x & 1) ? static_cast<Shape*>(new Circle(1.0f)) : static_cast<Shape*>(new Rect(1, 2));
  out[threadIdx.x + 32] = heap->area();
  delete heap;
}

// printf, assert, trap, malloc
__global__ void diagnostics(const float* data, int n, int flag) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0) printf("diagnostics: n=%d flag=%#x\n", n, flag);
  if (t < n) {
    float v = data[t];
    if (v != v) printf("NaN at %d (block %d, thread %d)\n", t, blockIdx.x, threadIdx.x);
    printf("%5.2f %e %g %lld %llu %c %s %p\n", v, (double)v * 1e10, (double)v, (long long)t, 0xFFFFFFFFFFull,
           'A' + t % 26, "str", data + t);
    assert(v >= -1000.f && "value out of range");
  }
  if (flag == 0xdead) __trap();
  if (flag == 0xbeef) __brkpt();
  int* scratch = static_cast<int*>(malloc(64 * sizeof(int)));
  if (scratch) {
    for (int i = 0; i < 64; ++i) scratch[i] = i * t;
    int s = 0;
    for (int i = 0; i < 64; ++i) s += scratch[i];
    if (s == 12345) printf("checksum hit %d\n", s);
    free(scratch);
  }
}

// Local-memory arrays indexed dynamically (forces .local stack frame)
__device__ __noinline__ int local_array_work(int seed, int k) {
  int buf[64];
#pragma unroll 1
  for (int i = 0; i < 64; ++i) buf[i] = seed * i ^ (i << 3);
#pragma unroll 1
  for (int i = 0; i < 64; ++i) buf[(i * 7 + seed) & 63] += buf[i];
  return buf[k & 63];
}
__global__ void local_frames(int* out) { out[threadIdx.x] = local_array_work(threadIdx.x, out[threadIdx.x]); }

#ifdef __CUDACC_RDC__
// Only with -rdc=true: external declarations resolved at link time.
extern __device__ int ext_counter;
extern __device__ float ext_transform(float x, int mode);
extern __device__ void ext_log(const char* msg, int v);
extern __constant__ float ext_coeffs[16];
__device__ int exported_counter = 5;
__device__ __noinline__ int exported_helper(int x) { return x * exported_counter; }
extern "C" __device__ int c_linkage_fn(int x);
extern "C" __device__ __noinline__ int c_exported(int x) { return x ^ 0x5a5a; }
__global__ void rdc_calls(float* data, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  data[t] = ext_transform(data[t], t & 3) * ext_coeffs[t & 15];
  atomicAdd(&ext_counter, exported_helper(t) + c_linkage_fn(t) + c_exported(t));
  if (t == 0) ext_log("done", n);
}
#endif
