// Helpers for running hardware-validated kernels on the emulator: Triton's output in
// tests/corpus/triton/<arch>/<name>.ptx with the launch Triton's launcher would make
// (<name>.launch, written by tests/corpus/src-real/triton/build.py), and host-side
// f16/bf16 conversions of the test's own (not the emulator's: they are the oracle).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "emu_test_util.hpp"
#include "ptxpp/emu/tensor_map.hpp"

namespace ptx::test {

// <name>.launch: `entry NAME`, `block X Y Z`, `cluster X Y Z`, `num_ctas N`, `shared BYTES`,
// one `param NAME TYPE [div16] [size=BYTES ...]` per .entry parameter, in order, and
// `constexpr NAME VALUE` for the constants it was compiled with (BLOCK_M, ...).
struct TritonLaunch {
  struct Param {
    std::string name, type;  // type: *fp16 (a pointer), i32, fp32, tensormap, ...
    std::map<std::string, std::string> attrs;  // size= (scratch bytes per CTA), swizzle=, block=, ...
    uint64_t attr(const std::string& key) const { return std::stoull(attrs.at(key)); }
  };
  std::string entry;
  emu::Dim3 block, cluster;
  uint32_t num_ctas = 1, shared = 0;
  std::vector<Param> params;
  std::map<std::string, std::string> constexprs;
  uint32_t constant(const std::string& name) const { return static_cast<uint32_t>(std::stoul(constexprs.at(name))); }
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline TritonLaunch parse_triton_launch(const std::string& text) {
  TritonLaunch l;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream w(line);
    std::string key;
    if (!(w >> key) || key[0] == '#') continue;
    if (key == "entry") w >> l.entry;
    if (key == "block") w >> l.block.x >> l.block.y >> l.block.z;
    if (key == "cluster") w >> l.cluster.x >> l.cluster.y >> l.cluster.z;
    if (key == "num_ctas") w >> l.num_ctas;
    if (key == "shared") w >> l.shared;
    if (key == "constexpr") {
      std::string name;
      w >> name >> l.constexprs[name];
    }
    if (key != "param") continue;
    TritonLaunch::Param p;
    w >> p.name >> p.type;
    for (std::string attr; w >> attr;)
      if (const size_t eq = attr.find('='); eq != std::string::npos) p.attrs[attr.substr(0, eq)] = attr.substr(eq + 1);
    l.params.push_back(p);
  }
  if (l.entry.empty() || l.block.x == 0) throw std::runtime_error("not a launch sidecar");
  return l;
}

// One Triton kernel of the corpus, launched as Triton would: its arguments are given by
// parameter name in order (checked against the sidecar), the scratch pointers are added.
class TritonKernel {
 public:
  TritonKernel(const std::string& arch, const std::string& name) {
    const std::string base = std::string(PTXPP_CORPUS_DIR) + "/triton/" + arch + "/" + name;
    ptx_ = read_text(base + ".ptx");
    launch_ = parse_triton_launch(read_text(base + ".launch"));
  }
  const TritonLaunch& launch() const { return launch_; }

  template <class T>
  uint64_t pointer(const std::string& param, const std::vector<T>& host) {
    expect(param, "pointer", 8);
    const uint64_t a = run_.buffer(host, param);
    if (a % 16 != 0) throw std::runtime_error("Triton needs 16-byte aligned buffers");
    return a;
  }
  // A pointer argument at any address (for a parameter compiled without the 16-byte divisibility).
  void pointer_at(const std::string& param, uint64_t address) {
    expect(param, "pointer", 8);
    run_.args.push_back(emu::Arg::pointer(address));
  }
  // A device buffer that is not an argument itself (what a tensor descriptor points at).
  template <class T>
  uint64_t allocate(const std::vector<T>& host) {
    const uint64_t a = run_.emu.memory().alloc(host.size() * sizeof(T));
    run_.emu.memory().write(a, host.data(), host.size() * sizeof(T));
    return a;
  }
  template <class T>
  void scalar(const std::string& param, T v) {
    expect(param, "scalar", sizeof(T));
    run_.scalar(v);
  }
  // A host tensor descriptor over `base` (a `tensordesc` parameter Triton lowered to TMA): the
  // CUtensorMap its launcher builds with cuTensorMapEncodeTiled (here the CPU device's encoding of
  // the same description), then the shape and the strides in elements, outermost first.
  void tensor_desc(const std::string& label, uint64_t base, const std::vector<uint64_t>& shape, const std::vector<uint64_t>& strides) {
    const TritonLaunch::Param& p = expect(label + ".desc", "tensormap", emu::kTensorMapBytes);
    emu::TensorMapDesc d;
    d.dtype = static_cast<uint8_t>(p.attr("elem_type"));  // Triton's device numbering equals the driver's for f16/f32
    d.rank = static_cast<uint8_t>(shape.size());
    d.swizzle = static_cast<uint8_t>(p.attr("swizzle"));
    d.l2_promotion = 2;  // CU_TENSOR_MAP_L2_PROMOTION_L2_128B
    d.base = base;
    d.strides[0] = p.attr("elem_size");
    std::istringstream block(p.attrs.at("block"));
    std::vector<uint16_t> box;
    for (std::string b; std::getline(block, b, ',');) box.push_back(static_cast<uint16_t>(std::stoul(b)));
    for (size_t i = 0; i < shape.size(); ++i) {  // innermost first
      d.dims[i] = shape[shape.size() - 1 - i];
      d.box[i] = box.at(shape.size() - 1 - i);
      d.element_strides[i] = 1;
      if (i) d.strides[i] = strides[shape.size() - 1 - i] * d.strides[0];
    }
    const auto bytes = emu::encode(d);
    run_.args.push_back(emu::Arg{std::vector<uint8_t>(bytes.begin(), bytes.end())});
    for (size_t i = 0; i < shape.size(); ++i) scalar(label + ".shape" + std::to_string(i), static_cast<int32_t>(shape[i]));
    for (size_t i = 0; i < shape.size(); ++i) scalar(label + ".stride" + std::to_string(i), static_cast<int64_t>(strides[i]));
  }
  void run(emu::Dim3 grid) {
    for (; given_ < launch_.params.size(); ++given_) {  // the scratch pointers: nullptr when unused
      const auto& p = launch_.params[given_];
      if (p.name != "global_scratch" && p.name != "profile_scratch")
        throw std::runtime_error("no argument for parameter " + p.name);
      const uint64_t ctas = uint64_t{grid.x} * grid.y * grid.z * launch_.num_ctas;
      const uint64_t size = p.attr("size");
      run_.args.push_back(emu::Arg::pointer(size ? run_.emu.memory().alloc(size * ctas, p.name) : 0));
    }
    run_.launch(ptx_, launch_.entry, grid, launch_.block, launch_.shared, launch_.cluster);
  }
  template <class T>
  std::vector<T> read(uint64_t a, size_t n) {
    return run_.read<T>(a, n);
  }

