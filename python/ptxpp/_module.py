"""Device functions and modules: C++'s ptx::func, ptx::call and ptx::Module from Python.

    @ptxpp.func(ret=u32, params=(u32, u32))
    def add(a):                       # a.param(i): ld.param; a.ret(v): st.param + ret
        a.ret(a.param(0) + a.param(1))

    @ptxpp.kernel(in_specs=(Tile("N", u32),), ...)
    def k(x):
        ...
        r = add(v, 1)                 # or ptx.call(add, [v, 1]): the call sequence, r the result

    mod = ptxpp.Module(arch="sm_90a").add(add).add(k)
    print(mod.ptx(N=64))              # variables, .func declarations, functions, kernels
    y = k(np.arange(64, dtype=np.uint32))   # a kernel in a module is traced (and run) in it

A kernel belongs to at most one module; its ``ptx()`` / ``trace()`` and calls on NumPy arrays
then trace the whole module (the emulator loads it). Kernels that call device functions must be
in a module, as in C++.
"""

import threading

from . import _core
from . import _kernel as kernel_module


class DeviceFunction:
    """A decorated device function: a ``.func`` whose body gets the arguments object (``a.param(i)``,
    ``a.ret(value)``); called inside a body (``f(x, 1)``) it emits the call and returns the result
    register (None for a function without ``ret``)."""

    def __init__(self, fn, ret, params, name):
        code = fn.__code__
        self.fn, self.name = fn, name or fn.__name__
        self.ret, self.params = ret, tuple(params)
        self.cxx = _core.Func(self.name, code.co_filename, code.co_firstlineno)
        if ret is not None:
            self.cxx.ret(ret)
        for p in self.params:
            self.cxx.param(p)
        self.cxx.body(fn)

    def __call__(self, *args):
        return _core.call(self.cxx, list(args))

    def __repr__(self):
        params = ", ".join(p.name for p in self.params)
        ret = f" -> {self.ret.name}" if self.ret is not None else ""
        return f"<ptxpp.func {self.name}({params}){ret}>"


def func(ret=None, params=(), name=None):
    """Decorates a device function's body: ``ret`` the return type (None: none), ``params`` the
    parameter types (each passed as a ``.param .bN`` of its width), ``name`` the PTX name (default:
    the function's)."""
    return lambda fn: DeviceFunction(fn, ret, params, name)


def call(f, args):
    """C++'s ``ptx::call(f, {args...})``: the result register, or None for a void function."""
    if not isinstance(f, DeviceFunction):
        raise TypeError(f"ptx.call: argument 'f' is a ptxpp.func, not {type(f).__name__}")
    return _core.call(f.cxx, list(args))


class Module:
    """C++'s ``ptx::Module``: module variables, device functions and kernels traced into one PTX module.
    ``arch`` (default: the C++ DSL's, sm_80) is every kernel's target here."""

    def __init__(self, arch=None, ptx_version=None, debug=False):
        self.arch, self.ptx_version, self.debug = arch, ptx_version, debug
        self._vars, self._items = [], []
        self._built = {}  # the kernels' template parameters -> the C++ module
        self._lock = threading.Lock()

    def global_(self, name, dtype, count=0, init=(), align=0):
        """``.global .align A .T name[count] = {init};`` (count 0: a scalar)."""
        self._vars.append(("global_", name, dtype, count, list(init), align))
        return self._changed()

    def constant(self, name, dtype, count=0, init=(), align=0):
        """``.const .align A .T name[count] = {init};``."""
        self._vars.append(("constant", name, dtype, count, list(init), align))
        return self._changed()

    def add(self, item):
        """Adds a ``ptxpp.func`` or a ``ptxpp.kernel`` (which then traces and runs in this module)."""
        if isinstance(item, kernel_module.KernelFunction):
            if item._module is not None and item._module is not self:
                raise _core.Error(f"kernel {item.name} is already in another ptxpp.Module")
            if item.arch not in (None, self.arch):
                raise _core.Error(f"kernel {item.name} is for {item.arch}, the module for {self.arch or 'sm_80'}")
            item._module = self
        elif not isinstance(item, DeviceFunction):
            raise TypeError(f"Module.add: argument 'item' is a ptxpp.func or ptxpp.kernel, not {type(item).__name__}")
        self._items.append(item)
        return self._changed()

    def _changed(self):
        with self._lock:
            self._built.clear()
        return self

    def kernels(self):
        return [k for k in self._items if isinstance(k, kernel_module.KernelFunction)]

    # ---- tracing ------------------------------------------------------------------------------
    def _split(self, kwargs):
        """The shape variables (all kernels') and each kernel's template parameters from keywords."""
        kwargs = dict(kwargs)
        arch = kwargs.pop("arch", None)
        if arch not in (None, self.arch):
            raise _core.Error(f"the module's kernels are traced for {self.arch or 'sm_80'}, not {arch}")
        bindings, templates, used = {}, [], set()
        for k in self.kernels():
            own = {n: v for n, v in kwargs.items() if n in k.symbols or n in k.template_params}
            b, t, _ = k._split(own)
            bindings.update(b)
            templates.append(t)
            used.update(own)
        unknown = [n for n in kwargs if n not in used]
        if unknown:
            raise TypeError(f"ptxpp.Module: unknown keyword argument(s) {', '.join(unknown)} (no kernel's shape "
                            f"variable or template parameter)")
        return bindings, templates

    def _module_for(self, templates):
        try:
            key = tuple(tuple(sorted(t.items())) for t in templates)
            hash(key)
        except TypeError:
            raise TypeError(f"ptxpp.Module: template parameters must be hashable (they key the cache): {templates}")
        with self._lock:
            m = self._built.get(key)
            if m is None:
                m = self._build(templates)
                self._built[key] = m
            return m

    def _build(self, templates):
        m = _core.Module()
        if self.arch is not None:
            m.arch(self.arch)
        if self.ptx_version is not None:
            m.ptx_version(*self.ptx_version)
        m.debug(self.debug)
        for kind, name, dtype, count, init, align in self._vars:
            getattr(m, kind)(name, dtype, count, init, align)
        templates = iter(templates)
        for item in self._items:
            if isinstance(item, DeviceFunction):
                m.add_func(item.cxx)
            else:
                m.add_kernel(item._kernel_for(next(templates), self.arch))
        return m

    def _traced(self, bindings, templates, kernel=None):
        for k in self.kernels():
            missing = [s for s in k.symbols if s not in bindings]
            if missing:
                raise TypeError(f"kernel {k.name}: shape variable(s) {', '.join(missing)} not given")
        m = self._module_for(templates)
        state = kernel_module._state
        saved = getattr(state, "bindings", None)
        state.bindings = bindings
        try:
            return m.ptx(bindings, self.debug) if kernel is None else m.trace(kernel, bindings, self.debug)
        finally:
            state.bindings = saved

    def ptx(self, **kwargs):
        """The module's PTX (the C++ DSL's for the same program): shape variables and template parameters
        by name."""
        return self._traced(*self._split(kwargs))

    def trace(self, kernel, **kwargs):
        """The module traced for running ``kernel`` (a ptxpp.kernel in it, or its name): a ``ptxpp.Traced``
        whose ``ptx`` is the whole module."""
        name = kernel.name if isinstance(kernel, kernel_module.KernelFunction) else kernel
        return self._traced(*self._split(kwargs), kernel=name)

    def _trace_kernel(self, k, bindings, template):
        """A member kernel's trace with its own template parameters (the others': their defaults)."""
        templates = []
        for other in self.kernels():
            templates.append(template if other is k else other._split({})[1])
        return self._traced(bindings, templates, kernel=k.name)
