// Decoder: a function's statements into instructions (opcode, checks, errors); the matrix
// families and brx.
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

// A family decoder's refusal: an unsupported form, or a malformed one.
void Decoder::throw_decode_error(bool is_unsupported, const std::string& what) const {
  if (is_unsupported) throw unsupported(what);
  throw Error(fmt::format("kernel {}: {} (at {})", entry_, what, where_));
}

Unsupported Decoder::unsupported(const std::string& what) const {
  return Unsupported(fmt::format("kernel {}: the emulator does not support {} yet{}", entry_, what,
                           where_.empty() ? "" : " (at " + where_ + ")"));
}

void Decoder::decode_block(uint32_t scope) {
  const auto& stmts = m_.blocks[scopes_.scope(scope).block].stmts;
  for (uint32_t i = 0; i < stmts.size(); ++i) {
    const Stmt& s = stmts[i];
    scope_ = scope;
    at_ = i;
    if (s.kind == StmtKind::Block) decode_block(scopes_.of_block(s.index));
    if (s.kind == StmtKind::Directive) {
      const Directive& d = m_.directives[s.index];
      if (m_.text(d.name) == ".loc") {
        auto items = m_.slice(d.items);
        if (items.size() >= 2) {
          const int64_t file = eval_int(m_, ExprId{items[0].node}).value_or(0);
          const int64_t line = eval_int(m_, ExprId{items[1].node}).value_or(0);
          auto f = files_.find(file);
          loc_ = fmt::format("source {}:{}", f != files_.end() ? f->second : fmt::format("file {}", file), line);
        }
      }
    }
    if (s.kind != StmtKind::Instruction) continue;
    const Instruction& in = m_.instructions[s.index];
    const LineColumn lc = m_.source.size() ? m_.source.locate(in.loc) : LineColumn{};
    where_ = fmt::format("'{}'{}{}", text::print_stmt(m_, s),
                         lc.line ? fmt::format(", {}:{}", m_.source.name(), lc.line) : std::string(),
                         loc_.empty() ? std::string() : ", " + loc_);
    p_.code.push_back(instruction(in));
    p_.code.back().stmt = static_cast<uint32_t>(p_.texts.size());
    p_.texts.push_back(where_);
  }
}

// The instruction's opcode and modifiers in the vocabulary of the ISA table (spec/isa), and the
// forms they fit: the validator's decoding (spec/decoded.hpp). The emulator runs modules nobody
// validated: a modifier the table does not have is an error.
Opcode Decoder::vocabulary(const Instruction& in) {
  decoded_ = spec::decode_modifiers(m_, in);
  if (!decoded_->opcode) throw unsupported(fmt::format("the instruction {}", m_.text(in.opcode)));
  if (decoded_->unknown_at) {
    const std::string_view mod = m_.text(m_.modifiers_of(in)[*decoded_->unknown_at].name);
    throw Error(fmt::format("kernel {}: {}: the ISA has no modifier {} (at {})", entry_, m_.text(in.opcode), mod, where_));
  }
  return *decoded_->opcode;
}

// The matrix families decode in their own files (wgmma.cpp, mma_sync.cpp, wmma.cpp, tcgen05.cpp)
// from the modifiers and the operands; an error there is reported here with the location.
// mma.sync keeps its operands as written (4, or 6 for mma.sp); the others place them.
template <class Decode>
DInst Decoder::matrix(DInst d, std::span<const Mod> mods, std::span<const ListItem> operands, Decode decode,
                      bool keep_operands) {
  std::vector<Opnd> ops;
  for (size_t i = 0; i < operands.size(); ++i) ops.push_back(operand(ExprId{operands[i].node}, d, i));
  if (auto e = decode(d, mods, ops, p_))
    throw_decode_error(e->unsupported, e->what);
  if (keep_operands) {
    d.nops = static_cast<uint8_t>(ops.size());
    std::copy(ops.begin(), ops.end(), d.ops);
  }
  return d;
}

