"""Loading ptxpp JAX ops (libraries built with ptxpp_add_jax_ops in CMake).

    import jax, ptxpp.jax
    lib = ptxpp.jax.load_library("build/libmy_ops.so")
    y = jax.jit(lambda x, w: lib.rmsnorm(x, w, eps=1e-5))(x, w)

A library made with PTXPP_JAX_HANDLER (<ptxpp/interop/jax.hpp>) exports, per op, an
XLA FFI handler for the CPU (the ptxpp emulator) and one for CUDA, and one C function,
ptxpp_jax_ops(), that lists its ops with the kernels' parameters (JSON). load_library
registers each handler as the FFI target "<namespace>.<op>" and makes each op a
jax-callable: the kernel's parameters give its arguments (input arrays, in order; the
scalars as static attributes, by name or after the arrays) and its results, whose
shapes come from the inputs' shapes by the same binding of symbolic dimensions the C++
side does. The checks run twice: here at trace time (a TypeError or ValueError naming
the argument) and in the handler (an XLA error with the same words, for calls made with
jax.ffi.ffi_call directly).
"""

import ctypes
import json
import numbers
import os

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["load_library", "register_backward", "Library", "Op"]

_DTYPES = {
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(jnp.bfloat16),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
}

_loaded = {}


class Op:
    """One op of a loaded library: call it with jax arrays (inside jax.jit or not)."""

    def __init__(self, target, info, library=None):
        self.target = target
        self._library = library  # the ctypes handle, for cache_stats
        self.name = info["name"]
        self.info = info
        self.error = info.get("error")
        params = info.get("params", [])
        self.inputs = [p for p in params if p["kind"] == "input"]
        self.outputs = [p for p in params if p["kind"] == "output"]
        self.scalars = [p for p in params if p["kind"] == "scalar"]
        self.backward = None  # an Op, set by register_backward
        self._differentiable = {}  # per scalar attributes: the jax.custom_vjp function

    def __repr__(self):
        def arg(p):
            if p["kind"] == "scalar":
                return f"{p['name']}: {_DTYPES[p['dtype']].name}"
            return f"{p['name']}: {_DTYPES[p['dtype']].name}[{', '.join(map(str, p['shape']))}]"

        if self.error:
            return f"<ptxpp.jax.Op {self.target} (unusable: {self.error})>"
        args = ", ".join(arg(p) for p in self.inputs + self.scalars)
        outs = ", ".join(arg(p) for p in self.outputs)
        return f"<ptxpp.jax.Op {self.target}({args}) -> ({outs})>"

    def cache_stats(self):
        """(hits, misses) of the handlers' cache of bound kernels: a call on a device and
        with input shapes an earlier call had is a hit (no shape binding, no kernel
        lookup). Counted by the handlers, so by XLA's executions, not by traces."""
        hits, misses = ctypes.c_uint64(), ctypes.c_uint64()
        stats = getattr(self._library, "ptxpp_jax_cache_stats", None)
        if stats is None or not stats(self.name.encode(), ctypes.byref(hits), ctypes.byref(misses)):
            raise RuntimeError(f"{self.name}: no cache statistics (an op of a loaded library has them)")
        return hits.value, misses.value

    def _fail(self, kind, what):
        raise kind(f"{self.name}: {what}")

    def result_shapes(self, *inputs):
        """The outputs' jax.ShapeDtypeStruct for inputs with these shapes and dtypes
        (anything with .shape and .dtype), checking them as a call does."""
        if self.error:
            raise RuntimeError(self.error)
        if len(inputs) != len(self.inputs):
            self._fail(TypeError, f"takes {len(self.inputs)} array argument(s), not {len(inputs)}")
        bindings, bound_by = {}, {}
        for p, x in zip(self.inputs, inputs):
            name, want = p["name"], _DTYPES[p["dtype"]]
            if np.dtype(x.dtype) != want:
                self._fail(TypeError, f"argument '{name}' must be a {want.name} array, not {np.dtype(x.dtype).name}")
            shape = tuple(x.shape)
            if len(shape) != len(p["shape"]):
                self._fail(ValueError, f"argument '{name}' must have {len(p['shape'])} dimensions, not {len(shape)}")
            for d, (dim, size) in enumerate(zip(p["shape"], shape)):
                where = f"dimension {d} of '{name}'"
                if isinstance(dim, int):
                    if size != dim:
                        self._fail(ValueError, f"{where} must be {dim}, not {size}")
                elif dim not in bindings:
                    bindings[dim], bound_by[dim] = size, where
                elif bindings[dim] != size:
                    self._fail(ValueError, f"{where} is {size}, but {dim} is {bindings[dim]} ({bound_by[dim]})")
        return [
            jax.ShapeDtypeStruct(tuple(bindings[d] if isinstance(d, str) else d for d in p["shape"]), _DTYPES[p["dtype"]])
            for p in self.outputs
        ]

    def _attributes(self, extra, kwargs):
        if len(extra) > len(self.scalars):
            self._fail(TypeError, f"takes {len(self.inputs)} array(s) and {len(self.scalars)} scalar(s), "
                                  f"not {len(self.inputs) + len(extra)} positional arguments")
        values = dict(zip((p["name"] for p in self.scalars), extra))
        for key, v in kwargs.items():
            if key not in {p["name"] for p in self.scalars}:
                self._fail(TypeError, f"unknown scalar '{key}'")
            if key in values:
                self._fail(TypeError, f"scalar '{key}' given twice")
            values[key] = v
        attrs = {}
        for p in self.scalars:
            name, want = p["name"], _DTYPES[p["dtype"]]
            if name not in values:
                self._fail(TypeError, f"scalar '{name}' is missing (a {want.name})")
            v = values[name]
            if isinstance(v, jax.core.Tracer) or (hasattr(v, "shape") and tuple(v.shape) != ()):
                self._fail(TypeError, f"scalar '{name}' must be a Python number (a static value), not an array")
            if np.issubdtype(want, np.integer):
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, np.integer)):
                    self._fail(TypeError, f"scalar '{name}' must be an integer ({want.name}), not {type(v).__name__}")
                info = np.iinfo(want)
                if not info.min <= int(v) <= info.max:
                    self._fail(ValueError, f"scalar '{name}': {int(v)} does not fit a {p['dtype']}")
                attrs[name] = want.type(int(v))
            else:
                if not isinstance(v, (numbers.Real, np.floating, np.integer)) or isinstance(v, (bool, np.bool_)):
                    self._fail(TypeError, f"scalar '{name}' must be a number ({want.name}), not {type(v).__name__}")
                attrs[name] = want.type(float(v))
        return attrs

    def __call__(self, *args, **kwargs):
        """Arrays first (the kernel's inputs, in order), then its scalars (positional,
        in order, or by name). One output is returned as an array, several as a tuple."""
        if self.error:
            raise RuntimeError(self.error)
        arrays = [a if hasattr(a, "shape") and hasattr(a, "dtype") else jnp.asarray(a) for a in args[: len(self.inputs)]]
        results = self.result_shapes(*arrays)
        attrs = self._attributes(args[len(self.inputs):], kwargs)
        if self.backward is not None:
            return self._with_vjp(attrs)(*arrays)
        return self._call(results, arrays, attrs)

    def _call(self, results, arrays, attrs):
        out = jax.ffi.ffi_call(self.target, results, vmap_method="sequential")(*arrays, **attrs)
        return out[0] if len(out) == 1 else tuple(out)

    def _with_vjp(self, attrs):
        """The op as a jax.custom_vjp function of its arrays, for these scalars (made
        once per distinct set of scalar values: they are static)."""
        key = tuple(sorted((k, type(v).__name__, v.item()) for k, v in attrs.items()))
        f = self._differentiable.get(key)
        if f is not None:
            return f
        backward = self.backward

        @jax.custom_vjp
        def f(*arrays):
            return self._call(self.result_shapes(*arrays), arrays, attrs)

        def fwd(*arrays):
            return f(*arrays), arrays

        def bwd(arrays, grads):
            grads = tuple(grads) if len(self.outputs) > 1 else (grads,)
            # the backward's results are the inputs' gradients: same shapes and dtypes
            for p, x, r in zip(self.inputs, arrays, backward.result_shapes(*grads, *arrays)):
                if tuple(r.shape) != tuple(x.shape):
                    self._fail(ValueError, f"the backward op {backward.name} gives the gradient of '{p['name']}' the "
                                           f"shape {tuple(r.shape)}, but '{p['name']}' has shape {tuple(x.shape)}")
            out = backward(*grads, *arrays, **attrs)
            return tuple(out) if len(self.inputs) > 1 else (out,)

        f.defvjp(fwd, bwd)
        self._differentiable[key] = f
        return f


