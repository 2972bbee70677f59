// CUTLASS/CuTe kernels of tests/corpus/cutlass (nvcc's PTX of tests/corpus/src-real/cutlass)
// on the emulator against a plain C++ reference, launched as their sources say.
//
// cute_gemm_sm80.cu: cute_gemm_tn(A, B, C, M, N, K), A M x K and B N x K (K contiguous), C
// M x N row-major f32; 64 x 64 x 32 CTA tiles without predication (M, N multiples of 64, K
// of 32), grid (M / 64, N / 64), 128 threads (__launch_bounds__ and the 2 x 2 warp MMA), static
// shared memory only: cp.async into a Swizzle<2,3,3> layout, ldmatrix, mma.sync m16n8k16.
//
// gemm_sm80_f16.cu (CUTLASS 2.x device::Gemm: 128 x 128 x 32 tiles, 3-stage cp.async
// multistage, mma.sync, bias + ReLU epilogue) takes GemmKernel::Params by value, built by
// CUTLASS's host code: tests/corpus/src-real/cutlass-launch/gemm_sm80_f16_launch.cu builds it as
// device::Gemm::initialize does, with sentinel device pointers, and scripts/gen-corpus-real
// writes its bytes, the pointers' offsets, grid, block and dynamic shared memory to
// tests/corpus/cutlass/sm_80/gemm_sm80_f16.launch.
//
// gemm_sm90_f16.cu (CUTLASS 3.x GemmUniversal, warp-specialized cooperative: TMA loads multicast
// across a 2 x 1 cluster, wgmma, the default epilogue) likewise, from
// tests/corpus/src-real/cutlass-launch/gemm_sm90_f16_launch.cu; its Params hold TMA descriptors
// the driver's cuTensorMapEncodeTiled would make: the launch program records each call's
// arguments instead, and the test encodes the emulator's descriptors from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "known_good_util.hpp"
#include "ptxpp/emu/tensor_map.hpp"

namespace {

using namespace ptx::test::known_good;

void check_cute_gemm(const char* arch) {
  const int m = 128, n = 192, k = 96;  // a 2 x 3 grid, three K tiles
  const auto a = small_values(size_t(m) * k, 70, 64, 0x1p-6), b = small_values(size_t(n) * k, 71, 64, 0x1p-6);
  ptx::test::EmuRun run;
  run.buffer(as_f16(a), "A");
  run.buffer(as_f16(b), "B");
  const uint64_t c = run.buffer(std::vector<float>(size_t(m) * n + 16, -1.0f), "C");
  run.scalar(int32_t{m});
  run.scalar(int32_t{n});
  run.scalar(int32_t{k});
  const std::string ptx = ptx::test::read_text(std::string(PTXPP_CORPUS_DIR) + "/cutlass/" + arch + "/cute_gemm_sm80.ptx");
  run.launch(ptx, "_Z12cute_gemm_tnPKN7cutlass6half_tES2_Pfiii", {m / 64, n / 64, 1}, {128, 1, 1});
  const auto got = run.read<float>(c, size_t(m) * n + 16);
  // k/64 inputs: every product and sum is exact in f32, whatever the order
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) want += a[i * k + p] * b[j * k + p];
      ASSERT_EQ(got[i * n + j], want) << "C[" << i << "][" << j << "]";
    }
  for (int i = m * n; i < m * n + 16; ++i) ASSERT_EQ(got[i], -1.0f) << "store past C at " << i;
}
TEST(EmuKnownGood, CuteGemmSm80) { check_cute_gemm("sm_80"); }
TEST(EmuKnownGood, CuteGemmSm86) { check_cute_gemm("sm_86"); }

// <name>.launch from a CUTLASS launch program: `problem M N K`, `grid`, `block`, `shared`,
// `params SIZE BYTE...` (hex) and `pointer NAME OFFSET` for each device pointer in them;
// `cluster X Y Z`, and `tensormap OFFSET NAME type T rank R dims.. strides.. box.. element_strides..
// interleave I swizzle S l2 L oob O` for each TMA descriptor: cuTensorMapEncodeTiled's
// arguments, of the tensor at pointer NAME (strides: of dimensions 1 .. R-1).
struct CutlassTensorMap {
  size_t offset = 0;
  char tensor = 0;
  ptx::emu::TensorMapDesc desc;  // base left 0
};

struct CutlassLaunch {
  int m = 0, n = 0, k = 0;
  ptx::emu::Dim3 grid, block, cluster;
  uint32_t shared = 0;
  std::vector<uint8_t> params;
  std::map<char, size_t> pointers;
  std::vector<CutlassTensorMap> tensor_maps;
};

