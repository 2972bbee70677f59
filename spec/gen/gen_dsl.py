#!/usr/bin/env python3
"""Generates the DSL's instruction API from spec/isa/*.isa.

    gen_dsl.py SPEC_DIR OUT.hpp [CHAINS.inc]

CHAINS.inc: the same automata as data, for code that must know at run time
whether a mnemonic is spelled by a chain and how (the transpiler).

Every opcode of the table becomes an object in namespace ptx::inst; its legal
modifier chains (in the manual's order) become member accesses, so that
`ptx::inst::ld.global.f32(d, a)` compiles and `ptx::inst::ld.f32.global`
does not. The chains of one opcode form a deterministic automaton: one class
template per state, one member per legal next modifier, `operator()` on the
states where a form is complete. The chain written so far is the class's
template argument (token ids), so the call knows its mnemonic; members are
references to variable templates, which keeps instantiation lazy: only the
chains a program uses are ever instantiated.

Escaping (spec/README.md, "The DSL's names"): drop the leading dot, `::`
becomes `_`, a name that starts with a digit gets a leading `_`, and a C++
keyword gets a trailing `_` (`.and` -> `and_`, `.shared::cta` -> `shared_cta`,
`.1d` -> `_1d`, opcode `and` -> `and_`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ptxisa  # noqa: E402

KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return
co_yield decltype default delete do double dynamic_cast else enum explicit export extern false float for
friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
protected public register reinterpret_cast requires return short signed sizeof static static_assert
static_cast struct switch template this thread_local throw true try typedef typeid typename union unsigned
using virtual void volatile wchar_t while xor xor_eq""".split())
# Names the DSL's state classes use themselves.
RESERVED = {"operator", "info"}


def cxx_name(token: str) -> str:
    name = token[1:] if token.startswith(".") else token
    name = name.replace("::", "_")
    if name[:1].isdigit():
        name = "_" + name
    if name in KEYWORDS or name in RESERVED:
        name += "_"
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise SystemExit(f"gen_dsl: cannot name modifier '{token}' in C++")
    return name


class FormNfa:
    """A form's modifier slots as a token automaton: nodes 0..end, edges (node, token, node)."""

    def __init__(self, form: ptxisa.Form):
        self.edges: dict[int, list[tuple[str, int]]] = {}
        self.eps: dict[int, list[int]] = {}
        self.count = 1
        cur = 0
        for slot in form.slots:
            start = cur
            for name in slot.names:
                g = form.group(name)
                alts = [v.parts for v in g.values if not v.is_pattern] if g is not None else [[name]]
                nxt = self.new()
                for parts in alts:
                    at = cur
                    for k, p in enumerate(parts):
                        to = nxt if k == len(parts) - 1 else self.new()
                        self.edges.setdefault(at, []).append((p, to))
                        at = to
                cur = nxt
            if slot.optional:
                self.eps.setdefault(start, []).append(cur)
        self.end = cur

    def new(self) -> int:
        self.count += 1
        return self.count - 1

    def closure(self, nodes: set[int]) -> set[int]:
        out, todo = set(nodes), list(nodes)
        while todo:
            n = todo.pop()
            for m in self.eps.get(n, []):
                if m not in out:
                    out.add(m)
                    todo.append(m)
        return out


def build(spec: ptxisa.Spec):
    by_opcode: dict[str, list[ptxisa.Form]] = {}
    for f in spec.forms():
        by_opcode.setdefault(f.opcode, []).append(f)
    tokens: dict[str, int] = {}

    def tok(t: str) -> int:
        if t not in tokens:
            tokens[t] = len(tokens)
        return tokens[t]

    opcodes = []
    for opcode in sorted(by_opcode):
        tok(opcode)
        nfas = [FormNfa(f) for f in by_opcode[opcode]]
        start = frozenset((i, n) for i, a in enumerate(nfas) for n in a.closure({0}))
        ids = {start: 0}
        order = [start]
        states = []
        k = 0
        while k < len(order):
            st = order[k]
            k += 1
            moves: dict[str, set] = {}
            for i, n in st:
                for t, to in nfas[i].edges.get(n, []):
                    moves.setdefault(t, set()).update((i, m) for m in nfas[i].closure({to}))
            members = []
            for t in sorted(moves, key=lambda t: (cxx_name(t), t)):
                nxt = frozenset(moves[t])
                if nxt not in ids:
                    ids[nxt] = len(order)
                    order.append(nxt)
                tok(t)
                members.append((t, ids[nxt]))
            names = [cxx_name(t) for t, _ in members]
            if len(set(names)) != len(names):
                raise SystemExit(f"gen_dsl: {opcode}: two modifiers escape to one C++ name: {names}")
            accepting = any(n == nfas[i].end for i, n in st)
            states.append((members, accepting))
        opcodes.append((opcode, states))
    return tokens, opcodes