def _spec(p):
    return f"{_DTYPES[p['dtype']].name}[{', '.join(map(str, p['shape']))}]"


def register_backward(op, backward):
    """Makes a ptxpp JAX op differentiable (jax.grad, jax.vjp, ...) by pairing it with a
    backward op, through jax.custom_vjp.

    `backward` takes the gradients of `op`'s outputs, then `op`'s input arrays, then
    `op`'s scalars (the same names and types), and returns the gradient of each input
    array of `op`, in order: its outputs must have the inputs' dtypes and shapes. Both
    are ops of loaded libraries (lib.name). What the kernels' parameters can show is
    checked here (counts, dtypes, ranks, static dimensions, scalars: a TypeError or
    ValueError); a shape that differs only for some inputs is a ValueError when jax
    differentiates the call. Scalars get no gradient.
    """
    def fail(kind, what):
        raise kind(f"ptxpp.jax.register_backward({getattr(op, 'name', op)}, {getattr(backward, 'name', backward)}): {what}")

    for o in (op, backward):
        if not isinstance(o, Op):
            fail(TypeError, f"{o!r} is not a ptxpp JAX op (lib.name of a loaded library)")
        if o.error:
            fail(RuntimeError, o.error)
    want = len(op.outputs) + len(op.inputs)
    if len(backward.inputs) != want:
        fail(TypeError, f"{backward.name} takes {len(backward.inputs)} array(s); it must take {want}: the gradients "
                        f"of {op.name}'s {len(op.outputs)} output(s), then its {len(op.inputs)} input(s)")
    if len(backward.outputs) != len(op.inputs):
        fail(TypeError, f"{backward.name} has {len(backward.outputs)} output(s); it must have {len(op.inputs)}, "
                        f"the gradient of each input of {op.name}")
    pairs = [(b, f, f"argument '{b['name']}' of {backward.name}", f"output '{f['name']}' of {op.name}")
             for b, f in zip(backward.inputs, op.outputs)]
    pairs += [(b, f, f"argument '{b['name']}' of {backward.name}", f"input '{f['name']}' of {op.name}")
              for b, f in zip(backward.inputs[len(op.outputs):], op.inputs)]
    pairs += [(b, f, f"output '{b['name']}' of {backward.name} (a gradient)", f"input '{f['name']}' of {op.name}")
              for b, f in zip(backward.outputs, op.inputs)]
    for b, f, bw, fw in pairs:
        if b["dtype"] != f["dtype"]:
            fail(TypeError, f"the {bw} is {_DTYPES[b['dtype']].name}, but the {fw} is {_DTYPES[f['dtype']].name}")
        if len(b["shape"]) != len(f["shape"]) or any(
                isinstance(x, int) and isinstance(y, int) and x != y for x, y in zip(b["shape"], f["shape"])):
            fail(ValueError, f"the {bw} is {_spec(b)}, which cannot be the shape of the {fw}, {_spec(f)}")
    def scalar_list(o):
        return ", ".join(f"{p['name']}: {_DTYPES[p['dtype']].name}" for p in o.scalars) or "none"

    if [(p["name"], p["dtype"]) for p in backward.scalars] != [(p["name"], p["dtype"]) for p in op.scalars]:
        fail(TypeError, f"{backward.name} must take {op.name}'s scalars ({scalar_list(op)}), not ({scalar_list(backward)})")
    op.backward = backward
    op._differentiable = {}


