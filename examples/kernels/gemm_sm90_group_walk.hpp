// The tile walk of the persistent grouped GEMMs for Hopper (gemm_sm90_grouped.hpp,
// gemm_sm90_grouped_contiguous.hpp): G groups, group g of M_g rows has ceil(M_g / 128) x
// n_tiles tiles of 128 x 256. Tiles are numbered group after group, M fastest inside a group
// (CTAs running at the same time share the group's N tile of B), and CTA c takes tiles c,
// c + nctaid, ... Where M_g comes from is the kernel's: `enter(g, rows)` emits the
// instructions that set `rows` to M_g when the walk enters group g (< G). The producer and
// the consumers each run a walk of their own: the same instructions, so the same tiles.
//
//   sm90::GroupWalk w(G, tn, enter);        // t = %ctaid.x, before the first group
//   ptx::while_([&] { return w.to_tile(); }, [&] {
//     auto [m0, n0] = w.tile_origin();      // the tile's first row in the group, first column
//     ...
//     w.advance(nct);
//   });
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include <ptxpp/dsl.hpp>

namespace examples::sm90 {

class GroupWalk {
 public:
  using EnterGroup = std::function<void(const ptx::Reg& g, ptx::Reg& rows)>;

  // t = %ctaid.x; g = 0xffffffff (the group before the first); start = end = rows =
  // m_tiles = 0: six instructions.
  GroupWalk(int64_t groups, int64_t n_tiles, EnterGroup enter)
      : groups_(static_cast<uint32_t>(groups)),
        n_tiles_(static_cast<uint32_t>(n_tiles)),
        enter_(std::move(enter)),
        t_(ptx::read(ptx::special::ctaid.x(), ptx::types::u32)),
        g_(ptx::types::u32),
        start_(ptx::types::u32),
        end_(ptx::types::u32),
        rows_(ptx::types::u32),
        m_tiles_(ptx::types::u32) {
    namespace inst = ptx::inst;
    inst::mov.u32(g_, 0xffffffffu);
    inst::mov.u32(start_, 0u);
    inst::mov.u32(end_, 0u);
    inst::mov.u32(rows_, 0u);
    inst::mov.u32(m_tiles_, 0u);
  }

  // A loop over the groups whose tiles end at or before t (groups without rows included):
  // g + 1, then enter(g, rows), m_tiles = (rows + 127) >> 7, [start, end) its tiles; past
  // the last group end = 0xffffffff stops it. Returns the predicate g < G (t has a tile).
  ptx::Reg to_tile() {
    namespace inst = ptx::inst;
    ptx::while_([&] { return t_ >= end_; },
                [&] {
                  g_ += 1u;
                  ptx::Reg more = g_ < groups_;
                  ptx::if_(
                      more,
                      [&] {
                        enter_(g_, rows_);
                        ptx::Reg m127 = rows_ + 127u;
                        m_tiles_ = m127 >> 7;
                        start_ = end_;
                        ptx::Reg n = m_tiles_ * n_tiles_;
                        end_ += n;
                      },
                      [&] { inst::mov.u32(end_, 0xffffffffu); });
                });
    return g_ < groups_;
  }

  // The tile's first row inside its group and its first column, in elements (M fastest:
  // m tile = (t - start) mod m_tiles).
  std::pair<ptx::Reg, ptx::Reg> tile_origin() const {
    ptx::Reg lt = t_ - start_;
    ptx::Reg mtile = lt % m_tiles_;
    ptx::Reg ntile = lt / m_tiles_;
    ptx::Reg m0 = mtile << 7;
    ptx::Reg n0 = ntile << 8;
    return {std::move(m0), std::move(n0)};
  }

  // t += step (%nctaid.x): this CTA's next tile.
  void advance(const ptx::Reg& step) { t_ += step; }

  const ptx::Reg& group() const { return g_; }  // u32, < G inside the loop
  const ptx::Reg& rows() const { return rows_; }  // M_g

 private:
  uint32_t groups_, n_tiles_;
  EnterGroup enter_;
  ptx::Reg t_, g_, start_, end_, rows_, m_tiles_;
};

}  // namespace examples::sm90
