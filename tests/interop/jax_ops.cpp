// A library of XLA FFI handlers made from the project's example kernels and the
// interop test kernels (named parameters, scalars as attributes, a static dimension,
// two outputs, backward kernels, and two kernels no call can drive). tests/interop/test_jax.py loads it.
#include <ptxpp/interop/jax.hpp>

#include "../../examples/kernels/elementwise.hpp"
#include "../../examples/kernels/rows.hpp"
#include "test_kernels.hpp"

PTXPP_JAX_HANDLER(vector_add, examples::vector_add);
PTXPP_JAX_HANDLER(swiglu, examples::swiglu);
PTXPP_JAX_HANDLER(rmsnorm, examples::rmsnorm);
PTXPP_JAX_HANDLER(softmax, examples::softmax);
PTXPP_JAX_HANDLER(axpb, interop_test::axpb);
PTXPP_JAX_HANDLER(axpb_backward, interop_test::axpb_backward);
PTXPP_JAX_HANDLER(axpb_backward_f64, interop_test::axpb_backward_f64);
PTXPP_JAX_HANDLER(axpb_backward_fixed, interop_test::axpb_backward_fixed);
PTXPP_JAX_HANDLER(swiglu_backward, interop_test::swiglu_backward);
PTXPP_JAX_HANDLER(row_stats, interop_test::row_stats);
PTXPP_JAX_HANDLER(with_tensor_map, interop_test::with_tensor_map);
PTXPP_JAX_HANDLER(unsized_output, interop_test::unsized_output);
