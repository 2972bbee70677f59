// Decoding a kernel for the emulator (see program.hpp).
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "ldmatrix.hpp"
#include "mma_sync.hpp"
#include "program.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/ir/scopes.hpp"
#include "ptxpp/spec/isa.hpp"
#include "ptxpp/text/printer.hpp"
#include "tcgen05.hpp"
#include "texture.hpp"
#include "value_types.hpp"
#include "vocab_util.hpp"
#include "wgmma.hpp"
#include "wmma.hpp"

namespace ptx::emu {

namespace {

using namespace ptx::ir;
using spec::Mod;
using spec::Opcode;

struct SymbolInfo {
  Space space;
  uint64_t address;  // device address (global/const), offset in the CTA's shared memory, or in the param buffer
  // An extern .shared array: at the start of the dynamic window (its offset known when decoding ends).
  bool dynamic = false;
};

class Decoder {
 public:
  Decoder(const Module& m, std::string_view entry, Memory& mem) : m_(m), scopes_(m), entry_(entry), mem_(mem) {}

  Program run() {
    const Function* fn = nullptr;
    for (const Stmt& s : m_.root().stmts) {
      if (s.kind == StmtKind::Directive && m_.text(m_.directives[s.index].name) == ".file") {
        auto items = m_.slice(m_.directives[s.index].items);
        if (items.size() >= 2 && m_.expr(ExprId{items[1].node}).kind == ExprKind::String)
          files_[eval_int(m_, ExprId{items[0].node}).value_or(0)] = std::string(m_.text(Symbol{m_.expr(ExprId{items[1].node}).a}));
      }
      if (s.kind == StmtKind::Function) {
        const Function& f = m_.functions[s.index];
        if (f.has_body()) functions_[std::string(m_.text(f.name))] = &f;
        else declared_[std::string(m_.text(f.name))] = &f;
        if (m_.text(f.name) == entry_ && f.has_body() && is_entry(f)) fn = &f;
      }
    }
    for (const Stmt& s : m_.root().stmts) {  // .alias A, B;  A names B's body (calls and addresses)
      if (s.kind != StmtKind::Directive || m_.text(m_.directives[s.index].name) != ".alias") continue;
      auto items = m_.slice(m_.directives[s.index].items);
      if (items.size() != 2) continue;
      const std::string alias(m_.name_of(ExprId{items[0].node})), target(m_.name_of(ExprId{items[1].node}));
      if (auto t = functions_.find(target); t != functions_.end() && !functions_.count(alias)) {
        functions_[alias] = t->second;
        aliases_[alias] = target;
      }
    }
    if (!fn) throw Error(fmt::format("no kernel named '{}' with a body in the module", entry_));
    for (uint32_t h : fn->header) {  // the cluster shape the kernel requires
      const Directive& dir = m_.directives[h];
      const std::string_view name = m_.text(dir.name);
      if (name == ".explicitcluster") p_.explicit_cluster = true;
      if (name != ".reqnctapercluster") continue;
      auto items = m_.slice(dir.items);
      for (size_t i = 0; i < 3; ++i) {
        const int64_t v = i < items.size() ? eval_int(m_, ExprId{items[i].node}).value_or(0) : 1;
        if (v < 1 || v > 16) throw Error(fmt::format("kernel {}: .reqnctapercluster with a dimension of {}", entry_, v));
        p_.req_cluster[i] = static_cast<uint32_t>(v);
      }
    }
    p_.name = std::string(entry_);
    func_index_[std::string(entry_)] = 0;
    p_.funcs.emplace_back();
    pending_.push_back(fn);
    // module variables (their initializers may name functions: tables of function pointers)
    for (const Stmt& s : m_.root().stmts)
      if (s.kind == StmtKind::Decl) module_variable(m_.decls[s.index]);
    // the kernel, then every function it calls (found while decoding), each once
    for (size_t i = 0; i < pending_.size(); ++i) decode_function(*pending_[i], static_cast<uint32_t>(i));
    for (DInst& d : p_.code)
      if (d.op == Opc::Call && d.callee != kNoSlot) d.ops[1].imm = d.callee;
    p_.slots = static_cast<uint32_t>(p_.slot_types.size());
    place_dynamic_window();
    p_.static_smem = static_cast<uint32_t>(smem_);
    return std::move(p_);
  }

  static bool is_entry_word(std::string_view w) { return w == ".entry"; }
  bool is_entry(const Function& f) const {
    for (const Spec& sp : m_.specs_of(f.specs))
      if (is_entry_word(m_.text(sp.word))) return true;
    return false;
  }

  // The index of a function the program calls or takes the address of (decoded later).
  uint32_t function_index(const std::string& called) {
    const auto alias = aliases_.find(called);
    const std::string& name = alias == aliases_.end() ? called : alias->second;  // one function, one address
    if (auto it = func_index_.find(name); it != func_index_.end()) return it->second;
    auto f = functions_.find(name);
    if (f == functions_.end()) {
      static const std::unordered_map<std::string_view, FuncInfo::Builtin> kBuiltins = {
          {"vprintf", FuncInfo::Builtin::Vprintf}, {"malloc", FuncInfo::Builtin::Malloc},
          {"free", FuncInfo::Builtin::Free}, {"__assertfail", FuncInfo::Builtin::AssertFail}};
      auto b = kBuiltins.find(name);
      auto decl = declared_.find(name);
      if (b == kBuiltins.end() || decl == declared_.end())
        throw unsupported(fmt::format("calls to '{}', which has no body in the module", name));
      FuncInfo info;  // the declaration gives the sizes of the arguments and the result
      info.name = name;
      info.builtin = b->second;
      for (const ListItem& it : m_.slice(decl->second->params.params))
        info.params.push_back(Formal{0, param_size(m_.decls[it.node]).first});
      if (decl->second->ret.present)
        for (const ListItem& it : m_.slice(decl->second->ret.params))
          info.results.push_back(Formal{0, param_size(m_.decls[it.node]).first});
      const uint32_t index = static_cast<uint32_t>(p_.funcs.size());
      func_index_[name] = index;
      p_.funcs.push_back(std::move(info));
      return index;
    }
    const uint32_t index = static_cast<uint32_t>(p_.funcs.size());
    func_index_[name] = index;
    p_.funcs.emplace_back();
    pending_.push_back(f->second);
    return index;
  }

