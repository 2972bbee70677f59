// Subcommands of the ptxpp tool, grouped by the layer they exercise.
#pragma once

#include <CLI/CLI.hpp>

#include "ptxpp/ir/module.hpp"
#include "status.hpp"

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

// Reads a file, or standard input for "-". Prints "ptxpp: error: cannot read ..." and returns nullopt on failure.
std::optional<std::string> read_input(const std::string& path);

// An input file read and parsed: its text, the name diagnostics use ("<stdin>" for "-"), the module.
struct ParsedInput {
  std::string text;
  std::string name;
  ptx::ir::Module module;
};
// Reads and parses `path`; prints the reading or parse error (file:line:column) and returns nullopt on failure.
std::optional<ParsedInput> parse_input(const std::string& path);

}  // namespace ptxpp_cli
