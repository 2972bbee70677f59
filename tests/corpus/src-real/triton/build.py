"""Compile the kernels of kernels.py to PTX with Triton, without a GPU.

    python build.py OUTDIR [name...]

Writes OUTDIR/<target>/<name>.ptx, <target> being the PTX's own .target
(sm_80, sm_90a, sm_100a, sm_120a), and next to it <name>.launch: how Triton's
launcher would start that kernel (launch_sidecar). Run from a fixed directory
(scripts/gen-corpus-real does): Triton writes the source file's path into .file
and DWARF strings.
"""
import os
import re
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

import kernels as k

P16 = "D"  # pointer/int argument specialized as 16-byte divisible (what a launch with aligned tensors does)


def sig(fn, spec):
    """'x:*fp32:D n:i32 BLOCK' -> (signature, divisibility attrs); a bare name is a constexpr.

    The spec's names are only labels: its items are the kernel's parameters in order."""
    items = spec.split()
    assert len(items) == len(fn.arg_names), f"{fn.__name__}: {len(items)} items for {len(fn.arg_names)} parameters"
    signature, attrs = {}, {}
    for i, (arg, item) in enumerate(zip(fn.arg_names, items)):
        parts = item.split(":")
        if len(parts) == 1:
            signature[arg] = "constexpr"
            continue
        signature[arg] = parts[1]
        if len(parts) > 2 and parts[2] == P16:
            attrs[(i, )] = [["tt.divisibility", 16]]
    return signature, attrs


MM = ("a:*{a}:D b:*{b}:D c:*{c}:D M:i32 N:i32 K:i32 stride_am:i32:D stride_ak:i32 stride_bk:i32:D stride_bn:i32 "
      "stride_cm:i32:D stride_cn:i32 BLOCK_M BLOCK_N BLOCK_K GROUP_M ACC PRECISION RELU")


def mm(a, b, c):
    return MM.format(a=a, b=b, c=c)


def mmc(bm, bn, bk, acc="fp32", precision="tf32", relu=False):
    return dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, ACC=getattr(triton.language, {
        "fp32": "float32", "fp16": "float16", "i32": "int32"}[acc]), PRECISION=precision, RELU=relu)


