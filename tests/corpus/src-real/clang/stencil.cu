// Stencils: a 2D 5-point Jacobi step through a shared tile with halo, and a 3D
// 7-point stencil marching along z with the column kept in registers.
#include "nvptx.h"

template <int B>
__device__ void jacobi_tile(const float* in, float* out, int nx, int ny) {
  __shared__ float tile[B + 2][B + 2];
  int x = ctaid_x() * B + tid_x(), y = ctaid_y() * B + tid_y();
  int lx = tid_x() + 1, ly = tid_y() + 1;
  auto at = [&](int i, int j) { return (i >= 0 && i < nx && j >= 0 && j < ny) ? in[j * nx + i] : 0.f; };
  tile[ly][lx] = at(x, y);
  if (tid_x() == 0) tile[ly][0] = at(x - 1, y);
  if (tid_x() == B - 1) tile[ly][B + 1] = at(x + 1, y);
  if (tid_y() == 0) tile[0][lx] = at(x, y - 1);
  if (tid_y() == B - 1) tile[B + 1][lx] = at(x, y + 1);
  sync_block();
  if (x < nx && y < ny)
    out[y * nx + x] = 0.25f * (tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly - 1][lx] + tile[ly + 1][lx]);
}

extern "C" __global__ void jacobi16(const float* in, float* out, int nx, int ny) { jacobi_tile<16>(in, out, nx, ny); }
extern "C" __global__ void jacobi32(const float* in, float* out, int nx, int ny) { jacobi_tile<32>(in, out, nx, ny); }

extern "C" __global__ void stencil7(const double* __restrict__ in, double* __restrict__ out, int nx, int ny, int nz,
                                   double c0, double c1) {
  int x = ctaid_x() * ntid_x() + tid_x(), y = ctaid_y() * ntid_y() + tid_y();
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  long plane = long(nx) * ny;
  long i = long(y) * nx + x;
  double below = in[i], here = in[i + plane];
  for (int z = 1; z < nz - 1; ++z) {
    double above = in[i + (z + 1) * plane];
    long c = i + z * plane;
    out[c] = c0 * here + c1 * (below + above + in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx]);
    below = here;
    here = above;
  }
}
