#!/usr/bin/env bash
# Session 51: the tb 2D kernels' row loop moved into one helper (tb2d::stream_rows, shared by tb_2d.cuh and
# tb_2d_pair.cu, a lambda per kernel for the stages); ptxas sm_90 gives a few kernels 2-14 registers fewer or 2 more,
# no spill, so the PTX is not the same and the rates are measured: .devbin/gpu/stencil-bench.gz (before) against
# stencil-bench-exp.gz (after), alternated twice, `suite --seconds 0.5`, plus checks and racecheck of the new build.
# Ran in session 51: the helper lost 11-35% on the one-column kernel at radius 1-2 (notes/cuda-core-tb.md); not kept.
# Appends to $OUT/run91.log. Repository root.
source notes/scratch/gpu-env.sh run91 stencil-bench stencil-bench-exp
for m in cuda-core-tb cuda-core-tb-fp32; do for s in heat-2d box-2d49p; do
  chk $E run -m $m -b gpu -s $s --size 1001x777 -t 7 --boundary periodic; done; done
echo "racecheck $(timeout 60 $SAN --tool racecheck $E run -m cuda-core-tb -b gpu -s box-2d25p --size 301x77 -t 3 2>&1 | grep SUMMARY)"
for r in 1 2; do for bin in $B $E; do
  echo "r$r $(basename $bin):"
  $bin suite --seconds 0.5 --no-sweep --methods cuda-core-tb:gpu,cuda-core-tb-fp32:gpu --stencils heat-2d,star-2d13p,box-2d25p,box-2d49p 2>&1 | grep -E "^papers" | tr -s ' ' | cut -d' ' -f2,3,5,9
done; done
