"""@ptxpp.kernel: specs, shape variables and template parameters, the trace cache, errors."""

import pytest

import ptxpp
from ptxpp import Scalar, Tile, ptx, reg
from ptxpp.types import f32, u32

from conftest import body_lines

calls = []


@ptxpp.kernel(in_specs=(Tile("M", "N", f32),), out_specs=(Tile("M", "N", f32),), scalars=(Scalar("s", f32),),
              grid=lambda M, unroll: (M // unroll, 1, 1), block=(32, 2), arch="sm_90a")
def scaled(x, y, s, *, N, unroll=2):
    calls.append((N, unroll))
    v = s.load()
    for _ in range(unroll):  # a host loop: unrolled
        v = v * 2.0
    ptx.ret()


def test_shape_variables_and_template_parameters_key_the_trace():
    calls.clear()
    t = scaled.trace(M=8, N=16)
    assert (t.grid, t.block, t.name, t.target) == ((4, 1, 1), (32, 2, 1), "scaled", "sm_90a")
    assert [p["name"] for p in t.params] == ["scaled_param_0", "scaled_param_1", "scaled_s"]
    assert t.params[1]["is_output"] and t.params[0]["shape"] == (8, 16)
    assert len([l for l in body_lines(t.ptx) if l.startswith("mul.rn.f32")]) == 2
    assert scaled.trace(M=8, N=16) is t  # cached
    three = scaled.trace(M=8, N=16, unroll=4)
    assert len([l for l in body_lines(three.ptx) if l.startswith("mul.rn.f32")]) == 4
    assert three.grid == (2, 1, 1)
    assert calls == [(16, 2), (16, 4)]
    assert "sm_80" in scaled.ptx(M=8, N=16, arch="sm_80")


def test_keyword_errors():
    with pytest.raises(TypeError, match="unknown keyword argument 'K' \\(shape variables and template parameters: M, N, unroll\\)"):
        scaled.ptx(M=8, N=16, K=3)
    with pytest.raises(TypeError, match="shape variable\\(s\\) N not given"):
        scaled.ptx(M=8)
    with pytest.raises(TypeError, match="shape variable M must be an int"):
        scaled.ptx(M="8", N=16)
    with pytest.raises(TypeError, match="template parameters must be hashable"):
        scaled.ptx(M=8, N=16, unroll=[1])


def test_the_body_must_take_one_positional_parameter_per_spec():
    with pytest.raises(TypeError, match="the function takes 1 positional parameter\\(s\\), the specs declare 2"):
        @ptxpp.kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),))
        def k(x):
            pass


def test_a_scalar_and_a_template_parameter_may_not_share_a_name():
    with pytest.raises(TypeError, match="'eps' is both a run-time scalar and a template parameter"):
        @ptxpp.kernel(in_specs=(Tile("N", f32),), scalars=(Scalar("eps", f32),))
        def k(x, eps, *, eps2=1, **kw):
            pass

        @ptxpp.kernel(in_specs=(Tile("N", f32),), scalars=(Scalar("eps", f32),))
        def k2(x, eps_, *, eps=1):
            pass


def test_specs_are_checked():
    with pytest.raises(TypeError, match="the last argument is the element type"):
        Tile("N", "M")
    with pytest.raises(ValueError, match="dimension 0 is not positive"):
        Tile(0, f32)
    assert Tile(f32, ("M", 4)).shape == ("M", 4)


def test_an_error_in_the_body_is_the_users_exception():
    @ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_90a")
    def k(x):
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        k.ptx(N=4)


def test_a_parameter_kept_past_its_trace_is_refused():
    kept = []

    @ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_90a")
    def k(x):
        kept.append(x)
        assert x.shape == (4,) and x.dim(0) == 4 and x.dtype == f32 and x.param == "k_param_0"

    k.ptx(N=4)
    with pytest.raises(ptxpp.Error, match="kernel parameter 'k_param_0' is used after its trace ended"):
        kept[0].global_ptr()


def test_unknown_arch_and_debug_info():
    @ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_1")
    def k(x):
        pass

    with pytest.raises(ptxpp.Error, match="unknown target 'sm_1'"):
        k.ptx(N=4)

    @ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_90a", debug=True)
    def d(x):
        r = reg.scalar(u32)
        ptx.inst.mov.u32(r, 7)  # .loc names this line

    text = d.ptx(N=4)
    line = d.fn.__code__.co_firstlineno + 3
    assert '.file 1 "' in text and "test_kernel.py" in text
    assert f".loc 1 {line} 0" in text


def test_directives_and_version():
    @ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_90a", maxntid=(128, 1, 1), minnctapersm=2, ptx_version=(8, 7))
    def k(x):
        ptx.ret()

    text = k.ptx(N=4)
    assert ".version 8.7" in text and ".maxntid 128, 1, 1" in text and ".minnctapersm 2" in text


def test_debug_lines_of_helper_instructions_are_the_users_call():
    @ptxpp.kernel(in_specs=(Tile("N", f32),), arch="sm_90a", debug=True)
    def d(x):
        v = reg.scalar(f32)
        ptx.warp.reduce_sum(v)  # ten instructions from ptxpp's own ptx.py, all at this line

    text = d.ptx(N=4)
    line = d.fn.__code__.co_firstlineno + 3
    assert f".loc 1 {line} 0" in text and "ptx.py" not in text
    assert text.count(".loc") == 1