template <class T, size_t N>
void read_fields(std::istream& w, const char* key, std::array<T, N>& out, unsigned from, unsigned to) {
  std::string word;
  if (!(w >> word) || word != key) throw std::runtime_error(std::string("tensormap: expected ") + key);
  for (unsigned i = from; i < to; ++i) {
    uint64_t v = 0;
    w >> v;
    out[i] = static_cast<T>(v);
  }
}

uint8_t read_enum(std::istream& w, const char* key) {
  std::string word;
  unsigned v = 0;
  if (!(w >> word >> v) || word != key) throw std::runtime_error(std::string("tensormap: expected ") + key);
  return static_cast<uint8_t>(v);
}

CutlassTensorMap parse_tensor_map(std::istream& w) {
  CutlassTensorMap t;
  auto& d = t.desc;
  w >> t.offset >> t.tensor;
  d.dtype = read_enum(w, "type");
  d.rank = read_enum(w, "rank");
  read_fields(w, "dims", d.dims, 0, d.rank);
  d.strides[0] = ptx::emu::tensor_map_element_bytes(d.dtype);
  read_fields(w, "strides", d.strides, 1, d.rank);
  read_fields(w, "box", d.box, 0, d.rank);
  read_fields(w, "element_strides", d.element_strides, 0, d.rank);
  d.interleave = read_enum(w, "interleave");
  d.swizzle = read_enum(w, "swizzle");
  d.l2_promotion = read_enum(w, "l2");
  d.oob_nan = read_enum(w, "oob");
  return t;
}

CutlassLaunch parse_cutlass_launch(const std::string& text) {
  CutlassLaunch l;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream w(line);
    std::string key;
    if (!(w >> key) || key[0] == '#') continue;
    if (key == "problem") w >> l.m >> l.n >> l.k;
    if (key == "grid") w >> l.grid.x >> l.grid.y >> l.grid.z;
    if (key == "block") w >> l.block.x >> l.block.y >> l.block.z;
    if (key == "cluster") w >> l.cluster.x >> l.cluster.y >> l.cluster.z;
    if (key == "tensormap") l.tensor_maps.push_back(parse_tensor_map(w));
    if (key == "shared") w >> l.shared;
    if (key == "pointer") {
      char name = 0;
      w >> name >> l.pointers[name];
    }
    if (key != "params") continue;
    size_t size = 0;
    w >> size;
    for (unsigned byte = 0; w >> std::hex >> byte;) l.params.push_back(static_cast<uint8_t>(byte));
    if (l.params.size() != size) throw std::runtime_error("params: " + std::to_string(l.params.size()) + " bytes, said " + std::to_string(size));
  }
  return l;
}

std::string only_entry(const std::string& ptx) {  // the name of the module's one .entry
  const size_t at = ptx.find(".entry ") + 7, end = ptx.find('(', at);
  return ptx.substr(at, end - at);
}

// The GEMM's A, B and C (f16) in the emulator's global memory, and D filled with NaNs (0x7E00),
// with 16 more past its M x N to catch stray stores; then the launch's Params as the kernel's
// one argument, with the addresses patched in at its pointers and its TMA descriptors encoded
// for them. Returns each operand's address by name.
std::map<char, uint64_t> pass_gemm_operands(ptx::test::EmuRun& run, const CutlassLaunch& l, const std::vector<double>& a, const std::vector<double>& b,
                                            const std::vector<double>& c) {
  auto& mem = run.emu.memory();
  std::map<char, uint64_t> at;
  for (const auto& [name, host] :
       {std::pair{'A', as_f16(a)}, {'B', as_f16(b)}, {'C', as_f16(c)}, {'D', std::vector<uint16_t>(size_t(l.m) * l.n + 16, 0x7E00)}}) {
    at[name] = mem.alloc(host.size() * 2, std::string(1, name));
    mem.write(at[name], host.data(), host.size() * 2);
  }
  std::vector<uint8_t> params = l.params;
  for (const auto& [name, offset] : l.pointers) std::memcpy(params.data() + offset, &at.at(name), 8);
  for (const CutlassTensorMap& t : l.tensor_maps) {
    ptx::emu::TensorMapDesc d = t.desc;
    d.base = at.at(t.tensor);
    const ptx::emu::TensorMapBytes bytes = ptx::emu::encode(d);
    std::memcpy(params.data() + t.offset, bytes.data(), bytes.size());
  }
  run.args.push_back(ptx::emu::Arg{params});
  return at;
}

