#include "status.hpp"

#include <fmt/core.h>

#include <cstdio>

namespace ptxpp_cli {

namespace {
int g_exit = kSuccess;
}  // namespace

int exit_code() { return g_exit; }
void set_exit_code(int code) { g_exit = code; }

void print_error(std::string_view message) { fmt::print(stderr, "ptxpp: error: {}\n", message); }
void print_warning(std::string_view message) { fmt::print(stderr, "ptxpp: warning: {}\n", message); }

}  // namespace ptxpp_cli
