#!/usr/bin/env bash
# Prepared in session 48 (not run), second half of run76.sh (same binary): cuda-core-tb's cube-symmetric kernel at T >= 2 with the thread's own rows'
# centres kept in registers between stages (SE_EXP_TB_OWN = 1: same 2-blocks-per-SM bound; 2: bound lifted to 1 block),
# against the committed kernel (0). Binary: .devbin/gpu/stencil-bench-exp.gz (BUILT_FROM says from what).
set -u
mkdir -p /tmp/se-bin
gunzip -c .devbin/gpu/stencil-bench-exp.gz > /tmp/se-bin/sbe; cp .devbin/gpu/libfmt.so.9 /tmp/se-bin/; chmod +x /tmp/se-bin/sbe
export LD_LIBRARY_PATH=/tmp/se-bin
E=/tmp/se-bin/sbe
chk() { echo "check $* :: $("$@" 2>&1 | grep -iE 'rel|error' | head -1 | cut -c1-50,100-)"; }
S="suite --seconds 1 --no-sweep"
# T = 1 (single-step cuda-core box-3d27p, the TMA kernel with evict_last reads): planes per block (32 committed in
# FP64, 8 in FP32), alternated twice.
for r in 1 2; do for v in 32 48 64 96; do
  echo "r$r cuda-core t1 planes $v: $(SE_EXP_T1_PLANES=$v $E $S --methods cuda-core:gpu --stencils box-3d27p 2>&1 | grep -E '3d27p|stopped' | tr -s ' ' | cut -d' ' -f2-3,7-9,12-)"
done; done
for v in 48 96; do chk env SE_EXP_T1_PLANES=$v $E run -m cuda-core -b gpu -s box-3d27p --size 130x97x301 -t 3; done
# ncu: the T = 1 box kernel's DRAM reads and L2 hit rate with the evict_last reads (session 45 counted 1.33 GB of
# DRAM reads for 1.07 GB of input before them)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for v in 32 64; do
  echo "ncu planes $v:"; SE_EXP_T1_PLANES=$v timeout 150 $NCU --clock-control none --launch-skip 2 --launch-count 1 -k regex:tb_3d_sym \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    $E run -m cuda-core -b gpu -s box-3d27p --size 512x512x512 -t 4 2>&1 | grep -E "duration|bytes|rate|pct" | tr -s ' '
done
