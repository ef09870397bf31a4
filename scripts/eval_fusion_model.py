#!/usr/bin/env python3
"""Scores an exported fusion-choice model (assets/models/*.weights.json, issue 16) on a label file written by
`stencil-bench dag-label`, e.g. one measured later, on another GPU or after the generated kernels changed: how often
its choice between producer-consumer and parallelism fusion is the faster one measured, and the mean slowdown of
its choice against the faster.

  python3 scripts/eval_fusion_model.py --data LABELS.jsonl.gz \\
      [--model assets/models/fusion_cnn_gcn.weights.json] [--training-data assets/dag_labels/NVIDIA_H200_2026-11-29.jsonl.gz]

With --training-data (the dataset the model was trained on) the samples are also scored by the side of that
dataset's split they fell on (train, validation, held out, hand-written), and the labels of the two files are
compared program by program. Needs PyTorch (Debian's python3-torch: /usr/bin/python3)."""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_fusion_model as tf  # noqa: E402  (the model, its samples and the split, as trained)


def load_model(path):
    with open(path) as f:
        w = json.load(f)
    cfg = w["config"]
    plan_version = cfg.get("plan_version", 1 if cfg.get("plan_features") else 0)

    def member(tensors):
        norm = None
        if "feature_mean" in tensors:
            norm = (torch.tensor(tensors["feature_mean"]["data"]).view(tensors["feature_mean"]["shape"]),
                    torch.tensor(tensors["feature_scale"]["data"]).view(tensors["feature_scale"]["shape"]))
        m = tf.CnnGcn(cfg["slots"], cfg["channels"], cfg["cnn_hidden"], cfg["gcn_hidden"], plan_version, norm)
        state = {k: torch.tensor(v["data"], dtype=torch.float32).view(v["shape"]) for k, v in tensors.items()}
        m.load_state_dict(state)
        return m

    members = [member(m["tensors"]) for m in w["members"]] if w.get("members") else [member(w["tensors"])]
    model = tf.Ensemble(members) if len(members) > 1 else members[0]
    return model, cfg, plan_version


def score(model, cfg, plan_version, pairs):
    pats = tf.Patterns(cfg["channels"])
    samples = [tf.make_sample(r, s, cfg["slots"], pats, plan_version) for r, s in pairs]
    if not samples:
        return None
    pred = tf.predict(model, samples, cfg["slots"], pats).argmax(1).tolist()
    right = sum(int(p == s.y) for p, s in zip(pred, samples))
    # Slowdown of the choice against the faster of the two: exp(|margin|) - 1 where it chose the slower.
    slow = [math.exp(abs(s.margin)) - 1.0 if p != s.y else 0.0 for p, s in zip(pred, samples)]
    return {"samples": len(samples), "accuracy": right / len(samples), "mean_slowdown": sum(slow) / len(slow),
            "max_slowdown": max(slow)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="dag-label output to score on (.jsonl or .jsonl.gz)")
    ap.add_argument("--model", default="assets/models/fusion_cnn_gcn.weights.json")
    ap.add_argument("--training-data", default="", help="the dataset the model was trained on (its split, its labels)")
    ap.add_argument("--seed", type=int, default=0, help="of the training dataset's split")
    ap.add_argument("--json", default="", help="also write the figures here")
    a = ap.parse_args()
    model, cfg, plan_version = load_model(a.model)
    records, summary = tf.load(a.data)
    ok = [r for r in records if all("error" not in t for t in r["times"].values())]
    sizes = summary["sizes"] if summary else sorted({int(s) for r in ok for s in r["times"]})
    out = {"model": os.path.basename(a.model), "data": os.path.basename(a.data),
           "data_device": summary.get("device") if summary else None, "data_date": summary.get("date") if summary else None}
    out["all"] = score(model, cfg, plan_version, [(r, s) for r in ok for s in sizes])
    print(f"{a.model} on {a.data}: {out['all']['samples']} samples, accuracy {out['all']['accuracy']:.1%}, mean "
          f"slowdown {out['all']['mean_slowdown']:.2%}, max {out['all']['max_slowdown']:.1%}")
    if a.training_data:
        trecs, tsum = tf.load(a.training_data)
        _, _, train_p, val_p, test_p, examples = tf.split(trecs, tsum, a.seed)
        side = {}
        for name, group in (("train", train_p), ("validation", val_p), ("held out", test_p), ("hand-written", examples)):
            for r in group:
                side[r["name"]] = name
        old = {r["name"]: r for r in trecs}
        for name in ("train", "validation", "held out", "hand-written"):
            pairs = [(r, s) for r in ok if side.get(r["name"]) == name for s in sizes]
            f = score(model, cfg, plan_version, pairs)
            if f:
                out[name] = f
                print(f"  {name:12s} {f['samples']:5d} samples, accuracy {f['accuracy']:.1%}, mean slowdown "
                      f"{f['mean_slowdown']:.2%}")
                # The same samples with the training dataset's labels, for comparison.
                was = score(model, cfg, plan_version, [(old[r["name"]], s) for r, s in pairs if r["name"] in old])
                if was:
                    out[name + " (training labels)"] = was
                    print(f"  {'':12s} on the training dataset's labels of the same programs: {was['accuracy']:.1%}")
        same = total = 0
        for r in ok:
            if r["name"] in old:
                for s in sizes:
                    t, u = r["times"][str(s)], old[r["name"]]["times"][str(s)]
                    same += int((t["producer-consumer"] <= t["parallel"]) == (u["producer-consumer"] <= u["parallel"]))
                    total += 1
        out["labels_kept"] = same / total if total else None
        print(f"  labels equal to the training dataset's: {same}/{total} ({same / max(total, 1):.1%})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
