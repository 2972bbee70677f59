// interop::BoundCache (the per-op cache of kernels bound per device and input shapes)
// and interop::pack_scalar (scalar arguments as the framework interops pack them).
#include <gtest/gtest.h>

#include <ptxpp/interop/bound_cache.hpp>
#include <ptxpp/interop/scalars.hpp>

#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

// Allocations by this thread, counted by the replaced operator new below (this test
// program's own), for the test that a cache hit allocates nothing.
namespace {
thread_local size_t allocations = 0;
void* counted(size_t n) {
  ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(size_t n) { return counted(n); }
void* operator new[](size_t n) { return counted(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace ptx::interop {
namespace {

BoundCall with_outputs(std::vector<std::vector<int64_t>> shapes) {
  BoundCall c;
  c.output_shapes = std::move(shapes);
  return c;
}

TEST(BoundCache, ARepeatedKeyHitsAndAnotherShapeOrDeviceMisses) {
  BoundCache cache;
  const std::vector<int64_t> a = {8, 4}, b = {9, 4};
  EXPECT_EQ(cache.find(kCpuKey, a), nullptr);
  const auto made = cache.insert(kCpuKey, a, with_outputs({{8}}));
  const auto hit = cache.find(kCpuKey, a);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit.get(), made.get());
  EXPECT_EQ(hit->output_shapes, (std::vector<std::vector<int64_t>>{{8}}));
  EXPECT_EQ(cache.find(kCpuKey, b), nullptr);         // another shape
  EXPECT_EQ(cache.find(kMetaKey, a), nullptr);        // another device
  EXPECT_EQ(cache.find(0, a), nullptr);               // GPU 0
  EXPECT_EQ(cache.find(kCpuKey, std::vector<int64_t>{8}), nullptr);  // a prefix is not the key
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().misses, 5u);
}

TEST(BoundCache, AHitAllocatesNothing) {
  BoundCache cache;
  const std::vector<int64_t> dims = {5, 4}, other = {6, 4};
  for (int64_t n = 0; n < 8; ++n) cache.insert(kMetaKey, std::vector<int64_t>{n, 4}, with_outputs({{n}}));
  cache.insert(kCpuKey, dims, with_outputs({{5}}));
  const size_t before = allocations;
  int found = 0;
  for (int i = 0; i < 100; ++i) found += cache.find(kCpuKey, dims) != nullptr;
  const size_t after_hits = allocations;
  cache.insert(kCpuKey, other, with_outputs({{6}}));  // a miss's insert does allocate: the count works
  EXPECT_EQ(found, 100);
  EXPECT_EQ(after_hits, before);
  EXPECT_GT(allocations, after_hits);
}

TEST(BoundCache, InsertingAKeyTwiceKeepsTheFirstEntry) {
  BoundCache cache;
  const std::vector<int64_t> a = {3};
  const auto first = cache.insert(kCpuKey, a, with_outputs({{3}}));
  const auto second = cache.insert(kCpuKey, a, with_outputs({{4}}));
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(cache.find(kCpuKey, a)->output_shapes[0][0], 3);
}

TEST(BoundCache, WhenFullTheOldestEntryGoes) {
  BoundCache cache;
  for (int64_t n = 0; n < static_cast<int64_t>(BoundCache::kCapacity) + 1; ++n)
    cache.insert(kCpuKey, std::vector<int64_t>{n}, with_outputs({{n}}));
  EXPECT_EQ(cache.find(kCpuKey, std::vector<int64_t>{0}), nullptr);
  for (int64_t n = 1; n <= static_cast<int64_t>(BoundCache::kCapacity); ++n) {
    const auto e = cache.find(kCpuKey, std::vector<int64_t>{n});
    ASSERT_NE(e, nullptr) << n;
    EXPECT_EQ(e->output_shapes[0][0], n);
  }
}

TEST(BoundCache, ThreadsFindAndInsertAtOnce) {
  BoundCache cache;
  constexpr int kThreads = 4, kCalls = 2000, kShapes = 8;
  std::vector<std::thread> threads;
  std::vector<int> wrong(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&cache, &wrong, t] {
      for (int i = 0; i < kCalls; ++i) {
        const std::vector<int64_t> dims = {i % kShapes, 7};
        auto e = cache.find(kCpuKey, dims);
        if (!e) e = cache.insert(kCpuKey, dims, with_outputs({{dims[0] * 2}}));
        wrong[t] += e->output_shapes[0][0] != dims[0] * 2;
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0);
  const auto s = cache.stats();
  EXPECT_EQ(s.hits + s.misses, uint64_t{kThreads} * kCalls);
  EXPECT_GE(s.misses, uint64_t{kShapes});                  // each shape missed at least once
  EXPECT_LE(s.misses, uint64_t{kShapes} * kThreads);       // and at most once per thread
}

template <class T>
T unpack(const ScalarBytes& b) {
  T v;
  std::memcpy(&v, b.data(), sizeof v);
  return v;
}

TEST(PackScalar, FloatsAndIntegersInRange) {
  ScalarBytes b;
  EXPECT_FALSE(pack_scalar(DType::f32, ScalarValue::of_float(0.1), "argument", "a", b));
  EXPECT_EQ(unpack<float>(b), 0.1f);
  EXPECT_FALSE(pack_scalar(DType::f64, ScalarValue::of_float(0.1), "argument", "a", b));
  EXPECT_EQ(unpack<double>(b), 0.1);
  EXPECT_FALSE(pack_scalar(DType::s8, ScalarValue::of_int(-128), "argument", "k", b));
  EXPECT_EQ(unpack<int8_t>(b), -128);
  EXPECT_EQ(b[1], 0);  // only the type's bytes are written
  EXPECT_FALSE(pack_scalar(DType::u16, ScalarValue::of_int(65535), "argument", "k", b));
  EXPECT_EQ(unpack<uint16_t>(b), 65535);
  EXPECT_FALSE(pack_scalar(DType::s64, ScalarValue::of_int(INT64_MIN), "argument", "k", b));
  EXPECT_EQ(unpack<int64_t>(b), INT64_MIN);
  EXPECT_FALSE(pack_scalar(DType::u64, ScalarValue::of_uint(UINT64_MAX), "argument", "k", b));
  EXPECT_EQ(unpack<uint64_t>(b), UINT64_MAX);
  EXPECT_FALSE(pack_scalar(DType::s32, ScalarValue::of_uint(5), "argument", "k", b));
  EXPECT_EQ(unpack<int32_t>(b), 5);
}

TEST(PackScalar, OutOfRangeAndWrongKindAreNamed) {
  ScalarBytes b;
  EXPECT_EQ(pack_scalar(DType::s32, ScalarValue::of_int(int64_t{1} << 32), "argument", "shift", b),
            "argument 'shift': 4294967296 does not fit a s32");
  EXPECT_EQ(pack_scalar(DType::s8, ScalarValue::of_int(128), "argument", "k", b), "argument 'k': 128 does not fit a s8");
  EXPECT_EQ(pack_scalar(DType::u8, ScalarValue::of_int(-1), "attribute", "k", b), "attribute 'k': -1 does not fit a u8");
  EXPECT_EQ(pack_scalar(DType::u32, ScalarValue::of_uint(uint64_t{1} << 32), "attribute", "k", b),
            "attribute 'k': 4294967296 does not fit a u32");
  EXPECT_EQ(pack_scalar(DType::s64, ScalarValue::of_uint(UINT64_MAX), "attribute", "k", b),
            "attribute 'k': 18446744073709551615 does not fit a s64");
  EXPECT_EQ(pack_scalar(DType::u64, ScalarValue::of_int(-5), "attribute", "k", b), "attribute 'k': -5 does not fit a u64");
  EXPECT_EQ(pack_scalar(DType::s32, ScalarValue::of_float(2.0), "attribute", "shift", b),
            "attribute 'shift' must be an integer scalar (s32)");
  EXPECT_EQ(pack_scalar(DType::f32, ScalarValue::of_int(2), "attribute", "alpha", b),
            "attribute 'alpha' must be a floating-point scalar (f32)");
}

}  // namespace
}  // namespace ptx::interop
