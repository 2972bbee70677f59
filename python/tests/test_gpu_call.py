"""Kernels called on CUDA arrays (__cuda_array_interface__, DLPack) launch on the GPU: checked against the
fake CUDA driver (tests/runtime/fake_cuda.cpp, its library in $PTXPP_FAKE_CUDA), which logs the
launch's grid, block, shared memory, stream and parameter bytes; DLPack arrays on the fake GPU
are made with ctypes. One process runs every scenario
(gpu_call_fake.py, about a second); each test reads its part. Without PTXPP_FAKE_CUDA the tests
are skipped; with it set to something unusable they fail."""

import json
import os
import struct
import subprocess
import sys

import pytest

import ptxpp

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    lib = os.environ.get("PTXPP_FAKE_CUDA")
    if lib is None:
        pytest.skip("PTXPP_FAKE_CUDA (the fake CUDA driver's library, build/release/tests/libptxpp_fake_cuda.so) is not set")
    if not os.path.isfile(lib):
        pytest.fail(f"PTXPP_FAKE_CUDA={lib}: no such file")
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(ptxpp.__file__)))
    env = dict(os.environ, PTXPP_LIBCUDA=lib, PTXPP_CACHE_DIR=str(tmp_path_factory.mktemp("cache")),
               PYTHONPATH=os.pathsep.join([package_root, HERE]))
    r = subprocess.run([sys.executable, os.path.join(HERE, "gpu_call_fake.py"), lib], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, f"gpu_call_fake.py failed:\n{r.stdout}\n{r.stderr}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def launches(result):
    assert "log" in result, result.get("error")
    return [line for line in result["log"].splitlines() if line.startswith("cuLaunchKernelEx")]


def hex8(value, fmt="<Q"):
    """A parameter's first 8 bytes as the fake driver logs them (a 4-byte scalar: its slot's zero padding)."""
    return struct.pack(fmt, value).ljust(8, b"\0").hex()


def test_a_launch_reaches_the_driver_with_grid_block_stream_and_parameter_bytes(fake):
    launch, params = launches(fake["first"])
    assert launch.startswith("cuLaunchKernelEx stream 77 grid 2,1,1 block 64,1,1 smem 0")  # N=100: 2 blocks of 64
    assert params == f"cuLaunchKernelEx params {hex8(fake['x'])} {hex8(fake['y'])} {hex8(2.5, '<f')}"
    assert "cuModuleLoadDataEx" in fake["first"]["log"]


def test_the_second_call_reuses_the_bound_kernel(fake):
    log = fake["second"]["log"]
    assert "cuModuleLoadDataEx" not in log and "cuModuleGetFunction" not in log
    assert len(launches(fake["second"])) == 2  # the launch and its parameters


def test_arrays_without_a_stream_launch_on_the_default_stream(fake):
    assert launches(fake["default_stream"])[0].startswith("cuLaunchKernelEx stream 0 ")


def test_dlpack_arrays_on_a_cuda_device_launch_there(fake):
    params = launches(fake["dlpack"])[1]
    assert params == f"cuLaunchKernelEx params {hex8(fake['dx'])} {hex8(fake['dy'])} {hex8(1.0, '<f')}"
    assert "argument 'x' must be a f32 array, not bfloat16" in fake["dlpack_dtype"]
    assert "argument 'y' is in host memory, but 'x' is on CUDA device 0" in fake["dlpack_mixed"]


def test_torch_cuda_tensors_launch_on_the_current_stream(fake):
    launch, params = launches(fake["torch"])  # a stand-in tensor and torch.cuda.current_stream (stream 4242)
    assert launch.startswith("cuLaunchKernelEx stream 4242 grid 2,1,1 block 64,1,1 smem 0")
    assert params == f"cuLaunchKernelEx params {hex8(fake['tx'])} {hex8(fake['ty'])} {hex8(3.0, '<f')}"
    assert "argument 'y' is on CUDA device 1, but 'x' is on CUDA device 0" in fake["two_gpus"]


def test_dynamic_shared_memory_is_given_at_launch(fake):
    assert fake["smem_bytes"] > 48 * 1024
    assert launches(fake["smem"])[0].startswith(f"cuLaunchKernelEx stream 0 grid 1,1,1 block 32,1,1 smem {fake['smem_bytes']}")


def test_a_tensor_map_is_encoded_on_the_gpu_from_the_array_address(fake):
    log = fake["tensor_map"]["log"]
    assert f"cuTensorMapEncodeTiled type=7 rank=2 addr={fake['m']} dims=32,8 strides=128 box=32,8" in log
    params = launches(fake["tensor_map"])[1].split()[2:]
    assert params[0] == hex8(fake["m"])  # the fake descriptor's first 8 bytes: the base address


def test_a_kernel_of_a_module_launches_in_its_modules_ptx(fake):
    log = fake["module"]["log"]
    assert "cuModuleLoadDataEx" in log and "cuModuleGetFunction k\n" in log + "\n"
    assert launches(fake["module"])[0].startswith("cuLaunchKernelEx stream 0 grid 1,1,1 block 64,1,1")
    text = fake["module_ptx"]  # the trace bound: the whole module, with the functions k calls
    assert ".visible .func (.param .b32 twice_plus1_retval) twice_plus1(" in text and ".visible .entry k2(" in text


def test_mismatches_name_the_argument(fake):
    assert "dimension 0 of 'y' is 50, but N is 100" in fake["shape"]
    assert "argument 'x' must be a f32 array, not float64" in fake["dtype"]
    assert "argument 'y' is on CUDA device 0, but 'x' is in host memory" in fake["mixed"]
    assert "output 'y' is read-only" in fake["readonly"]
    assert "argument 'x' is not contiguous" in fake["strided"]
    assert "output 'y' cannot be allocated for CudaArray arrays: pass it" in fake["no_output"]
    assert "scalar 'a' must be a number" in fake["scalar"]


# A call like an earlier one takes its plan (ptxpp._gpu_plan): these differ from the earlier call in one
# fact each, which the plan's signature must hold (gpu_call_fake.cached_calls).
def test_a_cached_call_still_checks_shapes_dtypes_contiguity_and_read_only_outputs(fake):
    assert "dimension 0 of 'y' is 50, but N is 100" in fake["cached_shape"]
    assert "argument 'x' must be a f32 array, not float64" in fake["cached_dtype"]
    assert "output 'y' is read-only" in fake["cached_readonly"]
    assert "output 'y' is not contiguous" in fake["cached_strided_output"]
    assert "argument 'x' is not contiguous" in fake["cached_strided_input"]
    assert "shape variable N must be an int, not True" in fake["cached_bool_keyword"]


def test_a_cached_call_passes_its_own_scalar_values(fake):
    values = [1.5, -3.25, 0.5, 7.0]  # positional, then by keyword
    for result, value in zip(fake["cached_values"], values):
        assert launches(result)[1] == f"cuLaunchKernelEx params {hex8(fake['x'])} {hex8(fake['y'])} {hex8(value, '<f')}"
    for result, n in zip(fake["cached_int_values"], [7, 9]):
        assert launches(result)[1].split()[-1] == hex8(n, "<I")


def test_a_cached_call_launches_on_its_own_stream(fake):
    assert launches(fake["cached_torch_stream"])[0].startswith("cuLaunchKernelEx stream 5151 ")  # torch's current one
    assert launches(fake["cached_interface_stream"])[0].startswith("cuLaunchKernelEx stream 99 ")  # the interface's


def test_a_cached_call_still_checks_integer_scalars(fake):
    assert "scalar 'n': -1 does not fit a u32" in fake["cached_int_range"][0]
    assert f"scalar 'n': {2**32} does not fit a u32" in fake["cached_int_range"][1]
    assert f"scalar 'n': {2**63} does not fit a u32" in fake["cached_int_range"][2]
    smallest, below, above = fake["cached_s8"]
    assert launches(smallest)[1].split()[-1] == hex8(-128, "<b")
    assert "scalar 'n': -129 does not fit a s8" in below and "scalar 'n': 128 does not fit a s8" in above
    largest, negative, too_large = fake["cached_u64"]
    assert launches(largest)[1].split()[-1] == "ff" * 8
    assert "scalar 'n': -1 does not fit a u64" in negative
    assert f"scalar 'n': {2**64} does not fit a u64" in too_large
    assert "scalar 'n' is a u32: give an integer, not 1.5" in fake["cached_int_type"][0]
    assert "scalar 'n' must be a number, not bool" in fake["cached_int_type"][1]


def test_a_call_on_another_device_binds_there(fake):
    for name in ("cached_device_1", "cached_interface_device_1", "cached_torch_device_1"):  # DLPack, CAI, torch
        assert "cuModuleLoadDataEx" in fake[name]["log"], name
        assert len(launches(fake[name])) == 2
    assert "cuModuleLoadDataEx" not in fake["cached_device_1_again"]["log"]


def test_a_new_default_arch_binds_anew(fake):
    assert "cuModuleLoadDataEx" in fake["cached_new_arch"]["log"]


def test_a_cached_call_allocates_each_output_anew(fake):
    first, second = fake["cached_allocations"]
    assert first != second
    assert launches(fake["cached_allocation_log"])[0].split()[-1] == f"p1={fake['cached_allocation_last'] & 0xFFFFFFFF}"


# k(torch CUDA tensors) through KernelFunction (gpu_call_fake.torch_eager_calls: stand-ins for torch and its op).
def direct(routed):
    """The launch lines of a call that did not go through the op."""
    result, op_calls = routed
    assert op_calls == 0
    return launches(result)


def test_eager_torch_calls_launch_without_the_op(fake):
    launch, params = direct(fake["eager_first"])
    assert launch.startswith("cuLaunchKernelEx stream 4242 grid 1,1,1 block 64,1,1")
    assert params == f"cuLaunchKernelEx params {hex8(fake['eager_tx'])} {hex8(fake['eager_ty'])} {hex8(3.0, '<f')}"
    assert "cuModuleLoadDataEx" not in fake["eager_planned"][0]["log"]  # the plan
    assert direct(fake["eager_planned"])[1].endswith(hex8(4.0, "<f"))
    for name in ("eager_parameter", "eager_no_grad_requires_grad"):
        assert len(direct(fake[name])) == 2, name
    for allocated in fake["eager_allocated"]:  # the output from torch.empty: by the full path, then the plan
        assert len(direct(allocated)) == 2


def test_traced_intercepted_or_recorded_torch_calls_go_through_the_op(fake):
    gated = ["compiling", "function_mode", "dispatch_modes", "transform", "jit_tracing", "forward_ad", "requires_grad",
             "subclass"]
    assert list(fake["gated"]) == gated
    for name in gated:
        result, op_calls = fake["gated"][name]
        assert launches(result) == [] and op_calls == 1, name  # the op's stand-in only counts: no launch
