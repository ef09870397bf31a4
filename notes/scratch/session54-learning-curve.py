#!/usr/bin/env python3
"""Session 54, issue 16: the fusion choice's learning curve. Trains on 1/8, 1/4, 1/2 and all of a dataset's training
programs (the split of scripts/train_fusion_model.py, seed 0; subsets drawn at random) and scores the validation and
held-out programs. `gbdt`: boosted trees (depth 3, 300) on the program vectors of the bound models, 3 subsets a
fraction; `gcn`: the exported configuration's single network (plan2, aux 3, 60 epochs, epoch on validation), seeds 0
and 1, fractions 1/4, 1/2, 1.
  OMP_NUM_THREADS=1 /usr/bin/python3 notes/scratch/session54-learning-curve.py DATA.jsonl.gz gbdt|gcn"""
import os
import random
import sys
import types

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import train_fusion_model as T  # noqa: E402

torch.set_num_threads(1)
data, kind = sys.argv[1], sys.argv[2]
recs, summ = T.load(data)
ok, sizes, tr, va, te, ex = T.split(recs, summ, 0)


def lab(r, s):
    t = r["times"][str(s)]
    return 0 if t["producer-consumer"] <= t["parallel"] else 1


def subset(frac, rep):
    sub = tr[:]
    random.Random(rep).shuffle(sub)
    return sub[:int(len(tr) * frac)]


if kind == "gbdt":
    from sklearn.ensemble import GradientBoostingClassifier

    def XY(ps):
        ss = [(r, s) for r in ps for s in sizes]
        return np.array([T.aggregate(r, s) for r, s in ss]), np.array([lab(r, s) for r, s in ss])
    Xv, yv = XY(va)
    Xt, yt = XY(te)
    for frac in [0.125, 0.25, 0.5, 1.0]:
        accs = []
        for rep in range(3 if frac < 1 else 1):
            X, y = XY(subset(frac, rep))
            gb = GradientBoostingClassifier(n_estimators=300, max_depth=3, learning_rate=0.1, random_state=0).fit(X, y)
            accs.append(((gb.predict(Xv) == yv).mean(), (gb.predict(Xt) == yt).mean()))
        a = np.array(accs).mean(0)
        print(f"gbdt {frac:5.3f}: {int(len(tr) * frac):5d} programs, validation {a[0]:.2%}, held out {a[1]:.2%}", flush=True)
else:
    _, cfg = T.parse_variant("plan2@aux3:select=1:epochs=60:aux=3")
    args = types.SimpleNamespace(slots=5, max_seconds_per_variant=0)
    for frac in [0.25, 0.5, 1.0]:
        pats = T.Patterns(cfg["channels"])
        mk = lambda ps: [T.make_sample(r, s, 5, pats, cfg["plan"]) for r in ps for s in sizes]
        gtr, gva, gte = mk(subset(frac, 0)), mk(va), mk(te)
        res = []
        for seed in [0, 1]:
            m = T.train_cnn_gcn(gtr, gva, pats, dict(cfg, seed=seed), args, lambda msg: None)
            acc = lambda g: float((T.predict(m, g, 5, pats).argmax(1) == torch.tensor([s.y for s in g])).float().mean())
            res.append((acc(gva), acc(gte)))
        a = np.array(res).mean(0)
        print(f"gcn {frac}: {int(len(tr) * frac)} programs, validation {a[0]:.2%}, held out {a[1]:.2%} (seeds {res})", flush=True)
