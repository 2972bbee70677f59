// Video instructions, following the ISA manual's pseudocode (9.7.18): sources are extracted and
// sign- or zero-extended, the operation runs on wide intermediates, then saturation, the
// secondary operation and the merge.
#include "video.hpp"
#include "vocab_util.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;
namespace {

__extension__ typedef __int128 Int128;  // vmad's intermediate is wider than 64 bits

int64_t extend(uint32_t bits, unsigned width, bool is_signed) {
  const uint64_t mask = width >= 32 ? 0xFFFFFFFFull : (uint64_t{1} << width) - 1;
  const uint64_t v = bits & mask;
  if (is_signed && (v >> (width - 1) & 1)) return static_cast<int64_t>(v) - static_cast<int64_t>(mask) - 1;
  return static_cast<int64_t>(v);
}

// The scalar source part: the whole word, byte .b0-.b3 (1-4) or half-word .h0/.h1 (5-6).
int64_t scalar_part(uint32_t x, uint16_t sel, bool is_signed) {
  if (sel == 0) return extend(x, 32, is_signed);
  if (sel <= 4) return extend(x >> (8 * (sel - 1)), 8, is_signed);
  return extend(x >> (16 * (sel - 5)), 16, is_signed);
}

int64_t clamp_to(int64_t v, unsigned width, bool is_signed) {
  const int64_t lo = is_signed ? -(int64_t{1} << (width - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (width - 1)) - 1 : (int64_t{1} << width) - 1;
  return std::clamp(v, lo, hi);
}

int64_t apply(VideoOp op, VideoCmp cmp, int64_t a, int64_t b) {
  switch (op) {
    case VideoOp::Add: return a + b;
    case VideoOp::Sub: return a - b;
    case VideoOp::Absdiff: return a > b ? a - b : b - a;
    case VideoOp::Min: return std::min(a, b);
    case VideoOp::Max: return std::max(a, b);
    case VideoOp::Avrg: return a + b >= 0 ? (a + b + 1) >> 1 : (a + b) >> 1;
    case VideoOp::Shl:
    case VideoOp::Shr:
    case VideoOp::Mad: return 0;  // scalar() and mad() run these
    case VideoOp::Set:
      switch (cmp) {
        case VideoCmp::Eq: return a == b;
        case VideoCmp::Ne: return a != b;
        case VideoCmp::Lt: return a < b;
        case VideoCmp::Le: return a <= b;
        case VideoCmp::Gt: return a > b;
        case VideoCmp::Ge: return a >= b;
      }
  }
  return 0;
}

// vmad: the 64-bit product plus c, negated as the manual's two's-complement steps say, scaled,
// and clamped to the final signedness with .sat.
uint32_t mad(const VideoInst& v, uint32_t a, uint32_t b, uint32_t c) {
  const Int128 ta = scalar_part(a, v.asel, v.a_signed), tb = scalar_part(b, v.bsel, v.b_signed);
  const bool final_signed = v.a_signed || v.b_signed || v.neg_product || v.neg_c;
  Int128 t = ta * tb;
  int lsb = 0;
  uint32_t cc = c;
  if (v.plus_one) lsb = 1;
  else if (v.neg_product) t = ~t, lsb = 1;
  else if (v.neg_c) cc = ~cc, lsb = 1;
  const Int128 wc = final_signed ? static_cast<Int128>(static_cast<int32_t>(cc)) : static_cast<Int128>(cc);
  t = t + wc + lsb;
  const uint64_t r = static_cast<uint64_t>(t >> v.scale);  // the low 64 bits, signed or not as the result is
  if (!v.sat) return static_cast<uint32_t>(r);
  if (final_signed) return static_cast<uint32_t>(clamp_to(static_cast<int64_t>(r), 32, true));
  return static_cast<uint32_t>(std::min<uint64_t>(r, 0xFFFFFFFFull));
}

uint32_t scalar(const VideoInst& v, uint32_t a, uint32_t b, uint32_t c) {
  if (v.op == VideoOp::Mad) return mad(v, a, b, c);
  const bool set = v.op == VideoOp::Set;
  int64_t t;
  if (v.op == VideoOp::Shl || v.op == VideoOp::Shr) {  // b is .u32; .clamp to 32, .wrap to 0-31
    const int64_t ta = scalar_part(a, v.asel, v.a_signed);
    int64_t tb = scalar_part(b, v.bsel, false);
    tb = v.clamp_shift ? std::min<int64_t>(tb, 32) : tb & 0x1F;
    t = v.op == VideoOp::Shl ? static_cast<int64_t>(static_cast<uint64_t>(ta) << tb) : ta >> tb;
  } else {
    t = apply(v.op, v.cmp, scalar_part(a, v.asel, v.a_signed), scalar_part(b, v.bsel, v.b_signed));
  }
  if (v.sat && !set) {  // to the destination's type, or to the merged part's size
    const unsigned width = v.dsel == 0 ? 32 : v.dsel <= 4 ? 8 : 16;
    t = clamp_to(t, width, v.d_signed);
  }
  const int64_t wc = extend(c, 32, v.d_signed && !set);
  switch (v.second) {
    case VideoSecond::Add: t += wc; break;
    case VideoSecond::Min: t = std::min(t, wc); break;
    case VideoSecond::Max: t = std::max(t, wc); break;
    case VideoSecond::None: break;
  }
  const uint32_t r = static_cast<uint32_t>(t);
  if (v.dsel == 0) return r;
  const unsigned width = v.dsel <= 4 ? 8 : 16, shift = width * (v.dsel <= 4 ? v.dsel - 1u : v.dsel - 5u);
  const uint32_t field = (width == 8 ? 0xFFu : 0xFFFFu) << shift;
  return ((r << shift) & field) | (c & ~field);
}

uint32_t simd(const VideoInst& v, uint32_t a, uint32_t b, uint32_t c) {
  const unsigned width = 32 / v.lanes;
  const uint64_t pool = uint64_t{b} << 32 | a;
  auto element = [&](uint16_t sel, unsigned i, bool is_signed) {
    const unsigned src = sel >> (4 * i) & 0xF;
    return extend(static_cast<uint32_t>(pool >> (width * src)), width, is_signed);
  };
  uint32_t merged = 0;
  int64_t acc = static_cast<int64_t>(c);
  for (unsigned i = 0; i < v.lanes; ++i) {
    int64_t t = apply(v.op, v.cmp, element(v.asel, i, v.a_signed), element(v.bsel, i, v.b_signed));
    if (v.sat && v.op != VideoOp::Set) t = clamp_to(t, width, v.d_signed);
    const bool on = v.dsel >> i & 1;
    const uint32_t field_mask = width == 16 ? 0xFFFFu : 0xFFu;
    if (v.second == VideoSecond::Add) {
      if (on) acc += t;
    } else {
      merged |= ((on ? static_cast<uint32_t>(t) : c >> (width * i)) & field_mask) << (width * i);
    }
  }
  return v.second == VideoSecond::Add ? static_cast<uint32_t>(acc) : merged;
}

bool digits(std::string_view s, unsigned max, uint16_t& out) {
  out = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] < '0' || static_cast<unsigned>(s[i] - '0') > max) return false;
    out |= static_cast<uint16_t>((s[i] - '0') << (4 * (s.size() - 1 - i)));  // the last digit is element 0
  }
  return !s.empty();
}

}  // namespace