DInst Decoder::instruction(const Instruction& in) {
  DInst d;
  seen_mbar_op_ = false;
  const Opcode op = vocabulary(in);
  const std::vector<Mod>& mods = decoded_->mods;
  d.warp_sync = op != Opcode::bar && op != Opcode::barrier && has(mods, Mod::sync) && has(mods, Mod::aligned);
  if (is_texture_opcode(op)) return texture(d, in, op, mods);
  std::vector<Ty> types;
  for (Mod mo : mods) {
    if (auto t = data_type(mo)) {
      types.push_back(*t);
      continue;
    }
    modifier(d, op, mo);
  }
  if (!types.empty()) d.type = types.back();
  if (types.size() >= 2) d.type2 = types[types.size() - 2];
  if (op == Opcode::cvt && types.size() == 2) d.type = types[0], d.type2 = types[1];  // cvt.dst.src
  if (op == Opcode::cvt && d.sub == kCvtPack) d.type = cvt_pack_type(mods), d.type2 = Ty{'s', 32};  // cvt.pack.sat.ctype.s32{.b32}
  if (is_video(op)) return video(d, in, op, mods);
  if (op == Opcode::brx) return brx(d, in);
  opcode(d, op, mods, types);
  if (d.type.k == 'F' && d.op != Opc::Add && d.op != Opc::Sub && d.op != Opc::Mul && d.op != Opc::Fma)
    throw unsupported(fmt::format("{} on .f32x2", op));
  if (in.guard) {
    const Expr& g = m_.expr(in.guard);
    ExprId name = in.guard;
    if (g.kind == ExprKind::Unary) {
      d.guard_neg = true;
      name = ExprId{g.a};
    }
    d.guard = reg_slot(name);
  }
  const auto operands = m_.operands_of(in);
  check_operand_count(op, operands.size());
  if (d.op == Opc::Call) return call(d, operands);
  if (tensor_) {
    tensor_ = false;
    if (d.op == Opc::Nop || d.im2col == 2 || (d.im2col == 1 && d.sub != 0)) return d;  // prefetch.tensor; other im2col modes: reported when executed
    return tensor(d, operands);
  }
  if (d.op == Opc::Wgmma) return matrix(d, mods, operands, wgmma_decode);
  if (d.op == Opc::Mma) return matrix(d, mods, operands, mma_decode, true);
  if (d.op == Opc::Tcgen05) return matrix(d, mods, operands, tcgen05_decode);
  if (d.op == Opc::Wmma) return matrix(d, mods, operands, wmma_decode);
  if (operands.size() > 6) throw unsupported("instructions with more than 6 operands");
  d.nops = static_cast<uint8_t>(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) d.ops[i] = operand(ExprId{operands[i].node}, d, i);
  if (d.vec > 1 && (d.op == Opc::Ld || d.op == Opc::St || d.op == Opc::Mov)) check_vector_operands(d, op);
  return d;
}

// ld/st/mov .v2/.v4: each vector operand (a brace list or a vector register) has that many
// elements; mov.v4 may read a whole .v4 special register (%tid, %ntid, %ctaid, ...).
void Decoder::check_vector_operands(const DInst& d, Opcode op) const {
  const size_t first = d.op == Opc::St ? 1 : 0, last = d.op == Opc::Mov ? 1 : first;
  for (size_t i = first; i <= last && i < d.nops; ++i)
    if ((d.ops[i].kind != Opnd::Vec || d.ops[i].count != d.vec) &&
        !(i == 1 && d.op == Opc::Mov && d.ops[1].kind == Opnd::Sreg && d.vec == 4))
      throw Error(fmt::format(
          "kernel {}: operand {} of {}.v{} must be a vector of {} elements (in braces, or a .v{} register){} (at {})",
          entry_, i + 1, op, d.vec, d.vec, d.vec,
          d.ops[i].kind == Opnd::Vec ? fmt::format("; it has {}", d.ops[i].count) : std::string(), where_));
}

// The instruction being decoded as written ("add.rn.f32").
std::string Decoder::mnemonic() const {
  std::string text(spec::text_of(*decoded_->opcode));
  for (Mod m : decoded_->mods) text += spec::text_of(m);
  return text;
}

