// Internal: a kernel decoded for the emulator. Registers become slots, symbols
// become addresses, labels become instruction indices, mnemonics become an
// opcode and flags, so that execution does no string work.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ptxpp/ir/module.hpp"
#include "video.hpp"

namespace ptx::emu {

constexpr uint32_t kNoSlot = 0xFFFFFFFFu;
// In the coordinates of cp.async.bulk.tensor (Program::vec_slots): an immediate, in the low 31 bits.
constexpr uint32_t kImmCoord = 0x80000000u;

// Generic addresses of the windows (global memory allocations start at 0x7000'0000'0000).
constexpr uint64_t kSharedWindow = 0x0000100000000000ull;
constexpr uint64_t kLocalWindow = 0x0000200000000000ull;
constexpr uint64_t kParamWindow = 0x0000400000000000ull;  // the kernel's parameters (cvta.param)
constexpr uint64_t kWindowSize = 0x0000000100000000ull;

// SharedCluster: .shared::cluster addresses (the CTA's own shared offsets, or another CTA's; see exec.cpp)
enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const, SharedCluster };

// The value type of an instruction or register: kind ('u', 's', 'f', 'b', 'p') and width.
struct Ty {
  char k = 'b';
  uint8_t bits = 32;
  friend bool operator==(Ty, Ty) = default;
};

enum class Opc : uint8_t {
  Mov, Add, Sub, Mul, Mad, Fma, Div, Rem, Neg, Abs, Min, Max, And, Or, Xor, Not, Cnot, Shl, Shr,
  Popc, Clz, Brev, Setp, Selp, Cvt, Cvta, Ld, St, Bra, Ret, Exit, Bar, Shfl, Vote, Match,
  Rsqrt, Rcp, Sqrt, Ex2, Lg2, Sin, Cos, Tanh, Atom, Red, Nop, Copysign, Lop3, Prmt,
  Bfe, Bfi, Bfind, Shf, Bmsk, Szext, Fns, Slct, Activemask, Redux, Trap, Set, Mbarrier, Elect, Createpolicy, Call,
  Mapa, Isspacep, Testp, Sad, CpAsync, Ldmatrix, Stmatrix, Mma, Dp4a, Dp2a, Getctarank, Brkpt,
  ClusterBar,     // barrier.cluster.arrive (sub 0) / .wait (sub 1)
  CpAsyncTensor,  // cp.async.bulk.tensor loads (sub 0), stores (1), reductions (2; boolop: the AtomOp); vec: the rank
  Wgmma,  // wgmma.mma_async (wgmma.cpp); wgmma.fence/commit_group/wait_group decode to Nop
  Tcgen05,  // tcgen05 (tcgen05.cpp): sub is the Tc05Op; tcgen05.wait and tcgen05.fence decode to Nop
  Tensormap,  // tensormap.replace (sub: the TensormapField) and tensormap.cp_fenceproxy (sub: kTensormapCopy)
  Clc,        // clusterlaunchcontrol (sub: the ClcOp)
  WarpSync,   // bar.warp.sync: the warp's lanes run together here; it orders their memory accesses
  Alloca, StackSave, StackRestore,  // the thread's stack (.local): alloca above the current frame
  Movmatrix,  // movmatrix.sync.aligned.m8n8.trans.b16: transpose within the warp's fragment
  Brx,        // brx.idx: DInst::table indexes Program::branch_tables
  StBulk,     // st.bulk [a], size, 0: size bytes of shared memory set to zero
  Video,      // vadd ... vset4 (video.cpp; DInst::table indexes Program::video)
  Wmma,       // wmma.load/store/mma (wmma.cpp): sub is the WmmaOp and layout bits
  Texture,    // tex, tld4, txq, suld, sust, sured, suq (texture.cpp; DInst::table indexes Program::textures)
};

// clusterlaunchcontrol operations (DInst::sub)
enum class ClcOp : uint8_t { TryCancel, IsCanceled, FirstCtaid, FirstCtaidX, FirstCtaidY, FirstCtaidZ };

// tensormap.replace's fields (DInst::sub); kTensormapCopy: tensormap.cp_fenceproxy
enum TensormapField : uint8_t {
  kTmGlobalAddress = 1, kTmRank, kTmBoxDim, kTmGlobalDim, kTmGlobalStride, kTmElementStride, kTmElemtype,
  kTmInterleave, kTmSwizzleMode, kTmSwizzleAtomicity, kTmFillMode, kTensormapCopy = 20,
};

