#include "ptxpp/text/number_literal.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>

namespace ptx::text {

using ir::ExprKind;
using ir::Notation;

namespace {

bool is_ident_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Accumulates digits of `radix` (a power of two or ten) with overflow detection.
bool accumulate(std::string_view digits, unsigned radix, uint64_t& value, bool& upper, bool& lower) {
  value = 0;
  for (char c : digits) {
    const int d = hex_value(c);
    if (d < 0 || static_cast<unsigned>(d) >= radix) return false;
    if (c >= 'a' && c <= 'f') lower = true;
    if (c >= 'A' && c <= 'F') upper = true;
    if (value > (std::numeric_limits<uint64_t>::max() - static_cast<unsigned>(d)) / radix) return false;
    value = value * radix + static_cast<unsigned>(d);
  }
  return true;
}

}  // namespace

size_t scan_number(std::string_view s, NumberLiteral& out, const char*& error) {
  out = NumberLiteral{};
  // Fast path for the common case: a short plain decimal (0, 4, 128) that ends
  // at a character which cannot continue a literal.
  if (s[0] != '0' || s.size() == 1 || !(is_ident_char(s[1]) || s[1] == '.')) {
    size_t i = 0;
    uint64_t v = 0;
    while (i < s.size() && i < 18 && s[i] >= '0' && s[i] <= '9') v = v * 10 + static_cast<unsigned>(s[i++] - '0');
    if (i == s.size() || (!is_ident_char(s[i]) && s[i] != '.')) {
      out.value = v;
      out.digits = static_cast<uint32_t>(i);
      return i;
    }
    out = NumberLiteral{};
  }
  size_t i = 0;
  const size_t n = s.size();
  auto digits_while = [&](auto pred) {
    size_t start = i;
    while (i < n && pred(s[i])) ++i;
    return s.substr(start, i - start);
  };
  auto finish_int_suffix = [&]() {
    if (i < n && (s[i] == 'U' || s[i] == 'u')) {
      out.flags |= ir::kUnsigned;
      if (s[i] == 'u') out.spelled = true;
      ++i;
    }
  };
  const char c1 = n > 1 ? s[1] : '\0';
  if (s[0] == '0' && (c1 == 'x' || c1 == 'X' || c1 == 'b' || c1 == 'B')) {
    const bool hex = c1 == 'x' || c1 == 'X';
    if (c1 == 'X' || c1 == 'B') out.flags |= ir::kUpperPrefix;
    i = 2;
    auto d = digits_while([&](char c) { return hex ? hex_value(c) >= 0 : (c == '0' || c == '1'); });
    if (d.empty()) {
      error = hex ? "hexadecimal literal needs at least one digit" : "binary literal needs at least one digit";
      return 0;
    }
    bool upper = false, lower = false;
    if (!accumulate(d, hex ? 16 : 2, out.value, upper, lower)) {
      error = "integer literal does not fit in 64 bits";
      return 0;
    }
    if (upper) out.flags |= ir::kUpperDigits;
    if (upper && lower) out.spelled = true;
    out.notation = hex ? Notation::Hex : Notation::Bin;
    out.digits = static_cast<uint32_t>(d.size());
    finish_int_suffix();
  } else if (s[0] == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
    const bool f32 = c1 == 'f' || c1 == 'F';
    if (c1 == 'F' || c1 == 'D') out.flags |= ir::kUpperPrefix;
    i = 2;
    auto d = digits_while([](char c) { return hex_value(c) >= 0; });
    const size_t want = f32 ? 8 : 16;
    if (d.size() != want) {
      error = f32 ? "0f literal needs exactly 8 hexadecimal digits" : "0d literal needs exactly 16 hexadecimal digits";
      return 0;
    }
    bool upper = false, lower = false;
    accumulate(d, 16, out.value, upper, lower);
    if (upper) out.flags |= ir::kUpperDigits;
    if (upper && lower) out.spelled = true;
    out.kind = ExprKind::Float;
    out.notation = f32 ? Notation::F32Hex : Notation::F64Hex;
    out.digits = static_cast<uint32_t>(want);
  } else {
    auto d = digits_while([](char c) { return c >= '0' && c <= '9'; });
    bool is_float = false;
    if (i < n && s[i] == '.') {
      is_float = true;
      ++i;
      digits_while([](char c) { return c >= '0' && c <= '9'; });
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
      size_t j = i + 1;
      if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
      if (j < n && s[j] >= '0' && s[j] <= '9') {
        is_float = true;
        i = j;
        digits_while([](char c) { return c >= '0' && c <= '9'; });
      } else if (is_float) {
        error = "exponent needs digits";
        return 0;
      }
    }
    if (is_float) {
      double v = 0;
      auto res = std::from_chars(s.data(), s.data() + i, v);
      if (res.ec == std::errc::result_out_of_range) {
        error = "floating-point literal is out of range";
        return 0;
      }
      if (res.ec != std::errc{} || res.ptr != s.data() + i) {
        error = "malformed floating-point literal";
        return 0;
      }
      out.kind = ExprKind::Float;
      out.notation = Notation::Spelled;
      out.spelled = true;
      out.value = std::bit_cast<uint64_t>(v);
    } else {
      bool upper = false, lower = false;
      if (d.size() > 1 && d[0] == '0') {
        if (!accumulate(d.substr(1), 8, out.value, upper, lower)) {
          error = d.find_first_of("89") != std::string_view::npos ? "invalid digit in octal literal"
                                                                   : "integer literal does not fit in 64 bits";
          return 0;
        }
        out.notation = Notation::Oct;
        out.digits = static_cast<uint32_t>(d.size() - 1);
      } else {
        if (!accumulate(d, 10, out.value, upper, lower)) {
          error = "integer literal does not fit in 64 bits";
          return 0;
        }
        out.notation = Notation::Dec;
        out.digits = static_cast<uint32_t>(d.size());
      }
      finish_int_suffix();
    }
  }
  // format_number pads to at most kMaxPaddedDigits; longer runs of leading zeros are kept as written.
  if (out.digits > kMaxPaddedDigits) out.spelled = true;
  if (i < n && (is_ident_char(s[i]) || (s[i] == '.' && out.kind == ExprKind::Int && out.notation != Notation::Dec))) {
    error = "invalid character in numeric literal";
    return 0;
  }
  return i;
}

size_t format_number(char* buf, Notation notation, uint16_t flags, uint32_t digits, uint64_t value) {
  char* out = buf;
  // Digits are capped so a corrupt digit count cannot overflow the buffer.
  digits = std::min<uint32_t>(digits, kMaxPaddedDigits);
  auto put_digits = [&](std::string_view prefix, int base, bool upper) {
    for (char c : prefix) *out++ = c;
    char tmp[66];
    auto res = std::to_chars(tmp, tmp + sizeof tmp, value, base);
    const auto len = static_cast<uint32_t>(res.ptr - tmp);
    for (uint32_t k = len; k < digits; ++k) *out++ = '0';
    for (char* p = tmp; p < res.ptr; ++p) *out++ = (upper && *p >= 'a' && *p <= 'f') ? static_cast<char>(*p - 'a' + 'A') : *p;
  };
  const bool up_prefix = flags & ir::kUpperPrefix;
  const bool up_digits = flags & ir::kUpperDigits;
  switch (notation) {
    case Notation::Dec:  // never zero-padded: a leading 0 would make it octal
      digits = 0;
      put_digits("", 10, false);
      break;
    case Notation::Hex: put_digits(up_prefix ? "0X" : "0x", 16, up_digits); break;
    case Notation::Oct: put_digits("0", 8, false); break;
    case Notation::Bin: put_digits(up_prefix ? "0B" : "0b", 2, false); break;
    case Notation::F32Hex:
      digits = 8;
      value &= 0xFFFFFFFFu;
      put_digits(up_prefix ? "0F" : "0f", 16, up_digits);
      return static_cast<size_t>(out - buf);
    case Notation::F64Hex:
      digits = 16;
      put_digits(up_prefix ? "0D" : "0d", 16, up_digits);
      return static_cast<size_t>(out - buf);
    case Notation::Spelled: return 0;  // the caller prints the spelling
  }
  if (flags & ir::kUnsigned) *out++ = 'U';
  return static_cast<size_t>(out - buf);
}

void append_number(std::string& out, Notation notation, uint16_t flags, uint32_t digits, uint64_t value) {
  char buf[kMaxNumberLength];
  out.append(buf, format_number(buf, notation, flags, digits, value));
}

}  // namespace ptx::text
