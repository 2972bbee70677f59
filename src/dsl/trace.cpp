#include "trace.hpp"

#include <cctype>

#include <atomic>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "../spec/type_rules.hpp"
#include "ptxpp/dsl/inst.hpp"

namespace ptx::dsl {

namespace {

constexpr const char* kNoB1Registers = "there are no .b1 registers: .b1 matrix elements are packed 32 to a .b32 register";

std::atomic<uint32_t> g_serial{1};

using spec::KindTag;

// The register's DSL type against the instruction type, beyond what ptxas checks (it sees only the
// .bN declaration): integer registers are refused for float types (.f32, .bf16, .tf32, .e4m3, ...)
// and float registers for integer ones; .bN registers, and .bN and packed instruction types, take
// any register of their size (the size is register_matches' part).
bool class_fits(DType have, std::string_view want) {
  const auto w = spec::detail::type_info(want);
  const TypeClass h = facts(have).cls;
  if (!w || h == TypeClass::Bits || w->cls == TypeClass::Bits || w->lanes > 1) return true;  // packed: .f16x2, .u16x2, ...
  if (w->cls == TypeClass::Float || w->cls == TypeClass::Opaque) return h == TypeClass::Float;
  if (w->cls == TypeClass::Unsigned || w->cls == TypeClass::Signed) return h == TypeClass::Unsigned || h == TypeClass::Signed;
  return true;
}

bool reg_fits(const Operand& o, const spec::Kind& k, const detail::Candidate& c) {
  // predicate registers are registers of type .pred (mov.pred, selp's operands, ...)
  if (o.kind != OperandKind::Reg && o.kind != OperandKind::Special && o.kind != OperandKind::Pred) return false;
  if (o.type == DType::none) return true;  // from ptx::asm_ text: the register's type is not known here
  const std::string_view want = detail::resolve(k.type, c);
  if (want.empty()) return true;
  if (o.kind == OperandKind::Special && o.reg != 0xFFFFFFFFu) {
    // ".u32|.u16": the register's type, then the narrower legacy types mov/cvt may read it with (as the validator)
    for (std::string_view alt = spec::special_registers()[o.reg].type; !alt.empty();) {
      const size_t bar = alt.find('|');
      if (spec::detail::register_matches(alt.substr(0, bar), want, k.wide)) return true;
      alt = bar == std::string_view::npos ? std::string_view{} : alt.substr(bar + 1);
    }
    return false;
  }
  const std::string_view have = o.kind == OperandKind::Reg ? facts(o.type).decl : name(o.type);
  if (o.kind == OperandKind::Reg && !class_fits(o.type, want)) return false;
  return spec::detail::register_matches(have, want, k.wide) || spec::detail::register_matches(name(o.type), want, k.wide);
}

bool kind_fits(const Operand& o, const spec::Kind& k, const detail::Candidate& c) {
  switch (k.tag) {
    case KindTag::Vec:
      if (k.count_literal == 0 && k.count_letter == 0 && k.count.is_group && detail::resolve(k.count, c).empty()) {
        // vec(.vec, T) with .vec not written: a scalar register; vec(.vec, T, imm): or an immediate (as the validator)
        if (k.imm && o.kind == OperandKind::Imm) {
          const std::string_view want = detail::resolve(k.type, c);
          return want.empty() || spec::detail::integer_immediates(want) != is_float(o.type);
        }
        if (o.kind == OperandKind::Vec) return o.count == 1;  // {r}: a scalar written as a one-element vector
        return reg_fits(o, k, c);
      }
      // a vector register declared as text (type unknown here), or %tid / %ntid as a whole (mov.v4.u32)
      if (o.kind == OperandKind::Reg && o.type == DType::none) return true;
      if (o.kind == OperandKind::Special && o.reg != 0xFFFFFFFFu && !spec::special_registers()[o.reg].components.empty())
        return true;
      if (o.kind != OperandKind::Vec) return false;
      if (k.count_literal) return k.count_literal == o.count;
      if (k.count.is_group && k.count_letter == 0) {  // .v4 -> 4
        const std::string_view v = detail::resolve(k.count, c);
        if (v.size() > 2 && v[1] == 'v') return static_cast<uint32_t>(std::atoi(std::string(v.substr(2)).c_str())) == o.count;
      }
      return true;
    case KindTag::Reg: return reg_fits(o, k, c);
    case KindTag::Imm: {
      if (o.kind != OperandKind::Imm) return false;
      const std::string_view want = detail::resolve(k.type, c);
      if (want.empty()) return true;
      // ptxas takes integer immediates for integer types and float immediates (0f/0d) for float types
      return spec::detail::integer_immediates(want) != is_float(o.type);
    }
    case KindTag::Pred: return o.kind == OperandKind::Pred || (k.negate && o.kind == OperandKind::NegPred);
    case KindTag::Addr: return o.kind == OperandKind::Addr;
    case KindTag::Label: return o.kind == OperandKind::Label || (o.kind == OperandKind::Symbol && o.type == DType::none);
    case KindTag::Symbol:
    case KindTag::Func:
    case KindTag::TexRef:
    case KindTag::SamplerRef:
    case KindTag::SurfRef: return o.kind == OperandKind::Symbol;
    case KindTag::Args: return o.kind == OperandKind::Args;
    case KindTag::Sink: return o.kind == OperandKind::Sink;
  }
  return false;
}

bool operand_fits(const Operand& o, const spec::Operand& so, const detail::Candidate& c) {
  if (so.member_count) return o.kind == OperandKind::Addr || o.kind == OperandKind::Vec;
  if (!so.pair.empty() && o.kind == OperandKind::Pred) return true;  // p|q written as one operand
  if (so.address) {
    if (o.kind == OperandKind::Addr) return true;
  }
  for (const spec::Kind& k : spec::kinds(so))
    if (kind_fits(o, k, c)) return true;
  return false;
}

// ops[i..] against the form's operands [j..]; optional ones may be left out.
bool operands_fit(std::span<const Operand> ops, size_t i, std::span<const spec::Operand> fo, size_t j,
                  const detail::Candidate& c) {
  if (j == fo.size()) return i == ops.size();
  if (i < ops.size() && operand_fits(ops[i], fo[j], c) && operands_fit(ops, i + 1, fo, j + 1, c)) return true;
  return fo[j].optional && operands_fit(ops, i, fo, j + 1, c);
}

}  // namespace

std::string describe(const Operand& o) {
  switch (o.kind) {
    case OperandKind::Reg: return fmt::format("a {} register", name(o.type));
    case OperandKind::Pred: return "a predicate";
    case OperandKind::NegPred: return "a negated predicate";
    case OperandKind::Imm: return is_float(o.type) ? "a float immediate" : "an integer immediate";
    case OperandKind::Vec: return fmt::format("a vector of {}", o.count);
    case OperandKind::Addr: return "an address";
    case OperandKind::Label: return "a label";
    case OperandKind::Symbol: return "a symbol";
    case OperandKind::Sink: return "the sink _";
    case OperandKind::Special: return "a special register";
    case OperandKind::Args: return "an argument list";
  }
  return "an operand";
}

namespace {
// The big pools of the last finished trace on this thread, kept (cleared, with their
// capacity) for the next one: tuning sweeps trace many kernels, and fresh memory
// costs a page fault per 4 KB.
struct Spare {
  std::vector<ir::Expr> exprs;
  std::vector<ir::ListItem> items;
  std::vector<ir::Modifier> modifiers;
  std::vector<ir::Instruction> instructions;
  std::vector<ir::Stmt> body;
};
thread_local Spare g_spare;
}  // namespace

bool is_identifier(std::string_view s) {
  return !s.empty() && !(s[0] >= '0' && s[0] <= '9') &&
         s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$") == std::string_view::npos;
}

uint32_t mov_key(DType t, ptx::SourceLocation where) {
  static std::array<std::atomic<uint32_t>, static_cast<size_t>(DType::none) + 1> keys{};  // key + 1; 0: not yet
  std::atomic<uint32_t>& slot = keys[static_cast<size_t>(t)];
  uint32_t k = slot.load(std::memory_order_acquire);
  if (k == 0) {
    RuntimeChain mov(inst::mov);
    if (t == DType::pred || t == DType::f32 || t == DType::f64) mov.then(name(t), where);
    else if (is_float(t)) mov.then(fmt::format(".b{}", bits(t)), where);
    else mov.then(name(integer_like(t)), where);
    k = detail::mnemonic_key(mov, where) + 1;
    slot.store(k, std::memory_order_release);
  }
  return k - 1;
}

DType param_type(DType t) { return is_float(t) && bits(t) == 16 ? DType::b16 : t; }

Trace::Trace(const TraceOptions& o) : options(o), serial(g_serial.fetch_add(1)) {
  m.exprs.swap(g_spare.exprs);
  m.items.swap(g_spare.items);
  m.modifiers.swap(g_spare.modifiers);
  m.instructions.swap(g_spare.instructions);
  body.swap(g_spare.body);
}

Trace::~Trace() {
  auto keep = [](auto& from, auto& to) {
    if (from.capacity() > to.capacity()) {
      from.clear();
      to.swap(from);
    }
  };
  keep(m.exprs, g_spare.exprs);
  keep(m.items, g_spare.items);
  keep(m.modifiers, g_spare.modifiers);
  keep(m.instructions, g_spare.instructions);
  keep(body, g_spare.body);
}

PTXPP_TRACE_TLS thread_local Trace* g_running = nullptr;

void Trace::no_trace(ptx::SourceLocation where) {
  throw Error("a ptx:: instruction or register used outside a kernel trace", where);
}

Trace::Scope::Scope(Trace& t) : saved_(g_running) { g_running = &t; }
Trace::Scope::~Scope() { g_running = saved_; }

std::string Trace::unique_name(std::string_view hint) {
  std::string base(hint);
  auto [it, fresh] = used_names_.try_emplace(base, 1);
  if (fresh) return base;
  for (;;) {
    std::string name = fmt::format("{}_{}", base, ++it->second);
    if (used_names_.try_emplace(name, 1).second) return name;
  }
}

Reg Trace::new_reg(DType t, std::string_view name, ptx::SourceLocation where) {
  if (t == DType::none) throw Error("a register needs a type", where);
  if (t == DType::b1) throw Error(kNoB1Registers, where);
  const TypeFacts& f = facts(t);
  std::string text;
  if (in_block()) {
    if (!name.empty() && !is_identifier(name))
      throw Error(fmt::format("register name '{}' is not a PTX identifier", name), where);
    // auto-named registers take the function's next number, so they hide nothing; named ones are the block's own
    if (name.empty()) {
      Prefix& p = prefixes_[prefix_slot(f.prefix)];
      if (p.decl.empty()) p.decl = std::string(f.decl);
      text = fmt::format("{}{}", f.prefix, p.next++);
      blocks_.back().names.insert(text);
    } else {
      text = block_name(fmt::format("%{}", name));
    }
    declare_in_block(f.decl, text, 0);
    const ir::ExprId e = m.add_name(text);
    blocks_.back().regs.push_back(e.v);
    return Reg::adopt(next_reg_id_++, t, e, serial);
  }
  if (name.empty()) {
    uint8_t& slot = prefix_of_type_[static_cast<size_t>(t)];
    if (slot == 0) slot = static_cast<uint8_t>(prefix_slot(f.prefix) + 1);
    Prefix& p = prefixes_[slot - 1];
    if (p.decl.empty()) p.decl = std::string(f.decl);
    char buf[32];
    const size_t plen = f.prefix.size();
    std::copy(f.prefix.begin(), f.prefix.end(), buf);
    const auto res = std::to_chars(buf + plen, buf + sizeof buf, p.next++);
    text.assign(buf, res.ptr);
  } else {
    if (!is_identifier(name))
      throw Error(fmt::format("register name '{}' is not a PTX identifier", name), where);
    text = unique_name(fmt::format("%{}", name));
    named_.push_back({std::string(f.decl), text, 0});
  }
  return Reg::adopt(next_reg_id_++, t, m.add_name(text), serial);
}

std::vector<Reg> Trace::new_array(DType t, uint32_t count, std::string_view name, ptx::SourceLocation where) {
  if (count == 0) throw Error("a register array needs at least one register", where);
  if (t == DType::b1) throw Error(kNoB1Registers, where);
  const auto fresh = [&](const std::string& n) { return in_block() ? block_name(n) : unique_name(n); };
  std::string base = fresh(fmt::format("%{}", name.empty() ? "ra" : name));
  // ptxas does not know the elements of %x1<N> or %x_2<N> (a name ending in a digit):
  // such a name (a second array named "x" is "x_2") gets a trailing underscore.
  while (std::isdigit(static_cast<unsigned char>(base.back()))) base = fresh(base + "_");
  if (in_block())
    declare_in_block(facts(t).decl, base, count);
  else
    named_.push_back({std::string(facts(t).decl), base, count});
  std::vector<Reg> out;
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const ir::ExprId e = m.add_name(fmt::format("{}{}", base, i));
    if (in_block()) blocks_.back().regs.push_back(e.v);
    out.push_back(Reg::adopt(next_reg_id_++, t, e, serial));
  }
  return out;
}