ALL = (80, 90, 100)
# name, kernel, signature spec, constexprs, compute capabilities, options
TABLE = [
    ("vector_add", k.vector_add, "x:*fp32:D y:*fp32:D out:*fp32:D n:i32 BLOCK", dict(BLOCK=1024), ALL,
     dict(lineinfo=True)),
    ("vector_add_unaligned", k.vector_add, "x:*fp32 y:*fp32 out:*fp32 n:i32 BLOCK", dict(BLOCK=256), (80, ),
     dict(num_warps=2)),
    ("activations", k.activations, "x:*fp16:D g:*fp16:D s:*fp16:D t:*fp16:D n:i32:D BLOCK", dict(BLOCK=256), (80, 90, 100), {}),
    ("math_mix", k.math_mix, "x:*fp32:D o:*fp32:D n:i32 BLOCK", dict(BLOCK=128), ALL + (120, ), {}),
    ("int_ops", k.int_ops, "a:*i32:D b:*i32:D o:*i64:D n:i32 BLOCK", dict(BLOCK=128), (80, 90, 100), {}),
    ("softmax_f16", k.softmax, "o:*fp16:D i:*fp16:D si:i32:D so:i32:D rows:i32 cols:i32 BLOCK", dict(BLOCK=1024),
     ALL, dict(num_warps=8, lineinfo=True)),
    ("softmax_f32", k.softmax, "o:*fp32:D i:*fp32:D si:i32 so:i32 rows:i32 cols:i32 BLOCK", dict(BLOCK=256), (80, ),
     dict(num_warps=2)),
    ("layernorm_fwd", k.layernorm_fwd, "x:*fp16:D y:*fp16:D w:*fp16:D b:*fp16:D mean:*fp32:D rstd:*fp32:D "
     "stride:i32:D n:i32 eps:fp32 BLOCK", dict(BLOCK=1024), ALL, dict(num_warps=8)),
    ("layernorm_bwd_dx", k.layernorm_bwd_dx, "dy:*fp16:D x:*fp16:D w:*fp16:D mean:*fp32:D rstd:*fp32:D dx:*fp16:D "
     "dw:*fp16:D lock:*i32:D stride:i32:D n:i32 GROUP BLOCK", dict(GROUP=32, BLOCK=1024), (80, 90, 100), dict(num_warps=8)),
    ("rmsnorm", k.rmsnorm, "x:*bf16:D w:*bf16:D y:*bf16:D stride:i32:D n:i32 eps:fp32 BLOCK", dict(BLOCK=2048), ALL,
     dict(num_warps=16)),
    ("row_reductions", k.row_reductions, "x:*fp32:D s:*fp32:D mx:*fp32:D am:*i32:D mn:*fp32:D p:*fp32:D M:i32 N:i32 "
     "BLOCK_M BLOCK_N", dict(BLOCK_M=4, BLOCK_N=64), (80, 90, 100), {}),
    ("welford_col_stats", k.welford_col_stats, "x:*fp32:D mean:*fp32:D var:*fp32:D M:i32 N:i32 BLOCK_M BLOCK_N",
     dict(BLOCK_M=16, BLOCK_N=32), (80, 90, 100), {}),
    ("scans", k.scans, "x:*i32:D cs:*i32:D cp:*i32:D cm:*i32:D n:i32 BLOCK", dict(BLOCK=256), ALL + (120, ), {}),
    ("sort_topk", k.sort_topk, "x:*fp32:D s:*fp32:D t:*fp32:D N K", dict(N=64, K=8), (80, 90, 100), {}),
    ("histogram_atomics", k.histogram_atomics, "x:*i32:D h:*i32:D st:*i32:D n:i32 BINS BLOCK",
     dict(BINS=32, BLOCK=256), ALL, {}),
    ("atomic_float_scatter", k.atomic_float_scatter, "idx:*i32:D v:*fp32:D o32:*fp32:D o16:*fp16:D o64:*fp64:D "
     "n:i32 BLOCK", dict(BLOCK=256), ALL, {}),
    ("dropout", k.dropout, "x:*fp32:D o:*fp32:D n:i32 p:fp32 seed:i32 BLOCK", dict(BLOCK=256), (80, 90, 100), {}),
    ("transpose2d", k.transpose2d, "i:*fp16:D o:*fp16:D M:i32:D N:i32:D BLOCK_M BLOCK_N",
     dict(BLOCK_M=64, BLOCK_N=64), (80, 90, 100), {}),
    ("matmul_f16", k.matmul, mm("fp16", "fp16", "fp16"), mmc(128, 128, 32), ALL + (120, ), dict(num_stages=3)),
    ("matmul_f16_relu_w8", k.matmul, mm("fp16", "fp16", "fp16"), mmc(128, 256, 64, relu=True), (90, ),
     dict(num_warps=8, num_stages=3)),
    ("matmul_f16_acc16", k.matmul, mm("fp16", "fp16", "fp16"), mmc(64, 64, 32, acc="fp16"), (80, 90), {}),
    ("matmul_bf16", k.matmul, mm("bf16", "bf16", "bf16"), mmc(64, 128, 64), ALL, dict(num_stages=4)),
    ("matmul_tf32", k.matmul, mm("fp32", "fp32", "fp32"), mmc(64, 64, 32), ALL, {}),
    ("matmul_tf32x3", k.matmul, mm("fp32", "fp32", "fp32"), mmc(64, 64, 32, precision="tf32x3"), (80, ), {}),
    ("matmul_f32_ieee", k.matmul, mm("fp32", "fp32", "fp32"), mmc(32, 32, 16, precision="ieee"), (80, ),
     dict(num_stages=2)),
    ("matmul_i8", k.matmul, mm("i8", "i8", "i32"), mmc(64, 64, 64, acc="i32"), ALL, {}),
    ("matmul_fp8", k.matmul, mm("fp8e4nv", "fp8e4nv", "bf16"), mmc(128, 128, 64), (90, 100, 120), {}),
    ("matmul_fp8_e5m2", k.matmul, mm("fp8e5", "fp8e4nv", "fp16"), mmc(64, 128, 64), (90, ), {}),
    ("matmul_splitk", k.matmul_splitk, "a:*fp16:D b:*fp16:D c:*fp32:D M:i32 N:i32 K:i32 BLOCK_M BLOCK_N BLOCK_K "
     "SPLIT_K", dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, SPLIT_K=4), (80, 90), {}),
    ("matmul_tma_persistent", k.matmul_tma_persistent, "a:tensordesc<fp16[128,64]> b:tensordesc<fp16[128,64]> "
     "c:tensordesc<fp16[128,128]> M:i32 N:i32 K:i32 BLOCK_M BLOCK_N BLOCK_K NUM_SMS",
     dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, NUM_SMS=132), (90, 100), dict(num_stages=3)),
    ("matmul_device_desc", k.matmul_device_desc, "a:*fp16:D b:*fp16:D c:*fp16:D M:i32 N:i32 K:i32 BLOCK_M BLOCK_N "
     "BLOCK_K", dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64), (90, 100), {}),
    ("matmul_mxfp8", k.matmul_scaled_mx, "a:*fp8e4nv:D sa:*u8:D b:*fp8e4nv:D sb:*u8:D c:*bf16:D M:i32 N:i32 K:i32 "
     "BLOCK_M BLOCK_N BLOCK_K FMT", dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, FMT="e4m3"), (100, ), {}),
    ("attention_causal", k.attention_fwd, "q:*fp16:D k:*fp16:D v:*fp16:D o:*fp16:D lse:*fp32:D seq:i32 scale:fp32 "
     "sh:i32:D ss:i32:D HEAD_DIM BLOCK_M BLOCK_N CAUSAL", dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=True),
     ALL, dict(num_warps=8, num_stages=2)),
    ("attention_bf16", k.attention_fwd, "q:*bf16:D k:*bf16:D v:*bf16:D o:*bf16:D lse:*fp32:D seq:i32 scale:fp32 "
     "sh:i32:D ss:i32:D HEAD_DIM BLOCK_M BLOCK_N CAUSAL", dict(HEAD_DIM=128, BLOCK_M=64, BLOCK_N=64, CAUSAL=False),
     (90, ), dict(num_warps=4, num_stages=2)),
    ("cross_entropy", k.cross_entropy, "l:*fp16:D y:*i64:D loss:*fp32:D dl:*fp16:D n:i32 stride:i32:D ign:i32 BLOCK",
     dict(BLOCK=4096), (80, 90, 100), dict(num_warps=16)),
    ("fp8_quantize", k.fp8_quantize, "x:*fp32:D q:*fp8e4nv:D s:*fp32:D n:i32 BLOCK", dict(BLOCK=512), (90, 100), {}),
    ("gather_embedding", k.gather_embedding, "ids:*i32:D t:*fp32:D o:*fp32:D p:*fp32:D n:i32 dim:i32:D BLOCK_T "
     "BLOCK_D", dict(BLOCK_T=16, BLOCK_D=128), (80, 90, 100), {}),
    ("rope", k.rope, "x:*fp32:D c:*fp32:D s:*fp32:D o:*fp32:D seq:i32 HALF BLOCK_S", dict(HALF=32, BLOCK_S=32),
     (80, 90, 100), {}),
]


