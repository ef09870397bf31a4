#!/usr/bin/env bash
# Prepared in session 53 (not run: the device time was spent). Issue 21's 2D passes are power-capped (notes/
# lorastencil-gpu.md, "what the power cap leaves the tensor pipe"): m16n8k4.f64 held 62.2 TFLOP/s at 1860 MHz, and the
# passes ran at 1635-1785 MHz. The k8 / k16 shapes read a quarter / an eighth as many accumulator registers per FLOP;
# if the cap lets them hold a higher clock (or more FLOP/s), a LoRAStencil feed built on them is the one lever left
# for heat-2d / box-2d9p. Each shape held 6 s, k4 again at the end (the first shape runs from a cooler GPU), with
# nvidia-smi sampling clocks, power and throttle reasons every 200 ms. Binary: .devbin/gpu/stencil-bench.gz (any
# build with `device --sustain-shapes`, e3661e1 or later). About 40 s. Repository root: bash notes/scratch/session53-run101.sh
source notes/scratch/gpu-env.sh run101 stencil-bench
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 > "$OUT/run101-smi.csv" &
SMI=$!
$B device --repeats 3 --sustain 6 --sustain-shapes m16n8k4,m16n8k8,m16n8k16,m16n8k4 --json "$OUT/run101-device.json" 2>&1 | grep -vE "^  +[0-9]"
kill $SMI
