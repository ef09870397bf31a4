#!/usr/bin/env bash
# Session 51 (prepared, not run): the 2D depth table a fitted depth rule for cuda-core-tb needs. Session 51's sweep
# (notes/cuda-core-tb-h200-session51-pair-depths.json) has each kernel only at the depths the other did not take, so
# the rule's two misses (FP64 box-2d25p T = 4 over its 3, FP32 heat-2d two-column T = 4 over one-column T = 6) could
# not be fitted. This takes every depth each kernel holds: SE_EXP_TBPAIR = 0 runs all on tb_2d.cuh's one-column
# kernel (experiment patch notes/scratch/session51-tbpair-off-exp.patch), 1 as committed (the two-column kernel up to
# tb::pair_capacity_steps, one column above). The exp binary holds it beside session51-box3d-inner-exp.patch
# (SE_EXP_INNER left at 0 here: no 3D row is run). `suite --seconds 0.5 --fused-steps T`, 2D presets of radius 1..3.
# Part fp64 (T = 2..6) or fp32 (T = 2..8), each about 5 minutes; appends to $OUT/run93.log and writes one JSON per
# setting and depth. Repository root: `bash notes/scratch/session51-run93.sh fp64`, then `... fp32`.
part=${1:-fp64}
source notes/scratch/gpu-env.sh run93 stencil-bench-exp
export SE_EXP_INNER=0
S=heat-2d,box-2d9p,star-2d13p,box-2d25p,box-2d49p
# TBPAIR = 1 only where some preset's two-column kernel holds T (above that both settings run the same kernels).
if [ "$part" = fp64 ]; then M=cuda-core-tb:gpu; DEPTHS="2 3 4 5 6"; PMAX=2; else M=cuda-core-tb-fp32:gpu; DEPTHS="2 3 4 5 6 7 8"; PMAX=4; fi
for T in $DEPTHS; do for p in 0 1; do
  [ $p = 1 ] && [ $T -gt $PMAX ] && continue
  echo "$part T=$T TBPAIR=$p:"
  SE_EXP_TBPAIR=$p $E suite --seconds 0.5 --no-sweep --fused-steps $T --methods $M --stencils $S \
    --json $OUT/session51-depth-$part-T$T-pair$p.json 2>&1 | grep -E "^papers|^skipped" | tr -s ' ' | cut -c1-120
done; done
