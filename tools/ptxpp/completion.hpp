// `ptxpp completion bash`: a bash completion script written from ptxpp's own command and option
// definitions (the CLI11 app), so that it cannot drift from them.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace ptxpp_cli {

// The bash completion script for `app`: commands, each command's options, file names where an
// option takes a value or a command takes files, and the words of a positional with a fixed set.
std::string bash_completion(CLI::App& app);

// `ptxpp completion bash [-o FILE]`.
void register_completion_command(CLI::App& app);

}  // namespace ptxpp_cli
