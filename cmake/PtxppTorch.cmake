# ptxpp_find_torch(): finds PyTorch through a Python interpreter (PTXPP_PYTHON, else
# the venv scripts/install-deps --test makes, else python3) and sets PTXPP_TORCH_FOUND,
# PTXPP_TORCH_DIR (the torch package), PTXPP_TORCH_PYTHON and PTXPP_TORCH_VERSION.
#
# ptxpp_add_torch_ops(<target> <sources>...): a shared library of torch custom ops
# made with <ptxpp/interop/torch.hpp>; load it in Python with
# ptxpp.torch.load_library(path). CUDA dispatch is compiled in when the CUDA
# toolkit's headers are found (c10/cuda needs cuda_runtime_api.h).
include(${CMAKE_CURRENT_LIST_DIR}/PtxppPython.cmake)
function(ptxpp_find_torch)
  if(DEFINED PTXPP_TORCH_FOUND)
    return()
  endif()
  ptxpp_interop_python(python)
  set(found FALSE)
  if(python)
    execute_process(
      COMMAND "${python}" -c "import os, torch; print(os.path.dirname(torch.__file__)); print(torch.__version__); print(int(torch._C._GLIBCXX_USE_CXX11_ABI))"
      OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" out "${out}")
      list(GET out 0 dir)
      list(GET out 1 version)
      list(GET out 2 abi)
      set(found TRUE)
    endif()
  endif()
  set(PTXPP_TORCH_FOUND ${found} CACHE INTERNAL "")
  if(found)
    set(PTXPP_TORCH_DIR "${dir}" CACHE INTERNAL "")
    set(PTXPP_TORCH_VERSION "${version}" CACHE INTERNAL "")
    set(PTXPP_TORCH_ABI "${abi}" CACHE INTERNAL "")
    set(PTXPP_TORCH_PYTHON "${python}" CACHE INTERNAL "")
    message(STATUS "ptxpp: PyTorch ${version} (${python})")
  else()
    message(STATUS "ptxpp: no PyTorch (python: '${python}'): the torch interop is not built")
  endif()
endfunction()

function(ptxpp_add_torch_ops target)
  ptxpp_find_torch()
  if(NOT PTXPP_TORCH_FOUND)
    message(FATAL_ERROR "ptxpp_add_torch_ops(${target}): PyTorch was not found (set PTXPP_PYTHON to a python that imports torch)")
  endif()
  add_library(${target} SHARED ${ARGN})
  set(torch ${PTXPP_TORCH_DIR})
  target_include_directories(${target} SYSTEM PRIVATE ${torch}/include ${torch}/include/torch/csrc/api/include)
  target_compile_definitions(${target} PRIVATE _GLIBCXX_USE_CXX11_ABI=${PTXPP_TORCH_ABI})
  target_link_libraries(${target} PRIVATE ptxpp::ptxpp ${torch}/lib/libc10.so ${torch}/lib/libtorch_cpu.so)
  find_path(PTXPP_CUDA_RUNTIME_INCLUDE cuda_runtime_api.h HINTS $ENV{CUDA_HOME}/include /usr/local/cuda/include)
  if(PTXPP_CUDA_RUNTIME_INCLUDE AND EXISTS ${torch}/lib/libc10_cuda.so)
    target_include_directories(${target} SYSTEM PRIVATE ${PTXPP_CUDA_RUNTIME_INCLUDE})
    target_compile_definitions(${target} PRIVATE PTXPP_TORCH_CUDA=1)
    target_link_libraries(${target} PRIVATE ${torch}/lib/libc10_cuda.so)
  endif()
  # torch's own libraries come from the python process that loads this one
  set_target_properties(${target} PROPERTIES PREFIX "lib" BUILD_RPATH "${torch}/lib")
endfunction()
