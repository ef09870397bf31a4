#!/usr/bin/env bash
# Session 54, issue 21: does the suite's 1 s timing catch the power controller's transient? run103 sampled the
# clock dipping to 930-1410 MHz inside each ~0.4-0.9 s timed LoRAStencil run. Here heat-2d and box-2d9p at
# --seconds 1, 4 and 10 (timed runs of about 0.4, 1.7 and 4 s), nvidia-smi every 100 ms. About 2 min.
source notes/scratch/gpu-env.sh run104 stencil-bench
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > "$OUT/run104-smi.csv" &
SMI=$!
for s in heat-2d box-2d9p; do for sec in 1 4 10; do
  echo "start $s $sec $(date -u +"%Y/%m/%d %H:%M:%S.%N")"
  $B suite --seconds $sec --no-sweep --methods lorastencil:gpu --stencils $s --json "$OUT/run104-$s-$sec.json" 2>&1 | grep -E '^papers' | tr -s ' ' | cut -d' ' -f2,3,8,11
  echo "end $s $sec $(date -u +"%Y/%m/%d %H:%M:%S.%N")"
done; done
kill $SMI