  void decode_function(const Function& f, uint32_t index) {
    regs_.clear();
    labels_.clear();
    branch_tables_.clear();
    local_syms_.clear();
    frame_ = 0;
    FuncInfo info;
    info.name = std::string(m_.text(f.name));
    info.entry = static_cast<uint32_t>(p_.code.size());
    info.slot_first = static_cast<uint32_t>(p_.slot_types.size());
    const bool kernel = index == 0;
    // kernel parameters: the launch's argument buffer; .func parameters: the frame
    for (const ListItem& it : m_.slice(f.params.params)) {
      const Decl& d = m_.decls[it.node];
      const auto [size, align] = param_size(d);
      for (const Declarator& dc : m_.declarators_of(d)) {
        const uint32_t bytes = size * static_cast<uint32_t>(std::max<uint64_t>(element_count(dc), 1));
        if (kernel) {
          p_.param_bytes = static_cast<uint32_t>(align_up(p_.param_bytes, align));
          local_syms_[declaration_of(dc)] = {Space::Param, p_.param_bytes};
          p_.param_offsets.push_back(p_.param_bytes);
          p_.param_sizes.push_back(bytes);
          p_.param_bytes += bytes;
        } else {
          info.params.push_back(formal(d, dc));
        }
      }
    }
    if (f.ret.present)
      for (const ListItem& it : m_.slice(f.ret.params))
        for (const Declarator& dc : m_.declarators_of(m_.decls[it.node]))
          info.results.push_back(formal(m_.decls[it.node], dc));
    const uint32_t scope = scopes_.of_function(static_cast<uint32_t>(&f - m_.functions.data()));
    count_ = static_cast<uint32_t>(p_.code.size());
    collect(scope);
    decode_block(scope);
    scope_ = Scopes::kModule;
    at_ = Scopes::kAnywhere;
    if (p_.code.size() == info.entry || (p_.code.back().op != Opc::Ret && p_.code.back().op != Opc::Exit)) {
      DInst ret;
      ret.op = kernel ? Opc::Exit : Opc::Ret;
      ret.stmt = static_cast<uint32_t>(p_.texts.size());
      p_.texts.push_back(fmt::format("(end of {})", info.name));
      p_.code.push_back(ret);
    }
    info.slot_count = static_cast<uint32_t>(p_.slot_types.size()) - info.slot_first;
    info.frame = (frame_ + 15) / 16 * 16;
    p_.funcs[index] = std::move(info);
  }

  // A .func parameter or result: in .reg space (`.func (.reg .u32 r) f(.reg .v2 .u32 a)`) the
  // callee's register(s) it arrives in, else a place in the callee's frame.
  Formal formal(const Decl& d, const Declarator& dc) {
    const DeclInfo di = decl_info(m_, d);
    const auto [size, align] = param_size(d);
    const uint64_t count = element_count(dc);
    Formal f;
    f.size = size * static_cast<uint32_t>(std::max<uint64_t>(count, 1));
    const bool array = !m_.slice(dc.dims).empty();
    f.elems = array ? 1 : di.vector;  // (an array of vectors moves as bytes)
    if (di.space != StateSpace::Reg) {
      f.offset = frame_slot(f.size, align);
      local_syms_[declaration_of(dc)] = {Space::Local, f.offset};
      return f;
    }
    const auto ty = parse_type(di.type);
    if (!ty || ty->bits > 64 || (ty->k == 'p' && di.vector != 1) || dc.range || array)
      throw unsupported(fmt::format("the .reg parameter {} of type {}{}", m_.text(dc.name),
                                    di.vector > 1 ? fmt::format(".v{} ", di.vector) : "", di.type));
    f.reg = register_decl(reg_key(declaration_of(dc), 0), m_.text(dc.name), *ty, di.vector);
    return f;
  }

  std::pair<uint32_t, uint32_t> param_size(const Decl& d) {
    const DeclInfo info = decl_info(m_, d);
    const auto ty = parse_type(info.type);
    const uint32_t size = (ty ? std::max(1, ty->bits / 8) : 8) * info.vector;
    return {size, static_cast<uint32_t>(alignment(info, size, d))};
  }

  uint32_t frame_slot(uint64_t bytes, uint64_t align) {
    frame_ = align_up(frame_, align);
    const uint32_t off = static_cast<uint32_t>(frame_);
    frame_ += bytes;
    return off;
  }

  const SymbolInfo* symbol(const std::string& name) const {
    if (const Resolved r = resolve(name))
      if (auto it = local_syms_.find(r.declaration); it != local_syms_.end()) return &it->second;
    if (auto it = symbols_.find(name); it != symbols_.end()) return &it->second;
    return nullptr;
  }

 private:
  // ---- declarations ------------------------------------------------------------
  // Sizes the emulator declines (a real GPU would too): they only come from broken or hostile input.
  static constexpr uint64_t kMaxBytes = 1ull << 30, kMaxRegisters = 1u << 20, kMaxAlign = 1u << 16;

