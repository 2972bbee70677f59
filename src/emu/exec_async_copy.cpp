// Asynchronous copies (async-copy.isa): cp.async, cp.async.bulk (and .multicast::cluster),
// cp.reduce.async.bulk, tensormap.replace / cp_fenceproxy. (cp.async.bulk.tensor: exec_tensor_copy.cpp.)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <mutex>
#include "ptxpp/emu/tensor_map.hpp"

#include "runner.hpp"

namespace ptx::emu::engine {

void Runner::cp_async(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    if (in.sub == 2) {  // cp.async.mbarrier.arrive: the copies are done; .noinc makes it count as an arrival
      sync_access_ = true;
      if (in.flags & kNoinc) mbar_signal(w, l, access(w, l, in, o[0], 8, true), 0, 1);
      sync_access_ = false;
      continue;
    }
    if (in.sub == 3) {  // cp.reduce.async.bulk: element by element into global or (remote) shared memory
      bulk_reduce(w, l, in);
      continue;
    }
    const uint64_t n = value(w, o[2], l);
    uint64_t src_n = n;
    if (in.sub == 0 && in.nops >= 4 && o[3].kind != Opnd::Sink) {
      if (o[3].kind == Opnd::Reg && p_.slot_types[o[3].slot].k == 'p') src_n = value(w, o[3], l) ? 0 : n;  // ignore-src
      else if (o[3].kind == Opnd::Imm || o[3].kind == Opnd::RegPlus || (o[3].kind == Opnd::Reg && p_.slot_types[o[3].slot].bits == 32)) src_n = std::min(n, value(w, o[3], l));
    }
    if (in.sub == 0 && n != 4 && n != 8 && n != 16) fail(w, l, fmt::format("cp.async of {} bytes (4, 8 or 16)", n));
    if (in.sub == 1 && (n % 16 != 0)) fail(w, l, fmt::format("cp.async.bulk of {} bytes (a multiple of 16)", n));
    DInst src_in = in;
    src_in.space = in.space2;
    // a kernel parameter's generic address (cvta.param) as the .global source: the parameter, as ld reads it
    if (in.space2 == Space::Global && !o[1].symbol &&
        in_param_window((o[1].slot != kNoSlot ? reg(w, o[1].slot, l) : 0) + o[1].imm))
      src_in.space = Space::Generic;
    const uint32_t chunk = in.sub == 0 ? static_cast<uint32_t>(n) : 16;
    bulk_steps_ += n / 128;  // a bulk copy's checked accesses count against max_steps
    // .multicast::cluster: the same shared offsets in each CTA of the mask
    const std::vector<uint32_t> ranks = (in.flags & kMulticast) ? mask_ranks(w, l, value(w, o[4], l)) : std::vector<uint32_t>{};
    for (size_t ti = 0; ti < std::max<size_t>(ranks.size(), 1); ++ti) {
      const Opnd d_base = ranks.empty() ? o[0] : rebased(w, l, o[0], in.space, ranks[ti]);
      for (uint64_t done = 0; done < n; done += chunk) {
        Opnd d_at = d_base, s_at = o[1];
        d_at.imm += done, s_at.imm += done;
        uint8_t* dst = access(w, l, in, d_at, chunk, true);
        if (done < src_n) {
          // src-size bytes are read; the source is aligned to the copy's size all the same
          const uint8_t* src = access(w, l, src_in, s_at, static_cast<unsigned>(std::min<uint64_t>(chunk, src_n - done)), false, std::min(chunk, 16u));
          std::memmove(dst, src, std::min<uint64_t>(chunk, src_n - done));
        }
        if (src_n < done + chunk) std::memset(dst + (src_n > done ? src_n - done : 0), 0, done + chunk - std::max(src_n, done));
      }
      if (in.flags & kCompleteTx) {
        sync_access_ = true;
        uint8_t* bar = access(w, l, in, ranks.empty() ? o[3] : rebased(w, l, o[3], in.space, ranks[ti]), 8, true);
        sync_access_ = false;
        mbar_signal(w, l, bar, static_cast<int64_t>(n), 0);
      }
    }
  }
}

