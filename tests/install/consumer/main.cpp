// Parses a PTX module given on the command line, prints it canonically.
#include <ptxpp/ptxpp.hpp>

#include <iostream>

int main(int argc, char** argv) {
  const char* text = argc > 1 ? argv[1] : ".version 9.0 .target sm_90a .address_size 64 .entry k() { ret; }";
  auto result = ptx::text::parse(text);
  if (!result) {
    std::cerr << result.error().format() << "\n";
    return 1;
  }
  std::cout << ptx::text::print(result.module(), ptx::text::PrintMode::Canonical);
  return 0;
}