std::vector<Reg> Trace::declare_regs(DType t, std::string_view name, uint32_t count, ptx::SourceLocation where) {
  if (t == DType::none) throw Error("a register needs a type", where);
  const std::string_view bare = !name.empty() && name[0] == '%' ? name.substr(1) : name;
  if (!is_identifier(bare)) throw Error(fmt::format("register name '{}' is not a PTX identifier", name), where);
  used_names_.try_emplace(std::string(name), 1);
  const ir::ExprId range = count ? m.add_list(ir::Delim::Angle, {m.add_int(count)}) : ir::ExprId{};
  body.push_back(ir::Stmt{ir::StmtKind::Decl, m.add_decl({".reg", ptx::name(t)}, name, range)});
  last_instruction = last_dest = 0xFFFFFFFFu;
  std::vector<Reg> out;
  if (count == 0) {
    out.push_back(Reg::adopt(next_reg_id_++, t, m.add_name(name), serial));
    return out;
  }
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i)
    out.push_back(Reg::adopt(next_reg_id_++, t, m.add_name(fmt::format("{}{}", name, i)), serial));
  return out;
}

Reg Trace::reg_ref(DType t, std::string_view name, ptx::SourceLocation where) {
  if (name.empty()) throw Error("a register needs a name", where);
  used_names_.try_emplace(std::string(name), 1);
  return Reg::adopt(next_reg_id_++, t, m.add_name(name), serial);
}