class Library:
    """A loaded library of ptxpp JAX ops: lib.rmsnorm(...), lib.ops["rmsnorm"]."""

    def __init__(self, path, namespace, handle, ops):
        self.path, self.namespace, self._handle, self.ops = path, namespace, handle, ops

    def __getattr__(self, name):
        ops = self.__dict__.get("ops", {})
        if name in ops:
            return ops[name]
        raise AttributeError(f"library {self.__dict__.get('path')} has no op '{name}'")

    def __dir__(self):
        return list(super().__dir__()) + list(self.ops)


def load_library(path, namespace=None):
    """Loads a library of ptxpp JAX ops (once per path) and registers its handlers as
    the FFI targets "<namespace>.<op>" for the platforms "cpu" and "CUDA". `namespace`
    defaults to the library's file name without "lib" and the extension."""
    real = os.path.realpath(os.fspath(path))
    if real in _loaded:
        return _loaded[real]
    if not os.path.isfile(real):
        raise FileNotFoundError(f"ptxpp.jax.load_library: no such library: {path}")
    handle = ctypes.CDLL(real)
    try:
        listing = handle.ptxpp_jax_ops
    except AttributeError:
        raise ValueError(f"ptxpp.jax.load_library: {path} is not a ptxpp JAX library (no ptxpp_jax_ops)") from None
    listing.restype = ctypes.c_char_p
    if namespace is None:
        namespace = os.path.basename(real).split(".")[0]
        namespace = namespace[3:] if namespace.startswith("lib") else namespace
    ops = {}
    for info in json.loads(listing().decode()):
        name = info["name"]
        target = f"{namespace}.{name}"
        jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(getattr(handle, f"{name}_cpu")), platform="cpu")
        try:
            jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(getattr(handle, f"{name}_cuda")), platform="CUDA")
        except Exception:  # a jaxlib without CUDA support
            pass
        ops[name] = Op(target, info, handle)
    lib = Library(real, namespace, handle, ops)
    _loaded[real] = lib
    return lib
