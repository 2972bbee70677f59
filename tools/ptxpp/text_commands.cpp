// ptxpp print | fmt | roundtrip
#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "commands.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"

namespace fs = std::filesystem;

namespace ptxpp_cli {

namespace {
int g_exit = 0;

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

// Parses `path` and writes it back in `mode` to stdout.
void print_file(const std::string& path, ptx::text::PrintMode mode) {
  const auto input = parse_input(path);
  if (!input) return set_exit_code(1);
  const std::string out = ptx::text::print(input->module, mode);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

// First line where `a` and `b` differ (1-based), with both lines.
struct LineDiff {
  size_t line = 0;
  std::string expected, actual;
};
LineDiff first_difference(std::string_view a, std::string_view b) {
  const auto mismatch = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  const size_t at = static_cast<size_t>(mismatch.first - a.begin());
  LineDiff d;
  d.line = static_cast<size_t>(std::count(a.begin(), a.begin() + static_cast<ptrdiff_t>(at), '\n')) + 1;
  auto line_at = [&](std::string_view s) {
    size_t begin = s.rfind('\n', at == 0 ? 0 : at - 1);
    begin = (begin == std::string_view::npos || at == 0) ? 0 : begin + 1;
    if (begin > s.size()) return std::string("<end of text>");
    size_t end = s.find('\n', begin);
    std::string line(s.substr(begin, end == std::string_view::npos ? s.size() - begin : end - begin));
    return begin == s.size() ? std::string("<end of text>") : line;
  };
  d.expected = line_at(a);
  d.actual = line_at(b);
  return d;
}

struct RoundtripOptions {
  bool canonical = false;  // also check that canonical output re-parses and is a fixpoint
  bool quiet = false;
};

// Returns true when the file round-trips.
bool roundtrip_file(const std::string& path, const RoundtripOptions& o) {
  auto text = read_input(path);
  if (!text) return false;
  ptx::text::ParseOptions popts;
  popts.file_name = display_name(path);
  auto result = ptx::text::parse(*text, popts);
  if (!result) {
    std::cout << "FAIL " << display_name(path) << ": parse error\n" << result.error().format() << "\n";
    return false;
  }
  const std::string exact = ptx::text::print(result.module());
  if (exact != *text) {
    const LineDiff d = first_difference(*text, exact);
    std::cout << "FAIL " << display_name(path) << ": exact print differs at line " << d.line << "\n"
              << "  input:   " << d.expected << "\n"
              << "  printed: " << d.actual << "\n";
    return false;
  }
  if (o.canonical) {
    const std::string canon = ptx::text::print(result.module(), ptx::text::PrintMode::Canonical);
    popts.file_name = display_name(path) + " (canonical)";
    auto again = ptx::text::parse(canon, popts);
    if (!again) {
      std::cout << "FAIL " << display_name(path) << ": canonical output does not parse\n"
                << again.error().format() << "\n";
      return false;
    }
    const std::string canon2 = ptx::text::print(again.module(), ptx::text::PrintMode::Canonical);
    if (canon2 != canon) {
      const LineDiff d = first_difference(canon, canon2);
      std::cout << "FAIL " << display_name(path) << ": canonical form is not a fixpoint at line " << d.line << "\n"
                << "  first:  " << d.expected << "\n"
                << "  second: " << d.actual << "\n";
      return false;
    }
  }
  if (!o.quiet) std::cout << "ok   " << display_name(path) << "\n";
  return true;
}

}  // namespace

int exit_code() { return g_exit; }
void set_exit_code(int code) { g_exit = code; }

std::optional<ParsedInput> parse_input(const std::string& path) {
  auto text = read_input(path);
  if (!text) return std::nullopt;
  ptx::text::ParseOptions opts;
  opts.file_name = display_name(path);
  auto result = ptx::text::parse(*text, opts);
  if (!result) {
    std::cerr << result.error().format() << "\n";
    return std::nullopt;
  }
  return ParsedInput{std::move(*text), opts.file_name, std::move(result.module())};
}

std::optional<std::string> read_input(const std::string& path) {
  if (path == "-") {
    std::string s{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    return s;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::cerr << "ptxpp: " << path << ": is a directory\n";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "ptxpp: " << path << ": " << std::strerror(errno) << "\n";
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

void register_text_commands(CLI::App& app) {
  {
    auto* cmd = app.add_subcommand("print", "Parse FILE and print it back exactly (byte-identical)");
    auto file = std::make_shared<std::string>();
    cmd->add_option("FILE", *file, "PTX file, or - for standard input")->required();
    cmd->callback([file] { print_file(*file, ptx::text::PrintMode::Exact); });
  }
  {
    auto* cmd = app.add_subcommand("fmt", "Parse FILE and print it in canonical layout");
    auto file = std::make_shared<std::string>();
    cmd->add_option("FILE", *file, "PTX file, or - for standard input")->required();
    cmd->callback([file] { print_file(*file, ptx::text::PrintMode::Canonical); });
  }
  {
    auto* cmd = app.add_subcommand("roundtrip", "Check that every PTX file parses and prints back byte-identically");
    auto paths = std::make_shared<std::vector<std::string>>();
    auto opts = std::make_shared<RoundtripOptions>();
    cmd->add_option("PATH", *paths, "PTX files or directories (searched for *.ptx); - for standard input")
        ->required();
    cmd->add_flag("--canonical", opts->canonical, "Also check that the canonical form re-parses and is a fixpoint");
    cmd->add_flag("-q,--quiet", opts->quiet, "Print only failures and the summary");
    cmd->callback([paths, opts] {
      size_t passed = 0, failed = 0;
      auto check = [&](const std::string& p) { (roundtrip_file(p, *opts) ? passed : failed)++; };
      for (const std::string& p : *paths) {
        std::error_code ec;
        if (p != "-" && fs::is_directory(p, ec)) {
          std::vector<std::string> files;
          for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
               it.increment(ec))
            if (it->is_regular_file() && it->path().extension() == ".ptx") files.push_back(it->path().string());
          if (ec) {
            std::cerr << "ptxpp: " << p << ": " << ec.message() << "\n";
            ++failed;
          }
          std::sort(files.begin(), files.end());
          for (const auto& f : files) check(f);
        } else {
          check(p);
        }
      }
      std::cout << passed << " passed, " << failed << " failed\n";
      set_exit_code(failed == 0 ? 0 : 1);
    });
  }
}

}  // namespace ptxpp_cli
