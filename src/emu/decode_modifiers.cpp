// Decoder: what an instruction's modifiers mean to the emulator.
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

// tensormap.replace.tile.FIELD{.ss}.b1024.type / tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned
void Decoder::tensormap_modifier(DInst& d, Mod mo) {
  static constexpr std::pair<Mod, uint8_t> kFields[] = {
      {Mod::global_address, kTmGlobalAddress}, {Mod::rank, kTmRank}, {Mod::box_dim, kTmBoxDim}, {Mod::global_dim, kTmGlobalDim},
      {Mod::global_stride, kTmGlobalStride}, {Mod::element_stride, kTmElementStride}, {Mod::elemtype, kTmElemtype},
      {Mod::interleave_layout, kTmInterleave}, {Mod::swizzle_mode, kTmSwizzleMode}, {Mod::swizzle_atomicity, kTmSwizzleAtomicity},
      {Mod::fill_mode, kTmFillMode}};
  if (const auto* f = find_in(kFields, mo)) return void(d.sub = f->second);
  if (mo == Mod::cp_fenceproxy) return void(d.sub = kTensormapCopy);
  if (mo == Mod::global || mo == Mod::shared_cta || mo == Mod::shared) {
    const Space sp = mo == Mod::global ? Space::Global : Space::Shared;
    if (spaces_seen_++ == 0) d.space = sp;
    else d.space2 = sp;  // cp_fenceproxy: the source
    return;
  }
  if (mo == Mod::replace || mo == Mod::tile || mo == Mod::b1024 || mo == Mod::tensormap_generic || mo == Mod::release || mo == Mod::cta ||
      mo == Mod::cluster || mo == Mod::gpu || mo == Mod::sys || mo == Mod::sync || mo == Mod::aligned)
    return;
  throw unsupported(fmt::format("the modifier {} of tensormap", mo));
}

// clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 /
// clusterlaunchcontrol.query_cancel.{is_canceled.pred, get_first_ctaid.v4.b32, get_first_ctaid::x.b32}.b128
void Decoder::clc_modifier(DInst& d, Mod mo) {
  static constexpr std::pair<Mod, ClcOp> kOps[] = {
      {Mod::try_cancel, ClcOp::TryCancel}, {Mod::is_canceled, ClcOp::IsCanceled}, {Mod::get_first_ctaid, ClcOp::FirstCtaid},
      {Mod::get_first_ctaid_x, ClcOp::FirstCtaidX}, {Mod::get_first_ctaid_y, ClcOp::FirstCtaidY}, {Mod::get_first_ctaid_z, ClcOp::FirstCtaidZ}};
  if (const auto* it = find_in(kOps, mo)) return void(d.sub = static_cast<uint8_t>(it->second));
  if (mo == Mod::shared_cta || mo == Mod::shared) return void(d.space = Space::Shared);
  if (mo == Mod::multicast_cluster_all) return void(d.flags |= kMulticast);
  if (mo == Mod::async || mo == Mod::mbarrier_complete_tx_bytes || mo == Mod::query_cancel || mo == Mod::v4) return;
  throw unsupported(fmt::format("the modifier {} of clusterlaunchcontrol", mo));
}

// What a modifier means to the emulator (types are read before this). Families decoded by their
// own decoder read all their modifiers there.
void Decoder::modifier(DInst& d, Opcode op, Mod mo) {
  if (modifiers_read_elsewhere(op)) return;
  switch (op) {
    case Opcode::mbarrier: return mbarrier_modifier(d, mo);
    case Opcode::tensormap: return tensormap_modifier(d, mo);
    case Opcode::clusterlaunchcontrol: return clc_modifier(d, mo);
    case Opcode::cp: return cp_modifier(d, mo);
    case Opcode::movmatrix:  // movmatrix.sync.aligned.m8n8.trans.b16: the one form
      if (mo == Mod::sync || mo == Mod::aligned || mo == Mod::m8n8 || mo == Mod::trans) return;
      throw unsupported(fmt::format("the modifier {} of movmatrix", mo));
    default: break;
  }
  if (opcode_modifier(d, op, mo) || shared_modifier(d, op, mo) || no_effect(mo)) return;
  throw unsupported(fmt::format("the modifier {} of {}", mo, op));
}

