// The runtime against a fake CUDA driver (tests/runtime/fake_cuda.cpp): loading,
// devices, memory, compilation and the cubin cache, argument marshalling and
// checks, shared-memory and cluster attributes, and the error paths.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime.hpp>

#include "../../examples/kernels/elementwise.hpp"

namespace ptx::test {
namespace {

using namespace ptx::types;
namespace fs = std::filesystem;

// The fake driver the runtime loaded (the same library, so the same state).
struct Fake {
  // the runtime loads the driver first (each test may run alone, in its own process)
  int gpus = device::gpu_count();
  void* h = dlopen(PTXPP_FAKE_CUDA, RTLD_NOW | RTLD_NOLOAD);
  Fake() {
    if (!h) throw std::runtime_error("the fake driver is not loaded");
  }
  std::string log() const { return reinterpret_cast<const char* (*)()>(dlsym(h, "fake_cuda_log"))(); }
  void clear() const { reinterpret_cast<void (*)()>(dlsym(h, "fake_cuda_clear_log"))(); }
  void set(const char* k, long v) const { reinterpret_cast<void (*)(const char*, long)>(dlsym(h, "fake_cuda_set"))(k, v); }
};

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const runtime::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no runtime::Error";
  return {};
}

TEST(Runtime, DevicesAndMemoryThroughTheDriver) {
  ASSERT_EQ(device::gpu_count(), 1);
  Device g = device::gpu(0);
  EXPECT_EQ(g.kind(), DeviceKind::Gpu);
  EXPECT_EQ(g.name(), "Fake GPU sm_90");
  EXPECT_EQ(g.arch(), "sm_90a");
  EXPECT_EQ(device::best().kind(), DeviceKind::Gpu);
  EXPECT_NE(error_of([] { device::gpu(3); }).find("GPU 3 does not exist: the driver reports 1"), std::string::npos);
  std::vector<uint32_t> in(100), out(100);
  for (uint32_t i = 0; i < 100; ++i) in[i] = i * 7;
  DevicePtr p = g.alloc(400, "p");
  g.copy_to_device(p, in.data(), 400);
  g.copy_to_host(out.data(), p, 400);
  EXPECT_EQ(in, out);
  g.fill(p, 0xAB, 400);
  g.copy_to_host(out.data(), p, 400);
  EXPECT_EQ(out[99], 0xABABABABu);
  Device c = device::cpu();
  DevicePtr q = c.alloc(16, "q");
  EXPECT_NE(error_of([&] { g.copy_to_device(q, in.data(), 16); }).find("belongs to another device"), std::string::npos);
  g.free(p);
  c.free(q);
}

TEST(Runtime, LaunchMarshalsArgumentsAndLoadsOnce) {
  Fake fake;
  fake.clear();
  Device g = device::gpu(0);
  auto k = ptx::kernel("scale").in(tensor(f32, {"N"})).scalar("s", f32).scalar("n", u32).arch("sm_90a").block(128).grid(
      [](const Bindings& b) { return Dim3(static_cast<uint32_t>(b.at("N") / 128)); }).body([](Tensor, Scalar, Scalar) { ret(); });
  DevicePtr x = g.alloc(4096);
  auto bound = bind(g, k, {{"N", 1024}});
  bound(x, 2.5f, uint32_t{1024});
  bound(x, 2.5f, uint32_t{1024});
  launch(g, k, {{"N", 1024}}, x, 1.0f, uint32_t{7});
  const std::string log = fake.log();
  EXPECT_EQ(count(log, "cuModuleLoadDataEx"), 1u) << log;  // loaded once, launched three times
  EXPECT_EQ(count(log, "cuLaunchKernelEx stream 0 grid 8,1,1 block 128,1,1 smem 0"), 3u) << log;
  EXPECT_NE(log.find("cuModuleGetFunction scale"), std::string::npos) << log;
  // the pointer's low 32 bits as the kernel sees them, and the float's bits
  EXPECT_NE(log.find("p0=" + std::to_string(static_cast<uint32_t>(x.address))), std::string::npos) << log;
  uint32_t bits;
  const float f = 2.5f;
  std::memcpy(&bits, &f, 4);
  EXPECT_NE(log.find("p1=" + std::to_string(bits)), std::string::npos) << log;
  g.free(x);
}

TEST(Runtime, ArgumentsAreChecked) {
  Device g = device::gpu(0);
  auto k = ptx::kernel("args").in(tensor(f32, {4})).scalar("s", f32).arch("sm_90a").body([](Tensor, Scalar) { ret(); });
  DevicePtr x = g.alloc(16);
  auto b = bind(g, k);
  EXPECT_NE(error_of([&] { b(x); }).find("kernel args takes 2 arguments, not 1"), std::string::npos);
  EXPECT_NE(error_of([&] { b(x, 1.0); }).find("argument 1 (args_s): .f64 given for a .f32 parameter"), std::string::npos);
  EXPECT_NE(error_of([&] { b(1.0f, 1.0f); }).find("argument 0 (args_param_0): a tensor takes a ptx::DevicePtr"), std::string::npos);
  EXPECT_NE(error_of([&] { b(x, x); }).find("argument 1 (args_s): a .f32 scalar, not a pointer"), std::string::npos);
  Device c = device::cpu();
  DevicePtr y = c.alloc(16);
  EXPECT_NE(error_of([&] { b(y, 1.0f); }).find("the pointer belongs to another device"), std::string::npos);
}

TEST(Runtime, TargetsSharedMemoryAndClusters) {
  Fake fake;
  Device g = device::gpu(0);
  auto blackwell = ptx::kernel("bw").arch("sm_100a").body([] { ret(); });
  EXPECT_NE(error_of([&] { bind(g, blackwell); }).find("kernel bw is compiled for sm_100a; GPU 0 (Fake GPU sm_90) is sm_90a"),
            std::string::npos);
  auto ampere = ptx::kernel("amp").arch("sm_80").body([] { ret(); });
  EXPECT_NO_THROW(bind(g, ampere));  // sm_80 code runs on later GPUs
  fake.clear();
  auto big = ptx::kernel("big").arch("sm_90a").cluster(Dim3(2, 1, 1)).block(64).body([] {
    auto s = smem::alloc(f32, {128, 128}, 1024);  // 64 KB: dynamic shared memory
    Reg v(f32);
    v = 1.0f;
    inst::st.shared.f32(s.addr(0), v);
    ret();
  });
  bind(g, big)();
  const std::string log = fake.log();
  EXPECT_NE(log.find("cuFuncSetAttribute 8 65536"), std::string::npos) << log;
  EXPECT_NE(log.find("smem 65536 cluster 2,1,1"), std::string::npos) << log;
  fake.set("optin_smem", 49152);
  auto bigger = ptx::kernel("bigger").arch("sm_90a").body([] {
    auto s = smem::alloc(f32, {100, 128}, 16);
    (void)s;
    ret();
  });
  EXPECT_NE(error_of([&] { bind(g, bigger); }).find("needs 51200 bytes of shared memory; Fake GPU sm_90 allows 49152"), std::string::npos);
  fake.set("optin_smem", 232448);
}

TEST(Runtime, CompilerAndJitErrorsQuoteThePtx) {
  Fake fake;
  Device g = device::gpu(0);
  // the driver's JIT (no ptxas): a failure quotes the line its log names
  ::setenv("PTXPP_NO_PTXAS", "1", 1);
  fake.set("fail_jit", 1);
  auto k = ptx::kernel("jitfail").arch("sm_90a").body([] { ret(); });
  const std::string msg = error_of([&] { bind(g, k); });
  EXPECT_NE(msg.find("CUDA_ERROR_INVALID_PTX"), std::string::npos) << msg;
  EXPECT_NE(msg.find("PTX line 7: "), std::string::npos) << msg;
  fake.set("fail_jit", 0);
  // a PTX ISA newer than the driver's
  fake.set("driver", 12040);
  auto newer = ptx::kernel("newer").arch("sm_90a").ptx_version(8, 7).body([] { ret(); });
  EXPECT_NE(error_of([&] { bind(g, newer); }).find("is PTX ISA 8.7; the driver (CUDA 12.4) JIT-compiles up to 8.4"), std::string::npos);
  fake.set("driver", 13000);
  fake.clear();
  auto ok = ptx::kernel("viajit").arch("sm_90a").body([] { ret(); });
  bind(g, ok);
  EXPECT_NE(fake.log().find("cuModuleLoadDataEx ptx"), std::string::npos) << fake.log();
  ::unsetenv("PTXPP_NO_PTXAS");
}

TEST(Runtime, CubinsComeFromPtxasAndTheCache) {
  Fake fake;
  fake.clear();
  Device g = device::gpu(0);
  const runtime::CubinCache cache;
  cache.clear();
  auto k = ptx::kernel("cached").arch("sm_90a").body([] { ret(); });
  bind(g, k);
  EXPECT_NE(fake.log().find("cuModuleLoadDataEx cubin"), std::string::npos) << fake.log();
  EXPECT_EQ(cache.stats().entries, 1u);
  // another kernel object with the same PTX: the cubin comes from the disk cache
  auto again = ptx::kernel("cached").arch("sm_90a").body([] { ret(); });
  bind(g, again);
  EXPECT_EQ(cache.stats().entries, 1u);
}

TEST(Runtime, CacheEntriesAreCheckedAndBounded) {
  const fs::path dir = fs::temp_directory_path() / ("ptxpp-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  runtime::CubinCache cache(dir.string(), 3000);
  const std::string k1 = runtime::CubinCache::key("ptx one", "sm_90a", "ptxas 13.0", 13000);
  const std::string k2 = runtime::CubinCache::key("ptx one", "sm_100a", "ptxas 13.0", 13000);
  EXPECT_NE(k1, k2);
  EXPECT_EQ(k1, runtime::CubinCache::key("ptx one", "sm_90a", "ptxas 13.0", 13000));
  std::vector<uint8_t> blob(1000, 7);
  cache.put(k1, blob);
  EXPECT_EQ(cache.get(k1), blob);
  EXPECT_FALSE(cache.get(k2));
  EXPECT_FALSE(cache.get("../etc/passwd"));
  // a truncated entry is a miss (and is overwritten by the next put)
  fs::resize_file(dir / (k1 + ".cubin"), 500);
  EXPECT_FALSE(cache.get(k1));
  cache.put(k1, blob);
  EXPECT_EQ(cache.get(k1), blob);
  // a flipped byte: a miss
  {
    std::fstream f(dir / (k1 + ".cubin"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('x');
  }
  EXPECT_FALSE(cache.get(k1));
  // over 3000 bytes: the least recently used entries go
  for (int i = 0; i < 5; ++i) cache.put(runtime::CubinCache::key("ptx " + std::to_string(i), "sm_90a", "", 1), blob);
  EXPECT_LE(cache.stats().bytes, 3000u);
  EXPECT_GE(cache.stats().entries, 1u);
  EXPECT_GE(cache.clear(), 1u);
  EXPECT_EQ(cache.stats().entries, 0u);
  fs::remove_all(dir);
}

TEST(Runtime, AheadOfTimeTextIsChecked) {
  auto k = ptx::kernel("aot").in(tensor(f32, {4})).scalar("s", f32).arch("sm_90a").block(32).body([](Tensor, Scalar) { ret(); });
  std::ostringstream out;
  aot::write(out, *k.trace());
  const std::string text = out.str();
  auto back = aot::read(text, "aot");
  EXPECT_EQ(back->ptx, k.trace()->ptx);
  EXPECT_EQ(back->block, Dim3(32));
  ASSERT_EQ(back->params.size(), 2u);
  EXPECT_TRUE(back->params[0].is_tensor);
  EXPECT_EQ(back->params[1].dtype, f32);
  EXPECT_NE(error_of([&] { aot::read(text, "other"); }).find("no ahead-of-time kernel named 'other'"), std::string::npos);
  EXPECT_NE(error_of([&] { aot::read(text.substr(0, text.size() / 2), "aot"); }).find("the embedded PTX is truncated"), std::string::npos);
  const char* args[] = {"gen"};
  EXPECT_EQ(aot::generator_main(1, const_cast<char**>(args), [](const std::string&) { return std::vector<std::shared_ptr<const Traced>>{}; }), 2);
}

TEST(Runtime, TheCpuDeviceRunsTheSameLaunches) {
  Device c = device::cpu();
  EXPECT_EQ(c.kind(), DeviceKind::Cpu);
  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.5f;
  DevicePtr dx = c.alloc(n * 4, "x"), dy = c.alloc(n * 4, "y");
  c.copy_to_device(dx, x.data(), n * 4);
  launch(c, examples::identity("sm_90a"), {{"N", n}}, dx, dy);
  c.copy_to_host(y.data(), dy, n * 4);
  EXPECT_EQ(x, y);
  // a report from the emulator becomes a runtime::Error
  DevicePtr small = c.alloc(16, "small");
  const std::string msg = error_of([&] { launch(c, examples::identity("sm_90a"), {{"N", 64}}, dx, small); });
  EXPECT_NE(msg.find("small+16"), std::string::npos) << msg;
}


TEST(Runtime, StreamsAndTiming) {
  Fake fake;
  fake.clear();
  Device g = device::gpu(0);
  auto k = ptx::kernel("onstream").in(tensor(f32, {4})).arch("sm_90a").body([](Tensor) { ret(); });
  DevicePtr x = g.alloc(16);
  auto b = bind(g, k);
  {
    Stream s = g.stream();
    auto m = s.mark();
    b.on(s, x);
    EXPECT_EQ(s.since(m), 1.0);  // the fake driver's clock: one event between the marks
    s.synchronize();
    const std::string log = fake.log();
    EXPECT_NE(log.find("cuLaunchKernelEx stream "), std::string::npos) << log;
    EXPECT_EQ(log.find("cuLaunchKernelEx stream 0 "), std::string::npos) << log;  // not the default stream
    EXPECT_NE(log.find("cuStreamSynchronize"), std::string::npos) << log;
    Device c = device::cpu();
    Stream cs = c.stream();
    EXPECT_NE(error_of([&] { b.on(cs, x); }).find("the stream belongs to another device"), std::string::npos);
    EXPECT_GE(cs.since(cs.mark()), 0.0);
  }
  EXPECT_NE(fake.log().find("cuStreamDestroy"), std::string::npos) << fake.log();
  EXPECT_NE(error_of([] { Stream().synchronize(); }).find("default stream"), std::string::npos);
  g.free(x);
}

}  // namespace
}  // namespace ptx::test

int main(int argc, char** argv) {
  // the fake driver, a scratch cache, and ptxas from the toolkit (when there is one)
  ::setenv("PTXPP_LIBCUDA", PTXPP_FAKE_CUDA, 1);
  const std::string cache = (std::filesystem::temp_directory_path() / ("ptxpp-runtime-test-cache-" + std::to_string(::getpid()))).string();
  ::setenv("PTXPP_CACHE_DIR", cache.c_str(), 1);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  std::filesystem::remove_all(cache);
  return rc;
}