// The bits of a tensor element reduced into global memory (cp.reduce.async.bulk.tensor).
bool tensor_reduce(uint8_t dtype, AtomOp op, uint64_t old, uint64_t v, uint64_t& out) {
  const unsigned bits = tensor_map_element_bytes(dtype) * 8;
  switch (dtype) {
    case 6: case 9: {  // f16, bf16
      const Format f = dtype == 6 ? Format::F16 : Format::BF16;
      const double a = decode(f, static_cast<uint32_t>(old)), b = decode(f, static_cast<uint32_t>(v));
      if (op == AtomOp::Add) out = encode(f, a + b);
      else if (op == AtomOp::Min || op == AtomOp::Max) out = std::isnan(a) ? v : std::isnan(b) ? old : ((b < a) == (op == AtomOp::Min) ? v : old);
      else return false;
      return true;
    }
    case 7: case 10: case 11: case 12: {  // f32 (tf32 elements are f32 in memory)
      const float a = f32(old), b = f32(v);
      if (op == AtomOp::Add) out = canon(a + b);
      else if (op == AtomOp::Min) out = bits_of(std::fmin(a, b));
      else if (op == AtomOp::Max) out = bits_of(std::fmax(a, b));
      else return false;
      return true;
    }
    case 8: {
      const double a = f64(old), b = f64(v);
      if (op == AtomOp::Add) out = bits_of(a + b);
      else if (op == AtomOp::Min) out = bits_of(std::fmin(a, b));
      else if (op == AtomOp::Max) out = bits_of(std::fmax(a, b));
      else return false;
      return true;
    }
    default: break;
  }
  const bool sgn = dtype == 3 || dtype == 5;
  const uint64_t a = mask_bits(old, bits), b = mask_bits(v, bits);
  switch (op) {
    case AtomOp::Add: out = a + b; break;
    case AtomOp::Min: out = (sgn ? sext(b, bits) < sext(a, bits) : b < a) ? b : a; break;
    case AtomOp::Max: out = (sgn ? sext(b, bits) > sext(a, bits) : b > a) ? b : a; break;
    case AtomOp::Inc: out = a >= b ? 0 : a + 1; break;
    case AtomOp::Dec: out = (a == 0 || a > b) ? b : a - 1; break;
    case AtomOp::And: out = a & b; break;
    case AtomOp::Or: out = a | b; break;
    case AtomOp::Xor: out = a ^ b; break;
    default: return false;
  }
  out = mask_bits(out, bits);
  return true;
}

namespace {

// The CUtensorMapDataType of a PTX element type (for reductions), or 0xFF.
uint8_t dtype_of(Ty t) {
  switch (t.k) {
    case 'h': return 6;
    case 'B': return 9;
    case 'f': return t.bits == 32 ? 7 : t.bits == 64 ? 8 : 0xFF;
    case 's': return t.bits == 32 ? 3 : t.bits == 64 ? 5 : 0xFF;
    default: return t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 4 : 0xFF;
  }
}

}  // namespace

void Runner::bulk_reduce(Warp& w, int l, const DInst& in) {
  const Opnd* o = in.ops;
  const uint64_t n = value(w, o[2], l);
  const unsigned es = in.type.bits / 8;
  const uint8_t dtype = dtype_of(in.type);
  if (n % 16 != 0) fail(w, l, fmt::format("cp.reduce.async.bulk of {} bytes (a multiple of 16)", n));
  DInst src_in = in;
  src_in.space = in.space2;
  for (uint64_t done = 0; done < n; done += es) {
    Opnd d_at = o[0], s_at = o[1];
    d_at.imm += done, s_at.imm += done;
    uint64_t v = 0, old = 0, r = 0;
    std::memcpy(&v, access(w, l, src_in, s_at, es, false), es);
    sync_access_ = true;  // like atomics
    uint8_t* p = access(w, l, in, d_at, es, true);
    sync_access_ = false;
    std::lock_guard lock(atomic_lock(p));
    std::memcpy(&old, p, es);
    if (dtype == 0xFF || !tensor_reduce(dtype, static_cast<AtomOp>(in.boolop), old, v, r))
      fail(w, l, "this cp.reduce.async.bulk operation and type are not supported");
    std::memcpy(p, &r, es);
  }
  if (in.flags & kCompleteTx) {
    sync_access_ = true;
    uint8_t* bar = access(w, l, in, o[3], 8, true);
    sync_access_ = false;
    mbar_signal(w, l, bar, static_cast<int64_t>(n), 0);
  }
}