uint32_t Trace::new_label_exact(std::string_view name, ptx::SourceLocation where) {
  if (name.empty()) throw Error("a label needs a name", where);
  used_names_.try_emplace(std::string(name), 1);
  LabelInfo l;
  l.name = std::string(name);
  l.block = in_block() ? blocks_.back().serial : 0;
  labels_.push_back(std::move(l));
  return static_cast<uint32_t>(labels_.size() - 1);
}

namespace {
void set_lead(ir::Module& m, ir::Stmt s, ir::Trivia t) {
  switch (s.kind) {
    case ir::StmtKind::Instruction: m.instructions[s.index].lead = t; break;
    case ir::StmtKind::Label: m.labels[s.index].lead = t; break;
    case ir::StmtKind::Decl: {
      const ir::Decl& d = m.decls[s.index];
      if (d.specs.count) m.specs[d.specs.first].lead = t;
      break;
    }
    case ir::StmtKind::Directive: m.directives[s.index].lead = t; break;
    case ir::StmtKind::Block: m.blocks[s.index].open = t; break;
    case ir::StmtKind::Prototype: m.prototypes[s.index].lead = t; break;
    default: break;
  }
}
}  // namespace

ir::Trivia Trace::apply_leads(std::vector<ir::Stmt>& stmts, size_t offset) {
  const ir::Trivia newline{m.intern("\n").id};
  for (size_t i = 0; i < stmts.size(); ++i) {
    const auto it = i >= offset ? leads.find(i - offset) : leads.end();
    set_lead(m, stmts[i], it == leads.end() ? newline : ir::Trivia{m.intern(it->second + "\n").id});
  }
  const auto close = leads.find(stmts.size() - offset);
  return close == leads.end() ? newline : ir::Trivia{m.intern(close->second + "\n").id};
}

