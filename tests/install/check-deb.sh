#!/usr/bin/env bash
# The .deb: `cpack -G DEB` makes it from the build tree; it holds the headers, the library, the
# ptxpp command, the CMake package and ptxpp.pc under /usr, and depends on packages installed
# here. It is unpacked with `dpkg -x` into a staging root, and the out-of-tree consumer builds
# against that root with find_package and with pkg-config, as it would after `dpkg -i`.
# Why not `dpkg -i`: scripts/test runs on developers' machines too, where a test must not
# install into /usr as root; dpkg -x lays out the same files, and the Depends line is checked
# against what dpkg says is installed.
#   check-deb.sh BUILD_DIR SOURCE_DIR CXX
set -euo pipefail
build=$1 src=$2 cxx=$3
work=$(mktemp -d /tmp/ptxpp-deb-XXXXXX)
trap 'rm -rf "$work"' EXIT

start=$SECONDS
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" > "$work/cpack.log" || { cat "$work/cpack.log"; exit 1; }
deb=$(find "$work/pkg" -maxdepth 1 -name 'ptxpp_*.deb')
[ -f "$deb" ] || { echo "cpack made no ptxpp_*.deb:"; cat "$work/cpack.log"; exit 1; }
echo "$(basename "$deb"): $(du -h "$deb" | cut -f1), made in $((SECONDS - start)) s"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\|Recommends\):/  \1:/p'

dpkg-deb --contents "$deb" | awk '{print $6}' > "$work/contents"
for f in ./usr/include/ptxpp/ptxpp.hpp ./usr/include/ptxpp/dsl/inst.hpp ./usr/lib/libptxpp.a ./usr/bin/ptxpp \
         ./usr/lib/cmake/ptxpp/ptxppConfig.cmake ./usr/lib/cmake/ptxpp/ptxppTargets.cmake \
         ./usr/lib/cmake/ptxpp/PtxppKernels.cmake ./usr/lib/pkgconfig/ptxpp.pc ./usr/share/doc/ptxpp/LICENSE; do
  grep -qxF "$f" "$work/contents" || { echo "missing from the .deb: $f"; exit 1; }
done
echo "contents: headers, library, ptxpp, CMake package, pkg-config file, license: ok"

depends=$(dpkg-deb -f "$deb" Depends)
IFS=',' read -ra deps <<< "$depends"
for d in "${deps[@]}"; do
  name=$(sed 's/^ *//; s/ .*//' <<< "$d")
  dpkg-query -W -f='${Status}' "$name" 2> /dev/null | grep -q "install ok installed" || { echo "Depends: $name is not installed here"; exit 1; }
done
echo "Depends ($depends): installed here: ok"

dpkg -x "$deb" "$work/root"
"$work/root/usr/bin/ptxpp" --version
"$src/tests/install/build-consumer.sh" "$work/root/usr" "$src" "$cxx" "$work"
echo "check-deb: ok in $((SECONDS - start)) s"
