"""CPU torch tensors run on the emulator like NumPy arrays (outputs come back as tensors)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ptxpp  # noqa: E402
from test_run import axpy  # noqa: E402


def test_cpu_tensors_run_on_the_emulator():
    x = torch.arange(100, dtype=torch.float32)
    y = axpy(x, 2.0)
    assert isinstance(y, torch.Tensor) and torch.equal(y, 2 * x)
    y2 = torch.ones(100)
    assert axpy(x, y2, a=3.0) is y2 and torch.equal(y2, 3 * x + 1)


def test_tensor_mismatches_name_the_argument():
    with pytest.raises(TypeError, match="argument 'x' must be a f32 array, not float64"):
        axpy(torch.zeros(8, dtype=torch.float64), 1.0)
    with pytest.raises(ValueError, match="argument 'x' is not contiguous"):
        axpy(torch.zeros(16)[::2], 1.0)
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: CUDA tensors are not refused there")
    with pytest.raises(ptxpp.Error, match="from Python, kernels run on CPU tensors"):
        axpy(torch.zeros(8, device="meta"), 1.0)


def test_tensors_that_require_grad_are_read():
    x = torch.arange(8, dtype=torch.float32, requires_grad=True)
    assert np.array_equal(axpy(x, 1.0).numpy(), np.arange(8, dtype=np.float32))
