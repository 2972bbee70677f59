// The sm_90 GEMM example (examples/kernels/gemm_sm90.hpp) on the CPU device.
#include <gtest/gtest.h>
