#!/usr/bin/env bash
# Session 54, issue 21: the LoRAStencil 2D rows again with nvidia-smi sampling every 100 ms, so that the clock and
# power under each pass are from the same day as the shapes' sustained rates (notes/lorastencil-gpu.md). Binary:
# .devbin/gpu/stencil-bench.gz (7b51e54). About 90 s. Repository root: bash notes/scratch/session54-run103.sh
source notes/scratch/gpu-env.sh run103 stencil-bench
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > "$OUT/run103-smi.csv" &
SMI=$!
for s in heat-2d box-2d9p box-2d49p; do
  echo "start $s $(date -u +"%Y/%m/%d %H:%M:%S.%N")"
  $B suite --seconds 1 --no-sweep --methods lorastencil:gpu --stencils $s --json "$OUT/run103-$s.json" 2>&1 | grep -E '^papers|rel' | tr -s ' ' | cut -d' ' -f2,3,8,11
  echo "end $s $(date -u +"%Y/%m/%d %H:%M:%S.%N")"
done
kill $SMI
