#!/usr/bin/env bash
# Session 51: the committed form of session 50's three experiments (two-column tb 2D kernel with the model's new 2D
# depth rule, FP32 depth-1 tb passes on step_2d, the single-step star path at radius 1), .devbin/gpu/stencil-bench.gz
# and test_gpu.gz built from it. (check) the plans' depths and kernels, FP64-reference checks on both boundaries at odd
# sizes, test_gpu's [tb] cases, memcheck and racecheck of the depth new to the two-column kernel (FP32 box-2d49p T = 3);
# (record) the rows that changed, `suite --seconds 1`. Appends to $OUT/run90.log. Repository root: `bash notes/scratch/session51-run90.sh check`, then `record`, then `tg [SECONDS]`.
part=${1:-check}
source notes/scratch/gpu-env.sh run90 stencil-bench test_gpu
if [ "$part" = check ]; then
  for m in cuda-core-tb cuda-core-tb-fp32; do
    $B plan -m $m -s box-2d49p 2>&1 | grep -i "steps per launch" | head -1
    for s in heat-2d star-2d13p box-2d25p box-2d49p box-2d225p; do for bd in dirichlet periodic; do
      chk $B run -m $m -b gpu -s $s --size 1001x777 -t 7 --boundary $bd
    done; done
  done
  for m in cuda-core cuda-core-fp32; do chk $B run -m $m -b gpu -s heat-2d --size 1001x777 -t 6 --boundary periodic; done
  for tool in memcheck racecheck; do
    echo "$tool tb-fp32 box-2d49p T=3 periodic $(timeout 90 $SAN --tool $tool $B run -m cuda-core-tb-fp32 -b gpu -s box-2d49p --size 1100x77 -t 4 --boundary periodic 2>&1 | grep SUMMARY)"
  done
fi
if [ "$part" = tg ]; then timeout ${2:-300} $TG "[tb]" 2>&1 | tail -4; fi
if [ "$part" = record ]; then
  $B suite --seconds 1 --no-sweep --methods cuda-core-tb:gpu,cuda-core-tb-fp32:gpu --stencils star-2d13p,box-2d49p --json $OUT/session51-tb-pair-suite.json 2>&1 | grep -E "^papers|copy" | tr -s ' ' | cut -c1-160
  $B suite --seconds 1 --no-sweep --methods cuda-core-tb-fp32:gpu --stencils box-2d25p,box-2d225p --json $OUT/session51-tb-fp32-suite.json 2>&1 | grep -E "^papers|copy" | tr -s ' ' | cut -c1-160
  $B suite --seconds 1 --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils heat-2d --json $OUT/session51-star-r1-suite.json 2>&1 | grep -E "^papers|^sweep|copy" | tr -s ' ' | cut -c1-160
fi
