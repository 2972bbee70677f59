#!/usr/bin/env bash
# Every script in scripts/ answers --help with its usage and exit status 0, and does nothing
# else: the commands the scripts run (apt-get, cmake, ninja, pip, nvcc, ptxas, ...) are
# replaced by stand-ins that record being called.
#   check-help.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d /tmp/ptxpp-help-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
for cmd in apt-get sudo dpkg-query cmake ctest ninja pip nvcc ptxas g++ clang++ make; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/called"\nexit 97\n' "$cmd" "$work" > "$work/bin/$cmd"
  chmod +x "$work/bin/$cmd"
done
status=0 count=0
for script in "$src"/scripts/*; do
  [ -f "$script" ] && [ -x "$script" ] || continue
  name=scripts/$(basename "$script")
  count=$((count + 1))
  rm -f "$work/called"
  if ! PATH="$work/bin:$PATH" "$script" --help > "$work/out" 2>&1; then
    echo "FAIL: $name --help exited non-zero:"; cat "$work/out"; status=1; continue
  fi
  if [ -e "$work/called" ]; then
    echo "FAIL: $name --help ran: $(cat "$work/called")"; status=1; continue
  fi
  [ "$(wc -l < "$work/out")" -ge 2 ] || { echo "FAIL: $name --help printed no usage"; status=1; continue; }
  echo "$name --help: ok ($(head -n 1 "$work/out"))"
done
echo "$count scripts checked"
exit $status