void Trace::bad_reg(const Reg& r, ptx::SourceLocation where) const {
  if (!r.valid()) throw Error("use of an empty or moved-from register", where);
  throw Error("a register of another kernel trace used here", where);
}

uint32_t Trace::new_label(std::string_view hint, ptx::SourceLocation) {
  const std::string base = fmt::format("$L__{}", hint.empty() ? "L" : hint);
  LabelInfo l;
  l.name = in_block() ? block_name(base) : unique_name(base);
  l.block = in_block() ? blocks_.back().serial : 0;
  labels_.push_back(std::move(l));
  return static_cast<uint32_t>(labels_.size() - 1);
}

void Trace::place_label(uint32_t label, ptx::SourceLocation where) {
  LabelInfo& l = labels_.at(label);
  if (l.placed)
    throw Error(fmt::format("label {} placed twice (first at line {})", l.name, l.placed_at.line()), where);
  const uint32_t here = in_block() ? blocks_.back().serial : 0;
  if (l.block != here)
    throw Error(fmt::format("label {} belongs to {}; it can only be placed there (make the label inside the block "
                            "that places it)",
                            l.name, l.block ? "a ptx::block that has ended or encloses this one" : "the function body"),
                where);
  l.placed = true;
  l.placed_at = where;
  body.push_back(m.add_label(l.name));
  last_instruction = last_dest = 0xFFFFFFFFu;
}

