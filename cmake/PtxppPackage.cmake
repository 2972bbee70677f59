# `cpack -G DEB` in a build directory: a .deb of what `cmake --install` installs (the headers, the
# library, the ptxpp command, the CMake package and ptxpp.pc), under /usr, where CMake's
# find_package and pkg-config look by default. tests/install/check-deb.sh builds a consumer
# against it.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ptxpp)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "A C++20 toolkit for writing NVIDIA GPU kernels directly in PTX: the DSL, a lossless PTX parser and
printer, the PTX ISA as data with a validator, a transpiler, a CUDA runtime and a CPU emulator.
Headers, the static library, the ptxpp command, a CMake package (find_package(ptxpp)) and
a pkg-config file (ptxpp).")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # ptxpp_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "ptxpp maintainers <maintainers@ptxpp.invalid>")
# The library is static and its headers include fmt's; the ptxpp command links libfmt and
# libstdc++ (GCC 12's, the one it is built with).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt-dev, libc6, libstdc++6 (>= 12), libgcc-s1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++ (>= 4:12) | clang (>= 1:14), cmake (>= 3.25), pkg-config")
include(CPack)
