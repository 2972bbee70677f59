// PTX → cubin compilers from the CUDA toolkit: nvJitLink (libnvJitLink, loaded at
// run time) and ptxas. Neither is needed to run kernels: without them the driver
// JIT-compiles the PTX text. Compiling needs no GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptx::runtime {

enum class CompilerKind { nvjitlink, ptxas };

struct Compiler {
  CompilerKind kind;
  std::string path;      // the library or the executable
  std::string identity;  // name and version: part of the cubin cache key
};

// nvJitLink: $PTXPP_NVJITLINK, else libnvJitLink.so.13 / .so on the loader's path, in
// $CUDA_HOME/lib64 or /usr/local/cuda/lib64. Nullopt when none loads.
std::optional<Compiler> nvjitlink_compiler();
// ptxas: $PTXAS, else ptxas in $CUDA_HOME/bin or /usr/local/cuda/bin. Nullopt when absent.
std::optional<Compiler> ptxas_compiler();

// The compiler the gpu device uses: $PTXPP_COMPILER names one ("nvjitlink", "ptxas", or
// "driver" for the driver's JIT, which is nullopt); unset, nvJitLink when it loads, else
// ptxas, else the driver JIT. PTXPP_NO_PTXAS=1 means "driver". An unknown name, or a
// named compiler that is not there, throws Error.
std::optional<Compiler> find_compiler();

// Compiles `ptx` for `target` (sm_90a, ...) into a cubin. A rejection throws Error naming
// `what` (the kernel), with the compiler's log and the PTX lines it names quoted under it.
std::vector<uint8_t> compile_cubin(const Compiler& compiler, std::string_view ptx, std::string_view target,
                                   std::string_view what);

// A compiler log ("... line 12; error ...") with each PTX line it names quoted under it.
std::string quote_ptx_lines(const std::string& log, std::string_view ptx);

}  // namespace ptx::runtime
