#!/usr/bin/env bash
# Builds the rewrite_rules example with GCC (in build-gcc, shared with run_tests.sh) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
[ -d build-gcc/meson-private ] || CXX=g++ meson setup build-gcc -Dwerror=true
meson compile -C build-gcc -j 2 rewrite_rules
exec build-gcc/examples/rewrite_rules "$@"
