# Sourced (from the repository root) by the session 49-50 scripts of notes/scratch on the device machine:
#   source notes/scratch/gpu-env.sh LOG BINARY...
# appends all the script prints to $OUT/LOG.log as it goes (a call cut short by its limit still returns what it
# printed), unpacks the named binaries of .devbin/gpu (stencil-bench -> $B, stencil-bench-exp -> $E, test_gpu -> $TG;
# .devbin/gpu/BUILT_FROM says what each was built from) with the libraries beside them, and sets what the scripts
# share: $SAN and $NCU (the tools' paths) and chk (runs a command and prints it beside its line of error against the
# FP64 reference).
set -u
exec > >(tee -a "$OUT/$1.log") 2>&1
shift
mkdir -p /tmp/se-bin
cp .devbin/gpu/libfmt.so.9 /tmp/se-bin/
if [ -f .devbin/gpu/libgomp.so.1 ]; then cp .devbin/gpu/libgomp.so.1 /tmp/se-bin/; fi # test_gpu's OpenMP
for bin in "$@"; do
  gunzip -c ".devbin/gpu/$bin.gz" > "/tmp/se-bin/$bin"
  chmod +x "/tmp/se-bin/$bin"
done
export LD_LIBRARY_PATH=/tmp/se-bin
B=/tmp/se-bin/stencil-bench
E=/tmp/se-bin/stencil-bench-exp
TG=/tmp/se-bin/test_gpu
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
chk() { echo "check $* :: $("$@" 2>&1 | grep -iE 'rel|error' | head -1 | sed -E 's/.*(max abs)/\1/')"; }
