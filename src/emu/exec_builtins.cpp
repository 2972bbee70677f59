// The functions the emulator runs itself: vprintf, malloc, free, __assertfail.
#include <cstring>
#include <cstdio>
#include <iostream>
#include <mutex>

#include "runner.hpp"

namespace ptx::emu::engine {

// vprintf's text: `fmt_text` with the arguments at `ap` (packed, each aligned to its size).
std::string Runner::vprintf(Warp& w, int lane, const std::string& fmt_text, uint64_t ap) {
  auto next = [&](unsigned size) {
    ap = (ap + size - 1) / size * size;
    uint64_t v = 0;
    std::memcpy(&v, resolve(w, lane, Space::Generic, ap, size, false), size);
    ap += size;
    return v;
  };
  std::string out;
  for (size_t i = 0; i < fmt_text.size(); ++i) {
    if (fmt_text[i] != '%') {
      out += fmt_text[i];
      continue;
    }
    size_t j = i + 1;
    while (j < fmt_text.size() && std::strchr("-+ #0123456789.", fmt_text[j])) ++j;
    std::string length;
    while (j < fmt_text.size() && std::strchr("hlLzjt", fmt_text[j])) length += fmt_text[j++];
    if (j >= fmt_text.size()) break;
    const char conv = fmt_text[j];
    const std::string spec = fmt_text.substr(i, j - i - length.size());
    char buf[512];
    const bool wide = length == "l" || length == "ll" || length == "z" || length == "j" || length == "t";
    switch (conv) {
      case '%': out += '%'; break;
      case 'd': case 'i': {
        const int64_t v = wide ? static_cast<int64_t>(next(8)) : static_cast<int32_t>(next(4));
        std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), static_cast<long long>(v));
        out += buf;
        break;
      }
      case 'u': case 'x': case 'X': case 'o': case 'c': {
        const uint64_t v = wide ? next(8) : next(4);
        std::snprintf(buf, sizeof buf, (spec + (conv == 'c' ? "c" : std::string("ll") + conv)).c_str(),
                      conv == 'c' ? static_cast<int>(v) : static_cast<unsigned long long>(v));
        out += buf;
        break;
      }
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), std::bit_cast<double>(next(8)));
        out += buf;
        break;
      }
      case 's': out += c_string(w, lane, next(8)); break;
      case 'p':
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(next(8)));
        out += buf;
        break;
      default: out += fmt_text.substr(i, j - i + 1);
    }
    i = j;
  }
  return out;
}

void Runner::builtin(Warp& w, int lane, const FuncInfo& f, const DInst& in) {
  const Opnd& params = in.ops[2];
  const uint32_t nparams = params.kind == Opnd::Vec ? params.count : 0;
  if (nparams != f.params.size())
    fail(w, lane, fmt::format("call to {} with {} arguments; it has {} parameters", f.name, nparams, f.params.size()));
  std::vector<uint8_t>& stack = w.local[lane];
  auto arg = [&](uint32_t k) {
    const CallPlace a = call_place(p_.vec_slots[params.slot + k]);
    if (a.reg) return reg(w, a.at, lane);
    uint64_t v = 0;
    std::memcpy(&v, stack.data() + w.sp[lane] + a.at, std::min<uint32_t>(f.params[k].size, 8));
    return v;
  };
  uint64_t result = 0;
  switch (f.builtin) {
    case FuncInfo::Builtin::Vprintf: {  // vprintf(format, args): the arguments packed, each aligned to its size
      const std::string out = vprintf(w, lane, c_string(w, lane, arg(0)), arg(1));
      static std::mutex print_mu;
      std::lock_guard lock(print_mu);
      std::ostream& os = opt_.printf_output ? *opt_.printf_output : std::cout;
      os << out;
      os.flush();
      result = static_cast<uint64_t>(out.size());
      break;
    }
    case FuncInfo::Builtin::Malloc: {  // like the device heap: NULL when the request does not fit
      const uint64_t bytes = arg(0);
      static std::mutex heap_mu;
      std::lock_guard lock(heap_mu);
      if (bytes <= opt_.malloc_heap_bytes && heap_used_ + bytes <= opt_.malloc_heap_bytes) {
        heap_used_ += bytes;
        result = mem_.alloc(bytes, "malloc");
      }
      break;
    }
    case FuncInfo::Builtin::Free:
      if (arg(0)) {
        try {
          mem_.free(arg(0));
        } catch (const Error&) {
          fail(w, lane, fmt::format("free({:#x}): not a live allocation", arg(0)));
        }
      }
      break;
    case FuncInfo::Builtin::AssertFail:
      fail(w, lane, fmt::format("assertion failed: {} ({}:{} in {})", c_string(w, lane, arg(0)), c_string(w, lane, arg(1)),
                                static_cast<uint32_t>(arg(2)), c_string(w, lane, arg(3))));
    case FuncInfo::Builtin::None: break;
  }
  if (!f.results.empty() && in.ops[0].kind == Opnd::Vec && in.ops[0].count) {
    const CallPlace dst = call_place(p_.vec_slots[in.ops[0].slot]);
    if (dst.reg)
      reg(w, dst.at, lane) = result;
    else
      std::memcpy(stack.data() + w.sp[lane] + dst.at, &result, std::min<uint32_t>(f.results[0].size, 8));
  }
}

}  // namespace ptx::emu::engine
