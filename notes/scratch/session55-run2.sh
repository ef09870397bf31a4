#!/usr/bin/env bash
# Session 55, call 2: the streamed kernels with the front loaded a plane ahead.
source notes/scratch/gpu-env.sh run2 stencil-bench test_gpu
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader
cat .devbin/gpu/BUILT_FROM
$TG "gpu dag: streamed*" 2>&1 | tail -3
for f in cs9_k8_i5_e23 cs2_k4_i2_e8 cs14_k12_i6_e33 cs7_k6_i2_e14 p_grad_c hdiff; do
  for zc in 1 4 8 16; do
    echo "== $f 256 zchunk $zc"
    $B dag --file assets/dags/$f.dag --size 256 --strategy sequential,horizontal,hybrid,producer-consumer --seconds 0.05 --zchunk $zc 2>&1 | grep -E "^(sequential|horizontal|hybrid|producer)|FAIL|rror"
  done
done
for f in cs9_k8_i5_e23 cs2_k4_i2_e8 cs14_k12_i6_e33 p_grad_c; do
  for zc in 1 2 4 8; do
    echo "== $f 128 zchunk $zc"
    $B dag --file assets/dags/$f.dag --size 128 --strategy sequential,horizontal,hybrid,producer-consumer --seconds 0.05 --zchunk $zc 2>&1 | grep -E "^(sequential|horizontal|hybrid|producer)|FAIL|rror"
  done
done
echo DONE
