// One instruction for the lanes of a warp at the lowest pc: the dispatch over Opc to the
// instruction families (runner.hpp lists their files). Called once per warp instruction.
#include <bit>

#include "runner.hpp"

namespace ptx::emu::engine {

// add, sub, mul, mad, fma, div, neg, abs, min, max, copysign are integer, float or half
// instructions by their type; the carry chains (add.cc, addc, ...) are integer whatever it is.
Runner::Family Runner::arith_family(const DInst& in) {
  const Ty t = in.type;
  switch (in.op) {
    case Opc::Add:
    case Opc::Sub:
      if (t.k == 'F') return Family::Float;
      if (in.flags & (kCarryIn | kCarryOut)) return Family::Integer;
      break;
    case Opc::Mul:
    case Opc::Mad:
      if (t.k == 'F') return Family::Float;
      break;
    case Opc::Fma:
    case Opc::Copysign: return narrow(t) ? Family::Half : Family::Float;
    default: break;
  }
  return narrow(t) ? Family::Half : t.k == 'f' ? Family::Float : Family::Integer;
}

void Runner::execute(Warp& w, const DInst& in, uint32_t exec, uint32_t active, uint32_t& advance) {
  switch (in.op) {
    case Opc::Nop: return;
    case Opc::Add: case Opc::Sub: case Opc::Mul: case Opc::Mad: case Opc::Fma: case Opc::Div:
    case Opc::Neg: case Opc::Abs: case Opc::Min: case Opc::Max: case Opc::Copysign:
      switch (arith_family(in)) {
        case Family::Integer: return integer_arith(w, in, exec);
        case Family::Float: return float_arith(w, in, exec);
        case Family::Half: return half_arith(w, in, exec);
      }
      return;
    case Opc::Rem: return integer_arith(w, in, exec);
    case Opc::Popc: case Opc::Clz: case Opc::Fns: case Opc::Brev: case Opc::Bfind: return integer_bits(w, in, exec);
    case Opc::Bmsk: case Opc::Szext: case Opc::Bfe: case Opc::Bfi: return integer_fields(w, in, exec);
    case Opc::Dp4a: case Opc::Dp2a: case Opc::Sad: return integer_dot(w, in, exec);
    case Opc::Rsqrt: case Opc::Rcp: case Opc::Sqrt: case Opc::Ex2: case Opc::Lg2: case Opc::Sin: case Opc::Cos: case Opc::Tanh:
      return float_unary(w, in, exec);
    case Opc::Testp: return testp(w, in, exec);
    case Opc::And: case Opc::Or: case Opc::Xor: case Opc::Not: case Opc::Cnot: case Opc::Shl: case Opc::Shr: case Opc::Shf: case Opc::Lop3:
      return logic(w, in, exec);
    case Opc::Setp: case Opc::Selp: case Opc::Slct: return compare_select(w, in, exec);
    case Opc::Set: return set(w, in, exec);
    case Opc::Mov: return mov(w, in, exec, active);
    case Opc::Ld: case Opc::St: return ld_st(w, in, exec, active);
    case Opc::Cvt: return cvt(w, in, exec);
    case Opc::Cvta: case Opc::Mapa: case Opc::Isspacep: case Opc::Getctarank: return addresses(w, in, exec);
    case Opc::Prmt: return prmt(w, in, exec);
    case Opc::StBulk: return st_bulk(w, in, exec);
    case Opc::Createpolicy: return for_lanes(exec, [&](int l) { write(w, in.ops[0], l, 0, Ty{'b', 64}); });
    case Opc::Atom: case Opc::Red: return atom_red(w, in, exec, active);
    case Opc::Bar: return bar(w, in, exec, active, advance);
    case Opc::ClusterBar: return cluster_bar(w, in, exec, active, advance);
    case Opc::Mbarrier: return mbarrier(w, in, exec, active);
    case Opc::Clc: return cluster_launch_control(w, in, exec);
    case Opc::Shfl: case Opc::Vote: case Opc::Match: case Opc::Redux: case Opc::Elect: case Opc::Activemask: case Opc::WarpSync:
      return warp_op(w, in, exec, active);
    case Opc::Bra: case Opc::Brx: case Opc::Ret: case Opc::Exit: case Opc::Call: return control(w, in, exec, active, advance);
    case Opc::Trap: fail(w, std::countr_zero(exec ? exec : active), "trap");
    case Opc::Brkpt: fail(w, std::countr_zero(exec ? exec : active), "brkpt (a breakpoint)");
    case Opc::Alloca: case Opc::StackSave: case Opc::StackRestore: return stack(w, in, exec);
    case Opc::CpAsync: return cp_async(w, in, exec);
    case Opc::CpAsyncTensor: return tensor_copy(w, in, exec);
    case Opc::Tensormap: return warp_collective(w, in, [&] { tensormap_op(w, in, exec); });  // cp_fenceproxy is .sync.aligned
    // the 8x8 .b16 matrix of the mma layout (lane 4r + c/2 holds row r, columns c), transposed
    case Opc::Movmatrix: return warp_collective(w, in, [&] { movmatrix(w, in, exec, active); });
    case Opc::Ldmatrix: return warp_collective(w, in, [&] { ldmatrix(w, in, exec, false); });
    case Opc::Stmatrix: return warp_collective(w, in, [&] { ldmatrix(w, in, exec, true); });
    case Opc::Mma: return warp_collective(w, in, [&] { mma(w, in, exec); });
    case Opc::Wgmma: return warp_collective(w, in, [&] { wgmma(w, in, exec); });
    case Opc::Wmma: return warp_collective(w, in, [&] { wmma(w, in, exec); });
    case Opc::Tcgen05: return warp_collective(w, in, [&] { tcgen05(w, in, exec); });
    case Opc::Video: return video(w, in, exec);
    case Opc::Texture: return texture(w, in, exec);
  }
}

}  // namespace ptx::emu::engine
