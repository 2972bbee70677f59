#!/usr/bin/env bash
# Fails when the PTX corpus under DIR is smaller than MIN_BYTES.
set -euo pipefail
dir=$1 min=$2
bytes=$(find "$dir" -name '*.ptx' -type f -print0 | xargs -0 cat | wc -c)
files=$(find "$dir" -name '*.ptx' -type f | wc -l)
echo "corpus: $files files, $bytes bytes (minimum $min)"
[ "$bytes" -ge "$min" ]
