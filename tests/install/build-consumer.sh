#!/usr/bin/env bash
# Builds the out-of-tree consumer (tests/install/consumer) against an installed ptxpp at PREFIX
# twice, with find_package(ptxpp) (CMAKE_PREFIX_PATH) and with pkg-config (PKG_CONFIG_PATH), as
# the README tells a user to, and checks what each prints.
#   build-consumer.sh PREFIX SOURCE_DIR CXX WORK_DIR
set -euo pipefail
prefix=$1 src=$2 cxx=$3 work=$4
expected=$'.version 9.0\n.target sm_90a\n.address_size 64\n\n.entry k()\n{\n\tret;\n}'

cmake -S "$src/tests/install/consumer" -B "$work/cmake-build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
grep -q "ptxpp_DIR:PATH=$prefix/" "$work/cmake-build/CMakeCache.txt" || { echo "find_package found another ptxpp:"; grep ptxpp_DIR "$work/cmake-build/CMakeCache.txt"; exit 1; }
cmake --build "$work/cmake-build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
out=$("$work/cmake-build/consumer")
[ "$out" == "$expected" ] || { echo "find_package consumer printed:"; echo "$out"; exit 1; }
echo "find_package(ptxpp) consumer: ok"

pc=$(find "$prefix" -name ptxpp.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || { echo "no ptxpp.pc under $prefix"; exit 1; }
# shellcheck disable=SC2046
PKG_CONFIG_PATH=$(dirname "$pc") "$cxx" -o "$work/consumer-pc" "$src/tests/install/consumer/main.cpp" \
  $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs ptxpp)
out=$("$work/consumer-pc")
[ "$out" == "$expected" ] || { echo "pkg-config consumer printed:"; echo "$out"; exit 1; }
echo "pkg-config ptxpp consumer: ok"
