// The command line every DSL example shares:
//   EXAMPLE [--ptx] [--arch TARGET] [--dim N=4096 ...] [the example's own flags]
// --ptx prints the traced PTX and nothing else (no GPU needed); without it, a summary.
// The default target is the one the example's name says (gemm_sm80: sm_80, gemm_sm100: sm_100a).
#pragma once

#include <charconv>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <ptxpp/dsl.hpp>

namespace examples {

struct ExampleSpec {
  std::string what;  // the first line of --help
  std::string default_arch = "sm_90a";
  // The example's own flags, added to the command line before it is parsed (optional).
  std::function<void(CLI::App&)> add_options;
  // The kernel for a target and its default dimensions, asked for after parsing (so they
  // may depend on the example's own flags).
  std::function<ptx::Kernel(const std::string& arch)> make;
  std::function<ptx::Bindings()> dims;
};

// NAME=VALUE with VALUE a positive integer, into dims; a CLI::ValidationError otherwise.
inline void bind_dim(const std::string& o, ptx::Bindings& dims) {
  const auto eq = o.find('=');
  if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--dim", "expected NAME=VALUE, got '" + o + "'");
  long long v = 0;
  const char* first = o.data() + eq + 1;
  const auto [end, ec] = std::from_chars(first, o.data() + o.size(), v);
  if (ec != std::errc{} || end != o.data() + o.size() || v <= 0)
    throw CLI::ValidationError("--dim", "not a positive integer: '" + o + "'");
  dims[o.substr(0, eq)] = v;
}

inline int example_main(int argc, char** argv, const ExampleSpec& spec) {
  CLI::App app{spec.what};
  bool ptx_only = false;
  std::string arch = spec.default_arch;
  std::vector<std::string> overrides;
  app.add_flag("--ptx", ptx_only, "print the kernel's PTX and exit");
  app.add_option("--arch", arch, "target: sm_80, sm_90a, sm_100a, ...")->capture_default_str();
  app.add_option("--dim", overrides, "bind a symbolic dimension, NAME=VALUE (repeatable)");
  if (spec.add_options) spec.add_options(app);
  CLI11_PARSE(app, argc, argv);
  try {
    ptx::Bindings dims = spec.dims();
    for (const std::string& o : overrides) bind_dim(o, dims);
    const auto traced = spec.make(arch).trace(dims);
    if (ptx_only) {
      std::cout << traced->ptx;
      return 0;
    }
    std::cout << "kernel " << traced->name << " for " << traced->target << " (PTX ISA " << traced->ptx_version.str()
              << "): " << traced->instructions << " instructions, grid " << traced->grid.x
              << "x" << traced->grid.y << "x" << traced->grid.z << ", block " << traced->block.x << "x"
              << traced->block.y << "x" << traced->block.z << "\n";
    std::cout << "run with --ptx to print the PTX\n";
    return 0;
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

// The common case: a kernel factory, its default dimensions, and the target its name says.
inline int example_main(int argc, char** argv, const std::string& what,
                        const std::function<ptx::Kernel(const std::string&)>& make, ptx::Bindings dims,
                        const std::string& default_arch = "sm_90a") {
  return example_main(
      argc, argv,
      {.what = what, .default_arch = default_arch, .add_options = {}, .make = make, .dims = [dims] { return dims; }});
}

}  // namespace examples
