// Atomics through clang's NVPTX builtins: generic, block- and system-scoped integer
// and float atomics, CAS loops for double max and a float product, a ticket lock.
#include "nvptx.h"

__device__ double atomic_max_f64(double* p, double v) {
  unsigned long long* q = (unsigned long long*)p;
  unsigned long long old = *q, assumed;
  do {
    assumed = old;
    if (__builtin_bit_cast(double, assumed) >= v) break;
    old = __nvvm_atom_cas_gen_ll((long long*)q, assumed, __builtin_bit_cast(unsigned long long, v));
  } while (old != assumed);
  return __builtin_bit_cast(double, old);
}

__device__ float atomic_mul_f32(float* p, float v) {
  int* q = (int*)p;
  int old = *q, assumed;
  do {
    assumed = old;
    old = __nvvm_atom_cas_gen_i(q, assumed, __builtin_bit_cast(int, __builtin_bit_cast(float, assumed) * v));
  } while (old != assumed);
  return __builtin_bit_cast(float, old);
}

extern "C" __global__ void atomics_mix(int* ic, unsigned* uc, long long* lc, float* fc, double* dc, int n) {
  unsigned i = global_x();
  if (i >= unsigned(n)) return;
  __nvvm_atom_add_gen_i(ic, 1);
  __nvvm_atom_cta_add_gen_i(ic + 1, int(i));
  __nvvm_atom_sys_add_gen_i(ic + 2, 3);
  __nvvm_atom_max_gen_i(ic + 3, int(i));
  __nvvm_atom_min_gen_ui(uc, i);
  __nvvm_atom_and_gen_i(ic + 4, ~int(i));
  __nvvm_atom_or_gen_i(ic + 5, 1 << (i & 31));
  __nvvm_atom_xor_gen_ll(lc, (long long)i << 20);
  __nvvm_atom_xchg_gen_i(ic + 6, int(i));
  __nvvm_atom_inc_gen_ui(uc + 1, 1000u);
  __nvvm_atom_dec_gen_ui(uc + 2, 1000u);
  __nvvm_atom_add_gen_ll(lc + 1, 1ll << 33);
  __nvvm_atom_add_gen_f(fc, 0.5f);
  __nvvm_atom_add_gen_d(dc, 0.25);
  atomic_max_f64(dc + 1, double(i) * 1.5);
  atomic_mul_f32(fc + 1, 1.0001f);
}

extern "C" __global__ void ticket_lock(unsigned* next, volatile unsigned* serving, float* shared_sum, const float* v) {
  if (lane_id() != 0) return;
  unsigned ticket = __nvvm_atom_add_gen_i((int*)next, 1);
  while (*serving != ticket) asm volatile("nanosleep.u32 32;");
  __nvvm_membar_gl();
  *shared_sum += v[global_x()];
  __nvvm_membar_gl();
  *serving = ticket + 1;
}
