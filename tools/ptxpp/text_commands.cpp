// ptxpp print | fmt | roundtrip
#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "commands.hpp"
#include "output.hpp"
#include "ptxpp/text/parser.hpp"
#include "ptxpp/text/printer.hpp"
#include "usage.hpp"

namespace fs = std::filesystem;

namespace ptxpp_cli {

namespace {

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

struct PrintArgs {
  std::vector<std::string> files;
  std::string out;
  bool in_place = false;
};

// Parses `path` and writes it back in `mode` to `out`.
void print_file(const std::string& path, ptx::text::PrintMode mode, const std::string& out) {
  const auto input = parse_input(path);
  if (!input) return set_exit_code(kFailure);
  write_output(out, ptx::text::print(input->module, mode));
}

// fmt -i: the file replaced by its canonical form (atomically); left alone when it is canonical already.
void format_in_place(const std::string& path) {
  const auto input = parse_input(path);
  if (!input) return set_exit_code(kFailure);
  const std::string canonical = ptx::text::print(input->module, ptx::text::PrintMode::Canonical);
  if (canonical != input->text) write_output(path, canonical);
}

void fmt_command(const PrintArgs& a) {
  if (a.in_place) {
    if (std::count(a.files.begin(), a.files.end(), "-"))
      throw UsageError("-i: standard input (-) cannot be formatted in place");
    for (const std::string& f : a.files) format_in_place(f);
    return;
  }
  if (a.files.size() > 1)
    throw UsageError("unexpected argument '" + a.files[1] + "' (several files are formatted in place, with -i)");
  print_file(a.files.front(), ptx::text::PrintMode::Canonical, a.out);
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
  std::string out;  // the report's file; "" for standard output
};

// Returns true when the file round-trips; appends what it found to `report`.
bool roundtrip_file(const std::string& path, const RoundtripOptions& o, std::string& report) {
  auto text = read_input(path);
  if (!text) return false;
  ptx::text::ParseOptions popts;
  popts.file_name = display_name(path);
  auto result = ptx::text::parse(*text, popts);
  if (!result) {
    report += fmt::format("FAIL {}: parse error\n{}\n", display_name(path), result.error().format());
    return false;
  }
  const std::string exact = ptx::text::print(result.module());
  if (exact != *text) {
    const LineDiff d = first_difference(*text, exact);
    report += fmt::format("FAIL {}: exact print differs at line {}\n  input:   {}\n  printed: {}\n", display_name(path),
                          d.line, d.expected, d.actual);
    return false;
  }
  if (o.canonical) {
    const std::string canon = ptx::text::print(result.module(), ptx::text::PrintMode::Canonical);
    popts.file_name = display_name(path) + " (canonical)";
    auto again = ptx::text::parse(canon, popts);
    if (!again) {
      report +=
          fmt::format("FAIL {}: canonical output does not parse\n{}\n", display_name(path), again.error().format());
      return false;
    }
    const std::string canon2 = ptx::text::print(again.module(), ptx::text::PrintMode::Canonical);
    if (canon2 != canon) {
      const LineDiff d = first_difference(canon, canon2);
      report += fmt::format("FAIL {}: canonical form is not a fixpoint at line {}\n  first:  {}\n  second: {}\n",
                            display_name(path), d.line, d.expected, d.actual);
      return false;
    }
  }
  if (!o.quiet) report += "ok   " + display_name(path) + "\n";
  return true;
}

}  // namespace

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
    if (std::ferror(stdin)) {
      print_error(fmt::format("cannot read standard input: {}", std::strerror(errno)));
      return std::nullopt;
    }
    return s;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    print_error("cannot read " + path + ": is a directory");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    print_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    print_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    return std::nullopt;
  }
  return std::move(ss).str();
}

void register_text_commands(CLI::App& app) {
  {
    auto* cmd = app.add_subcommand("print", "Parse FILE and print it back exactly (byte-identical)");
    auto a = std::make_shared<PrintArgs>();
    a->files.resize(1);
    cmd->add_option("FILE", a->files[0], "PTX file, or - for standard input")->required();
    cmd->add_option("-o,--output", a->out, "Output file (default: standard output)");
    cmd->callback([a] { print_file(a->files[0], ptx::text::PrintMode::Exact, a->out); });
  }
  {
    auto* cmd = app.add_subcommand("fmt", "Parse FILE and print it in canonical layout");
    auto a = std::make_shared<PrintArgs>();
    cmd->add_option("FILE", a->files, "PTX file, or - for standard input; with -i, one or more files")->required();
    auto* out = cmd->add_option("-o,--output", a->out, "Output file (default: standard output)");
    cmd->add_flag("-i,--in-place", a->in_place,
                  "Replace each FILE by its canonical form (atomically; kept when unchanged)")
        ->excludes(out);
    cmd->callback([a] { fmt_command(*a); });
  }
  {
    auto* cmd = app.add_subcommand("roundtrip", "Check that every PTX file parses and prints back byte-identically");
    auto paths = std::make_shared<std::vector<std::string>>();
    auto opts = std::make_shared<RoundtripOptions>();
    cmd->add_option("PATH", *paths, "PTX files or directories (searched for *.ptx); - for standard input")->required();
    cmd->add_flag("--canonical", opts->canonical, "Also check that the canonical form re-parses and is a fixpoint");
    cmd->add_flag("-q,--quiet", opts->quiet, "Print only failures and the summary");
    cmd->add_option("-o,--output", opts->out, "Write the report to this file (default: standard output)");
    cmd->callback([paths, opts] {
      size_t passed = 0, failed = 0;
      std::string report;
      auto check = [&](const std::string& p) { (roundtrip_file(p, *opts, report) ? passed : failed)++; };
      for (const std::string& p : *paths) {
        std::error_code ec;
        if (p != "-" && fs::is_directory(p, ec)) {
          std::vector<std::string> files;
          for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
               it.increment(ec))
            if (it->is_regular_file() && it->path().extension() == ".ptx") files.push_back(it->path().string());
          if (ec) {
            print_error("cannot read " + p + ": " + ec.message());
            ++failed;
          }
          std::sort(files.begin(), files.end());
          for (const auto& f : files) check(f);
        } else {
          check(p);
        }
      }
      report += fmt::format("{} passed, {} failed\n", passed, failed);
      set_exit_code(failed == 0 ? kSuccess : kFailure);
      write_output(opts->out, report);
    });
  }
}

}  // namespace ptxpp_cli