  uint64_t element_count(const Declarator& dc) {
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
  uint64_t alignment(const DeclInfo& info, uint64_t natural, const Decl& d) const {
    if (!info.align) return std::bit_ceil(std::max<uint64_t>(natural, 1));
    const uint64_t a = *info.align;
    if (a == 0 || !std::has_single_bit(a) || a > kMaxAlign) {
      const LineColumn lc = m_.source.size() ? m_.source.locate(d.loc) : LineColumn{};
      throw Error(fmt::format("kernel {}: .align {}{} is not a power of two up to {}", entry_, a,
                              lc.line ? fmt::format(" ({}:{})", m_.source.name(), lc.line) : std::string(), kMaxAlign));
    }
    return a;
  }

  static uint64_t align_up(uint64_t value, uint64_t align) { return (value + align - 1) / align * align; }

  uint64_t checked_bytes(uint64_t esize, uint64_t count, const Declarator& dc) const {
    if (count && esize > kMaxBytes / count)
      throw Error(fmt::format("kernel {}: the variable {} is too large for the emulator", entry_, m_.text(dc.name)));
    return esize * count;
  }

  void module_variable(const Decl& d) {
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
  SymbolInfo shared_variable(const DeclInfo& info, uint64_t esize, const Decl& d, const Declarator& dc) {
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
  void place_dynamic_window() {
    if (!dynamic_used_) return;
    smem_ = align_up(smem_, dynamic_align_);
    for (DInst& d : p_.code)
      for (Opnd& o : d.ops)
        if (o.dynamic_smem) o.imm += smem_;
  }

  // {a, b, ...}: a list of initializer elements, not a parenthesized expression.
  static bool is_braced(const Expr& e) { return e.kind == ExprKind::List && e.sub == static_cast<uint8_t>(Delim::Brace); }

  // The shape an initializer fills: the declared dimensions, a leading `[]` taken from the
  // initializer's outermost list, and a vector type's lanes as the innermost dimension.
  std::vector<uint64_t> initializer_dims(const Declarator& dc, uint64_t vector) {
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
  uint64_t initializer_value(ExprId id, Ty ty) {
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
  void initialize(uint64_t addr, Ty ty, ExprId init, const std::vector<uint64_t>& dims, uint64_t bytes, const std::string& name) {
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
  uint64_t literal_bits(ExprId id, Ty ty) {
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
  void collect(uint32_t scope) {
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

  void local_decl(const Decl& d) {
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

  void add_reg(uint64_t key, Ty t) {
    regs_.emplace(key, static_cast<uint32_t>(p_.slot_types.size()));
    p_.slot_types.push_back(t);
    if (t.bits == 128) p_.slot_types.push_back(Ty{'b', 64});  // a .b128 register: two slots, low half first
  }

  // A register, or a .v2/.v4 vector register as consecutive slots (its elements %v.x, .y, ...): the first slot.
  uint32_t register_decl(uint64_t key, std::string_view name, Ty t, uint32_t vector) {
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

  // A family decoder's refusal: an unsupported form, or a malformed one.
  [[noreturn]] void throw_decode_error(bool is_unsupported, const std::string& what) const {
    if (is_unsupported) throw unsupported(what);
    throw Error(fmt::format("kernel {}: {} (at {})", entry_, what, where_));
  }

  Unsupported unsupported(const std::string& what) const {
    return Unsupported(fmt::format("kernel {}: the emulator does not support {} yet{}", entry_, what,
                             where_.empty() ? "" : " (at " + where_ + ")"));
  }

  // ---- instructions --------------------------------------------------------------
  void decode_block(uint32_t scope) {
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

  // The instruction's opcode and modifiers in the vocabulary of the ISA table (spec/isa). The
  // emulator runs modules nobody validated: a modifier the table does not have is an error.
  Opcode vocabulary(const Instruction& in, std::vector<Mod>& mods) const {
    const std::string_view text = m_.text(in.opcode);
    const auto op = spec::opcode_of(text);
    if (!op) throw unsupported(fmt::format("the instruction {}", text));
    for (const Modifier& mo : m_.modifiers_of(in)) {
      const auto m = spec::mod_of(m_.text(mo.name));
      if (!m) throw Error(fmt::format("kernel {}: {}: the ISA has no modifier {} (at {})", entry_, text, m_.text(mo.name), where_));
      mods.push_back(*m);
    }
    return *op;
  }

  static bool has(std::span<const Mod> mods, Mod m) { return std::find(mods.begin(), mods.end(), m) != mods.end(); }

  DInst instruction(const Instruction& in) {
    DInst d;
    seen_mbar_op_ = false;
    std::vector<Mod> mods;
    const Opcode op = vocabulary(in, mods);
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
  void check_vector_operands(const DInst& d, Opcode op) const {
    const size_t first = d.op == Opc::St ? 1 : 0, last = d.op == Opc::Mov ? 1 : first;
    for (size_t i = first; i <= last && i < d.nops; ++i)
      if ((d.ops[i].kind != Opnd::Vec || d.ops[i].count != d.vec) &&
          !(i == 1 && d.op == Opc::Mov && d.ops[1].kind == Opnd::Sreg && d.vec == 4))
        throw Error(fmt::format(
            "kernel {}: operand {} of {}.v{} must be a vector of {} elements (in braces, or a .v{} register){} (at {})",
            entry_, i + 1, op, d.vec, d.vec, d.vec,
            d.ops[i].kind == Opnd::Vec ? fmt::format("; it has {}", d.ops[i].count) : std::string(), where_));
  }

  // The emulator runs modules nobody validated: an operand list no form of the ISA table
  // takes (`ld.param.u32 ;`) is refused here instead of being read past its end.
  void check_operand_count(Opcode op, size_t count) const {
    const auto forms = spec::forms_for(spec::text_of(op));
    if (forms.empty()) return;  // not in the table: opcode() reports what it cannot run
    size_t fewest = SIZE_MAX, most = 0;
    for (const spec::Form& f : forms) {
      size_t required = 0;
      for (const spec::Operand& o : spec::operands(f)) required += o.optional ? 0 : 1;
      fewest = std::min(fewest, required);
      most = std::max(most, static_cast<size_t>(f.operand_count));
    }
    if (count < fewest || count > most)
      throw Error(fmt::format("kernel {}: {} has {} operand{}; the ISA's forms of {} take {}{}", entry_, op, count,
                              count == 1 ? "" : "s", op, fewest == most ? fmt::format("{}", most) : fmt::format("{} to {}", fewest, most),
                              where_.empty() ? "" : " (at " + where_ + ")"));
  }

  // tensormap.replace.tile.FIELD{.ss}.b1024.type / tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned
  void tensormap_modifier(DInst& d, Mod mo) {
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
  void clc_modifier(DInst& d, Mod mo) {
    static constexpr std::pair<Mod, ClcOp> kOps[] = {
        {Mod::try_cancel, ClcOp::TryCancel}, {Mod::is_canceled, ClcOp::IsCanceled}, {Mod::get_first_ctaid, ClcOp::FirstCtaid},
        {Mod::get_first_ctaid_x, ClcOp::FirstCtaidX}, {Mod::get_first_ctaid_y, ClcOp::FirstCtaidY}, {Mod::get_first_ctaid_z, ClcOp::FirstCtaidZ}};
    if (const auto* it = find_in(kOps, mo)) return void(d.sub = static_cast<uint8_t>(it->second));
    if (mo == Mod::shared_cta || mo == Mod::shared) return void(d.space = Space::Shared);
    if (mo == Mod::multicast_cluster_all) return void(d.flags |= kMulticast);
    if (mo == Mod::async || mo == Mod::mbarrier_complete_tx_bytes || mo == Mod::query_cancel || mo == Mod::v4) return;
    throw unsupported(fmt::format("the modifier {} of clusterlaunchcontrol", mo));
  }

  // brx.idx{.uni} index, table: a jump to the index-th label of a .branchtargets table.
  DInst brx(DInst d, const Instruction& in) {
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

  static bool is_video(Opcode op) {
    switch (op) {
      case Opcode::vadd: case Opcode::vsub: case Opcode::vabsdiff: case Opcode::vmin: case Opcode::vmax:
      case Opcode::vshl: case Opcode::vshr: case Opcode::vmad: case Opcode::vset: case Opcode::vadd2:
      case Opcode::vsub2: case Opcode::vavrg2: case Opcode::vabsdiff2: case Opcode::vmin2: case Opcode::vmax2:
      case Opcode::vset2: case Opcode::vadd4: case Opcode::vsub4: case Opcode::vavrg4: case Opcode::vabsdiff4:
      case Opcode::vmin4: case Opcode::vmax4: case Opcode::vset4:
        return true;
      default:
        return false;
    }
  }

  // Video instructions (video.cpp): operands are registers with a selector (%r1.h10, %r2.b3210)
  // or, for the scalar forms' a, b and c, immediates.
  DInst video(DInst d, const Instruction& in, Opcode op, std::span<const Mod> mods) {
    VideoInst v;
    if (auto e = video_decode(op, mods, v)) throw unsupported(*e);
    const auto operands = m_.operands_of(in);
    check_operand_count(op, operands.size());
    if (operands.size() < 3 || operands.size() > 4) throw Error(fmt::format("kernel {}: {} takes 3 or 4 operands (at {})", entry_, op, where_));
    v.has_c = operands.size() == 4;
    d.op = Opc::Video;
    d.nops = static_cast<uint8_t>(operands.size());
    for (size_t i = 0; i < operands.size(); ++i) {
      ExprId id{operands[i].node};
      if (const Expr& u = m_.expr(id); u.kind == ExprKind::Unary && u.sub == static_cast<uint8_t>(ir::Op::Neg) && i > 0 &&
                                       v.op == VideoOp::Mad && m_.expr(ExprId{u.a}).kind == ExprKind::Name) {  // vmad's -a, -b (the product), -c
        (i == 3 ? v.neg_c : v.neg_product) ^= true;
        id = ExprId{u.a};
      }
      const Expr& e = m_.expr(id);
      if (e.kind == ExprKind::Name && e.b) {  // the register's component: the selector
        std::string_view sel = m_.text(Symbol{e.b});
        if (!sel.empty() && sel[0] == '.') sel.remove_prefix(1);
        if (!video_selector(v, sel, static_cast<int>(i)))
          throw Error(fmt::format("kernel {}: '{}' is not a selector of {}'s operand {} (at {})", entry_, sel, op, i, where_));
        d.ops[i].kind = Opnd::Reg;
        d.ops[i].slot = base_register(id);
        continue;
      }
      d.ops[i] = operand(id, d, i);
      if (i == 0 && d.ops[0].kind != Opnd::Reg) throw Error(fmt::format("kernel {}: the destination of {} is not a register (at {})", entry_, op, where_));
    }
    if (in.guard) {
      const Expr& g = m_.expr(in.guard);
      d.guard_neg = g.kind == ExprKind::Unary;
      d.guard = reg_slot(d.guard_neg ? ExprId{g.a} : in.guard);
    }
    d.table = static_cast<uint32_t>(p_.video.size());
    p_.video.push_back(v);
    return d;
  }

  // Texture and surface instructions (texture.cpp): operands are read as written, vectors may hold
  // immediates, and the destination may carry a predicate ({..}|p).
  DInst texture(DInst d, const Instruction& in, Opcode op, std::span<const Mod> mods) {
    const auto operands = m_.operands_of(in);
    check_operand_count(op, operands.size());
    std::vector<TexOperand> ops;
    for (size_t i = 0; i < operands.size(); ++i) ops.push_back(texture_operand(ExprId{operands[i].node}, d));
    auto t = std::make_shared<TextureInst>();
    if (auto e = texture_decode(op, mods, ops, *t))
      throw_decode_error(e->unsupported, e->what);
    d.op = Opc::Texture;
    if (in.guard) {
      const Expr& g = m_.expr(in.guard);
      d.guard_neg = g.kind == ExprKind::Unary;
      d.guard = reg_slot(d.guard_neg ? ExprId{g.a} : in.guard);
    }
    d.table = static_cast<uint32_t>(p_.textures.size());
    p_.textures.push_back(std::move(t));
    return d;
  }

  TexOperand texture_operand(ExprId id, DInst& d) {
    const Expr& e = m_.expr(id);
    TexOperand o;
    o.text = text::print_expr(m_, id);
    if (e.kind == ExprKind::List && (e.sub == static_cast<uint8_t>(Delim::Bracket) || e.sub == static_cast<uint8_t>(Delim::Brace))) {
      const bool bracket = e.sub == static_cast<uint8_t>(Delim::Bracket);
      (bracket ? o.bracket : o.vector) = true;
      for (uint32_t i = 0; i < e.b; ++i) {
        const ExprId el{m_.items[e.a + i].node};
        if (bracket) o.items.push_back(texture_operand(el, d));
        else o.values.push_back(operand(el, d, 1));
      }
      return o;
    }
    if (e.kind == ExprKind::Binary && e.sub == static_cast<uint8_t>(Op::BitOr)) {  // {d..}|p
      o = texture_operand(ExprId{e.a}, d);
      o.text = text::print_expr(m_, id);
      o.has_pred = true;
      o.pred = m_.name_of(ExprId{e.b}) == "_" ? kNoSlot : reg_slot(ExprId{e.b});
      return o;
    }
    o.values.push_back(operand(id, d, 1));
    return o;
  }

  // What a modifier means to the emulator (types are read before this). Families decoded by their
  // own decoder read all their modifiers there.
  void modifier(DInst& d, Opcode op, Mod mo) {
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
  static bool modifiers_read_elsewhere(Opcode op) {
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
  bool opcode_modifier(DInst& d, Opcode op, Mod mo) {
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
  bool async_store_modifier(DInst& d, Opcode op, Mod mo) {
    if (op == Opcode::st && mo == Mod::bulk) return st_bulk_ = true;
    if (mo == Mod::mbarrier_complete_tx_bytes) d.async_tx = true;
    if (mo == Mod::async || mo == Mod::mbarrier_complete_tx_bytes) return true;
    return op == Opcode::red && atomic_op(d, mo);
  }

  bool cvt_modifier(DInst& d, Mod mo) {
    if (mo == Mod::pack) return d.sub = kCvtPack, true;
    return d.sub == kCvtPack && pack_type(mo);  // .u2/.s2/.u4/.s4 (the others are types)
  }

  // barrier.cluster.arrive/.wait; bar.red's operation: DInst::boolop (1 popc, 2 and, 3 or)
  bool barrier_modifier(DInst& d, Opcode op, Mod mo) {
    if (op == Opcode::barrier && mo == Mod::cluster) return cluster_barrier_ = true;
    if (op == Opcode::bar && mo == Mod::warp) return true;
    if (cluster_barrier_) return false;
    if (mo == Mod::popc || mo == Mod::and_ || mo == Mod::or_) return d.boolop = mo == Mod::popc ? 1 : mo == Mod::and_ ? 2 : 3, true;
    return mo == Mod::red || mo == Mod::sync || mo == Mod::arrive || mo == Mod::cta || mo == Mod::aligned;
  }

  bool prmt_modifier(DInst& d, Mod mo) {  // the modes: sub 1..6 (0: the general selector form)
    static constexpr std::pair<Mod, uint8_t> kModes[] = {{Mod::f4e, 1}, {Mod::b4e, 2}, {Mod::rc8, 3}, {Mod::ecl, 4}, {Mod::ecr, 5}, {Mod::rc16, 6}};
    const auto* it = find_in(kModes, mo);
    return it && (d.sub = it->second, true);
  }

  bool test_modifier(DInst& d, Mod mo) {
    static constexpr std::pair<Mod, uint8_t> kTests[] = {
        {Mod::finite, 0}, {Mod::infinite, 1}, {Mod::number, 2}, {Mod::notanumber, 3}, {Mod::normal, 4}, {Mod::subnormal, 5}};
    const auto* it = find_in(kTests, mo);
    return it && (d.sub = it->second, true);
  }

  // A state space (.global, .shared{::cta}, .local, .param{::entry}, .const) into `space`.
  static bool space_modifier(DInst&, Mod mo, Space& space) {
    static constexpr std::pair<Mod, Space> kSpaces[] = {
        {Mod::global, Space::Global}, {Mod::shared, Space::Shared}, {Mod::shared_cta, Space::Shared}, {Mod::local, Space::Local},
        {Mod::param, Space::Param},   {Mod::param_entry, Space::Param}, {Mod::param_func, Space::Param},  // (a .func's own, in its frame)
        {Mod::const_, Space::Const}};
    const auto* it = find_in(kSpaces, mo);
    return it && (space = it->second, true);
  }

  bool compare_modifier(DInst& d, Mod mo) {
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
  bool cvta_modifier(DInst& d, Mod mo) {
    if (mo == Mod::shared_cluster) return d.space = Space::Shared, d.flags |= kFromShared, true;
    Space sp = Space::Generic;
    if (!space_modifier(d, mo, sp)) return false;
    d.flags |= sp == Space::Shared ? uint32_t{kFromShared} : sp == Space::Local ? uint32_t{kFromLocal} : 0u;
    if (sp == Space::Param) d.sub = kCvtaFromParam;
    return true;
  }

  static bool shuffle_modifier(DInst& d, Mod mo) {
    static constexpr std::pair<Mod, ShflMode> kModes[] = {
        {Mod::up, ShflMode::Up}, {Mod::down, ShflMode::Down}, {Mod::bfly, ShflMode::Bfly}, {Mod::idx, ShflMode::Idx}};
    const auto* it = find_in(kModes, mo);
    return it && (d.sub = static_cast<uint8_t>(it->second), true);
  }

  static bool vote_modifier(DInst& d, Mod mo) {
    static constexpr std::pair<Mod, VoteMode> kModes[] = {
        {Mod::all, VoteMode::All}, {Mod::any, VoteMode::Any}, {Mod::uni, VoteMode::Uni}, {Mod::ballot, VoteMode::Ballot}};
    const auto* it = find_in(kModes, mo);
    return it && (d.sub = static_cast<uint8_t>(it->second), true);
  }

  // atom, red, redux, multimem: the operation (DInst::sub)
  static bool atomic_op(DInst& d, Mod mo) {
    static constexpr std::pair<Mod, AtomOp> kAtom[] = {
        {Mod::add, AtomOp::Add}, {Mod::min, AtomOp::Min}, {Mod::max, AtomOp::Max}, {Mod::exch, AtomOp::Exch}, {Mod::cas, AtomOp::Cas},
        {Mod::and_, AtomOp::And}, {Mod::or_, AtomOp::Or}, {Mod::xor_, AtomOp::Xor}, {Mod::inc, AtomOp::Inc}, {Mod::dec, AtomOp::Dec}};
    const auto* it = find_in(kAtom, mo);
    return it && (d.sub = static_cast<uint8_t>(it->second), true);
  }

  // A modifier with one meaning whatever the opcode: flags, state spaces, vectors, cache hints.
  bool shared_modifier(DInst& d, Opcode, Mod mo) {
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
  static bool no_effect(Mod mo) {
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

  void opcode(DInst& d, Opcode op, std::span<const Mod> mods, const std::vector<Ty>& types) {
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

  // An immediate where the emulator takes registers (vector elements, call arguments): a register
  // every warp starts with holding it (Program::constants).
  // `ty` is the element's type where the instruction gives one (a float literal becomes its bits
  // in that type: {0f3F800000, 1.5} of st.v2.f32); without one the literal must be an integer.
  uint32_t constant_slot(ExprId id, std::optional<Ty> ty = std::nullopt) {
    uint64_t bits = 0;
    if (ty) bits = literal_bits(id, *ty);
    else if (auto v = eval_int(m_, id)) bits = static_cast<uint64_t>(*v);
    else throw unsupported(fmt::format("the operand '{}'", text::print_expr(m_, id)));
    const uint32_t slot = static_cast<uint32_t>(p_.slot_types.size());
    p_.slot_types.push_back(Ty{'b', 64});
    p_.constants.emplace_back(slot, bits);
    return slot;
  }

  // The register a scalar operand names: a register or an element of a vector register.
  uint32_t reg_slot(ExprId id) {
    const Expr& e = m_.expr(id);
    if (e.kind != ExprKind::Name) throw unsupported(fmt::format("the operand '{}'", text::print_expr(m_, id)));
    const auto r = register_ref(e);
    if (!r)
      throw Error(fmt::format("kernel {}: register {} is not declared (at {})", entry_, m_.text(Symbol{e.a}), where_));
    if (r->count > 1)
      throw Error(fmt::format(
          "kernel {}: {} is a .v{} register where a scalar is expected (its elements: {}.x, {}.y, ...) (at {})", entry_,
          m_.text(Symbol{e.a}), r->count, m_.text(Symbol{e.a}), m_.text(Symbol{e.a}), where_));
    return r->slot;
  }

  // The register `e` (a name) refers to, whatever component follows it (video selectors: %r1.h10).
  uint32_t base_register(ExprId id) {
    const Expr& e = m_.expr(id);
    const Resolved r = e.kind == ExprKind::Name ? resolve(m_.text(Symbol{e.a})) : Resolved{};
    auto it = r ? regs_.find(reg_key(r)) : regs_.end();
    if (it == regs_.end())
      throw Error(
          fmt::format("kernel {}: register {} is not declared (at {})", entry_, text::print_expr(m_, id), where_));
    return it->second;
  }

  // What a name refers to among the registers: a register, an element of a vector register
  // (%v.x, .y, .z, .w, or .r, .g, .b, .a), or a whole vector register (count: its elements);
  // nullopt when no register has the name.
  struct RegRef {
    uint32_t slot, count;
  };
  std::optional<RegRef> register_ref(const Expr& e) {
    const std::string_view name = m_.text(Symbol{e.a});
    const Resolved r = resolve(name);
    auto it = r ? regs_.find(reg_key(r)) : regs_.end();
    if (it == regs_.end()) return std::nullopt;
    const auto v = p_.vector_regs.find(it->second);
    const uint32_t count = v == p_.vector_regs.end() ? 1 : v->second;
    if (!e.b) return RegRef{it->second, count};
    static constexpr std::string_view kElements[] = {".x", ".y", ".z", ".w", ".r", ".g", ".b", ".a"};
    const std::string_view comp = m_.text(Symbol{e.b});
    const auto at = std::find(std::begin(kElements), std::end(kElements), comp);
    const uint32_t index = static_cast<uint32_t>(at - std::begin(kElements)) % 4;
    if (count == 1 || at == std::end(kElements) || index >= count)
      throw Error(fmt::format("kernel {}: {}{} names no element of {} (at {})", entry_, name, comp,
                              count == 1 ? "a scalar register" : fmt::format("the .v{} register {}", count, name),
                              where_));
    return RegRef{it->second + index, 1};
  }

  Opnd operand(ExprId id, const DInst& d, size_t index) {
    const Expr& e = m_.expr(id);
    Opnd o;
    switch (e.kind) {
      case ExprKind::Name: {
        const std::string name(m_.text(Symbol{e.a}));
        if (name == "_") return o.kind = Opnd::Sink, o;
        if (const auto r = register_ref(e)) {
          if (r->count == 1) {
            o.kind = Opnd::Reg;
            o.slot = r->slot;
            return o;
          }
          o.kind = Opnd::Vec;  // a whole vector register: its elements, as a brace list would give them
          o.slot = static_cast<uint32_t>(p_.vec_slots.size());
          o.count = r->count;
          for (uint32_t i = 0; i < r->count; ++i) p_.vec_slots.push_back(r->slot + i);
          return o;
        }
        if (auto l = label(name); l != labels_.end()) {
          o.kind = Opnd::Label;
          o.imm = l->second;
          return o;
        }
        if (const SymbolInfo* s = symbol(name)) {
          o.kind = Opnd::Imm;  // the symbol's address (mov r, sym)
          o.symbol = true;
          o.space = s->space;
          o.imm = s->address;
          o.dynamic_smem = s->dynamic;
          return o;
        }
        if (functions_.count(name)) {  // a function's address (function pointers)
          o.kind = Opnd::Imm;
          o.imm = kFunctionBase + function_index(name);
          return o;
        }
        if (!name.empty() && name[0] == '%') return special(name, e.b ? m_.text(Symbol{e.b}) : std::string_view{});
        if (name == "WARP_SZ") {  // the predefined constant
          o.kind = Opnd::Imm;
          o.imm = 32;
          return o;
        }
        throw Error(fmt::format("kernel {}: '{}' is not declared (at {})", entry_, name, where_));
      }
      case ExprKind::Int:
      case ExprKind::Float:
        o.kind = Opnd::Imm;
        o.imm = literal_bits(id, imm_type(d, index));
        return o;
      case ExprKind::Unary:
        if (e.sub == static_cast<uint8_t>(Op::Not)) {
          o.kind = Opnd::Reg;
          o.slot = reg_slot(ExprId{e.a});
          o.neg = true;
          return o;
        }
        o.kind = Opnd::Imm;
        o.imm = literal_bits(id, imm_type(d, index));
        return o;
      case ExprKind::Binary:
        if (e.sub == static_cast<uint8_t>(Op::BitOr)) {  // d|p; either may be the sink _
          o.kind = Opnd::Pair;
          o.slot = m_.name_of(ExprId{e.a}) == "_" ? kNoSlot : reg_slot(ExprId{e.a});
          o.slot2 = m_.name_of(ExprId{e.b}) == "_" ? kNoSlot : reg_slot(ExprId{e.b});
          return o;
        }
        if (auto v = eval_int(m_, id)) {
          o.kind = Opnd::Imm;
          o.imm = static_cast<uint64_t>(*v);
          return o;
        }
        if (e.sub == static_cast<uint8_t>(Op::Add) && m_.expr(ExprId{e.a}).kind == ExprKind::Name &&
            register_ref(m_.expr(ExprId{e.a}))) {  // %r2+1: the register's value plus the constant (ptxas folds it)
          const auto c = eval_int(m_, ExprId{e.b});
          if (!c) throw unsupported(fmt::format("a register plus a non-constant as an operand ('{}')", text::print_expr(m_, id)));
          o.kind = Opnd::RegPlus;
          o.slot = reg_slot(ExprId{e.a});
          o.imm = static_cast<uint64_t>(*c);
          return o;
        }
        {
          Opnd a = address_expr(id, o, false);
          if (a.symbol && a.slot == kNoSlot) a.kind = Opnd::Imm;  // sym+OFF (mov r, dyn_smem+1024): the address plus the offset
          return a;
        }
      case ExprKind::List:
        if (e.sub == static_cast<uint8_t>(Delim::Bracket) && e.b == 1) return address_expr(ExprId{m_.items[e.a].node}, o, true);
        if (e.sub == static_cast<uint8_t>(Delim::Paren) && e.b == 1)  // ((128 >> 4) << 16): a constant expression
          if (auto v = eval_int(m_, id)) {
            o.kind = Opnd::Imm;
            o.imm = static_cast<uint64_t>(*v);
            return o;
          }
        if (e.sub == static_cast<uint8_t>(Delim::Brace)) {
          o.kind = Opnd::Vec;
          o.slot = static_cast<uint32_t>(p_.vec_slots.size());
          o.count = e.b;
          for (uint32_t i = 0; i < e.b; ++i) {
            const ExprId el{m_.items[e.a + i].node};
            if (m_.name_of(el) == "_") p_.vec_slots.push_back(kNoSlot);
            else if (const Expr& x = m_.expr(el); x.kind == ExprKind::Int || x.kind == ExprKind::Float || x.kind == ExprKind::Unary)
              p_.vec_slots.push_back(constant_slot(el, imm_type(d, index)));  // {0, %rs1}: a register that holds the constant
            else p_.vec_slots.push_back(reg_slot(el));
          }
          return o;
        }
        break;
      default: break;
    }
    throw unsupported(fmt::format("the operand '{}'", text::print_expr(m_, id)));
  }

  Ty imm_type(const DInst& d, size_t index) const {
    if (d.op == Opc::Tcgen05) return Ty{'b', 64};  // descriptors (64-bit), nCols, idesc, offsets, ctaMask
    if (d.op == Opc::Mma) return Ty{'u', 32};    // mma.sp's metadata and sparsity selector
    if (d.op == Opc::Wgmma) return Ty{'s', 64};  // scale-d, imm-scale-a/b (-1, 1), imm-trans-a/b; descriptors
    if (d.op == Opc::Wmma) return Ty{'u', 32};   // the stride
    if (d.op == Opc::Cvt) return d.type2;
    if (d.op == Opc::Shl || d.op == Opc::Shr) return index == 2 ? Ty{'u', 32} : d.type;
    if (d.op == Opc::Shfl || d.op == Opc::Vote || d.op == Opc::Match || d.op == Opc::Bar || d.op == Opc::Prmt ||
        d.op == Opc::Lop3 || (d.op == Opc::Redux && index == 2))  // (redux.f32's member mask is an integer)
      return Ty{'b', 32};
    if (d.op == Opc::Mul || d.op == Opc::Mad) {
      if ((d.flags & kWide) && index <= 2) return d.type;
      if ((d.flags & kWide) && index == 3) return Ty{d.type.k, static_cast<uint8_t>(d.type.bits * 2)};
    }
    if (d.op == Opc::Selp && index == 3) return Ty{'p', 1};
    return d.type;
  }

  // [reg], [reg+imm], [sym], [sym+imm], [imm]
  Opnd address_expr(ExprId id, Opnd o, bool bracketed) {
    (void)bracketed;
    o.kind = Opnd::Addr;
    o.slot = kNoSlot;
    int64_t offset = 0;
    std::function<void(ExprId, bool)> walk = [&](ExprId x, bool negate) {
      const Expr& e = m_.expr(x);
      if (e.kind == ExprKind::Name) {
        const std::string name(m_.text(Symbol{e.a}));
        if (const Resolved r = resolve(name); r && regs_.count(reg_key(r))) {
          if (negate || o.slot != kNoSlot) throw unsupported("this address form");
          o.slot = reg_slot(x);
          return;
        }
        if (const SymbolInfo* s = symbol(name)) {
          if (negate || o.symbol) throw unsupported("this address form");
          o.symbol = true;
          o.space = s->space;
          o.dynamic_smem = s->dynamic;
          offset += static_cast<int64_t>(s->address);
          return;
        }
        throw Error(fmt::format("kernel {}: '{}' is not declared (at {})", entry_, name, where_));
      }
      if (e.kind == ExprKind::Binary && (e.sub == static_cast<uint8_t>(Op::Add) || e.sub == static_cast<uint8_t>(Op::Sub))) {
        walk(ExprId{e.a}, negate);
        walk(ExprId{e.b}, e.sub == static_cast<uint8_t>(Op::Sub) ? !negate : negate);
        return;
      }
      if (auto v = eval_int(m_, x)) {
        offset += negate ? -*v : *v;
        return;
      }
      throw unsupported(fmt::format("the address '{}'", text::print_expr(m_, x)));
    };
    walk(id, false);
    o.imm = static_cast<uint64_t>(offset);
    return o;
  }

  // The matrix families decode in their own files (wgmma.cpp, mma_sync.cpp, wmma.cpp, tcgen05.cpp)
  // from the modifiers and the operands; an error there is reported here with the location.
  // mma.sync keeps its operands as written (4, or 6 for mma.sp); the others place them.
  template <class Decode>
  DInst matrix(DInst d, std::span<const Mod> mods, std::span<const ListItem> operands, Decode decode,
               bool keep_operands = false) {
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

  // cp.async.bulk.tensor: loads [dst], [map, {c...}], [mbar]{, ctaMask}{, policy}; stores and reductions
  // [map, {c...}], [src]{, policy}. ops: [0] the shared-memory box, [1] the map, [2] the coordinates,
  // [3] the mbarrier, [4] the ctaMask.
  DInst tensor(DInst d, std::span<const ListItem> operands) {
    const bool pair = std::exchange(cta_pair_, false);
    if (pair && (d.flags & kMulticast)) throw unsupported("cp.async.bulk.tensor with both .multicast::cluster and .cta_group::2");
    const bool load = d.sub == 0;
    const size_t map_at = load ? 1 : 0;
    const size_t offsets_at = 3;  // .im2col loads: {offsets} after the mbarrier
    const bool offsets = d.im2col == 1;  // .im2col loads: {offsets} after the mbarrier
    const size_t need = load ? 3 + (offsets ? 1 : 0) + ((d.flags & kMulticast) ? 1 : 0) : 2;
    if (operands.size() < need || operands.size() > need + 1) throw unsupported("this cp.async.bulk.tensor operand list");
    const Expr& m = m_.expr(ExprId{operands[map_at].node});
    if (m.kind != ExprKind::List || m.sub != static_cast<uint8_t>(Delim::Bracket) || m.b != 2)
      throw unsupported("a tensor operand other than [map, {coordinates}]");
    d.ops[1] = operand(ExprId{m_.items[m.a].node}, d, 1);
    // the coordinates: registers, or immediates (kImmCoord | the value's low 31 bits)
    const Expr& c = m_.expr(ExprId{m_.items[m.a + 1].node});
    const uint32_t coords = d.im2col == 3 ? 5 : d.vec;  // gather4/scatter4: the column, then four rows
    if (c.kind != ExprKind::List || c.sub != static_cast<uint8_t>(Delim::Brace) || c.b != coords)
      throw unsupported(fmt::format("tensor coordinates other than {{...}} of {} values", coords));
    d.ops[2].kind = Opnd::Vec;
    d.ops[2].slot = static_cast<uint32_t>(p_.vec_slots.size());
    d.ops[2].count = c.b;
    for (uint32_t i = 0; i < c.b; ++i) {
      const ExprId el{m_.items[c.a + i].node};
      if (auto v = eval_int(m_, el)) {
        if (*v < -(int64_t{1} << 30) || *v >= (int64_t{1} << 30)) throw unsupported("a tensor coordinate beyond 30 bits");
        p_.vec_slots.push_back(kImmCoord | (static_cast<uint32_t>(*v) & ~kImmCoord));
      } else {
        if (m_.name_of(el) == "_") throw unsupported("the sink _ as a tensor coordinate");
        p_.vec_slots.push_back(reg_slot(el));
      }
    }
    d.ops[0] = operand(ExprId{operands[load ? 0 : 1].node}, d, 0);
    if (load) {
      d.ops[3] = operand(ExprId{operands[2].node}, d, 3);
      if (offsets) {  // {w, h, d} offsets: rank - 2 16-bit values (registers or immediates, as the coordinates)
        const Expr& f = m_.expr(ExprId{operands[offsets_at].node});
        if (f.kind != ExprKind::List || f.sub != static_cast<uint8_t>(Delim::Brace) || f.b + 2 != d.vec)
          throw unsupported(fmt::format("im2col offsets other than {{...}} of {} values", d.vec - 2));
        d.ops[5].kind = Opnd::Vec;
        d.ops[5].slot = static_cast<uint32_t>(p_.vec_slots.size());
        d.ops[5].count = f.b;
        for (uint32_t i = 0; i < f.b; ++i) {
          const ExprId el{m_.items[f.a + i].node};
          if (auto v = eval_int(m_, el)) p_.vec_slots.push_back(kImmCoord | (static_cast<uint32_t>(*v) & 0xFFFFu));
          else p_.vec_slots.push_back(reg_slot(el));
        }
      }
      if (d.flags & kMulticast) d.ops[4] = operand(ExprId{operands[offsets_at + (offsets ? 1 : 0)].node}, d, 4);
    }
    if (d.ops[0].kind != Opnd::Addr || (load && d.ops[3].kind != Opnd::Addr)) throw unsupported("this cp.async.bulk.tensor operand list");
    d.nops = 5;
    return d;
  }

  // call{.uni} (ret), f, (a, b);  call f, (a);  call (ret), %rd, (a), prototype;
  DInst call(DInst d, std::span<const ListItem> operands) {
    size_t i = 0;
    auto args = [&](ExprId id) {
      const Expr& l = m_.expr(id);
      Opnd o;
      o.kind = Opnd::Vec;
      o.slot = static_cast<uint32_t>(p_.vec_slots.size());
      o.count = l.b;
      for (uint32_t k = 0; k < l.b; ++k) {
        const ExprId el{m_.items[l.a + k].node};
        if (const auto r = m_.expr(el).kind == ExprKind::Name ? register_ref(m_.expr(el)) : std::nullopt) {
          // a register argument (or result), or a whole vector register
          p_.vec_slots.push_back(kRegArg | (r->count > 1 ? kVectorArg : 0u) | r->slot);
          continue;
        }
        if (const Expr& x = m_.expr(el); x.kind == ExprKind::Int || x.kind == ExprKind::Unary) {
          p_.vec_slots.push_back(kRegArg | constant_slot(el));  // an immediate argument: as a register
          continue;
        }
        const SymbolInfo* s = symbol(std::string(m_.name_of(el)));
        if (!s || s->space != Space::Local) throw unsupported(fmt::format("the call argument '{}'", text::print_expr(m_, el)));
        p_.vec_slots.push_back(static_cast<uint32_t>(s->address));  // the argument's frame offset
      }
      return o;
    };
    auto is_list = [&](size_t k) {
      return k < operands.size() && m_.expr(ExprId{operands[k].node}).kind == ExprKind::List &&
             m_.expr(ExprId{operands[k].node}).sub == static_cast<uint8_t>(Delim::Paren);
    };
    if (is_list(0)) d.ops[0] = args(ExprId{operands[i++].node});
    if (i >= operands.size()) throw unsupported("this call");
    const ExprId target{operands[i++].node};
    const std::string tname(m_.name_of(target));
    const Resolved target_decl = resolve(tname);
    if (auto r = target_decl ? regs_.find(reg_key(target_decl)) : regs_.end(); r != regs_.end()) {
      d.ops[1].kind = Opnd::Reg;  // indirect: the register holds a function address
      d.ops[1].slot = r->second;
    } else {
      d.callee = function_index(tname);
      d.ops[1].kind = Opnd::Imm;
    }
    if (is_list(i)) d.ops[2] = args(ExprId{operands[i++].node});
    d.nops = 3;
    return d;
  }

  // cp.async{.ca,.cg}, cp.async.bulk, cp.async.mbarrier.arrive, commit/wait groups
  void cp_modifier(DInst& d, Mod mo) {
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

  void mbarrier_modifier(DInst& d, Mod mo) {
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

  Opnd special(const std::string& name, std::string_view comp) {
    static const std::unordered_map<std::string_view, Sreg> kSregs = {
        {"%tid", Sreg::Tid}, {"%ntid", Sreg::Ntid}, {"%ctaid", Sreg::Ctaid}, {"%nctaid", Sreg::Nctaid},
        {"%laneid", Sreg::Laneid}, {"%warpid", Sreg::Warpid}, {"%nwarpid", Sreg::Nwarpid}, {"%smid", Sreg::Smid},
        {"%nsmid", Sreg::Nsmid}, {"%gridid", Sreg::Gridid}, {"%clock", Sreg::Clock}, {"%clock64", Sreg::Clock64},
        {"%globaltimer", Sreg::Globaltimer}, {"%lanemask_eq", Sreg::LanemaskEq}, {"%lanemask_le", Sreg::LanemaskLe},
        {"%lanemask_lt", Sreg::LanemaskLt}, {"%lanemask_ge", Sreg::LanemaskGe}, {"%lanemask_gt", Sreg::LanemaskGt},
        {"%dynamic_smem_size", Sreg::DynamicSmemSize}, {"%total_smem_size", Sreg::TotalSmemSize},
        {"%clusterid", Sreg::Clusterid}, {"%nclusterid", Sreg::Nclusterid}, {"%cluster_ctaid", Sreg::ClusterCtaid},
        {"%cluster_nctaid", Sreg::ClusterNctaid}, {"%cluster_ctarank", Sreg::ClusterCtarank},
        {"%cluster_nctarank", Sreg::ClusterNctarank}, {"%is_explicit_cluster", Sreg::IsExplicitCluster},
        {"%clock_hi", Sreg::ClockHi}, {"%globaltimer_lo", Sreg::GlobaltimerLo}, {"%globaltimer_hi", Sreg::GlobaltimerHi},
        {"%aggr_smem_size", Sreg::TotalSmemSize}, {"%current_graph_exec", Sreg::Zero}};
    auto it = kSregs.find(name);
    if (it == kSregs.end()) {
      static const char* kZero[] = {"%envreg", "%pm", "%reserved_smem_offset"};  // 0 on this emulated device
      for (const char* z : kZero)
        if (name.rfind(z, 0) == 0) {
          Opnd o;
          o.kind = Opnd::Sreg;
          o.sreg = static_cast<uint8_t>(Sreg::Zero);
          return o;
        }
    }
    if (it == kSregs.end()) throw unsupported(fmt::format("the special register {}", name));
    Opnd o;
    o.kind = Opnd::Sreg;
    o.sreg = static_cast<uint8_t>(it->second);
    o.comp = comp == ".y" ? 1 : comp == ".z" ? 2 : comp == ".w" ? 3 : 0;  // (.w of %tid and the like: 0)
    return o;
  }

  // ---- names: a name means the declaration ir::Scopes finds where it is used --------------
  Resolved resolve(std::string_view name) const { return scopes_.lookup(scope_, at_, name); }
  // A register's key: its declaration, and its index in a %r<N> range.
  static uint64_t reg_key(uint32_t declaration, uint64_t element) { return (uint64_t{declaration} << 32) | element; }
  static uint64_t reg_key(Resolved r) { return reg_key(r.declaration, r.element); }
  uint32_t declaration_of(const Declarator& dc) const {
    return scopes_.of_declarator(static_cast<uint32_t>(&dc - m_.declarators.data()));
  }
  std::unordered_map<uint32_t, uint32_t>::const_iterator label(std::string_view name) const {
    const Resolved r = resolve(name);
    return r && scopes_.declaration(r.declaration).kind == Declaration::Label ? labels_.find(r.declaration)
                                                                              : labels_.end();
  }

  const Module& m_;
  Scopes scopes_;
  uint32_t scope_ = Scopes::kModule, at_ = Scopes::kAnywhere;  // where the statement being decoded is
  std::string_view entry_;
  Memory& mem_;
  Program p_;
  std::unordered_map<uint64_t, uint32_t> regs_;    // reg_key -> first slot
  std::unordered_map<uint32_t, uint32_t> labels_;  // label declaration -> instruction index
  // .branchtargets by their label's declaration: the targets' declarations and names
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, std::string>>> branch_tables_;
  std::unordered_map<std::string, SymbolInfo> symbols_;     // module scope
  std::unordered_map<uint32_t, SymbolInfo> local_syms_;     // the function being decoded, by declaration
  std::unordered_map<std::string, const Function*> functions_, declared_;
  std::unordered_map<std::string, std::string> aliases_;  // .alias A, B: A -> B
  std::unordered_map<std::string, uint32_t> func_index_;
  std::vector<const Function*> pending_;
  uint64_t frame_ = 0;
  uint64_t smem_ = 0;
  uint64_t dynamic_align_ = 16;  // the extern .shared arrays' largest alignment
  bool dynamic_used_ = false;    // some operand may name an extern .shared array
  uint32_t count_ = 0;
  bool to_ = false;
  bool cp_nop_ = false;
  int spaces_seen_ = 0;
  bool cluster_barrier_ = false;
  bool st_bulk_ = false;
  int multimem_ = 0;  // multimem: 1 .ld_reduce, 2 .st, 3 .red (modifier() to opcode())
  bool tensor_ = false, reduce_ = false, cta_pair_ = false;
  bool seen_mbar_op_ = false;
  std::string where_, loc_;
  std::unordered_map<int64_t, std::string> files_;  // .file index -> name
};

}  // namespace

Program decode(const ir::Module& m, std::string_view entry, Memory& mem) { return Decoder(m, entry, mem).run(); }

}  // namespace ptx::emu
