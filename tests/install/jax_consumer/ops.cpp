#include <ptxpp/interop/jax.hpp>

#include <kernels/elementwise.hpp>

PTXPP_JAX_HANDLER(vector_add, examples::vector_add);
