// The PTX ISA as data: generated at build time from spec/isa/*.isa (see
// spec/README.md). Forms are the manual's syntax lines; each has a sequence of
// modifier slots (literal modifiers or groups of legal values), operands with
// their kinds, and the minimum PTX version and targets.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ptxpp/core/ptx_version.hpp"
#include "ptxpp/core/target.hpp"

namespace ptx::spec {

// ---- targets and requirements ------------------------------------------------

// The library's one target type (ptxpp/core/target.hpp).
using ptx::Target;

enum class TargetKind : uint8_t {
  Plus,    // sm_N+: N or any later target
  Arch,    // sm_Na: that architecture-specific target only
  Family,  // sm_Nf: the family from N on, 'f' and 'a' targets
  Exact,   // sm_N
};
struct TargetCond {
  uint16_t number;
  TargetKind kind;
};
struct TargetSet {  // alternatives: one must hold
  uint32_t first, count;
};

// The library's one PTX version type (ptxpp/core/ptx_version.hpp); the old name stays
// for source compatibility.
using ptx::PtxVersion;
using PtxVersionReq = PtxVersion;

enum class TexMode : uint8_t { Any, Unified, Independent };

// All target sets must hold; the PTX version must be at least `ptx`.
struct Requirement {
  PtxVersion ptx{1, 0};
  uint32_t first_set = 0, set_count = 0;
  TexMode texmode = TexMode::Any;  // the module's texturing mode (.target ..., texmode_independent)
};

bool satisfies(Target t, const TargetCond& c);
bool allows(const Requirement& r, Target t);
// "ptx 8.0 sm_90+", for messages.
std::string describe(const Requirement& r);
// The lowest PTX ISA version ptxas 13.0 accepts for the target (0.0 if unknown).
PtxVersion min_ptx_for(Target t);

// ---- modifier groups and slots --------------------------------------------------

struct Value {
  std::string_view text;  // ".rn", or a run ".relaxed.cta"
  uint8_t parts;          // modifiers in the run
  Requirement req;
};
struct Group {
  std::string_view name;  // ".type"
  uint32_t first_value, value_count;
};
// One modifier in a slot: a literal or a group.
struct SlotItem {
  bool is_group;
  uint32_t group;
  std::string_view text;  // the literal, or the group's name
  bool is_type;           // a type (.u32, .f16x2, ...): keeps its place relative to other types
  // Items of one order class keep their relative order: 0 free, 1 types,
  // 2+i the block's i-th `order` set (.row/.col layouts, ...).
  uint8_t order_class = 0;
};
struct Slot {
  uint32_t first_item, item_count;  // several items: an optional run {.a.b}
  bool optional;
};

// ---- operands -------------------------------------------------------------------

enum class KindTag : uint8_t { Reg, Imm, Pred, Vec, Addr, Label, Symbol, Func, Args, TexRef, SamplerRef, SurfRef, Sink };

// A type, vector count or state space: the value chosen for a group of the
// form, or a literal (".b32", ".shared", "generic").
struct Ref {
  bool is_group = false;
  bool doubled = false;  // ".type[2]": twice as wide
  uint32_t group = 0;
  std::string_view text;
  bool present() const { return !text.empty(); }
};
struct Kind {
  KindTag tag;
  Ref type;
  uint8_t count_literal;  // vec(4, ...)
  Ref count;              // vec(.vec, ...)
  Ref space;              // addr(.ss)
  bool wide;              // a wider register is allowed
  bool negate;            // pred(!): !p allowed
  // vec(.shape:n/2, ...): the count is the number after count_letter in the
  // chosen value of `count` (".m64n96k16" -> 96), then count_op ('*', '/' or 0)
  // count_factor. count_letter 0: the plain vector group (".v4" -> 4).
  char count_letter = 0;
  char count_op = 0;
  uint16_t count_factor = 1;
  bool imm = false;       // vec(..., imm): elements may also be integer immediates
  uint32_t first_imm_value = 0, imm_value_count = 0;  // imm(.u32, 4, 8, 16): the only legal values
  bool exact = false;     // reg(T, exact), addr(S, T, exact): the register is declared with type T itself
  // reg(T, .sel) / reg(T, {.sel}): a component of the register from group `component`
  // (%r1.b0: video operand selectors), required / optional. For reg, `negate`: -r allowed.
  Ref component;
  bool component_optional = false;
  bool unified = false;   // addr(S, unified): the address may be written [a].unified
};
struct Operand {
  std::string_view name;
  bool optional;
  bool address;           // written [a]
  std::string_view pair;  // p|q: the second name
  bool pair_optional;
  uint32_t first_kind, kind_count;
  uint32_t first_pair_kind, pair_kind_count;
  // [a, b, c]: a bracketed list of operands, each with its own kinds (none: a plain operand)
  uint32_t first_member = 0, member_count = 0;
  // `x: KIND if .group`: optional x is written exactly when the form's group
  // `if_group` has a value (kNoGroup: an ordinary optional operand)
  uint32_t if_group = kNoGroup;
  static constexpr uint32_t kNoGroup = 0xFFFFFFFFu;
  // `x: KIND [ptx 7.1 sm_60+]`: what writing the operand (and the pair's second) requires
  Requirement req{}, pair_req{};
};

// ---- forms, blocks, chapter ---------------------------------------------------------

struct Form {
  std::string_view opcode;
  std::string_view syntax;
  uint32_t first_slot, slot_count;
  uint32_t first_operand, operand_count;
  Requirement req;  // block and form requirements merged
  uint32_t block;
  std::string_view where;  // spec file:line
};
struct Block {
  std::string_view opcode;
  std::string_view sections;
  bool deprecated;
  bool strict_order;  // ptxas wants the manual's modifier order (otherwise any order, types in order)
  std::string_view notes;  // one note per line
  std::string_view where;
  uint8_t head = 0;   // `order head N`: the first N slots name the instruction (wmma.load.a): first, in order
};
struct Chapter {
  std::string_view section, opcode, title;
};

// A special register (%tid, %laneid, %envreg3, ...).
struct SpecialRegister {
  std::string_view name;        // "%tid"; "%envreg" for the numbered family
  std::string_view type;        // ".u32"
  std::string_view components;  // ".x.y.z" for vector registers, else ""
  uint32_t count;               // %envreg<32>: 32; 0 for a single register
  Requirement req;
  std::string_view section;
};
// Whether `text` is value v: its text, or for a pattern value with character
// classes (".b[0-7][0-7]", component groups) one of the texts it stands for.
bool value_matches(const Value& v, std::string_view text);

// ---- directives (chapter 11, and the declaration words of chapter 5) ----------------

// Where a directive may be written (bits of DirectiveSpec::places).
enum DirectivePlace : uint8_t {
  kPlaceModule = 1,      // a statement or declaration word at module scope (incl. a function header's words)
  kPlaceBody = 2,        // a statement or declaration word in a function body
  kPlaceEntry = 4,       // between an .entry header and its body (.maxntid)
  kPlaceFunc = 8,        // between a .func header and its body (.noreturn)
  kPlaceProto = 16,      // after a .callprototype
  kPlaceEntryParam = 32, // a word of an .entry parameter (.ptr)
  kPlaceFuncParam = 64,  // a word of a .func parameter
};
struct DirectiveSpec {
  std::string_view name;       // ".maxntid"
  std::string_view section;    // "11.4.2"
  uint8_t places;              // DirectivePlace bits; 0: never written (.sreg: predefined only)
  bool counted;                // statement and header directives: min/max_operands apply
  uint8_t min_operands, max_operands;  // max 255: unbounded
  std::string_view needs;      // directives of the same header it needs: ".reqntid .reqnctapercluster"
  std::string_view conflicts;  // ... it cannot be written with
  PtxVersion removed;          // not accepted from this PTX version on (0.0: never removed)
  bool deprecated;
  Requirement req;
  std::string_view notes;
};
const DirectiveSpec* find_directive(std::string_view name);
std::span<const DirectiveSpec> directives();

// The special register a name refers to ("%envreg7" -> %envreg), or nullptr.
const SpecialRegister* find_special_register(std::string_view name);
std::span<const SpecialRegister> special_registers();

std::span<const Form> forms();
// The forms of one opcode, in spec order (empty for an unknown opcode).
std::span<const Form> forms_for(std::string_view opcode);
std::span<const Block> blocks();
std::span<const Chapter> chapter();

std::span<const Slot> slots(const Form& f);
std::span<const SlotItem> items(const Slot& s);
std::span<const Operand> operands(const Form& f);
std::span<const Kind> kinds(const Operand& o);
std::span<const Kind> pair_kinds(const Operand& o);
std::span<const Operand> members(const Operand& o);
// imm(.u32, 4, 8, 16), imm(.u32, 0..1048560/16): the legal values of an immediate (empty: any).
struct ImmRange {
  int64_t low, high, step;
  bool contains(int64_t v) const { return v >= low && v <= high && (v - low) % step == 0; }
};
std::span<const ImmRange> imm_values(const Kind& k);
const Group& group(uint32_t index);
std::span<const Value> values(const Group& g);
std::span<const TargetSet> target_sets(const Requirement& r);
std::span<const TargetCond> conds(const TargetSet& s);

}  // namespace ptx::spec
