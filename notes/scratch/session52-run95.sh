#!/usr/bin/env bash
# Session 52: the committed form of the two session-52 changes, for the results table: single-step 3D reading the
# interior box and the halo columns apart (tb_3d_sym.cuh kInner, PTX identical to session51-run92.sh's INNER=2
# variant) and the 2D depth rule (core/temporal_blocking_model.hpp: FP32 heat-2d and box-2d9p at T = 8, FP64
# box-2d25p at T = 4). Binary: the working tree after both changes. One JSON per group so that a call cut short keeps
# what finished. Appends to $OUT/run95.log. Repository root: `bash notes/scratch/session52-run95.sh` (about 3 minutes).
source notes/scratch/gpu-env.sh run95 stencil-bench
$B suite --seconds 1 --no-sweep --methods cuda-core:gpu,cuda-core-fp32:gpu --stencils box-3d27p,heat-3d \
  --json $OUT/session52-3d.json 2>&1 | grep -E "^papers|copy" | tr -s ' ' | cut -c1-140
$B suite --seconds 1 --no-sweep --methods cuda-core-tb-fp32:gpu --stencils heat-2d,box-2d9p \
  --json $OUT/session52-tb-fp32.json 2>&1 | grep -E "^papers" | tr -s ' ' | cut -c1-140
$B suite --seconds 1 --no-sweep --methods cuda-core-tb:gpu --stencils box-2d25p \
  --json $OUT/session52-tb-fp64.json 2>&1 | grep -E "^papers" | tr -s ' ' | cut -c1-140
