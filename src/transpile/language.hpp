// The output languages of the transpiler. The writer (transpile.cpp) decides what
// to write: which statements are DSL calls and which stay text, how operands are
// classified, which sugar applies, how repeats fold (fold_repeats.cpp). A Language
// only spells those decisions: in C++ (cpp_language.cpp) or in Python
// (python_language.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxpp/dsl/types.hpp"

namespace ptx::transpile {

struct Options;

// Where a call's function lives in the output.
enum class Ns : uint8_t {
  Dsl,      // ptx::addr / ptx.addr
  Listing,  // lst::stmt / lst.stmt
  Module,   // m.text (the listing being built)
};

// What a named declaration in the output holds.
enum class Holds : uint8_t { Reg, RegArray, Label, SymbolName };

// How an address operand's offset is written.
enum class Offset : uint8_t { None, KeptZero, Value };

class Language {
 public:
  virtual ~Language() = default;

  // ---- names and literals ------------------------------------------------------------
  // A keyword, or a name the output itself uses: not for registers, labels or aliases.
  virtual bool reserved(std::string_view name) const = 0;
  // Whether `name` can name the generated function.
  virtual bool is_identifier(std::string_view name) const = 0;
  virtual std::string quote(std::string_view bytes) const = 0;        // a string literal, any bytes
  virtual std::string text_literal(std::string_view text) const = 0;  // the same, readable when multi-line
  virtual int indent_width() const = 0;

  // ---- the file ----------------------------------------------------------------------
  // Everything up to the listing's declaration (the function's body is one level deep);
  // `version` (empty: none) and `address_size` are the listing's header options.
  virtual std::string file_begin(const Options& o, std::string_view target, bool validate, std::string_view version,
                                 uint32_t address_size) const = 0;
  virtual std::string file_end(const Options& o) const = 0;

  // ---- nested bodies: lines at the current depth, the body one level deeper, then the
  // closing line (nullopt: none). An empty body gets empty_body() (nullopt: nothing).
  virtual std::vector<std::string> open_body() const = 0;
  // A typed function header and its body: m.entry(args, [] { / @m.entry(args) def _():
  virtual std::vector<std::string> open_function(std::string_view fn, std::string_view args) const = 0;
  virtual std::vector<std::string> open_block() const = 0;
  virtual std::vector<std::string> open_loop(bool until, std::string_view top, std::string_view pred,
                                             bool uni) const = 0;
  virtual std::vector<std::string> open_wait(std::string_view top, std::string_view done,
                                             std::string_view pred) const = 0;
  virtual std::optional<std::string> close_call(bool uni_loop = false) const = 0;  // of all the above
  virtual std::optional<std::string> empty_body() const = 0;
  // The address arithmetic of the next access, grouped: its opening line and (nullopt:
  // none) its closing one; the steps are one level deeper only when there is a closing line.
  virtual std::string open_group(std::string_view mnemonic) const = 0;
  virtual std::optional<std::string> close_group() const = 0;
  virtual std::string comment(std::string_view text) const = 0;  // a comment line of the output

  // ---- statements ----------------------------------------------------------------------
  virtual std::string call_statement(Ns ns, std::string_view fn, std::string_view args) const = 0;
  virtual std::string declare(Holds h, std::string_view name, std::string_view init) const = 0;
  // `chain`: chain_spelling for this language; `guard`: an operand expression or empty.
  virtual std::string instruction(std::string_view chain, std::string_view guard, std::string_view args) const = 0;
  virtual std::optional<std::string> chain(std::string_view opcode,
                                           std::span<const std::string_view> modifiers) const = 0;

  // ---- declarations outside bodies (listing_decls.hpp) ----------------------------------
  // A listing member or enum value named by a PTX word: ".global" -> global (C++), global_ (Python).
  virtual std::string member(std::string_view ptx_word) const = 0;
  virtual std::string enum_value(std::string_view type, std::string_view member) const = 0;  // lst::Space::global
  virtual std::string list(std::span<const std::string> items) const = 0;                     // {a, b} / [a, b]
  // Named options after the positional arguments: {.align = 4, .dims = {4}} / align=4, dims=[4]
  virtual std::string options(std::span<const std::pair<std::string, std::string>> named) const = 0;

  // ---- expressions ---------------------------------------------------------------------
  virtual std::string call(Ns ns, std::string_view fn, std::string_view args) const = 0;
  virtual std::string dtype(std::optional<DType> t) const = 0;  // nullopt: the DSL has no such register type
  virtual std::string negated(std::string_view pred, bool first_operand) const = 0;
  virtual std::string special(std::string_view name, std::string_view component) const = 0;  // "tid", ".x" or ""
  virtual std::string sink() const = 0;
  // A decimal integer that fits 64 bits (negative: at most 2^63).
  virtual std::string integer(uint64_t magnitude, bool negative) const = 0;
  // An f32 (0f) or f64 (0d) immediate, by its bits; `mnemonic`: the instruction it is an operand of.
  virtual std::string floating(uint64_t bits, bool f32, std::string_view mnemonic) const = 0;
  virtual std::string address(std::string_view base, Offset kind, std::string_view offset) const = 0;
  virtual std::string arguments(std::span<const std::string> names) const = 0;  // a call's (a, b)
  virtual std::string vector(std::span<const std::string> elems) const = 0;
  virtual std::string range(std::string_view array, size_t first, size_t count) const = 0;

  // ---- loops of fold_repeats -------------------------------------------------------------
  virtual std::string for_loop(std::string_view var, size_t n) const = 0;  // the body one level deeper
  virtual std::optional<std::string> close_for() const = 0;
  // A table of n rows of `columns` ints (columns == 1: a flat table); rows: "1, 2" each.
  virtual std::string table(std::string_view name, size_t n, size_t columns,
                            std::span<const std::string> rows) const = 0;
};

std::unique_ptr<Language> cpp_language();
std::unique_ptr<Language> python_language();

}  // namespace ptx::transpile
