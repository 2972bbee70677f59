// Shared by the CUTLASS 3.x launch programs: how GemmUniversalAdapter would launch a
// corpus::Gemm3x kernel for one problem, printed as a launch sidecar. The kernel takes
// GemmKernel::Params by value, built here by Kernel::to_underlying_arguments as the adapter
// does, with sentinel device pointers and no GPU. Its TMA descriptors come from the driver's
// cuTensorMapEncodeTiled; CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL makes CUTLASS call it by name,
// and the definition below records each call's arguments and leaves a marker in the 128 bytes
// instead: the sidecar says where each descriptor sits and what it describes, for a test to
// encode its own (no libcuda is linked).
#pragma once
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include <cuda.h>

#ifndef CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL
#error "build with -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL: CUTLASS must call cuTensorMapEncodeTiled by name"
#endif

namespace {
struct EncodeCall {  // one cuTensorMapEncodeTiled call's arguments
  unsigned type, rank;
  unsigned long long address, dims[5], strides[5];
  unsigned box[5], element_strides[5], interleave, swizzle, l2_promotion, oob_fill;
};
std::vector<EncodeCall> encode_calls;
constexpr unsigned kMarker = 0x50414D54;  // "TMAP", then the call's index
}  // namespace

extern "C" CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* address,
                                           const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                                           const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                           CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
                                           CUtensorMapFloatOOBfill oob_fill) {
  if (rank < 1 || rank > 5) return CUDA_ERROR_INVALID_VALUE;
  EncodeCall c{unsigned(type), rank, reinterpret_cast<unsigned long long>(address), {}, {}, {}, {},
               unsigned(interleave), unsigned(swizzle), unsigned(l2_promotion), unsigned(oob_fill)};
  for (unsigned i = 0; i < rank; ++i) {
    c.dims[i] = dims[i];
    c.strides[i] = i == 0 ? 0 : strides[i - 1];  // globalStrides: of dimensions 1 .. rank-1
    c.box[i] = box[i];
    c.element_strides[i] = element_strides[i];
  }
  std::memset(map, 0, sizeof *map);
  const unsigned marker[2] = {kMarker, unsigned(encode_calls.size())};
  std::memcpy(map, marker, sizeof marker);
  encode_calls.push_back(c);
  return CUDA_SUCCESS;
}

namespace {
// Fills the next `kStackBytes` of stack below the caller with `fill`.
__attribute__((noinline)) void dirty_stack(unsigned char fill) {
  constexpr size_t kStackBytes = 64 * 1024;
  volatile unsigned char area[kStackBytes];
  for (size_t i = 0; i < kStackBytes; ++i) area[i] = fill;
}

// f() on a thread of its own: its stack lies elsewhere.
template <class F>
auto on_another_stack(F f) {
  decltype(f()) result;
  std::thread([&] { result = f(); }).join();
  return result;
}

char pointer_name(unsigned long long p) {  // 'A'..'D' for a sentinel, else 0
  return p >> 44 >= 0xA && p >> 44 <= 0xD && (p & 0xFFFFFFFFFFFull) == 0 ? char('A' + (p >> 44) - 0xA) : 0;
}

void print_tensor_map(size_t at, const EncodeCall& c) {
  std::printf("tensormap %zu %c type %u rank %u", at, pointer_name(c.address), c.type, c.rank);
  std::printf(" dims");
  for (unsigned i = 0; i < c.rank; ++i) std::printf(" %llu", c.dims[i]);
  std::printf(" strides");
  for (unsigned i = 1; i < c.rank; ++i) std::printf(" %llu", c.strides[i]);
  std::printf(" box");
  for (unsigned i = 0; i < c.rank; ++i) std::printf(" %u", c.box[i]);
  std::printf(" element_strides");
  for (unsigned i = 0; i < c.rank; ++i) std::printf(" %u", c.element_strides[i]);
  std::printf(" interleave %u swizzle %u l2 %u oob %u\n", c.interleave, c.swizzle, c.l2_promotion, c.oob_fill);
}
}  // namespace

