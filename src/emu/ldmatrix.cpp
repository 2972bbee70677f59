// ldmatrix and stmatrix (PTX ISA 9.7.14.5.15-16).
//
// Every form moves matrices whose shared-memory rows are 16 bytes, one row address per lane:
// lanes R i .. R i + R - 1 give the R rows of matrix i (R = 16 for m16n16, else 8). Register
// j of a lane (j / per-matrix registers: the matrix) holds, with g = lane / 4, t = lane % 4:
//   m8n8 .b16:          row g, 16-bit columns 2t, 2t + 1;
//   m8n16 (8 x 16):     row g, 8-bit columns 4t .. 4t + 3;
//   m16n16 (16 x 16):   two registers, rows g and g + 8, columns 4t .. 4t + 3;
//   stmatrix m16n8:     bytes e0 e1 row g, e2 e3 row g + 8, columns 2t, 2t + 1 (mma's C/D layout);
// of the matrix the registers hold, which with .trans is the transpose of the one in memory
// (mandatory for m16n16 and stmatrix m16n8). The .b6x16_p32 / .b4x16_p64 rows hold 16 packed
// 6- or 4-bit elements (element j at bits w j .. w j + w - 1 of the row, little-endian, the
// padding above them); each is widened into the low bits of its byte, the rest zero. The
// register layouts of the new shapes and the packing are this emulator's reading of the
// manual's text (its figures are not in the text), not yet compared with a GPU.
#include "ldmatrix.hpp"
#include "vocab_util.hpp"

#include <fmt/format.h>

#include <cstring>

