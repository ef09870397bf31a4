#!/usr/bin/env bash
# Session 54, issue 21: cuBLAS DGEMM (n = 8192, the vendor's FP64 tensor-core GEMM) held for 8 s under the power cap,
# then the m16n8k4 probe held 6 s, nvidia-smi every 100 ms: how much of the FP64 MMA peak the best-tuned FP64
# tensor-core code sustains at the clock the cap leaves it. .devbin/dgemm/dgemm_sustain is built from
# notes/scratch/session54-dgemm-sustain.cu (nvcc -O2 -arch=sm_90 -lcublas, cudart static). About 45 s.
source notes/scratch/gpu-env.sh run105 stencil-bench
ls /usr/local/cuda/lib64/libcublas.so* 2>&1 | head -2
export LD_LIBRARY_PATH=/tmp/se-bin:/usr/local/cuda/lib64
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > "$OUT/run105-smi.csv" &
SMI=$!
echo "start dgemm $(date -u +"%Y/%m/%d %H:%M:%S.%N")"
.devbin/dgemm/dgemm_sustain 8192 8
echo "end dgemm $(date -u +"%Y/%m/%d %H:%M:%S.%N")"
sleep 3
echo "start k4 $(date -u +"%Y/%m/%d %H:%M:%S.%N")"
$B device --repeats 1 --sustain 6 --sustain-shapes m16n8k4 2>&1 | grep -E "held|median"
echo "end k4 $(date -u +"%Y/%m/%d %H:%M:%S.%N")"
kill $SMI
