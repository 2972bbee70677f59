#!/usr/bin/env bash
# An example's command line: --help prints its options and exits 0; --ptx prints the PTX and
# nothing else, for TARGET (the target the example's name says: its default), which the
# validator (ptxpp check) and, where ptxas exists ($PTXAS), ptxas accept.
#   check-example-cli.sh EXAMPLE TARGET PTXPP
set -euo pipefail
example=$1 target=$2 ptxpp=$3
work=$(mktemp -d /tmp/ptxpp-example-cli-XXXXXX)
trap 'rm -rf "$work"' EXIT
name=$(basename "$example")
fail() { echo "FAIL: $name: $*"; cat "$work/err" 2> /dev/null; exit 1; }

"$example" --help > "$work/help" 2> "$work/err" || fail "--help exited $?"
grep -q -- '--ptx' "$work/help" && grep -q -- '--arch' "$work/help" || fail "--help does not list --ptx and --arch"

"$example" --ptx > "$work/k.ptx" 2> "$work/err" || fail "--ptx exited $?"
[ ! -s "$work/err" ] || fail "--ptx wrote to stderr"
head -n 1 "$work/k.ptx" | grep -q '^\.version ' || fail "--ptx output does not start with .version"
grep -q "^\.target $target$" "$work/k.ptx" || fail "--ptx is not for $target: $(grep '^\.target' "$work/k.ptx")"
"$ptxpp" check "$work/k.ptx" > "$work/err" 2>&1 || fail "ptxpp check rejects the --ptx output"
if [ -n "${PTXAS:-}" ] && [ -x "$PTXAS" ]; then
  "$PTXAS" -arch="$target" "$work/k.ptx" -o "$work/k.cubin" 2> "$work/err" || fail "ptxas -arch=$target rejects the --ptx output"
  echo "$name: --help, --ptx for $target (validated, assembled by ptxas): ok"
else
  echo "$name: --help, --ptx for $target (validated; ptxas not found: not assembled): ok"
fi
