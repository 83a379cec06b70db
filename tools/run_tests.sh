#!/usr/bin/env bash
# Builds metagrad with GCC and Clang 19 (warnings are errors) and runs every test in both builds.
# The last line printed is "N passed, N failed": Catch2 test cases plus the other meson tests.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0
build_and_test() {  # compiler, build dir
  local cxx=$1 dir=$2 p f
  echo "=== $dir ($cxx)"
  if [ -d "$dir/meson-private" ]; then meson setup --reconfigure "$dir" -Dwerror=true
  else CXX=$cxx meson setup "$dir" -Dwerror=true; fi || { echo "$dir: configure failed"; failed=$((failed + 1)); return; }
  meson compile -C "$dir" -j 2 || { echo "$dir: build failed"; failed=$((failed + 1)); return; }
  rm -f "$dir/meson-logs/testlog.json"
  meson test -C "$dir" --print-errorlogs
  if read -r p f < <(python3 tools/count_tests.py "$dir/meson-logs/testlog.json"); then
    passed=$((passed + p)) failed=$((failed + f))
  else
    echo "$dir: no test results"; failed=$((failed + 1))
  fi
}

build_and_test g++ build-gcc
build_and_test clang++-19 build-clang
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
