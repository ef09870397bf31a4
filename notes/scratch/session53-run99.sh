#!/usr/bin/env bash
# Session 53: the committed single-step 3D FP64 interior-box block of 128 x 32 (tb_3d_sym.cuh block_cols /
# ring_planes, 64 planes; FP32 and FP16 PTX unchanged). test_gpu's [tb] and every-method cases, checks of narrow
# and odd grids on both boundaries, memcheck / racecheck, then the recorded suite rows (heat-3d, box-3d27p; FP64 and
# FP32 single-step) to $OUT/session53-sym3d-suite.json. Binaries: .devbin/gpu/stencil-bench.gz, test_gpu.gz (BUILT_FROM).
source notes/scratch/gpu-env.sh run99 stencil-bench test_gpu
$TG "[tb]" 2>&1 | tail -2
$TG "every registered GPU method matches the FP64 reference on awkward grids and both boundaries" 2>&1 | tail -2
for s in box-3d27p heat-3d; do for sz in 130x97x61 129x33x41 37x29x13 20x9x7 200x3x3; do for bd in dirichlet periodic; do
  chk $B run -m cuda-core -b gpu -s $s --size $sz -t 3 --boundary $bd
done; done; done
for bd in dirichlet periodic; do
  echo "memcheck $bd $($SAN --tool memcheck $B run -m cuda-core -b gpu -s box-3d27p --size 260x40x20 -t 3 --boundary $bd 2>&1 | grep SUMMARY)"
  echo "racecheck $bd $($SAN --tool racecheck $B run -m cuda-core -b gpu -s box-3d27p --size 131x35x9 -t 2 --boundary $bd 2>&1 | grep SUMMARY)"
done
$B suite --seconds 1 --no-sweep --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils heat-3d,box-3d27p --json "$OUT/session53-sym3d-suite.json" 2>&1 | grep -E '^(papers|gpu|copy)' | tr -s ' ' | cut -d' ' -f1-3,8,11
