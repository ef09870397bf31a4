#!/usr/bin/env bash
# Session 55, call 1: the streamed kernels (--zchunk) checked (test_gpu) and a first sweep against zchunk 1.
source notes/scratch/gpu-env.sh run1 stencil-bench test_gpu
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader
cat .devbin/gpu/BUILT_FROM
$TG "gpu dag: streamed*" 2>&1 | tail -3
for f in cs9_k8_i5_e23 cs2_k4_i2_e8 cs14_k12_i6_e33 cs7_k6_i2_e14 p_grad_c hdiff; do
  for zc in 1 8 16 32 64; do
    echo "== $f 256 zchunk $zc"
    $B dag --file assets/dags/$f.dag --size 256 --strategy sequential,horizontal,hybrid,producer-consumer --seconds 0.05 --zchunk $zc 2>&1 | grep -E "^(sequential|horizontal|hybrid|producer)|FAIL|rror"
  done
done
for f in cs9_k8_i5_e23 cs2_k4_i2_e8 cs14_k12_i6_e33 p_grad_c; do
  for zc in 1 4 8 16; do
    echo "== $f 128 zchunk $zc"
    $B dag --file assets/dags/$f.dag --size 128 --strategy sequential,horizontal,hybrid,producer-consumer --seconds 0.05 --zchunk $zc 2>&1 | grep -E "^(sequential|horizontal|hybrid|producer)|FAIL|rror"
  done
done
echo DONE
