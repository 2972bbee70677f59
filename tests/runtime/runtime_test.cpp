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
#include <ptxpp/emu/tensor_map.hpp>

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

TEST(Runtime, CubinsComeFromTheToolkitCompilersAndTheCache) {
  Fake fake;
  Device g = device::gpu(0);
  const runtime::CubinCache cache;
  cache.clear();
  size_t entries = 0;
  for (const char* compiler : {"nvjitlink", "ptxas"}) {
    SCOPED_TRACE(compiler);
    ::setenv("PTXPP_COMPILER", compiler, 1);
    if (!runtime::find_compiler()) continue;
    fake.clear();
    auto k = ptx::kernel("cached").arch("sm_90a").body([] { ret(); });
    bind(g, k);
    EXPECT_NE(fake.log().find("cuModuleLoadDataEx cubin"), std::string::npos) << fake.log();
    EXPECT_EQ(cache.stats().entries, ++entries);  // the compiler is part of the key
    // another kernel object with the same PTX: the cubin comes from the disk cache
    auto again = ptx::kernel("cached").arch("sm_90a").body([] { ret(); });
    bind(g, again);
    EXPECT_EQ(cache.stats().entries, entries);
  }
  ::unsetenv("PTXPP_COMPILER");
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

// Tensor maps: the driver's rules are checked before the call, with the field named;
// the call gets the spec as given; the cache encodes once and replaces the base after.
TEST(Runtime, TensorMapsAreCheckedEncodedAndCached) {
  Fake fake;
  Device g = device::gpu(0);
  DevicePtr a = g.alloc(1 << 20);
  TensorMapSpec s;
  s.type = TmaType::bf16;
  s.dims = {512, 1024};
  s.box = {64, 128};
  s.swizzle = TmaSwizzle::b128;
  fake.clear();
  const TensorMap m = make_tensor_map(g, a, s);
  std::string log = fake.log();
  EXPECT_NE(log.find("cuTensorMapEncodeTiled type=9 rank=2 addr=" + std::to_string(a.address) +
                     " dims=512,1024 strides=1024 box=64,128 estr=1,1 interleave=0 swizzle=3 l2=0 oob=0"),
            std::string::npos)
      << log;
  uint64_t base = 0;
  std::memcpy(&base, m.bytes.data(), 8);
  EXPECT_EQ(base, a.address);

  // the rules, one broken at a time
  auto why = [&](auto edit, uint64_t offset = 0) {
    TensorMapSpec t = s;
    edit(t);
    return error_of([&] { (void)make_tensor_map(g, a.offset(offset), t); });
  };
  EXPECT_NE(why([](TensorMapSpec&) {}, 8).find("base address 0x"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.dims = {}; }).find("0 dimensions"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.dims = {1, 1, 1, 1, 1, 1}; }).find("6 dimensions"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.dims[1] = 0; }).find("dims[1] = 0"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.strides = {1000}; }).find("strides[0] = 1000 bytes: a stride must be a multiple of 16"),
            std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.strides = {512}; }).find("is less than the 1024 bytes"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.strides = {1024, 2048}; }).find("2 strides for 2 dimensions"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.box = {64, 257}; }).find("box[1] = 257"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.box = {4, 8}; }).find("box[0] = 4 elements of 2 bytes = 8 bytes"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.box = {64}; }).find("1 box sizes for 2 dimensions"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.swizzle = TmaSwizzle::b64; }).find("the 64-byte swizzle takes at most 64"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.element_strides = {1, 9}; }).find("element_strides[1] = 9"), std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.interleave = TmaInterleave::b16; }).find("interleaved layout takes at least 3"),
            std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) {
              t.type = TmaType::u8;
              t.box = {64, 128};
              t.swizzle = TmaSwizzle::none;
              t.oob_fill = TmaOobFill::nan_request_zero_fma;
            }).find("needs a floating-point element type"),
            std::string::npos);
  EXPECT_NE(why([](TensorMapSpec& t) { t.dims = {3, 4}; }).find("packed rows of 6 bytes"), std::string::npos);
  EXPECT_EQ(check_tensor_map(s, a.address), "");

  // im2col: NHWC activations, a 3x3 window
  TensorMapSpec c;
  c.mode = TensorMapSpec::Mode::im2col;
  c.type = TmaType::f16;
  c.dims = {64, 32, 32, 8};  // C, W, H, N
  c.lower = {-1, -1};
  c.upper = {-1, -1};
  c.channels_per_pixel = 64;
  c.pixels_per_column = 128;
  fake.clear();
  (void)make_tensor_map(g, a, c);
  log = fake.log();
  EXPECT_NE(log.find("cuTensorMapEncodeIm2col type=6 rank=4 dims=64,32,32,8 strides=128,4096,131072 corners=-1:-1,-1:-1 "
                     "channels=64 pixels=128"),
            std::string::npos)
      << log;
  c.lower = {-200, 0};
  EXPECT_NE(error_of([&] { (void)make_tensor_map(g, a, c); }).find("corner offset -200 out of range [-128, 127]"), std::string::npos);

  // the cache: one encode per spec, then the base is replaced in a copy
  TensorMapCache cache;
  fake.clear();
  const TensorMap m1 = cache.get(g, a, s);
  const TensorMap m2 = cache.get(g, a.offset(4096), s);
  log = fake.log();
  EXPECT_EQ(count(log, "cuTensorMapEncodeTiled"), 1u) << log;
  EXPECT_EQ(count(log, "cuTensorMapReplaceAddress addr=" + std::to_string(a.address + 4096)), 1u) << log;
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.encodes(), 1u);
  std::memcpy(&base, m1.bytes.data(), 8);
  EXPECT_EQ(base, a.address);  // the first copy is untouched
  std::memcpy(&base, m2.bytes.data(), 8);
  EXPECT_EQ(base, a.address + 4096);
  EXPECT_NE(error_of([&] { (void)cache.get(g, a.offset(8), s); }).find("not 16-byte aligned"), std::string::npos);

  // a tensor map parameter takes a TensorMap, by value (128 bytes)
  auto k = ptx::kernel("tma").tensor_map("tmap").in(tensor(f32, {4})).arch("sm_90a").body([](TensorMapParam, Tensor) { ret(); });
  auto b = bind(g, k);
  fake.clear();
  b(m, a);
  EXPECT_NE(fake.log().find("p0=" + std::to_string(static_cast<uint32_t>(a.address))), std::string::npos) << fake.log();
  EXPECT_NE(error_of([&] { b(a, a); }).find("argument 0 (tma_tmap): a tensor map parameter takes a ptx::TensorMap"),
            std::string::npos);
  EXPECT_NE(error_of([&] { b(m, m); }).find("argument 1 (tma_param_1): a ptx::TensorMap given for a tensor"), std::string::npos);
  EXPECT_NE(k.ptx().find(".param .align 64 .b8 tma_tmap[128]"), std::string::npos) << k.ptx();

  // sm_80 has no TMA (a second fake GPU, made while the fake says compute capability 8.0)
  fake.set("devices", 3);
  fake.set("cc", 80);
  Device old = device::gpu(2);
  fake.set("cc", 90);
  fake.set("devices", 1);
  DevicePtr o = old.alloc(4096);
  EXPECT_NE(error_of([&] { (void)make_tensor_map(old, o, s); }).find("tensor maps need compute capability 9.0 or higher; GPU 2"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)make_tensor_map(g, o, s); }).find("the base pointer belongs to another device"), std::string::npos);
  g.free(a);
}

