#!/usr/bin/env bash
# Prepared in session 48 (not run): cuda-core-fp16 in 2D, radius 1, Dirichlet, with two columns per thread (half2
# shared loads and stores; SE_EXP_HALF2D = 1: all 9 weights, 2: the star form when the corners are zero) against the
# committed kernel (0; heat-2d 479 GStencil/s, 46% of the FP16 copy roof). Never run on a GPU: checks and sanitizers
# first. Run from the repository root.
. notes/scratch/session48-exp-bin.sh
for v in 1 2; do for s in heat-2d box-2d9p; do for sz in 1001x777 130x97 4098x33 257x2; do
  chk env SE_EXP_HALF2D=$v $E run -m cuda-core-fp16 -b gpu -s $s --size $sz -t 6
done; done; done
chk env SE_EXP_HALF2D=0 $E run -m cuda-core-fp16 -b gpu -s heat-2d --size 1001x777 -t 6
for tool in memcheck racecheck; do for v in 1 2; do
  echo "$tool $v $(SE_EXP_HALF2D=$v timeout 100 $SAN --tool $tool $E run -m cuda-core-fp16 -b gpu -s heat-2d --size 517x131 -t 3 2>&1 | grep SUMMARY)"
done; done
for r in 1 2; do
  for v in 0 1 2; do echo "r$r heat-2d half2d $v: $(SE_EXP_HALF2D=$v $E $S --methods cuda-core-fp16:gpu --stencils heat-2d 2>&1 | grep -E 'heat-2d|stopped' | tr -s ' ' | cut -d' ' -f2-3,7-9,12-)"; done
  for v in 0 1; do echo "r$r box-2d9p half2d $v: $(SE_EXP_HALF2D=$v $E $S --methods cuda-core-fp16:gpu --stencils box-2d9p 2>&1 | grep -E 'box-2d9p|stopped' | tr -s ' ' | cut -d' ' -f2-3,7-9,12-)"; done
done
