// A second library of XLA FFI handlers, loaded next to jax_ops.cpp's by test_jax.py:
// each library lists, runs and counts only its own ops, even where an op's name is
// the same in both (vector_add here is another kernel).
#include <ptxpp/interop/jax.hpp>

#include "../../examples/kernels/elementwise.hpp"

PTXPP_JAX_HANDLER(identity, examples::identity);
PTXPP_JAX_HANDLER(vector_add, examples::swiglu);
