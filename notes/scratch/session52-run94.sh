#!/usr/bin/env bash
# Session 52: first GPU run of HEAD's host-side launch path (91f6d07: tb2d::launch_strips with the kernel as a
# template argument, dispatch_depth<kMax>, tb::single_step_2d; its PTX is identical to fa7f580's, the launch code
# had never run on a GPU). test_gpu's [tb] cases and the every-method FP64 reference case, the tb checks at awkward
# sizes, a racecheck, and the 2D tb suite rows beside session 51's recorded rates (FP64 star-2d13p 321.6, box-2d49p
# 204.0; FP32 star-2d13p 467.3, box-2d25p 493.7, box-2d49p 300.0). Binaries built from HEAD (c772753).
# Appends to $OUT/run94.log. Repository root: `bash notes/scratch/session52-run94.sh` (about 4 minutes).
source notes/scratch/gpu-env.sh run94 stencil-bench test_gpu
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
$TG "[tb]" 2>&1 | tail -3
$TG "every registered GPU method matches the FP64 reference on awkward grids and both boundaries" 2>&1 | tail -3
for m in cuda-core-tb cuda-core-tb-fp32; do for ss in heat-2d:1001x777 box-2d9p:1001x777 box-2d49p:1001x777 heat-1d:100003 box-3d27p:130x97x61; do
  for bd in dirichlet periodic; do chk $B run -m $m -b gpu -s ${ss%%:*} --size ${ss##*:} -t 7 --boundary $bd; done; done; done
echo "racecheck $(timeout 60 $SAN --tool racecheck $B run -m cuda-core-tb-fp32 -b gpu -s star-2d13p --size 301x77 -t 5 2>&1 | grep SUMMARY)"
echo "memcheck $(timeout 60 $SAN --tool memcheck $B run -m cuda-core-tb -b gpu -s box-2d25p --size 301x77 -t 5 --boundary periodic 2>&1 | grep SUMMARY)"
$B suite --seconds 1 --no-sweep --methods cuda-core-tb:gpu,cuda-core-tb-fp32:gpu,cuda-core:gpu --stencils heat-2d,star-2d13p,box-2d25p,box-2d49p \
  --json $OUT/session52-head-2d.json 2>&1 | grep -E "^papers|copy" | tr -s ' ' | cut -c1-140
