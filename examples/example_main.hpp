// The command line every DSL example shares:
//   EXAMPLE [--ptx] [--arch sm_90a] [--dim N=4096 ...]
// --ptx prints the traced PTX and nothing else (no GPU needed); without it, a summary.
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

inline int example_main(int argc, char** argv, const std::string& what,
                        const std::function<ptx::Kernel(const std::string&)>& make, ptx::Bindings dims) {
  CLI::App app{what};
  bool ptx_only = false;
  std::string arch = "sm_90a";
  std::vector<std::string> overrides;
  app.add_flag("--ptx", ptx_only, "print the kernel's PTX and exit");
  app.add_option("--arch", arch, "target: sm_80, sm_90a, sm_100a, ...");
  app.add_option("--dim", overrides, "bind a symbolic dimension, NAME=VALUE (repeatable)");
  CLI11_PARSE(app, argc, argv);
  try {
    for (const std::string& o : overrides) {
      const auto eq = o.find('=');
      if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--dim", "expected NAME=VALUE, got '" + o + "'");
      long long v = 0;
      const char* first = o.data() + eq + 1;
      const auto [end, ec] = std::from_chars(first, o.data() + o.size(), v);
      if (ec != std::errc{} || end != o.data() + o.size() || v <= 0)
        throw CLI::ValidationError("--dim", "not a positive integer: '" + o + "'");
      dims[o.substr(0, eq)] = v;
    }
    const auto traced = make(arch).trace(dims);
    if (ptx_only) {
      std::cout << traced->ptx;
      return 0;
    }
    std::cout << "kernel " << traced->name << " for " << traced->target << " (PTX ISA " << int(traced->ptx_major) << "."
              << int(traced->ptx_minor) << "): " << traced->instructions << " instructions, grid " << traced->grid.x
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

}  // namespace examples
