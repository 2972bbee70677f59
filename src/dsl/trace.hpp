// Internal: the trace that is running on this thread. It owns the module being
// built, names and counts registers, checks and appends instructions, and keeps
// what the kernel's metadata needs (PTX version, shared memory).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>
#include "ptxpp/dsl/source_location.hpp"

#include "mnemonic_registry.hpp"
#include "ptxpp/dsl/runtime_chain.hpp"
#include "ptxpp/dsl/error.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/ir/module.hpp"
#include "ptxpp/spec/isa.hpp"

namespace ptx::dsl {

class Trace;
// The trace running on this thread. initial-exec: one load instead of a
// __tls_get_addr call (the library is built position-independent). A library that is
// dlopened next to others built the same way (the Python extension, loaded with framework
// op libraries) defines PTXPP_NO_INITIAL_EXEC_TLS: initial-exec TLS takes the process's
// small static TLS reserve, and the third such library fails to load.
#ifdef PTXPP_NO_INITIAL_EXEC_TLS
#define PTXPP_TRACE_TLS
#else
#define PTXPP_TRACE_TLS [[gnu::tls_model("initial-exec")]]
#endif
PTXPP_TRACE_TLS extern thread_local Trace* g_running;

struct TraceOptions {
  Target target{90, 'a'};
  bool debug = false;       // .file/.loc for every instruction
  bool validate = true;     // check every instruction against the ISA table
  bool dynamic_smem = false;  // shared memory through one extern .shared array
};

class Trace {
 public:
  explicit Trace(const TraceOptions& o);
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  // The trace running on this thread; throws ptx::Error at `where` when none is.
  static Trace& current(ptx::SourceLocation where) {
    if (!g_running) [[unlikely]] no_trace(where);
    return *g_running;
  }
  [[noreturn]] static void no_trace(ptx::SourceLocation where);
  static Trace* running() { return g_running; }

  // Makes this trace the running one for the scope.
  class Scope {
   public:
    explicit Scope(Trace& t);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Trace* saved_;
  };

  ir::Module m;
  std::vector<ir::Stmt> body;  // the function body being traced, without the .reg declarations
  TraceOptions options;
  uint32_t serial;             // registers remember the trace they belong to

  // ---- registers ----
  Reg new_reg(DType t, std::string_view name, ptx::SourceLocation where);
  // Declares %name<count>; returns the element registers.
  std::vector<Reg> new_array(DType t, uint32_t count, std::string_view name, ptx::SourceLocation where);
  void check_reg(const Reg& r, ptx::SourceLocation where) const {
    if (!r.valid() || r.trace() != serial) [[unlikely]] bad_reg(r, where);
  }
  [[noreturn]] void bad_reg(const Reg& r, ptx::SourceLocation where) const;

  // ---- instructions ----
  // Appends one instruction; key: see mnemonic_registry.hpp.
  void emit(uint32_t key, std::span<const Operand> ops, ptx::SourceLocation where, const Operand* guard);
  // The library's helpers spell instructions as chains of ptx::inst (ptxpp/dsl/runtime_chain.hpp): a
  // complete chain, checked when the library is compiled, ...
  template <class C>
  void emit(const detail::Complete<C>&, std::span<const Operand> ops, ptx::SourceLocation where,
            const Operand* guard = nullptr) {
    emit(detail::ChainKey<C>::get(), ops, where, guard);
  }
  // ... or one continued at run time, each modifier checked against the ISA table's chains.
  void emit(const RuntimeChain& c, std::span<const Operand> ops, ptx::SourceLocation where,
            const Operand* guard = nullptr);
  // An instruction the user wrote as text (ptx::asm_): checked against the table like any other.
  void emit_text(std::string_view mnemonic, std::span<const Operand> ops, ptx::SourceLocation where,
                 const Operand* guard = nullptr);
  void emit_key(uint32_t key, std::span<const Operand> ops, ptx::SourceLocation where, const Operand* guard = nullptr);
  // The instruction just emitted and the register it wrote (for the rename rule).
  uint32_t last_instruction = 0xFFFFFFFFu;
  uint32_t last_dest = 0xFFFFFFFFu;
  size_t last_stmt = 0;

