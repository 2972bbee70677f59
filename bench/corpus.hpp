// The PTX corpus as benchmark input: every .ptx file under a directory.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ptx::bench {

struct Corpus {
  std::vector<std::string> files;
  size_t bytes = 0;
};

inline Corpus load_corpus(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> paths;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".ptx") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  Corpus c;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    c.files.push_back(std::move(ss).str());
    c.bytes += c.files.back().size();
  }
  return c;
}

// Takes `--corpus DIR` out of argv (default: the repository's tests/corpus).
inline std::filesystem::path corpus_dir_from_args(int& argc, char** argv) {
  std::filesystem::path dir = PTXPP_CORPUS_DIR;
  int out = 0;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--corpus" && i + 1 < argc) {
      dir = argv[++i];
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  return dir;
}

}  // namespace ptx::bench
