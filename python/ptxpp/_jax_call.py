"""Kernels called on JAX arrays, inside jax.jit or not. The outputs' shapes and dtypes come
from the specs and the inputs' shapes; run-time scalars must be Python numbers (static under
jit).

With the FFI build (_core.jax_ffi_available: the package was built with PTXPP_JAX_INCLUDE)
the call is an XLA FFI custom call, "ptxpp.python_kernel" (python/src/jax_ffi.cpp): when jax
traces the call, the kernel is traced here for the bindings the static shapes give, for the
CPU (the kernel's target) and for each GPU JAX has (the device's target, ptx::Device::arch(),
unless the kernel or the call names one), and registered in C++; the call passes the
registration's id and the scalars as attributes. XLA runs it on the emulator on the CPU and
launches it on XLA's stream on a GPU, without calling Python.

Otherwise, and for kernels no FFI call can drive (tensor maps, scalars of other types than
f32, f64 and the integers), the call is jax.pure_callback around the emulator: on the CPU
only."""

import threading

import jax
import numpy as np

from . import _call, _core
from ._kernel import Scalar, TensorMap

TARGET = "ptxpp.python_kernel"
_ID_ATTRIBUTE = "ptxpp_kernel"  # python/src/jax_ffi.cpp's kKernelAttribute
_lock = threading.Lock()
_registered_targets = False
_gpu_archs = None  # the targets of the GPUs JAX has, once asked


def _is_jax(a):
    return isinstance(a, (jax.Array, jax.core.Tracer))


def _register_targets():
    """The FFI target's handlers, registered with XLA once per process."""
    global _registered_targets
    with _lock:
        if _registered_targets:
            return
        cpu, cuda = _core.jax_ffi_handlers()
        jax.ffi.register_ffi_target(TARGET, cpu, platform="cpu", api_version=1)
        try:
            jax.ffi.register_ffi_target(TARGET, cuda, platform="CUDA", api_version=1)
        except Exception:  # a jaxlib without CUDA support
            pass
        _registered_targets = True


def _gpu_targets():
    """The targets (sm_90a, ...) of the GPUs JAX runs on; none without a GPU backend."""
    global _gpu_archs
    if _gpu_archs is None:
        try:
            devices = jax.devices("gpu")
        except RuntimeError:  # no GPU backend (JAX_PLATFORMS=cpu, a CPU-only jaxlib)
            devices = []
        ordinals = {d.local_hardware_id if d.local_hardware_id is not None else d.id for d in devices
                    if d.platform == "gpu"}
        _gpu_archs = sorted({_core.jax_ffi_gpu_arch(o) for o in ordinals})
    return _gpu_archs


def _on_gpu(arrays):
    """Whether the call runs on a GPU: where its concrete arrays are, else (all traced) jax's default backend."""
    for a in arrays:
        if not isinstance(a, jax.core.Tracer):
            return any(d.platform != "cpu" for d in a.devices())
    return jax.default_backend() != "cpu"


def _ffi_refusal(kernel):
    """Why no FFI call can drive the kernel (Python's part of the check: jax_ffi_register has the rest)."""
    if any(isinstance(p, TensorMap) for p in kernel.params):
        return "it takes a tensor map"
    return None


def _registered(kernel, bindings, template, arch):
    """The registry id of the kernel traced for these bindings: for the CPU, and per GPU target."""
    gpus = tuple(_gpu_targets())
    key = (tuple(sorted(template.items())), tuple(sorted(bindings.items())), arch, gpus)
    ids = kernel.__dict__.setdefault("_jax_ffi_ids", {})
    if key in ids:
        return ids[key]
    k, cpu = kernel._trace(dict(bindings), template, arch)
    if k is None:  # a kernel of a ptxpp.Module: its module's trace (the module's target) everywhere
        k, gpu = kernel._kernel_for(template, kernel._module.arch), {a: cpu for a in gpus}
    else:
        fixed = arch not in (None, "auto")  # a kernel (or call) that names its target runs it on every GPU
        gpu = {a: kernel._trace(dict(bindings), template, arch if fixed else a)[1] for a in gpus}
    ids[key] = _core.jax_ffi_register(k, kernel.arg_names, bindings, cpu, gpu)
    return ids[key]


