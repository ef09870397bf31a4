#!/usr/bin/env bash
# cmake --install into a temporary prefix, then the installed programs are run from outside the source tree: the
# files land where a desktop expects them, the explorer finds its recorded results under <prefix>/share, renders
# headless, and the desktop entry is valid where desktop-file-validate is installed.
#   tests/install_test.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
PREFIX=$(mktemp -d /tmp/se-install-XXXXXX)
trap 'rm -rf "$PREFIX"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
for f in bin/stencil-explorer bin/stencil-bench \
         share/applications/stencil-explorer.desktop \
         share/icons/hicolor/scalable/apps/stencil-explorer.svg \
         share/stencil-explorer/results/NVIDIA_H200.json \
         share/stencil-explorer/stencils/heat-2d.json \
         share/stencil-explorer/dags/hdiff.dag \
         share/stencil-explorer/models/fusion_cnn_gcn.weights.json; do
  [[ -e "$PREFIX/$f" ]] || fail "$f was not installed"
done
[[ -x "$PREFIX/bin/stencil-explorer" ]] || fail "bin/stencil-explorer is not executable"

cd / # nowhere near the source tree or the build
unset SE_RESULTS_DIR
version=$("$PREFIX/bin/stencil-explorer" --version)
grep -q "recorded results: $PREFIX/share/stencil-explorer/results" <<<"$version" ||
  fail "the installed explorer did not find its results under $PREFIX/share: $version"
"$PREFIX/bin/stencil-bench" --version | grep -q "stencil-bench" || fail "stencil-bench --version"
"$PREFIX/bin/stencil-bench" run --method cpu-reference --stencil "$PREFIX/share/stencil-explorer/stencils/heat-2d.json" \
  --size 64x64 --steps 2 >/dev/null || fail "stencil-bench could not run an installed stencil file"
auto=$("$PREFIX/bin/stencil-bench" dag -f "$PREFIX/share/stencil-explorer/dags/hdiff.dag" --size 16 --strategy auto \
  --backend cpu 2>&1) || fail "stencil-bench dag could not run an installed program: $auto"
grep -q "the fusion model picks .*\[$PREFIX/share/stencil-explorer/models/" <<<"$auto" ||
  fail "the installed stencil-bench did not find its fusion model under $PREFIX/share: $auto"
"$PREFIX/bin/stencil-explorer" --headless --platform egl --no-state --frames 3 --window 800x500 --view performance \
  --size 64x64 --screenshot "$PREFIX/shot.png" 2>/dev/null || fail "the installed explorer did not render headless"
[[ $(stat -c %s "$PREFIX/shot.png") -gt 10000 ]] || fail "the installed explorer's screenshot is blank"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$PREFIX/share/applications/stencil-explorer.desktop" || fail "the desktop entry is not valid"
fi
echo "install test: installed into $PREFIX and ran from /: ok"