 private:
  static size_t scalar_bytes(const std::string& type) {
    if (type == "i1" || type == "i8" || type == "u8") return 1;
    if (type == "i16" || type == "fp16" || type == "bf16") return 2;
    if (type == "i64" || type == "u64" || type == "fp64") return 8;
    return 4;
  }
  // The next parameter, which must be `name`, of that kind ("pointer", "scalar", "tensormap") and size.
  const TritonLaunch::Param& expect(const std::string& name, const std::string& kind, size_t bytes) {
    if (given_ >= launch_.params.size()) throw std::runtime_error("more arguments than parameters");
    const auto& p = launch_.params[given_++];
    const std::string is = p.type == "tensormap" ? "tensormap" : !p.type.empty() && p.type[0] == '*' ? "pointer" : "scalar";
    if (p.name != name || is != kind || (kind == "scalar" && scalar_bytes(p.type) != bytes))
      throw std::runtime_error("argument " + name + " given for parameter " + p.name + " " + p.type);
    return p;
  }

  std::string ptx_;
  TritonLaunch launch_;
  EmuRun run_;
  size_t given_ = 0;
};

// IEEE binary16 and bfloat16, round to nearest even (no NaN in these tests).
inline uint16_t f16_bits(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (a < 0x1p-14) return sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24));  // subnormal (1024: the least normal)
  int e = 0;
  double q = std::nearbyint(std::frexp(a, &e) * 2048);  // a = q/1024 * 2^(e-1), q in [1024, 2048]
  if (q == 2048) q = 1024, ++e;
  const int biased = e - 1 + 15;
  if (biased >= 31) return sign | 0x7C00;
  return sign | static_cast<uint16_t>(biased << 10) | static_cast<uint16_t>(q - 1024);
}
inline double from_f16(uint16_t h) {
  const int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  const double mag = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? INFINITY : std::ldexp(1024 + mant, exp - 25);
  return h & 0x8000 ? -mag : mag;
}
inline uint16_t bf16_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
inline double from_bf16(uint16_t b) {
  const uint32_t u = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// What the known-good tests share: inputs and comparisons (a namespace for `using`).
namespace known_good {

using ptx::test::TritonKernel;
using ptx::test::bf16_bits;
using ptx::test::f16_bits;
using ptx::test::from_bf16;
using ptx::test::from_f16;

// A fixed-seed generator of small integers (the tests' inputs are k / 2^n).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  int uniform(int lo, int hi) {  // [lo, hi]
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + static_cast<int>((s >> 33) % static_cast<uint64_t>(hi - lo + 1));
  }
  uint32_t bits() {  // 32 random bits
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 32);
  }
};

inline std::vector<double> small_values(size_t n, uint64_t seed, int range, double unit) {  // k * unit, |k| <= range
  Rng rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = rng.uniform(-range, range) * unit;
  return v;
}

inline std::vector<uint16_t> as_f16(const std::vector<double>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = f16_bits(v[i]);
  return out;
}
inline std::vector<uint16_t> as_bf16(const std::vector<double>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = bf16_bits(static_cast<float>(v[i]));
  return out;
}

// |got - want| <= rel * |want| + abs at every index; reports the first few that are not.
inline void expect_near(const std::vector<double>& got, const std::vector<double>& want, double rel, double abs,
                        const char* what) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 8; ++i)
    if (!(std::fabs(got[i] - want[i]) <= rel * std::fabs(want[i]) + abs))
      ++bad, ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", want " << want[i];
}

// |got - want| <= tol at every index (a tolerance per element); reports the first few that are not.
inline void expect_within(const std::vector<double>& got, const std::vector<double>& want, const std::vector<double>& tol,
                          const char* what) {
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(tol.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 8; ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol[i]))
      ++bad, ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", want " << want[i] << " +- " << tol[i];
}

inline std::vector<double> decode_f16(const std::vector<uint16_t>& v) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = from_f16(v[i]);
  return out;
}
inline std::vector<double> decode_bf16(const std::vector<uint16_t>& v) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = from_bf16(v[i]);
  return out;
}
template <class T>
std::vector<double> widen(const std::vector<T>& v) {
  return {v.begin(), v.end()};
}

}  // namespace known_good

}  // namespace ptx::test
