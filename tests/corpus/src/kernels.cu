// ptxpp corpus: a collection of ordinary compute kernels, the bread and butter
// of real PTX: reductions, scans, transposes, stencils, sorting, softmax,
// layer norm, convolution, SpMV, n-body, Mandelbrot, histogram, FFT butterflies,
// prefix-sum with decoupled look-back, and radix-sort passes; templated over
// element types.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80   variants: G:sm_90a
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cfloat>
#include <climits>
#include "corpus.h"

// ---------------------------------------------------------------- reduction
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_sum(const T* __restrict__ in, T* __restrict__ out, int n) {
  __shared__ T s[BLOCK];
  T v = T(0);
  for (int i = blockIdx.x * BLOCK * 2 + threadIdx.x; i < n; i += gridDim.x * BLOCK * 2) {
    v += in[i];
    if (i + BLOCK < n) v += in[i + BLOCK];
  }
  s[threadIdx.x] = v;
  __syncthreads();
#pragma unroll
  for (int st = BLOCK / 2; st > 32; st >>= 1) {
    if (threadIdx.x < st) s[threadIdx.x] = v = v + s[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    if (BLOCK >= 64) v += s[threadIdx.x + 32];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
template __global__ void reduce_sum<float, 256>(const float*, float*, int);
template __global__ void reduce_sum<double, 512>(const double*, double*, int);
template __global__ void reduce_sum<int, 128>(const int*, int*, int);

// ---------------------------------------------------------------- block scan
template <typename T, int BLOCK>
__global__ void block_scan(const T* in, T* out, T* block_sums, int n) {
  __shared__ T s[2 * BLOCK];
  const int base = blockIdx.x * 2 * BLOCK;
  const int t = threadIdx.x;
  s[t] = base + t < n ? in[base + t] : T(0);
  s[t + BLOCK] = base + t + BLOCK < n ? in[base + t + BLOCK] : T(0);
  int offset = 1;
  for (int d = BLOCK; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      s[bi] += s[ai];
    }
    offset <<= 1;
  }
  if (t == 0) {
    if (block_sums) block_sums[blockIdx.x] = s[2 * BLOCK - 1];
    s[2 * BLOCK - 1] = T(0);
  }
  for (int d = 1; d <= BLOCK; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      T tmp = s[ai];
      s[ai] = s[bi];
      s[bi] += tmp;
    }
  }
  __syncthreads();
  if (base + t < n) out[base + t] = s[t];
  if (base + t + BLOCK < n) out[base + t + BLOCK] = s[t + BLOCK];
}
template __global__ void block_scan<int, 256>(const int*, int*, int*, int);
template __global__ void block_scan<float, 512>(const float*, float*, float*, int);

// ---------------------------------------------------------------- decoupled look-back scan
struct __align__(8) TileStatus {
  unsigned flag;  // 0 = invalid, 1 = aggregate, 2 = inclusive prefix
  int value;
};
__global__ void lookback_scan(const int* in, int* out, volatile TileStatus* status, unsigned* tile_counter, int n) {
  __shared__ int tile_id_s, excl_s;
  __shared__ int warp_tot[8];
  if (threadIdx.x == 0) tile_id_s = atomicAdd(tile_counter, 1);
  __syncthreads();
  const int tile = tile_id_s;
  const int i = tile * 256 + threadIdx.x;
  int v = i < n ? in[i] : 0;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    int x = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += x;
  }
  if (lane == 31) warp_tot[wid] = v;
  __syncthreads();
  if (wid == 0) {
    int w = lane < 8 ? warp_tot[lane] : 0;
#pragma unroll
    for (int o = 1; o < 8; o <<= 1) {
      int x = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) w += x;
    }
    if (lane < 8) warp_tot[lane] = w;
  }
  __syncthreads();
  if (wid > 0) v += warp_tot[wid - 1];
  if (threadIdx.x == 255) {
    const int agg = v;
    status[tile].value = agg;
    __threadfence();
    status[tile].flag = tile == 0 ? 2 : 1;
    int excl = 0;
    for (int p = tile - 1; p >= 0;) {
      unsigned f;
      do {
        f = status[p].flag;
      } while (f == 0);
      excl += status[p].value;
      if (f == 2) break;
      --p;
    }
    if (tile > 0) {
      status[tile].value = excl + agg;
      __threadfence();
      status[tile].flag = 2;
    }
    excl_s = excl;
  }
  __syncthreads();
  if (i < n) out[i] = v + excl_s;
}