def main() -> None:
    spec_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    spec = ptxisa.load(spec_dir)
    tokens, opcodes = build(spec)
    o = []
    w = o.append
    w("// Generated by spec/gen/gen_dsl.py from spec/isa/*.isa: do not edit.")
    w("#pragma once")
    w("")
    w('#include "ptxpp/dsl/instruction_call.hpp"')
    w('#include "ptxpp/dsl/special.hpp"')
    w("")
    w("namespace ptx::dsl::detail {")
    w(f"inline constexpr std::string_view kTokens[{len(tokens)}] = {{")
    for t in tokens:
        w(f'    "{t}",')
    w("};")
    w("}  // namespace ptx::dsl::detail")
    w("")
    w("namespace ptx::inst {")
    w("namespace states {")
    w("using ::ptx::dsl::detail::Chain;")
    w("using ::ptx::dsl::detail::Complete;")
    w("using ::ptx::dsl::detail::node;")
    w("using ::ptx::dsl::detail::push_t;")
    total_states = 0
    for opcode, states in opcodes:
        base = cxx_name(opcode)
        for k in range(len(states)):
            w(f"template <class C> struct {base}_{k};")
        for k, (members, accepting) in enumerate(states):
            total_states += 1
            head = f"template <class C> struct {base}_{k}" + (" : Complete<C>" if accepting else "") + " {"
            if accepting:
                w(head)
                w("  using Complete<C>::operator();")
                w("  using Complete<C>::operator[];")
            else:
                w(head)
            for t, to in members:
                nxt = f"{base}_{to}<push_t<C, {tokens[t]}>>"
                w(f"  static constexpr const {nxt}& {cxx_name(t)} = node<{nxt}>;")
            w("};")
    w("}  // namespace states")
    w("")
    for opcode, _ in opcodes:
        w(f"inline constexpr states::{cxx_name(opcode)}_0<::ptx::dsl::detail::Chain<{tokens[opcode]}>> "
          f"{cxx_name(opcode)}{{}};")
    w("}  // namespace ptx::inst")
    w("")
    w("namespace ptx::special {")
    for r in spec.sregs:
        nm = cxx_name(r.name[1:])
        ty = "::ptx::DType::" + r.type.split("|")[0][1:]
        if r.count:
            w(f'inline constexpr Numbered {nm}{{"{r.name}", {ty}, {r.count}}};')
        elif r.components:
            w(f'inline constexpr Vector {nm}{{"{r.name}", {ty}}};')
        else:
            w(f'inline constexpr Scalar {nm}{{"{r.name}", {ty}}};')
    w("}  // namespace ptx::special")
    w(f"// {len(opcodes)} opcodes, {total_states} states, {len(tokens)} tokens")
    ptxisa.write_if_changed(out, "\n".join(o) + "\n")
    if len(sys.argv) > 3:
        ptxisa.write_if_changed(Path(sys.argv[3]), chains_table(tokens, opcodes))


def chains_table(tokens: dict[str, int], opcodes) -> str:
    """kChainTokens (PTX spelling, C++ name), kChainStates {first edge, edge count, accepting},
    kChainEdges {token, state}, kChainOpcodes {token, first state}; states of an opcode are consecutive."""
    o = ["// Generated by spec/gen/gen_dsl.py from spec/isa/*.isa: do not edit."]
    o.append(f"inline constexpr ChainToken kChainTokens[{len(tokens)}] = {{")
    o += [f'    {{"{t}", "{cxx_name(t)}"}},' for t in tokens]
    o.append("};")
    states, edges, starts = [], [], []
    for opcode, sts in opcodes:
        base = len(states)
        starts.append((tokens[opcode], base))
        for members, accepting in sts:
            states.append((len(edges), len(members), accepting))
            edges += [(tokens[t], base + to) for t, to in members]
    o.append(f"inline constexpr ChainState kChainStates[{len(states)}] = {{")
    o += [f"    {{{a}, {n}, {str(acc).lower()}}}," for a, n, acc in states]
    o.append("};")
    o.append(f"inline constexpr ChainEdge kChainEdges[{len(edges)}] = {{")
    o += [f"    {{{t}, {to}}}," for t, to in edges]
    o.append("};")
    o.append(f"inline constexpr ChainEdge kChainOpcodes[{len(starts)}] = {{")
    o += [f"    {{{t}, {st}}}," for t, st in starts]
    o.append("};")
    return "\n".join(o) + "\n"


if __name__ == "__main__":
    main()
