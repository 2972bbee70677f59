#!/usr/bin/env bash
# Transpile then trace is the identity, on every file given: each PTX file becomes
# ptxpp C++ (`ptxpp transpile`), compiled with -Wall -Wextra -Werror against the
# DSL headers (one precompiled header; two compiles at a time) and linked into one
# driver; running it must print, for every file, exactly the file's canonical
# form (`ptxpp fmt`). For canonical inputs that is byte identity.
#   corpus-roundtrip.sh [--sugar] [--max-bytes N] PTXPP CXX LIBPTXPP INCLUDE_DIRS WORKDIR PATH...
# --sugar: transpile with --sugar (loops, ranges); the output must still print the same module.
# --max-bytes N: leave out files larger than N bytes (found in directories or named), to bound the time.
# INCLUDE_DIRS: ':'-separated. PATH: .ptx files or directories searched for them.
set -euo pipefail
sugar=()
max_bytes=""
while true; do
  case "${1:-}" in
    --sugar) sugar=(--sugar); shift ;;
    --max-bytes) max_bytes=$2; shift 2 ;;
    *) break ;;
  esac
done
ptxpp=$1 cxx=$2 lib=$3 incs=$4 work=$5
shift 5
rm -rf "$work" && mkdir -p "$work/gen" "$work/obj" "$work/out"
flags=(-std=c++20 -O0 -Wall -Wextra -Werror)
IFS=':' read -ra dirs <<< "$incs"
for d in "${dirs[@]}"; do flags+=(-I"$d"); done

files=()
for p in "$@"; do
  if [ -d "$p" ]; then while IFS= read -r f; do files+=("$f"); done < <(find "$p" -name '*.ptx' | sort)
  else files+=("$p"); fi
done
if [ -n "$max_bytes" ]; then
  kept=()
  for f in "${files[@]}"; do [ "$(wc -c < "$f")" -le "$max_bytes" ] && kept+=("$f"); done
  echo "$(( ${#files[@]} - ${#kept[@]} )) of ${#files[@]} files are over $max_bytes bytes: left out"
  files=("${kept[@]}")
fi
echo "transpiling ${#files[@]} files"
: > "$work/files.txt"
for i in "${!files[@]}"; do
  f=${files[$i]}
  echo "$f" >> "$work/files.txt"
  "$ptxpp" transpile "${sugar[@]}" --name "corpus_$i" -o "$work/gen/corpus_$i.hpp" "$f"
  printf '#include "%s"\nstd::string corpus_%s_ptx() { return corpus_%s().ptx(); }\n' \
    "$work/gen/corpus_$i.hpp" "$i" "$i" > "$work/gen/wrap_$i.cpp"
done
{
  echo '#include <cstdio>'
  echo '#include <exception>'
  echo '#include <fstream>'
  echo '#include <string>'
  for i in "${!files[@]}"; do echo "std::string corpus_${i}_ptx();"; done
  echo 'using Fn = std::string (*)();'
  echo 'const Fn kModules[] = {'
  for i in "${!files[@]}"; do echo "  corpus_${i}_ptx,"; done
  echo '};'
  echo 'int main(int, char** argv) {'
  echo '  int failed = 0;'
  echo '  for (size_t i = 0; i < sizeof kModules / sizeof kModules[0]; ++i) {'
  echo '    try {'
  echo '      std::ofstream(std::string(argv[1]) + "/" + std::to_string(i) + ".ptx", std::ios::binary) << kModules[i]();'
  echo '    } catch (const std::exception& e) {'
  echo '      std::fprintf(stderr, "module %zu: %s\n", i, e.what());'
  echo '      ++failed;'
  echo '    }'
  echo '  }'
  echo '  return failed ? 1 : 0;'
  echo '}'
} > "$work/gen/driver.cpp"

echo '#include <ptxpp/dsl.hpp>' > "$work/gen/pch.hpp"
"$cxx" "${flags[@]}" -x c++-header "$work/gen/pch.hpp" -o "$work/gen/pch.hpp.gch"
echo "compiling (2 at a time)"
export cxx work
export flagstr="${flags[*]}"
ls "$work/gen" | grep -E '^(wrap_[0-9]+|driver)\.cpp$' | \
  xargs -P 2 -I{} sh -c '$cxx $flagstr -include "$work/gen/pch.hpp" -c "$work/gen/{}" -o "$work/obj/{}.o"'
"$cxx" "$work"/obj/*.o "$lib" -lfmt -ldl -pthread -o "$work/driver"
status=0
"$work/driver" "$work/out" || status=1
failed=0
for i in "${!files[@]}"; do
  f=${files[$i]}
  "$ptxpp" fmt "$f" > "$work/out/$i.want"
  if ! cmp -s "$work/out/$i.want" "$work/out/$i.ptx"; then
    echo "DIFFERS: $f (generated: $work/gen/corpus_$i.hpp)"
    diff "$work/out/$i.want" "$work/out/$i.ptx" | head -n 8 || true
    failed=$((failed + 1))
  fi
done
echo "${#files[@]} files, $failed differ"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
