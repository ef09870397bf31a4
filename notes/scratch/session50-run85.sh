#!/usr/bin/env bash
# Session 50: single-step box-3d27p (T = 1 cube-symmetric kernel) with the TMA tensor map's L2 promotion at none / 64 /
# 128 (committed) / 256 bytes (SE_EXP_PROMO 0..3), and the cp.async kernel instead of TMA (SE_EXP_T1CP=1), experiment
# binary = 62fc69a + notes/scratch/session50-box3d-promo-exp.patch. Checks, ncu DRAM bytes per variant at 512^3, then
# the variants alternated twice (`suite --seconds 1`, FP64 and FP32). Appends to $OUT/run85.log. Repository root.
source notes/scratch/gpu-env.sh run85 stencil-bench-exp
V="SE_EXP_PROMO=2 SE_EXP_PROMO=0 SE_EXP_PROMO=1 SE_EXP_PROMO=3 SE_EXP_T1CP=1"
for v in SE_EXP_PROMO=0 SE_EXP_T1CP=1; do for sz in 130x97x301 37x29x13; do
  chk env $v $E run -m cuda-core -b gpu -s box-3d27p --size $sz -t 4
done; done
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct
for v in $V; do
  echo "ncu $v:"; env $v timeout 60 $NCU --clock-control none --launch-skip 2 --launch-count 1 -k regex:tb_3d_sym --metrics $M \
    $E run -m cuda-core -b gpu -s box-3d27p --size 512x512x512 -t 4 2>&1 | grep -E "duration|bytes|sectors|rate" | tr -s ' '
done
for r in 1 2; do for v in $V; do
  echo "r$r $v:"; env $v $E suite --seconds 1 --no-sweep --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils box-3d27p 2>&1 | grep -E "^papers" | tr -s ' ' | cut -d' ' -f1-3,7-9
done; done
