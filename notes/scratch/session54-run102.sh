#!/usr/bin/env bash
# Session 54, issue 16: more labelled programs for the fusion-choice model (its learning curve: gbdt on the program
# vectors 90.5 / 91.6 / 92.9 / 93.6% held out at 1/8, 1/4, 1/2, all of the 2880 training programs). The generated
# CUDA of sequential, producer-consumer and parallel is byte-identical between 7f5fc9d (the 2026-11-29 labels) and
# this build (checked on the 16 examples and 40 generated programs at both sizes), so new labels join that dataset.
# Usage (repository root): bash notes/scratch/session54-run102.sh CHECK_COUNT NEW_SEED NEW_COUNT MAX_SECONDS TAG
#   CHECK_COUNT programs of the dataset relabelled first (seeds 1000000..), then NEW_COUNT new ones from NEW_SEED,
#   no program started after MAX_SECONDS. Binary: .devbin/gpu/stencil-bench.gz.
source notes/scratch/gpu-env.sh "run102-$5" stencil-bench
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ "$1" -gt 0 ]; then
  $B dag-label --seed 1000000 --count "$1" --sizes 128,256 --threads 15 -o "$OUT/check-$5.jsonl" 2>&1 | tail -2
  gzip "$OUT/check-$5.jsonl"
fi
$B dag-label --seed "$2" --count "$3" --sizes 128,256 --threads 15 --max-seconds "$4" -o "$OUT/labels-$5.jsonl" 2>&1 | tail -2
tail -1 "$OUT/labels-$5.jsonl"; echo; wc -l "$OUT/labels-$5.jsonl"
gzip "$OUT/labels-$5.jsonl"
