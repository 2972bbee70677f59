// An EmuCase as text, and back: the launch in four comment lines, then the module. A finding is
// recorded this way next to its input (fuzz/emu_regressions/NAME.case beside NAME.bin), so that
// its kernel stays the same when the generator changes what an input means.
//
//   // launch: grid 2 1 1, block 32 1 1, cluster 1 1 1, dynamic shared 0
//   // buffers: 64, 16 freed
//   // arguments: buf0 = buffer 0 + 0x0, buf1 = 0xfffffffffffffffc, off = 0x10, n = 3
//   // checks: all                                (or: lenient, without the shared-memory
//   .version 8.7                                   //  initialization and race checks)
//   ...
#pragma once

#include <cinttypes>
#include <cstdio>
#include <ios>
#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "emu_case.hpp"

namespace ptx::fuzz {

inline std::string pointer_text(const PointerArg& p) {
  return p.buffer < 0 ? fmt::format("{:#x}", p.offset) : fmt::format("buffer {} + {:#x}", p.buffer, p.offset);
}

inline std::string case_text(const EmuCase& c) {
  const emu::LaunchConfig& l = c.config;
  std::string s = fmt::format(
      "// launch: grid {} {} {}, block {} {} {}, cluster {} {} {}, dynamic shared {}\n// buffers:", l.grid.x, l.grid.y,
      l.grid.z, l.block.x, l.block.y, l.block.z, l.cluster.x, l.cluster.y, l.cluster.z, l.dynamic_smem);
  for (size_t i = 0; i < c.buffers.size(); ++i)
    s += fmt::format("{} {}{}", i ? "," : "", c.buffers[i].bytes, c.buffers[i].freed ? " freed" : "");
  s += fmt::format("\n// arguments: buf0 = {}, buf1 = {}, off = {:#x}, n = {}\n// checks: {}\n", pointer_text(c.buf0),
                   pointer_text(c.buf1), c.off, c.n, c.lenient ? "lenient" : "all");
  return s + c.ptx;
}

inline bool read_pointer(std::string_view text, PointerArg& p) {
  const std::string t(text);
  if (std::sscanf(t.c_str(), "buffer %d + %" SCNx64, &p.buffer, &p.offset) == 2) return true;
  p.buffer = -1;
  return std::sscanf(t.c_str(), "%" SCNx64, &p.offset) == 1;
}

inline bool read_buffers(const std::string& line, EmuCase& c) {
  std::istringstream in(line.substr(line.find(':') + 1));
  std::string item;
  while (std::getline(in, item, ',')) {
    Buffer b;
    if (std::sscanf(item.c_str(), "%u", &b.bytes) != 1) return false;
    b.freed = item.find("freed") != std::string::npos;
    c.buffers.push_back(b);
  }
  return true;
}

inline bool read_arguments(const std::string& line, EmuCase& c) {
  const size_t b0 = line.find("buf0 = "), b1 = line.find(", buf1 = "), off = line.find(", off = "),
               n = line.find(", n = ");
  if (b0 == std::string::npos || b1 == std::string::npos || off == std::string::npos || n == std::string::npos)
    return false;
  return read_pointer(line.substr(b0 + 7, b1 - b0 - 7), c.buf0) &&
         read_pointer(line.substr(b1 + 9, off - b1 - 9), c.buf1) &&
         std::sscanf(line.c_str() + off, ", off = %" SCNx64 ", n = %u", &c.off, &c.n) == 2;
}

// The case case_text() wrote, or nothing when `text` does not start with its four lines.
inline std::optional<EmuCase> read_case(const std::string& text) {
  std::istringstream in(text);
  std::string launch, buffers, arguments, checks;
  if (!std::getline(in, launch) || !std::getline(in, buffers) || !std::getline(in, arguments) ||
      !std::getline(in, checks))
    return {};
  EmuCase c;
  emu::LaunchConfig& l = c.config;
  if (std::sscanf(launch.c_str(), "// launch: grid %u %u %u, block %u %u %u, cluster %u %u %u, dynamic shared %u",
                  &l.grid.x, &l.grid.y, &l.grid.z, &l.block.x, &l.block.y, &l.block.z, &l.cluster.x, &l.cluster.y,
                  &l.cluster.z, &l.dynamic_smem) != 10)
    return {};
  if (!buffers.starts_with("// buffers:") || !read_buffers(buffers, c) || !read_arguments(arguments, c)) return {};
  if (checks != "// checks: all" && checks != "// checks: lenient") return {};
  for (const PointerArg* p : {&c.buf0, &c.buf1})
    if (p->buffer >= static_cast<int>(c.buffers.size())) return {};
  c.lenient = checks.ends_with("lenient");
  const std::streamoff module_at = in.tellg();
  if (module_at < 0) return {};
  c.ptx = text.substr(static_cast<size_t>(module_at));
  const size_t target = c.ptx.find(".target ");
  if (target != std::string::npos)
    c.target = c.ptx.substr(target + 8, c.ptx.find_first_of(" \n,", target + 8) - target - 8);
  return c;
}

}  // namespace ptx::fuzz
