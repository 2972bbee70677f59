#!/usr/bin/env python3
"""Small modules that try operand forms and declarations ptxas is the judge of.

Each sample is one module with one thing in question (an operand written some
way, a declaration, a scope, a directive), in a category:

  imm     immediates where registers, predicates or other immediates are expected
  expr    constant expressions as operands, register-plus-constant forms
  vector  brace lists of the right and wrong length, vector registers, components
  symbol  variables and addresses: [sym+8], [%r+4], generic(sym), functions, labels
  scope   nested { } blocks: labels and registers local to a block
  decl    declarations and directives: .reg arrays and vectors, %r<N>, parameters,
          .callprototype, linkage, initializers, .align, .address_size

`check_operands.py` runs them through ptxas and `ptxpp check`;
`operand_samples.py --list [NAME]` prints them.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    category: str
    name: str
    text: str            # the whole module
    target: str

    @property
    def key(self) -> str:
        return f"{self.category}/{self.name}"

    def digest(self) -> str:
        """Names the module text: a recorded ptxas verdict is for this text only."""
        return hashlib.sha256(f"{self.target}\n{self.text}".encode()).hexdigest()[:12]


# Every kernel body declares these, so that a sample needs only its one line.
REGS = (".reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>; .reg .f32 %f<4>; .reg .b16 %h<4>;\n"
        "\tmov.b32 %r0, 0; mov.b64 %rd0, gvar; mov.f32 %f0, 0f00000000; mov.b16 %h0, 0; setp.eq.u32 %p0, %r0, 0;")
GLOBALS = ".global .u32 gvar[4];\n.global .u64 gptr;\n.visible .func fn() { ret; }"


def header(version: str = "9.0", target: str = "sm_90", address_size: str | None = "64") -> str:
    return f".version {version}\n.target {target}\n" + (f".address_size {address_size}\n" if address_size else "")


def kernel(body: str, decls: str = "", target: str = "sm_90", version: str = "9.0") -> str:
    """A module with GLOBALS, `decls` at module scope, and a kernel running `body`."""
    return (header(version, target) + GLOBALS + "\n" + (decls + "\n" if decls else "") +
            ".visible .entry k()\n{\n\t" + REGS + "\n\t" + body.replace("\n", "\n\t") + "\n\tret;\n}\n")


def module(text: str, target: str = "sm_90", version: str = "9.0") -> str:
    return header(version, target) + text + "\n"


SAMPLES: list[Sample] = []


def add(category: str, name: str, text: str, target: str = "sm_90") -> None:
    SAMPLES.append(Sample(category, name, text, target))


def k(category: str, name: str, body: str, decls: str = "") -> None:
    add(category, name, kernel(body, decls))


def m(category: str, name: str, text: str) -> None:
    add(category, name, module(text))


# ---- imm: immediates where a register, predicate or other immediate is expected
k("imm", "selp-pred-0", "selp.u16 %h1, %h0, %h0, 0;")
k("imm", "selp-pred-1", "selp.u16 %h1, 1, 2, 1;")
k("imm", "vote-pred-imm", "vote.sync.all.pred %p1, 1, 0xffffffff;")
k("imm", "vote-pred-not-imm", "vote.sync.all.pred %p1, !1, 0xffffffff;")
k("imm", "and-pred-imm", "and.pred %p1, %p0, 1;")
k("imm", "mov-pred-imm", "mov.pred %p1, 1;")
k("imm", "setp-dest-imm", "setp.eq.u32 1, %r0, 2;")
k("imm", "add-dest-imm", "add.u32 1, %r0, %r0;")
k("imm", "ld-dest-imm", "ld.global.u32 5, [%rd0];")
k("imm", "guard-imm", "@1 bra $L; $L:")
k("imm", "bra-imm", "bra 0;")
k("imm", "add-f32-int-imm", "add.f32 %f1, %f0, 1;")
k("imm", "add-f32-decimal", "add.f32 %f1, %f0, 1.5;")
k("imm", "add-f32-hex-f64", "add.f32 %f1, %f0, 0d3FF0000000000000;")
k("imm", "add-u32-float-imm", "add.u32 %r1, %r0, 0f3F800000;")
k("imm", "add-u32-decimal", "add.u32 %r1, %r0, 1.5;")
k("imm", "mov-b32-float-imm", "mov.b32 %r1, 0f3F800000;")
k("imm", "mov-u16-70000", "mov.u16 %h1, 70000;")
k("imm", "mov-u32-neg", "mov.u32 %r1, -1;")
k("imm", "mov-u64-max", "mov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;")
k("imm", "mov-u64-overflow", "mov.u64 %rd1, 0x1FFFFFFFFFFFFFFFF;")
k("imm", "mov-u32-suffix-U", "mov.u32 %r1, 10U;")
k("imm", "mov-u32-octal", "mov.u32 %r1, 017;")
k("imm", "mov-u32-binary", "mov.u32 %r1, 0b101;")
k("imm", "mov-u32-octal-bad", "mov.u32 %r1, 019;")
k("imm", "mul-wide-imm-first", "mul.wide.u16 %r1, 3, %h0;")
k("imm", "shl-imm-shift", "shl.b32 %r1, 5, 33;")
k("imm", "st-imm-value", "st.global.u32 [%rd0], 7;")
k("imm", "st-imm-address", "st.global.u32 [0], %r0;")
k("imm", "mad-all-imm", "mad.lo.s32 %r1, 2, 3, 4;")

# ---- expr: constant expressions as operands
k("expr", "shift-paren", "or.b64 %rd1, %rd0, ((128 >> 4) << 16);")
k("expr", "arith", "add.u32 %r1, %r0, (1 + 2) * 3;")
k("expr", "ternary", "mov.u32 %r1, 1 ? 2 : 3;")
k("expr", "unary-not", "mov.u32 %r1, ~0;")
k("expr", "unary-neg-paren", "mov.u32 %r1, -(1);")
k("expr", "logical-not", "mov.u32 %r1, !0;")
k("expr", "compare", "mov.u32 %r1, (1 < 2) + (3 == 3);")
k("expr", "logical-and-or", "mov.u32 %r1, (1 && 0) || 1;")
k("expr", "modulo", "mov.u32 %r1, 5 % 3;")
k("expr", "div-by-zero", "mov.u32 %r1, 1 / 0;")
k("expr", "mod-by-zero", "mov.u32 %r1, 1 % 0;")
k("expr", "wrap-32", "mov.u32 %r1, 0xFFFFFFFF + 1;")
k("expr", "float-plus-int", "add.f32 %f1, %f0, 0f3F800000 + 1;")
k("expr", "reg-plus-const", "add.u32 %r1, %r0 + 1, 2;")
k("expr", "reg-times-const", "add.u32 %r1, %r0, %r0 * 2;")
k("expr", "mov-reg-plus-const", "mov.u64 %rd1, %rd0 + 8;")
k("expr", "sym-plus-const", "mov.u64 %rd1, gvar + 8;")
k("expr", "sym-minus-const", "mov.u64 %rd1, gvar - 4;")
k("expr", "const-plus-sym", "mov.u64 %rd1, 8 + gvar;")
k("expr", "sym-times-const", "mov.u64 %rd1, gvar * 2;")
k("expr", "addr-expr-offset", "ld.global.u32 %r1, [%rd0 + (4 * 2)];")
k("expr", "addr-neg-offset", "ld.global.u32 %r1, [%rd0 + -4];")
k("expr", "addr-minus-offset", "ld.global.u32 %r1, [%rd0 - 4];")
k("expr", "addr-offset-first", "ld.global.u32 %r1, [4 + %rd0];")
k("expr", "addr-reg-plus-reg", "ld.global.u32 %r1, [%rd0 + %rd1];")
k("expr", "addr-offset-2-31", "ld.global.u32 %r1, [%rd0 + 0x7fffffff];")
k("expr", "addr-offset-2-32", "ld.global.u32 %r1, [%rd0 + 0x100000000];")

# ---- vector: brace lists, vector registers
k("vector", "ld-v4-four", "ld.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd0];")
k("vector", "ld-v4-three", "ld.global.v4.u32 {%r0, %r1, %r2}, [%rd0];")
k("vector", "ld-v2-four", "ld.global.v2.u32 {%r0, %r1, %r2, %r3}, [%rd0];")
k("vector", "ld-v2-scalar", "ld.global.v2.u32 %r0, [%rd0];")
k("vector", "ld-v4-sink", "ld.global.v4.u32 {%r0, _, %r2, _}, [%rd0];")
k("vector", "ld-v2-mixed-types", "ld.global.v2.u32 {%r0, %rd1}, [%rd0];")
k("vector", "st-v2-imm-element", "st.global.v2.u32 [%rd0], {%r0, 1};")
k("vector", "mov-pack", "mov.b64 %rd1, {%r0, %r1};")
k("vector", "mov-pack-three", "mov.b64 %rd1, {%r0, %r1, %r2};")
k("vector", "mov-unpack", "mov.b64 {%r0, %r1}, %rd0;")
k("vector", "mov-unpack-sink", "mov.b64 {%r0, _}, %rd0;")
k("vector", "empty-brace", "ld.global.v2.u32 {}, [%rd0];")
k("vector", "nested-brace", "ld.global.v2.u32 {{%r0}, %r1}, [%rd0];")
k("vector", "brace-scalar-dest", "add.u32 {%r1}, %r0, %r0;")
k("vector", "vreg-v4-ld", ".reg .v4 .f32 %v;\nld.global.v4.f32 %v, [%rd0];")
k("vector", "vreg-v2-in-v4", ".reg .v2 .f32 %v;\nld.global.v4.f32 %v, [%rd0];")
k("vector", "vreg-component-x", ".reg .v4 .f32 %v;\nmov.f32 %f1, %v.x;")
k("vector", "vreg-component-w-of-v2", ".reg .v2 .f32 %v;\nmov.f32 %f1, %v.w;")
k("vector", "vreg-component-r", ".reg .v4 .f32 %v;\nmov.f32 %f1, %v.r;")
k("vector", "vreg-component-in-brace", ".reg .v4 .f32 %v;\nld.global.v2.f32 {%v.x, %v.y}, [%rd0];")
k("vector", "scalar-component", "mov.u32 %r1, %r0.x;")

# ---- symbol: variables and addresses
k("symbol", "ld-sym", "ld.global.u32 %r1, [gvar];")
k("symbol", "ld-sym-plus-8", "ld.global.u32 %r1, [gvar+8];")
k("symbol", "ld-sym-minus-4", "ld.global.u32 %r1, [gvar-4];")
k("symbol", "ld-reg64-plus-4", "ld.global.u32 %r1, [%rd0+4];")
k("symbol", "ld-reg32-global", "ld.global.u32 %r1, [%r0+4];")
k("symbol", "ld-reg32-shared", "ld.shared.u32 %r1, [%r0+4];")
k("symbol", "ld-imm-address", "ld.global.u32 %r1, [64];")
k("symbol", "ld-sym-plus-sym", "ld.global.u32 %r1, [gvar+gptr];")
k("symbol", "ld-undefined-sym", "ld.global.u32 %r1, [nosuch];")
k("symbol", "ld-shared-of-global", "ld.shared.u32 %r1, [gvar];")
k("symbol", "ld-generic-of-global", "ld.u32 %r1, [gvar];")
k("symbol", "ld-func-address", "ld.global.u32 %r1, [fn];")
k("symbol", "ld-label-address", "ld.global.u32 %r1, [$L];\n$L:")
k("symbol", "ld-generic-fn", "ld.u32 %r1, [generic(gvar)];")
k("symbol", "mov-generic", "mov.u64 %rd1, generic(gvar);")
k("symbol", "mov-generic-plus", "mov.u64 %rd1, generic(gvar)+4;")
k("symbol", "mov-sym-u64", "mov.u64 %rd1, gvar;")
k("symbol", "mov-sym-u32", "mov.u32 %r1, gvar;")
k("symbol", "mov-func", "mov.u64 %rd1, fn;")
k("symbol", "mov-label", "mov.u64 %rd1, $L;\n$L:")
k("symbol", "cvta-sym", "cvta.global.u64 %rd1, gvar;")
k("symbol", "cvta-sym-plus", "cvta.global.u64 %rd1, gvar+4;")
k("symbol", "bra-undefined", "bra nosuch;")
k("symbol", "bra-variable", "bra gvar;")
k("symbol", "add-sym-operand", "add.u64 %rd1, %rd0, gvar;")
m("symbol", "ld-param-kernel-plus", ".visible .entry k(.param .u32 kp[2]) { .reg .b32 %r; ld.param.u32 %r, [kp+4]; ret; }")
k("symbol", "ld-local-var", ".local .u32 lvar[2];\nld.local.u32 %r1, [lvar+4];")
k("symbol", "ld-shared-var", ".shared .u32 svar[2];\nld.shared.u32 %r1, [svar+4];")
k("symbol", "st-const", "st.const.u32 [gvar], %r0;")

# ---- scope: nested { } blocks
k("scope", "sibling-labels", "{ $W: @%p0 bra $W; }\n{ $W: @%p0 bra $W; }")
k("scope", "inner-label-as-outer", "$W: @%p0 bra $W;\n{ $W: @%p0 bra $W; }")
k("scope", "duplicate-label", "$W: @%p0 bra $W;\n$W: @%p0 bra $W;")
k("scope", "branch-into-block", "@%p0 bra $In;\n{ $In: mov.u32 %r1, 1; }")
k("scope", "branch-out-of-block", "{ @%p0 bra $Out; }\n$Out:")
k("scope", "inner-reg-shadow", "{ .reg .b32 %r0; mov.u32 %r0, 1; }\nmov.u32 %r1, %r0;")
k("scope", "inner-reg-after-block", "{ .reg .b32 %t; mov.u32 %t, 1; }\nmov.u32 %r1, %t;")
k("scope", "redeclare-same-scope", ".reg .b32 %t;\n.reg .b32 %t;")
k("scope", "range-then-inner-name", "{ .reg .b64 %rd; mov.u64 %rd, 1; mov.u64 %rd1, %rd; }")
k("scope", "range-member-redeclared", ".reg .b32 %r1;")
k("scope", "inner-range-shadow", "{ .reg .b64 %r<2>; mov.u64 %r1, 1; }\nmov.u32 %r1, 1;")
k("scope", "empty-block", "{ }")
k("scope", "deep-nesting", "{ { { .reg .b32 %t; mov.u32 %t, 1; } } }")
k("scope", "label-at-block-end", "{ @%p0 bra $E; $E: }")
k("scope", "label-at-function-end", "@%p0 bra $E;\n$E:")
k("scope", "label-same-as-register", "$r9:\n.reg .b32 $r9;")
k("scope", "label-same-as-function", "fn:")
k("scope", "label-same-as-variable", "gvar:")
k("scope", "inner-var-shadows-global", "{ .local .u32 gvar; ld.local.u32 %r1, [gvar]; }")
m("scope", "param-same-name", ".visible .func f(.param .b32 a, .param .b32 a) { ret; }")
m("scope", "reg-same-as-param", ".visible .func f(.param .b32 a) { .reg .b32 a; ret; }")
m("scope", "block-in-module", "{ .reg .b32 %r; }")

# ---- decl: declarations and directives
k("decl", "reg-array", ".reg .b32 %ra[4];")
k("decl", "reg-array-2d", ".reg .b32 %ra[2][2];")
k("decl", "reg-array-init", ".reg .b32 %ra[2] = {1, 2};")
k("decl", "reg-init", ".reg .b32 %ri = 1;")
k("decl", "reg-v2-b32", ".reg .v2 .b32 %v;")
k("decl", "reg-v4-b32", ".reg .v4 .b32 %v;")
k("decl", "reg-v4-b64", ".reg .v4 .b64 %v;")
k("decl", "reg-v2-b64", ".reg .v2 .b64 %v;")
k("decl", "reg-v3", ".reg .v3 .b32 %v;")
k("decl", "reg-v8", ".reg .v8 .b32 %v;")
k("decl", "reg-v2-pred", ".reg .v2 .pred %v;")
k("decl", "reg-v4-b8", ".reg .v4 .b8 %v;")
k("decl", "reg-range-0", ".reg .b32 %q<0>;")
k("decl", "reg-range-100", ".reg .b32 %q<100>;")
k("decl", "reg-range-4294967295", ".reg .b32 %q<4294967295>;")
k("decl", "reg-range-4294967296", ".reg .b32 %q<4294967296>;")
k("decl", "reg-range-expr", ".reg .b32 %q<2 * 4>;")
k("decl", "reg-range-neg", ".reg .b32 %q<-1>;")
k("decl", "reg-no-type", ".reg %q;")
k("decl", "reg-b128", ".reg .b128 %q;")
k("decl", "global-in-body", ".global .u32 gv2;")
k("decl", "shared-init", ".shared .u32 sv = 1;")
k("decl", "local-init", ".local .u32 lv = 1;")
k("decl", "const-in-body", ".const .u32 cv = 1;")
for space in ("reg", "param"):
    for t in ("b8", "u8", "s8", "b16", "u16", "s16", "f16", "pred", "b32"):
        m("decl", f"func-{space}-{t}-defined", f".visible .func f(.{space} .{t} x) {{ ret; }}")
        m("decl", f"func-{space}-{t}-called",
          f".visible .func f(.{space} .{t} x) {{ ret; }}\n"
          f".visible .entry k() {{ .{space} .{t} a; call f, (a); ret; }}")
        m("decl", f"func-ret-{space}-{t}-called",
          f".visible .func (.{space} .{t} y) f() {{ ret; }}\n"
          f".visible .entry k() {{ .{space} .{t} a; call (a), f, (); ret; }}")
for t in ("u16", "b16", "s8", "pred", "b32"):
    m("decl", f"proto-reg-{t}-called",
      f".visible .entry k(.param .u64 fp) {{ .reg .{t} a; .reg .u64 %fp; ld.param.u64 %fp, [fp];\n"
      f"  P: .callprototype _ (.reg .{t} x);\n  call %fp, (a), P; ret; }}")
    m("decl", f"proto-reg-{t}-unused", f".visible .entry k() {{ P: .callprototype _ (.reg .{t} x); ret; }}")
m("decl", "func-reg-u16-called-abi-off",  # several return values turn the ABI off ("disabling ABI")
  ".func (.reg .b32 q, .reg .b32 r) two() { ret; }\n.func f(.reg .u16 x) { ret; }\n"
  ".visible .entry k() { .reg .u16 a; call f, (a); ret; }")
m("decl", "proto-param-array", ".visible .entry k() { P: .callprototype _ (.param .b32 x[4]); ret; }")
m("decl", "proto-reg-array", ".visible .entry k() { P: .callprototype _ (.reg .b32 x[4]); ret; }")
m("decl", "proto-param-pred", ".visible .entry k() { P: .callprototype _ (.param .pred x); ret; }")
m("decl", "func-reg-array-param", ".visible .func f(.reg .b32 x[4]) { ret; }")
m("decl", "func-param-array", ".visible .func f(.param .b32 x[4]) { ret; }")
m("decl", "func-param-align", ".visible .func f(.param .align 16 .b8 x[16]) { ret; }")
m("decl", "entry-reg-param", ".visible .entry k(.reg .b32 x) { ret; }")
m("decl", "entry-param-pred", ".visible .entry k(.param .pred x) { ret; }")
m("decl", "entry-param-u8", ".visible .entry k(.param .u8 x) { ret; }")
m("decl", "extern-func-called", ".extern .func g();\n.visible .entry k() { call g, (); ret; }")
m("decl", "undeclared-body-func-called", ".func g();\n.visible .entry k() { call g, (); ret; }")
m("decl", "extern-func-defined", ".extern .func g();\n.visible .func g() { ret; }")
m("decl", "weak-func", ".weak .func g() { ret; }\n.visible .entry k() { call g, (); ret; }")
m("decl", "weak-global", ".weak .global .u32 w;")
m("decl", "visible-global", ".visible .global .u32 w = 3;")
m("decl", "extern-global-init", ".extern .global .u32 w = 3;")
m("decl", "extern-global-incomplete", ".extern .global .u32 w[];")
m("decl", "global-incomplete", ".global .u32 w[];")
m("decl", "global-incomplete-init", ".global .u32 w[] = {1, 2};")
m("decl", "init-too-many", ".global .u32 w[2] = {1, 2, 3};")
m("decl", "init-too-few", ".global .u32 w[3] = {1, 2};")
m("decl", "init-nested", ".global .u32 w[2][2] = {{1, 2}, {3, 4}};")
m("decl", "init-float", ".global .f32 w = 1.5;")
m("decl", "init-float-hex-in-int", ".global .u32 w = 0f3F800000;")
m("decl", "init-address", ".global .u32 v[2];\n.global .u64 w = v;")
m("decl", "init-address-plus", ".global .u32 v[2];\n.global .u64 w = v + 4;")
m("decl", "init-generic", ".global .u32 v[2];\n.global .u64 w = generic(v);")
m("decl", "init-generic-plus", ".global .u32 v[2];\n.global .u64 w = generic(v) + 4;")
m("decl", "init-address-in-u32", ".global .u32 v[2];\n.global .u32 w = v;")
m("decl", "init-defined-func", ".visible .func g() { ret; }\n.global .u64 w[1] = { g };")
m("decl", "init-extern-func", ".extern .func __cxa_pure_virtual();\n.global .u64 w[1] = { __cxa_pure_virtual };")
m("decl", "init-extern-func-const", ".extern .func g();\n.const .u64 w = g;")
m("decl", "init-declared-func", ".func g();\n.global .u64 w = g;\n.func g() { ret; }")
m("decl", "init-undefined-sym", ".global .u64 w = nosuch;")
m("decl", "init-shared-address", ".shared .u32 s;\n.global .u64 w = s;")
m("decl", "init-extern-global-address", ".extern .global .u32 e;\n.global .u64 w = e;")
for n in ("0", "1", "3", "8", "16", "4096", "2147483648", "4294967296"):
    m("decl", f"align-{n}", f".global .align {n} .b8 w[16];")
m("decl", "align-on-reg", ".visible .entry k() { .reg .align 8 .b32 %q; ret; }")
m("decl", "align-in-body", ".visible .entry k() { .local .align 16 .b8 q[16]; ret; }")
add("decl", "address-size-64", header(address_size="64") + ".visible .entry k() { ret; }\n")
add("decl", "address-size-32", header(address_size="32") + ".visible .entry k() { ret; }\n")
add("decl", "address-size-16", header(address_size="16") + ".visible .entry k() { ret; }\n")
add("decl", "address-size-absent", header(address_size=None) + ".visible .entry k() { ret; }\n")
add("decl", "address-size-twice", header() + ".address_size 64\n.visible .entry k() { ret; }\n")
m("decl", "entry-redefined", ".visible .entry k() { ret; }\n.visible .entry k() { ret; }")
m("decl", "func-declared-twice", ".visible .func f();\n.visible .func f();\n.visible .func f() { ret; }")
m("decl", "func-decl-mismatch", ".visible .func f(.param .b32 a);\n.visible .func f() { ret; }")
m("decl", "visible-extern-func", ".visible .extern .func f();")
m("decl", "common-global", ".common .global .u32 w;")
m("decl", "var-incomplete-type-param", ".visible .entry k(.param .b8 p[]) { ret; }")


def main() -> int:
    if len(sys.argv) >= 2 and sys.argv[1] == "--list":
        want = sys.argv[2] if len(sys.argv) > 2 else ""
        for s in SAMPLES:
            if want in s.key:
                print(f"// {s.key} [{s.target}] {s.digest()}\n{s.text}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
