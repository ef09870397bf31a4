#!/usr/bin/env bash
# Session 51. (sweep) cuda-core-tb and cuda-core-tb-fp32 on the 2D presets of radius 1..3 at T = 1..4 and the model's
# depth, with the two-column kernel (tb_2d_pair.cu) wherever it holds the depth (the exp binary of session 50 with
# its switches at their defaults: pairs on, depth-1 passes on step_2d, radius-1 star path), so that the plan's depth
# rule can weigh the pair kernel's depths against the one-column kernel's deeper ones. (ncu) what single-step
# box-3d27p waits on beside heat-3d: the stall reasons per issued instruction (session 50's run88 profiled a fill
# kernel: it had no -k filter). Appends to $OUT/run89.log. Repository root: `bash notes/scratch/session51-run89.sh sweep`.
part=${1:-sweep}
source notes/scratch/gpu-env.sh run89 stencil-bench-exp stencil-bench
S=heat-2d,box-2d9p,star-2d13p,box-2d25p,box-2d49p
M=cuda-core-tb:gpu,cuda-core-tb-fp32:gpu
if [ "$part" = sweep ]; then
  for T in 0 1 2 3 4; do
    F=""; [ $T != 0 ] && F="--fused-steps $T"
    echo "T=$T:"; $E suite --seconds 0.5 --no-sweep $F --methods $M --stencils $S --json $OUT/session51-pair-T$T.json 2>&1 | grep -E "^papers|^skipped|copy" | tr -s ' ' | cut -c1-160
  done
fi
if [ "$part" = ncu ]; then
  for s in box-3d27p:tb_3d_sym heat-3d:star_r1; do
    echo "ncu ${s%%:*}:"
    timeout 150 $NCU --clock-control none --launch-skip 1 --launch-count 1 -k regex:${s##*:} --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats \
      --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
      $B run -m cuda-core -b gpu -s ${s%%:*} --size 512x512x512 -t 4 2>&1 | grep -vE "^==PROF==|^\s*$|----|ETA" | tr -s ' ' | cut -c1-150
  done
fi