// On the CPU device the descriptor is the emulator's encoding of the same spec.
TEST(Runtime, TensorMapsOnTheCpuDevice) {
  Device c = device::cpu();
  DevicePtr a = c.alloc(1 << 16);
  TensorMapSpec s;
  s.type = TmaType::f32;
  s.dims = {40, 30, 2};
  s.strides = {256, 256 * 30};
  s.box = {8, 16, 1};
  s.element_strides = {1, 2, 1};
  s.oob_fill = TmaOobFill::nan_request_zero_fma;
  TensorMap m = make_tensor_map(c, a, s);
  auto d = emu::decode(m.bytes.data());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, emu::TensorMapKind::Tiled);
  EXPECT_EQ(d->rank, 3);
  EXPECT_EQ(d->base, a.address);
  EXPECT_EQ(d->dims[1], 30u);
  EXPECT_EQ(d->strides[0], 4u);
  EXPECT_EQ(d->strides[1], 256u);
  EXPECT_EQ(d->strides[2], 256u * 30);
  EXPECT_EQ(d->box[1], 16);
  EXPECT_EQ(d->element_strides[1], 2);
  EXPECT_EQ(d->oob_nan, 1);
  replace_address(c, m, a.offset(1024));
  EXPECT_EQ(emu::decode(m.bytes.data())->base, a.address + 1024);
  // packed strides are derived
  s.strides = {};
  s.dims = {64, 30, 2};
  d = emu::decode(make_tensor_map(c, a, s).bytes.data());
  EXPECT_EQ(d->strides[1], 256u);
  EXPECT_EQ(d->strides[2], 256u * 30);
  TensorMap junk;
  EXPECT_FALSE(emu::decode(junk.bytes.data()).has_value());
  EXPECT_NE(error_of([&] { replace_address(c, junk, a); }).find("not a tensor map of the CPU device"), std::string::npos);
}

