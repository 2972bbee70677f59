// Subcommands of the ptxpp tool, grouped by the layer they exercise.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace ptxpp_cli {

// print, fmt, roundtrip
void register_text_commands(CLI::App& app);
// check, spec
void register_spec_commands(CLI::App& app);
// run
void register_run_commands(CLI::App& app);
// transpile
void register_transpile_commands(CLI::App& app);

// Reads a file, or standard input for "-". Prints an error and returns nullopt on failure.
std::optional<std::string> read_input(const std::string& path);

// The exit status set by the subcommand that ran.
int exit_code();
void set_exit_code(int code);

}  // namespace ptxpp_cli
