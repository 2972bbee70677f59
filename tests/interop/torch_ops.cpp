// A library of torch ops made from the project's example kernels and a few kernels
// written for the tests (named parameters, integer scalars, a static dimension, two
// outputs). tests/interop/test_torch.py loads it.
#include <ptxpp/interop/torch.hpp>

#include "../../examples/kernels/elementwise.hpp"
#include "../../examples/kernels/rows.hpp"
#include "test_kernels.hpp"

using namespace interop_test;

TORCH_LIBRARY(ptxpp_test, m) {
  ptx::torch::def(m, "vector_add", examples::vector_add);
  ptx::torch::def(m, "swiglu", examples::swiglu);
  ptx::torch::def(m, "rmsnorm", examples::rmsnorm);
  ptx::torch::def(m, "softmax", examples::softmax);
  ptx::torch::def(m, "axpb", axpb);
  ptx::torch::def(m, "axpb_backward", axpb_backward);
  ptx::torch::def(m, "swiglu_backward", swiglu_backward);
  // forwards of their own (an op has one backward) for the backwards that do not fit
  ptx::torch::def(m, "axpb_bad_dtype_grad", axpb);
  ptx::torch::def(m, "axpb_backward_f64", axpb_backward_f64);
  ptx::torch::def(m, "axpb_bad_shape_grad", axpb);
  ptx::torch::def(m, "axpb_backward_fixed", axpb_backward_fixed);
  ptx::torch::def(m, "row_stats", row_stats);
  ptx::torch::def(m, "with_tensor_map", with_tensor_map);
  ptx::torch::def(m, "unsized_output", unsized_output);
}
