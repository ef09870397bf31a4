#!/usr/bin/env bash
# Session 52 (prepared, not run): planes per block of the single-step box-3d27p kernel since it reads the interior
# box at 2 blocks per SM (tb_3d_sym.cuh kInner, df71cc6: FP64 222.3 GStencil/s, 84% of the copy roof; issue 14 asks
# 85%, 225). Session 52's ncu of that kernel (FP64, one launch at 512^3): DRAM reads 1.23 GB for 1.07 GB of input
# (1.15x) and 1.07 GB written, 2.30 GB in 598 us = 3.85 TB/s, 91% of the copy rate: the re-read halo (rows 34 / 32,
# planes 34 / 32 per block) is what stands between 84% and 91%. Session 49 chose 32 planes (FP64) with the
# 68-column box at 3 blocks per SM (32 / 48 / 64 / 96: 212.2 / 207.8 / 204.9 / 204.6); FP32 keeps 8. Experiment
# patch notes/scratch/session52-planes-exp.patch on df71cc6 (SE_EXP_PLANES = N planes at T = 1, 0 = tb::wave_planes),
# built with notes/scratch/session52-depth12-exp.patch (kMaxSteps2D 8 -> 12: FP32 radius-1 tb 2D may fuse up to 12
# steps, the only plans it changes; the model then picks 12; ptxas sm_90 tb_2d_kernel<float, 1>: box T = 9..12
# 110-114 registers, star T = 9..11 120-128, no spill, star T = 12 128 and 4 bytes spilled) as
# .devbin/gpu/stencil-bench-exp.gz, beside test_gpu.gz of d8fa201. Part 3d: test_gpu's [tb] and every-method cases
# and checks of narrow grids first, then checks of the plane settings at odd nz, then ncu DRAM bytes at 32 / 64, then the suite alternated twice. Part 2d: session 52's depth table
# had FP32 heat-2d / box-2d9p still rising from T = 7 to 8 (874.7 -> 934.7, 784.7 -> 827.4); checks at T = 12 on odd
# sizes and both boundaries, racecheck, then `suite --fused-steps T` for T = 8..12, and 8 / 10 / 12 again. Appends to $OUT/run96.log.
# Part 2d-r23 (~2 min): FP32 radius 2-3 on the one-column kernel at T = 5, 6, 8 (within its capacity 8 / 5), which
# session 52's table lacks (the rule takes the two-column kernel at 3 there: box-2d25p 492.3, star-2d13p 467.2,
# box-2d49p 299.4). Repository root: `bash notes/scratch/session52-run96.sh 3d`, then `... 2d`, `... 2d-r23`.
part=${1:-3d}
source notes/scratch/gpu-env.sh run96 stencil-bench-exp test_gpu
if [ "$part" = 3d ]; then # first, the committed kernels (test_gpu of d8fa201; the exp binary without SE_EXP_PLANES is
  # the committed single-step 3D code): the every-method case and [tb] on awkward grids, and grids narrower than the
  # interior box's 64 columns, which session 52's checks did not take
  $TG "[tb]" 2>&1 | tail -2
  $TG "every registered GPU method matches the FP64 reference on awkward grids and both boundaries" 2>&1 | tail -2
  for m in cuda-core cuda-core-fp32; do for sz in 37x29x13 20x9x7 65x3x3 1x1x1; do for bd in dirichlet periodic; do
    chk $E run -m $m -b gpu -s box-3d27p --size $sz -t 3 --boundary $bd
  done; done; done
  echo "memcheck narrow $($SAN --tool memcheck $E run -m cuda-core -b gpu -s box-3d27p --size 20x9x7 -t 3 2>&1 | grep SUMMARY)"
fi
if [ "$part" = 2d-r23 ]; then # the one-column kernel above the two-column kernel's depths (the rule's pair picks)
  for T in 5 6 8; do echo "r1 T=$T: $($E suite --seconds 0.5 --no-sweep --fused-steps $T --methods cuda-core-tb-fp32:gpu --stencils box-2d25p,star-2d13p,box-2d49p 2>&1 | grep -E '^(papers|skipped)' | tr -s ' ' | cut -c1-90 | tr '\n' ';')"; done
  exit 0
