#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds an out-of-tree consumer
# against it twice: with find_package(ptxpp) and with pkg-config ptxpp.
# Usage: check-install.sh BUILD_DIR SOURCE_DIR CXX
set -euo pipefail
build=$1 src=$2 cxx=$3
work=$(mktemp -d /tmp/ptxpp-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in include/ptxpp/ptxpp.hpp include/ptxpp/text/parser.hpp bin/ptxpp lib/pkgconfig/ptxpp.pc \
         lib/cmake/ptxpp/ptxppConfig.cmake lib/cmake/ptxpp/ptxppTargets.cmake lib/cmake/ptxpp/PtxppTorch.cmake \
         lib/cmake/ptxpp/PtxppJax.cmake include/ptxpp/interop/jax.hpp; do
  [ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
ls "$prefix"/lib/libptxpp.* > /dev/null
"$prefix/bin/ptxpp" --version

expected=$'.version 9.0\n.target sm_90a\n.address_size 64\n\n.entry k()\n{\n\tret;\n}'

# 1. CMake package
cmake -S "$src/tests/install/consumer" -B "$work/cmake-build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake-build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
out=$("$work/cmake-build/consumer")
[ "$out" == "$expected" ] || { echo "find_package consumer printed:"; echo "$out"; exit 1; }
echo "find_package(ptxpp) consumer: ok"

# 2. pkg-config
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
"$cxx" -o "$work/consumer-pc" "$src/tests/install/consumer/main.cpp" $(pkg-config --cflags --libs ptxpp)
out=$("$work/consumer-pc")
[ "$out" == "$expected" ] || { echo "pkg-config consumer printed:"; echo "$out"; exit 1; }
echo "pkg-config ptxpp consumer: ok"

# 3. The README's examples, compiled against the installed tree.
readme_block() {  # the Nth ```cpp block of the README
  awk -v want="$1" '/^```cpp$/{n++; if(n==want){on=1; next}} /^```$/{if(on){exit}} on' "$src/README.md"
}
readme_block 1 > "$work/readme_dsl.cpp"
# shellcheck disable=SC2046
"$cxx" -std=c++20 -o "$work/readme-dsl" "$work/readme_dsl.cpp" $(pkg-config --cflags --libs ptxpp)
out=$("$work/readme-dsl")
grep -q $'^\tmul.rn.f32 \t%f1, %f1, %f2;$' <<< "$out" || { echo "README DSL example printed:"; echo "$out"; exit 1; }
echo "README DSL example: ok"
readme_block 2 > "$work/readme_example.cpp"
# shellcheck disable=SC2046
"$cxx" -o "$work/readme-example" "$work/readme_example.cpp" $(pkg-config --cflags --libs ptxpp)
out=$("$work/readme-example")
grep -q $'\tmov.u64 \t%stack, 7;   /\\* answer \\*/' <<< "$out" || { echo "README example printed:"; echo "$out"; exit 1; }
grep -q $'^\tmov.u64 \t%stack, 7; /\\* answer \\*/$' <<< "$out" || { echo "README example (canonical) printed:"; echo "$out"; exit 1; }
echo "README example: ok"

# 4. Ahead-of-time kernels: ptxpp_add_kernels runs a generator at build time and embeds the PTX
#    (and cubins when ptxas is present); the application launches them without tracing.
cmake -S "$src/tests/install/aot_consumer" -B "$work/aot-build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$prefix" > "$work/aot-configure.log" || { cat "$work/aot-configure.log"; exit 1; }
cmake --build "$work/aot-build" > "$work/aot-build.log" || { cat "$work/aot-build.log"; exit 1; }
out=$(PTXPP_LIBCUDA=/nonexistent "$work/aot-build/app")
grep -q "axpy (axpy, sm_90a, cubin .*) on CPU emulator: ok" <<< "$out" || { echo "AOT consumer printed:"; echo "$out"; exit 1; }
echo "ahead-of-time consumer: ok ($out)"

# 5. The transpiler's output builds against the installed package (pkg-config) and
#    prints the kernel it was made from (canonical form).
kernel="$src/tests/corpus/nvcc/sm_90a/mbarrier.ptx"
[ -f "$kernel" ] || kernel=$(find "$src/tests/corpus/nvcc" -name '*.ptx' | sort | head -n 1)
"$prefix/bin/ptxpp" transpile --main --name transpiled "$kernel" -o "$work/transpiled.cpp"
# shellcheck disable=SC2046
"$cxx" -std=c++20 -o "$work/transpiled" "$work/transpiled.cpp" $(pkg-config --cflags --libs ptxpp)
"$work/transpiled" > "$work/transpiled.ptx"
"$prefix/bin/ptxpp" fmt "$kernel" > "$work/kernel-canonical.ptx"
cmp "$work/kernel-canonical.ptx" "$work/transpiled.ptx" || { echo "transpiled $kernel printed something else"; exit 1; }
echo "transpiled $(basename "$kernel") built against the installed package: ok"

# 6. A library of JAX ops (ptxpp_add_jax_ops from the installed package), called from
#    jax.jit through ptxpp.jax; only where a python that imports jax is found.
python=${PTXPP_PYTHON:-$HOME/.cache/ptxpp/venv/bin/python}
if [ -x "$python" ] && "$python" -c "import jax" 2> /dev/null; then
  cmake -S "$src/tests/install/jax_consumer" -B "$work/jax-build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_PREFIX_PATH="$prefix" -DPTXPP_PYTHON="$python" -DPTXPP_EXAMPLES="$src/examples" \
        > "$work/jax-configure.log" || { cat "$work/jax-configure.log"; exit 1; }
  cmake --build "$work/jax-build" > "$work/jax-build.log" || { cat "$work/jax-build.log"; exit 1; }
  JAX_PLATFORMS=cpu PYTHONPATH="$src/python" "$python" -c "
import sys, jax, jax.numpy as jnp, ptxpp.jax
lib = ptxpp.jax.load_library(sys.argv[1])
x = jnp.arange(64, dtype=jnp.float32)
assert (jax.jit(lib.vector_add)(x, x) == 2 * x).all()
" "$work/jax-build/libconsumer_jax_ops.so"
  echo "JAX ops library built against the installed package: ok"
else
  echo "JAX ops library against the installed package: skipped (no python that imports jax)"
fi