// tensormap.replace: one field of a tensor map (the CPU device's encoding) in global or shared
// memory, read, changed and written back; tensormap.cp_fenceproxy: a 128-byte copy of one
// from shared to global memory (the fence has nothing to order here).
void Runner::tensormap_op(Warp& w, const DInst& in, uint32_t exec) {
  const Opnd* o = in.ops;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t at = (o[0].slot != kNoSlot ? reg(w, o[0].slot, l) : 0) + o[0].imm;
    if (opt_.check_memory && (at & kOffsetMask) % 64 != 0) fail(w, l, fmt::format("the tensor map at {:#x} is not 64-byte aligned", at));
    if (in.sub == kTensormapCopy) {
      if (o[2].kind != Opnd::Imm || o[2].imm != kTensorMapBytes) fail(w, l, "tensormap.cp_fenceproxy copies 128 bytes");
      const uint8_t* src = resolve(w, l, in.space2, (o[1].slot != kNoSlot ? reg(w, o[1].slot, l) : 0) + o[1].imm, kTensorMapBytes, false);
      TensorMapBytes copy;
      std::memcpy(copy.data(), src, kTensorMapBytes);
      std::memcpy(access(w, l, in, o[0], kTensorMapBytes, true), copy.data(), kTensorMapBytes);
      continue;
    }
    const uint8_t* cur = access(w, l, in, o[0], kTensorMapBytes, false);
    auto desc = decode(cur);
    // 128 zero bytes are the blank map every field of which is then replaced (Triton builds device
    // tensor descriptors so): a tiled map of rank 1 (the rank field is the rank minus one) of u8.
    if (!desc && std::all_of(cur, cur + kTensorMapBytes, [](uint8_t b) { return b == 0; })) {
      desc = TensorMapDesc{};
      desc->rank = 1;
    }
    if (!desc)
      fail(w, l, "tensormap.replace on bytes that are neither a tensor map the CPU device encoded (ptx::make_tensor_map on the CPU "
                 "device, or emu::encode) nor 128 zero bytes");
    TensorMapDesc& d = *desc;
    const bool indexed = in.sub == kTmBoxDim || in.sub == kTmGlobalDim || in.sub == kTmGlobalStride || in.sub == kTmElementStride;
    const uint64_t v = value(w, o[indexed ? 2 : 1], l);
    const uint64_t ord = indexed ? value(w, o[1], l) : 0;
    auto need = [&](bool ok, const std::string& what) {
      if (!ok) fail(w, l, fmt::format("tensormap.replace: {} (new value {})", what, v));
    };
    if (indexed) need(ord < 5, fmt::format("ordinal {} (0 to 4)", ord));
    switch (in.sub) {
      case kTmGlobalAddress: need(v % 16 == 0, "the global address must be 16-byte aligned"); d.base = v; break;
      case kTmRank: need(v <= 4, "the rank field is the rank minus one, 0 to 4"); d.rank = static_cast<uint8_t>(v + 1); break;
      case kTmBoxDim: need(v >= 1 && v <= 256, "a box dimension is 1 to 256"); d.box[ord] = static_cast<uint16_t>(v); break;
      case kTmGlobalDim: need(v >= 1 && v <= (uint64_t{1} << 32), "a global dimension is 1 to 2^32"); d.dims[ord] = v; break;
      case kTmGlobalStride:  // ord i: the byte stride of dimension i + 1 (cuTensorMapEncodeTiled's globalStrides[i])
        need(ord < 4 && v % 16 == 0 && v < (uint64_t{1} << 40), "a global stride is a multiple of 16 below 2^40, ordinal 0 to 3");
        d.strides[ord + 1] = v;
        break;
      case kTmElementStride: need(v >= 1 && v <= 8, "an element stride is 1 to 8"); d.element_strides[ord] = static_cast<uint8_t>(v); break;
      case kTmElemtype: {
        // the manual's .elemtype codes, as CUtensorMapDataType values
        static constexpr uint8_t kToDriver[] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12};
        need(v < std::size(kToDriver), "element types 0 to 12 (the sub-byte types 13 to 15 are not supported by the emulator)");
        d.dtype = kToDriver[v];
        break;
      }
      case kTmInterleave: need(v <= 2, "the interleave layout is 0 to 2"); d.interleave = static_cast<uint8_t>(v); break;
      case kTmSwizzleMode: {
        const uint8_t atomicity = d.swizzle > 3 ? static_cast<uint8_t>(d.swizzle - 3) : 0;
        need(v <= 3, "swizzle modes 0 to 3 (the 96B mode is not supported by the emulator)");
        need(atomicity == 0 || v == 3, "a swizzle atomicity other than 16B needs the 128B swizzle mode");
        d.swizzle = static_cast<uint8_t>(v + atomicity);
        break;
      }
      case kTmSwizzleAtomicity: {
        const uint8_t mode = d.swizzle > 3 ? 3 : d.swizzle;
        need(v <= 3, "the swizzle atomicity is 0 to 3");
        need(v == 0 || mode == 3, "a swizzle atomicity other than 16B needs the 128B swizzle mode (replace .swizzle_mode first)");
        d.swizzle = static_cast<uint8_t>(mode + v);
        break;
      }
      case kTmFillMode: need(v <= 1, "the fill mode is 0 or 1"); d.oob_nan = static_cast<uint8_t>(v); break;
      default: fail(w, l, "this tensormap.replace field");
    }
    const TensorMapBytes out = encode(d);
    std::memcpy(access(w, l, in, o[0], kTensorMapBytes, true), out.data(), kTensorMapBytes);
  }
}

}  // namespace ptx::emu::engine
