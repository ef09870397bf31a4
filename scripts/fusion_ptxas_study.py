#!/usr/bin/env python3
"""Issue 16: do the compiled kernels' resources explain the fusion choice the representation misses?

The dataset (dag-label, timings on an H200) and a second file of the same programs from `stencil-bench dag-label
--features-only --ptxas` (NVRTC for sm_90, no GPU: every strategy's kernels with ptxas's registers, spill stores,
spill loads and stack bytes per thread). On train_fusion_model.py's split (same seed), gradient-boosted trees on
its program-level vectors (`aggregate`: counts, size, sums and maxima of the version-2 plan features) are trained
with and without a few numbers from ptxas; each is picked on the validation tenth and reported on the held-out
programs, with the error of a regression of producer-consumer's and parallel's log time per point.

  python3 scripts/fusion_ptxas_study.py --data assets/dag_labels/NVIDIA_H200_2026-11-29.jsonl.gz \\
      --ptxas PTXAS.jsonl.gz --out notes/fusion-ptxas-study.json
"""
import argparse
import gzip
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_fusion_model import aggregate, load, split  # noqa: E402  (imports torch)

STRATEGIES = ["sequential", "producer-consumer", "parallel"]


def ptxas_key(rec):
    return rec.get("seed", rec.get("name"))


def load_ptxas(path):
    opener = gzip.open if path.endswith(".gz") else open
    out = {}
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if "ptxas" in r and "error" not in r["ptxas"]:
                out[ptxas_key(r)] = r["ptxas"]
    return out


def occupancy(registers):
    """Blocks of 256 threads (the generated kernels' 32 x 8) an sm_90 SM holds at this many registers per thread, of
    the 8 its 2048 threads allow: 65536 registers, allocated per warp in units of 256 (8 per thread)."""
    per_block = math.ceil(registers / 8) * 8 * 256
    return min(8, 65536 // per_block) / 8


def resources(ptxas, size):
    """Per strategy: the most registers per thread, the mean, the spilled bytes summed over kernels (stores +
    loads), the kernels that spill, the largest stack, and the lowest and mean occupancy those registers allow; for
    producer-consumer also relative to parallel (what decides between the two)."""
    at = ptxas[str(size)]
    f = []
    for s in STRATEGIES:
        ks = np.array(at[s], dtype=float).reshape(-1, 4)
        occ = np.array([occupancy(r) for r in ks[:, 0]])
        f += [ks[:, 0].max(), ks[:, 0].mean(), (ks[:, 1] + ks[:, 2]).sum(), float((ks[:, 1] > 0).sum()), ks[:, 3].max(),
              occ.min(), occ.mean()]
    pc, par = np.array(at["producer-consumer"], dtype=float), np.array(at["parallel"], dtype=float)
    f += [math.log(pc[:, 0].max() / par[:, 0].max()), math.log1p((pc[:, 1] + pc[:, 2]).sum()),
          float(pc[:, 0].max() > 128), float(pc[:, 0].max() > 168)]  # 2 and 1.5 blocks of 256 threads at 65536
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--seed", type=int, default=0, help="of the split (train_fusion_model.py's)")
    ap.add_argument("--ptxas-size", type=int, default=0,
                    help="take this size's kernels for every sample (0: each sample's own size); of 898 kernels of 60 "
                         "programs compiled at both sizes, 879 had the same registers at 128 and 256, the rest "
                         "within 2 (one within 8)")
    ap.add_argument("--out", required=True, help="JSON report")
    args = ap.parse_args()
    from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

    records, summary = load(args.data)
    ok, sizes, train_p, val_p, test_p, examples = split(records, summary, args.seed)
    px = load_ptxas(args.ptxas)
    psize = lambda s: args.ptxas_size or s
    have = lambda ps: [r for r in ps if ptxas_key(r) in px and all(str(psize(s)) in px[ptxas_key(r)] for s in sizes)]
    tr, va, te = have(train_p), have(val_p), have(test_p)
    samples = lambda ps: [(r, s) for r in ps for s in sizes]
    tr_s, va_s, te_s = samples(tr), samples(va), samples(te)
    label = lambda r, s: 0 if r["times"][str(s)]["producer-consumer"] <= r["times"][str(s)]["parallel"] else 1
    y = lambda ss: np.array([label(r, s) for r, s in ss])
    margin = lambda ss: np.array([abs(math.log(r["times"][str(s)]["producer-consumer"] / r["times"][str(s)]["parallel"]))
                                  for r, s in ss])
    report = {"dataset": os.path.basename(args.data), "ptxas": os.path.basename(args.ptxas),
              "programs": {"train": len(tr), "validation": len(va), "held_out": len(te),
                           "of_split": [len(train_p), len(val_p), len(test_p)]},
              "sizes": sizes, "models": {}}
    for name, feats in [("aggregate", lambda r, s: aggregate(r, s)),
                        ("aggregate+ptxas", lambda r, s: aggregate(r, s) + resources(px[ptxas_key(r)], psize(s)))]:
        X = lambda ss: np.array([feats(r, s) for r, s in ss])
        Xtr, Xva, Xte = X(tr_s), X(va_s), X(te_s)
        best = None
        for depth in (3, 5):
            gb = GradientBoostingClassifier(n_estimators=300, max_depth=depth, learning_rate=0.1,
                                            random_state=args.seed).fit(Xtr, y(tr_s))
            v, t = float(np.mean(gb.predict(Xva) == y(va_s))), gb.predict(Xte)
            if best is None or v > best[0]:
                best = (v, depth, t)
        v, depth, pred = best
        right = pred == y(te_s)
        m = margin(te_s)
        entry = {"features": Xtr.shape[1], "depth_chosen_on_validation": depth, "validation": v,
                 "held_out": float(right.mean()),
                 "held_out_margin_5pct_or_more": float(right[m >= 0.05].mean()),
                 "held_out_margin_under_5pct": float(right[m < 0.05].mean())}
        for strat in ["producer-consumer", "parallel"]:
            t = lambda ss: np.array([math.log(r["times"][str(s)][strat] / s ** 3) for r, s in ss])
            reg = GradientBoostingRegressor(n_estimators=300, max_depth=4, learning_rate=0.05, subsample=0.8,
                                            random_state=args.seed).fit(Xtr, t(tr_s))
            entry[f"rmse_log_time_{strat}"] = float(np.sqrt(((reg.predict(Xva) - t(va_s)) ** 2).mean()))
        report["models"][name] = entry
        print(name, json.dumps(entry), flush=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
