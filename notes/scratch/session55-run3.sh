#!/usr/bin/env bash
# Session 55, call 3: compute-sanitizer on the streamed kernels (small grids, partial chunks, both index paths), then
# the rest of the benchmark set at 256^3 and 128^3, zchunk 1 against 4 and 8 (sequential, horizontal, hybrid).
source notes/scratch/gpu-env.sh run3 stencil-bench
cat .devbin/gpu/BUILT_FROM
for f in cs9_k8_i5_e23 cs14_k12_i6_e33 hdiff; do
  for tool in memcheck racecheck; do
    echo "== $tool $f"
    $SAN --tool $tool --error-exitcode 9 $B dag --file assets/dags/$f.dag --size 72x24x20 --strategy sequential,parallel,horizontal,hybrid,producer-consumer --seconds 0 --zchunk 6 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|^(sequential|parallel|horizontal|hybrid|producer)" | awk '{print $1, $NF}' | tr '\n' ' '; echo " rc=${PIPESTATUS[0]}"
  done
done
for size in 256 128; do
  for f in cs1_k3_i5_e11 cs3_k4_i3_e9 cs4_k5_i2_e10 cs5_k5_i4_e13 cs6_k6_i4_e17 cs8_k7_i4_e16 cs10_k9_i3_e28 cs11_k10_i2_e25 cs12_k11_i5_e31 cs13_k12_i3_e29; do
    for zc in 1 4 8; do
      echo "== $f $size zchunk $zc"
      $B dag --file assets/dags/$f.dag --size $size --strategy sequential,horizontal,hybrid --seconds 0.05 --zchunk $zc 2>&1 | grep -E "^(sequential|horizontal|hybrid)|FAIL|rror"
    done
  done
done
echo DONE
