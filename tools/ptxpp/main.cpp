// The ptxpp command line tool.
#include <CLI/CLI.hpp>

#include <string>

#include "commands.hpp"
#include "completion.hpp"
#include "output.hpp"
#include "usage.hpp"

namespace {

constexpr const char* kFooter =
    "Run 'ptxpp help COMMAND' for a command's options. FILE may be - for standard input; -o FILE writes\n"
    "the output to FILE (atomically) instead of standard output.\n"
    "Exit status: 0 success; 1 errors in the input, a failed check or a failed write; 2 a usage error.";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ptxpp: read, check, write and run PTX", "ptxpp"};
  app.set_version_flag("-V,--version", std::string("ptxpp ") + PTXPP_VERSION, "Print ptxpp's version and exit");
  app.require_subcommand(1);
  app.fallthrough(false);
  app.footer(kFooter);
  app.get_formatter()->label("SUBCOMMAND", "COMMAND");

  ptxpp_cli::register_text_commands(app);
  ptxpp_cli::register_spec_commands(app);
  ptxpp_cli::register_run_commands(app);
  ptxpp_cli::register_transpile_commands(app);
  ptxpp_cli::register_help_command(app);
  ptxpp_cli::register_completion_command(app);
  ptxpp_cli::use_ptxpp_usage_errors(app);
  for (CLI::App* command : ptxpp_cli::visible_commands(app)) command->group("Commands");

  int status = ptxpp_cli::kSuccess;
  try {
    app.parse(argc, argv);
    status = ptxpp_cli::exit_code();
  } catch (const CLI::ParseError& e) {
    status = ptxpp_cli::handle_parse_error(app, e);
  }
  if (!ptxpp_cli::close_standard_output() && status == ptxpp_cli::kSuccess) status = ptxpp_cli::kFailure;
  return status;
}
