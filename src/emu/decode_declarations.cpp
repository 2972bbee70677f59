// Decoder: declarations (module and .shared variables, initializers, registers, locals)
// and the names that refer to them.
#include <fmt/format.h>

#include "decoder.hpp"

namespace ptx::emu::decoding {

const SymbolInfo* Decoder::symbol(const std::string& name) const {
  if (const Resolved r = resolve(name))
    if (auto it = local_syms_.find(r.declaration); it != local_syms_.end()) return &it->second;
  if (auto it = symbols_.find(name); it != symbols_.end()) return &it->second;
  return nullptr;
}

uint64_t Decoder::element_count(const Declarator& dc) {
  uint64_t n = 1;
  for (const ListItem& dim : m_.slice(dc.dims)) {
    const Expr& l = m_.expr(ExprId{dim.node});
    if (l.b == 0) return 0;  // [] : extern, sized at launch
    const int64_t d = eval_int(m_, ExprId{m_.items[l.a].node}).value_or(0);
    if (d < 0 || (d > 0 && n > kMaxBytes / static_cast<uint64_t>(d)))
      throw Error(fmt::format("kernel {}: the array {} is too large for the emulator", entry_, m_.text(dc.name)));
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

// The declared .align (a power of two the emulator can honour), else the element's natural alignment.
uint64_t Decoder::alignment(const DeclInfo& info, uint64_t natural, const Decl& d) const {
  if (!info.align) return std::bit_ceil(std::max<uint64_t>(natural, 1));
  const uint64_t a = *info.align;
  if (a == 0 || !std::has_single_bit(a) || a > kMaxAlign) {
    const LineColumn lc = m_.source.size() ? m_.source.locate(d.loc) : LineColumn{};
    throw Error(fmt::format("kernel {}: .align {}{} is not a power of two up to {}", entry_, a,
                            lc.line ? fmt::format(" ({}:{})", m_.source.name(), lc.line) : std::string(), kMaxAlign));
  }
  return a;
}

uint64_t Decoder::checked_bytes(uint64_t esize, uint64_t count, const Declarator& dc) const {
  if (count && esize > kMaxBytes / count)
    throw Error(fmt::format("kernel {}: the variable {} is too large for the emulator", entry_, m_.text(dc.name)));
  return esize * count;
}

void Decoder::module_variable(const Decl& d) {
  const DeclInfo info = decl_info(m_, d);
  if (info.space != StateSpace::Global && info.space != StateSpace::Const && info.space != StateSpace::Shared) return;
  const auto ty = parse_type(info.type);
  const uint64_t esize = (ty ? ty->bits / 8 : 1) * info.vector;
  for (const Declarator& dc : m_.declarators_of(d)) {
    const std::string name(m_.text(dc.name));
    if (info.space == StateSpace::Shared) {
      symbols_[name] = shared_variable(info, esize, d, dc);
      continue;
    }
    const std::vector<uint64_t> dims = initializer_dims(dc, info.vector);  // a leading `[]` sized by the initializer
    uint64_t count = 1;
    for (uint64_t n : dims) count = checked_bytes(count, n, dc);  // the product, refused past the emulator's limit
    const uint64_t total = checked_bytes(ty ? ty->bits / 8 : 1, count, dc);
    const uint64_t addr = mem_.alloc(std::max<uint64_t>(total, 1), name);
    symbols_[name] = {info.space == StateSpace::Const ? Space::Const : Space::Global, addr};
    if (dc.init && ty) initialize(addr, *ty, dc.init, dims, total, name);
  }
}

// A .shared variable of the kernel or of a function it calls: the static ones one after another;
// extern arrays (`[]`, sized at launch) all at the start of the dynamic window, which follows
// every static one (one window per CTA, whichever function declares them).
SymbolInfo Decoder::shared_variable(const DeclInfo& info, uint64_t esize, const Decl& d, const Declarator& dc) {
  const uint64_t align = alignment(info, esize, d);
  bool sized = true;
  for (const ListItem& dim : m_.slice(dc.dims)) sized = sized && m_.expr(ExprId{dim.node}).b != 0;
  if (!sized) {
    dynamic_align_ = std::max(dynamic_align_, align);
    dynamic_used_ = true;
    return {Space::Shared, 0, true};
  }
  smem_ = align_up(smem_, align);
  const SymbolInfo s{Space::Shared, smem_};
  smem_ += checked_bytes(esize, element_count(dc), dc);
  if (smem_ > kMaxBytes) throw Error(fmt::format("kernel {}: {} bytes of shared memory", entry_, smem_));
  return s;
}

// The dynamic window starts after the static variables, at the extern arrays' alignment (16 at
// least, as on the GPU); operands naming an extern array get its offset now.
void Decoder::place_dynamic_window() {
  if (!dynamic_used_) return;
  smem_ = align_up(smem_, dynamic_align_);
  for (DInst& d : p_.code)
    for (Opnd& o : d.ops)
      if (o.dynamic_smem) o.imm += smem_;
}

// The shape an initializer fills: the declared dimensions, a leading `[]` taken from the
// initializer's outermost list, and a vector type's lanes as the innermost dimension.
std::vector<uint64_t> Decoder::initializer_dims(const Declarator& dc, uint64_t vector) {
  std::vector<uint64_t> dims;
  for (const ListItem& dim : m_.slice(dc.dims)) {
    const Expr& l = m_.expr(ExprId{dim.node});
    dims.push_back(l.b == 0 ? 0 : static_cast<uint64_t>(std::max<int64_t>(eval_int(m_, ExprId{m_.items[l.a].node}).value_or(0), 0)));
  }
  if (vector > 1) dims.push_back(vector);
  if (!dims.empty() && dims[0] == 0 && dc.init && is_braced(m_.expr(dc.init))) {
    dims[0] = m_.expr(dc.init).b;  // one element (or row) per item
  }
  return dims;
}

// An initializer's element: a literal, or an address expression: sym, sym + 8, generic(sym)
// (the emulator's global and constant addresses are generic ones) and the byte masks
// 0xFF00(generic(sym)) (the masked bits of the address, shifted down).
uint64_t Decoder::initializer_value(ExprId id, Ty ty) {
  const Expr& e = m_.expr(id);
  if (e.kind == ExprKind::Apply) {
    const Expr& callee = m_.expr(ExprId{e.a});
    const Expr& args = m_.expr(ExprId{e.b});
    if (args.kind == ExprKind::List && args.b == 1) {
      const uint64_t inner = initializer_value(ExprId{m_.items[args.a].node}, Ty{'u', 64});
      if (callee.kind == ExprKind::Name && m_.text(Symbol{callee.a}) == "generic") return inner;
      if (callee.kind == ExprKind::Int && callee.value) return (inner & callee.value) >> std::countr_zero(callee.value);
    }
  }
  if (e.kind == ExprKind::Binary && (e.sub == static_cast<uint8_t>(Op::Add) || e.sub == static_cast<uint8_t>(Op::Sub)) &&
      !eval_int(m_, id)) {
    const uint64_t a = initializer_value(ExprId{e.a}, Ty{'u', 64}), b = initializer_value(ExprId{e.b}, Ty{'u', 64});
    return e.sub == static_cast<uint8_t>(Op::Add) ? a + b : a - b;
  }
  return literal_bits(id, ty);
}

// Writes a (nested) initializer: a braced list per dimension ({{1, 2, 3}, {4, 5, 6}}); elements
// not given are zero. As ptxas, a flat list does not fill a multi-dimensional array row after row.
void Decoder::initialize(uint64_t addr, Ty ty, ExprId init, const std::vector<uint64_t>& dims, uint64_t bytes, const std::string& name) {
  const size_t es = ty.bits / 8;
  if (es == 0 || bytes == 0) return;  // a .pred variable or an empty array: nothing to write
  std::vector<uint8_t> data(bytes, 0);
  const uint64_t count = bytes / es;
  auto put = [&](ExprId v, uint64_t index) {
    if (index >= count) throw Error(fmt::format("kernel {}: the initializer of {} has more elements than the variable", entry_, name));
    const uint64_t bits = initializer_value(v, ty);
    std::memcpy(data.data() + index * es, &bits, es);
  };
  std::function<void(ExprId, size_t, uint64_t, uint64_t)> fill = [&](ExprId e, size_t level, uint64_t first, uint64_t span) {
    const Expr& x = m_.expr(e);
    if (!is_braced(x)) {  // a value (parentheses group an expression)
      if (level < dims.size() && dims.size() > 1)  // as ptxas: {21, 22} for a [2][2] array is an error
        throw Error(fmt::format("kernel {}: the initializer of {} has a value where a braced list is expected", entry_, name));
      return put(e, first);
    }
    if (level >= dims.size() || x.b > dims[level])
      throw Error(fmt::format("kernel {}: the initializer of {} has more elements or levels of braces than the variable", entry_, name));
    const uint64_t stride = span / std::max<uint64_t>(dims[level], 1);
    for (uint32_t i = 0; i < x.b; ++i) fill(ExprId{m_.items[x.a + i].node}, level + 1, first + i * stride, stride);
  };
  fill(init, 0, 0, count);
  mem_.write(addr, data.data(), data.size());
}

// A literal as the bits of type ty (floats converted to its width).
uint64_t Decoder::literal_bits(ExprId id, Ty ty) {
  const Expr& e = m_.expr(id);
  if (e.kind == ExprKind::Name) {
    const std::string name(m_.text(Symbol{e.a}));
    if (functions_.count(name)) return kFunctionBase + function_index(name);
    if (auto it = symbols_.find(name); it != symbols_.end() && it->second.space != Space::Shared) return it->second.address;
  }
  if (e.kind == ExprKind::Float) {
    double v;
    if (e.sub == static_cast<uint8_t>(Notation::F32Hex)) {
      if (ty.k != 'f') return e.value;  // the bit pattern, for .b32 and the like
      v = std::bit_cast<float>(static_cast<uint32_t>(e.value));
    } else {
      if (ty.k != 'f' && e.sub == static_cast<uint8_t>(Notation::F64Hex)) return e.value;
      v = std::bit_cast<double>(e.value);
    }
    if (ty.bits == 32) return std::bit_cast<uint32_t>(static_cast<float>(v));
    return std::bit_cast<uint64_t>(v);
  }
  if (auto v = eval_int(m_, id)) {
    if (ty.k == 'f') return ty.bits == 32 ? std::bit_cast<uint32_t>(static_cast<float>(*v)) : std::bit_cast<uint64_t>(static_cast<double>(*v));
    return static_cast<uint64_t>(*v);
  }
  if (e.kind == ExprKind::Unary && e.sub == static_cast<uint8_t>(Op::Neg)) {
    const uint64_t inner = literal_bits(ExprId{e.a}, ty);
    if (ty.k == 'f') return ty.bits == 32 ? std::bit_cast<uint32_t>(-std::bit_cast<float>(static_cast<uint32_t>(inner)))
                                          : std::bit_cast<uint64_t>(-std::bit_cast<double>(inner));
    return 0 - inner;
  }
  throw unsupported(fmt::format("the operand '{}'", text::print_expr(m_, id)));
}

// The declarations of a scope and the scopes in it: registers, variables, labels (by declaration, ir::Scopes).
void Decoder::collect(uint32_t scope) {
  const auto& stmts = m_.blocks[scopes_.scope(scope).block].stmts;
  uint32_t label = Scopes::kNone;  // the label just before this statement (a .branchtargets table's name)
  for (uint32_t i = 0; i < stmts.size(); ++i) {
    const Stmt& s = stmts[i];
    if (s.kind == StmtKind::Directive && m_.text(m_.directives[s.index].name) == ".branchtargets" &&
        label != Scopes::kNone) {
      auto& targets = branch_tables_[label];
      for (const ListItem& it : m_.slice(m_.directives[s.index].items)) {
        const std::string_view name = m_.name_of(ExprId{it.node});
        const Resolved r = scopes_.lookup(scope, i, name);
        targets.emplace_back(r ? r.declaration : Scopes::kNone, name);
      }
    }
    label = s.kind == StmtKind::Label ? scopes_.of_label(s.index) : Scopes::kNone;
    switch (s.kind) {
      case StmtKind::Decl: local_decl(m_.decls[s.index]); break;
      case StmtKind::Label:
        labels_[scopes_.of_label(s.index)] = count_;
        break;
      case StmtKind::Instruction: ++count_; break;
      case StmtKind::Block:
        collect(scopes_.of_block(s.index));
        break;
      default: break;
    }
  }
}

void Decoder::local_decl(const Decl& d) {
  const DeclInfo info = decl_info(m_, d);
  const auto ty = parse_type(info.type);
  for (const Declarator& dc : m_.declarators_of(d)) {
    const std::string name(m_.text(dc.name));
    const uint32_t decl = declaration_of(dc);
    if (info.space == StateSpace::Reg) {
      if (!ty)
        throw Error(fmt::format("kernel {}: register %{} has type '{}', which is not a register type (.b32, .f16x2, .pred, ...)",
                                entry_, name.substr(name[0] == '%'), info.type));
      const Ty t = *ty;
      if (dc.range) {
        const Expr& l = m_.expr(dc.range);
        const int64_t n = l.b ? eval_int(m_, ExprId{m_.items[l.a].node}).value_or(0) : 0;
        if (n < 0 || p_.slot_types.size() + static_cast<uint64_t>(n) * info.vector > kMaxRegisters)
          throw Error(fmt::format("kernel {}: {} registers {}<...>: more than the emulator takes ({} in a kernel and its functions)", entry_, n,
                                  name, kMaxRegisters));
        for (int64_t i = 0; i < n; ++i)
          register_decl(reg_key(decl, static_cast<uint64_t>(i)), fmt::format("{}{}", name, i), t, info.vector);
      } else {
        register_decl(reg_key(decl, 0), name, t, info.vector);
      }
    } else if (info.space == StateSpace::Shared) {
      local_syms_[decl] = shared_variable(info, (ty ? ty->bits / 8 : 1) * info.vector, d, dc);
    } else if (info.space == StateSpace::Param || info.space == StateSpace::Local) {
      // .local variables and the .param variables of call sequences: in the thread's frame
      const uint64_t esize = (ty ? std::max(1, ty->bits / 8) : 1) * info.vector;
      local_syms_[decl] = {
          Space::Local,
          frame_slot(checked_bytes(esize, std::max<uint64_t>(element_count(dc), 1), dc), alignment(info, esize, d))};
      if (frame_ > (1u << 24)) throw Error(fmt::format("kernel {}: a {}-byte frame of local variables", entry_, frame_));
    }
  }
}

void Decoder::add_reg(uint64_t key, Ty t) {
  regs_.emplace(key, static_cast<uint32_t>(p_.slot_types.size()));
  p_.slot_types.push_back(t);
  if (t.bits == 128) p_.slot_types.push_back(Ty{'b', 64});  // a .b128 register: two slots, low half first
}

// A register, or a .v2/.v4 vector register as consecutive slots (its elements %v.x, .y, ...): the first slot.
uint32_t Decoder::register_decl(uint64_t key, std::string_view name, Ty t, uint32_t vector) {
  const uint32_t first = static_cast<uint32_t>(p_.slot_types.size());
  if (vector == 1) {
    add_reg(key, t);
    return first;
  }
  if (t.bits > 64 || t.k == 'p' || vector > 4)
    throw unsupported(
        fmt::format("the vector register {} (.v{} of {}-bit elements)", name, vector, static_cast<int>(t.bits)));
  regs_.emplace(key, first);
  p_.slot_types.insert(p_.slot_types.end(), vector, t);
  p_.vector_regs.emplace(first, vector);
  return first;
}

uint32_t Decoder::declaration_of(const Declarator& dc) const {
  return scopes_.of_declarator(static_cast<uint32_t>(&dc - m_.declarators.data()));
}

std::unordered_map<uint32_t, uint32_t>::const_iterator Decoder::label(std::string_view name) const {
  const Resolved r = resolve(name);
  return r && scopes_.declaration(r.declaration).kind == Declaration::Label ? labels_.find(r.declaration)
                                                                            : labels_.end();
}

}  // namespace ptx::emu::decoding
