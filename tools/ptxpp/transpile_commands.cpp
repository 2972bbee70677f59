// ptxpp transpile
#include <fmt/core.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "clang_format.hpp"
#include "commands.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/transpile/transpile.hpp"

namespace ptxpp_cli {

namespace {
struct TranspileArgs {
  std::string file;
  std::string name = "ptx_module";
  std::string out;
  bool main = false;
  bool sugar = false;
  bool no_format = false;
};

void transpile(const TranspileArgs& a) {
  if (!ptx::transpile::is_cxx_identifier(a.name)) {
    std::cerr << "ptxpp transpile: --name '" << a.name << "' is not a C++ identifier (or is a keyword)\n";
    return set_exit_code(2);
  }
  const auto input = parse_input(a.file);
  if (!input) return set_exit_code(1);
  ptx::transpile::Options o;
  o.name = a.name;
  o.main = a.main;
  o.sugar = a.sugar;
  o.source_name = input->name;
  std::string cpp = ptx::transpile::to_cpp(input->module, input->text, o);
  if (!a.no_format) {
    Formatted f = clang_format(cpp);
    if (!f.problem.empty())
      std::cerr << "ptxpp transpile: warning: the output is not formatted: " << f.problem
                << " (install clang-format, or pass --no-format)\n";
    cpp = std::move(f.code);
  }
  if (a.out.empty() || a.out == "-") {
    std::fwrite(cpp.data(), 1, cpp.size(), stdout);
    return;
  }
  std::ofstream f(a.out, std::ios::binary);
  f << cpp;
  f.close();
  if (!f) {
    std::cerr << "ptxpp transpile: cannot write " << a.out << "\n";
    return set_exit_code(1);
  }
}
}  // namespace

void register_transpile_commands(CLI::App& app) {
  auto* cmd = app.add_subcommand("transpile", "Write FILE as ptxpp C++ that prints the same PTX again");
  auto args = std::make_shared<TranspileArgs>();
  cmd->add_option("FILE", args->file, "PTX file, or - for standard input")->required();
  cmd->add_option("--name", args->name, "Name of the generated C++ function returning the ptx::Listing")
      ->capture_default_str();
  cmd->add_flag("--main", args->main, "Also define main(), printing the module's PTX");
  cmd->add_flag("--sugar", args->sugar, "Output to edit: loops raised from back edges, repeated blocks as for-loops, register ranges");
  cmd->add_flag("--no-format", args->no_format,
                "Do not run clang-format (by default the output is formatted in the repository's style)");
  cmd->add_option("-o,--output", args->out, "Output file (default: standard output)");
  cmd->callback([args] { transpile(*args); });
}

}  // namespace ptxpp_cli
