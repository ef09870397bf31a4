#!/usr/bin/env bash
# The GUI's GPU path on a GPU server with no display (see notes/live-view.md).
#   scripts/gpu_gui.sh pack [BUILD]  here: strip and gzip test_live_gpu, test_gui and stencil-explorer from BUILD
#                                    (default build-viewsB) into .devbin/gui with the shared libraries they need
#                                    that a bare CUDA image lacks, and the font the GUI uses.
#   scripts/gpu_gui.sh run           there (carry .gl and .devbin/gui): the EGL/GL loaders from .gl, then the live
#                                    view test (interop texel check, fps at 4096^2, screenshot), the run views'
#                                    headless tests, and screenshots of the Compare and Performance views on the GPU.
#                                    Results land in $OUT (default ./out): live-gpu.png, live-gpu.json, compare-gpu.png,
#                                    performance-gpu.png, paint-gpu.png, gpu_gui.log; the brush kernels under
#                                    compute-sanitizer memcheck and racecheck.
set -uo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-run}

if [[ $MODE == pack ]]; then
  set -e
  BUILD=${2:-build-viewsB}
  cmake --build "$BUILD" -j2 --target test_live_gpu test_gui stencil-explorer
  rm -rf .devbin/gui && mkdir -p .devbin/gui/lib
  for exe in tests/test_live_gpu tests/test_gui app/stencil-explorer; do
    strip -o ".devbin/gui/$(basename "$exe")" "$BUILD/$exe"
    gzip -9 ".devbin/gui/$(basename "$exe")"
  done
  # What the binaries link beyond glibc, the CUDA driver and the GL/EGL loaders that .gl brings.
  for lib in libstb.so.0 libglfw.so.3 libfmt.so.9 libX11.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 \
             libmd.so.0 libstdc++.so.6; do
    cp -L "$(ldd "$BUILD/tests/test_live_gpu" | awk -v l="$lib" '$1 == l {print $3}')" .devbin/gui/lib/
  done
  cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf .devbin/gui/
  du -sh .devbin/gui
  exit 0
fi

OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOG="$OUT/gpu_gui.log"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
mkdir -p /usr/share/fonts/truetype/dejavu && cp .devbin/gui/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/
BIN=/tmp/se-gui
mkdir -p "$BIN"
for f in .devbin/gui/*.gz; do gunzip -c "$f" >"$BIN/$(basename "$f" .gz)"; done
chmod +x "$BIN"/*
export LD_LIBRARY_PATH=".devbin/gui/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The NVIDIA EGL vendor file, where the image keeps it outside glvnd's default folders.
if [[ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json && ! -f /usr/share/glvnd/egl_vendor.d/10_nvidia.json ]]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
export SE_RESULTS_DIR="$PWD/assets/results"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  echo "==== test_live_gpu"
  SE_LIVE_GPU_SCREENSHOT="$OUT/live-gpu.png" SE_LIVE_GPU_REPORT="$OUT/live-gpu.json" \
    SE_LIVE_GPU_PAINT_SCREENSHOT="$OUT/paint-gpu.png" timeout 150 "$BIN/test_live_gpu" --durations yes
  echo "test_live_gpu exit code $?"
  # The brush kernels under compute-sanitizer: every GPU method painted on small grids.
  SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    echo "==== compute-sanitizer --tool $tool: painting"
    timeout 110 "$SANITIZER" --tool "$tool" --error-exitcode 3 "$BIN/test_live_gpu" "painting a GPU run*" 2>&1 | tail -6
    echo "compute-sanitizer $tool exit code ${PIPESTATUS[0]}"
  done
  echo "==== test_gui [runs]"
  timeout 50 "$BIN/test_gui" "[runs]"
  echo "test_gui exit code $?"
  echo "==== screenshots"
  for view in compare performance; do
    timeout 25 "$BIN/stencil-explorer" --headless --no-state --view "$view" --frames 40 --screenshot "$OUT/$view-gpu.png"
  done
} 2>&1 | tee "$LOG"
