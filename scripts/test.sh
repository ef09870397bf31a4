#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite through CTest (GPU tests are skipped without a GPU), then the
# sanitizer job: core, the CLI and their tests under ASan+UBSan and the stencil-file fuzzer (scripts/sanitize.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc 2>/dev/null || echo 2)"
bash scripts/sanitize.sh