ir::ExprId Trace::use_label(uint32_t label, ptx::SourceLocation where) {
  LabelInfo& l = labels_.at(label);
  if (!l.used) {
    l.used = true;
    l.first_use = where;
  }
  const ir::ExprId e = m.add_name(l.name);
  // reported by the instruction that uses it, at its line
  if (l.ended) ended_names_.emplace(e.v, std::pair("label " + l.name, l.block_where));
  return e;
}

Trace::Local& Trace::local_slow(uint32_t key) {
  if (key >= local_of_key_.size()) local_of_key_.resize(key + 1, -1);
  const detail::MnemonicInfo& info = detail::mnemonic_info(key);
  Local l;
  l.opcode = m.intern(info.opcode);
  l.mods.first = static_cast<uint32_t>(m.modifiers.size());
  l.mods.count = static_cast<uint32_t>(info.mods.size());
  for (std::string_view mod : info.mods) m.modifiers.push_back(ir::Modifier{m.intern(mod), {}});
  l.allowed.assign(info.candidates.size(), -1);
  if (!options.validate && !info.candidates.empty()) need(info.candidates[0].ptx);
  local_of_key_[key] = static_cast<int32_t>(locals_.size());
  locals_.push_back(std::move(l));
  return locals_.back();
}

namespace {
// What operand checking depends on: kind, type and element count of each operand.
uint64_t signature(std::span<const Operand> ops) {
  uint64_t h = ops.size();
  for (const Operand& o : ops)
    h = h * 0x9E3779B97F4A7C15ull + ((static_cast<uint64_t>(o.kind) << 16) | (static_cast<uint64_t>(o.type) << 8) | o.count);
  return h;
}
}  // namespace

