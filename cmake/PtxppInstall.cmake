# cmake --install: headers, library, the ptxpp command, a CMake package and ptxpp.pc.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ptxpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ptxpp EXPORT ptxppTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ptxpp-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(EXPORT ptxppTargets NAMESPACE ptxpp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptxpp)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ptxppConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ptxppConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptxpp)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ptxppConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ptxppConfig.cmake ${PROJECT_BINARY_DIR}/ptxppConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/PtxppKernels.cmake ${PROJECT_SOURCE_DIR}/cmake/PtxppEmbed.cmake
              ${PROJECT_SOURCE_DIR}/cmake/PtxppTorch.cmake ${PROJECT_SOURCE_DIR}/cmake/PtxppPython.cmake ${PROJECT_SOURCE_DIR}/cmake/PtxppJax.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ptxpp)

file(RELATIVE_PATH PTXPP_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" PTXPP_PC_TO_PREFIX "${PTXPP_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ptxpp.pc.in ${PROJECT_BINARY_DIR}/ptxpp.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ptxpp.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
