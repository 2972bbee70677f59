// libnvJitLink loaded at run time (the toolkit need not be present at build or run
// time): PTX → cubin in process, without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptx::runtime {

struct NvJitLink {
  std::string path;
  unsigned major = 0, minor = 0;

  // The library, loaded once; nullptr when it cannot be loaded.
  static const NvJitLink* load();

  // The cubin, or an empty cubin and the error log. Thread-safe (one handle per call).
  std::pair<std::vector<uint8_t>, std::string> compile(std::string_view ptx, std::string_view target) const;

  // entry points (the unversioned names the library exports)
  using Handle = void*;
  int (*create)(Handle*, uint32_t, const char**) = nullptr;
  int (*destroy)(Handle*) = nullptr;
  int (*add_data)(Handle, int, const void*, size_t, const char*) = nullptr;
  int (*complete)(Handle) = nullptr;
  int (*cubin_size)(Handle, size_t*) = nullptr;
  int (*cubin)(Handle, void*) = nullptr;
  int (*error_log_size)(Handle, size_t*) = nullptr;
  int (*error_log)(Handle, char*) = nullptr;
  int (*version)(unsigned*, unsigned*) = nullptr;
};

}  // namespace ptx::runtime
