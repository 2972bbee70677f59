"""Device functions, calls and modules (ptxpp.func, ptx.call, ptxpp.Module): the program of
tests/python/python_twins.cpp's `module` prints the C++ DSL's PTX byte for byte, ptxas takes it,
a kernel calling device functions runs on the CPU emulator, and misuse is reported at the user's line."""

import os
import subprocess
import tempfile

import numpy as np
import pytest

import ptxpp
from ptxpp import Scalar, Tile, ptx, reg
from ptxpp.types import f32, f64, pred, u32, u64

from test_blackwell_forms import cxx_twin
from test_examples import PTXAS


def program():
    """The twin's program: three device functions (one calling another, one void) and two kernels."""
    @ptxpp.func(ret=u32, params=(u32, u32))
    def add(a):
        x, y = a.param(0), a.param(1)
        a.ret(x + y)

    @ptxpp.func(ret=u32, params=(u32,))
    def twice_plus1(a):
        x = a.param(0)
        y = add(x, x)
        a.ret(ptx.call(add, [y, 1]))

    @ptxpp.func(params=(u64, u32))
    def store(a):
        p, v = a.param(0), a.param(1)
        ptx.inst.st.global_.u32(ptx.addr(p), v)
        ptx.ret()

    @ptxpp.kernel(in_specs=(Tile("N", u32),), out_specs=(Tile("N", u32),), block=64, arch="sm_90a")
    def k(x, y):
        px, py = x.global_ptr(), y.global_ptr()
        i = ptx.read(ptx.special.tid.x(), u32)
        off = i * 4
        v = reg.scalar(u32)
        ptx.inst.ld.global_.u32(v, ptx.addr(px + off))
        store(py + off, twice_plus1(v))
        ptx.ret()

    @ptxpp.kernel(scalars=(Scalar("s", u32),), arch="sm_90a")
    def k2(s):
        add(s.load(), 5)
        ptx.ret()

    mod = ptxpp.Module(arch="sm_90a").global_("table", u32, 4, [1, 2, 3], 16).constant("coeffs", f32, 2, [0.5, -1])
    mod.add(add).add(twice_plus1).add(store).add(k).add(k2)
    return mod, k


def test_same_ptx_as_the_cxx_module():
    mod, _ = program()
    assert mod.ptx(N=64) == cxx_twin("module")


def test_the_module_prints_functions_then_kernels_and_ptxas_takes_it():
    mod, k = program()
    text = mod.ptx(N=64)
    for s in (".global .align 16 .u32 table[4] = {1, 2, 3};", ".const .f32 coeffs[2] = {0f3F000000, 0fBF800000};",
              ".visible .func (.param .b32 add_retval) add(", "call.uni \t(retval_0), add, (param_0_0, param_0_1);",
              "call.uni \tstore, (param_3_0, param_3_1);", ".visible .entry k(", ".visible .entry k2("):
        assert s in text
    assert text.index(".visible .func store(\n") < text.index(".visible .entry k(")
    assert k.ptx(N=64) == text  # a kernel in a module traces the module
    t = mod.trace("k2", N=64)
    assert (t.name, t.ptx, [p["name"] for p in t.params]) == ("k2", text, ["k2_s"])
    if PTXAS:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "m.ptx"), "w") as f:
                f.write(text)
            r = subprocess.run([PTXAS, "-arch=sm_90a", "m.ptx", "-o", "m.cubin"], cwd=d, capture_output=True, text=True)
            assert r.returncode == 0, r.stderr


def test_a_kernel_calling_device_functions_runs_on_the_emulator():
    _, k = program()
    x = np.arange(64, dtype=np.uint32) * 3
    np.testing.assert_array_equal(k(x), 2 * x + 1)


def kernel_calling(body, arch="sm_90a"):
    @ptxpp.kernel(in_specs=(Tile("N", u32),), arch=arch)
    def k(x):
        body()
    return k


def test_misuse_is_reported_at_the_users_line():
    @ptxpp.func(ret=u32, params=(u32,))
    def inc(a):
        a.ret(a.param(0) + 1)

    def outside_module():
        inc(reg.scalar(u32))
    with pytest.raises(ptxpp.Error, match=r"test_module\.py:\d+: calling inc: kernels that call device functions are "
                                          r"traced by a ptx::Module"):
        kernel_calling(outside_module).ptx(N=4)

    def wrong_count():
        inc(reg.scalar(u32), 2)
    with pytest.raises(ptxpp.Error, match=r"test_module\.py:\d+: inc takes 1 arguments, not 2"):
        ptxpp.Module(arch="sm_90a").add(inc).add(kernel_calling(wrong_count)).ptx(N=4)

    def wrong_type():
        inc(reg.scalar(u64))
    with pytest.raises(ptxpp.Error, match=r"test_module\.py:\d+: argument 0 of inc: .* for a \.u32 parameter"):
        ptxpp.Module(arch="sm_90a").add(inc).add(kernel_calling(wrong_type)).ptx(N=4)

    @ptxpp.func(ret=u32)
    def bad_ret(a):
        a.ret(reg.scalar(f64))
    with pytest.raises(ptxpp.Error, match=r"test_module\.py:\d+: bad_ret returns \.u32, not \.f64"):
        ptxpp.Module().add(bad_ret).ptx()

    with pytest.raises(ptxpp.Error, match=r"test_module\.py:\d+: a device function parameter cannot be \.pred"):
        @ptxpp.func(params=(pred,))
        def bad_param(a):
            pass

    with pytest.raises(TypeError, match="ptx.call: argument 'f' is a ptxpp.func, not builtin_function_or_method"):
        ptxpp.Module(arch="sm_90a").add(kernel_calling(lambda: ptx.call(len, [1]))).ptx(N=4)
    with pytest.raises(TypeError, match="Module.add: argument 'item' is a ptxpp.func or ptxpp.kernel"):
        ptxpp.Module().add(inc.fn)


def test_a_kernel_belongs_to_one_module_of_its_target():
    k = kernel_calling(lambda: ptx.ret())
    ptxpp.Module(arch="sm_90a").add(k)
    with pytest.raises(ptxpp.Error, match="already in another ptxpp.Module"):
        ptxpp.Module(arch="sm_90a").add(k)
    with pytest.raises(ptxpp.Error, match="is for sm_100a, the module for sm_90a"):
        ptxpp.Module(arch="sm_90a").add(kernel_calling(lambda: ptx.ret(), arch="sm_100a"))
    with pytest.raises(TypeError, match="unknown keyword argument"):
        ptxpp.Module(arch="sm_90a").add(kernel_calling(lambda: ptx.ret())).ptx(N=4, M=3)


def test_a_debug_module_locates_function_and_kernel_lines():
    @ptxpp.func(ret=u32, params=(u32,))
    def inc(a):
        a.ret(a.param(0) + 1)  # the function's line

    @ptxpp.kernel(in_specs=(Tile("N", u32),), arch="sm_90a")
    def k(x):
        inc(ptx.read(ptx.special.tid.x(), u32))  # the kernel's line
        ptx.ret()

    text = ptxpp.Module(arch="sm_90a", debug=True).add(inc).add(k).ptx(N=4)
    lines = {l for l in text.splitlines() if ".loc" in l}
    func_line = inc.fn.__code__.co_firstlineno + 2  # (the decorator's line, then the def)
    assert f"\t.loc 1 {func_line} 0" in lines and f"\t.loc 1 {func_line + 4} 0" in lines
