#!/usr/bin/env bash
# Installs the Debian 12 packages stencil-explorer needs (only the missing ones, quietly), then configures
# and builds Release into ./build. Used by explore.sh and test.sh; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ pkg-config
  libimgui-dev libglfw3-dev python3-glad libstb-dev
  catch2 libeigen3-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgl-dev libegl-dev libegl1 libegl-mesa0 libgl1 libglx-mesa0 libgl1-mesa-dri fonts-dejavu-core
  xvfb xauth
)
bash scripts/install_packages.sh "${packages[@]}"

# Ninja prints one progress line while building and nothing when the build is up to date.
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
fi
cmake --build build | grep -v '^ninja: no work to do' || test "${PIPESTATUS[0]}" -eq 0