// Device functions are called through "addresses" in this range (function pointers).
constexpr uint64_t kFunctionBase = 0x0000300000000000ull;

// mbarrier operations (DInst::sub)
enum class MbarOp : uint8_t { Init, Arrive, ArriveDrop, ExpectTx, CompleteTx, TestWait, TryWait, PendingCount, Inval };

enum Flag : uint32_t {
  kLo = 1, kHi = 2, kWide = 4, kRn = 8, kRz = 16, kRm = 32, kRp = 64, kFtz = 128, kSat = 256,
  kApprox = 512, kUni = 1024, kIntRound = 2048,  // cvt .rni/.rzi/.rmi/.rpi
  kToGlobal = 4096, kToShared = 8192, kToLocal = 16384,  // cvta.to.*: generic -> window
  kFromShared = 32768, kFromLocal = 65536,                 // cvta.shared: window -> generic
  kRelu = 1u << 17, kSatfinite = 1u << 18, kRna = 1u << 19,
  kCarryOut = 1u << 20, kCarryIn = 1u << 21, kNaN = 1u << 22, kShiftAmt = 1u << 23, kClamp = 1u << 24,
  kParity = 1u << 25, kLeft = 1u << 26, kExpectTx = 1u << 27,
  kCompleteTx = 1u << 28, kNoinc = 1u << 29, kTrans = 1u << 30, kMulticast = 1u << 31,
};

constexpr uint32_t kRegArg = 0x80000000u;  // a call's argument or result in Program::vec_slots: a register (the rest: its slot), else a frame offset
// With kRegArg: the whole vector register starting at the slot (Program::vector_regs).
constexpr uint32_t kVectorArg = 0x40000000u;
constexpr uint8_t kBarArrive = 1, kBarRed = 3;  // DInst::sub of bar/barrier (0: .sync)
constexpr uint8_t kMul24 = 1;  // DInst::sub of mul/mad: mul24/mad24 (24-bit operands, a 48-bit product)
constexpr uint8_t kCvtPack = 1;  // DInst::sub of cvt: cvt.pack.sat (type: the convert type, 2 to 16 bits)
constexpr uint8_t kCvtaFromParam = 1, kCvtaToParam = 2;  // DInst::sub of cvta: cvta.param, cvta.to.param (kParamWindow)
constexpr uint8_t kMinMaxAbs = 1, kMinMaxXorsign = 2;  // DInst::sub of float min/max: .abs, .xorsign (with .abs)
constexpr uint8_t kReduxAbs = 1;  // DInst::boolop of redux.f32: .abs
constexpr uint8_t kFmaOob = 1;  // DInst::sub of fma: .oob (an element whose operand is the OOB NaN is 0)
constexpr uint16_t kOobNaN16 = 0x7FFF;  // what TMA fills out-of-bound f16/bf16 elements with under nan_request_zero_fma

enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class BoolOp : uint8_t { None, And, Or, Xor };
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
enum class AtomOp : uint8_t { Add, Min, Max, Exch, Cas, And, Or, Xor, Inc, Dec };

enum class Sreg : uint8_t {
  Tid, Ntid, Ctaid, Nctaid, Laneid, Warpid, Nwarpid, Smid, Nsmid, Gridid, Clock, Clock64, Globaltimer,
  LanemaskEq, LanemaskLe, LanemaskLt, LanemaskGe, LanemaskGt, DynamicSmemSize, TotalSmemSize,
  Clusterid, Nclusterid, ClusterCtaid, ClusterNctaid, ClusterCtarank, ClusterNctarank, IsExplicitCluster,
  ClockHi, GlobaltimerLo, GlobaltimerHi, Zero,  // Zero: %envreg<n>, %pm<n>, reserved offsets: 0 here
};

struct Opnd {
  enum Kind : uint8_t { None, Reg, Imm, Vec, Addr, Label, Sreg, Sink, Pair, RegPlus };  // RegPlus: %r+imm, folded as ptxas does
  Kind kind = None;
  bool neg = false;             // Reg of a predicate written !p
  uint32_t slot = kNoSlot;      // Reg, RegPlus; Vec: first index in Program::vec_slots; Addr: base register or kNoSlot
  uint32_t slot2 = kNoSlot;     // Pair: the predicate of d|p
  uint32_t count = 0;           // Vec: elements
  uint64_t imm = 0;             // Imm: the bits; RegPlus: the constant; Addr: offset + symbol address; Label: instruction index
  Space space = Space::Generic; // Addr: the symbol's space when the address names one
  bool symbol = false;          // Addr/Imm: names a symbol
  uint8_t sreg = 0, comp = 0;   // Sreg
  bool dynamic_smem = false;    // Addr/Imm: names an extern .shared array (imm: offset in the dynamic window)
};

