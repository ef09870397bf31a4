#!/usr/bin/env bash
# Session 49 (prepared, not run): where single-step cuda-core box-3d27p's extra DRAM reads come from. ncu counted 1.33 GB
# of DRAM reads for 1.07 GB of input (session 45 and 49, with or without evict_last reads), about what every block
# fetching its whole box from DRAM would cost (18/16 sectors x 34/32 rows x 34/32 planes = 1.27x): the halo a
# neighbouring block reads seems never to hit in L2. This counts L2 lookups by hit and miss, the traffic between the
# two L2 partitions, and the DRAM reads, for the committed binary (.devbin/gpu/stencil-bench.gz) at 512^3 and for
# grids one block wide in x (64 columns) and in y (32 rows), where no x (or y) halo is shared. About 2 minutes;
# appends to $OUT/run83.log. Run from the repository root.
source notes/scratch/gpu-env.sh run83 stencil-bench
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
M=$M,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum
for sz in 512x512x512 64x512x512 512x32x512 64x32x4096; do
  echo "ncu box-3d27p $sz:"
  timeout 120 $NCU --clock-control none --launch-skip 2 --launch-count 1 -k regex:tb_3d_sym --metrics $M \
    $B run -m cuda-core -b gpu -s box-3d27p --size $sz -t 4 2>&1 | grep -E "duration|bytes|sectors|rate" | tr -s ' '
done
