// How the Python front end (python/) spells the ISA table's names, in one place for
// the extension (its ptx.inst chains and ptx.special) and for the transpiler's Python
// output (src/transpile), which must write the names the extension accepts.
#pragma once

#include <string>
#include <string_view>

namespace ptx::dsl {

// A modifier or name of the ISA table in Python: the leading dot dropped, `::` -> `_`, a
// leading digit gets `_`, a Python keyword a trailing `_` (".global" -> "global_", "and" -> "and_").
std::string python_name(std::string_view ptx_spelling);

// Whether `name` is a Python keyword (hard keywords only: soft ones are identifiers).
bool is_python_keyword(std::string_view name);

// How a Python float operand of the chain `mnemonic` ("cvt.rn.f32.f64") is written:
// as an f64 immediate when the mnemonic names .f64, else as an f32 one.
bool python_floats_are_f64(std::string_view mnemonic);

}  // namespace ptx::dsl