def launch_params(spec, signature, attrs, meta):
    """The .entry's parameters in order, as the launcher passes them: a tensordesc with TMA metadata
    becomes its 128-byte CUtensorMap, shape (i32 each) and strides (i64 each); then the two scratch
    pointers Triton appends (0 when their size is 0, else size bytes per CTA of the grid)."""
    out, descs = [], iter(meta.tensordesc_meta or [])
    for i, (arg, item) in enumerate(zip(signature, spec.split())):
        ty = signature[arg]
        if ty == "constexpr":
            continue
        label = item.split(":")[0]
        if ty.startswith("tensordesc"):
            d = next(descs)
            rank = ty.count(",") + 1
            out.append(f"{label}.desc tensormap swizzle={d['swizzle']} elem_size={d['elem_size']} "
                       f"elem_type={d['elem_type']} block={','.join(map(str, d['block_size']))} "
                       f"fp4_padded={int(d['fp4_padded'])}")
            out += [f"{label}.shape{j} i32" for j in range(rank)] + [f"{label}.stride{j} i64" for j in range(rank)]
            continue
        out.append(f"{label} {ty}" + (" div16" if (i, ) in attrs else ""))
    for kind in ("global", "profile"):
        size, align = getattr(meta, f"{kind}_scratch_size"), getattr(meta, f"{kind}_scratch_align")
        out.append(f"{kind}_scratch *i8 size={size} align={align}")
    return out


def launch_sidecar(name, spec, signature, attrs, consts, meta):
    """<name>.launch: one `key value...` per line, for tests that run the PTX with its real launch."""
    lines = [f"# How Triton {triton.__version__} launches {name}.ptx (tests/corpus/src-real/triton/build.py)",
             f"entry {meta.name}",
             f"num_warps {meta.num_warps}",
             f"block {meta.num_warps * 32} 1 1",
             f"num_ctas {meta.num_ctas}",
             f"cluster {' '.join(map(str, meta.cluster_dims))}",
             f"shared {meta.shared}",
             f"tmem {meta.tmem_size}"]
    lines += [f"param {p}" for p in launch_params(spec, signature, attrs, meta)]
    lines += [f"constexpr {k} {getattr(v, 'name', v)}" for k, v in consts.items()]
    return "\n".join(lines) + "\n"


def target_of(ptx):
    return re.search(r"^\.target\s+(\w+)", ptx, re.M).group(1)


def main():
    out, only = sys.argv[1], set(sys.argv[2:])
    names = {row[0] for row in TABLE}
    unknown = only - names
    if unknown:
        sys.exit(f"build.py: not in the table: {' '.join(sorted(unknown))}")
    for name, fn, spec, consts, ccs, opts in TABLE:
        if only and name not in only:
            continue
        signature, attrs = sig(fn, spec)
        opts = dict(opts)
        # Triton writes .loc/.file and DWARF sections by default; most entries leave them out
        # (they triple a file's size), the ones marked lineinfo keep them.
        lineinfo = opts.pop("lineinfo", False)
        os.environ["TRITON_DISABLE_LINE_INFO"] = "0" if lineinfo else "1"
        for cc in ccs:
            src = ASTSource(fn=fn, signature=signature, constexprs=consts, attrs=attrs)
            compiled = triton.compile(src, target=GPUTarget("cuda", cc, 32), options=opts)
            ptx = compiled.asm["ptx"]
            path = os.path.join(out, target_of(ptx), name + ".ptx")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(ptx)
            with open(path[:-len(".ptx")] + ".launch", "w") as f:
                f.write(launch_sidecar(name, spec, signature, attrs, consts, compiled.metadata))
            shown = " ".join(f"{k}={v}" for k, v in sorted(opts.items())) + (" lineinfo" if lineinfo else "")
            print(f"  triton {name} cc={cc} {shown} -> {os.path.relpath(path, out)}", flush=True)


if __name__ == "__main__":
    main()
