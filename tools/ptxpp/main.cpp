// The ptxpp command line tool.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ptxpp: read, check, write and run PTX"};
  app.set_version_flag("--version", std::string("ptxpp ") + PTXPP_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  ptxpp_cli::register_text_commands(app);
  ptxpp_cli::register_spec_commands(app);
  ptxpp_cli::register_run_commands(app);
  ptxpp_cli::register_transpile_commands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return ptxpp_cli::exit_code();
}