// A launch of a bound kernel is safe inside a CUDA-graph stream capture: it makes no
// call a capture refuses (allocation, copies, module loads, synchronization). The
// fake driver refuses them while "capturing" is set, as the real one does.
TEST(Runtime, BoundLaunchesAreCaptureSafe) {
  Fake fake;
  Device g = device::gpu(0);
  auto k = ptx::kernel("captured").in(tensor(f32, {"N"})).scalar("s", f32).arch("sm_90a").block(128).grid(
      [](const Bindings& b) { return Dim3(static_cast<uint32_t>(b.at("N") / 128)); }).body([](Tensor, Scalar) { ret(); });
  DevicePtr x = g.alloc(4096);
  Stream s = g.stream();
  auto bound = bind(g, k, {{"N", 1024}});  // loads the module: before the capture
  TensorMapSpec spec;
  spec.dims = {1024};
  spec.box = {128};
  TensorMapCache maps;
  (void)maps.get(g, x, spec);
  fake.clear();
  fake.set("capturing", 1);
  for (int i = 0; i < 3; ++i) bound.on(s, x, 1.0f);
  (void)maps.get(g, x.offset(1024), spec);  // descriptors are host-side work
  fake.set("capturing", 0);
  const std::string log = fake.log();
  EXPECT_EQ(log.find("capture violation"), std::string::npos) << log;
  EXPECT_EQ(count(log, "cuLaunchKernelEx"), 3u) << log;
  // what is not capture-safe fails with the driver's error, not silently
  fake.set("capturing", 1);
  EXPECT_NE(error_of([&] { s.synchronize(); }).find("900"), std::string::npos);
  fake.set("capturing", 0);
  g.free(x);
}

TEST(Runtime, GraphsCaptureLaunchesAndReplayThem) {
  Fake fake;
  Device g = device::gpu(0);
  auto k = ptx::kernel("graphed").in(tensor(f32, {"N"})).scalar("s", f32).arch("sm_90a").block(128).grid(
      [](const Bindings& b) { return Dim3(static_cast<uint32_t>(b.at("N") / 128)); }).body([](Tensor, Scalar) { ret(); });
  DevicePtr x = g.alloc(4096);
  Stream s = g.stream();
  auto bound = bind(g, k, {{"N", 1024}});
  fake.clear();
  Graph graph = Graph::capture(s, [&] {
    bound.on(s, x, 1.0f);
    bound.on(s, x, 2.0f);
  });
  EXPECT_EQ(graph.launches(), 2u);
  graph.launch(s);
  graph.launch(s);
  const std::string log = fake.log();
  EXPECT_NE(log.find("cuStreamBeginCapture stream"), std::string::npos) << log;
  EXPECT_NE(log.find(" mode 1"), std::string::npos) << log;  // thread-local capture
  EXPECT_EQ(count(log, "cuGraphLaunch nodes 2"), 2u) << log;
  EXPECT_EQ(log.find("capture violation"), std::string::npos) << log;
  // the default stream cannot be captured
  EXPECT_NE(error_of([&] { Graph::capture(Stream(), [] {}); }).find("the default stream cannot be captured"), std::string::npos);
  // work a capture refuses: the error is the driver's, and the capture is ended (the stream works again)
  fake.clear();
  EXPECT_NE(error_of([&] { Graph::capture(s, [&] { s.synchronize(); }); }).find("900"), std::string::npos);
  EXPECT_NE(fake.log().find("cuStreamEndCapture"), std::string::npos) << fake.log();
  EXPECT_NO_THROW(s.synchronize());
  EXPECT_NE(error_of([] { Graph().launch(Stream()); }).find("empty ptx::Graph"), std::string::npos);
  g.free(x);
}

