#include "nvjitlink.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

namespace ptx::runtime {

namespace {

constexpr int kInputPtx = 2;  // NVJITLINK_INPUT_PTX

template <class F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

std::unique_ptr<NvJitLink> open() {
  std::vector<std::string> candidates;
  if (const char* p = std::getenv("PTXPP_NVJITLINK"); p && *p) {
    candidates.push_back(p);  // an explicit path: only that one
  } else {
    candidates = {"libnvJitLink.so.13", "libnvJitLink.so"};
    for (const char* root : std::initializer_list<const char*>{std::getenv("CUDA_HOME"), "/usr/local/cuda"})
      if (root && *root) candidates.push_back((std::filesystem::path(root) / "lib64" / "libnvJitLink.so").string());
  }
  for (const std::string& c : candidates) {
    void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    auto n = std::make_unique<NvJitLink>();
    n->path = c;
    const bool ok = bind(lib, "nvJitLinkCreate", n->create) && bind(lib, "nvJitLinkDestroy", n->destroy) &&
                    bind(lib, "nvJitLinkAddData", n->add_data) && bind(lib, "nvJitLinkComplete", n->complete) &&
                    bind(lib, "nvJitLinkGetLinkedCubinSize", n->cubin_size) &&
                    bind(lib, "nvJitLinkGetLinkedCubin", n->cubin) &&
                    bind(lib, "nvJitLinkGetErrorLogSize", n->error_log_size) &&
                    bind(lib, "nvJitLinkGetErrorLog", n->error_log) && bind(lib, "nvJitLinkVersion", n->version) &&
                    n->version(&n->major, &n->minor) == 0;
    if (ok) return n;  // the library stays loaded for the process
    dlclose(lib);
  }
  return nullptr;
}

}  // namespace

const NvJitLink* NvJitLink::load() {
  static const std::unique_ptr<NvJitLink> lib = open();
  return lib.get();
}

std::pair<std::vector<uint8_t>, std::string> NvJitLink::compile(std::string_view ptx, std::string_view target) const {
  const std::string arch = fmt::format("-arch={}", target);
  const char* options[] = {arch.c_str()};
  Handle h = nullptr;
  if (int r = create(&h, 1, options); r != 0) return {{}, fmt::format("nvJitLinkCreate({}) failed with error {}", arch, r)};
  std::vector<uint8_t> out;
  std::string log;
  const std::string text(ptx);  // nvJitLink wants the terminating NUL
  int r = add_data(h, kInputPtx, text.c_str(), text.size() + 1, "kernel.ptx");
  if (r == 0) r = complete(h);
  size_t n = 0;
  if (r == 0 && (r = cubin_size(h, &n)) == 0) {
    out.resize(n);
    r = cubin(h, out.data());
  }
  if (r != 0) {
    out.clear();
    size_t m = 0;
    if (error_log_size(h, &m) == 0 && m > 1) {
      log.resize(m);
      if (error_log(h, log.data()) == 0) log.resize(log.find('\0') == std::string::npos ? m : log.find('\0'));
    }
    if (log.empty()) log = fmt::format("nvJitLink failed with error {}", r);
  }
  destroy(&h);
  return {std::move(out), std::move(log)};
}

}  // namespace ptx::runtime