// Prints the sidecar of G::Kernel for D = A B + C / 2, M x N x K, A row-major, B column-major,
// C and D row-major; sm_count: what the adapter would query, for the persistent grid.
template <class G>
int print_gemm3x_launch(const char* ptx_name, int m, int n, int k, int sm_count) {
  using Kernel = typename G::Kernel;
  auto* a = reinterpret_cast<cutlass::half_t*>(0xA00000000000ull);
  auto* b = reinterpret_cast<cutlass::half_t*>(0xB00000000000ull);
  auto* c = reinterpret_cast<cutlass::half_t*>(0xC00000000000ull);
  auto* d = reinterpret_cast<cutlass::half_t*>(0xD00000000000ull);
  using namespace cute;
  // Every operand's stride is (leading, 1, batch): A M x K row-major, B N x K (column-major K x N), C, D M x N
  auto packed = [](int64_t leading, int64_t batch) { return make_stride(leading, Int<1>{}, batch); };
  typename Kernel::Arguments args{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {m, n, k, 1},
      {a, packed(k, int64_t(m) * k), b,
       packed(k, int64_t(n) * k)},
      {{1.0f, 0.5f},  // D = A B + C / 2
       c, packed(n, int64_t(m) * n),
       d, packed(n, int64_t(m) * n)}};
  args.hw_info.sm_count = sm_count;
  if (Kernel::get_workspace_size(args) != 0) {
    std::fprintf(stderr, "workspace of %zu bytes: not described by the sidecar\n", Kernel::get_workspace_size(args));
    return 1;
  }
  // Params comes back from to_underlying_arguments by value: its padding holds whatever the
  // temporaries' stack had, and some fields (the Blackwell epilogue's) hold host addresses of the
  // arguments or of locals, which the kernel never reads. Built twice, stack and storage filled
  // with 0x00 then 0xFF, the arguments copied elsewhere and the second on another thread's stack:
  // bytes that differ are zeroed, so the output is stable.
  static typename Kernel::Arguments copies[2] = {args, args};
  const auto bytes_over = [&](unsigned char fill, const typename Kernel::Arguments& from) {
    alignas(typename Kernel::Params) static unsigned char built[sizeof(typename Kernel::Params)];
    std::memset(built, fill, sizeof built);
    encode_calls.clear();  // each build's markers count from 0
    dirty_stack(fill);
    new (built) typename Kernel::Params(Kernel::to_underlying_arguments(from, nullptr));
    return std::vector<unsigned char>(built, built + sizeof built);
  };
  std::vector<unsigned char> bytes = bytes_over(0x00, copies[0]);
  const std::vector<unsigned char> other = on_another_stack([&] { return bytes_over(0xFF, copies[1]); });
  // A word holding a host address (of the stack or the arguments) in either build: all of it
  const unsigned char local = 0;
  const auto host_address = [&](const std::vector<unsigned char>& from, size_t at) {
    unsigned long long v;
    std::memcpy(&v, from.data() + at, 8);
    const auto near = [v](const void* p) { return v - reinterpret_cast<unsigned long long>(p) + (1ull << 30) < (2ull << 30); };
    return near(&local) || near(copies);
  };
  std::vector<bool> host_word(bytes.size() / 8);
  for (size_t w = 0; w < host_word.size(); ++w) host_word[w] = host_address(bytes, w * 8) || host_address(other, w * 8);
  for (size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != other[i] || (i / 8 < host_word.size() && host_word[i / 8])) bytes[i] = 0;
  alignas(typename Kernel::Params) static unsigned char storage[sizeof(typename Kernel::Params)];
  std::memcpy(storage, bytes.data(), bytes.size());
  const auto& params = *reinterpret_cast<const typename Kernel::Params*>(storage);
  const dim3 grid = Kernel::get_grid_shape(params), block = Kernel::get_block_shape();
  std::printf("# How CUTLASS's GemmUniversalAdapter launches %s.ptx (tests/corpus/src-real/cutlass-launch)\n", ptx_name);
  std::printf("problem %d %d %d\nlayout A row B column C row D row\nepilogue alpha 1 beta 0.5\n", m, n, k);
  std::printf("grid %u %u %u\nblock %u %u %u\n", grid.x, grid.y, grid.z, block.x, block.y, block.z);
  std::printf("cluster %d %d %d\n", int(size<0>(typename Kernel::ClusterShape{})), int(size<1>(typename Kernel::ClusterShape{})),
              int(size<2>(typename Kernel::ClusterShape{})));
  std::printf("shared %d\n", Kernel::SharedStorageSize);  // dynamic: the kernel's extern __shared__ buffer
  std::printf("params %zu", sizeof(params));
  for (unsigned char byte : bytes) std::printf(" %02x", byte);
  std::printf("\n");
  for (size_t at = 0; at + 8 <= sizeof(params); at += 8) {
    unsigned long long word;
    std::memcpy(&word, bytes.data() + at, 8);
    if (pointer_name(word)) std::printf("pointer %c %zu\n", pointer_name(word), at);
  }
  size_t found = 0;
  for (size_t at = 0; at + 128 <= sizeof(params); at += 64) {  // CUtensorMap is 64-byte aligned
    unsigned marker[2];
    std::memcpy(marker, bytes.data() + at, sizeof marker);
    if (marker[0] != kMarker || marker[1] >= encode_calls.size()) continue;
    print_tensor_map(at, encode_calls[marker[1]]);
    ++found;
  }
  if (found != encode_calls.size()) {
    std::fprintf(stderr, "%zu tensor maps encoded, %zu found in Params\n", encode_calls.size(), found);
    return 1;
  }
  return 0;
}
