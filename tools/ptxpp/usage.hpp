// The conventions of ptxpp's command line, after clang's and ptxas's: a usage error names the word
// that was wrong (with a "did you mean" for a misspelt command or option), is printed as
// "ptxpp: error: ..." and exits with status 2; `ptxpp help [COMMAND]` prints the help.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "status.hpp"

namespace ptxpp_cli {

// A usage error a command finds itself (a malformed option value); reported as CLI11's own are.
class UsageError : public CLI::ParseError {
 public:
  explicit UsageError(std::string message) : CLI::ParseError("UsageError", std::move(message), kUsage) {}
};

// The commands shown in the help (hidden ones have no group), in definition order.
std::vector<CLI::App*> visible_commands(CLI::App& app);
// Their names.
std::vector<std::string> command_names(CLI::App& app);
// The option spellings of a command shown in its help: "-o", "--output", ...
std::vector<std::string> option_names(const CLI::App& command);

// Makes `app` print parse errors in ptxpp's form (through CLI11's failure message). Call before parsing.
void use_ptxpp_usage_errors(CLI::App& app);

// Prints a parse error from `app` and returns the exit status: help and version on standard output
// (kSuccess), anything else as a usage error on standard error (kUsage).
int handle_parse_error(const CLI::App& app, const CLI::ParseError& error);

// `ptxpp help [COMMAND]`: the help of ptxpp or of one command.
void register_help_command(CLI::App& app);

}  // namespace ptxpp_cli
