#!/usr/bin/env bash
# Session 50: cuda-core-tb and cuda-core-tb-fp32 at each fusion depth on the 2D stencils where they trail or barely
# lead single-step cuda-core (star-2d13p, box-2d25p, box-2d49p), through the new `suite --fused-steps`; single-step
# cuda-core and cuda-core-fp32 in the T = 1 call for comparison. Appends to $OUT/run86.log. Repository root.
source notes/scratch/gpu-env.sh run86 stencil-bench
S=star-2d13p,box-2d49p,box-2d25p
for T in 2 1 3; do
  M=cuda-core-tb:gpu,cuda-core-tb-fp32:gpu; [ $T = 1 ] && M=$M,cuda-core:gpu,cuda-core-fp32:gpu
  echo "T=$T:"; $B suite --seconds 0.5 --no-sweep --fused-steps $T --methods $M --stencils $S --json $OUT/session50-tb-T$T.json 2>&1 | grep -E "^papers|^skipped|copy" | tr -s ' ' | cut -c1-160
done
