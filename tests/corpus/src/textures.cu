// ptxpp corpus: texture and surface objects (tex/tld4/suld/sust/txq/suq),
// 1D/2D/3D, layered and cubemap fetches, LOD and gradient sampling, gathers,
// integer/normalized reads, surface reads and writes with boundary modes.
// nvcc corpus (see scripts/gen-corpus): archs: sm_80 sm_90a sm_100a sm_120a
#include <cuda_fp16.h>
#include "corpus.h"

__global__ void tex_sample(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                           cudaTextureObject_t tl1, cudaTextureObject_t tl2, cudaTextureObject_t tcube,
                           cudaTextureObject_t tcl, float4* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  float a = tex1D<float>(t1, u);
  float b = tex1DLod<float>(t1, u, 1.5f);
  float c = tex1DGrad<float>(t1, u, 0.01f, 0.02f);
  float4 d = tex2D<float4>(t2, u, v);
  float4 e = tex2DLod<float4>(t2, u, v, 2.0f);
  float4 f = tex2DGrad<float4>(t2, u, v, make_float2(0.1f, 0.f), make_float2(0.f, 0.1f));
  float4 g = tex3D<float4>(t3, u, v, 0.5f);
  float4 g2 = tex3DLod<float4>(t3, u, v, 0.25f, 1.0f);
  float4 g3 = tex3DGrad<float4>(t3, u, v, 0.75f, make_float4(0.1f, 0, 0, 0), make_float4(0, 0.1f, 0, 0));
  float hl = tex1DLayered<float>(tl1, u, y & 3);
  float4 il = tex2DLayered<float4>(tl2, u, v, x & 7);
  float4 il2 = tex2DLayeredLod<float4>(tl2, u, v, 1, 0.5f);
  float4 cm = texCubemap<float4>(tcube, u - 0.5f, v - 0.5f, 1.0f);
  float4 cm2 = texCubemapLod<float4>(tcube, 1.0f, u, v, 2.0f);
  float4 cl = texCubemapLayered<float4>(tcl, u, 1.0f, v, 3);
  float4 g0 = tex2Dgather<float4>(t2, u, v, 0);
  float4 g1 = tex2Dgather<float4>(t2, u, v, 1);
  float4 g22 = tex2Dgather<float4>(t2, u, v, 2);
  float4 g33 = tex2Dgather<float4>(t2, u, v, 3);
  acc.x = a + b + c + hl + d.x + e.y + f.z + g.w + g2.x + g3.y;
  acc.y = il.x + il2.y + cm.z + cm2.w + cl.x;
  acc.z = g0.x + g1.y + g22.z + g33.w;
  acc.w = d.w * e.w * f.w;
  out[y * w + x] = acc;
}

__global__ void tex_integer(cudaTextureObject_t ti, cudaTextureObject_t tu8, cudaTextureObject_t th,
                            cudaTextureObject_t tbuf, int4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int4 a = tex1Dfetch<int4>(ti, i);
  uchar4 b = tex2D<uchar4>(tu8, i & 63, i >> 6);
  float nb = tex2D<float>(tu8, (i & 63) + 0.5f, (i >> 6) + 0.5f);
  short2 c = tex1D<short2>(th, i * 0.25f);
  float fb = tex1Dfetch<float>(tbuf, i);
  uint2 ub = tex1Dfetch<uint2>(tbuf, i + 1);
  char1 cb = tex1Dfetch<char1>(tbuf, i + 3);
  ushort4 sb = tex2DLod<ushort4>(tu8, 0.5f, 0.5f, 0.0f);
  out[i] = make_int4(a.x + b.x + c.x + (int)nb, a.y + b.y + c.y + (int)fb, a.z + b.z + (int)ub.x + cb.x,
                     a.w + b.w + (int)ub.y + sb.w);
}

__global__ void surf_rw(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3,
                        cudaSurfaceObject_t sl1, cudaSurfaceObject_t sl2, cudaSurfaceObject_t scube, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v1 = surf1Dread<float>(s1, x * 4);
  surf1Dwrite(v1 * 2.0f, s1, x * 4);
  float4 p = surf2Dread<float4>(s2, x * 16, y);
  p.x += 1.f;
  surf2Dwrite(p, s2, x * 16, y);
  uchar4 q = surf2Dread<uchar4>(s2, x * 4, y, cudaBoundaryModeClamp);
  surf2Dwrite(make_uchar4(q.w, q.z, q.y, q.x), s2, x * 4, y, cudaBoundaryModeZero);
  int2 r = surf2Dread<int2>(s2, x * 8, y, cudaBoundaryModeTrap);
  surf2Dwrite(make_int2(r.y, r.x), s2, x * 8, y + 1, cudaBoundaryModeTrap);
  unsigned short hv = surf2Dread<unsigned short>(s2, x * 2, y);
  surf2Dwrite(__half_as_ushort(__hadd(__ushort_as_half(hv), __ushort_as_half(hv))), s2, x * 2, y);
  float4 z = surf3Dread<float4>(s3, x * 16, y, 2);
  surf3Dwrite(make_float4(z.w, z.z, z.y, z.x), s3, x * 16, y, 3);
  unsigned short l1 = surf1DLayeredread<unsigned short>(sl1, x * 2, y);
  surf1DLayeredwrite<unsigned short>(l1 + 1, sl1, x * 2, y);
  float2 l2 = surf2DLayeredread<float2>(sl2, x * 8, y, 4);
  surf2DLayeredwrite(make_float2(l2.y, l2.x), sl2, x * 8, y, 5, cudaBoundaryModeClamp);
  int c = surfCubemapread<int>(scube, x * 4, y, 2);
  surfCubemapwrite(c ^ 0x55, scube, x * 4, y, 4);
  signed char sc = surf2Dread<signed char>(s2, x, y);
  surf2Dwrite<signed char>(sc - 1, s2, x, y);
}

