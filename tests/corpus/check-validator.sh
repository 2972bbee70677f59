#!/usr/bin/env bash
# `ptxpp check` reports nothing (no error, no warning) on any corpus file: every
# corpus file is accepted by ptxas (tests corpus.ptxas), so every diagnostic
# here would be a validator or table bug.
#   check-validator.sh PTXPP DIR
set -uo pipefail
ptxpp=$1 dir=$2
files=0 noisy=0
while IFS= read -r -d '' f; do
  files=$((files + 1))
  out=$("$ptxpp" check "$f" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || [ -n "$out" ]; then
    noisy=$((noisy + 1))
    echo "FAIL $f (exit $rc)"
    echo "$out" | head -n 12
  fi
done < <(find "$dir" -name '*.ptx' -type f -print0 | sort -z)
echo "ptxpp check: $((files - noisy)) of $files corpus files clean"
[ $noisy -eq 0 ] && [ $files -gt 0 ]
