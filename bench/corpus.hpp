// The PTX corpus as benchmark input: every .ptx file under a directory.
#pragma once

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ptx::bench {

struct Corpus {
  std::vector<std::string> files;
  size_t bytes = 0;
};

// Every .ptx under the directories, each directory's files in sorted order.
inline Corpus load_corpus(const std::vector<std::filesystem::path>& dirs) {
  Corpus c;
  for (const auto& dir : dirs) {
    std::vector<std::filesystem::path> paths;
    for (auto& e : std::filesystem::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".ptx") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) {
      std::ifstream in(p, std::ios::binary);
      std::ostringstream ss;
      ss << in.rdbuf();
      c.files.push_back(std::move(ss).str());
      c.bytes += c.files.back().size();
    }
  }
  return c;
}

// Takes each `--corpus DIR` out of argv (none: the repository's tests/corpus). Several may be
// given, e.g. the real compilers' output alone: --corpus tests/corpus/triton --corpus ...
inline std::vector<std::filesystem::path> corpus_dirs_from_args(int& argc, char** argv) {
  std::vector<std::filesystem::path> dirs;
  int out = 0;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--corpus" && i + 1 < argc) {
      dirs.emplace_back(argv[++i]);
      if (!std::filesystem::is_directory(dirs.back())) {
        std::fprintf(stderr, "%s: --corpus %s: not a directory\n", argv[0], argv[i]);
        std::exit(2);
      }
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  if (dirs.empty()) dirs.emplace_back(PTXPP_CORPUS_DIR);
  return dirs;
}

// The directories, for messages: "a, b".
inline std::string describe(const std::vector<std::filesystem::path>& dirs) {
  std::string s;
  for (const auto& d : dirs) s += (s.empty() ? "" : ", ") + d.string();
  return s;
}

}  // namespace ptx::bench
