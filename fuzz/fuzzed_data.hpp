// LLVM's FuzzedDataProvider: splits a fuzz input into typed choices (integers in a range, booleans,
// picks from a list). The header ships with clang (libclang-rt-14-dev); CMake finds it and passes
// its path (cmake/PtxppFuzzedDataProvider.cmake), so the GCC build's tests replay inputs too.
#pragma once

#include PTXPP_FUZZED_DATA_PROVIDER
