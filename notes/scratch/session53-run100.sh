#!/usr/bin/env bash
# Session 53, issue 21: LoRAStencil 2D with the pyramid's small chain terms on CUDA cores. Experiment patch
# notes/scratch/session53-scalar-side-exp.patch (SE_EXP_SCALAR_SIDE = s: every chain term of side <= s runs as its
# s^2 weights, scalar terms on CUDA cores, instead of its MMAs; box-2d49p 0.250 -> 0.170 MMA per point: its side-3
# term is 32% of its MMAs). The CPU replay of the fragment tables ([lora-gpu]) reproduces every 2D stencil with it
# (general weights too). Binary: .devbin/gpu/stencil-bench-exp.gz (ff372a2 + the patch). Checks, then the suite
# alternated (unset = the committed kernel plan). Repository root: bash notes/scratch/session53-run100.sh
source notes/scratch/gpu-env.sh run100 stencil-bench-exp
for s in box-2d49p box-2d9p; do for bd in dirichlet periodic; do
  SE_EXP_SCALAR_SIDE=3 chk $E run -m lorastencil -b gpu -s $s --size 333x517 -t 3 --boundary $bd
done; done
echo "memcheck $(SE_EXP_SCALAR_SIDE=3 timeout 60 $SAN --tool memcheck $E run -m lorastencil -b gpu -s box-2d49p --size 200x150 -t 2 2>&1 | grep SUMMARY)"
row() { echo "$1 side<=$2: $(SE_EXP_SCALAR_SIDE=$2 $E suite --seconds 1 --no-sweep --methods lorastencil:gpu --stencils $3 2>&1 | grep -E '^papers' | tr -s ' ' | cut -d' ' -f2,3,8,11 | tr '\n' ';')"; }
row r1 0 box-2d49p; row r1 3 box-2d49p; row r2 0 box-2d49p; row r2 3 box-2d49p
row r1 0 box-2d9p,heat-2d; row r1 3 box-2d9p,heat-2d