namespace {

// The operation and its element count (1: the scalar forms; 2 and 4: the SIMD forms).
struct VideoOpcode {
  Opcode opcode;
  VideoOp op;
  unsigned lanes;
};
constexpr VideoOpcode kVideoOpcodes[] = {
    {Opcode::vadd, VideoOp::Add, 1},      {Opcode::vsub, VideoOp::Sub, 1},       {Opcode::vabsdiff, VideoOp::Absdiff, 1},
    {Opcode::vmin, VideoOp::Min, 1},      {Opcode::vmax, VideoOp::Max, 1},       {Opcode::vset, VideoOp::Set, 1},
    {Opcode::vshl, VideoOp::Shl, 1},      {Opcode::vshr, VideoOp::Shr, 1},       {Opcode::vmad, VideoOp::Mad, 1},
    {Opcode::vadd2, VideoOp::Add, 2},     {Opcode::vsub2, VideoOp::Sub, 2},      {Opcode::vavrg2, VideoOp::Avrg, 2},
    {Opcode::vabsdiff2, VideoOp::Absdiff, 2}, {Opcode::vmin2, VideoOp::Min, 2},  {Opcode::vmax2, VideoOp::Max, 2},
    {Opcode::vset2, VideoOp::Set, 2},     {Opcode::vadd4, VideoOp::Add, 4},      {Opcode::vsub4, VideoOp::Sub, 4},
    {Opcode::vavrg4, VideoOp::Avrg, 4},   {Opcode::vabsdiff4, VideoOp::Absdiff, 4}, {Opcode::vmin4, VideoOp::Min, 4},
    {Opcode::vmax4, VideoOp::Max, 4},     {Opcode::vset4, VideoOp::Set, 4}};

}  // namespace