// Plain CUDA interop: another library's stream and memory.
TEST(Runtime, ForeignStreamsAndPointers) {
  Fake fake;
  Device g = device::gpu(0);
  auto k = ptx::kernel("foreign").in(tensor(f32, {"N"})).scalar("s", f32).arch("sm_90a").block(128).grid(
      [](const Bindings& b) { return Dim3(static_cast<uint32_t>(b.at("N") / 128)); }).body([](Tensor, Scalar) { ret(); });
  auto bound = bind(g, k, {{"N", 256}});
  void* their_stream = reinterpret_cast<void*>(uintptr_t{0x5150});
  const void* their_memory = reinterpret_cast<const void*>(uintptr_t{0x7f0000001000});
  fake.clear();
  {
    Stream s = g.wrap_stream(their_stream);
    bound.on(s, g.wrap_pointer(their_memory), 1.0f);
  }  // not ours: not destroyed
  const std::string log = fake.log();
  EXPECT_NE(log.find("cuLaunchKernelEx stream " + std::to_string(0x5150) + " grid 2,1,1"), std::string::npos) << log;
  EXPECT_NE(log.find("p0=" + std::to_string(static_cast<uint32_t>(0x7f0000001000))), std::string::npos) << log;
  EXPECT_EQ(log.find("cuStreamDestroy"), std::string::npos) << log;
  EXPECT_FALSE(g.wrap_stream(nullptr).impl());  // the default stream
  // wrapping the same stream again reuses the thread's wrapper (no allocation per launch);
  // another stream gets its own
  const Stream again = g.wrap_stream(their_stream);
  EXPECT_EQ(again.impl(), g.wrap_stream(their_stream).impl());
  void* other_stream = reinterpret_cast<void*>(uintptr_t{0x6160});
  EXPECT_NE(g.wrap_stream(other_stream).impl(), again.impl());
  fake.clear();
  bound.on(g.wrap_stream(other_stream), g.wrap_pointer(their_memory), 1.0f);
  EXPECT_NE(fake.log().find("cuLaunchKernelEx stream " + std::to_string(0x6160)), std::string::npos) << fake.log();
  Device c = device::cpu();
  EXPECT_NE(error_of([&] { c.wrap_stream(their_stream); }).find("CPU emulator has no CUDA streams"), std::string::npos);
  EXPECT_NE(error_of([&] { c.wrap_pointer(their_memory); }).find("memory is the emulator's"), std::string::npos);
}

// The CPU device records captured launches and runs them again on each replay.
TEST(Runtime, GraphsOnTheCpuDeviceReplayTheRecordedLaunches) {
  Device c = device::cpu();
  constexpr int n = 1024;
  auto add = bind(c, examples::vector_add("sm_90a"), {{"N", n}});
  std::vector<float> x(n), y(n), z(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 0.5f;
  DevicePtr dx = c.alloc(n * 4), dy = c.alloc(n * 4), dz = c.alloc(n * 4), dw = c.alloc(n * 4);
  c.copy_to_device(dx, x.data(), n * 4);
  c.copy_to_device(dy, y.data(), n * 4);
  c.fill(dz, 0, n * 4);
  Stream s = c.stream();
  Graph graph = Graph::capture(s, [&] {
    add.on(s, dx, dy, dz);  // z = x + y
    add.on(s, dz, dy, dw);  // w = z + y
  });
  EXPECT_EQ(graph.launches(), 2u);
  c.copy_to_host(z.data(), dz, n * 4);
  EXPECT_EQ(z[5], 0.0f);  // captured, not run
  graph.launch(s);
  c.copy_to_host(z.data(), dw, n * 4);
  EXPECT_EQ(z[5], 6.0f);
  for (int i = 0; i < n; ++i) x[i] = 100.0f;
  c.copy_to_device(dx, x.data(), n * 4);
  graph.launch(s);  // the same pointers, the new contents
  c.copy_to_host(z.data(), dw, n * 4);
  EXPECT_EQ(z[5], 101.0f);
  // a graph launched into another capture is recorded there, not run now
  c.fill(dw, 0, n * 4);
  Graph outer = Graph::capture(s, [&] {
    graph.launch(s);
    add.on(s, dw, dy, dz);  // z = w + y
  });
  EXPECT_EQ(outer.launches(), 3u);
  c.copy_to_host(z.data(), dw, n * 4);
  EXPECT_EQ(z[5], 0.0f);
  outer.launch(s);
  c.copy_to_host(z.data(), dz, n * 4);
  EXPECT_EQ(z[5], 101.5f);
  // what a GPU refuses during a capture is refused here too, and the capture ends
  EXPECT_NE(error_of([&] { Graph::capture(s, [&] { c.copy_to_device(dx, x.data(), 4); }); })
                .find("copying to the device while a stream is being captured into a graph"),
            std::string::npos);
  EXPECT_NE(error_of([&] { Graph::capture(s, [&] { s.synchronize(); }); }).find("synchronizing a stream while it is being captured"),
            std::string::npos);
  EXPECT_NO_THROW(c.copy_to_device(dx, x.data(), 4));
  // a graph belongs to its device
  Fake fake;
  EXPECT_NE(error_of([&] { graph.launch(device::gpu(0).stream()); }).find("a graph captured on CPU emulator launched on a stream of"),
            std::string::npos);
  for (DevicePtr p : {dx, dy, dz, dw}) c.free(p);
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
