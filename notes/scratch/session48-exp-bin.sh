# Sourced (from the repository root) by notes/scratch/session48-run76.sh .. run79.sh: unpacks session 48's
# experiment binary (.devbin/gpu/stencil-bench-exp.gz; .devbin/gpu/BUILT_FROM says from what) to $E, and sets what
# the four scripts share: $S (the suite's timing protocol), $SAN and $NCU (the tools' paths) and chk (runs a command
# and prints it beside its line of error against the FP64 reference).
set -u
mkdir -p /tmp/se-bin
gunzip -c .devbin/gpu/stencil-bench-exp.gz > /tmp/se-bin/sbe; cp .devbin/gpu/libfmt.so.9 /tmp/se-bin/; chmod +x /tmp/se-bin/sbe
export LD_LIBRARY_PATH=/tmp/se-bin
E=/tmp/se-bin/sbe
S="suite --seconds 1 --no-sweep"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
chk() { echo "check $* :: $("$@" 2>&1 | grep -iE 'rel|error' | head -1 | cut -c1-50,100-)"; }
