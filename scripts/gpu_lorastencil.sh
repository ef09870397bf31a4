#!/usr/bin/env bash
# LoRAStencil on a lent GPU in one call: SASS summary of the carried binary (DMMA present, no local memory),
# then lorastencil-bench (copy and MMA ceilings, the correctness suite, timings), logs and JSON under $OUT.
# Usage (device machine, repository root): scripts/gpu_lorastencil.sh [BIN_DIR] [lorastencil-bench options]
set -uo pipefail
BIN=${1:-.devbin/lora}
shift || true
OUT=${OUT:-out/lora}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv >"$OUT/gpu.txt" 2>&1
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$BIN/lorastencil-bench" >"$OUT/sass.txt" 2>&1
  grep -oE "DMMA[.0-9A-Z]*|LDL[.0-9A-Z]*|STL[.0-9A-Z]*|LDGSTS[.0-9A-Z]*" "$OUT/sass.txt" | sort | uniq -c >"$OUT/sass_summary.txt"
  gzip -f "$OUT/sass.txt"
fi
"$BIN/lorastencil-bench" --json "$OUT/lora.json" "$@" 2>&1 | tee "$OUT/bench.log"
rc=${PIPESTATUS[0]}
# The project's suite through the method registry (what assets/results/ records), when carried along.
if [ -x "$BIN/stencil-bench" ] && [ -n "${LORA_SUITE:-}" ]; then
  "$BIN/stencil-bench" suite --methods lorastencil --no-sweep --seconds "${LORA_SUITE_SECONDS:-0.5}" \
    --json "$OUT/suite.json" --csv "$OUT/suite.csv" 2>&1 | tail -25 | tee "$OUT/suite.log"
fi
# LORA_NCU="heat-2d heat-3d": Nsight Compute on the first pass of each named stencil at the cost model's fusion
# (stall reasons, pipe use, memory, per-instruction warp samples), after the plain run.
if [ -n "${LORA_NCU:-}" ] && command -v ncu >/dev/null; then
  : >"$OUT/ncu_details.txt"; rm -f /tmp/ncu_source.csv
  for s in $LORA_NCU; do
    ncu --clock-control none -k regex:lora_pass -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section MemoryWorkloadAnalysis_Tables --section SourceCounters -f -o "/tmp/prof_$s" "$BIN/lorastencil-bench" \
      --skip-check --skip-probe --stencils "$s" --fusions 0 >>"$OUT/ncu.log" 2>&1
    echo "=== $s" >>"$OUT/ncu_details.txt"
    ncu -i "/tmp/prof_$s.ncu-rep" --page details >>"$OUT/ncu_details.txt" 2>&1
    { echo "=== $s"; ncu -i "/tmp/prof_$s.ncu-rep" --page source --csv --print-source sass; } >>/tmp/ncu_source.csv 2>&1
  done
  gzip -c /tmp/ncu_source.csv >"$OUT/ncu_source.csv.gz"
  grep -E "^===|Duration|Issue Slots Busy|Eligible Warps|Active Warps Per Sch|Registers Per|Tensor is|DRAM Throughput" \
    "$OUT/ncu_details.txt"
fi
echo "sass:"; cat "$OUT/sass_summary.txt" 2>/dev/null
grep -E "^time|^correctness|FAIL|mma\.|copy" "$OUT/bench.log" | tail -60
exit "$rc"
