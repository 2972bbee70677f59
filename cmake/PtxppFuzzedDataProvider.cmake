# LLVM's FuzzedDataProvider.h, in clang's resource directory (Debian: libclang-rt-14-dev). The
# emulator fuzzer's generator reads its input through it, and so do the tests that replay that
# fuzzer's inputs, in every build (GCC's too: the header is plain C++). Sets
# PTXPP_FUZZED_DATA_PROVIDER to its path, or leaves it empty when there is none.
set(PTXPP_FUZZED_DATA_PROVIDER "" CACHE FILEPATH "Path of LLVM's fuzzer/FuzzedDataProvider.h (found when empty)")
if(NOT PTXPP_FUZZED_DATA_PROVIDER)
  file(GLOB _ptxpp_fdp_candidates
    /usr/lib/llvm-*/lib/clang/*/include/fuzzer/FuzzedDataProvider.h
    /usr/lib/clang/*/include/fuzzer/FuzzedDataProvider.h
    /usr/local/lib/clang/*/include/fuzzer/FuzzedDataProvider.h)
  if(_ptxpp_fdp_candidates)
    list(SORT _ptxpp_fdp_candidates COMPARE NATURAL ORDER DESCENDING)  # the newest clang first
    list(GET _ptxpp_fdp_candidates 0 _ptxpp_fdp)
    set(PTXPP_FUZZED_DATA_PROVIDER "${_ptxpp_fdp}" CACHE FILEPATH "Path of LLVM's fuzzer/FuzzedDataProvider.h (found when empty)" FORCE)
  endif()
endif()