// D = relu(A B + C / 2), A M x K row-major, B K x N column-major, C and D M x N row-major, f16;
// k/64 inputs: the f32 accumulation is exact, D is its f16 rounding.
TEST(EmuKnownGood, CutlassGemmF16Sm80) {
  const std::string base = std::string(PTXPP_CORPUS_DIR) + "/cutlass/sm_80/gemm_sm80_f16";
  const CutlassLaunch l = parse_cutlass_launch(ptx::test::read_text(base + ".launch"));
  ASSERT_EQ(l.pointers.size(), 4u);
  ASSERT_EQ(l.tensor_maps.size(), 0u);
  const int m = l.m, n = l.n, k = l.k;
  const auto a = small_values(size_t(m) * k, 72, 64, 0x1p-6), b = small_values(size_t(n) * k, 73, 64, 0x1p-6),
             c = small_values(size_t(m) * n, 74, 64, 0x1p-6);
  ptx::test::EmuRun run;
  const std::map<char, uint64_t> at = pass_gemm_operands(run, l, a, b, c);
  const std::string ptx = ptx::test::read_text(base + ".ptx");
  run.launch(ptx, only_entry(ptx), l.grid, l.block, l.shared);
  const auto got = run.read<uint16_t>(at.at('D'), size_t(m) * n + 16);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int p = 0; p < k; ++p) acc += a[i * k + p] * b[j * k + p];
      ASSERT_EQ(got[i * n + j], f16_bits(std::max(acc + c[i * n + j] / 2, 0.0))) << "D[" << i << "][" << j << "]";
    }
  for (int i = m * n; i < m * n + 16; ++i) ASSERT_EQ(got[i], 0x7E00) << "store past D at " << i;
}

// CUTLASS 3.x GEMMs from gemm3x.h (launch programs: cutlass-launch/gemm3x_launch.h): D = A B + C / 2
// (LinearCombination, alpha 1, beta 0.5), A M x K row-major, B K x N column-major, C and D M x N
// row-major, f16; each operand reaches the kernel as a pointer or through TMA descriptors, as
// the sidecar says. k/64 inputs: the f32 accumulation is exact.
void check_gemm3x(const std::string& arch_and_name, size_t pointers, size_t tensor_maps, ptx::emu::Options options = {}) {
  const std::string base = std::string(PTXPP_CORPUS_DIR) + "/cutlass/" + arch_and_name;
  const CutlassLaunch l = parse_cutlass_launch(ptx::test::read_text(base + ".launch"));
  ASSERT_EQ(l.pointers.size(), pointers);
  ASSERT_EQ(l.tensor_maps.size(), tensor_maps);
  const int m = l.m, n = l.n, k = l.k;
  const auto a = small_values(size_t(m) * k, 75, 64, 0x1p-6), b = small_values(size_t(n) * k, 76, 64, 0x1p-6),
             c = small_values(size_t(m) * n, 77, 64, 0x1p-6);
  ptx::test::EmuRun run{ptx::emu::Emulator(options), {}};
  const std::map<char, uint64_t> at = pass_gemm_operands(run, l, a, b, c);
  const std::string ptx = ptx::test::read_text(base + ".ptx");
  run.launch(ptx, only_entry(ptx), l.grid, l.block, l.shared, l.cluster);
  const auto got = run.read<uint16_t>(at.at('D'), size_t(m) * n + 16);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int p = 0; p < k; ++p) acc += a[i * k + p] * b[j * k + p];
      ASSERT_EQ(got[i * n + j], f16_bits(acc + c[i * n + j] / 2)) << "D[" << i << "][" << j << "]";
    }
  for (int i = m * n; i < m * n + 16; ++i) ASSERT_EQ(got[i], 0x7E00) << "store past D at " << i;
}

// Cooperative warp-specialized, TMA multicast across a 2 x 1 cluster, wgmma; C and D by pointer
// (the default epilogue), A and B through one descriptor each.
TEST(EmuKnownGood, CutlassGemmF16Sm90) { check_gemm3x("sm_90a/gemm_sm90_f16", 2, 2); }

// Blackwell: tcgen05.mma (UMMA) with the accumulator in tensor memory, warp-specialized, TMA for
// every operand (A and B each twice: the descriptors for the preferred and the fallback cluster
// shape; C loaded and D stored through one each). Its epilogue reads each tcgen05.ld's registers
// and waits (tcgen05.wait::ld) once, before releasing the accumulator: the emulator's defaults.
TEST(EmuKnownGood, CutlassGemmF16Sm100) { check_gemm3x("sm_100a/gemm_sm100_f16", 0, 6); }

}  // namespace