int Trace::pick_candidate(uint32_t key, Local& l, std::span<const Operand> ops, ptx::SourceLocation where) {
  const uint64_t sig = signature(ops);
  for (const auto& [s, c] : l.checked)
    if (s == sig) return c;
  const int c = pick_candidate_slow(key, l, ops, where);
  l.checked.emplace_back(sig, c);
  const detail::Candidate& cand = detail::mnemonic_info(key).candidates[static_cast<size_t>(c)];
  need(cand.ptx);
  return c;
}

int Trace::pick_candidate_slow(uint32_t key, Local& l, std::span<const Operand> ops, ptx::SourceLocation where) {
  const detail::MnemonicInfo& info = detail::mnemonic_info(key);
  if (info.candidates.empty()) {
    if (!info.known_opcode) throw Error(fmt::format("'{}' is not an instruction of the ISA table", info.opcode), where);
    throw Error(fmt::format("'{}': modifiers do not fit any form of {}", info.text, info.opcode), where);
  }
  int shape_ok = -1;
  for (size_t i = 0; i < info.candidates.size(); ++i) {
    const detail::Candidate& c = info.candidates[i];
    if (!operands_fit(ops, 0, spec::operands(*c.form), 0, c)) continue;
    if (shape_ok < 0) shape_ok = static_cast<int>(i);
    if (l.allowed[i] < 0) {
      bool ok = true;
      for (const spec::Requirement& r : c.reqs) ok = ok && spec::allows(r, options.target);
      l.allowed[i] = ok ? 1 : 0;
    }
    if (l.allowed[i]) return static_cast<int>(i);
  }
  if (shape_ok >= 0) {
    const detail::Candidate& c = info.candidates[static_cast<size_t>(shape_ok)];
    std::string need;
    for (const spec::Requirement& r : c.reqs)
      if (!spec::allows(r, options.target)) need += fmt::format("{}{}", need.empty() ? "" : ", ", spec::describe(r));
    throw Error(fmt::format("{} needs {}; the kernel's target is {}", info.text, need, options.target.name()), where);
  }
  std::string got;
  for (const Operand& o : ops) got += fmt::format("{}{}", got.empty() ? "" : ", ", describe(o));
  std::string forms;
  for (const detail::Candidate& c : info.candidates) forms += fmt::format("\n  {}", c.form->syntax);
  throw Error(fmt::format("{}: operands ({}) do not fit{}", info.text, got.empty() ? "none" : got, forms), where);
}

void Trace::write_loc(ptx::SourceLocation where) {
  const std::string_view file = where.file_name();
  uint32_t index = 0;
  for (size_t i = 0; i < files.size(); ++i)
    if (files[i] == file) index = static_cast<uint32_t>(i + 1);
  if (index == 0) {
    files.emplace_back(file);
    index = static_cast<uint32_t>(files.size());
  }
  if (index == last_loc_file && where.line() == last_loc_line) return;
  last_loc_file = index;
  last_loc_line = where.line();
  const ir::Stmt s = m.add_directive(".loc", {m.add_int(index), m.add_int(where.line()), m.add_int(where.column())});
  for (ir::ListItem& it : m.slice(m.directives[s.index].items)) it.comma = false;  // .loc 1 12 5
  body.push_back(s);
}