  // ---- listings (ptx::Listing): exact names, statements where they stand ----
  // `.reg .T name<count>;` (count 0: `.reg .T name;`) appended to the body; returns the registers.
  std::vector<Reg> declare_regs(DType t, std::string_view name, uint32_t count, ptx::SourceLocation where);
  Reg reg_ref(DType t, std::string_view name, ptx::SourceLocation where);
  uint32_t new_label_exact(std::string_view name, ptx::SourceLocation where);
  // Comments and blank lines (as trivia text) for the statement at body index i.
  std::map<size_t, std::string> leads;
  // Gives body's statements their lead trivia (leads, shifted by `offset` statements
  // added in front), each ending with a newline; returns the trivia before the closing brace.
  ir::Trivia apply_leads(std::vector<ir::Stmt>& stmts, size_t offset);

  // ---- scoped blocks (ptx::block): `{ ... }` whose registers and labels are its own ----
  // Opens a block: registers and labels made until close_block() are declared in it.
  void open_block(ptx::SourceLocation where);
  // Closes the innermost block: its statements (its .reg declarations first) as one Block statement.
  void close_block(ptx::SourceLocation where);
  bool in_block() const { return !blocks_.empty(); }

  // ---- labels ----
  uint32_t new_label(std::string_view hint, ptx::SourceLocation where);
  void place_label(uint32_t label, ptx::SourceLocation where);
  ir::ExprId use_label(uint32_t label, ptx::SourceLocation where);

  // An Int expression for a small value, shared by every use in the module.
  ir::ExprId small_int(uint64_t v) {
    if (v >= 256) return m.add_int(v);
    if (small_ints_.empty()) small_ints_.assign(256, ir::ExprId{});
    if (!small_ints_[v]) small_ints_[v] = m.add_int(v);
    return small_ints_[v];
  }

  // ---- symbols ----
  // A name unique in the module, built from `hint`.
  std::string unique_name(std::string_view hint);

  // ---- results ----
  PtxVersion needed{1, 0};  // the highest version any emitted instruction needs
  void need(PtxVersion v) { needed = std::max(needed, v); }
  // Starts the next function of the module: registers, labels and shared memory are per function.
  void begin_function();
  // Functions of the module that calls may name (set by ptx::Module).
  bool in_module = false;
  uint32_t call_serial = 0;
  // Adds the .reg declarations in front of `body`, checks labels; returns the statements.
  std::vector<ir::Stmt> finish_body();
  // Debug info: the .file index of a source file, and the last .loc written.
  std::vector<std::string> files;
  uint32_t last_loc_file = 0, last_loc_line = 0;

  // Shared memory allocated so far (bytes) and the static declarations.
  uint64_t smem_bytes = 0;
  std::vector<ir::Stmt> smem_decls;

