#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh runs on the GPU machine into .devbin/gpu (ignored by git; name it in the
# device tool's `carry`): stencil-bench, test_gpu and test_wmma_recorder from a build folder, stripped and
# gzipped, plus libfmt.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
DEST=${2:-.devbin/gpu} # several people packing at once: one folder each (carry the one you packed)
cmake --build "$BUILD" -j2 --target stencil-bench test_gpu test_wmma_recorder
rm -rf "$DEST" && mkdir -p "$DEST"
for exe in app/stencil-bench tests/gpu/test_gpu tests/gpu/test_wmma_recorder; do
  strip -o "$DEST/$(basename "$exe")" "$BUILD/$exe"
  gzip -9 "$DEST/$(basename "$exe")"
done
cp -L "$(ldd "$BUILD/app/stencil-bench" | awk '/libfmt/ {print $3}')" "$DEST"/
du -sh "$DEST"
