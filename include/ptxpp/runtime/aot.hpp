// Ahead-of-time kernels: generators (programs using the DSL) run at build time and
// their PTX (and cubins, when ptxas is present) are embedded in the application,
// which then launches without tracing or JIT compilation (CMake: ptxpp_add_kernels).
//
// A generator writes each kernel with aot::write; the application gets the embedded
// text back and binds it:
//   auto k = ptx::bind(dev, ptx::aot::read(ptxpp_aot::my_kernels_ptx("sm_90a"), "saxpy"));
#pragma once

#include <cstdint>
#include <functional>
#include <vector>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "ptxpp/dsl/kernel.hpp"

namespace ptx::aot {

// The traced kernel with its launch metadata in a `// ptxpp-aot:` header line.
void write(std::ostream& out, const Traced& t);
// The kernel `name` from text written by write() (several kernels may follow one
// another); `cubin`: a compiled image for the text's target, when there is one.
std::shared_ptr<const Traced> read(std::string_view text, std::string_view name, std::span<const uint8_t> cubin = {});

// For generators: `GENERATOR --arch sm_90a` writes every kernel for that target to
// standard output; `make(arch)` traces them.
int generator_main(int argc, char** argv, const std::function<std::vector<std::shared_ptr<const Traced>>(const std::string& arch)>& make);

}  // namespace ptx::aot
