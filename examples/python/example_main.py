"""The command line every Python DSL example shares (examples/example_main.hpp's twin):
    python3 EXAMPLE.py [--ptx] [--arch sm_90a] [--dim N=4096 ...] [--run] [the example's own flags]
--ptx prints the traced PTX and nothing else (no GPU needed); --run runs the kernel on NumPy
arrays in the CPU emulator and checks it against NumPy; otherwise a summary. An example with flags
of its own passes `options(parser)`, which adds them; `kernel`, `run` and `dims` then take the
parsed arguments (`kernel(args)` returns the kernel, `dims(args)` the default dimensions)."""

import argparse
import sys

import ptxpp


def example_main(what, kernel, dims, run=None, argv=None, arch="sm_90a", options=None):
    parser = argparse.ArgumentParser(description=what)
    parser.add_argument("--ptx", action="store_true", help="print the kernel's PTX and exit")
    parser.add_argument("--arch", default=arch, help=f"target: sm_80, sm_90a, sm_100a, ... (default {arch})")
    parser.add_argument("--dim", action="append", default=[], help="bind a shape variable, NAME=VALUE (repeatable)")
    parser.add_argument("--run", action="store_true", help="run on the CPU emulator at a small shape and check it")
    if options:
        options(parser)
    args = parser.parse_args(argv)
    dims = dict(dims(args) if options else dims)
    for d in args.dim:
        name, _, value = d.partition("=")
        if not name or not value.isdigit() or int(value) <= 0:
            parser.error(f"--dim: not NAME=VALUE with a positive integer: '{d}'")
        dims[name] = int(value)
    try:
        if options:
            kernel = kernel(args)
        if args.run:
            run(args) if options else run()
            print(f"{kernel.name}: matches NumPy on the CPU emulator")
            return 0
        traced = kernel.trace(arch=args.arch, **dims)
    except ptxpp.Error as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.ptx:
        sys.stdout.write(traced.ptx)
        return 0
    print(f"kernel {traced.name} for {traced.target} (PTX ISA {traced.ptx_version[0]}.{traced.ptx_version[1]}): "
          f"{traced.instructions} instructions, grid {'x'.join(map(str, traced.grid))}, "
          f"block {'x'.join(map(str, traced.block))}")
    print("run with --ptx to print the PTX, --run to run it on the emulator")
    return 0
