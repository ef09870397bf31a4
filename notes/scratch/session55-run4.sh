#!/usr/bin/env bash
# Session 55, call 4: compute-sanitizer on the streamed kernels (72x24x20, zchunk 6: partial chunks, both index paths).
source notes/scratch/gpu-env.sh run4 stencil-bench
for f in cs9_k8_i5_e23 hdiff cs14_k12_i6_e33; do
  for tool in memcheck racecheck; do
    echo "== $tool $f"
    $SAN --tool $tool --error-exitcode 9 $B dag --file assets/dags/$f.dag --size 72x24x20 --strategy sequential,parallel,horizontal,hybrid,producer-consumer --seconds 0.001 --zchunk 6 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^(sequential|parallel|horizontal|hybrid|producer-consumer) " | awk '{print $1, $2, $3, $4, $NF}' | tr '\n' ';'; echo " rc=${PIPESTATUS[0]}"
  done
done
echo DONE
