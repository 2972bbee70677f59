#include "ptxpp/runtime/aot.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "ptxpp/runtime/error.hpp"

namespace ptx::aot {

namespace {

constexpr std::string_view kTag = "// ptxpp-aot: ";

std::string param_text(const ParamInfo& p) {
  return fmt::format("{}:{}:{}", p.is_tensor ? 'T' : p.is_tensor_map ? 'M' : 'S', p.name, name(p.dtype));
}

DType dtype_named(std::string_view n) {
  for (int i = 0; i <= static_cast<int>(DType::none); ++i)
    if (name(static_cast<DType>(i)) == n) return static_cast<DType>(i);
  return DType::none;
}

uint64_t number(std::string_view s) {
  uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

Dim3 dims(std::string_view s) {
  uint32_t v[3] = {1, 1, 1};
  for (int i = 0; i < 3 && !s.empty(); ++i) {
    const size_t c = s.find(',');
    v[i] = static_cast<uint32_t>(number(s.substr(0, c)));
    s = c == std::string_view::npos ? std::string_view{} : s.substr(c + 1);
  }
  return Dim3(v[0], v[1], v[2]);
}

}  // namespace

void write(std::ostream& out, const Traced& t) {
  std::string params;
  for (const ParamInfo& p : t.params) {
    if (!params.empty()) params += ';';
    params += param_text(p);
  }
  out << kTag
      << fmt::format("name={} target={} version={}.{} grid={},{},{} block={},{},{} cluster={},{},{} smem={} dsmem={} bytes={} params={}\n",
                     t.name, t.target, t.ptx_version.major, t.ptx_version.minor, t.grid.x, t.grid.y, t.grid.z, t.block.x, t.block.y, t.block.z,
                     t.cluster.x, t.cluster.y, t.cluster.z, t.static_smem_bytes, t.dynamic_smem_bytes, t.ptx.size(), params);
  out << t.ptx;
}

std::shared_ptr<const Traced> read(std::string_view text, std::string_view name_wanted, std::span<const uint8_t> cubin) {
  size_t pos = 0;
  while ((pos = text.find(kTag, pos)) != std::string_view::npos) {
    const size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) throw runtime::Error("ahead-of-time text: the embedded PTX is truncated (in a header line)");
    std::string_view line = text.substr(pos + kTag.size(), eol - pos - kTag.size());
    auto t = std::make_shared<Traced>();
    uint64_t bytes = 0;
    while (!line.empty()) {
      const size_t sp = line.find(' ');
      const std::string_view field = line.substr(0, sp);
      line = sp == std::string_view::npos ? std::string_view{} : line.substr(sp + 1);
      const size_t eq = field.find('=');
      const std::string_view k = field.substr(0, eq);
      std::string_view v = field.substr(eq + 1);
      if (k == "name") t->name = std::string(v);
      else if (k == "target") t->target = std::string(v);
      else if (k == "version") {
        t->ptx_version.major = static_cast<uint8_t>(number(v.substr(0, v.find('.'))));
        t->ptx_version.minor = static_cast<uint8_t>(number(v.substr(v.find('.') + 1)));
      } else if (k == "grid") t->grid = dims(v);
      else if (k == "block") t->block = dims(v);
      else if (k == "cluster") t->cluster = dims(v);
      else if (k == "smem") t->static_smem_bytes = number(v);
      else if (k == "dsmem") t->dynamic_smem_bytes = number(v);
      else if (k == "bytes") bytes = number(v);
      else if (k == "params") {
        while (!v.empty()) {
          const size_t semi = v.find(';');
          const std::string_view p = v.substr(0, semi);
          v = semi == std::string_view::npos ? std::string_view{} : v.substr(semi + 1);
          const size_t c1 = p.find(':'), c2 = p.rfind(':');
          ParamInfo info;
          info.is_tensor = p.substr(0, c1) == "T";
          info.is_tensor_map = p.substr(0, c1) == "M";
          info.name = std::string(p.substr(c1 + 1, c2 - c1 - 1));
          info.dtype = dtype_named(p.substr(c2 + 1));
          t->params.push_back(std::move(info));
        }
      }
    }
    if (eol + 1 + bytes > text.size()) throw runtime::Error(fmt::format("ahead-of-time kernel {}: the embedded PTX is truncated", t->name));
    if (t->name == name_wanted) {
      t->ptx = std::string(text.substr(eol + 1, bytes));
      t->cubin.assign(cubin.begin(), cubin.end());
      return t;
    }
    pos = eol + 1 + bytes;
  }
  throw runtime::Error(fmt::format("no ahead-of-time kernel named '{}' in the embedded text", name_wanted));
}

int generator_main(int argc, char** argv, const std::function<std::vector<std::shared_ptr<const Traced>>(const std::string&)>& make) {
  std::string arch, out_dir;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string_view(argv[i]) == "--arch") arch = argv[i + 1];
    if (std::string_view(argv[i]) == "--out-dir") out_dir = argv[i + 1];
  }
  if (arch.empty()) {
    std::cerr << "usage: " << argv[0] << " --arch sm_90a [--out-dir DIR]\n"
              << "  writes the kernels' PTX for that target: to standard output, or one DIR/NAME.ptx each and DIR/kernels.txt\n";
    return 2;
  }
  try {
    const auto kernels = make(arch);
    if (out_dir.empty()) {
      for (const auto& t : kernels) write(std::cout, *t);
      return 0;
    }
    std::filesystem::create_directories(out_dir);
    std::ofstream list(std::filesystem::path(out_dir) / "kernels.txt");
    for (const auto& t : kernels) {
      std::ofstream f(std::filesystem::path(out_dir) / (t->name + ".ptx"), std::ios::binary);
      write(f, *t);
      list << t->name << "\n";
      if (!f) throw runtime::Error(fmt::format("cannot write {}/{}.ptx", out_dir, t->name));
    }
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace ptx::aot
