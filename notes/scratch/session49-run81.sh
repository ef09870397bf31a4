#!/usr/bin/env bash
# Session 49: cuda-core-fp16 with two points per thread in 1D (kernels/cuda_core/step_1d_half.cu) and in 2D at radius
# 2 and 3 (step_2d_half.cu, radius 1 measured in run79). The experiment binary (.devbin/gpu/stencil-bench-exp.gz,
# built with session49-half-pairs-exp.patch and session49-star2d-exp.patch) reads SE_EXP_HALF1D (0 = the one-point
# kernel of step_1d.cu, 1 = the pair kernel at 16 pairs per thread, the default, 2 = at 4) and SE_EXP_HALF2D (0 = the
# one-column kernel of step_2d.cuh, 1 = the pair kernel, the default).
# Checks, sanitizers, then the variants alternated twice; the last round's default runs write $OUT/*.json.
# Run from the repository root, in two calls: `bash notes/scratch/session49-run81.sh checks` (about 5 minutes) and
# `bash notes/scratch/session49-run81.sh timing` (about 5 minutes); each appends to $OUT/run81.log as it goes, so a call
# cut short by its limit still returns what it printed (session 49 ran both parts in one 330-second call piped through
# `tail`: it ran out of time and returned nothing, spending the session's device time).
set -u
part=${1:-checks}
exec > >(tee -a "$OUT/run81.log") 2>&1
mkdir -p /tmp/se-bin
gunzip -c .devbin/gpu/stencil-bench-exp.gz > /tmp/se-bin/sbe; cp .devbin/gpu/libfmt.so.9 /tmp/se-bin/; chmod +x /tmp/se-bin/sbe
export LD_LIBRARY_PATH=/tmp/se-bin
E=/tmp/se-bin/sbe
export SE_EXP_STAR2D=0 # the binary also holds session49-star2d-exp.patch: its star path off, so 0 is the committed kernel
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
chk() { echo "check $* :: $("$@" 2>&1 | grep -iE 'rel|error' | head -1 | sed -E 's/.*(max abs)/\1/')"; }
if [ "$part" = checks ]; then
for s in heat-1d 1d5p 1d7p 1d15p; do for sz in 1000003 16385 8190 37; do
  chk $E run -m cuda-core-fp16 -b gpu -s $s --size $sz -t 6
done; done
for s in heat-1d 1d15p; do for sz in 1000003 37; do chk env SE_EXP_HALF1D=2 $E run -m cuda-core-fp16 -b gpu -s $s --size $sz -t 6; done; done
chk $E run -m cuda-core-fp16 -b gpu -s 1d15p --size 100003 -t 6 --boundary periodic
for s in star-2d13p box-2d25p box-2d49p heat-2d; do for sz in 1001x777 130x97 4098x33 257x7; do
  chk $E run -m cuda-core-fp16 -b gpu -s $s --size $sz -t 6
done; done
for tool in memcheck racecheck; do
  for s in heat-1d 1d15p; do echo "$tool $s $(timeout 60 $SAN --tool $tool $E run -m cuda-core-fp16 -b gpu -s $s --size 100003 -t 3 2>&1 | grep SUMMARY)"; done
  for s in star-2d13p box-2d49p; do echo "$tool $s $(timeout 60 $SAN --tool $tool $E run -m cuda-core-fp16 -b gpu -s $s --size 517x131 -t 3 2>&1 | grep SUMMARY)"; done
done
fi
if [ "$part" = timing ]; then
for r in 1 2; do
  for v in 0 1; do
    j=""; [ $r = 2 ] && [ $v = 1 ] && j="--json $OUT/session49-half2d-suite.json"
    echo "r$r half2d $v:"; SE_EXP_HALF2D=$v $E suite --seconds 1 --no-sweep --methods cuda-core-fp16:gpu --stencils heat-2d,box-2d9p,star-2d13p,box-2d25p,box-2d49p $j 2>&1 | grep -E "^papers|stopped|copy" | tr -s ' ' | cut -d' ' -f1-3,7-9,12-
  done
  for v in 0 2 1; do
    j=""; [ $r = 2 ] && [ $v = 1 ] && j="--json $OUT/session49-half1d-suite.json"
    echo "r$r half1d $v:"; SE_EXP_HALF1D=$v $E suite --seconds 1 --no-sweep --methods cuda-core-fp16:gpu --stencils heat-1d,1d5p,1d7p,1d15p $j 2>&1 | grep -E "^papers|stopped|copy" | tr -s ' ' | cut -d' ' -f1-3,7-9,12-
  done
done
fi
