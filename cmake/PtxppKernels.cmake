# ptxpp_add_kernels(<target> GENERATOR <generator.cpp> ARCHS <sm_90a> ... [NAME <name>])
#
# Builds the generator (a program using the ptxpp DSL and ptx::aot::generator_main),
# runs it at build time for each target, and embeds every kernel's PTX (and its
# cubin, when ptxas is found) into <target>. The target includes "<name>.hpp" and calls
#   ptxpp_aot::<name>::kernel("saxpy", "sm_90a")   -> std::shared_ptr<const ptx::Traced>
# then ptx::bind(device, ...): no tracing and, with a cubin, no JIT at run time.
# <name> defaults to <target>_kernels.
set(PTXPP_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/PtxppEmbed.cmake)

function(ptxpp_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "GENERATOR;NAME" "ARCHS")
  if(NOT A_GENERATOR OR NOT A_ARCHS)
    message(FATAL_ERROR "ptxpp_add_kernels(${target}): GENERATOR and ARCHS are required")
  endif()
  if(NOT A_NAME)
    set(A_NAME ${target}_kernels)
  endif()
  if(NOT A_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "ptxpp_add_kernels(${target}): NAME ${A_NAME} is not a C++ identifier")
  endif()
  set(gen ${A_NAME}_generator)
  add_executable(${gen} ${A_GENERATOR})
  target_link_libraries(${gen} PRIVATE ptxpp::ptxpp)
  find_program(PTXPP_AOT_PTXAS ptxas HINTS /usr/local/cuda/bin $ENV{CUDA_HOME}/bin)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${A_NAME})
  set(lists)
  foreach(arch ${A_ARCHS})
    add_custom_command(
      OUTPUT ${dir}/${arch}/kernels.txt
      COMMAND $<TARGET_FILE:${gen}> --arch ${arch} --out-dir ${dir}/${arch}
      DEPENDS ${gen}
      COMMENT "Generating ${A_NAME} kernels for ${arch}"
      VERBATIM)
    list(APPEND lists ${dir}/${arch}/kernels.txt)
  endforeach()
  add_custom_command(
    OUTPUT ${dir}/${A_NAME}.cpp ${dir}/${A_NAME}.hpp
    COMMAND ${CMAKE_COMMAND} -DNAME=${A_NAME} -DDIR=${dir} "-DARCHS=${A_ARCHS}" "-DPTXAS=${PTXPP_AOT_PTXAS}" -P ${PTXPP_EMBED_SCRIPT}
    DEPENDS ${lists} ${PTXPP_EMBED_SCRIPT}
    COMMENT "Embedding ${A_NAME} kernels"
    VERBATIM)
  target_sources(${target} PRIVATE ${dir}/${A_NAME}.cpp)
  target_include_directories(${target} PRIVATE ${dir})
  target_link_libraries(${target} PRIVATE ptxpp::ptxpp)
endfunction()
