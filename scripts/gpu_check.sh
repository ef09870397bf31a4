#!/usr/bin/env bash
# On a GPU machine: the GPU tests (test_gpu, test_wmma_recorder), the measured ceilings, the FP64 cuda-core target runs and the benchmark
# suite, from binaries built elsewhere and carried in .devbin/ (see notes/gpu.md). Everything lands in $OUT
# (default ./out) as at most five files: gpu_check.log, ceilings.json, targets.jsonl, suite.json, suite.csv.
# Usage: scripts/gpu_check.sh [all|tests|sanitize|targets|suite|tests,sanitize]; SUITE_SECONDS (time per run) and
# SUITE_TIMEOUT (seconds) bound the suite (SUITE_ARGS adds flags such as --no-sweep), which rewrites its JSON/CSV after every run.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
BIN=${SE_DEVBIN:-.devbin/gpu}
MODE=${1:-all}
mkdir -p "$OUT"
LOG="$OUT/gpu_check.log"
# Binaries travel gzipped (their CUDA fat binaries shrink five-fold) with the libfmt they were linked against.
if compgen -G "$BIN/*.gz" >/dev/null; then
  mkdir -p /tmp/se-bin
  for f in "$BIN"/*.gz; do gunzip -c "$f" >"/tmp/se-bin/$(basename "$f" .gz)"; done
  chmod +x /tmp/se-bin/*
  BIN=/tmp/se-bin
fi
export LD_LIBRARY_PATH="$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
section() { echo "==== $* ($(date +%T))" | tee -a "$LOG"; }

section environment
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  echo "vendor libraries:"
  find /usr/local/cuda*/lib64 /usr/lib/x86_64-linux-gnu /opt -maxdepth 8 \( -name 'libcudnn.so.9' -o -name 'libcufft.so.1*' \) 2>/dev/null | head -20
  "$BIN/stencil-bench" list
} >>"$LOG" 2>&1

if [[ $MODE == all || $MODE == *tests* ]]; then
  section "test_gpu"
  timeout 300 "$BIN/test_gpu" --durations yes >>"$LOG" 2>&1
  echo "test_gpu exit code $?" | tee -a "$LOG"
  if [ -x "$BIN/test_wmma_recorder" ]; then
    section "test_wmma_recorder"
    timeout 60 "$BIN/test_wmma_recorder" >>"$LOG" 2>&1
    echo "test_wmma_recorder exit code $?" | tee -a "$LOG"
  fi
  grep -E "test cases|assertions" "$LOG" | tail -2
fi

if [[ $MODE == all || $MODE == *sanitize* ]]; then
  # compute-sanitizer's memcheck and racecheck on small grids of every dimension (both boundaries for 2D), through
  # stencil-bench run: the warm-up pass, the timed passes with their remainders, and the band fixes.
  section "compute-sanitizer"
  SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    for c in "lorastencil heat-1d 4099 dirichlet" "lorastencil 1d7p 4099 periodic" "lorastencil box-2d9p 157x139 dirichlet" \
             "lorastencil star-2d13p 157x139 periodic" "lorastencil heat-3d 37x33x29 dirichlet" \
             "lorastencil box-3d27p 37x33x29 periodic" "cuda-core-tb box-2d9p 157x139 dirichlet" \
             "cuda-core heat-3d 37x33x29 periodic"; do
      set -- $c
      timeout 60 "$SAN" --tool "$tool" --error-exitcode 3 "$BIN/stencil-bench" run --method "$1" --stencil "$2" --size "$3" \
        --boundary "$4" --steps 9 >"$OUT/san.log" 2>&1
      echo "$tool $1 $2 $3 $4: exit $? | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san.log" | tail -1)" | tee -a "$LOG"
    done
  done
  rm -f "$OUT/san.log"
fi

if [[ $MODE == all || $MODE == *targets* ]]; then
  section "ceilings"
  "$BIN/stencil-bench" device --json "$OUT/ceilings.json" 2>&1 | tee -a "$LOG"
  section "targets: FP64 cuda-core, 10240^2, one step per launch"
  : >"$OUT/targets.jsonl"
  for stencil in heat-2d box-2d9p; do
    for steps in 1 200; do
      "$BIN/stencil-bench" run --method cuda-core --stencil "$stencil" --size 10240x10240 --steps "$steps" \
        --json "$OUT/run.json" 2>&1 | grep -v "ETA" | tee -a "$LOG"
      cat "$OUT/run.json" >>"$OUT/targets.jsonl" && rm -f "$OUT/run.json"
    done
  done
fi

if [[ $MODE == all || $MODE == *suite* ]]; then
  section "suite"
  # SUITE_METHODS: the registry's GPU methods by default (the CPU emulations at the papers' sizes take minutes).
  timeout "${SUITE_TIMEOUT:-420}" "$BIN/stencil-bench" suite --seconds "${SUITE_SECONDS:-0.5}" \
    --methods "${SUITE_METHODS:-lorastencil,cuda-core,cuda-core-fp32,cuda-core-fp16,cuda-core-tb,cudnn,cudnn-fp32,cufft}" \
    --json "$OUT/suite.json" --csv "$OUT/suite.csv" ${SUITE_ARGS:-} >>"$LOG" 2>&1
  echo "suite exit code $?" | tee -a "$LOG"
  grep -E "^(papers|sweep|skipped)" "$LOG" | tail -90
fi
