#!/usr/bin/env bash
# Session 50: the kept forms of session 49's experiments (no switches): the FP16 1D pair kernel (step_1d_half.cu), the
# FP16 2D pair kernel at radius 1-3 (step_2d_half.cu), the single-step 2D star path at radius 2-3 (step_2d.cuh).
# Checks against the FP64 reference, sanitizers on small grids, test_gpu's method case, then the suite rows of the
# changed kernels ($OUT/session50-*.json). Appends to $OUT/run84.log as it goes. Run from the repository root.
source notes/scratch/gpu-env.sh run84 stencil-bench test_gpu
R2=notes/scratch/star-2d9p-r2.json
for s in heat-1d 1d15p; do for sz in 1000003 37; do chk $B run -m cuda-core-fp16 -b gpu -s $s --size $sz -t 6; done; done
for s in star-2d13p box-2d49p heat-2d; do for sz in 1001x777 257x7; do chk $B run -m cuda-core-fp16 -b gpu -s $s --size $sz -t 6; done; done
for m in cuda-core cuda-core-fp32; do for s in star-2d13p $R2; do for bd in dirichlet periodic; do
  chk $B run -m $m -b gpu -s $s --size 1001x777 -t 6 --boundary $bd
done; done; done
for tool in memcheck racecheck; do
  echo "$tool fp16 1d7p $(timeout 60 $SAN --tool $tool $B run -m cuda-core-fp16 -b gpu -s 1d7p --size 100003 -t 3 2>&1 | grep SUMMARY)"
  echo "$tool fp16 box-2d25p $(timeout 60 $SAN --tool $tool $B run -m cuda-core-fp16 -b gpu -s box-2d25p --size 517x131 -t 3 2>&1 | grep SUMMARY)"
  echo "$tool cuda-core star-2d13p periodic $(timeout 60 $SAN --tool $tool $B run -m cuda-core -b gpu -s star-2d13p --size 517x131 -t 3 --boundary periodic 2>&1 | grep SUMMARY)"
done
timeout 240 $TG "every registered GPU method matches the FP64 reference on awkward grids and both boundaries" 2>&1 | tail -3
$B suite --seconds 1 --no-sweep --methods cuda-core-fp16:gpu --stencils heat-1d,1d5p,1d7p,1d15p,star-2d13p,box-2d25p,box-2d49p --json $OUT/session50-fp16-suite.json 2>&1 | grep -E "^papers|copy" | tr -s ' ' | cut -d' ' -f1-3,7-9,12-
$B suite --seconds 1 --no-sweep --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils star-2d13p --json $OUT/session50-star-suite.json 2>&1 | grep -E "^papers|copy" | tr -s ' ' | cut -d' ' -f1-3,7-9,12-