// ---------------------------------------------------------------- transpose
template <typename T, int TILE, int ROWS>
__global__ void transpose(const T* __restrict__ in, T* __restrict__ out, int w, int h) {
  __shared__ T tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (x < h && y + j < w) out[(size_t)(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
template __global__ void transpose<float, 32, 8>(const float*, float*, int, int);
template __global__ void transpose<double, 16, 16>(const double*, double*, int, int);
template __global__ void transpose<__half, 64, 4>(const __half*, __half*, int, int);

// ---------------------------------------------------------------- stencils
template <int R>
__global__ void stencil2d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, const float* w) {
  __shared__ float tile[16 + 2 * R][32 + 2 * R];
  const int gx = blockIdx.x * 32 + threadIdx.x, gy = blockIdx.y * 16 + threadIdx.y;
  for (int dy = threadIdx.y; dy < 16 + 2 * R; dy += 16)
    for (int dx = threadIdx.x; dx < 32 + 2 * R; dx += 32) {
      int sx = min(max(blockIdx.x * 32 + dx - R, 0), nx - 1);
      int sy = min(max(blockIdx.y * 16 + dy - R, 0), ny - 1);
      tile[dy][dx] = in[sy * nx + sx];
    }
  __syncthreads();
  if (gx >= nx || gy >= ny) return;
  float acc = 0.f;
#pragma unroll
  for (int dy = -R; dy <= R; ++dy)
#pragma unroll
    for (int dx = -R; dx <= R; ++dx)
      acc += w[(dy + R) * (2 * R + 1) + dx + R] * tile[threadIdx.y + R + dy][threadIdx.x + R + dx];
  out[gy * nx + gx] = acc;
}
template __global__ void stencil2d<1>(const float*, float*, int, int, const float*);
template __global__ void stencil2d<2>(const float*, float*, int, int, const float*);
template __global__ void stencil2d<4>(const float*, float*, int, int, const float*);

__global__ void stencil3d_7pt(const double* __restrict__ in, double* __restrict__ out, int nx, int ny, int nz,
                              double c0, double c1) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  const size_t sxy = (size_t)nx * ny;
  double below = in[y * nx + x], cur = in[sxy + y * nx + x], above;
  for (int z = 1; z < nz - 1; ++z) {
    const size_t idx = z * sxy + y * nx + x;
    above = in[idx + sxy];
    out[idx] = c0 * cur + c1 * (in[idx - 1] + in[idx + 1] + in[idx - nx] + in[idx + nx] + below + above);
    below = cur;
    cur = above;
  }
}

// ---------------------------------------------------------------- bitonic sort
template <typename K>
__global__ void bitonic_sort_shared(K* data) {
  __shared__ K s[1024];
  const int t = threadIdx.x;
  s[t] = data[blockIdx.x * 1024 + t];
  s[t + 512] = data[blockIdx.x * 1024 + t + 512];
  for (int size = 2; size <= 1024; size <<= 1) {
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      const int pos = 2 * t - (t & (stride - 1));
      const bool dir = ((pos & size) == 0);
      K a = s[pos], b = s[pos + stride];
      if ((a > b) == dir) {
        s[pos] = b;
        s[pos + stride] = a;
      }
    }
  }
  __syncthreads();
  data[blockIdx.x * 1024 + t] = s[t];
  data[blockIdx.x * 1024 + t + 512] = s[t + 512];
}
template __global__ void bitonic_sort_shared<int>(int*);
template __global__ void bitonic_sort_shared<float>(float*);
template __global__ void bitonic_sort_shared<unsigned long long>(unsigned long long*);

// ---------------------------------------------------------------- radix sort pass
__global__ void radix_histogram(const unsigned* keys, unsigned* hist, int n, int shift) {
  __shared__ unsigned h[256];
  h[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&h[(keys[i] >> shift) & 0xFF], 1u);
  __syncthreads();
  hist[threadIdx.x * gridDim.x + blockIdx.x] = h[threadIdx.x];
}
__global__ void radix_scatter(const unsigned* keys, const unsigned* vals, unsigned* okeys, unsigned* ovals,
                              const unsigned* offsets, int n, int shift) {
  __shared__ unsigned base[256];
  __shared__ unsigned local_keys[256];
  base[threadIdx.x] = offsets[threadIdx.x * gridDim.x + blockIdx.x];
  __syncthreads();
  const int chunk = (n + gridDim.x - 1) / gridDim.x;
  const int begin = blockIdx.x * chunk, end = min(begin + chunk, n);
  for (int i0 = begin; i0 < end; i0 += 256) {
    const int i = i0 + threadIdx.x;
    const unsigned k = i < end ? keys[i] : 0xFFFFFFFFu;
    const unsigned d = (k >> shift) & 0xFF;
    local_keys[threadIdx.x] = d;
    __syncthreads();
    unsigned rank = 0;
    for (int j = 0; j < (int)threadIdx.x; ++j) rank += local_keys[j] == d;
    if (i < end) {
      okeys[base[d] + rank] = k;
      ovals[base[d] + rank] = vals[i];
    }
    __syncthreads();
    if (i < end) atomicAdd(&base[d], 1u);
    __syncthreads();
  }
}