namespace ptx::emu {

using spec::Mod;
using spec::Opcode;

namespace {

struct Cell {
  int row, col;
};

bool m8n8(const DInst& in) { return in.mma_m == 8 && in.mma_n == 8; }
unsigned regs_per_matrix(const DInst& in) { return in.mma_m == 16 && in.mma_n == 16 ? 2 : 1; }
int rows_per_matrix(const DInst& in) { return in.mma_m == 16 && in.mma_n == 16 ? 16 : 8; }
unsigned element_bits(const DInst& in) { return m8n8(in) ? 16 : 8; }

// Where element e of register r (of one matrix) of `lane` sits in the matrix the registers hold.
Cell fragment_cell(const DInst& in, int lane, int r, int e) {
  const int g = lane / 4, t = lane % 4;
  if (m8n8(in)) return {g, 2 * t + e};
  if (in.mma_m == 8) return {g, 4 * t + e};                           // m8n16
  if (in.mma_n == 16) return {g + 8 * r, 4 * t + e};                  // m16n16
  return {g + 8 * (e / 2), 2 * t + e % 2};                            // stmatrix m16n8
}

// The 16 bytes of a row as its elements (8 of 16 bits, or 16 of 8 bits or packed 6 / 4 bits).
void unpack_row(const uint8_t* bytes, uint8_t source, unsigned bits, uint16_t* cells) {
  if (source == kRowPlain) {
    for (unsigned c = 0; c < 128 / bits; ++c)
      cells[c] = bits == 16 ? static_cast<uint16_t>(bytes[2 * c] | bytes[2 * c + 1] << 8) : bytes[c];
    return;
  }
  const unsigned width = source == kRowB6x16P32 ? 6 : 4;
  for (unsigned j = 0; j < 16; ++j) {
    const unsigned bit = width * j;  // at most 90: the two bytes read are inside the row
    const unsigned pair = bytes[bit / 8] | static_cast<unsigned>(bytes[bit / 8 + 1]) << 8;
    cells[j] = static_cast<uint16_t>((pair >> (bit % 8)) & ((1u << width) - 1));
  }
}

void pack_row(const uint16_t* cells, unsigned bits, uint8_t (&bytes)[16]) {  // stmatrix: .b16 or .b8
  for (unsigned c = 0; c < 16; ++c) bytes[c] = static_cast<uint8_t>(bits == 16 ? cells[c / 2] >> (8 * (c % 2)) : cells[c]);
}

}  // namespace

std::optional<LdmatrixDecodeError> ldmatrix_decode(DInst& d, std::span<const Mod> mods) {
  const bool store = d.op == Opc::Stmatrix;
  const char* op = store ? "stmatrix" : "ldmatrix";
  auto bad = [](std::string what) { return LdmatrixDecodeError{false, std::move(what)}; };
  bool b16 = false, b8 = false, b8x16 = false, count = false;
  d.mma_m = d.mma_n = 0;
  d.sub = kRowPlain;
  for (Mod mo : mods) {
    if (mo == Mod::sync || mo == Mod::aligned) continue;
    if (mo == Mod::trans) d.flags |= kTrans;
    else if (mo == Mod::x1 || mo == Mod::x2 || mo == Mod::x4) d.vec = mo == Mod::x1 ? 1 : mo == Mod::x2 ? 2 : 4, count = true;
    else if (mo == Mod::shared || mo == Mod::shared_cta) d.space = Space::Shared;
    else if (mo == Mod::m8n8) d.mma_m = 8, d.mma_n = 8;
    else if (mo == Mod::m16n16 && !store) d.mma_m = 16, d.mma_n = 16;
    else if (mo == Mod::m8n16 && !store) d.mma_m = 8, d.mma_n = 16;
    else if (mo == Mod::m16n8 && store) d.mma_m = 16, d.mma_n = 8;
    else if (mo == Mod::b16) b16 = true;
    else if (mo == Mod::b8) b8 = true;
    else if (mo == Mod::b8x16 && !store) b8x16 = true;
    else if (mo == Mod::b6x16_p32 && !store) d.sub = kRowB6x16P32;
    else if (mo == Mod::b4x16_p64 && !store) d.sub = kRowB4x16P64;
    else return LdmatrixDecodeError{true, fmt::format("the modifier {} of {}", mo, op)};
  }
  const bool trans = d.flags & kTrans, packed = d.sub != kRowPlain;
  if (d.mma_m == 0 || !count)
    return bad(fmt::format("{} needs a shape ({}) and a matrix count (.x1/.x2/.x4)", op,
                           store ? ".m8n8 or .m16n8" : ".m8n8, .m8n16 or .m16n16"));
  if (b8x16 != packed) return bad(fmt::format("{}: .b8x16 goes with a source format .b6x16_p32 or .b4x16_p64, and only with one", op));
  const std::string shape = fmt::format("{}.m{}n{}", op, d.mma_m, d.mma_n);
  if (m8n8(d)) {
    if (!b16 || b8 || packed) return bad(fmt::format("{} moves .b16 elements only", shape));
    return std::nullopt;
  }
  if (!trans && !(d.mma_m == 8 && d.mma_n == 16)) return bad(fmt::format("{} needs .trans (the manual makes it mandatory)", shape));
  if (d.mma_m == 16 && d.mma_n == 16 && d.vec == 4) return bad(fmt::format("{} moves one or two matrices (.x1/.x2), not .x4", shape));
  if (d.mma_n == 16 && d.mma_m == 8) {  // m8n16: packed 6- or 4-bit rows only, never transposed
    if (trans) return bad(fmt::format("{} takes no .trans", shape));
    if (!packed || b16 || b8) return bad(fmt::format("{} loads .b8x16 from .b6x16_p32 or .b4x16_p64 rows only", shape));
    return std::nullopt;
  }
  if (b16 || b8 == packed) return bad(fmt::format("{} moves .b8 elements{}", shape, store ? " only" : " (or .b8x16 from packed rows)"));
  return std::nullopt;
}

void ldmatrix_execute(const Program& p, const DInst& in, LdmatrixWarp& w, bool store) {
  const char* op = store ? "stmatrix" : "ldmatrix";
  const Opnd& r = store ? in.ops[1] : in.ops[0];
  const unsigned per = regs_per_matrix(in), regs = in.vec * per;
  bool regs_ok = r.kind == Opnd::Vec ? r.count == regs : r.kind == Opnd::Reg && regs == 1;
  for (uint32_t i = 0; regs_ok && r.kind == Opnd::Vec && i < r.count; ++i) regs_ok = p.vec_slots[r.slot + i] != kNoSlot;
  if (!regs_ok)
    w.fail(0, fmt::format("{}{}.x{} needs {} register{} ({} .b32 per matrix)", op,
                          m8n8(in) ? std::string() : fmt::format(".m{}n{}", in.mma_m, in.mma_n), in.vec, regs, regs == 1 ? "" : "s",
                          per == 1 ? "one" : "two"));
  const bool trans = in.flags & kTrans;
  const unsigned bits = element_bits(in), per_reg = 32 / bits;
  const int rows = rows_per_matrix(in);
  for (unsigned mat = 0; mat < in.vec; ++mat) {
    uint16_t cells[16][16] = {};
    if (!store)
      for (int row = 0; row < rows; ++row) unpack_row(w.row(static_cast<int>(mat) * rows + row, false), in.sub, bits, cells[row]);
    for (int l = 0; l < 32; ++l)
      for (unsigned j = 0; j < per; ++j) {
        const unsigned index = mat * per + j;
        const uint32_t slot = r.kind == Opnd::Vec ? p.vec_slots[r.slot + index] : r.slot;
        uint64_t v = store ? w.reg(slot, l) : 0;
        for (unsigned e = 0; e < per_reg; ++e) {
          const Cell c = fragment_cell(in, l, static_cast<int>(j), static_cast<int>(e));
          uint16_t& cell = trans ? cells[c.col][c.row] : cells[c.row][c.col];
          if (store) cell = static_cast<uint16_t>((v >> (e * bits)) & ((1u << bits) - 1));
          else v |= static_cast<uint64_t>(cell) << (e * bits);
        }
        if (!store) w.reg(slot, l) = v;
      }
    for (int row = 0; store && row < rows; ++row) {  // the bytes first: the race check takes a row of the same bytes twice
      uint8_t bytes[16];
      pack_row(cells[row], bits, bytes);
      std::memcpy(w.row(static_cast<int>(mat) * rows + row, true, bytes), bytes, sizeof bytes);
    }
  }
}

}  // namespace ptx::emu
