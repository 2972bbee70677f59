"""ptxpp from Python: write NVIDIA GPU kernels in PTX, one call per instruction.

    import ptxpp
    from ptxpp import ptx, reg, Tile
    from ptxpp.types import f32, u32

    @ptxpp.kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),),
                  grid=lambda N: (N // 256, 1, 1), block=256, arch="sm_90a")
    def copy(x, y):
        ...
    print(copy.ptx(N=1024))                 # no GPU needed
    y = copy(np.ones(1024, np.float32))     # NumPy arrays: the CPU emulator

Tracing, the ISA table's checks and the emulator are the C++ core's (the extension
ptxpp._core, built by `pip install ./python`). The modules ptxpp.torch and ptxpp.jax load
libraries of C++-built kernels as framework ops (docs/interop.md) and work without the
extension. See docs/python.md.
"""

__version__ = "0.1.0"

try:
    from . import _core
except ImportError as _error:  # a source checkout on PYTHONPATH: only ptxpp.torch / ptxpp.jax work
    _core_error = _error

    def __getattr__(name):
        raise ImportError(f"ptxpp.{name} needs the extension ptxpp._core, which is not built here "
                          f"(pip install ./python): {_core_error}")
else:
    import os as _os

    from . import listing, ptx, reg, smem, types
    from ._kernel import KernelFunction, Scalar, Tensor, TensorMap, Tile, kernel
    from ._module import DeviceFunction, Module, func

    _core._set_package_dir(_os.path.dirname(_os.path.abspath(__file__)) + _os.sep)
    Error = _core.Error
    ChainError = _core.ChainError
    DType = _core.DType
    Traced = _core.Traced
    __all__ = ["kernel", "KernelFunction", "func", "DeviceFunction", "Module", "Tile", "Tensor", "TensorMap", "Scalar", "ptx", "reg", "smem", "types", "listing", "Error",
               "ChainError", "DType", "Traced", "__version__"]
