#!/usr/bin/env bash
# Installs what is missing (the Fashion-MNIST dataset included), builds examples/fashion_mnist with GCC
# (in build-gcc, shared with run_tests.sh) and trains beautiful_mnist's CNN on the CPU. STEPS and BS
# come from the environment (70 and 512); the last line printed is the test accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
[ -d build-gcc/meson-private ] || CXX=g++ meson setup build-gcc -Dwerror=true
meson compile -C build-gcc -j 2 fashion_mnist
exec build-gcc/examples/fashion_mnist "$@"
