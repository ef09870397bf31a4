#!/usr/bin/env bash
# Prepared in session 48 (not run): cuda-core-tb's cube-symmetric kernel at T >= 2 with the thread's own rows'
# centres kept in registers between stages (SE_EXP_TB_OWN = 1: same 2-blocks-per-SM bound; 2: bound lifted to 1
# block) against the committed kernel (0), then ncu counters of 0 and 1. Run from the repository root.
. notes/scratch/session48-exp-bin.sh
for v in 1 2; do for m in cuda-core-tb cuda-core-tb-fp32; do for bd in dirichlet periodic; do for sz in 130x97x301 37x29x13; do
  chk env SE_EXP_TB_OWN=$v $E run -m $m -b gpu -s box-3d27p --size $sz -t 6 --boundary $bd
done; done; done; done
chk env SE_EXP_TB_OWN=1 $E run -m cuda-core-tb -b gpu -s heat-3d --size 130x97x301 -t 6
for tool in memcheck racecheck; do for m in cuda-core-tb cuda-core-tb-fp32; do
  echo "$tool $m $(SE_EXP_TB_OWN=1 timeout 100 $SAN --tool $tool $E run -m $m -b gpu -s box-3d27p --size 70x40x19 -t 4 2>&1 | grep SUMMARY)"
done; done
for r in 1 2; do for m in cuda-core-tb cuda-core-tb-fp32; do for v in 0 1 2; do
  echo "r$r $m own $v: $(SE_EXP_TB_OWN=$v $E $S --methods $m:gpu --stencils box-3d27p 2>&1 | grep -E '3d27p|stopped' | tr -s ' ' | cut -d' ' -f2-3,7-9,12-)"
done; done; done
# ncu: is the T = 2 kernel held by shared memory? (wavefronts and L1 throughput, committed vs own = 1)
for v in 0 1; do
  echo "ncu own $v:"; SE_EXP_TB_OWN=$v timeout 150 $NCU --clock-control none --launch-skip 2 --launch-count 1 -k regex:tb_3d_sym \
    --metrics gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active \
    $E run -m cuda-core-tb -b gpu -s box-3d27p --size 512x512x512 -t 8 2>&1 | grep -E "duration|wavefronts|throughput|pct" | tr -s ' '
done
