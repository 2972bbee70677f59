// C++ in device code: virtual dispatch on objects built in place, function-pointer
// tables, recursion with a local stack frame, printf (lowered to vprintf), lambdas,
// templates with constexpr recursion, and struct arguments passed by value.
#include "nvptx.h"

extern "C" __device__ int printf(const char*, ...);

// Not pure virtual: at -O0 clang puts __cxa_pure_virtual into the vtable, and ptxas 13
// rejects taking the address of that undefined function.
struct Shape {
  __device__ virtual float area() const { return 0.f; }
  __device__ virtual const char* name() const { return "shape"; }
};
struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r) : r(r) {}
  __device__ float area() const override { return 3.14159265f * r * r; }
  __device__ const char* name() const override { return "circle"; }
};
struct Rect : Shape {
  float w, h;
  __device__ Rect(float w, float h) : w(w), h(h) {}
  __device__ float area() const override { return w * h; }
};

__device__ __noinline__ float area_of(const Shape& s) { return s.area(); }

extern "C" __global__ void virtual_dispatch(const float* p, float* out, int verbose) {
  unsigned i = global_x();
  Circle c(p[i]);
  Rect r(p[i], 2.f);
  const Shape* s = (i & 1) ? static_cast<const Shape*>(&c) : &r;
  out[i] = area_of(*s);
  if (verbose && i == 0) printf("%s area %f (thread %u of %u)\n", s->name(), (double)out[i], i, ntid_x());
}

typedef float (*unary_fn)(float);
__device__ __noinline__ float twice(float x) { return 2 * x; }
__device__ __noinline__ float square(float x) { return x * x; }
__device__ __noinline__ float negate(float x) { return -x; }
__device__ unary_fn table[3] = {twice, square, negate};

extern "C" __global__ void fn_pointer_table(float* data, const int* ops, int n) {
  unsigned i = global_x();
  if (i < unsigned(n)) data[i] = table[ops[i] % 3](data[i]);
}

__device__ __noinline__ int ackermann_small(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann_small(m - 1, 1);
  return ackermann_small(m - 1, ackermann_small(m, n - 1));
}

__device__ __noinline__ int sum_local(int n) {
  int buf[64];
  for (int i = 0; i < 64; ++i) buf[i] = i * n;
  int s = 0;
  for (int i = 0; i < n && i < 64; ++i) s += buf[(i * 7) & 63];
  return s;
}

extern "C" __global__ void recursion(int* out) {
  unsigned i = tid_x();
  out[i] = ackermann_small(2, i & 3) + sum_local(i);
}

template <int N> struct Fact { static constexpr long long value = N * Fact<N - 1>::value; };
template <> struct Fact<0> { static constexpr long long value = 1; };

struct Pair3 { double a; float b; char c; };

__device__ __noinline__ Pair3 combine(Pair3 x, Pair3 y) { return {x.a + y.a, x.b * y.b, char(x.c ^ y.c)}; }

extern "C" __global__ void lambdas_structs(const double* in, Pair3* out, long long* facts) {
  unsigned i = global_x();
  auto scale = [k = in[0]](double v) { return v * k; };
  Pair3 p{scale(in[i]), float(i), char(i)}, q{1.0, 0.5f, 3};
  out[i] = combine(p, q);
  if (i == 0) facts[0] = Fact<20>::value;
}
