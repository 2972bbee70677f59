// Internal: the class that decodes a kernel for the emulator (decode(), program.hpp). Its member
// functions are spread over decode_*.cpp by concern (see docs/emulator.md, "Source layout").
#pragma once

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
#include "ptxpp/spec/decoded.hpp"
#include "ptxpp/spec/isa.hpp"
#include "ptxpp/text/printer.hpp"
#include "tcgen05.hpp"
#include "texture.hpp"
#include "value_types.hpp"
#include "vocab_util.hpp"
#include "wgmma.hpp"
#include "wmma.hpp"

namespace ptx::emu::decoding {

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

  Program run();
  static bool is_entry_word(std::string_view w) { return w == ".entry"; }
  bool is_entry(const Function& f) const;
  uint32_t function_index(const std::string& called);
  void decode_function(const Function& f, uint32_t index);
  Formal formal(const Decl& d, const Declarator& dc);
  std::pair<uint32_t, uint32_t> param_size(const Decl& d);
  uint32_t frame_slot(uint64_t bytes, uint64_t align);
  const SymbolInfo* symbol(const std::string& name) const;

 private:
  // ---- declarations ------------------------------------------------------------
  // Sizes the emulator declines (a real GPU would too): they only come from broken or hostile input.
  static constexpr uint64_t kMaxBytes = 1ull << 30, kMaxRegisters = 1u << 20, kMaxAlign = 1u << 16;
  uint64_t element_count(const Declarator& dc);
  uint64_t alignment(const DeclInfo& info, uint64_t natural, const Decl& d) const;
  static uint64_t align_up(uint64_t value, uint64_t align) { return (value + align - 1) / align * align; }

  uint64_t checked_bytes(uint64_t esize, uint64_t count, const Declarator& dc) const;
  void module_variable(const Decl& d);
  SymbolInfo shared_variable(const DeclInfo& info, uint64_t esize, const Decl& d, const Declarator& dc);
  void place_dynamic_window();
  // {a, b, ...}: a list of initializer elements, not a parenthesized expression.
  static bool is_braced(const Expr& e) { return e.kind == ExprKind::List && e.sub == static_cast<uint8_t>(Delim::Brace); }

  std::vector<uint64_t> initializer_dims(const Declarator& dc, uint64_t vector);
  uint64_t initializer_value(ExprId id, Ty ty);
  void initialize(uint64_t addr, Ty ty, ExprId init, const std::vector<uint64_t>& dims, uint64_t bytes, const std::string& name);
  uint64_t literal_bits(ExprId id, Ty ty);
  void collect(uint32_t scope);
  void local_decl(const Decl& d);
  void add_reg(uint64_t key, Ty t);
  uint32_t register_decl(uint64_t key, std::string_view name, Ty t, uint32_t vector);
  [[noreturn]] void throw_decode_error(bool is_unsupported, const std::string& what) const;
  Unsupported unsupported(const std::string& what) const;

  // ---- instructions --------------------------------------------------------------
  void decode_block(uint32_t scope);
  Opcode vocabulary(const Instruction& in);
  static bool has(std::span<const Mod> mods, Mod m) { return std::find(mods.begin(), mods.end(), m) != mods.end(); }

  DInst instruction(const Instruction& in);
  void check_vector_operands(const DInst& d, Opcode op) const;
  void check_operand_count(Opcode op, size_t count) const;
  std::string mnemonic() const;  // of the instruction being decoded
  void tensormap_modifier(DInst& d, Mod mo);
  void clc_modifier(DInst& d, Mod mo);
  DInst brx(DInst d, const Instruction& in);
  static bool is_video(Opcode op);
  DInst video(DInst d, const Instruction& in, Opcode op, std::span<const Mod> mods);
  DInst texture(DInst d, const Instruction& in, Opcode op, std::span<const Mod> mods);
  TexOperand texture_operand(ExprId id, DInst& d);
  void modifier(DInst& d, Opcode op, Mod mo);
  static bool modifiers_read_elsewhere(Opcode op);
  bool opcode_modifier(DInst& d, Opcode op, Mod mo);
  bool async_store_modifier(DInst& d, Opcode op, Mod mo);
  bool cvt_modifier(DInst& d, Mod mo);
  bool barrier_modifier(DInst& d, Opcode op, Mod mo);
  bool prmt_modifier(DInst& d, Mod mo);
  bool test_modifier(DInst& d, Mod mo);
  static bool space_modifier(DInst&, Mod mo, Space& space);
  bool compare_modifier(DInst& d, Mod mo);
  bool cvta_modifier(DInst& d, Mod mo);
  static bool shuffle_modifier(DInst& d, Mod mo);
  static bool vote_modifier(DInst& d, Mod mo);
  static bool atomic_op(DInst& d, Mod mo);
  bool shared_modifier(DInst& d, Opcode, Mod mo);
  static bool no_effect(Mod mo);
  void opcode(DInst& d, Opcode op, std::span<const Mod> mods, const std::vector<Ty>& types);
  uint32_t constant_slot(ExprId id, std::optional<Ty> ty = std::nullopt);
  uint32_t reg_slot(ExprId id);
  uint32_t base_register(ExprId id);
  // What a name refers to among the registers: a register, an element of a vector register
  // (%v.x, .y, .z, .w, or .r, .g, .b, .a), or a whole vector register (count: its elements);
  // nullopt when no register has the name.
  struct RegRef {
    uint32_t slot, count;
  };
  std::optional<RegRef> register_ref(const Expr& e);
  Opnd operand(ExprId id, const DInst& d, size_t index);
  Ty imm_type(const DInst& d, size_t index) const;
  Opnd address_expr(ExprId id, Opnd o, bool bracketed);
  template <class Decode>
  DInst matrix(DInst d, std::span<const Mod> mods, std::span<const ListItem> operands, Decode decode,
               bool keep_operands = false);
  DInst tensor(DInst d, std::span<const ListItem> operands);
  DInst call(DInst d, std::span<const ListItem> operands);
  void cp_modifier(DInst& d, Mod mo);
  void mbarrier_modifier(DInst& d, Mod mo);
  Opnd special(const std::string& name, std::string_view comp);

  // ---- names: a name means the declaration ir::Scopes finds where it is used --------------
  Resolved resolve(std::string_view name) const { return scopes_.lookup(scope_, at_, name); }
  // A register's key: its declaration, and its index in a %r<N> range.
  static uint64_t reg_key(uint32_t declaration, uint64_t element) { return (uint64_t{declaration} << 32) | element; }
  static uint64_t reg_key(Resolved r) { return reg_key(r.declaration, r.element); }
  uint32_t declaration_of(const Declarator& dc) const;
  std::unordered_map<uint32_t, uint32_t>::const_iterator label(std::string_view name) const;
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
  spec::DecodedModifiersPtr decoded_;  // of the instruction being decoded: opcode, modifiers, the forms they fit
  std::unordered_map<int64_t, std::string> files_;  // .file index -> name
};

}  // namespace ptx::emu::decoding
