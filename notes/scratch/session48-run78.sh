#!/usr/bin/env bash
# Prepared in session 48 (not run): cuda-core-fp16 box-3d27p on the cube-symmetric T = 1 kernel (tb_3d_sym.cuh for
# __half storage, float arithmetic; SE_EXP_HALF_SYM=1) against the general two-row kernel (274 GStencil/s, 26% of the
# copy roof). Never run on a GPU: checks and sanitizers first. Run from the repository root.
. notes/scratch/session48-exp-bin.sh
for bd in dirichlet periodic; do for sz in 130x97x301 37x29x13 38x30x13; do
  chk env SE_EXP_HALF_SYM=1 $E run -m cuda-core-fp16 -b gpu -s box-3d27p --size $sz -t 4 --boundary $bd
  chk env SE_EXP_HALF_SYM=0 $E run -m cuda-core-fp16 -b gpu -s box-3d27p --size $sz -t 4 --boundary $bd
done; done
for tool in memcheck racecheck; do for bd in dirichlet periodic; do
  echo "$tool $bd $(SE_EXP_HALF_SYM=1 timeout 100 $SAN --tool $tool $E run -m cuda-core-fp16 -b gpu -s box-3d27p --size 70x40x19 -t 3 --boundary $bd 2>&1 | grep SUMMARY)"
done; done
for r in 1 2; do for v in 0 1; do
  echo "r$r half-sym $v: $(SE_EXP_HALF_SYM=$v $E $S --methods cuda-core-fp16:gpu --stencils box-3d27p 2>&1 | grep -E '3d27p|stopped' | tr -s ' ' | cut -d' ' -f2-3,7-9,12-)"
done; done
