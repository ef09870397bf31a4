#!/usr/bin/env bash
# Session 49 (prepared, not run): the single-step 2D kernel's star path at radius 2 and 3 (step_2d.cuh, kStar: the
# centre column meets every weight row, the other columns only the output's own row; star-2d13p 13 FMAs and 7.75
# shared loads per point instead of 49 and 12.25). The experiment binary (.devbin/gpu/stencil-bench-exp.gz, built with
# session49-half-pairs-exp.patch and session49-star2d-exp.patch) reads SE_EXP_STAR2D (0 = star weights on the dense
# loop, 1 = the star path, the default). Checks (star-2d13p and a radius-2 cross with unequal arms,
# notes/scratch/star-2d9p-r2.json), sanitizers, then 0 / 1 alternated twice; the last round's default run writes
# $OUT/session49-star2d-suite.json. About 4 minutes; appends to $OUT/run82.log as it goes. Run from the repository root.
set -u
exec > >(tee -a "$OUT/run82.log") 2>&1
mkdir -p /tmp/se-bin
gunzip -c .devbin/gpu/stencil-bench-exp.gz > /tmp/se-bin/sbe; cp .devbin/gpu/libfmt.so.9 /tmp/se-bin/; chmod +x /tmp/se-bin/sbe
export LD_LIBRARY_PATH=/tmp/se-bin
E=/tmp/se-bin/sbe
R2=notes/scratch/star-2d9p-r2.json
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
chk() { echo "check $* :: $("$@" 2>&1 | grep -iE 'rel|error' | head -1 | sed -E 's/.*(max abs)/\1/')"; }
for m in cuda-core cuda-core-fp32; do for s in star-2d13p $R2; do for sz in 1001x777 130x97 67x9; do for bd in dirichlet periodic; do
  chk $E run -m $m -b gpu -s $s --size $sz -t 6 --boundary $bd
done; done; done; done
chk $E run -m cuda-core-fp16 -b gpu -s star-2d13p --size 1001x777 -t 6 --boundary periodic
for tool in memcheck racecheck; do
  echo "$tool cuda-core star-2d13p $(timeout 60 $SAN --tool $tool $E run -m cuda-core -b gpu -s star-2d13p --size 517x131 -t 3 2>&1 | grep SUMMARY)"
  echo "$tool cuda-core-fp32 r2 periodic $(timeout 60 $SAN --tool $tool $E run -m cuda-core-fp32 -b gpu -s $R2 --size 517x131 -t 3 --boundary periodic 2>&1 | grep SUMMARY)"
done
for r in 1 2; do for v in 0 1; do
  j=""; [ $r = 2 ] && [ $v = 1 ] && j="--json $OUT/session49-star2d-suite.json"
  echo "r$r star2d $v:"; SE_EXP_STAR2D=$v $E suite --seconds 1 --no-sweep --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils star-2d13p $j 2>&1 | grep -E "^papers|stopped|copy" | tr -s ' ' | cut -d' ' -f1-3,7-9,12-
done; done
