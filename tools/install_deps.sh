#!/usr/bin/env bash
# Installs the Debian 12 packages metagrad builds with; apt runs only when one is missing.
set -uo pipefail
packages=(meson ninja-build g++ clang-19 libboost-dev catch2 python3 pkg-config libllvm19 zlib1g dataset-fashion-mnist)

missing=()
for p in "${packages[@]}"; do
  # dpkg -s also succeeds for removed-but-not-purged packages, so check the status itself.
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
