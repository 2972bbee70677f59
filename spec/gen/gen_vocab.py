#!/usr/bin/env python3
"""Generates the typed PTX vocabulary from spec/isa/*.isa.

    gen_vocab.py SPEC_DIR OUT.hpp

Every opcode of the table becomes an `Opcode`, every modifier spelling a
form can take (a literal slot, or one part of a group's value) a `Mod`. The
enumerators are in text order, so an enumerator's value is its index in the
sorted text array and a lookup is one binary search. Layers below the parser
(the emulator's decoder, the coverage list) switch on these instead of
comparing strings; a spelling not in the table has no enumerator.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ptxisa  # noqa: E402

CPP_KEYWORDS = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "class", "compl", "const", "constexpr", "continue", "default", "delete", "do", "double", "else",
    "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int",
    "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
    "private", "protected", "public", "register", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "template", "this", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned",
    "using", "virtual", "void", "volatile", "while", "xor", "xor_eq",
}


def identifier(text: str) -> str:
    """`.shared::cluster` -> `shared_cluster`, `.1d` -> `_1d`, `and` -> `and_`."""
    name = re.sub(r"[^0-9A-Za-z_]", "_", text.lstrip(".").replace("::", "_"))
    if name[0].isdigit():
        name = "_" + name
    if name in CPP_KEYWORDS:
        name += "_"
    return name


def modifier_texts(spec: ptxisa.Spec) -> set[str]:
    texts: set[str] = set()
    for block in spec.blocks:
        for form in block.forms:
            for slot in form.slots:
                for name in slot.names:
                    group = form.group(name)
                    if group is None:
                        texts.add(name)
                        continue
                    for value in group.values:
                        if not value.is_pattern:  # register components (.b0123 ...), not modifiers
                            texts.update(value.parts)
    return texts


def enum_block(name: str, texts: list[str]) -> str:
    ids = [identifier(t) for t in texts]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise SystemExit(f"gen_vocab.py: spellings that map to one identifier: {dup}")
    rows = "".join(f"  {i},  // {t}\n" for i, t in zip(ids, texts))
    strings = "".join(f'    "{t}",\n' for t in texts)
    lower = name[0].lower() + name[1:]
    return (f"enum class {name} : uint16_t {{\n{rows}}};\n"
            f"inline constexpr size_t k{name}Count = {len(texts)};\n"
            f"inline constexpr std::array<std::string_view, k{name}Count> k{name}Texts{{{{\n{strings}}}}};\n"
            f"constexpr std::string_view text_of({name} v) {{ return k{name}Texts[static_cast<size_t>(v)]; }}\n"
            f"// The enumerator spelled `text`, if the table has one.\n"
            f"constexpr std::optional<{name}> {lower}_of(std::string_view text) {{\n"
            f"  const auto it = std::lower_bound(k{name}Texts.begin(), k{name}Texts.end(), text);\n"
            f"  if (it == k{name}Texts.end() || *it != text) return std::nullopt;\n"
            f"  return static_cast<{name}>(it - k{name}Texts.begin());\n"
            f"}}\n")


def emit(spec: ptxisa.Spec) -> str:
    opcodes = sorted({b.opcode for b in spec.blocks})
    mods = sorted(modifier_texts(spec))
    types = [m for m in mods if ptxisa.is_type_text(m)]
    type_cases = "".join(f"    case Mod::{identifier(t)}:\n" for t in types)
    shapes = [(m, re.fullmatch(r"\.m(\d+)n(\d+)(?:k(\d+))?", m)) for m in mods]
    shape_cases = "".join(f"    case Mod::{identifier(m)}: return MatrixShape{{{g[1]}, {g[2]}, {g[3] or 0}}};\n"
                          for m, g in shapes if g)
    def number_of(name: str, pattern: str, doc: str) -> str:
        cases = "".join(f"    case Mod::{identifier(m)}: return {re.fullmatch(pattern, m)[1]};\n"
                        for m in mods if re.fullmatch(pattern, m))
        return (f"// {doc}\nconstexpr unsigned {name}(Mod m) {{\n  switch (m) {{\n{cases}"
                "    default:\n      return 0;\n  }\n}\n\n")

    hints = "".join(f"    case Mod::{identifier(m)}:\n" for m in mods if m.startswith((".L1::", ".L2::")))
    counted = (number_of("vector_width", r"\.v(\d+)", "A vector modifier's element count (.v2 -> 2); 0 for others.")
               + number_of("repetition", r"\.x(\d+)", "A repetition or matrix count (.x1 ... .x128); 0 for others.")
               + number_of("tensor_rank", r"\.(\d)d", "A tensor's dimension modifier (.1d ... .5d); 0 for others.")
               + "// A cache-eviction or cache-hint modifier (.L1::evict_last, .L2::cache_hint, .L2::128B, ...).\n"
               "constexpr bool is_cache_hint(Mod m) {\n  switch (m) {\n" + hints +
               "      return true;\n    default:\n      return false;\n  }\n}\n\n")
    return (
        "// Generated by spec/gen/gen_vocab.py from spec/isa/*.isa. Do not edit.\n"
        "// The PTX vocabulary as enums: opcodes and modifier spellings (see spec/README.md).\n"
        "#pragma once\n\n#include <algorithm>\n#include <array>\n#include <cstddef>\n#include <cstdint>\n"
        "#include <optional>\n#include <string_view>\n\nnamespace ptx::spec {\n\n"
        + enum_block("Opcode", opcodes) + "\n" + enum_block("Mod", mods) + "\n"
        "// A data-type modifier (.u32, .f16x2, .e4m3, .pred, ...).\n"
        "constexpr bool is_type(Mod m) {\n  switch (m) {\n" + type_cases +
        "      return true;\n    default:\n      return false;\n  }\n}\n\n" + counted +
        "// A matrix shape modifier: .mMnNkK (k 0 where the spelling has none: .m8n8, .m16n8).\n"
        "struct MatrixShape {\n  uint16_t m, n, k;\n};\n"
        "constexpr std::optional<MatrixShape> matrix_shape(Mod s) {\n  switch (s) {\n" + shape_cases +
        "    default:\n      return std::nullopt;\n  }\n}\n\n}  // namespace ptx::spec\n")


def main() -> int:
    return ptxisa.generator_main(emit, "OUT.hpp")


if __name__ == "__main__":
    sys.exit(main())