 private:
  struct Prefix {
    std::string decl;  // ".b32"
    uint32_t next = 1;
  };
  struct Named {
    std::string decl;
    std::string name;
    uint32_t count;  // 0: a single register, else a %name<count> array
  };
  struct LabelInfo {
    std::string name;
    bool placed = false;
    bool used = false;
    ptx::SourceLocation first_use;
    ptx::SourceLocation placed_at;
    uint32_t block = 0;  // the ptx::block it belongs to (BlockScope::serial); 0: the function body
    bool ended = false;  // its block has ended
    ptx::SourceLocation block_where;
  };
  struct BlockScope {
    uint32_t serial = 0;
    ptx::SourceLocation where;
    std::vector<ir::Stmt> outer_body;  // the statements around the block, set aside
    std::map<size_t, std::string> outer_leads;
    std::vector<ir::Stmt> decls;               // its .reg declarations
    std::set<std::string, std::less<>> names;  // register and label names it declares
    std::vector<uint32_t> regs;                // the name expressions of its registers
  };
  // A name for a register or label of the innermost block: `base`, or base_2, ..., whichever
  // no name the block sees has (sibling blocks may repeat it).
  std::string block_name(std::string_view base);
  void declare_in_block(std::string_view decl_type, const std::string& name, uint32_t count);
  // Throws at `where` when an operand names a register or label of a block that has ended.
  void check_live(std::span<const Operand> ops, const Operand* guard, ptx::SourceLocation where) const;
  void check_live_expr(ir::ExprId e, ptx::SourceLocation where) const;
  struct Local {
    ir::Symbol opcode;
    ir::Range mods;  // in m.modifiers
    std::vector<int8_t> allowed;  // per candidate: -1 unknown, 0/1
    // operand signatures already checked, and the candidate each picked
    std::vector<std::pair<uint64_t, int>> checked;
  };

  Local& local(uint32_t key) {
    if (key < local_of_key_.size() && local_of_key_[key] >= 0) return locals_[static_cast<size_t>(local_of_key_[key])];
    return local_slow(key);
  }
  Local& local_slow(uint32_t key);
  uint32_t text_key(std::string_view mnemonic);  // one registry lookup per distinct text and trace
  int pick_candidate(uint32_t key, Local& l, std::span<const Operand> ops, ptx::SourceLocation where);
  int pick_candidate_slow(uint32_t key, Local& l, std::span<const Operand> ops, ptx::SourceLocation where);
  void write_loc(ptx::SourceLocation where);

  // Auto-named registers, one counter per prefix; declared in this order (%f, %fd, %h, ...).
  static constexpr std::string_view kPrefixes[] = {"%f", "%fd", "%h", "%hh", "%p", "%r", "%rc", "%rd", "%rq", "%rs"};
  static size_t prefix_slot(std::string_view prefix) {
    for (size_t i = 0; i < std::size(kPrefixes); ++i)
      if (kPrefixes[i] == prefix) return i;
    return 0;
  }
  std::array<Prefix, std::size(kPrefixes)> prefixes_{};
  std::array<uint8_t, static_cast<size_t>(DType::none) + 1> prefix_of_type_{};  // slot + 1; 0: not computed
  std::vector<Named> named_;
  std::map<std::string, uint32_t, std::less<>> used_names_;
  std::vector<LabelInfo> labels_;
  std::vector<BlockScope> blocks_;
  uint32_t block_serial_ = 0;
  // names of ended blocks' registers and labels, by name expression: what they are ("register %P1")
  // and where the block was written
  std::unordered_map<uint32_t, std::pair<std::string, ptx::SourceLocation>> ended_names_;
  std::vector<int32_t> local_of_key_;
  std::vector<Local> locals_;
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, TextHash, std::equal_to<>> text_keys_;
  std::vector<ir::ExprId> small_ints_;
  uint32_t next_reg_id_ = 0;
  Trace* saved_ = nullptr;
};

// Bytes of shared memory a block may use on the target (static + dynamic).
uint64_t smem_limit(Target t);

// Copies an operand of a parsed module into `to`, with the kind its shape says
// (registers from text have no type: they fit any register slot).
Operand import_operand(const ir::Module& from, ir::ExprId id, ir::Module& to);
// Messages for operands and types.
std::string describe(const Operand& o);
// Whether s is a PTX identifier (kernel, function, variable and register names).
bool is_identifier(std::string_view s);
// The registry key of the mov of a value of type t: mov.u32 (.b32 values too), mov.f32,
// mov.b16 (f16, bf16), mov.b32 (f16x2, bf16x2), mov.pred; built once per process and type.
uint32_t mov_key(DType t, ptx::SourceLocation where);
// The type of the .param that carries a kernel scalar of type t (16-bit floats: .b16).
DType param_type(DType t);

}  // namespace ptx::dsl
