"""@ptxpp.kernel: a Python function traced by the C++ DSL into a PTX kernel.

    @ptxpp.kernel(in_specs=(Tile("M", "N", f32),), out_specs=(Tile("M", "N", f32),),
                  grid=lambda M: (M, 1, 1), block=(32, 1, 1), arch="sm_90a")
    def copy(x, y, *, N):          # keyword-only: shape variables (N) and template parameters
        ...

The function's positional parameters are the kernel's parameters in order: the in_specs, the
out_specs, then the scalars. Its keyword-only parameters are either shape variables (names
used in the specs' shapes: bound from the arguments' shapes, or given to ptx()) or template
parameters (anything else: trace-time constants that change the PTX). Both key the cache.
"""

import inspect
import sys
import threading

from . import _core

_state = threading.local()  # the bindings of the trace running on this thread
_FRAMEWORKS = ("torch", "jax")  # modules whose arrays have their own call path
_call = None  # ptxpp._call, imported on the first call (it imports NumPy)
_torch_eager = None  # ptxpp._torch_eager, imported on the first call on torch tensors (it imports torch)


def _import_call():
    global _call
    from . import _call as module
    _call = module
    return module


def _import_torch_eager():  # (a function's `from . import` costs every call a lookup)
    global _torch_eager
    from . import _torch_eager as module
    _torch_eager = module
    return module


class Tile:
    """A tensor parameter: ``Tile("M", "N", f32)`` (the dimensions, static ints or symbols,
    then the element type), or ``Tile(f32, ("M", "N"))``; ``name=`` names the .param
    (``kernel_name``; unnamed: ``kernel_param_<i>``, as the C++ DSL)."""

    def __init__(self, *args, name=""):
        if len(args) == 2 and isinstance(args[0], _core.DType) and isinstance(args[1], (tuple, list)):
            dtype, dims = args[0], tuple(args[1])
        else:
            if not args or not isinstance(args[-1], _core.DType):
                raise TypeError("Tile(dims..., dtype): the last argument is the element type (ptxpp.types.f32, ...)")
            dtype, dims = args[-1], tuple(args[:-1])
        for d in dims:
            if isinstance(d, bool) or not isinstance(d, (int, str)):
                raise TypeError(f"Tile: a dimension is an int or a symbol name, not {d!r}")
            if isinstance(d, int) and d <= 0:
                raise ValueError(f"Tile: dimension {d} is not positive")
        self.dtype, self.shape, self.name = dtype, dims, name

    def symbols(self):
        return [d for d in self.shape if isinstance(d, str)]

    def __repr__(self):
        dims = ", ".join(repr(d) for d in self.shape)
        return f"Tile({dims}, {self.dtype.name})"


Tensor = Tile


class Scalar:
    """A scalar parameter passed at launch: ``Scalar("eps", f32)`` (the body's ``eps.load()``
    is ``ld.param.f32``)."""

    def __init__(self, name, dtype):
        if not isinstance(dtype, _core.DType):
            raise TypeError(f"Scalar({name!r}, ...): the type is a ptxpp.types value, not {dtype!r}")
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"Scalar({self.name!r}, {self.dtype.name})"


