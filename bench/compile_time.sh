#!/usr/bin/env bash
# Wall time (best of N, default 3) to compile a translation unit that only includes metagrad, at -O2,
# with GCC 12 and Clang 19, through include/ and through the single header. Target: <= 3 s with GCC 12.
#   bash bench/compile_time.sh [runs]          CXXS="g++-12" bash bench/compile_time.sh   (compilers to try)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#include <metagrad/metagrad.hpp>\nint main(){}\n' > "$tmp/include.cpp"
printf '#include <metagrad.hpp>\nint main(){}\n' > "$tmp/single.cpp"
printf 'int main(){}\n' > "$tmp/empty.cpp"

source bench/measure.sh

echo "compile of a TU that only includes metagrad, -std=c++20 -O2, best of $runs ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
for cxx in ${CXXS:-g++-12 clang++-19}; do
  command -v "$cxx" >/dev/null || { echo "$cxx: not installed, skipped"; continue; }
  measure "$cxx empty main (baseline)" "$cxx" -std=c++20 -O2 -c "$tmp/empty.cpp" -o "$tmp/a.o"
  measure "$cxx include/" "$cxx" -std=c++20 -O2 -Iinclude -c "$tmp/include.cpp" -o "$tmp/a.o"
  [[ $cxx == g++-12 ]] && awk -v ns="$last" 'BEGIN { printf "%-34s %s (target <= 3 s)\n", "", ns <= 3e9 ? "meets target" : "MISSES target" }'
  if [[ -f single_include/metagrad.hpp ]]; then
    measure "$cxx single_include/" "$cxx" -std=c++20 -O2 -Isingle_include -c "$tmp/single.cpp" -o "$tmp/a.o"
  fi
done
