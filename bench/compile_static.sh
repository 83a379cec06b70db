#!/usr/bin/env bash
# Compile time of a translation unit holding ten static kernels (bench/static_ten.cpp) against the
# same ten expressions in Eigen (-DMG_TEN_EIGEN), GCC 12 at -O2, best of N (default 3). Target: the
# static kernels take at most 2x Eigen's time. Also the cost of the static-kernel header alone.
#   bash bench/compile_static.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cxx=${CXX:-g++-12}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#include <metagrad/static/kernel.hpp>\nint main(){}\n' > "$tmp/include.cpp"
printf '#include <eigen3/Eigen/Dense>\nint main(){}\n' > "$tmp/eigen.cpp"
source bench/measure.sh
label_width=44
echo "$cxx -std=c++20 -O2 -c, best of $runs ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
measure "include static/kernel.hpp only" "$cxx" -std=c++20 -O2 -Iinclude -c "$tmp/include.cpp" -o "$tmp/a.o"
measure "include Eigen/Dense only" "$cxx" -std=c++20 -O2 -c "$tmp/eigen.cpp" -o "$tmp/a.o"
measure "ten kernels, Eigen" "$cxx" -std=c++20 -O2 -DMG_TEN_EIGEN -c bench/static_ten.cpp -o "$tmp/e.o"
eigen=$last
measure "ten kernels, metagrad static" "$cxx" -std=c++20 -O2 -Iinclude -c bench/static_ten.cpp -o "$tmp/s.o"
awk -v s="$last" -v e="$eigen" 'BEGIN { printf "static / Eigen: %.2fx (target <= 2x: %s)\n", s / e, s <= 2 * e ? "met" : "MISSED" }'
