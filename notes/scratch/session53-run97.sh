#!/usr/bin/env bash
# Session 53: where the single-step box-3d27p FP64 kernel's extra DRAM reads come from (1.16x the input at 32 planes,
# 1.13x at 64: session 52-53's ncu). If the x / y halo of neighbouring tiles hit in L2, one block per tile column
# streaming all 512 planes (128 blocks, one wave, in phase) reads ~1.004x; if it still reads ~1.10x, the x / y halo
# misses L2 even between blocks in lockstep, and a persistent (stream-K) split of the planes cannot pay.
# Binary: .devbin/gpu/stencil-bench-exp.gz (SE_EXP_PLANES, session 52's patch). Repository root: bash notes/scratch/session53-run97.sh
source notes/scratch/gpu-env.sh run97 stencil-bench-exp
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
for p in 32 256 512; do
  echo "ncu PLANES=$p:"; SE_EXP_PLANES=$p timeout 120 $NCU --clock-control none --launch-skip 1 --launch-count 1 -k regex:tb_3d_sym \
    --metrics $M $E run -m cuda-core -b gpu -s box-3d27p --size 512x512x512 -t 3 2>&1 | grep -E "dram__|lts__|gpu__time" | tr -s ' '
done
for p in 32 256 512 32; do echo "FP64 PLANES=$p: $(SE_EXP_PLANES=$p $E suite --seconds 1 --no-sweep --methods cuda-core:gpu --stencils box-3d27p 2>&1 | grep -E '^papers' | tr -s ' ' | cut -d' ' -f2,3,8,11)"; done
