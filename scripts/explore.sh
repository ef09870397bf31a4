#!/usr/bin/env bash
# Sets up, builds and starts stencil-explorer on its default scene (extra arguments go to the app).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec ./build/app/stencil-explorer "$@"
