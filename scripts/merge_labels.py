#!/usr/bin/env python3
"""Joins `stencil-bench dag-label` files of one GPU written by several calls (a relabelling run split by seed
range to fit the device's per-call limit) into one dataset: the records in order, each program once, and one
summary line (programs, failed runs, seconds and NVRTC CPU-seconds summed; the first call's date, device,
sizes, repeats and placement, which must agree).

  python3 scripts/merge_labels.py --out assets/dag_labels/NVIDIA_H200_DATE.jsonl.gz PART1.jsonl.gz PART2.jsonl.gz

With --extend the first part is an existing dataset and the others are new programs added to it: the summary's
`split_blocks` (generated programs per block, in record order) keeps the first part's blocks and makes the new
programs one more block, and train_fusion_model.py splits each block on its own, so the earlier programs keep their
side of the split (its held-out programs stay unseen by a model trained on the earlier dataset alone)."""
import argparse
import gzip
import json
import sys

from dag_label_file import load


def read(path):
    records, summary = load(path)
    if summary is None:
        sys.exit(f"{path}: no summary line (an interrupted call?)")
    return records, summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--extend", action="store_true",
                    help="the first part is a dataset whose split is kept; the other parts form one new split block")
    ap.add_argument("parts", nargs="+")
    a = ap.parse_args()
    records, summaries, seen, generated = [], [], set(), []
    for p in a.parts:
        rs, s = read(p)
        summaries.append(s)
        generated.append(0)
        for r in rs:
            if r["name"] in seen:
                continue  # the hand-written examples, when every call labelled them
            seen.add(r["name"])
            records.append(r)
            generated[-1] += r.get("source") == "generated"
    first = summaries[0]
    for s in summaries[1:]:
        for k in ("device", "sizes", "repeats", "parallel_placement"):
            if s.get(k) != first.get(k):
                sys.exit(f"the parts disagree on {k}: {first.get(k)} against {s.get(k)}")
    summary = dict(first)
    summary["programs"] = len(records)
    for k in ("failed_runs", "seconds", "compile_cpu_seconds"):
        summary[k] = sum(s.get(k, 0) for s in summaries)
    summary["parts"] = sum(s.get("parts", 1) for s in summaries) if a.extend else len(summaries)
    if a.extend:
        if len(summaries) < 2:
            sys.exit("--extend needs the dataset and at least one part to add")
        summary["split_blocks"] = first.get("split_blocks", [generated[0]]) + [sum(generated[1:])]
        summary["dates"] = first.get("dates", [first.get("date")]) + [s.get("date") for s in summaries[1:]]
    opener = gzip.open if a.out.endswith(".gz") else open
    with opener(a.out, "wt") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
        f.write(json.dumps(summary, separators=(",", ":")) + "\n")
    print(f"{len(records)} programs from {len(summaries)} parts -> {a.out}")


if __name__ == "__main__":
    main()
