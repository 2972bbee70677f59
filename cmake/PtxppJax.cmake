# ptxpp_find_jax(): finds JAX through a Python interpreter (PTXPP_PYTHON, else the venv
# scripts/install-deps --test makes, else python3) and sets PTXPP_JAX_FOUND,
# PTXPP_JAX_INCLUDE (jaxlib's XLA FFI headers, jax.ffi.include_dir()),
# PTXPP_JAX_PYTHON and PTXPP_JAX_VERSION.
#
# ptxpp_add_jax_ops(<target> <sources>...): a shared library of XLA FFI handlers made
# with <ptxpp/interop/jax.hpp> (PTXPP_JAX_HANDLER); load it in Python with
# ptxpp.jax.load_library(path). The CUDA handlers take XLA's stream as a plain pointer,
# so no CUDA headers are needed to build them.
include(${CMAKE_CURRENT_LIST_DIR}/PtxppPython.cmake)
function(ptxpp_find_jax)
  if(DEFINED PTXPP_JAX_FOUND)
    return()
  endif()
  ptxpp_interop_python(python)
  set(found FALSE)
  if(python)
    execute_process(
      COMMAND "${python}" -c "import jax, jaxlib, jax.ffi; print(jax.ffi.include_dir()); print(jax.__version__); print(jaxlib.__version__)"
      OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" out "${out}")
      list(GET out 0 include)
      list(GET out 1 version)
      list(GET out 2 jaxlib_version)
      if(EXISTS "${include}/xla/ffi/api/ffi.h")
        set(found TRUE)
      endif()
    endif()
  endif()
  set(PTXPP_JAX_FOUND ${found} CACHE INTERNAL "")
  if(found)
    set(PTXPP_JAX_INCLUDE "${include}" CACHE INTERNAL "")
    set(PTXPP_JAX_VERSION "${version}" CACHE INTERNAL "")
    set(PTXPP_JAX_PYTHON "${python}" CACHE INTERNAL "")
    message(STATUS "ptxpp: JAX ${version}, jaxlib ${jaxlib_version} (${python})")
  else()
    message(STATUS "ptxpp: no JAX with the XLA FFI headers (python: '${python}'): the JAX interop is not built")
  endif()
endfunction()

# ptxpp_use_jax_ffi_headers(<target> <include>): compiles <target> against jaxlib's XLA FFI
# headers in <include> (jax.ffi.include_dir()); also used by the Python extension
# (python/CMakeLists.txt, PTXPP_JAX_INCLUDE).
function(ptxpp_use_jax_ffi_headers target include)
  target_include_directories(${target} SYSTEM PRIVATE ${include})
  # XLA's c_api.h declares struct fields named as its function typedefs, which GCC
  # before 13 rejects ("changes meaning", a permerror with no -Wno- switch);
  # -fpermissive makes it a warning, silent in a system header. (With -Werror our own
  # sources still get no leniency: what -fpermissive downgrades stays an error.)
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-fpermissive>)
endfunction()

function(ptxpp_add_jax_ops target)
  ptxpp_find_jax()
  if(NOT PTXPP_JAX_FOUND)
    message(FATAL_ERROR "ptxpp_add_jax_ops(${target}): JAX was not found (set PTXPP_PYTHON to a python that imports jax)")
  endif()
  add_library(${target} SHARED ${ARGN})
  ptxpp_use_jax_ffi_headers(${target} "${PTXPP_JAX_INCLUDE}")
  target_link_libraries(${target} PRIVATE ptxpp::ptxpp)
  # Hidden by default: the handlers and ptxpp_jax_ops are exported explicitly. With
  # default visibility, the static locals of jax.hpp's inline functions (the list of
  # ops) would be STB_GNU_UNIQUE, one per process, so a second library of ops would
  # list the first one's.
  set_target_properties(${target} PROPERTIES PREFIX "lib" CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()
