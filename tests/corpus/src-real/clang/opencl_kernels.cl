// OpenCL C kernels compiled by clang's NVPTX backend without libclc: work-item
// indices come from the __nvvm_* special-register builtins, barriers from
// __syncthreads, atomics from __nvvm_atom_* on generic pointers (OpenCL 2.0).
// Address spaces (__global/__local/__constant) map to ld/st state spaces.
#define LOCAL_ID_X() __nvvm_read_ptx_sreg_tid_x()
#define LOCAL_ID_Y() __nvvm_read_ptx_sreg_tid_y()
#define GROUP_ID_X() __nvvm_read_ptx_sreg_ctaid_x()
#define GROUP_ID_Y() __nvvm_read_ptx_sreg_ctaid_y()
#define LOCAL_SIZE_X() __nvvm_read_ptx_sreg_ntid_x()
#define GLOBAL_ID_X() (GROUP_ID_X() * LOCAL_SIZE_X() + LOCAL_ID_X())

#pragma OPENCL EXTENSION cl_khr_fp16 : enable  // needs -Xclang -cl-ext=+cl_khr_fp16 on this target

__constant float kWeights[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

__kernel void transpose_local(__global const float* in, __global float* out, int width, int height) {
  __local float tile[32][33];
  int x = GROUP_ID_X() * 32 + LOCAL_ID_X(), y = GROUP_ID_Y() * 32 + LOCAL_ID_Y();
  if (x < width && y < height) tile[LOCAL_ID_Y()][LOCAL_ID_X()] = in[y * width + x];
  __syncthreads();
  x = GROUP_ID_Y() * 32 + LOCAL_ID_X();
  y = GROUP_ID_X() * 32 + LOCAL_ID_Y();
  if (x < height && y < width) out[y * height + x] = tile[LOCAL_ID_X()][LOCAL_ID_Y()];
}

__kernel void blur_rows(__global const float4* in, __global float4* out, int width) {
  int x = GLOBAL_ID_X(), row = GROUP_ID_Y();
  if (x >= width) return;
  float4 acc = (float4)(0.0f);
  for (int k = -2; k <= 2; ++k) {
    int xx = x + k < 0 ? 0 : (x + k >= width ? width - 1 : x + k);
    acc += kWeights[k + 2] * in[row * width + xx];
  }
  out[row * width + x] = acc;
}

__kernel void reduce_local(__global const int* in, __global int* out, __local int* scratch, int n) {
  int lid = LOCAL_ID_X(), gid = GLOBAL_ID_X();
  scratch[lid] = gid < n ? in[gid] : 0;
  __syncthreads();
  for (int s = LOCAL_SIZE_X() / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    __syncthreads();
  }
  if (lid == 0) __nvvm_atom_add_gen_i(out, scratch[0]);  // generic pointer (OpenCL 2.0)
}

__kernel void vector_types(__global const uchar4* px, __global half* lum, __global short8* packed, int n) {
  int i = GLOBAL_ID_X();
  if (i >= n) return;
  uchar4 p = px[i];
  float l = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
  lum[i] = (half)l;
  short8 s = (short8)(p.x, p.y, p.z, p.w, -p.x, -p.y, -p.z, -p.w);
  packed[i] = s.s76543210;
}