// The operand count against the forms the modifiers fit (spec::decode_modifiers), or against every
// form of the opcode when none fits (a module nobody validated): execution reads as many operands
// as its form has, so a short instruction must not reach it. The matrix families check their
// operands against their own forms, in their own words (wgmma.cpp, mma_sync.cpp, tcgen05.cpp,
// wmma.cpp): for them only the opcode's range is checked here.
void Decoder::check_operand_count(Opcode op, size_t count) const {
  const bool own_words = op == Opcode::wgmma || op == Opcode::mma || op == Opcode::tcgen05 || op == Opcode::wmma;
  std::vector<const spec::Form*> forms;
  if (!own_words)
    for (const spec::FormFit& fit : decoded_->fits) forms.push_back(fit.form);
  const bool fitted = !forms.empty();
  if (!fitted)
    for (const spec::Form& f : spec::forms_for(spec::text_of(op))) forms.push_back(&f);
  if (forms.empty()) return;  // not in the table: opcode() reports what it cannot run
  size_t fewest = SIZE_MAX, most = 0;
  for (const spec::Form* f : forms) {
    size_t required = 0;
    for (const spec::Operand& o : spec::operands(*f)) required += o.optional ? 0 : 1;
    fewest = std::min(fewest, required);
    most = std::max(most, static_cast<size_t>(f->operand_count));
  }
  if (count < fewest || count > most)
    throw Error(fmt::format("kernel {}: {} has {} operand{}; the ISA's forms of {} take {}{}", entry_, op, count,
                            count == 1 ? "" : "s", fitted ? mnemonic() : std::string(spec::text_of(op)),
                            fewest == most ? fmt::format("{}", most) : fmt::format("{} to {}", fewest, most),
                            where_.empty() ? "" : " (at " + where_ + ")"));
}

// brx.idx{.uni} index, table: a jump to the index-th label of a .branchtargets table.
DInst Decoder::brx(DInst d, const Instruction& in) {
  const auto operands = m_.operands_of(in);
  if (operands.size() != 2) throw Error(fmt::format("kernel {}: brx.idx takes an index and a .branchtargets table (at {})", entry_, where_));
  const std::string table(m_.name_of(ExprId{operands[1].node}));
  const Resolved table_decl = resolve(table);
  auto t = table_decl ? branch_tables_.find(table_decl.declaration) : branch_tables_.end();
  if (t == branch_tables_.end()) throw Error(fmt::format("kernel {}: '{}' is not a .branchtargets table of this function (at {})", entry_, table, where_));
  d.op = Opc::Brx;
  d.nops = 1;
  d.ops[0] = operand(ExprId{operands[0].node}, d, 0);
  d.table = static_cast<uint32_t>(p_.branch_tables.size());
  std::vector<uint32_t> targets;
  for (const auto& [decl, name] : t->second) {
    auto l = labels_.find(decl);
    if (l == labels_.end()) throw Error(fmt::format("kernel {}: the branch target {} of {} is not a label (at {})", entry_, name, table, where_));
    targets.push_back(l->second);
  }
  p_.branch_tables.push_back(std::move(targets));
  if (in.guard) {
    const Expr& g = m_.expr(in.guard);
    d.guard_neg = g.kind == ExprKind::Unary;
    d.guard = reg_slot(d.guard_neg ? ExprId{g.a} : in.guard);
  }
  return d;
}

