// Host program: how CUTLASS's device::Gemm would launch gemm_sm80_f16.cu's kernel for one
// problem, written as a launch sidecar (tests/corpus/cutlass/sm_80/gemm_sm80_f16.launch).
// The kernel takes GemmKernel::Params by value: this builds it exactly as
// device::Gemm::initialize does (no CUDA call is made), with sentinel values for the device
// pointers, and prints its bytes and where each pointer sits, the grid, block and shared bytes.
//   scripts/gen-corpus-real cutlass (nvcc -std=c++17 --expt-relaxed-constexpr -DNDEBUG, then runs it)
#include <cstdio>
#include <cstring>
#include <new>

#include "../cutlass/gemm_sm80_f16.cu"

int main() {
  // Two 128 x 128 CTA tiles and three K tiles of 32, as many as the pipeline's stages: with
  // fewer, the mainloop's last look-ahead ldmatrix reads a stage no cp.async filled (its values
  // are never used), which the emulator's check_shared_init reports.
  const int m = 256, n = 128, k = 96;
  using Kernel = GemmF16::GemmKernel;
  auto* a = reinterpret_cast<half_t*>(0xA00000000000ull);
  auto* b = reinterpret_cast<half_t*>(0xB00000000000ull);
  auto* c = reinterpret_cast<half_t*>(0xC00000000000ull);
  auto* d = reinterpret_cast<half_t*>(0xD00000000000ull);
  // Built in zeroed storage, as Params below: their padding is copied into the kernel's bytes
  alignas(GemmF16::Arguments) static unsigned char arg_storage[sizeof(GemmF16::Arguments)] = {};
  const GemmF16::Arguments& args =
      *new (arg_storage) GemmF16::Arguments({m, n, k}, {a, k}, {b, k}, {c, n}, {d, n}, {1.0f, 0.5f});  // D = relu(AB + C/2)
  typename GemmF16::ThreadblockSwizzle swizzle;
  const gemm::GemmCoord tiles = swizzle.get_tiled_shape(args.problem_size, {128, 128, 32}, args.split_k_slices);
  alignas(Kernel::Params) static unsigned char storage[sizeof(Kernel::Params)] = {};
  const Kernel::Params& params = *new (storage) Kernel::Params{
      args.problem_size, tiles, args.ref_A.non_const_ref(), args.ref_B.non_const_ref(), args.ref_C.non_const_ref(),
      args.ref_D, args.epilogue, nullptr, args.gather_A_indices, args.gather_B_indices, args.scatter_D_indices};
  // The epilogue's Params pads `threshold` to the pointers after it; those bytes come from a
  // temporary's stack: zero them so the output is stable (the kernel never reads them).
  auto* pad = reinterpret_cast<unsigned char*>(const_cast<float*>(&params.output_op.threshold) + 1);
  std::memset(pad, 0, reinterpret_cast<const unsigned char*>(&params.output_op.alpha_ptr) - pad);
  const dim3 grid = swizzle.get_grid_shape(params.grid_tiled_shape);
  std::printf("# How CUTLASS's device::Gemm launches gemm_sm80_f16.ptx (tests/corpus/src-real/cutlass-launch)\n");
  std::printf("problem %d %d %d\nlayout A row B column C row D row\nepilogue relu alpha 1 beta 0.5\n", m, n, k);
  // shared: the kernel's `extern __shared__` SharedStorageBase[], dynamic
  std::printf("grid %u %u %u\nblock %d 1 1\nshared %zu\n", grid.x, grid.y, grid.z, Kernel::kThreadCount,
              sizeof(Kernel::SharedStorage));
  unsigned char bytes[sizeof(params)];
  std::memcpy(bytes, &params, sizeof(params));
  std::printf("params %zu", sizeof(params));
  for (unsigned char byte : bytes) std::printf(" %02x", byte);
  std::printf("\n");
  for (size_t at = 0; at + 8 <= sizeof(params); at += 8) {
    unsigned long long word;
    std::memcpy(&word, bytes + at, 8);
    if (word >> 44 >= 0xA && word >> 44 <= 0xD && (word & 0xFFFFFFFFFFFull) == 0)
      std::printf("pointer %c %zu\n", static_cast<char>('A' + (word >> 44) - 0xA), at);
  }
  return 0;
}