class TensorMap:
    """A TMA descriptor parameter: ``TensorMap("a")`` is ``.param .align 64 .b8 NAME_a[128]``
    (the body's ``a.generic_address()`` is ``mov.b64`` + ``cvta.param.u64``).

    ``TensorMap("a", "M", "K", bf16, box=(128, 64), swizzle=128)`` also says what it describes:
    a row-major array (dimensions outermost first, as ``Tile``, whose symbols are shape
    variables: the body reads them with ``a.bound("K")``), the box one copy moves (outermost
    first) and the swizzle in bytes (0, 32, 64, 128). Such a kernel is called with a NumPy
    array in that place, which the CPU emulator gets with a descriptor of it; a tensor map
    with no array description can be traced and printed only."""

    def __init__(self, name, *args, box=None, swizzle=0):
        self.name, self.box, self.swizzle = name, None, swizzle
        self.dtype, self.shape = None, ()
        if args:
            tile = Tile(*args)
            self.dtype, self.shape = tile.dtype, tile.shape
            if box is None or len(box) != len(self.shape):
                raise TypeError(f"TensorMap({name!r}, ...): box= gives the copy's extent in each of the "
                                f"{len(self.shape)} dimension(s)")
            self.box = tuple(int(b) for b in box)
        elif box is not None:
            raise TypeError(f"TensorMap({name!r}, box=...): give the array's dimensions and type first")

    def launchable(self):
        return self.dtype is not None

    def symbols(self):
        return [d for d in self.shape if isinstance(d, str)]

    def __repr__(self):
        if not self.launchable():
            return f"TensorMap({self.name!r})"
        dims = ", ".join(repr(d) for d in self.shape)
        return f"TensorMap({self.name!r}, {dims}, {self.dtype.name}, box={self.box}, swizzle={self.swizzle})"