// ---------------------------------------------------------------- softmax / layernorm
template <typename T, int COLS>
__global__ void softmax_rows(const T* __restrict__ in, T* __restrict__ out, int rows) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  constexpr int PER = COLS / 32;
  float v[PER];
  float mx = -FLT_MAX;
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    v[k] = static_cast<float>(in[(size_t)row * COLS + k * 32 + lane]);
    mx = fmaxf(mx, v[k]);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    v[k] = __expf(v[k] - mx);
    sum += v[k];
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float inv = 1.f / sum;
#pragma unroll
  for (int k = 0; k < PER; ++k) out[(size_t)row * COLS + k * 32 + lane] = static_cast<T>(v[k] * inv);
}
template __global__ void softmax_rows<float, 128>(const float*, float*, int);
template __global__ void softmax_rows<__half, 256>(const __half*, __half*, int);
template __global__ void softmax_rows<__nv_bfloat16, 512>(const __nv_bfloat16*, __nv_bfloat16*, int);

template <typename T>
__global__ void layernorm(const T* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                          T* __restrict__ y, int cols, float eps) {
  __shared__ float red[2][32];
  const T* xr = x + (size_t)blockIdx.x * cols;
  T* yr = y + (size_t)blockIdx.x * cols;
  float s = 0.f, ss = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = static_cast<float>(xr[c]);
    s += v;
    ss += v * v;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    s += __shfl_xor_sync(0xffffffffu, s, o);
    ss += __shfl_xor_sync(0xffffffffu, ss, o);
  }
  if ((threadIdx.x & 31) == 0) {
    red[0][threadIdx.x / 32] = s;
    red[1][threadIdx.x / 32] = ss;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < blockDim.x / 32 ? red[0][threadIdx.x] : 0.f;
    ss = threadIdx.x < blockDim.x / 32 ? red[1][threadIdx.x] : 0.f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      s += __shfl_xor_sync(0xffffffffu, s, o);
      ss += __shfl_xor_sync(0xffffffffu, ss, o);
    }
    if (threadIdx.x == 0) {
      red[0][0] = s / cols;
      red[1][0] = rsqrtf(ss / cols - (s / cols) * (s / cols) + eps);
    }
  }
  __syncthreads();
  const float mean = red[0][0], rstd = red[1][0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    yr[c] = static_cast<T>((static_cast<float>(xr[c]) - mean) * rstd * gamma[c] + beta[c]);
}
template __global__ void layernorm<float>(const float*, const float*, const float*, float*, int, float);
template __global__ void layernorm<__half>(const __half*, const float*, const float*, __half*, int, float);

// ---------------------------------------------------------------- convolution
template <int K>
__global__ void conv2d_nchw(const float* __restrict__ in, const float* __restrict__ wgt, float* __restrict__ out,
                            int C, int H, int W, int OC) {
  const int ox = blockIdx.x * blockDim.x + threadIdx.x;
  const int oy = blockIdx.y * blockDim.y + threadIdx.y;
  const int oc = blockIdx.z;
  const int OH = H - K + 1, OW = W - K + 1;
  if (ox >= OW || oy >= OH) return;
  float acc = 0.f;
  for (int c = 0; c < C; ++c) {
#pragma unroll
    for (int ky = 0; ky < K; ++ky)
#pragma unroll
      for (int kx = 0; kx < K; ++kx)
        acc = fmaf(in[((size_t)c * H + oy + ky) * W + ox + kx], wgt[(((size_t)oc * C + c) * K + ky) * K + kx], acc);
  }
  out[((size_t)oc * OH + oy) * OW + ox] = fmaxf(acc, 0.f);
}
template __global__ void conv2d_nchw<3>(const float*, const float*, float*, int, int, int, int);
template __global__ void conv2d_nchw<5>(const float*, const float*, float*, int, int, int, int);

// ---------------------------------------------------------------- SpMV (CSR, vector kernel)
template <typename T>
__global__ void spmv_csr_vector(const int* __restrict__ rowptr, const int* __restrict__ col,
                                const T* __restrict__ val, const T* __restrict__ x, T* __restrict__ y, int rows) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  T sum = T(0);
  for (int j = rowptr[row] + lane; j < rowptr[row + 1]; j += 32) sum += val[j] * __ldg(&x[col[j]]);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (lane == 0) y[row] = sum;
}
template __global__ void spmv_csr_vector<float>(const int*, const int*, const float*, const float*, float*, int);
template __global__ void spmv_csr_vector<double>(const int*, const int*, const double*, const double*, double*, int);