std::optional<std::string> video_decode(Opcode op, std::span<const Mod> mods, VideoInst& v) {
  const auto* it = std::find_if(std::begin(kVideoOpcodes), std::end(kVideoOpcodes), [op](const VideoOpcode& o) { return o.opcode == op; });
  if (it == std::end(kVideoOpcodes)) return fmt::format("the video instruction {}", op);
  v.lanes = it->lanes;
  v.op = it->op;
  if (v.lanes > 1) {  // defaults: a's low elements, b's, every result element
    v.asel = v.lanes == 2 ? 0x10 : 0x3210;
    v.bsel = v.lanes == 2 ? 0x32 : 0x7654;
    v.dsel = v.lanes == 2 ? 0x3 : 0xF;
  }
  static constexpr std::pair<Mod, VideoCmp> kCmps[] = {{Mod::eq, VideoCmp::Eq}, {Mod::ne, VideoCmp::Ne}, {Mod::lt, VideoCmp::Lt},
                                                        {Mod::le, VideoCmp::Le}, {Mod::gt, VideoCmp::Gt}, {Mod::ge, VideoCmp::Ge}};
  int types = 0;
  const bool has_d_type = v.op != VideoOp::Set;
  for (Mod m : mods) {
    if (m == Mod::u32 || m == Mod::s32) {
      const bool s = m == Mod::s32;
      const int slot = has_d_type ? types : types + 1;  // vset has no destination type: d is .u32
      (slot == 0 ? v.d_signed : slot == 1 ? v.a_signed : v.b_signed) = s;
      ++types;
    } else if (m == Mod::sat) {
      v.sat = true;
    } else if ((m == Mod::clamp || m == Mod::wrap) && (v.op == VideoOp::Shl || v.op == VideoOp::Shr)) {
      v.clamp_shift = m == Mod::clamp;
    } else if ((m == Mod::shr7 || m == Mod::shr15) && v.op == VideoOp::Mad) {
      v.scale = m == Mod::shr7 ? 7 : 15;
    } else if (m == Mod::po && v.op == VideoOp::Mad) {
      v.plus_one = true;
    } else if (m == Mod::add) {
      v.second = VideoSecond::Add;
    } else if ((m == Mod::min || m == Mod::max) && v.lanes == 1) {
      v.second = m == Mod::min ? VideoSecond::Min : VideoSecond::Max;
    } else if (const auto* c = find_in(kCmps, m); c && v.op == VideoOp::Set) {
      v.cmp = c->second;
    } else {
      return fmt::format("the modifier {} of {}", m, op);
    }
  }
  if (types != (has_d_type ? 3 : 2)) return fmt::format("{} without its {} types", op, has_d_type ? 3 : 2);
  return std::nullopt;
}

bool video_selector(VideoInst& v, std::string_view sel, int operand) {
  if (sel.empty()) return false;
  const char kind = sel[0];
  const std::string_view num = sel.substr(1);
  if (v.lanes == 1) {
    uint16_t part = 0;
    if (kind == 'b' && num.size() == 1 && num[0] >= '0' && num[0] <= '3') part = static_cast<uint16_t>(1 + num[0] - '0');
    else if (kind == 'h' && num.size() == 1 && (num[0] == '0' || num[0] == '1')) part = static_cast<uint16_t>(5 + num[0] - '0');
    else return false;
    if (operand == 0) v.dsel = static_cast<uint8_t>(part);
    else if (operand == 1) v.asel = part;
    else if (operand == 2) v.bsel = part;
    else return false;
    return true;
  }
  const char want = v.lanes == 2 ? 'h' : 'b';
  if (kind != want) return false;
  uint16_t value = 0;
  if (operand == 0) {  // the mask: which result elements are written
    uint8_t mask = 0;
    for (char ch : num) {
      if (ch < '0' || static_cast<unsigned>(ch - '0') >= v.lanes) return false;
      mask = static_cast<uint8_t>(mask | 1u << (ch - '0'));
    }
    if (num.empty()) return false;
    v.dsel = mask;
    return true;
  }
  if (num.size() != v.lanes || !digits(num, 2 * v.lanes - 1, value)) return false;
  (operand == 1 ? v.asel : v.bsel) = value;
  return operand <= 2;
}

uint32_t video_execute(const VideoInst& v, uint32_t a, uint32_t b, uint32_t c) {
  return v.lanes == 1 ? scalar(v, a, b, c) : simd(v, a, b, c);
}

}  // namespace ptx::emu