def _attributes(kernel, numbers, kwargs):
    """The scalars as typed attributes, by name (checked as an eager call checks them)."""
    scalars = [p for p in kernel.params if isinstance(p, Scalar)]
    if len(numbers) > len(scalars):
        raise TypeError(f"kernel {kernel.name} takes {len(scalars)} scalar(s), not {len(numbers)}")
    values = dict(zip((p.name for p in scalars), numbers))
    attrs = {}
    for p in scalars:
        if p.name in kwargs:
            if p.name in values:
                raise TypeError(f"kernel {kernel.name}: scalar '{p.name}' given twice")
            values[p.name] = kwargs[p.name]
        if p.name not in values:
            raise TypeError(f"kernel {kernel.name}: scalar '{p.name}' is missing")
        _call._scalar_bytes(kernel, p, p.name, values[p.name])  # the type and range checks, naming the scalar
        attrs[p.name] = _call.numpy_dtype(p.dtype).type(values[p.name])
    return attrs


def call(kernel, args, kwargs):
    arrays = [a for a in args if _is_jax(a)]
    numbers = [a for a in args if not _is_jax(a)]
    inputs = [i for i, p in enumerate(kernel.params) if _call._array_param(p) and not kernel.outputs[i]]
    if len(arrays) != len(inputs):
        raise TypeError(f"kernel {kernel.name} takes {len(inputs)} input array(s); with JAX arrays the outputs are "
                        f"returned (JAX arrays are immutable), not {len(arrays)}")
    for n in list(numbers) + [v for k, v in kwargs.items()]:
        if _is_jax(n) or isinstance(n, np.ndarray):
            raise TypeError(f"kernel {kernel.name}: scalars and keyword arguments are Python numbers under JAX")
    # The shapes, dtypes and bindings, checked as an eager call checks them (names the argument).
    specs = [(kernel.params[i], _call._Arg.described(kernel, i, a.shape, a.dtype)) for i, a in zip(inputs, arrays)]
    scalar_names = {p.name for p in kernel.params if isinstance(p, Scalar)}
    shape_kwargs = {k: v for k, v in kwargs.items() if k not in scalar_names}
    bindings, template, arch = kernel._split(dict(shape_kwargs))
    _call._bind(kernel, specs, bindings)
    kernel._kernel_for(template, arch)  # (cached) unhashable template parameters: an error now, not in XLA
    results = []
    for i, p in enumerate(kernel.params):
        if kernel.outputs[i]:
            shape = tuple(bindings[d] if isinstance(d, str) else d for d in p.shape)
            results.append(jax.ShapeDtypeStruct(shape, _call.numpy_dtype(p.dtype)))

    why = "ptxpp was built without the JAX FFI" if not _core.jax_ffi_available else _ffi_refusal(kernel)
    if why is None:
        try:
            kernel_id = _registered(kernel, bindings, template, arch)
        except ValueError as e:  # a kernel jax_ffi_register refuses (its parameters' types)
            why = str(e)
    if why is None:
        _register_targets()
        attrs = _attributes(kernel, numbers, kwargs)
        out = jax.ffi.ffi_call(TARGET, tuple(results), vmap_method="sequential")(
            *arrays, **{_ID_ATTRIBUTE: np.int64(kernel_id)}, **attrs)
        return out[0] if len(out) == 1 else tuple(out)
    return _pure_callback(kernel, arrays, numbers, kwargs, results, why)


def _pure_callback(kernel, arrays, numbers, kwargs, results, why):
    """The emulator through jax.pure_callback: CPU arrays only."""
    if _on_gpu(arrays):
        raise _core.Error(
            f"kernel {kernel.name}: JAX arrays on a GPU run through XLA's FFI, which this call cannot use ({why}). "
            "Install ptxpp with the FFI handlers: pip install ./python --config-settings=cmake.define.PTXPP_JAX_INCLUDE="
            "$(python -c 'import jax.ffi; print(jax.ffi.include_dir())')")

    def run(*host_arrays):
        out = _call.call(kernel, [np.asarray(h) for h in host_arrays] + numbers, kwargs)
        return out if isinstance(out, tuple) else (out,)

    out = jax.pure_callback(run, tuple(results), *arrays, vmap_method="sequential")
    return out[0] if len(out) == 1 else tuple(out)