struct DInst {
  Opc op = Opc::Nop;
  Ty type, type2;               // type2: cvt's source type, setp/selp compare type, mma's A type
  Ty type3, type4;              // mma's B and C types (wgmma: D, A, B are type, type2, type3)
  Space space2 = Space::Generic;  // cp.async: the source's space
  uint16_t mma_m = 0, mma_n = 0, mma_k = 0;  // wgmma's N and K reach 256
  uint32_t flags = 0;
  Space space = Space::Generic;
  uint8_t vec = 1;
  uint8_t sub = 0;              // Cmp, ShflMode, VoteMode, AtomOp, bar kind, wgmma's immediates (wgmma.cpp)
  uint8_t boolop = 0;           // setp's .and/.or/.xor
  uint8_t nops = 0;
  Opnd ops[6];
  uint32_t guard = kNoSlot;
  bool guard_neg = false;
  bool async_tx = false;        // st.async / red.async: complete_tx on the mbarrier in ops[2]
  bool warp_sync = false;       // a warp-collective .sync.aligned instruction: orders its warp's accesses (race checks)
  uint8_t im2col = 0;           // cp.async.bulk.tensor: 1 .im2col (loads: offsets in ops[5]); 2 another im2col mode (reported when
                                // executed); 3 .tile::gather4 / .tile::scatter4 (coordinates: column, four rows)
  uint32_t stmt = 0;            // index into Program::texts (for reports)
  uint32_t callee = kNoSlot;    // call: the function index (kNoSlot: through the register in ops[1])
  uint32_t table = 0;           // video, texture and brx instructions: the index in Program::video / textures / branch_tables
};

// A parameter or result of a .func: in the callee's registers (.reg; a vector in consecutive
// ones) or in its frame (.param).
struct Formal {
  uint32_t offset = 0;     // .param: where in the frame
  uint32_t size = 0;       // bytes
  uint32_t reg = kNoSlot;  // .reg: the (first) register
  uint32_t elems = 1;      // a vector's elements (registers, or size / elems bytes each); 1 otherwise
};

// A function of the program; [0] is the kernel. Registers of each function are a
// range of slots; its .local and call .param variables live in a per-thread frame.
struct FuncInfo {
  std::string name;
  uint32_t entry = 0;                       // first instruction
  uint32_t slot_first = 0, slot_count = 0;
  uint32_t frame = 0;                       // frame bytes
  std::vector<Formal> params, results;      // in order (several results: `.func (.reg .u32 a, .reg .u32 b) f`)
  // The device runtime's functions, run by the emulator itself.
  enum class Builtin : uint8_t { None, Vprintf, Malloc, Free, AssertFail } builtin = Builtin::None;
};

struct TextureInst;  // texture.hpp

struct Program {
  std::string name;
  std::vector<FuncInfo> funcs;
  std::vector<DInst> code;
  std::vector<uint32_t> vec_slots;   // Vec operands' registers (kNoSlot: the sink `_`)
  std::vector<VideoInst> video;      // the decoded video instructions
  std::vector<std::vector<uint32_t>> branch_tables;  // brx.idx's .branchtargets, as instruction indices
  std::vector<std::pair<uint32_t, uint64_t>> constants;  // registers holding immediates (vector elements, call arguments)
  std::vector<std::shared_ptr<const TextureInst>> textures;  // the decoded texture and surface instructions
  std::vector<Ty> slot_types;
  // The first slot of each .v2/.v4 register: its elements (consecutive slots).
  std::unordered_map<uint32_t, uint32_t> vector_regs;
  uint32_t slots = 0;
  uint32_t static_smem = 0;
  std::vector<uint8_t> params_layout;  // unused: params are laid out from param_offsets
  std::vector<uint32_t> param_offsets, param_sizes;
  uint32_t param_bytes = 0;
  std::vector<std::string> texts;    // instruction text and source location, for reports
  uint32_t req_cluster[3] = {0, 0, 0};  // .reqnctapercluster (0: none)
  bool explicit_cluster = false;        // .explicitcluster
};

struct Globals;
// Decodes `entry`; module-scope variables are allocated in `mem` (once per launch).
class Memory;
Program decode(const ir::Module& m, std::string_view entry, Memory& mem);

}  // namespace ptx::emu