// Instructions whose modifiers the emulator reads elsewhere, or which have no effect here.
bool Decoder::modifiers_read_elsewhere(Opcode op) {
  switch (op) {
    case Opcode::wgmma: case Opcode::tcgen05: case Opcode::wmma: case Opcode::mma:  // their *_decode
    case Opcode::ldmatrix: case Opcode::stmatrix:                                    // ldmatrix_decode
    case Opcode::brx:                                                                // brx.idx{.uni}: the one form
    // no effect in a sequentially consistent, single-device emulator
    case Opcode::pmevent: case Opcode::applypriority: case Opcode::discard: case Opcode::fence: case Opcode::membar:
    case Opcode::griddepcontrol: case Opcode::setmaxnreg: case Opcode::prefetch: case Opcode::prefetchu:
    case Opcode::createpolicy: case Opcode::trap: case Opcode::elect: case Opcode::activemask: case Opcode::call:
      return true;
    default:
      return is_video(op);  // video_decode
  }
}

// A modifier with a meaning particular to the opcode (DInst::sub, boolop or a flag).
bool Decoder::opcode_modifier(DInst& d, Opcode op, Mod mo) {
  switch (op) {
    case Opcode::st: case Opcode::red: return async_store_modifier(d, op, mo);
    case Opcode::cvt: return cvt_modifier(d, mo);
    case Opcode::bar: case Opcode::barrier: return barrier_modifier(d, op, mo);
    case Opcode::prmt: return prmt_modifier(d, mo);
    case Opcode::bmsk: case Opcode::szext:
      if (mo == Mod::clamp) d.flags |= kClamp;
      return mo == Mod::clamp || mo == Mod::wrap;
    case Opcode::shf:
      if (mo == Mod::l) d.flags |= kLeft;
      if (mo == Mod::clamp) d.flags |= kClamp;
      return mo == Mod::l || mo == Mod::r || mo == Mod::clamp || mo == Mod::wrap;
    case Opcode::redux:  // redux.f32: .abs of every input
      if (mo == Mod::abs) return d.boolop = kReduxAbs, true;
      return mo != Mod::exch && mo != Mod::cas && mo != Mod::inc && mo != Mod::dec && atomic_op(d, mo);
    case Opcode::testp: return test_modifier(d, mo);
    case Opcode::fma: return mo == Mod::oob && (d.sub = kFmaOob, true);
    case Opcode::lop3:  // lop3.BoolOp d|p, a, b, c, lut, q: p = (d != 0) BoolOp q
      if (mo != Mod::and_ && mo != Mod::or_) return false;
      return d.boolop = static_cast<uint8_t>(mo == Mod::and_ ? BoolOp::And : BoolOp::Or), true;
    case Opcode::match: return mo == Mod::all && (d.sub = 1, true);
    case Opcode::dp2a: return (mo == Mod::lo || mo == Mod::hi) && (d.sub = mo == Mod::hi, true);
    case Opcode::isspacep: return space_modifier(d, mo, d.space);
    case Opcode::setp: case Opcode::set: return compare_modifier(d, mo);
    case Opcode::cvta: return cvta_modifier(d, mo);
    case Opcode::shfl: return shuffle_modifier(d, mo);
    case Opcode::vote: return vote_modifier(d, mo);
    case Opcode::min: case Opcode::max:  // .abs: of both inputs; .xorsign.abs: the result's sign a's ^ b's
      if (mo == Mod::abs) d.sub |= kMinMaxAbs;
      if (mo == Mod::xorsign) d.sub |= kMinMaxXorsign;
      return mo == Mod::abs || mo == Mod::xorsign;
    case Opcode::multimem:  // one device: a multicast group of one (opcode() makes it ld, st or red)
      if (mo == Mod::ld_reduce || mo == Mod::st || mo == Mod::red) return multimem_ = mo == Mod::ld_reduce ? 1 : mo == Mod::st ? 2 : 3, true;
      return mo == Mod::acc_f32 || mo == Mod::acc_f16 || atomic_op(d, mo);
    case Opcode::atom: return atomic_op(d, mo);
    default: return false;
  }
}

// st.async / red.async{.mbarrier::complete_tx::bytes}, st.bulk; red's operation
bool Decoder::async_store_modifier(DInst& d, Opcode op, Mod mo) {
  if (op == Opcode::st && mo == Mod::bulk) return st_bulk_ = true;
  if (mo == Mod::mbarrier_complete_tx_bytes) d.async_tx = true;
  if (mo == Mod::async || mo == Mod::mbarrier_complete_tx_bytes) return true;
  return op == Opcode::red && atomic_op(d, mo);
}

