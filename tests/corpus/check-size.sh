#!/usr/bin/env bash
# Fails when the PTX files under the DIRs add up to fewer than MIN bytes (a corpus
# that was lost or truncated), or, with --max, to more than MAX bytes (a generator
# table that grew past what the repository and CI should carry).
#   check-size.sh [--max MAX] MIN DIR...
set -euo pipefail
max=""
[ "${1:-}" = "--max" ] && { max=$2; shift 2; }
min=$1
shift
bytes=$(find "$@" -name '*.ptx' -type f -print0 | xargs -0 cat | wc -c)
files=$(find "$@" -name '*.ptx' -type f | wc -l)
echo "corpus: $files files, $bytes bytes (minimum $min${max:+, maximum $max})"
[ "$bytes" -ge "$min" ] && { [ -z "$max" ] || [ "$bytes" -le "$max" ]; }
