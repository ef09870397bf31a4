#!/usr/bin/env bash
# Session 50 (prepared, not run). Three experiments in one binary (e8a8f9f + notes/scratch/session50-star2d-r1-exp.patch
# + notes/scratch/session50-tb1step-exp.patch + notes/scratch/session50-tb2d-pair-exp.patch, each `git apply`; built in
# session 50 as .devbin/gpu/stencil-bench-exp.gz, libfmt.so.9 beside it). One part per call:
#   pair, pair-time  (about 4 and 5 min) cuda-core-tb and cuda-core-tb-fp32 in 2D with two columns per thread
#         (kernels/cuda_core/tb_2d_pair.cu, radius 1..3 at the depths that compile without spills: FP32 up to 4 / 3 /
#         3, FP64 2 / 1 / 2; SE_EXP_TBPAIR = 0 keeps tb_2d.cuh's one-column kernel, 1 = pairs, the default). Its
#         indexing, pipeline and masks were checked on a CPU model (notes/scratch/session50-sim-tb2d-pair.py: 66
#         cases, FP32 and FP64 layouts, exact) but never on a GPU.
#   tb1   (about 2 min) cuda-core-tb's depth-1 plans running their 2D passes on step_2d.cuh's kernels
#         (SE_EXP_TB1STEP = 0 keeps the tb pipeline kernel, 1 = step_2d, the default): at T = 1 the pipeline kernel ran
#         0.64-0.84x the single-step kernel (notes/cuda-core-tb.md, session 50); box-2d225p's model depth is 1.
#   star1 (about 2 min) the single-step 2D star path at radius 1 (heat-2d; SE_EXP_STAR2D1 = 0 keeps the dense loop,
#         1 = the star path, the default; ptxas sm_90: FP64 59 registers against 64, FP32 62 against 56, no spill).
# Each part: checks against the FP64 reference (both boundaries, odd sizes), memcheck and racecheck, then 0 / 1
# alternated twice (`suite`, about 20 s a run at --seconds 1). Appends to $OUT/run87.log. Run from the repository
# root: `bash notes/scratch/session50-run87.sh pair` (timeout_s 600), then `pair-time`, `tb1`, `star1`.
part=${1:-pair}
source notes/scratch/gpu-env.sh run87 stencil-bench-exp
sani() { local name=$1; shift; for tool in memcheck racecheck; do
  echo "$tool $name $(timeout 60 $SAN --tool $tool "$@" 2>&1 | grep SUMMARY)"; done; }
ab() { local var=$1; shift; for r in 1 2; do for v in 0 1; do
  echo "r$r $var=$v:"; env $var=$v $E suite --no-sweep "$@" 2>&1 | grep -E "^papers" | tr -s ' ' | cut -d' ' -f1-3,7-9
done; done; }
if [ "$part" = pair ]; then
  for s in heat-2d box-2d9p star-2d13p box-2d25p box-2d49p; do for sz in 1001x777 67x23 1100x13; do for bd in dirichlet periodic; do
    chk $E run -m cuda-core-tb-fp32 -b gpu -s $s --size $sz -t 7 --boundary $bd
  done; done; done
  for T in 1 2 3 4; do chk $E run -m cuda-core-tb-fp32 -b gpu -s heat-2d --size 530x19 -t 9 -T $T --boundary periodic; done
  for s in star-2d13p box-2d49p; do for sz in 1001x777 67x23 1100x13; do for bd in dirichlet periodic; do
    chk $E run -m cuda-core-tb -b gpu -s $s --size $sz -t 7 --boundary $bd
  done; done; done
  for s in heat-2d box-2d9p box-2d25p; do for T in 1 2; do chk $E run -m cuda-core-tb -b gpu -s $s --size 530x19 -t 5 -T $T --boundary periodic; done; done
  sani "tb-fp32 pairs star-2d13p periodic" $E run -m cuda-core-tb-fp32 -b gpu -s star-2d13p --size 1100x37 -t 3 --boundary periodic
  sani "tb-fp32 pairs box-2d25p" $E run -m cuda-core-tb-fp32 -b gpu -s box-2d25p --size 301x77 -t 3
  sani "tb pairs box-2d49p periodic" $E run -m cuda-core-tb -b gpu -s box-2d49p --size 301x77 -t 3 --boundary periodic
fi
if [ "$part" = pair-time ]; then
  ab SE_EXP_TBPAIR --seconds 0.5 --methods cuda-core-tb:gpu,cuda-core-tb-fp32:gpu --stencils star-2d13p,box-2d49p,box-2d25p
fi
if [ "$part" = tb1 ]; then
  for m in cuda-core-tb cuda-core-tb-fp32; do for s in box-2d225p star-2d13p heat-2d; do for bd in dirichlet periodic; do
    chk $E run -m $m -b gpu -s $s --size 1001x777 -t 5 -T 1 --boundary $bd
  done; done; chk $E run -m $m -b gpu -s box-2d225p --size 67x40 -t 5 --boundary periodic; done
  sani "tb box-2d225p T=1 periodic" $E run -m cuda-core-tb -b gpu -s box-2d225p --size 301x77 -t 3 -T 1 --boundary periodic
  ab SE_EXP_TB1STEP --seconds 1 --methods cuda-core-tb:gpu,cuda-core-tb-fp32:gpu --stencils box-2d225p
fi
if [ "$part" = star1 ]; then
  for m in cuda-core cuda-core-fp32; do for sz in 1001x777 67x9; do for bd in dirichlet periodic; do
    chk $E run -m $m -b gpu -s heat-2d --size $sz -t 6 --boundary $bd
  done; done; done
  chk $E run -m cuda-core-fp16 -b gpu -s heat-2d --size 1001x777 -t 6 --boundary periodic
  sani "heat-2d periodic" $E run -m cuda-core -b gpu -s heat-2d --size 517x131 -t 3 --boundary periodic
  ab SE_EXP_STAR2D1 --seconds 1 --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils heat-2d
fi