void Decoder::opcode(DInst& d, Opcode op, std::span<const Mod> mods, const std::vector<Ty>& types) {
  static constexpr std::pair<Opcode, Opc> kOps[] = {
      {Opcode::mov, Opc::Mov},   {Opcode::add, Opc::Add},     {Opcode::sub, Opc::Sub},     {Opcode::mul, Opc::Mul},     {Opcode::mad, Opc::Mad},
      {Opcode::fma, Opc::Fma},   {Opcode::div, Opc::Div},     {Opcode::rem, Opc::Rem},     {Opcode::neg, Opc::Neg},     {Opcode::abs, Opc::Abs},
      {Opcode::min, Opc::Min},   {Opcode::max, Opc::Max},     {Opcode::and_, Opc::And},     {Opcode::or_, Opc::Or},       {Opcode::xor_, Opc::Xor},
      {Opcode::not_, Opc::Not},   {Opcode::cnot, Opc::Cnot},   {Opcode::shl, Opc::Shl},     {Opcode::shr, Opc::Shr},     {Opcode::popc, Opc::Popc},
      {Opcode::clz, Opc::Clz},   {Opcode::brev, Opc::Brev},   {Opcode::setp, Opc::Setp},   {Opcode::selp, Opc::Selp},   {Opcode::cvt, Opc::Cvt},
      {Opcode::cvta, Opc::Cvta}, {Opcode::ld, Opc::Ld},       {Opcode::st, Opc::St},       {Opcode::bra, Opc::Bra},     {Opcode::ret, Opc::Ret},
      {Opcode::exit, Opc::Exit}, {Opcode::bar, Opc::Bar},     {Opcode::barrier, Opc::Bar}, {Opcode::shfl, Opc::Shfl},   {Opcode::vote, Opc::Vote},
      {Opcode::match, Opc::Match}, {Opcode::rsqrt, Opc::Rsqrt}, {Opcode::rcp, Opc::Rcp},   {Opcode::sqrt, Opc::Sqrt},   {Opcode::ex2, Opc::Ex2},
      {Opcode::lg2, Opc::Lg2},   {Opcode::sin, Opc::Sin},     {Opcode::cos, Opc::Cos},     {Opcode::tanh, Opc::Tanh},   {Opcode::atom, Opc::Atom},
      {Opcode::red, Opc::Red},   {Opcode::membar, Opc::Nop},  {Opcode::fence, Opc::Nop},   {Opcode::nanosleep, Opc::Nop},
      {Opcode::copysign, Opc::Copysign}, {Opcode::lop3, Opc::Lop3}, {Opcode::prmt, Opc::Prmt}, {Opcode::addc, Opc::Add},
      {Opcode::subc, Opc::Sub}, {Opcode::madc, Opc::Mad}, {Opcode::mul24, Opc::Mul}, {Opcode::mad24, Opc::Mad}, {Opcode::bmsk, Opc::Bmsk}, {Opcode::szext, Opc::Szext}, {Opcode::alloca, Opc::Alloca}, {Opcode::ldu, Opc::Ld}, {Opcode::applypriority, Opc::Nop}, {Opcode::discard, Opc::Nop}, {Opcode::fns, Opc::Fns}, {Opcode::slct, Opc::Slct}, {Opcode::movmatrix, Opc::Movmatrix}, {Opcode::stacksave, Opc::StackSave}, {Opcode::stackrestore, Opc::StackRestore}, {Opcode::bfe, Opc::Bfe}, {Opcode::bfi, Opc::Bfi}, {Opcode::bfind, Opc::Bfind},
      {Opcode::shf, Opc::Shf}, {Opcode::activemask, Opc::Activemask}, {Opcode::redux, Opc::Redux}, {Opcode::trap, Opc::Trap},
      {Opcode::set, Opc::Set}, {Opcode::mbarrier, Opc::Mbarrier}, {Opcode::elect, Opc::Elect}, {Opcode::griddepcontrol, Opc::Nop},
      {Opcode::setmaxnreg, Opc::Nop}, {Opcode::prefetch, Opc::Nop}, {Opcode::prefetchu, Opc::Nop}, {Opcode::createpolicy, Opc::Createpolicy},
      {Opcode::call, Opc::Call}, {Opcode::mapa, Opc::Mapa}, {Opcode::isspacep, Opc::Isspacep}, {Opcode::testp, Opc::Testp},
      {Opcode::pmevent, Opc::Nop}, {Opcode::sad, Opc::Sad}, {Opcode::cp, Opc::CpAsync}, {Opcode::ldmatrix, Opc::Ldmatrix},
      {Opcode::stmatrix, Opc::Stmatrix}, {Opcode::mma, Opc::Mma}, {Opcode::dp4a, Opc::Dp4a}, {Opcode::dp2a, Opc::Dp2a},
      {Opcode::getctarank, Opc::Getctarank}, {Opcode::brkpt, Opc::Brkpt}, {Opcode::wgmma, Opc::Wgmma},
      {Opcode::tcgen05, Opc::Tcgen05}, {Opcode::wmma, Opc::Wmma},
      {Opcode::tensormap, Opc::Tensormap}, {Opcode::clusterlaunchcontrol, Opc::Clc}};
  if (op == Opcode::st && std::exchange(st_bulk_, false)) {  // st.bulk [a], size, 0: zeros
    d.op = Opc::StBulk;
    return;
  }
  if (op == Opcode::multimem) {
    // The emulator is one device: a multimem address is that device's memory, so ld_reduce
    // reduces over one copy (a load), st stores it, red reduces into it.
    const int kind = std::exchange(multimem_, 0);
    if (kind == 0) throw unsupported("this multimem instruction");
    d.op = kind == 1 ? Opc::Ld : kind == 2 ? Opc::St : Opc::Red;
    if (d.space == Space::Generic) d.space = Space::Global;
    return;
  }
  const auto* it = find_in(kOps, op);
  if (!it) throw unsupported(fmt::format("the instruction {}", op));
  d.op = it->second;
  if (op == Opcode::addc || op == Opcode::subc || op == Opcode::madc) d.flags |= kCarryIn;
  if (op == Opcode::mul24 || op == Opcode::mad24) d.sub = kMul24;
  if (op == Opcode::cp) {
    if (cp_nop_) d.op = Opc::Nop;  // commit/wait groups: copies complete when issued here
    else if (tensor_) d.op = Opc::CpAsyncTensor;
    else if (reduce_) d.sub = 3;  // cp.reduce.async.bulk
    if (d.op == Opc::CpAsyncTensor) {
      if (d.vec < 1 || d.vec > 5) throw unsupported("cp.async.bulk.tensor without a dimension (.1d to .5d)");
      // loads go to shared memory (sub 0); stores (1) and reductions (2) to global memory
      d.sub = d.space == Space::Global ? (reduce_ ? 2 : 1) : 0;
      if (d.sub == 0 && !(d.flags & kCompleteTx)) throw unsupported("cp.async.bulk.tensor loads without .mbarrier::complete_tx::bytes");
    }
    cp_nop_ = false;
    reduce_ = false;
    spaces_seen_ = 0;
  }
  if (op == Opcode::tensormap) {
    spaces_seen_ = 0;
    if (d.sub == 0) throw unsupported("this tensormap instruction");
  }
  if (op == Opcode::ldmatrix || op == Opcode::stmatrix) {
    if (auto e = ldmatrix_decode(d, mods))
      throw_decode_error(e->unsupported, e->what);
  }
  if (op == Opcode::set && types.size() == 2) d.type = types[0], d.type2 = types[1];  // set.CmpOp.dtype.stype
  if ((op == Opcode::dp4a || op == Opcode::dp2a) && types.size() == 2) d.type2 = types[0], d.type3 = types[1], d.type = Ty{'s', 32};
  if (op == Opcode::barrier && cluster_barrier_) {  // barrier.cluster.arrive / .wait
    cluster_barrier_ = false;
    bool wait = false;
    for (Mod mo : mods) wait = wait || mo == Mod::wait;
    d.op = Opc::ClusterBar;
    d.sub = wait;
    return;
  }
  if (d.op == Opc::Cvta && to_) {
    d.flags |= d.space == Space::Shared ? kToShared : d.space == Space::Local ? kToLocal : kToGlobal;
    for (Mod mo : mods)
      if (mo == Mod::shared || mo == Mod::shared_cta || mo == Mod::shared_cluster) d.flags = (d.flags & ~(kFromShared | kToGlobal)) | kToShared;
      else if (mo == Mod::local) d.flags = (d.flags & ~(kFromLocal | kToGlobal)) | kToLocal;
    if (d.sub == kCvtaFromParam) d.flags &= ~kToGlobal, d.sub = kCvtaToParam;
    to_ = false;
  }
  if (d.op == Opc::Bar) {
    for (Mod mo : mods)
      if (mo == Mod::arrive) d.sub = kBarArrive;
      else if (mo == Mod::red) d.sub = kBarRed;
      else if (mo == Mod::warp) d.op = Opc::WarpSync;
  }
  if ((d.op == Opc::Setp || d.op == Opc::Selp) && !types.empty()) d.type2 = types.back();
}

}  // namespace ptx::emu::decoding