// ---------------------------------------------------------------- n-body
__global__ void nbody_step(const float4* __restrict__ pos, float4* __restrict__ vel, float4* __restrict__ npos,
                           int n, float dt, float soft2) {
  __shared__ float4 sp[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 p = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float3 a = make_float3(0, 0, 0);
  for (int tile = 0; tile < (n + 255) / 256; ++tile) {
    const int j = tile * 256 + threadIdx.x;
    sp[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < 256; ++k) {
      const float4 q = sp[k];
      const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      const float r2 = dx * dx + dy * dy + dz * dz + soft2;
      const float inv = rsqrtf(r2);
      const float s = q.w * inv * inv * inv;
      a.x += dx * s;
      a.y += dy * s;
      a.z += dz * s;
    }
    __syncthreads();
  }
  if (i >= n) return;
  float4 v = vel[i];
  v.x += a.x * dt;
  v.y += a.y * dt;
  v.z += a.z * dt;
  vel[i] = v;
  npos[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}

// ---------------------------------------------------------------- Mandelbrot
__global__ void mandelbrot(unsigned char* img, int w, int h, double cx, double cy, double scale, int maxit) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const double c_re = cx + (x - w / 2) * scale, c_im = cy + (y - h / 2) * scale;
  double zr = 0, zi = 0;
  int it = 0;
  while (zr * zr + zi * zi < 4.0 && it < maxit) {
    const double t = zr * zr - zi * zi + c_re;
    zi = 2.0 * zr * zi + c_im;
    zr = t;
    ++it;
  }
  img[y * w + x] = (unsigned char)(it == maxit ? 0 : 255 * it / maxit);
}

// ---------------------------------------------------------------- FFT radix-2 stage
__global__ void fft_radix2_stage(float2* data, int n, int half_size, int inverse) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n / 2) return;
  const int group = t / half_size, pos = t % half_size;
  const int i = group * 2 * half_size + pos, j = i + half_size;
  float s, c;
  sincospif((inverse ? 1.f : -1.f) * pos / (float)half_size, &s, &c);
  const float2 a = data[i], b = data[j];
  const float2 tw = make_float2(b.x * c - b.y * s, b.x * s + b.y * c);
  data[i] = make_float2(a.x + tw.x, a.y + tw.y);
  data[j] = make_float2(a.x - tw.x, a.y - tw.y);
}

// ---------------------------------------------------------------- histogram with privatization
__global__ void histogram_priv(const unsigned char* __restrict__ in, unsigned* __restrict__ out, int n) {
  __shared__ unsigned h[8][256];
  const int warp = threadIdx.x / 32;
  for (int i = threadIdx.x; i < 8 * 256; i += blockDim.x) (&h[0][0])[i] = 0;
  __syncthreads();
  const uchar4* in4 = reinterpret_cast<const uchar4*>(in);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += gridDim.x * blockDim.x) {
    const uchar4 v = in4[i];
    atomicAdd(&h[warp & 7][v.x], 1u);
    atomicAdd(&h[warp & 7][v.y], 1u);
    atomicAdd(&h[warp & 7][v.z], 1u);
    atomicAdd(&h[warp & 7][v.w], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    unsigned s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += h[k][b];
    atomicAdd(&out[b], s);
  }
}

// ---------------------------------------------------------------- misc elementwise
template <typename T>
__global__ void saxpy_grid_stride(T a, const T* __restrict__ x, T* __restrict__ y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}
template __global__ void saxpy_grid_stride<float>(float, const float*, float*, long long);
template __global__ void saxpy_grid_stride<double>(double, const double*, double*, long long);
template __global__ void saxpy_grid_stride<__half>(__half, const __half*, __half*, long long);

__global__ void gelu_bias_f16(const __half2* __restrict__ x, const __half2* __restrict__ b, __half2* __restrict__ y,
                              int n, int cols2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 v = __half22float2(__hadd2(x[i], b[i % cols2]));
  const float k = 0.7978845608f;
  const float g0 = 0.5f * v.x * (1.f + tanhf(k * (v.x + 0.044715f * v.x * v.x * v.x)));
  const float g1 = 0.5f * v.y * (1.f + tanhf(k * (v.y + 0.044715f * v.y * v.y * v.y)));
  y[i] = __floats2half2_rn(g0, g1);
}

__global__ void clamp_convert(const double* in, signed char* o8, short* o16, unsigned* o32, long long* o64, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double v = in[i];
  o8[i] = (signed char)fmin(fmax(v, (double)SCHAR_MIN), (double)SCHAR_MAX);
  o16[i] = (short)__double2int_rn(fmin(fmax(v, -32768.0), 32767.0));
  o32[i] = __double2uint_rz(fabs(v));
  o64[i] = __double2ll_rd(v * 1e6);
}
