#!/usr/bin/env bash
# scripts/device-deps still carries every package the build finds: the project configures
# with find_package kept out of the system prefixes, each package from the copied tree (what
# scripts/gpu-check does on the GPU machine, where nothing can be installed).
#   check-device-deps.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2
rm -rf "$work"
"$src"/scripts/device-deps "$work/deps"
if ! cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/deps/usr" \
  -DCMAKE_IGNORE_PREFIX_PATH="/usr;/usr/local;/" > "$work/configure.log" 2>&1; then
  echo "FAIL: configuring against $work/deps failed; the end of $work/configure.log:"
  tail -n 40 "$work/configure.log"
  exit 1
fi
status=0
for pkg in fmt CLI11 GTest benchmark; do
  dir=$(sed -n "s/^${pkg}_DIR:PATH=//p" "$work/build/CMakeCache.txt")
  case $dir in
    "$work/deps/"*) echo "$pkg: $dir" ;;
    *) echo "FAIL: $pkg found at '$dir', not in $work/deps (add its packages to scripts/device-deps)"; status=1 ;;
  esac
done
exit $status
