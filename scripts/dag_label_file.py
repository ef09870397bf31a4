"""Reads a dataset `stencil-bench dag-label` writes (.jsonl or .jsonl.gz): one JSON record per program, then a
summary line. Shared by train_fusion_model.py, eval_fusion_model.py and merge_labels.py (no torch needed)."""
import gzip
import json


def load(path):
    """(records, summary); summary is None when the file has no summary line (an interrupted run)."""
    opener = gzip.open if path.endswith(".gz") else open
    records, summary = [], None
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("summary"):
                summary = r
            else:
                records.append(r)
    return records, summary