fi
if [ "$part" = 2d ]; then
  for s in heat-2d box-2d9p; do for sz in 1001x777 67x23 1100x13; do for bd in dirichlet periodic; do
    chk $E run -m cuda-core-tb-fp32 -b gpu -s $s --size $sz -t 25 --boundary $bd
  done; done; done
  echo "racecheck $(timeout 60 $SAN --tool racecheck $E run -m cuda-core-tb-fp32 -b gpu -s box-2d9p --size 301x77 -t 12 --boundary periodic 2>&1 | grep SUMMARY)"
  echo "memcheck $(timeout 60 $SAN --tool memcheck $E run -m cuda-core-tb-fp32 -b gpu -s heat-2d --size 301x77 -t 12 2>&1 | grep SUMMARY)"
  # T = 8, the committed FP32 radius-1 depth since session 52 (the same kernel as the committed build at that depth)
  echo "racecheck T=8 $(timeout 60 $SAN --tool racecheck $E run -m cuda-core-tb-fp32 -b gpu -s heat-2d --size 301x77 -t 16 -T 8 --boundary periodic 2>&1 | grep SUMMARY)"
  echo "memcheck T=8 $(timeout 60 $SAN --tool memcheck $E run -m cuda-core-tb-fp32 -b gpu -s box-2d9p --size 301x77 -t 16 -T 8 2>&1 | grep SUMMARY)"
  echo "memcheck FP64 box-2d25p T=4 $(timeout 60 $SAN --tool memcheck $E run -m cuda-core-tb -b gpu -s box-2d25p --size 301x77 -t 8 --boundary periodic 2>&1 | grep SUMMARY)"
  for rt in 1:8 1:9 1:10 1:11 1:12 2:8 2:10 2:12; do r=${rt%%:*}; T=${rt##*:}
    echo "r$r T=$T: $($E suite --seconds 0.5 --no-sweep --fused-steps $T --methods cuda-core-tb-fp32:gpu --stencils heat-2d,box-2d9p 2>&1 | grep -E '^papers' | tr -s ' ' | cut -d' ' -f2,3,8 | tr '\n' ';')"
  done
  exit 0
fi
for p in 16 64 0; do for m in cuda-core cuda-core-fp32; do for sz in 130x97x61 67x33x301; do
  SE_EXP_PLANES=$p chk $E run -m $m -b gpu -s box-3d27p --size $sz -t 3 --boundary dirichlet
done; done; done
M=dram__bytes_read.sum,lts__t_sectors_op_read.sum,gpu__time_duration.sum
for p in 32 64; do
  echo "ncu PLANES=$p:"; SE_EXP_PLANES=$p timeout 120 $NCU --clock-control none --launch-skip 1 --launch-count 1 -k regex:tb_3d_sym \
    --metrics $M $E run -m cuda-core -b gpu -s box-3d27p --size 512x512x512 -t 3 2>&1 | grep -E "dram__|lts__|gpu__time" | tr -s ' '
done
for r in 1 2; do
  for p in 32 48 64 128 0; do echo "r$r FP64 PLANES=$p: $(SE_EXP_PLANES=$p $E suite --seconds 1 --no-sweep --methods cuda-core:gpu --stencils box-3d27p 2>&1 | grep -E '^papers' | tr -s ' ' | cut -d' ' -f2,3,8,11)"; done
  for p in 8 16 32; do echo "r$r FP32 PLANES=$p: $(SE_EXP_PLANES=$p $E suite --seconds 1 --no-sweep --methods cuda-core-fp32:gpu --stencils box-3d27p 2>&1 | grep -E '^papers' | tr -s ' ' | cut -d' ' -f2,3,8,11)"; done
done
