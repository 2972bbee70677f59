# ptxpp_interop_python(<var>): the Python the framework interops (torch, JAX) are
# found through: PTXPP_PYTHON (CMake or environment), else the venv
# scripts/install-deps --test makes (~/.cache/ptxpp/venv), else python3 on PATH.
function(ptxpp_interop_python var)
  set(python "${PTXPP_PYTHON}")
  if(NOT python AND DEFINED ENV{PTXPP_PYTHON})
    set(python "$ENV{PTXPP_PYTHON}")
  endif()
  if(NOT python AND EXISTS "$ENV{HOME}/.cache/ptxpp/venv/bin/python")
    set(python "$ENV{HOME}/.cache/ptxpp/venv/bin/python")
  endif()
  if(NOT python)
    find_program(PTXPP_PYTHON3 python3)
    set(python "${PTXPP_PYTHON3}")
  endif()
  set(${var} "${python}" PARENT_SCOPE)
endfunction()
