#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds out-of-tree consumers against it:
# the plain one with find_package(ptxpp) and with pkg-config ptxpp, one of ahead-of-time
# kernels, the transpiler's output, and (where jax imports) a library of JAX ops.
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

# 1, 2. The consumer, with find_package(ptxpp) and with pkg-config
"$src/tests/install/build-consumer.sh" "$prefix" "$src" "$cxx" "$work"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"

# (The README's and docs' code blocks are compiled against an installed tree by the doc test,
# tests/docs/doc_test.py.)

# 3. Ahead-of-time kernels: ptxpp_add_kernels runs a generator at build time and embeds the PTX
#    (and cubins when ptxas is present); the application launches them without tracing.
cmake -S "$src/tests/install/aot_consumer" -B "$work/aot-build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$prefix" > "$work/aot-configure.log" || { cat "$work/aot-configure.log"; exit 1; }
cmake --build "$work/aot-build" > "$work/aot-build.log" || { cat "$work/aot-build.log"; exit 1; }
out=$(PTXPP_LIBCUDA=/nonexistent "$work/aot-build/app")
grep -q "axpy (axpy, sm_90a, cubin .*) on CPU emulator: ok" <<< "$out" || { echo "AOT consumer printed:"; echo "$out"; exit 1; }
echo "ahead-of-time consumer: ok ($out)"

# 4. The transpiler's output builds against the installed package (pkg-config) and
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

# 5. A library of JAX ops (ptxpp_add_jax_ops from the installed package), called from
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
