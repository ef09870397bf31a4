#!/usr/bin/env bash
# Session 55, call 3: the rest of the benchmark set at 256^3 and 128^3, zchunk 1 against 4 and 8 (sequential,
# horizontal, hybrid). As run, the call began with the sanitizer loop of session55-run4.sh, but with --seconds 0,
# which the CLI refuses: it printed nothing but rc=255, and call 4 ran it again with --seconds 0.001.
source notes/scratch/gpu-env.sh run3 stencil-bench
cat .devbin/gpu/BUILT_FROM
for size in 256 128; do
  for f in cs1_k3_i5_e11 cs3_k4_i3_e9 cs4_k5_i2_e10 cs5_k5_i4_e13 cs6_k6_i4_e17 cs8_k7_i4_e16 cs10_k9_i3_e28 cs11_k10_i2_e25 cs12_k11_i5_e31 cs13_k12_i3_e29; do
    for zc in 1 4 8; do
      echo "== $f $size zchunk $zc"
      $B dag --file assets/dags/$f.dag --size $size --strategy sequential,horizontal,hybrid --seconds 0.05 --zchunk $zc 2>&1 | grep -E "^(sequential|horizontal|hybrid)|FAIL|rror"
    done
  done
done
echo DONE
