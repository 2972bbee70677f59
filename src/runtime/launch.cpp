#include "ptxpp/runtime/launch.hpp"

#include <fmt/format.h>

#include "device_impl.hpp"

namespace ptx {

void BoundKernelImpl::check(std::span<const LaunchArg> args) const {
  const auto& params = traced->params;
  if (args.size() != params.size())
    throw runtime::Error(fmt::format("kernel {} takes {} arguments, not {}", traced->name, params.size(), args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo& p = params[i];
    const LaunchArg& a = args[i];
    if (p.is_tensor_map || a.tensor_map) {
      if (!p.is_tensor_map)
        throw runtime::Error(fmt::format("kernel {}, argument {} ({}): a ptx::TensorMap given for a {}", traced->name, i, p.name,
                                         p.is_tensor ? "tensor" : "scalar"));
      if (!a.tensor_map || a.size != 128)
        throw runtime::Error(fmt::format("kernel {}, argument {} ({}): a tensor map parameter takes a ptx::TensorMap", traced->name, i,
                                         p.name));
      continue;
    }
    if (p.is_tensor) {
      if (!a.pointer)
        throw runtime::Error(fmt::format("kernel {}, argument {} ({}): a tensor takes a ptx::DevicePtr, not a {} value", traced->name, i,
                                         p.name, name(a.type)));
      if (a.device != device)
        throw runtime::Error(fmt::format("kernel {}, argument {} ({}): the pointer belongs to another device", traced->name, i, p.name));
      continue;
    }
    const DType want = p.dtype;
    if (a.pointer)
      throw runtime::Error(fmt::format("kernel {}, argument {} ({}): a {} scalar, not a pointer", traced->name, i, p.name, name(want)));
    const bool same = a.type == want || (bits(a.type) == bits(want) && is_integer(a.type) && is_integer(want) &&
                                         (want == DType::b8 || want == DType::b16 || want == DType::b32 || want == DType::b64));
    if (!same)
      throw runtime::Error(fmt::format("kernel {}, argument {} ({}): {} given for a {} parameter", traced->name, i, p.name, name(a.type),
                                       name(want)));
  }
}

void BoundKernel::launch(std::span<const LaunchArg> args, const Stream* stream) const {
  if (!impl_) throw runtime::Error("launching an empty ptx::BoundKernel");
  const StreamImpl* s = stream ? stream->impl().get() : nullptr;
  if (s && s->device != impl_->device) throw runtime::Error(fmt::format("kernel {}: the stream belongs to another device", impl_->traced->name));
  impl_->launch(args, s);
}

const Traced& BoundKernel::traced() const {
  if (!impl_) throw runtime::Error("an empty ptx::BoundKernel");
  return *impl_->traced;
}

BoundKernel bind(const Device& d, const Kernel& k, const Bindings& b) {
  if (!d) throw runtime::Error("bind: an empty ptx::Device");
  return BoundKernel(d.impl()->bound(k.trace(b)));
}

BoundKernel bind(const Device& d, std::shared_ptr<const Traced> traced) {
  if (!d) throw runtime::Error("bind: an empty ptx::Device");
  return BoundKernel(d.impl()->bound(traced));
}

}  // namespace ptx