bool Decoder::cvt_modifier(DInst& d, Mod mo) {
  if (mo == Mod::pack) return d.sub = kCvtPack, true;
  return d.sub == kCvtPack && pack_type(mo);  // .u2/.s2/.u4/.s4 (the others are types)
}

// barrier.cluster.arrive/.wait; bar.red's operation: DInst::boolop (1 popc, 2 and, 3 or)
bool Decoder::barrier_modifier(DInst& d, Opcode op, Mod mo) {
  if (op == Opcode::barrier && mo == Mod::cluster) return cluster_barrier_ = true;
  if (op == Opcode::bar && mo == Mod::warp) return true;
  if (cluster_barrier_) return false;
  if (mo == Mod::popc || mo == Mod::and_ || mo == Mod::or_) return d.boolop = mo == Mod::popc ? 1 : mo == Mod::and_ ? 2 : 3, true;
  return mo == Mod::red || mo == Mod::sync || mo == Mod::arrive || mo == Mod::cta || mo == Mod::aligned;
}

bool Decoder::prmt_modifier(DInst& d, Mod mo) {  // the modes: sub 1..6 (0: the general selector form)
  static constexpr std::pair<Mod, uint8_t> kModes[] = {{Mod::f4e, 1}, {Mod::b4e, 2}, {Mod::rc8, 3}, {Mod::ecl, 4}, {Mod::ecr, 5}, {Mod::rc16, 6}};
  const auto* it = find_in(kModes, mo);
  return it && (d.sub = it->second, true);
}

bool Decoder::test_modifier(DInst& d, Mod mo) {
  static constexpr std::pair<Mod, uint8_t> kTests[] = {
      {Mod::finite, 0}, {Mod::infinite, 1}, {Mod::number, 2}, {Mod::notanumber, 3}, {Mod::normal, 4}, {Mod::subnormal, 5}};
  const auto* it = find_in(kTests, mo);
  return it && (d.sub = it->second, true);
}

// A state space (.global, .shared{::cta}, .local, .param{::entry}, .const) into `space`.
bool Decoder::space_modifier(DInst&, Mod mo, Space& space) {
  static constexpr std::pair<Mod, Space> kSpaces[] = {
      {Mod::global, Space::Global}, {Mod::shared, Space::Shared}, {Mod::shared_cta, Space::Shared}, {Mod::local, Space::Local},
      {Mod::param, Space::Param},   {Mod::param_entry, Space::Param}, {Mod::param_func, Space::Param},  // (a .func's own, in its frame)
      {Mod::const_, Space::Const}};
  const auto* it = find_in(kSpaces, mo);
  return it && (space = it->second, true);
}

bool Decoder::compare_modifier(DInst& d, Mod mo) {
  static constexpr std::pair<Mod, Cmp> kCmp[] = {
      {Mod::eq, Cmp::Eq}, {Mod::ne, Cmp::Ne}, {Mod::lt, Cmp::Lt}, {Mod::le, Cmp::Le}, {Mod::gt, Cmp::Gt}, {Mod::ge, Cmp::Ge},
      {Mod::lo, Cmp::Lo}, {Mod::ls, Cmp::Ls}, {Mod::hi, Cmp::Hi}, {Mod::hs, Cmp::Hs}, {Mod::equ, Cmp::Equ}, {Mod::neu, Cmp::Neu},
      {Mod::ltu, Cmp::Ltu}, {Mod::leu, Cmp::Leu}, {Mod::gtu, Cmp::Gtu}, {Mod::geu, Cmp::Geu}, {Mod::num, Cmp::Num}, {Mod::nan, Cmp::Nan}};
  if (const auto* it = find_in(kCmp, mo)) return d.sub = static_cast<uint8_t>(it->second), true;
  if (mo == Mod::and_ || mo == Mod::or_ || mo == Mod::xor_)
    return d.boolop = static_cast<uint8_t>(mo == Mod::and_ ? BoolOp::And : mo == Mod::or_ ? BoolOp::Or : BoolOp::Xor), true;
  return false;
}

// cvta.SPACE: window -> generic; cvta.to.SPACE: generic -> window (opcode() finishes it)
bool Decoder::cvta_modifier(DInst& d, Mod mo) {
  if (mo == Mod::shared_cluster) return d.space = Space::Shared, d.flags |= kFromShared, true;
  Space sp = Space::Generic;
  if (!space_modifier(d, mo, sp)) return false;
  d.flags |= sp == Space::Shared ? uint32_t{kFromShared} : sp == Space::Local ? uint32_t{kFromLocal} : 0u;
  if (sp == Space::Param) d.sub = kCvtaFromParam;
  return true;
}

