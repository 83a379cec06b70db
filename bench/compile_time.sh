#!/usr/bin/env bash
# Wall time (best of 3, seconds) to compile a translation unit that only includes metagrad,
# with GCC and Clang 19, through include/ and through the single header.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#include <metagrad/metagrad.hpp>\nint main(){}\n' > "$tmp/include.cpp"
printf '#include <metagrad.hpp>\nint main(){}\n' > "$tmp/single.cpp"

measure() {  # label, compile command...
  local label=$1 best=-1 t0 t1; shift
  for _ in 1 2 3; do
    t0=$(date +%s%N)
    "$@" || { echo "$label: compile failed" >&2; exit 1; }
    t1=$(date +%s%N)
    (( best < 0 || t1 - t0 < best )) && best=$(( t1 - t0 ))
  done
  awk -v l="$label" -v ns="$best" 'BEGIN { printf "%-28s %6.2f s\n", l, ns / 1e9 }'
}

for cxx in g++ clang++-19; do
  measure "$cxx include/" $cxx -std=c++20 -O2 -Iinclude -c "$tmp/include.cpp" -o "$tmp/a.o"
  measure "$cxx single_include/" $cxx -std=c++20 -O2 -Isingle_include -c "$tmp/single.cpp" -o "$tmp/a.o"
done
