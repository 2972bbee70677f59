// Video instructions (9.7.18): the scalar vadd/vsub/vabsdiff/vmin/vmax/vset on selected bytes
// or half-words with optional saturation, secondary operation or data merge, and the SIMD
// vadd2..vmax2/vset2 (two half-words) and vadd4..vmax4/vset4 (four bytes) forms.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ptxpp/spec/vocab.hpp"

namespace ptx::emu {

enum class VideoOp : uint8_t { Add, Sub, Absdiff, Min, Max, Avrg, Set, Shl, Shr, Mad };
enum class VideoSecond : uint8_t { None, Add, Min, Max };
enum class VideoCmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// One decoded video instruction. Selectors: for the scalar forms 0 (the whole word), 1-4 (.b0 to
// .b3), 5-6 (.h0, .h1); for the SIMD forms the source element of each result element, one
// nibble per element (element 0 lowest), indexing the half-words (or bytes) of {b, a}.
struct VideoInst {
  VideoOp op = VideoOp::Add;
  unsigned lanes = 1;  // 1 scalar, 2 half-words, 4 bytes
  bool d_signed = false, a_signed = false, b_signed = false, sat = false;
  VideoSecond second = VideoSecond::None;  // scalar .op2; SIMD .add (accumulate)
  VideoCmp cmp = VideoCmp::Eq;
  uint16_t asel = 0, bsel = 0;
  uint8_t dsel = 0;   // scalar: the merged part (0: none); SIMD: the mask of result elements
  bool has_c = false;
  bool clamp_shift = false;            // vshl/vshr .clamp (else .wrap)
  bool neg_product = false, neg_c = false, plus_one = false;  // vmad: -a or -b, -c, .po
  uint8_t scale = 0;                   // vmad .shr7 / .shr15: 7, 15
};

// Parses the modifiers of `op` (vadd, ..., vset4) into `v`; an error message for what is not a
// video instruction the emulator knows.
std::optional<std::string> video_decode(spec::Opcode op, std::span<const spec::Mod> mods, VideoInst& v);
// Parses an operand's selector (the part after the register name: "h10", "b3210", "b1"); false
// if it is not one for that operand of this instruction. `dest`: the d operand (mask or dsel).
bool video_selector(VideoInst& v, std::string_view sel, int operand);
// d for the 32-bit sources a, b and c.
uint32_t video_execute(const VideoInst& v, uint32_t a, uint32_t b, uint32_t c);

}  // namespace ptx::emu