bool Decoder::shuffle_modifier(DInst& d, Mod mo) {
  static constexpr std::pair<Mod, ShflMode> kModes[] = {
      {Mod::up, ShflMode::Up}, {Mod::down, ShflMode::Down}, {Mod::bfly, ShflMode::Bfly}, {Mod::idx, ShflMode::Idx}};
  const auto* it = find_in(kModes, mo);
  return it && (d.sub = static_cast<uint8_t>(it->second), true);
}

bool Decoder::vote_modifier(DInst& d, Mod mo) {
  static constexpr std::pair<Mod, VoteMode> kModes[] = {
      {Mod::all, VoteMode::All}, {Mod::any, VoteMode::Any}, {Mod::uni, VoteMode::Uni}, {Mod::ballot, VoteMode::Ballot}};
  const auto* it = find_in(kModes, mo);
  return it && (d.sub = static_cast<uint8_t>(it->second), true);
}

// atom, red, redux, multimem: the operation (DInst::sub)
bool Decoder::atomic_op(DInst& d, Mod mo) {
  static constexpr std::pair<Mod, AtomOp> kAtom[] = {
      {Mod::add, AtomOp::Add}, {Mod::min, AtomOp::Min}, {Mod::max, AtomOp::Max}, {Mod::exch, AtomOp::Exch}, {Mod::cas, AtomOp::Cas},
      {Mod::and_, AtomOp::And}, {Mod::or_, AtomOp::Or}, {Mod::xor_, AtomOp::Xor}, {Mod::inc, AtomOp::Inc}, {Mod::dec, AtomOp::Dec}};
  const auto* it = find_in(kAtom, mo);
  return it && (d.sub = static_cast<uint8_t>(it->second), true);
}

// A modifier with one meaning whatever the opcode: flags, state spaces, vectors, cache hints.
bool Decoder::shared_modifier(DInst& d, Opcode, Mod mo) {
  static constexpr std::pair<Mod, uint32_t> kFlags[] = {
      {Mod::lo, kLo}, {Mod::hi, kHi}, {Mod::wide, kWide}, {Mod::rn, kRn}, {Mod::rz, kRz}, {Mod::rm, kRm}, {Mod::rp, kRp},
      {Mod::rni, kRn | kIntRound}, {Mod::rzi, kRz | kIntRound}, {Mod::rmi, kRm | kIntRound}, {Mod::rpi, kRp | kIntRound},
      {Mod::ftz, kFtz}, {Mod::sat, kSat}, {Mod::approx, kApprox}, {Mod::full, kApprox}, {Mod::uni, kUni},
      {Mod::relu, kRelu}, {Mod::satfinite, kSatfinite}, {Mod::rna, kRna}, {Mod::cc, kCarryOut}, {Mod::NaN, kNaN},
      {Mod::shiftamt, kShiftAmt}};
  if (const auto* it = find_in(kFlags, mo)) return d.flags |= it->second, true;
  if (mo == Mod::shared_cluster) return d.space = Space::SharedCluster, true;
  if (space_modifier(d, mo, d.space)) return true;
  if (mo == Mod::to) return to_ = true;
  if (const unsigned n = spec::vector_width(mo)) return d.vec = static_cast<uint8_t>(n), true;
  return spec::is_cache_hint(mo) || mo == Mod::mmio;
}

// Modifiers with no effect in a single-device, sequentially consistent emulator.
bool Decoder::no_effect(Mod mo) {
  switch (mo) {
    case Mod::sync: case Mod::aligned: case Mod::any: case Mod::cta: case Mod::gpu: case Mod::sys: case Mod::cluster:
    case Mod::relaxed: case Mod::acquire: case Mod::release: case Mod::acq_rel: case Mod::sc: case Mod::weak: case Mod::volatile_:
    case Mod::ca: case Mod::cg: case Mod::cs: case Mod::lu: case Mod::cv: case Mod::wb: case Mod::wt: case Mod::nc:
    case Mod::b: case Mod::clamp: case Mod::wrap: case Mod::noftz: case Mod::gl: case Mod::arrive: case Mod::wait:
      return true;
    default:
      return false;
  }
}

