// Launching traced kernels on a device. Arguments follow the kernel's parameters in
// order: a DevicePtr for each tensor, a C++ value of the exact type for each scalar
// (float for .f32, uint32_t for .u32, ...). Mismatches are errors naming the parameter.
//
//   ptx::launch(dev, kernel, bindings, x, y, 2.0f, uint32_t(n));        // looks the kernel up
//   auto k = ptx::bind(dev, kernel, bindings);  k(x, y, 2.0f, uint32_t(n));  // the hot path
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>

#include "ptxpp/dsl/kernel.hpp"
#include "ptxpp/runtime/device.hpp"
#include "ptxpp/runtime/tensor_map.hpp"

namespace ptx {

// One launch argument, viewed without copying.
struct LaunchArg {
  bool pointer = false;
  DType type = DType::none;  // scalars
  uint8_t size = 0;
  const void* data = nullptr;
  const DeviceImpl* device = nullptr;  // pointers
  bool tensor_map = false;             // a ptx::TensorMap (size 128)
};

template <class T>
constexpr DType scalar_type() {
  if constexpr (std::is_same_v<T, float>) return DType::f32;
  else if constexpr (std::is_same_v<T, double>) return DType::f64;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::s8;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::u8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::s16;
  else if constexpr (std::is_same_v<T, uint16_t>) return DType::u16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::s32;
  else if constexpr (std::is_same_v<T, uint32_t>) return DType::u32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::s64;
  else if constexpr (std::is_same_v<T, uint64_t>) return DType::u64;
  else return DType::none;
}

inline LaunchArg launch_arg(const DevicePtr& p) { return LaunchArg{true, DType::u64, 8, &p.address, p.device, false}; }
inline LaunchArg launch_arg(const TensorMap& m) { return LaunchArg{false, DType::none, 128, m.bytes.data(), nullptr, true}; }
template <class T>
  requires std::is_arithmetic_v<T>
LaunchArg launch_arg(const T& v) {
  static_assert(scalar_type<T>() != DType::none, "kernel scalars: float, double, or fixed-width integers");
  return LaunchArg{false, scalar_type<T>(), sizeof(T), &v, nullptr, false};
}

struct BoundKernelImpl;

// A kernel traced for some bindings and loaded on a device: launching it does no
// lookup, hashing, allocation or locking.
class BoundKernel {
 public:
  BoundKernel() = default;
  explicit BoundKernel(std::shared_ptr<BoundKernelImpl> impl) : impl_(std::move(impl)) {}
  template <class... A>
  void operator()(const A&... args) const {
    const LaunchArg list[] = {launch_arg(args)..., LaunchArg{}};
    launch(std::span<const LaunchArg>(list, sizeof...(A)));
  }
  // On a stream (the default stream above).
  template <class... A>
  void on(const Stream& s, const A&... args) const {
    const LaunchArg list[] = {launch_arg(args)..., LaunchArg{}};
    launch(std::span<const LaunchArg>(list, sizeof...(A)), &s);
  }
  void launch(std::span<const LaunchArg> args, const Stream* stream = nullptr) const;
  const Traced& traced() const;

 private:
  std::shared_ptr<BoundKernelImpl> impl_;
};

BoundKernel bind(const Device& d, const Kernel& k, const Bindings& b = {});
// A trace made some other way (e.g. from a PTX file: ptxpp run).
BoundKernel bind(const Device& d, std::shared_ptr<const Traced> traced);

template <class... A>
void launch(const Device& d, const Kernel& k, const Bindings& b, const A&... args) {
  bind(d, k, b)(args...);
}

}  // namespace ptx
