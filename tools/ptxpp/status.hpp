// How a ptxpp command ends: its exit status, and its error and warning lines on standard error.
#pragma once

#include <string_view>

namespace ptxpp_cli {

// The exit statuses of ptxpp.
enum ExitStatus : int {
  kSuccess = 0,
  kFailure = 1,  // errors in the input, a failed check, a failed write
  kUsage = 2,    // a bad command line: unknown command or option, a missing or malformed argument
};

// The exit status set by the command that ran (kSuccess unless set).
int exit_code();
void set_exit_code(int code);

// "ptxpp: error: MESSAGE" and "ptxpp: warning: MESSAGE" on standard error.
void print_error(std::string_view message);
void print_warning(std::string_view message);

}  // namespace ptxpp_cli