// Raw PTX texture instructions on bindless handles: tex, tld4, txq, suq, suld, sust, sured.
__global__ void raw_tex_ptx(unsigned long long tex, unsigned long long surf, float* out, int* iout) {
  float r0, r1, r2, r3;
  int w, h, d, lv, sw, sh, nb;
  const float x = threadIdx.x * 0.125f, y = blockIdx.x * 0.25f;
  asm volatile("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
               : "=f"(r0), "=f"(r1), "=f"(r2), "=f"(r3)
               : "l"(tex), "f"(x), "f"(y));
  float l0, l1, l2, l3;
  asm volatile("tex.level.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], %7;"
               : "=f"(l0), "=f"(l1), "=f"(l2), "=f"(l3)
               : "l"(tex), "f"(x), "f"(y), "f"(1.0f));
  float t0, t1, t2, t3;
  asm volatile("tld4.r.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
               : "=f"(t0), "=f"(t1), "=f"(t2), "=f"(t3)
               : "l"(tex), "f"(x), "f"(y));
  int i0, i1, i2, i3;
  asm volatile("tex.1d.v4.s32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
               : "=r"(i0), "=r"(i1), "=r"(i2), "=r"(i3)
               : "l"(tex), "r"((int)threadIdx.x));
  asm volatile("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(tex));
  asm volatile("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(tex));
  asm volatile("txq.depth.b32 %0, [%1];" : "=r"(d) : "l"(tex));
  asm volatile("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(lv) : "l"(tex));
  asm volatile("suq.width.b32 %0, [%1];" : "=r"(sw) : "l"(surf));
  asm volatile("suq.height.b32 %0, [%1];" : "=r"(sh) : "l"(surf));
  asm volatile("txq.level.width.b32 %0, [%1], %2;" : "=r"(nb) : "l"(tex), "r"(1));
  unsigned s0, s1;
  asm volatile("suld.b.2d.v2.b32.trap {%0, %1}, [%2, {%3, %4}];"
               : "=r"(s0), "=r"(s1)
               : "l"(surf), "r"((int)threadIdx.x * 8), "r"((int)blockIdx.x));
  asm volatile("sust.b.2d.v2.b32.clamp [%0, {%1, %2}], {%3, %4};" ::"l"(surf), "r"((int)threadIdx.x * 8),
               "r"((int)blockIdx.x + 1), "r"(s1), "r"(s0)
               : "memory");
  asm volatile("sust.p.2d.v4.b32.zero [%0, {%1, %2}], {%3, %4, %5, %6};" ::"l"(surf), "r"((int)threadIdx.x * 16),
               "r"((int)blockIdx.x), "f"(r0), "f"(r1), "f"(r2), "f"(r3)
               : "memory");
  asm volatile("sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;" ::"l"(surf), "r"((int)threadIdx.x * 4),
               "r"((int)blockIdx.x), "r"(s0)
               : "memory");
  out[blockIdx.x * blockDim.x + threadIdx.x] = r0 + r1 + r2 + r3 + l0 + l1 + l2 + l3 + t0 + t1 + t2 + t3;
  iout[blockIdx.x * blockDim.x + threadIdx.x] = i0 + i1 + i2 + i3 + w + h + d + lv + sw + sh + nb + (int)s0;
}

// A realistic use: bilinear image resampling through a texture into a surface.
__global__ void resample(cudaTextureObject_t src, cudaSurfaceObject_t dst, int dw, int dh, float sx, float sy,
                         float angle) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dw || y >= dh) return;
  float s, c;
  __sincosf(angle, &s, &c);
  const float cx = x - dw * 0.5f, cy = y - dh * 0.5f;
  const float u = (c * cx - s * cy) * sx + 0.5f;
  const float v = (s * cx + c * cy) * sy + 0.5f;
  float4 px = tex2D<float4>(src, u, v);
  const float lum = 0.2126f * px.x + 0.7152f * px.y + 0.0722f * px.z;
  uchar4 o = make_uchar4((unsigned char)__saturatef(px.x) * 255, (unsigned char)(__saturatef(px.y) * 255),
                         (unsigned char)(__saturatef(px.z) * 255), (unsigned char)(__saturatef(lum) * 255));
  surf2Dwrite(o, dst, x * (int)sizeof(uchar4), y);
}
