#!/usr/bin/env bash
# Prepared in session 48 (not run): single-step cuda-core box-3d27p (the T = 1 TMA kernel with evict_last reads),
# planes per block (SE_EXP_T1_PLANES), then ncu DRAM and L2 counters. Run from the repository root.
. notes/scratch/session48-exp-bin.sh
# Planes per block (32 committed in FP64), alternated twice.
for r in 1 2; do for v in 32 48 64 96; do
  echo "r$r cuda-core t1 planes $v: $(SE_EXP_T1_PLANES=$v $E $S --methods cuda-core:gpu --stencils box-3d27p 2>&1 | grep -E '3d27p|stopped' | tr -s ' ' | cut -d' ' -f2-3,7-9,12-)"
done; done
for v in 48 96; do chk env SE_EXP_T1_PLANES=$v $E run -m cuda-core -b gpu -s box-3d27p --size 130x97x301 -t 3; done
# ncu: the T = 1 box kernel's DRAM reads and L2 hit rate with the evict_last reads (session 45 counted 1.33 GB of
# DRAM reads for 1.07 GB of input before them)
for v in 32 64; do
  echo "ncu planes $v:"; SE_EXP_T1_PLANES=$v timeout 150 $NCU --clock-control none --launch-skip 2 --launch-count 1 -k regex:tb_3d_sym \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $E run -m cuda-core -b gpu -s box-3d27p --size 512x512x512 -t 4 2>&1 | grep -E "duration|bytes|rate|pct" | tr -s ' '
done
