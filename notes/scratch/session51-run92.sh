#!/usr/bin/env bash
# Session 51 (prepared, not run): single-step box-3d27p (tb_3d_sym.cuh at T = 1, TMA) reading each ring plane as the
# box of the 64 interior columns alone (whole 128-byte lines) with the two halo columns from 8- or 4-byte cp.async
# copies (kInner; experiment patch notes/scratch/session51-box3d-inner-exp.patch on fa7f580, with
# session51-tbpair-off-exp.patch left at its default, built as
# .devbin/gpu/stencil-bench-exp.gz). SE_EXP_INNER = 0 the committed 68-column box, 1 (the default) the interior box at
# 3 blocks per SM (ptxas sm_90 FP64: 80 registers, 20 bytes spilled), 2 the same held to 2 blocks per SM (123
# registers, no spill). Session 50's ncu put the box reads reaching L2 at 1.50x the input and found the kernel bound
# by L2 requests (L2 90% of peak); a row of the 68-column box spans 6 lines for 4 of payload, the interior box 4 lines
# plus 2 sectors. Never run: first the checks (both boundaries, odd sizes, FP64 and FP32, each variant), memcheck and
# racecheck, then ncu's L2 sectors and DRAM bytes per variant, then the suite alternated twice. Appends to
# $OUT/run92.log. Repository root: `bash notes/scratch/session51-run92.sh` (about 5 minutes; timeout_s 600).
source notes/scratch/gpu-env.sh run92 stencil-bench-exp
for v in 1 2; do for m in cuda-core cuda-core-fp32; do for sz in 130x97x61 67x33x19 512x64x40; do for bd in dirichlet periodic; do
  export SE_EXP_INNER=$v; echo "INNER=$v $(chk $E run -m $m -b gpu -s box-3d27p --size $sz -t 5 --boundary $bd)"
done; done; done; done
for v in 1 2; do for tool in memcheck racecheck; do
  echo "$tool INNER=$v $(SE_EXP_INNER=$v timeout 90 $SAN --tool $tool $E run -m cuda-core -b gpu -s box-3d27p --size 130x67x21 -t 3 2>&1 | grep SUMMARY)"
  echo "$tool INNER=$v periodic $(SE_EXP_INNER=$v timeout 90 $SAN --tool $tool $E run -m cuda-core-fp32 -b gpu -s box-3d27p --size 67x33x19 -t 3 --boundary periodic 2>&1 | grep SUMMARY)"
done; done
M=dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,gpu__time_duration.sum
for v in 0 1 2; do
  echo "ncu INNER=$v:"; SE_EXP_INNER=$v timeout 120 $NCU --clock-control none --launch-skip 1 --launch-count 1 -k regex:tb_3d_sym \
    --metrics $M $E run -m cuda-core -b gpu -s box-3d27p --size 512x512x512 -t 3 2>&1 | grep -E "dram__|lts__|gpu__time" | tr -s ' '
done
for r in 1 2; do for v in 0 1 2; do
  echo "r$r INNER=$v:"; SE_EXP_INNER=$v $E suite --seconds 1 --no-sweep --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils box-3d27p 2>&1 | grep -E "^papers|copy" | tr -s ' ' | cut -c1-140
done; done