// cp.async{.ca,.cg}, cp.async.bulk, cp.async.mbarrier.arrive, commit/wait groups
void Decoder::cp_modifier(DInst& d, Mod mo) {
  if (mo == Mod::async || mo == Mod::ca || mo == Mod::cg || mo == Mod::bulk_group || mo == Mod::b64 || mo == Mod::arrive ||
      spec::is_cache_hint(mo))
    return;
  if (mo == Mod::bulk) return void(d.sub = 1);
  if (mo == Mod::tensor) return void(tensor_ = true);
  if (const unsigned rank = spec::tensor_rank(mo)) return void(d.vec = static_cast<uint8_t>(rank));
  if (mo == Mod::tile || mo == Mod::L2) return;
  if (mo == Mod::tile_gather4 || mo == Mod::tile_scatter4) return void(d.im2col = 3);  // four rows of a 2D tensor
  if (mo == Mod::im2col) return void(d.im2col = 1);
  if (mo == Mod::im2col_w || mo == Mod::im2col_w_128 || mo == Mod::im2col_no_offs) return void(d.im2col = 2);  // .im2col::w, .im2col_no_offs, ...: reported when executed (prefetches: no effect)
  if (mo == Mod::noftz) return;
  if (mo == Mod::multicast_cluster) return void(d.flags |= kMulticast);
  // .cta_group::2 lets the load complete on the peer CTA's mbarrier: the [mbar] operand is a
  // .shared::cluster address already, so only its multicast form (each destination's peer) differs.
  if (mo == Mod::cta_group_1) return;
  if (mo == Mod::cta_group_2) return void(cta_pair_ = true);
  if (mo == Mod::reduce) return void(reduce_ = true);
  static constexpr std::pair<Mod, AtomOp> kReduce[] = {
      {Mod::add, AtomOp::Add}, {Mod::min, AtomOp::Min}, {Mod::max, AtomOp::Max}, {Mod::inc, AtomOp::Inc},
      {Mod::dec, AtomOp::Dec}, {Mod::and_, AtomOp::And}, {Mod::or_, AtomOp::Or},   {Mod::xor_, AtomOp::Xor}};
  if (const auto* it = find_in(kReduce, mo); it && reduce_) return void(d.boolop = static_cast<uint8_t>(it->second));
  if (mo == Mod::commit_group || mo == Mod::wait_group || mo == Mod::wait_all || mo == Mod::read || mo == Mod::prefetch) return void(cp_nop_ = true);
  if (mo == Mod::mbarrier) return void(d.sub = 2);  // cp.async.mbarrier.arrive
  if (mo == Mod::noinc) return void(d.flags |= kNoinc);
  if (mo == Mod::mbarrier_complete_tx_bytes) return void(d.flags |= kCompleteTx);
  Space sp = Space::Generic;
  if (mo == Mod::shared || mo == Mod::shared_cta) sp = Space::Shared;
  else if (mo == Mod::shared_cluster) sp = Space::SharedCluster;
  else if (mo == Mod::global) sp = Space::Global;
  if (sp != Space::Generic) {
    (spaces_seen_++ == 0 ? d.space : d.space2) = sp;  // the destination's space, then the source's
    return;
  }
  throw unsupported(fmt::format("the modifier {} of cp", mo));
}

void Decoder::mbarrier_modifier(DInst& d, Mod mo) {
  static constexpr std::pair<Mod, MbarOp> kOps[] = {
      {Mod::init, MbarOp::Init}, {Mod::arrive, MbarOp::Arrive}, {Mod::arrive_drop, MbarOp::ArriveDrop},
      {Mod::expect_tx, MbarOp::ExpectTx}, {Mod::complete_tx, MbarOp::CompleteTx}, {Mod::test_wait, MbarOp::TestWait},
      {Mod::try_wait, MbarOp::TryWait}, {Mod::pending_count, MbarOp::PendingCount}, {Mod::inval, MbarOp::Inval}};
  if (const auto* it = find_in(kOps, mo)) {
    // .arrive.expect_tx: an arrive that first adds to the transaction count
    if (it->second == MbarOp::ExpectTx && (d.sub == static_cast<uint8_t>(MbarOp::Arrive) || d.sub == static_cast<uint8_t>(MbarOp::ArriveDrop)) && seen_mbar_op_)
      return void(d.flags |= kExpectTx);
    d.sub = static_cast<uint8_t>(it->second);
    seen_mbar_op_ = true;
    return;
  }
  if (mo == Mod::parity) return void(d.flags |= kParity);
  if (mo == Mod::shared || mo == Mod::shared_cta) return void(d.space = Space::Shared);
  if (mo == Mod::shared_cluster) return void(d.space = Space::SharedCluster);
  // .release .acquire .relaxed .cta .cluster .noComplete .b64: no effect here
}

}  // namespace ptx::emu::decoding
