// The decoded instruction: what the ISA table says an instruction is. The validator matches
// each instruction's modifiers and operands to a form of spec/isa; the layers below the parser
// (the emulator, the tools) read that answer, in the generated vocabulary (vocab.hpp), instead of
// matching modifier text again.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ptxpp/core/diagnostic.hpp"
#include "ptxpp/ir/module.hpp"
#include "ptxpp/spec/isa.hpp"
#include "ptxpp/spec/validator.hpp"
#include "ptxpp/spec/vocab.hpp"

namespace ptx::spec {

// The value one modifier group of a form takes in an instruction: `.type` is `.f32`.
struct Chosen {
  uint32_t group;      // for spec::group()
  const Value* value;  // ".f32", or a run of several modifiers (".relaxed.cta")
};

// Whether the modifiers are written in the manual's order, or in another order ptxas accepts.
enum class ModifierOrder : uint8_t { Manual, Reordered };

// A form whose modifiers fit an instruction's, with the value each written group takes.
struct FormFit {
  const Form* form;
  ModifierOrder order;
  std::vector<Chosen> choices;  // one per group written
  // The value of the group named `name` (".type"); nullptr when the instruction does not write it.
  const Value* chosen(std::string_view name) const;
};

// An instruction's opcode and modifiers in the ISA's vocabulary, and the forms they fit. It
// depends on the mnemonic alone: computed once per mnemonic and thread, then shared.
struct DecodedModifiers {
  std::optional<Opcode> opcode;          // nullopt: no instruction of the ISA has this opcode
  std::vector<Mod> mods;                 // as written (complete only when unknown_at is empty)
  std::optional<size_t> unknown_at;      // the first modifier the ISA does not have
  std::vector<FormFit> fits;             // those in the manual's order first
};
using DecodedModifiersPtr = std::shared_ptr<const DecodedModifiers>;

DecodedModifiersPtr decode_modifiers(std::string_view opcode, std::span<const std::string_view> mods);
DecodedModifiersPtr decode_modifiers(const ir::Module& m, const ir::Instruction& in);

// An instruction as the validator matched it.
struct DecodedInstruction {
  uint32_t instruction;         // its index in ir::Module::instructions
  DecodedModifiersPtr decoded;  // opcode, modifiers and the forms they fit
  const FormFit* fit;           // the form that fits modifiers and operands (one of decoded->fits)
  // The form's operands the instruction writes, in order (a bracketed list: each member).
  std::vector<const Operand*> operands;
  bool requirements_met;        // the module's PTX version and target allow the form and its choices
};

struct CheckedModule {
  std::vector<Diagnostic> diagnostics;
  // Every instruction of a function body that some form fits, in module order (one that no
  // form fits has a diagnostic instead).
  std::vector<DecodedInstruction> instructions;
  const DecodedInstruction* find(uint32_t instruction) const;
};

// check() (validator.hpp), keeping what each instruction matched.
CheckedModule check_and_decode(const ir::Module& m, const CheckOptions& options = {});

}  // namespace ptx::spec
