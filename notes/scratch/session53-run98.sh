#!/usr/bin/env bash
# Session 53: the single-step box-3d27p interior-box kernel with 128 threads along x (one block of 128 x 4 per SM,
# 128 x 32 cross-section): the x halo's sectors (2 per 512-byte row at 64 columns, 12.5% of the box reads, which
# run97's ncu found missing L2 like the rest) halve. Binaries: sb128r4 (kTX 128, ring 4), sb128r6 (ring 6), both with
# SE_EXP_PLANES. Baseline (64 columns, 2 blocks per SM, 32 planes) earlier today: FP64 219.46 / 219.77 / 219.67 /
# 219.85, FP32 (8 planes) 473.28 / 473.97. Repository root: bash notes/scratch/session53-run98.sh
source notes/scratch/gpu-env.sh run98 sb128r4 sb128r6
for b in sb128r4 sb128r6; do X=/tmp/se-bin/$b
  for m in cuda-core cuda-core-fp32; do for sz in 130x97x61 300x33x41 37x29x13; do for bd in dirichlet periodic; do
    chk $X run -m $m -b gpu -s box-3d27p --size $sz -t 3 --boundary $bd
  done; done; done
done
echo "memcheck r6 $($SAN --tool memcheck /tmp/se-bin/sb128r6 run -m cuda-core -b gpu -s box-3d27p --size 260x40x20 -t 3 2>&1 | grep SUMMARY)"
echo "racecheck r6 $($SAN --tool racecheck /tmp/se-bin/sb128r6 run -m cuda-core -b gpu -s box-3d27p --size 260x40x20 -t 3 2>&1 | grep SUMMARY)"
M=dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum
echo "ncu r4 PLANES=32:"; SE_EXP_PLANES=32 timeout 120 $NCU --clock-control none --launch-skip 1 --launch-count 1 -k regex:tb_3d_sym \
    --metrics $M /tmp/se-bin/sb128r4 run -m cuda-core -b gpu -s box-3d27p --size 512x512x512 -t 3 2>&1 | grep -E "dram__|lts__|gpu__time" | tr -s ' '
for r in 1 2; do for b in sb128r4 sb128r6; do
  for p in 32 64; do echo "r$r $b FP64 PLANES=$p: $(SE_EXP_PLANES=$p /tmp/se-bin/$b suite --seconds 1 --no-sweep --methods cuda-core:gpu --stencils box-3d27p 2>&1 | grep -E '^papers' | tr -s ' ' | cut -d' ' -f2,3,8,11)"; done
  for p in 8 16; do echo "r$r $b FP32 PLANES=$p: $(SE_EXP_PLANES=$p /tmp/se-bin/$b suite --seconds 1 --no-sweep --methods cuda-core-fp32:gpu --stencils box-3d27p 2>&1 | grep -E '^papers' | tr -s ' ' | cut -d' ' -f2,3,8,11)"; done
done; done
