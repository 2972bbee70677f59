# Warning and sanitizer flags shared by every target of the project.
add_library(ptxpp_build_flags INTERFACE)
target_compile_options(ptxpp_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(PTXPP_WARNINGS_AS_ERRORS)
  target_compile_options(ptxpp_build_flags INTERFACE -Werror)
endif()
if(PTXPP_SANITIZE)
  string(REPLACE ";" "," _ptxpp_san "${PTXPP_SANITIZE}")
  target_compile_options(ptxpp_build_flags INTERFACE -fsanitize=${_ptxpp_san} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  target_link_options(ptxpp_build_flags INTERFACE -fsanitize=${_ptxpp_san})
endif()
if(PTXPP_FUZZ)
  # Coverage instrumentation for libFuzzer in everything the fuzz targets link.
  target_compile_options(ptxpp_build_flags INTERFACE -fsanitize=fuzzer-no-link)
endif()
