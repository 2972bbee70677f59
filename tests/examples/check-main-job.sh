#!/usr/bin/env bash
# The main job tells its story: every line scripts/run-main promises (README, "Two commands"),
# checked. scripts/run-main installs packages and builds build/release before it runs the
# SAXPY example, which a test of that same tree cannot do; so this runs the example binary as
# run-main does (with -o FILE), in a scratch directory.
#   check-main-job.sh EXAMPLE PTXPP
set -euo pipefail
example=$1 ptxpp=$2
work=$(mktemp -d /tmp/ptxpp-main-job-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; echo "--- stderr of the last run:"; cat err; exit 1; }
field() { sed -n "s/^  $1: *//p" err; }  # the text of one "  label: text" line of the story

# 1. Without a CUDA driver (a machine without a GPU): the CPU emulator, and why.
PTXPP_LIBCUDA=/nonexistent/libcuda.so.1 "$example" -o saxpy.ptx > stdout 2> err || fail "exit status $?"
cat err
[ "$(tail -n 1 err)" = "ALL CHECKS PASSED" ] || fail "the last line is not ALL CHECKS PASSED"

source=$(field source | cut -d' ' -f1)
grep -q 'ptx::kernel("saxpy")' "$source" || fail "source: '$source' is not the kernel's source"
field device | grep -q '^the CPU emulator (no GPU: cannot load the CUDA driver (/nonexistent/libcuda.so.1)' ||
  fail "device: not the CPU emulator with the driver's absence as the reason"

traced='^saxpy for (sm_[0-9a-z]+), N = ([0-9]+): [0-9]+ instructions .*block ([0-9]+), grid ([0-9]+) '
[[ $(field traced) =~ $traced ]] || fail "traced: no target, N, block and grid"
target=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]} block=${BASH_REMATCH[3]} grid=${BASH_REMATCH[4]}
ran="^on the CPU emulator: N = $n, grid $grid x block $block, the PTX above; matches the CPU reference$"
[[ $(field ran) =~ $ran ]] || fail "ran: not the size and grid traced (N = $n, grid $grid, block $block) on the CPU emulator"
[ "$grid" -eq $(((n + block - 1) / block)) ] || fail "grid $grid does not cover N = $n"

[[ $(field PTX) =~ ^saxpy.ptx\ \(([0-9]+)\ bytes\) ]] || fail "PTX: not the file given with -o"
[ "${BASH_REMATCH[1]}" -eq "$(wc -c < saxpy.ptx)" ] || fail "PTX: the size shown is not the file's"
cmp -s stdout saxpy.ptx || fail "stdout is not exactly the PTX file"
head -n 1 stdout | grep -q '^\.version ' || fail "stdout does not start with .version"
"$ptxpp" check saxpy.ptx > /dev/null || fail "ptxpp check rejects the PTX"
grep -q "^\.target $target$" saxpy.ptx || fail "the PTX is not for $target"
field ptxas | grep -Eq "^(accepted for $target|not found)" || fail "ptxas: neither accepted nor not found"

cli=$(field ptxpp | cut -d' ' -f1)
[ -x "$cli" ] && "$cli" --version > /dev/null || fail "ptxpp: '$cli' is not the ptxpp command"
mapfile -t next < <(sed -n '/^  try next:$/,$p' err | grep -E '^    [^ #]' | sed 's/^ *//')
[ ${#next[@]} -eq 2 ] || fail "try next: ${#next[@]} commands, not 2"
bash -c "${next[0]}" > next.out || fail "try next: '${next[0]}' failed"
grep -q 'ptx::' next.out || fail "try next: '${next[0]}' printed no C++"
grep -q -- '--target ptxpp-example-flash_attn_sm90 && ' <<< "${next[1]}" || fail "try next: the second command changed"
echo "check-main-job: the story without a driver: ok"

# 2. The machine's own device (the GPU where there is one): the same sizes traced and run.
"$example" -o saxpy.ptx > stdout 2> err || fail "exit status $?"
[[ $(field device) =~ ^(GPU\ 0,\ .*\ \(sm_[0-9]+a?\)|the\ CPU\ emulator\ \(no\ GPU:\ .+\))$ ]] || fail "device: '$(field device)'"
[[ $(field traced) =~ $traced ]] || fail "traced: no target, N, block and grid"
n=${BASH_REMATCH[2]} grid=${BASH_REMATCH[4]}
[[ $(field ran) =~ ^on\ the\ (GPU|CPU\ emulator):\ N\ =\ $n,\ grid\ $grid\ x ]] || fail "ran: not N = $n, grid $grid"
echo "check-main-job: on $(field device): ok"

# 3. Errors are clear and exit 1: a PTX file that cannot be written, a GPU asked for where none starts.
if "$example" -o /nonexistent/dir/saxpy.ptx > stdout 2> err; then fail "-o /nonexistent/dir/saxpy.ptx succeeded"; fi
grep -q "^error: cannot write the PTX to '/nonexistent/dir/saxpy.ptx'$" err || fail "no clear error for an unwritable -o"
if PTXPP_LIBCUDA=/nonexistent/libcuda.so.1 "$example" --device gpu > stdout 2> err; then fail "--device gpu without a driver succeeded"; fi
grep -q "^error: cannot load the CUDA driver (/nonexistent/libcuda.so.1)" err || fail "no clear error for --device gpu without a driver"
echo "check-main-job: errors: ok"
