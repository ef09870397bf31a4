#!/usr/bin/env bash
# Session 49: the kept forms of session 48's experiments (no switches): checks against the FP64 reference, the
# sanitizers on small grids, test_gpu's method and [tb] cases, then the suite rows of the two changed methods.
# Run from the repository root; $OUT receives the JSON.
source notes/scratch/gpu-env.sh run80 stencil-bench test_gpu
for s in heat-2d box-2d9p; do for sz in 1001x777 130x97 4098x33 257x3; do for bd in dirichlet periodic; do
  chk $B run -m cuda-core-fp16 -b gpu -s $s --size $sz -t 6 --boundary $bd
done; done; done
for bd in dirichlet periodic; do for sz in 130x97x301 37x29x13 38x30x13; do
  chk $B run -m cuda-core-fp16 -b gpu -s box-3d27p --size $sz -t 4 --boundary $bd
  for s in box-3d27p heat-3d; do chk $B run -m cuda-core-tb-fp32 -b gpu -s $s --size $sz -t 6 --boundary $bd; done
done; done
for tool in memcheck racecheck; do
  echo "$tool fp16 box-2d9p $(timeout 100 $SAN --tool $tool $B run -m cuda-core-fp16 -b gpu -s box-2d9p --size 517x131 -t 3 2>&1 | grep SUMMARY)"
  echo "$tool fp16 box-3d27p $(timeout 100 $SAN --tool $tool $B run -m cuda-core-fp16 -b gpu -s box-3d27p --size 70x40x19 -t 3 2>&1 | grep SUMMARY)"
  echo "$tool tb-fp32 box-3d27p $(timeout 100 $SAN --tool $tool $B run -m cuda-core-tb-fp32 -b gpu -s box-3d27p --size 70x40x19 -t 4 --boundary periodic 2>&1 | grep SUMMARY)"
done
timeout 200 $TG "every registered GPU method matches the FP64 reference on awkward grids and both boundaries" "[tb]" 2>&1 | tail -3
$B suite --seconds 1 --methods cuda-core-fp16:gpu,cuda-core-tb-fp32:gpu --json $OUT/session49-suite.json 2>&1 | grep -E "cuda-core|copy" | tr -s ' ' | cut -c1-150
