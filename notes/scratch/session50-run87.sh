#!/usr/bin/env bash
# Session 50 (prepared, not run). Two experiments in one binary (HEAD + notes/scratch/session50-star2d-r1-exp.patch +
# notes/scratch/session50-tb1step-exp.patch, both `git apply`; built in session 50 as .devbin/gpu/stencil-bench-exp.gz):
# (A) cuda-core-tb's depth-1 plans running their 2D passes on step_2d.cuh's kernels (SE_EXP_TB1STEP = 0 keeps the
# tb pipeline kernel, 1 = step_2d, the default): at T = 1 the pipeline kernel ran 0.64-0.84x the single-step kernel
# (notes/cuda-core-tb.md, session 50), and box-2d225p's model depth is 1 in both precisions.
# (B) The single-step 2D star path at radius 1 (heat-2d; cuda-core 220 GStencil/s = 84%
# of the copy roof, cuda-core-fp32 411 = 78%, and FP16's periodic runs). Experiment binary: HEAD +
# notes/scratch/session50-star2d-r1-exp.patch (`git apply`; SE_EXP_STAR2D1 = 0 keeps the dense loop at radius 1,
# 1 = the star path, the default; ptxas sm_90: FP64 59 registers against 64 dense, FP32 62 against 56, no spill),
# stripped and gzipped to .devbin/gpu/stencil-bench-exp.gz with libfmt.so.9 beside it. Checks (both boundaries, odd
# sizes), memcheck and racecheck, then 0 / 1 alternated twice (`suite --seconds 1`, about 20 s a run: about 3 minutes
# in all; (A) adds about 2 minutes). Appends to $OUT/run87.log. Run from the repository root.
set -u
exec > >(tee -a "$OUT/run87.log") 2>&1
mkdir -p /tmp/se-bin
gunzip -c .devbin/gpu/stencil-bench-exp.gz > /tmp/se-bin/sbe; cp .devbin/gpu/libfmt.so.9 /tmp/se-bin/; chmod +x /tmp/se-bin/sbe
export LD_LIBRARY_PATH=/tmp/se-bin
E=/tmp/se-bin/sbe
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
chk() { echo "check $* :: $("$@" 2>&1 | grep -iE 'rel|error' | head -1 | sed -E 's/.*(max abs)/\1/')"; }
for m in cuda-core cuda-core-fp32; do for sz in 1001x777 67x9; do for bd in dirichlet periodic; do
  chk $E run -m $m -b gpu -s heat-2d --size $sz -t 6 --boundary $bd
done; done; done
chk $E run -m cuda-core-fp16 -b gpu -s heat-2d --size 1001x777 -t 6 --boundary periodic
for m in cuda-core-tb cuda-core-tb-fp32; do for s in box-2d225p star-2d13p heat-2d; do for bd in dirichlet periodic; do
  chk $E run -m $m -b gpu -s $s --size 1001x777 -t 5 -T 1 --boundary $bd
done; done; chk $E run -m $m -b gpu -s box-2d225p --size 67x40 -t 5 --boundary periodic; done
for tool in memcheck racecheck; do
  echo "$tool tb box-2d225p T=1 periodic $(timeout 60 $SAN --tool $tool $E run -m cuda-core-tb -b gpu -s box-2d225p --size 301x77 -t 3 -T 1 --boundary periodic 2>&1 | grep SUMMARY)"
  echo "$tool heat-2d periodic $(timeout 60 $SAN --tool $tool $E run -m cuda-core -b gpu -s heat-2d --size 517x131 -t 3 --boundary periodic 2>&1 | grep SUMMARY)"
done
for r in 1 2; do for v in 0 1; do
  echo "r$r tb1step $v:"; SE_EXP_TB1STEP=$v $E suite --seconds 1 --no-sweep --methods cuda-core-tb:gpu,cuda-core-tb-fp32:gpu --stencils box-2d225p 2>&1 | grep -E "^papers" | tr -s ' ' | cut -d' ' -f1-3,7-9
done; done
for r in 1 2; do for v in 0 1; do
  echo "r$r star2d1 $v:"; SE_EXP_STAR2D1=$v $E suite --seconds 1 --no-sweep --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils heat-2d 2>&1 | grep -E "^papers" | tr -s ' ' | cut -d' ' -f1-3,7-9
done; done
