// ptxpp transpile
#include <fmt/core.h>

#include <memory>

#include "clang_format.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/transpile/transpile.hpp"
#include "usage.hpp"

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
  if (!ptx::transpile::is_cxx_identifier(a.name))
    throw UsageError("--name '" + a.name + "' is not a C++ identifier (or is a keyword)");
  const auto input = parse_input(a.file);
  if (!input) return set_exit_code(kFailure);
  ptx::transpile::Options o;
  o.name = a.name;
  o.main = a.main;
  o.sugar = a.sugar;
  o.source_name = input->name;
  std::string cpp = ptx::transpile::to_cpp(input->module, input->text, o);
  if (!a.no_format) {
    Formatted f = clang_format(cpp);
    if (!f.problem.empty())
      print_warning("the output is not formatted: " + f.problem + " (install clang-format, or pass --no-format)");
    cpp = std::move(f.code);
  }
  write_output(a.out, cpp);
}
}  // namespace

void register_transpile_commands(CLI::App& app) {
  auto* cmd = app.add_subcommand("transpile", "Write FILE as ptxpp C++ that prints the same PTX again");
  auto args = std::make_shared<TranspileArgs>();
  cmd->add_option("FILE", args->file, "PTX file, or - for standard input")->required();
  cmd->add_option("--name", args->name, "Name of the generated C++ function returning the ptx::Listing")
      ->capture_default_str();
  cmd->add_flag("--main", args->main, "Also define main(), printing the module's PTX");
  cmd->add_flag("--sugar", args->sugar,
                "Output to edit: loops raised from back edges, repeated blocks as for-loops, register ranges");
  cmd->add_flag("--no-format", args->no_format,
                "Do not run clang-format (by default the output is formatted in the repository's style)");
  cmd->add_option("-o,--output", args->out, "Output file (default: standard output)");
  cmd->callback([args] { transpile(*args); });
}

}  // namespace ptxpp_cli