def _keyword_names(f):
    """The parameter names of a grid/block callable (each a shape variable or template parameter)."""
    return [p.name for p in inspect.signature(f).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


class KernelFunction:
    """A decorated kernel: ``k.ptx(**shapes_and_template_params)``, ``k.trace(...)``, ``k(arrays...)``."""

    def __init__(self, fn, in_specs, out_specs, scalars, grid, block, cluster, arch, name, debug,
                 ptx_version, directives):
        self.fn = fn
        self.name = name or fn.__name__
        self.in_specs, self.out_specs, self.scalars = tuple(in_specs), tuple(out_specs), tuple(scalars)
        self.params = list(self.in_specs) + list(self.out_specs) + list(self.scalars)
        self.outputs = [False] * len(self.in_specs) + [True] * len(self.out_specs) + [False] * len(self.scalars)
        self.grid, self.block, self.cluster, self._arch = grid, block, cluster, arch
        self.debug, self.ptx_version_, self.directives = debug, ptx_version, dict(directives)
        for p in self.params:
            if not isinstance(p, (Tile, Scalar, TensorMap)):
                raise TypeError(f"kernel {self.name}: a parameter spec is a Tile, a Scalar or a TensorMap, not {p!r}")
        self.symbols = []
        for p in self.params:
            for s in p.symbols() if isinstance(p, (Tile, TensorMap)) else ():
                if s not in self.symbols:
                    self.symbols.append(s)
        self._check_signature()
        self._kernels = {}  # template key -> the C++ kernel
        self._torch_ops = {}  # (template, bindings, arch) -> its torch custom op (ptxpp._torch_op)
        self._torch_op_plain = None  # the op of calls with no keyword arguments (ptxpp._torch_op)
        self._gpu_kernels = {}  # (template, bindings, arch, GPU ordinal) -> its _core.GpuKernel (ptxpp._gpu_call)
        self._gpu_plans = {}  # (argument types, keywords) -> the plans of calls on CUDA arrays (ptxpp._gpu_plan)
        self._module = None  # the ptxpp.Module it was added to: traced (and run) in it
        self._scalar_names = frozenset(p.name for p in self.params if isinstance(p, Scalar))
        self._lock = threading.Lock()
        self._prepare_torch()

    @property
    def arch(self):
        """The default target of calls and traces without arch=."""
        return self._arch

    @arch.setter
    def arch(self, value):  # the plans and the keyword-less torch op were found for the old default
        self._arch, self._torch_op_plain = value, None
        self._gpu_plans.clear()
        self._prepare_torch()

    def _prepare_torch(self):
        """With torch imported, the torch op of calls without keywords is made now (ptxpp._torch_op.plain_op:
        a first call inside torch.compile cannot make it)."""
        if not hasattr(sys.modules.get("torch"), "library"):  # not imported (or a stand-in without it)
            return
        from . import _torch_op
        try:
            _torch_op.plain_op(self)
        except Exception:  # noqa: BLE001 - e.g. a required keyword: the call itself raises it, naming it
            pass

    def _check_signature(self):
        sig = inspect.signature(self.fn)
        positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
            positional = None
        elif len(positional) != len(self.params):
            raise TypeError(f"kernel {self.name}: the function takes {len(positional)} positional parameter(s), "
                            f"the specs declare {len(self.params)} (in_specs, out_specs, then scalars)")
        self.arg_names = [p.name for p in positional] if positional else [f"argument {i}" for i in range(len(self.params))]
        keywords = {p.name: p for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY}
        self.shape_keywords = [k for k in keywords if k in self.symbols]
        self.template_params = {k: p.default for k, p in keywords.items() if k not in self.symbols}
        self.takes_kwargs = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
        for s in self.scalars + tuple(p for p in self.in_specs if isinstance(p, Scalar)):
            if s.name in self.template_params:
                raise TypeError(f"kernel {self.name}: '{s.name}' is both a run-time scalar and a template parameter")

    # ---- keyword arguments: shape variables, template parameters, arch ----------------------
    def _split(self, kwargs):
        bindings, template = {}, {}
        arch = kwargs.pop("arch", self.arch)
        for k, v in kwargs.items():
            if k in self.symbols:
                if isinstance(v, bool) or not isinstance(v, int):
                    raise TypeError(f"kernel {self.name}: shape variable {k} must be an int, not {v!r}")
                bindings[k] = v
            elif k in self.template_params or self.takes_kwargs:
                template[k] = v
            else:
                known = self.symbols + list(self.template_params)
                raise TypeError(f"kernel {self.name}: unknown keyword argument '{k}' "
                                f"(shape variables and template parameters: {', '.join(known) or 'none'})")
        for k, default in self.template_params.items():
            if k not in template:
                if default is inspect.Parameter.empty:
                    raise TypeError(f"kernel {self.name}: template parameter '{k}' is missing")
                template[k] = default
        return bindings, template, arch

    def _kernel_for(self, template, arch):
        try:
            key = (tuple(sorted(template.items())), arch)
            hash(key)
        except TypeError:
            raise TypeError(f"kernel {self.name}: template parameters must be hashable (they key the cache): {template}")
        with self._lock:
            k = self._kernels.get(key)
            if k is None:
                k = self._build(template, arch)
                self._kernels[key] = k
            return k

    def _launch_dim(self, value, template):
        if not callable(value):
            return value
        names = _keyword_names(value)

        def evaluate(bindings):
            args = {}
            for n in names:
                if n in bindings:
                    args[n] = bindings[n]
                elif n in template:
                    args[n] = template[n]
                else:
                    raise _core.Error(f"kernel {self.name}: the launch shape needs '{n}', which is neither a shape "
                                      f"variable bound here nor a template parameter")
            return value(**args)

        return evaluate

    def _build(self, template, arch):
        code = self.fn.__code__
        k = _core.Kernel(self.name, code.co_filename, code.co_firstlineno)
        for p, is_out in zip(self.params, self.outputs):
            if isinstance(p, Scalar):
                k.scalar(p.name, p.dtype)
            elif isinstance(p, TensorMap):
                k.tensor_map(p.name)
            elif is_out:
                k.output(p.dtype, list(p.shape), p.name)
            else:
                k.input(p.dtype, list(p.shape), p.name)
        k.grid(self._launch_dim(self.grid, template))
        k.block(self._launch_dim(self.block, template))
        if self.cluster is not None:
            k.cluster(self.cluster)
        if arch is not None:
            k.arch(arch)
        if self.ptx_version_ is not None:
            k.ptx_version(*self.ptx_version_)
        for d, v in self.directives.items():
            getattr(k, d)(v)
        k.debug(self.debug)
        fn, shape_keywords = self.fn, self.shape_keywords

        def body(*params):
            bindings = _state.bindings
            kw = dict(template)
            for s in shape_keywords:
                if s not in bindings:
                    raise _core.Error(f"kernel {self.name}: shape variable {s} is not bound; pass it to ptx()/trace()")
                kw[s] = bindings[s]
            fn(*params, **kw)

        k.body(body, self.debug)
        return k

    # ---- tracing --------------------------------------------------------------------------------
    def trace(self, **kwargs):
        """The traced kernel (PTX and launch metadata) for these shape variables and template parameters."""
        bindings, template, arch = self._split(dict(kwargs))
        return self._trace(bindings, template, arch)[1]

    def _trace(self, bindings, template, arch):
        missing = [s for s in self.symbols if s not in bindings]
        if missing:
            raise TypeError(f"kernel {self.name}: shape variable(s) {', '.join(missing)} not given")
        if self._module is not None:  # the whole module, with this kernel's launch metadata (no C++ kernel alone)
            if arch not in (None, self._module.arch):
                raise _core.Error(f"kernel {self.name} is in a module for {self._module.arch or 'sm_80'}, not {arch}")
            return None, self._module._trace_kernel(self, bindings, template)
        k = self._kernel_for(template, arch)
        saved = getattr(_state, "bindings", None)
        _state.bindings = bindings
        try:
            return k, k.trace(bindings)
        finally:
            _state.bindings = saved

    def ptx(self, **kwargs):
        """The PTX text, identical to what the C++ DSL prints for the same program."""
        return self.trace(**kwargs).ptx

    def __call__(self, *args, **kwargs):
        """Runs the kernel on arrays: NumPy arrays (and CPU torch tensors) on the CPU emulator, CUDA
        arrays (torch, __cuda_array_interface__, DLPack) on their GPU without waiting for it.
        Inputs (and scalars) in order; the outputs may follow, else they are allocated and returned."""
        # (startswith: what torch.compile's tracer follows without a graph break; one loop: this is every call's cost)
        jax = False
        for a in args:
            module = type(a).__module__
            if module.startswith(_FRAMEWORKS):
                if module.startswith("torch"):  # eager CUDA calls directly, the rest through the op
                    return (_torch_eager or _import_torch_eager()).call(self, args, kwargs)
                jax = True
        if jax:
            from . import _jax_call
            return _jax_call.call(self, args, kwargs)
        if self._gpu_plans:  # a call on CUDA arrays like an earlier one: its plan (ptxpp._gpu_plan), else None
            result = _core.plan_call(self._gpu_plans, self._scalar_names, args, kwargs)
            if result is not None:
                return result
        return (_call or _import_call()).call(self, args, kwargs)

    def __repr__(self):
        params = ", ".join(repr(p) for p in self.params)
        return f"<ptxpp.kernel {self.name}({params})>"


def kernel(in_specs=(), out_specs=(), scalars=(), grid=1, block=1, cluster=None, arch=None, name=None, debug=False,
           ptx_version=None, maxntid=None, reqntid=None, minnctapersm=None, maxnreg=None):
    """Decorates a kernel body. ``grid``/``block`` are ints, tuples, or callables of shape variables
    and template parameters (by name: ``grid=lambda M: (M, 1, 1)``). ``arch``: sm_80, sm_90a,
    sm_100a, ... (default: the C++ DSL's, sm_80; "auto": $PTXPP_ARCH)."""
    directives = {k: v for k, v in (("maxntid", maxntid), ("reqntid", reqntid), ("minnctapersm", minnctapersm),
                                    ("maxnreg", maxnreg)) if v is not None}

    def wrap(fn):
        return KernelFunction(fn, in_specs, out_specs, scalars, grid, block, cluster, arch, name, debug, ptx_version,
                              directives)

    return wrap
