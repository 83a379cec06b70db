#!/usr/bin/env bash
# Builds metagrad with GCC and Clang 19 (warnings are errors) and runs every test in both builds.
# The last line printed is "N passed, N failed": Catch2 test cases plus the other meson tests.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0
build_and_test() {  # compiler, build dir, targets to build (none: all)
  local cxx=$1 dir=$2 p f
  shift 2
  echo "=== $dir ($cxx)"
  if [ -d "$dir/meson-private" ]; then meson setup --reconfigure "$dir" -Dwerror=true
  else CXX=$cxx meson setup "$dir" -Dwerror=true; fi || { echo "$dir: configure failed"; failed=$((failed + 1)); return; }
  meson compile -C "$dir" -j 2 "$@" || { echo "$dir: build failed"; failed=$((failed + 1)); return; }
  rm -f "$dir/meson-logs/testlog.json"
  meson test -C "$dir" --no-rebuild --print-errorlogs
  if read -r p f < <(python3 tools/count_tests.py "$dir/meson-logs/testlog.json"); then
    passed=$((passed + p)) failed=$((failed + f))
  else
    echo "$dir: no test results"; failed=$((failed + 1))
  fi
}

build_and_test g++ build-gcc
# Clang builds what the tests run (the test binaries and mg-sym), not the examples and benchmarks, each of
# which compiles the whole engine (about 15 CPU minutes together): CI must finish in 90 minutes on 2 cores
build_and_test clang++-19 build-clang metagrad_tests single_include_test mg-sym static_no_llvm extern_engine_program warm_start
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
