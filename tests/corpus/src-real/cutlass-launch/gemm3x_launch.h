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
#include <type_traits>
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

// Bytes of a CUTLASS 3.x kernel's Params that hold no value the kernel reads, found by member
// name. to_underlying_arguments builds these members in temporaries and copies them whole, so
// their padding holds the host stack's stale bytes (return addresses, saved pointers: they
// change from run to run with ASLR). The kernel never reads padding, so zeroing it is safe:
// - a TMA copy (CuTe's Copy_Traits<SM90_TMA_*>, or a Copy_Atom/TiledCopy over one): tma_desc_
//   (the 128-byte CUtensorMap) is its only value; aux_params_ (AuxTmaParams) has only static
//   strides (checked) and occupies one byte, and the rest is padding to the descriptor's
//   alignment (a 256-byte member): everything after tma_desc_;
// - an Sm90ScalarBroadcast node of the epilogue's fusion tree (its Params are its Arguments):
//   4-byte `scalars` (alpha, beta) followed by 8-byte `scalar_ptrs`, with padding between;
// - the fusion tree's Params (a cute::tuple, or Sm90VisitorImplBase's op_0 to op_3): each node.
namespace params_padding {
#define PARAMS_PADDING_HAS(name)                                           \
  template <class T, class = void> struct has_##name : std::false_type {}; \
  template <class T> struct has_##name<T, std::void_t<decltype(&T::name)>> : std::true_type {};
PARAMS_PADDING_HAS(tma_desc_)
PARAMS_PADDING_HAS(scalars)
PARAMS_PADDING_HAS(op_0)
PARAMS_PADDING_HAS(op_1)
PARAMS_PADDING_HAS(op_2)
PARAMS_PADDING_HAS(op_3)
#undef PARAMS_PADDING_HAS

inline void zero_between(unsigned char* bytes, const void* params, const void* from, const void* to) {
  const auto at = [params](const void* p) { return size_t(static_cast<const char*>(p) - static_cast<const char*>(params)); };
  std::memset(bytes + at(from), 0, at(to) - at(from));
}

template <class T>
void zero_in(const T& member, unsigned char* bytes, const void* params) {
  const char* const begin = reinterpret_cast<const char*>(&member);
  if constexpr (has_tma_desc_<T>::value) {
    static_assert(cute::is_static<decltype(member.aux_params_.g_stride_)>::value, "TMA strides with a value: keep aux_params_");
    zero_between(bytes, params, reinterpret_cast<const char*>(&member.tma_desc_) + sizeof(member.tma_desc_), begin + sizeof(T));
  } else if constexpr (has_scalars<T>::value) {
    zero_between(bytes, params, reinterpret_cast<const char*>(&member.scalars) + sizeof(member.scalars), &member.scalar_ptrs);
  } else if constexpr (cute::is_tuple<T>::value) {
    cute::for_each(member, [&](const auto& element) { zero_in(element, bytes, params); });
  } else {  // Sm90VisitorImplBase<Op0..Op3>::Params: one member per node, op_0 to op_3
    if constexpr (has_op_0<T>::value) zero_in(member.op_0, bytes, params);
    if constexpr (has_op_1<T>::value) zero_in(member.op_1, bytes, params);
    if constexpr (has_op_2<T>::value) zero_in(member.op_2, bytes, params);
    if constexpr (has_op_3<T>::value) zero_in(member.op_3, bytes, params);
  }
}

// The members of Params' mainloop and epilogue that hold such types, where present
#define PARAMS_PADDING_MEMBER(name)                                                               \
  template <class T, class = void> struct has_##name : std::false_type {};                       \
  template <class T> struct has_##name<T, std::void_t<decltype(&T::name)>> : std::true_type {}; \
  template <class T> void zero_##name(const T& of, unsigned char* bytes, const void* params) {    \
    if constexpr (has_##name<T>::value) zero_in(of.name, bytes, params);                         \
  }
PARAMS_PADDING_MEMBER(tma_load_a)
PARAMS_PADDING_MEMBER(tma_load_b)
PARAMS_PADDING_MEMBER(tma_load_a_fallback)  // Blackwell: the descriptors for the fallback cluster shape
PARAMS_PADDING_MEMBER(tma_load_b_fallback)
PARAMS_PADDING_MEMBER(thread)  // the epilogue's fusion callbacks
PARAMS_PADDING_MEMBER(tma_load_c)
PARAMS_PADDING_MEMBER(tma_store_d)
#undef PARAMS_PADDING_MEMBER
}  // namespace params_padding

template <class Params>
void zero_value_free_bytes(const Params& p, unsigned char* bytes) {
  using namespace params_padding;
  zero_tma_load_a(p.mainloop, bytes, &p);
  zero_tma_load_b(p.mainloop, bytes, &p);
  zero_tma_load_a_fallback(p.mainloop, bytes, &p);
  zero_tma_load_b_fallback(p.mainloop, bytes, &p);
  zero_thread(p.epilogue, bytes, &p);
  zero_tma_load_c(p.epilogue, bytes, &p);
  zero_tma_store_d(p.epilogue, bytes, &p);
}

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
  // Params comes back from to_underlying_arguments by value. Padding between its members holds
  // whatever `built` held: built twice, storage and stack filled with 0x00 then 0xFF (the second
  // on another thread's stack), bytes that differ are zeroed. Padding inside CUTLASS's member
  // types is copied from to_underlying_arguments' temporaries, i.e. stale stack bytes (host
  // addresses that change with ASLR): zero_value_free_bytes clears it by member name.
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
  for (size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != other[i]) bytes[i] = 0;
  alignas(typename Kernel::Params) static unsigned char storage[sizeof(typename Kernel::Params)];
  std::memcpy(storage, bytes.data(), bytes.size());
  const auto& params = *reinterpret_cast<const typename Kernel::Params*>(storage);
  zero_value_free_bytes(params, bytes.data());
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
