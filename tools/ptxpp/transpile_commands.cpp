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
  std::string lang = "cpp";
  bool main = false;
  bool sugar = false;
  bool no_format = false;
};

void transpile(const TranspileArgs& a) {
  if (a.lang != "cpp" && a.lang != "python")
    throw UsageError("--lang '" + a.lang + "' is not an output language (cpp, python)");
  const auto lang = a.lang == "python" ? ptx::transpile::Lang::Python : ptx::transpile::Lang::Cpp;
  if (!ptx::transpile::is_identifier(a.name, lang))
    throw UsageError("--name '" + a.name + "' is not a " +
                     (a.lang == "python" ? "Python identifier (or is a keyword or a name the output uses)"
                                         : "C++ identifier (or is a keyword)"));
  const auto input = parse_input(a.file);
  if (!input) return set_exit_code(kFailure);
  ptx::transpile::Options o;
  o.language = lang;
  o.name = a.name;
  o.main = a.main;
  o.sugar = a.sugar;
  o.source_name = input->name;
  std::string cpp = ptx::transpile::transpile(input->module, input->text, o);
  if (!a.no_format && lang == ptx::transpile::Lang::Cpp) {  // Python is written formatted
    Formatted f = clang_format(cpp);
    if (!f.problem.empty())
      print_warning("the output is not formatted: " + f.problem + " (install clang-format, or pass --no-format)");
    cpp = std::move(f.code);
  }
  write_output(a.out, cpp);
}
}  // namespace

void register_transpile_commands(CLI::App& app) {
  auto* cmd = app.add_subcommand("transpile", "Write FILE as ptxpp C++ (or Python) that prints the same PTX again");
  auto args = std::make_shared<TranspileArgs>();
  cmd->add_option("FILE", args->file, "PTX file, or - for standard input")->required();
  cmd->add_option("--lang", args->lang, "Output language: cpp (a C++ header) or python (a module of the ptxpp package)")
      ->capture_default_str();
  cmd->add_option("--name", args->name, "Name of the generated function returning the module's listing")
      ->capture_default_str();
  cmd->add_flag("--main", args->main, "C++: also define main(), printing the module's PTX (Python output always does)");
  cmd->add_flag("--sugar", args->sugar,
                "Output to edit: loops raised from back edges, repeated blocks as for-loops, register ranges");
  cmd->add_flag("--no-format", args->no_format,
                "Do not run clang-format on C++ output (by default it is formatted in the repository's style)");
  cmd->add_option("-o,--output", args->out, "Output file (default: standard output)");
  cmd->callback([args] { transpile(*args); });
}

}  // namespace ptxpp_cli