void Trace::emit(uint32_t key, std::span<const Operand> ops, ptx::SourceLocation where, const Operand* guard) {
  if (!ended_names_.empty()) [[unlikely]]
    check_live(ops, guard, where);
  Local& l = local(key);
  for (const Operand& o : ops)
    if (o.kind == OperandKind::Special && o.reg != 0xFFFFFFFFu) {
      const spec::SpecialRegister& r = spec::special_registers()[o.reg];
      if (!spec::allows(r.req, options.target))
        throw Error(fmt::format("{} needs {}; the kernel's target is {}", r.name, spec::describe(r.req), options.target.name()), where);
      need(r.req.ptx);
    }
  // the first time a mnemonic meets an operand signature: check it, and note the PTX version it needs
  if (options.validate) pick_candidate(key, l, ops, where);
  if (options.debug && where.line() != 0) write_loc(where);
  ir::Instruction in;
  in.opcode = l.opcode;
  in.modifiers = l.mods;  // shared by every instruction of this mnemonic in the module
  in.operands.first = static_cast<uint32_t>(m.items.size());
  in.operands.count = static_cast<uint32_t>(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) m.items.push_back(ir::ListItem{ops[i].expr.v, {}, i + 1 < ops.size()});
  if (guard) in.guard = guard->expr;
  last_instruction = static_cast<uint32_t>(m.instructions.size());
  last_dest = !ops.empty() && (ops[0].kind == OperandKind::Reg || ops[0].kind == OperandKind::Pred) ? ops[0].reg
                                                                                                       : 0xFFFFFFFFu;
  m.instructions.push_back(in);
  body.push_back(ir::Stmt{ir::StmtKind::Instruction, last_instruction});
  last_stmt = body.size() - 1;
}

uint32_t Trace::text_key(std::string_view mnemonic) {
  auto it = text_keys_.find(mnemonic);
  if (it == text_keys_.end()) it = text_keys_.emplace(std::string(mnemonic), detail::mnemonic_key(mnemonic)).first;
  return it->second;
}

void Trace::emit_text(std::string_view mnemonic, std::span<const Operand> ops, ptx::SourceLocation where,
                      const Operand* guard) {
  emit(text_key(mnemonic), ops, where, guard);
}

void Trace::emit(const RuntimeChain& c, std::span<const Operand> ops, ptx::SourceLocation where, const Operand* guard) {
  c.check_complete(where);
  emit(text_key(c.text()), ops, where, guard);
}

void Trace::emit_key(uint32_t key, std::span<const Operand> ops, ptx::SourceLocation where, const Operand* guard) {
  emit(key, ops, where, guard);
}

void Trace::begin_function() {
  body.clear();
  smem_decls.clear();
  smem_bytes = 0;
  prefixes_ = {};
  named_.clear();
  labels_.clear();
  used_names_.clear();
  leads.clear();
  blocks_.clear();
  ended_names_.clear();
  last_instruction = last_dest = 0xFFFFFFFFu;
  last_loc_file = last_loc_line = 0;
}

std::vector<ir::Stmt> Trace::finish_body() {
  for (const LabelInfo& l : labels_)
    if (options.validate && l.used && !l.placed) throw Error(fmt::format("label {} is used but never placed", l.name), l.first_use);
  std::vector<ir::Stmt> out;
  for (size_t i = 0; i < prefixes_.size(); ++i) {
    const Prefix& p = prefixes_[i];
    if (p.decl.empty()) continue;
    const std::string_view prefix = kPrefixes[i];
    out.push_back(ir::Stmt{ir::StmtKind::Decl,
                           m.add_decl({".reg", p.decl}, prefix, m.add_list(ir::Delim::Angle, {m.add_int(p.next)}))});
  }
  for (const Named& n : named_)
    out.push_back(ir::Stmt{ir::StmtKind::Decl,
                           n.count ? m.add_decl({".reg", n.decl}, n.name, m.add_list(ir::Delim::Angle, {m.add_int(n.count)}))
                                   : m.add_decl({".reg", n.decl}, n.name)});
  out.insert(out.end(), smem_decls.begin(), smem_decls.end());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace ptx::dsl
