#!/usr/bin/env bash
# Session 50 (prepared, not run): what single-step box-3d27p (FP64, tb_3d_sym.cuh at T = 1, 512^3) waits on. Session
# 50 found that 8% fewer DRAM bytes left its time unchanged and 60% more L2 request sectors cost only 6%, so neither
# DRAM nor L2 bandwidth alone bounds it; this takes ncu's speed-of-light, scheduler, warp-state and memory sections
# of one launch (the committed binary, .devbin/gpu/stencil-bench.gz) and, for comparison, of heat-3d's per-point
# kernel at 86% of the copy roof. About 1 minute. Appends to $OUT/run88.log. Run from the repository root.
source notes/scratch/gpu-env.sh run88 stencil-bench
for s in box-3d27p heat-3d; do
  echo "ncu $s:"
  timeout 150 $NCU --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section SchedulerStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy \
    $B run -m cuda-core -b gpu -s $s --size 512x512x512 -t 4 2>&1 | grep -vE "^==PROF==|^\s*$|----" | tr -s ' ' | cut -c1-150
done
