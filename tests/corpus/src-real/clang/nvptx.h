// Minimal CUDA device environment for clang's NVPTX backend without the CUDA headers
// (-nocudainc -nocudalib): qualifiers, thread indices and a few helpers over clang's
// __nvvm_* builtins. Written for the ptxpp corpus.
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __attribute__((always_inline)) inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(t, b) __attribute__((launch_bounds(t, b)))

struct __attribute__((aligned(16))) float4 {
  float x, y, z, w;
};

__device__ __forceinline__ unsigned tid_x() { return __nvvm_read_ptx_sreg_tid_x(); }
__device__ __forceinline__ unsigned tid_y() { return __nvvm_read_ptx_sreg_tid_y(); }
__device__ __forceinline__ unsigned tid_z() { return __nvvm_read_ptx_sreg_tid_z(); }
__device__ __forceinline__ unsigned ntid_x() { return __nvvm_read_ptx_sreg_ntid_x(); }
__device__ __forceinline__ unsigned ntid_y() { return __nvvm_read_ptx_sreg_ntid_y(); }
__device__ __forceinline__ unsigned ctaid_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }
__device__ __forceinline__ unsigned ctaid_y() { return __nvvm_read_ptx_sreg_ctaid_y(); }
__device__ __forceinline__ unsigned ctaid_z() { return __nvvm_read_ptx_sreg_ctaid_z(); }
__device__ __forceinline__ unsigned nctaid_x() { return __nvvm_read_ptx_sreg_nctaid_x(); }
__device__ __forceinline__ unsigned lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
__device__ __forceinline__ unsigned global_x() { return ctaid_x() * ntid_x() + tid_x(); }
__device__ __forceinline__ void sync_block() { __syncthreads(); }
__device__ __forceinline__ float shfl_down(float v, int d) {
  return __nvvm_shfl_sync_down_f32(0xffffffffu, v, d, 0x1f);
}
__device__ __forceinline__ int shfl_xor(int v, int m) { return __nvvm_shfl_sync_bfly_i32(0xffffffffu, v, m, 0x1f); }
