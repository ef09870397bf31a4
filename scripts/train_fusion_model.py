#!/usr/bin/env python3
"""Trains the learned fusion-strategy choice of complex stencils (issue 16; Plasticine, ICS'25, Sections 3.4 and
4.4) on the dataset `stencil-bench dag-label` writes, and writes what the app needs into assets/models/.

The model is the paper's CNN+GCN: every neighbour access (a 7x7x7 binary tensor of the offsets one operator reads
one grid at) goes through a small 3D CNN; an operator's feature is the concatenation of its accesses' CNN
features (zero-padded to a fixed number of slots), with the grid size appended; four GCNConv layers with tanh
over the program's graph (const and stencil nodes, edges taken both ways), global add pool, a linear two-way
output: producer-consumer fusion (0) or parallelism fusion (1). One sample is a (program, grid size) pair; the
label is the faster of the two measured strategies, and the margin is kept for the slowdown figures.

Variants (--variants name:channels:cnn_hidden:gcn_hidden): `paper` (one channel: the access bits, the paper's
hidden sizes 6 and 8), `typed` (a second channel repeating the bits where the grid read is a stencil node, i.e. a
producer that fusion could inline), and `plan` / `plan_wide` (typed, with the fusion-plan features of
core/dag/dag_model.hpp plan_features() appended to each node after the grid size: materialised or inlined by
producer-consumer fusion, computations per point under that plan, FLOPs, points read, and the cost model's
log byte and FLOP ratios of producer-consumer over sequential; hidden sizes 6/8 and 16/32). The one with the
best validation accuracy is exported for the app. A third baseline, the cost model's two ratios with a
threshold fit on the training set, shows how much of the choice the cost model alone explains.

The split is by program (both sizes of a program fall on the same side), 90/10, seeded; a tenth of the programs
taken from the 90 is the validation set. A dataset extended by scripts/merge_labels.py --extend is split block by
block (its summary's split_blocks), so the programs it had before keep their side. Baselines on counts
(operators, inputs, edges, dependencies, depth, widest bucket, grid size): an MLP and a decision tree (a small
CART written here: no scikit-learn needed). The hand-written programs of assets/dags (in the dataset with
source "file") are never trained on: they are an extra test.

Needs PyTorch and torch_geometric (on the GPU machine's image). Writes, under --out-dir:
  <name>.json            held_out_accuracy, the baselines, slowdowns against the oracle, the examples
  <name>.weights.json    the trained weights (format in assets/models/README.md)
  <name>.reference.json  the exported model's outputs on the assets/dags programs, computed in float64: the
                         C++ inference test compares against them
"""
import argparse
import json
import math
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from dag_label_file import load  # noqa: F401  (also what eval_fusion_model.py and fusion_ptxas_study.py import from here)

try:  # torch_geometric where it is installed (the GPU machine's image); the same layers in plain torch otherwise
    from torch_geometric.nn import GCNConv as PygGCNConv
    from torch_geometric.nn import global_add_pool as pyg_global_add_pool
except ImportError:
    PygGCNConv = pyg_global_add_pool = None


class PlainGCNConv(nn.Module):
    """torch_geometric's GCNConv (default arguments) in plain torch: x' = D^-1/2 (A + I) D^-1/2 X W^T + b, A with
    the edges as given (the caller passes them both ways), a self-loop added on every node, D the in-degrees of
    A + I (symmetric here), messages from edge_index[0] to edge_index[1]. Same parameters and state_dict keys
    ('lin.weight', 'bias'), same initialisation (Glorot weight, zero bias)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))
        nn.init.xavier_uniform_(self.lin.weight)

    def forward(self, x, edge_index):
        n = x.shape[0]
        loop = torch.arange(n, device=x.device)
        row = torch.cat([edge_index[0], loop])
        col = torch.cat([edge_index[1], loop])
        deg = torch.zeros(n, dtype=x.dtype, device=x.device).index_add_(0, col, torch.ones_like(col, dtype=x.dtype))
        dinv = deg.pow(-0.5)
        dinv[torch.isinf(dinv)] = 0
        norm = dinv[row] * dinv[col]
        h = self.lin(x)
        out = torch.zeros(n, h.shape[1], dtype=h.dtype, device=h.device).index_add_(0, col, h[row] * norm.unsqueeze(1))
        return out + self.bias


def plain_global_add_pool(x, batch, size=None):
    size = int(batch.max().item()) + 1 if size is None else size
    return torch.zeros(size, x.shape[1], dtype=x.dtype, device=x.device).index_add_(0, batch, x)


GCNConv = PygGCNConv if PygGCNConv is not None else PlainGCNConv
global_add_pool = pyg_global_add_pool if pyg_global_add_pool is not None else plain_global_add_pool


def self_test(log, graphs=50, seed=1):
    """The plain GCNConv and pool against the dense formula on random graphs, and against torch_geometric's
    where it is importable (float64, same weights). Raises on a mismatch."""
    g = torch.Generator().manual_seed(seed)
    worst_dense = worst_pyg = 0.0
    for t in range(graphs):
        n = int(torch.randint(1, 16, (1,), generator=g))
        fin, fout = int(torch.randint(1, 9, (1,), generator=g)), int(torch.randint(1, 9, (1,), generator=g))
        A = (torch.rand(n, n, generator=g) < 0.3).double().triu(1)  # a DAG: edges i -> j, i < j
        e = A.nonzero().t()
        ei = torch.cat([e, e.flip(0)], dim=1)
        x = torch.randn(n, fin, generator=g, dtype=torch.float64)
        conv = PlainGCNConv(fin, fout).double()
        with torch.no_grad():
            conv.bias.copy_(torch.randn(fout, generator=g, dtype=torch.float64))
            S = A + A.t() + torch.eye(n, dtype=torch.float64)
            d = S.sum(1).pow(-0.5)
            dense = (d[:, None] * S * d[None, :]) @ x @ conv.lin.weight.t() + conv.bias
            got = conv(x, ei)
            worst_dense = max(worst_dense, (got - dense).abs().max().item())
            b = torch.randint(0, 3, (n,), generator=g)
            pooled = plain_global_add_pool(got, b, 3)
            ref = torch.stack([got[b == k].sum(0) for k in range(3)])
            worst_dense = max(worst_dense, (pooled - ref).abs().max().item())
            if PygGCNConv is not None:
                pc = PygGCNConv(fin, fout).double()
                pc.load_state_dict(conv.state_dict())
                worst_pyg = max(worst_pyg, (pc(x, ei) - got).abs().max().item(),
                                (pyg_global_add_pool(got, b, 3) - pooled).abs().max().item())
    log(f"self-test on {graphs} random graphs: plain GCNConv/pool vs dense formula max diff {worst_dense:.2e}"
        + (f", vs torch_geometric {worst_pyg:.2e}" if PygGCNConv is not None else " (torch_geometric not installed)"))
    if worst_dense > 1e-10 or worst_pyg > 1e-10:
        raise SystemExit("self-test failed")
    return {"graphs": graphs, "max_diff_dense": worst_dense,
            "max_diff_torch_geometric": worst_pyg if PygGCNConv is not None else None}

SIDE = 7
VOX = SIDE ** 3
COUNT_KEYS = ["stencils", "inputs", "edges", "dependencies", "depth", "max_width"]
CLASSES = ["producer-consumer", "parallel"]


def split(records, summary, seed):
    """The programs that ran, the sizes, and the split by program: 10% held out, of the rest a validation tenth
    (it picks the variant and the epoch; the held-out set stays untouched) and the training programs; the
    hand-written examples apart. Returns (ok, sizes, train, validation, held_out, examples)."""
    ok = [r for r in records if all("error" not in t for t in r["times"].values())]
    sizes = summary["sizes"] if summary else sorted({int(s) for r in ok for s in r["times"]})
    examples = [r for r in ok if r.get("source") == "file"]
    # A dataset extended later (scripts/merge_labels.py --extend) lists its generated programs per block; each block
    # is split on its own, so that the earlier blocks keep their split.
    generated_all = [r for r in records if r.get("source") == "generated"]
    blocks = (summary or {}).get("split_blocks", [len(generated_all)])
    if sum(blocks) != len(generated_all):
        raise SystemExit(f"split_blocks {blocks} do not add up to the {len(generated_all)} generated programs")
    ran = {id(r) for r in ok}
    train_p, val_p, test_p, start = [], [], [], 0
    for n in blocks:
        generated = [r for r in generated_all[start:start + n] if id(r) in ran]
        start += n
        order = list(range(len(generated)))
        random.Random(seed).shuffle(order)
        n_test = len(order) // 10
        test_p += [generated[i] for i in order[:n_test]]
        rest = [generated[i] for i in order[n_test:]]
        val_p += rest[:n_test]
        train_p += rest[n_test:]
    return ok, sizes, train_p, val_p, test_p, examples


def size_feature(n):
    return math.log2(n) - 7.0  # 128 -> 0, 256 -> 1


PLAN_COUNT = {0: 0, 1: 6, 2: 24}      # core/dag/dag_model.hpp: plan_features(), plan_features_v2()
PLAN_KEY = {1: "plan", 2: "plan2"}    # where dag-label writes them in a record


class Patterns:
    """The distinct access tensors (C channels of 7x7x7) met so far: 65k accesses of the dataset are 4k patterns,
    so a batch runs the CNN once per distinct pattern it holds (the same outputs and gradients as per access)."""

    def __init__(self, channels, dtype=torch.float32):
        self.channels, self.dtype, self.index, self.rows = channels, dtype, {}, []

    def get(self, on, producer):
        key = (bool(producer) and self.channels > 1, tuple(on))
        if key not in self.index:
            a = torch.zeros(self.channels, VOX, dtype=self.dtype)
            a[0, list(on)] = 1.0
            if key[0]:
                a[1, list(on)] = 1.0
            self.index[key] = len(self.rows)
            self.rows.append(a.view(self.channels, SIDE, SIDE, SIDE))
            self._table = None
        return self.index[key]

    def table(self):
        if getattr(self, "_table", None) is None:
            self._table = torch.stack(self.rows)
        return self._table


class Sample:
    """One (program, grid size): the pattern of each access that exists (operators' first `slots` grid reads),
    where each one's CNN feature goes (node * slots + slot), the appended node features (grid size, then plan
    features), the edges both ways and the label."""
    __slots__ = ("pat", "target", "feats", "edge_index", "y", "margin", "n")


def make_sample(rec, size, slots, patterns, plan_version=0, dtype=torch.float32):
    n = rec["nodes"]
    stencil_nodes = {op["node"] for op in rec["ops"]}
    pat, target = [], []
    for op in rec["ops"]:
        for s, (grid, on) in enumerate(op["reads"][:slots]):
            pat.append(patterns.get(on, grid in stencil_nodes))
            target.append(op["node"] * slots + s)
    smp = Sample()
    smp.pat = torch.tensor(pat, dtype=torch.long)
    smp.target = torch.tensor(target, dtype=torch.long)
    feats = torch.full((n, 1), size_feature(size), dtype=dtype)
    if plan_version:  # the fusion-plan features follow the grid size
        feats = torch.cat([feats, torch.tensor(rec[PLAN_KEY[plan_version]], dtype=dtype)], dim=1)
    smp.feats = feats
    e = rec["edges"]
    ei = torch.tensor(e, dtype=torch.long).t() if e else torch.zeros(2, 0, dtype=torch.long)
    smp.edge_index = torch.cat([ei, ei.flip(0)], dim=1)
    t = rec["times"][str(size)]
    smp.y = 0 if t["producer-consumer"] <= t["parallel"] else 1
    smp.margin = math.log(t["producer-consumer"] / t["parallel"])  # > 0: parallel faster
    smp.n = n
    return smp


def collate(samples, slots, patterns):
    """A batch: node indices offset per graph, `batch` giving each node's graph, the distinct patterns (`acc`)
    and for every access which of them it is (`inv`)."""
    pat, target, feats, edges, batch = [], [], [], [], []
    off = 0
    for g, s in enumerate(samples):
        pat.append(s.pat)
        target.append(s.target + off * slots)
        feats.append(s.feats)
        edges.append(s.edge_index + off)
        batch.append(torch.full((s.n,), g, dtype=torch.long))
        off += s.n
    u, inv = torch.unique(torch.cat(pat), return_inverse=True)
    return {"acc": patterns.table()[u], "inv": inv, "target": torch.cat(target), "feats": torch.cat(feats),
            "edge_index": torch.cat(edges, dim=1), "batch": torch.cat(batch),
            "y": torch.tensor([s.y for s in samples], dtype=torch.long),
            "margin": torch.tensor([s.margin for s in samples], dtype=feats[0].dtype), "graphs": len(samples)}


class CnnGcn(nn.Module):
    def __init__(self, slots, channels, cnn_hidden, gcn_hidden, plan_version=0, norm=None, dropout=0.0):
        super().__init__()
        self.slots, self.channels, self.cnn_hidden, self.dropout = slots, channels, cnn_hidden, dropout
        self.conv1 = nn.Conv3d(channels, 4, 3)  # 7^3 -> 5^3
        self.conv2 = nn.Conv3d(4, 8, 3)         # 5^3 -> 3^3
        self.fc = nn.Linear(8 * 27, cnn_hidden)
        appended = 1 + PLAN_COUNT[plan_version]
        feat = slots * cnn_hidden + appended
        self.gcn = nn.ModuleList([GCNConv(feat if i == 0 else gcn_hidden, gcn_hidden) for i in range(4)])
        self.out = nn.Linear(gcn_hidden, 2)
        if norm is not None:  # standardisation of the appended columns, exported with the weights
            self.register_buffer("feature_mean", norm[0].clone())
            self.register_buffer("feature_scale", norm[1].clone())
        else:
            self.feature_mean = None

    def cnn(self, acc):  # [m, C, 7, 7, 7] -> [m, H]
        h = F.relu(self.conv1(acc))
        h = F.relu(self.conv2(h))
        return torch.tanh(self.fc(h.flatten(1)))

    def forward(self, acc, inv, target, feats, edge_index, batch, graphs):
        n = feats.shape[0]
        f = torch.zeros(n * self.slots, self.cnn_hidden, dtype=feats.dtype, device=feats.device)
        if acc.shape[0]:
            f = f.index_copy(0, target, self.cnn(acc)[inv])  # empty slots stay zero
        if self.feature_mean is not None:
            feats = (feats - self.feature_mean) / self.feature_scale
        x = torch.cat([f.view(n, -1), feats], dim=1)
        for conv in self.gcn:
            x = torch.tanh(conv(x, edge_index))
            if self.dropout and self.training:
                x = F.dropout(x, self.dropout)
        return self.out(global_add_pool(x, batch, graphs))


class Ensemble(nn.Module):
    """Members of one architecture trained from different seeds; the logits are their mean (what the C++ inference
    computes from a weights file with "members")."""

    def __init__(self, members):
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, *a):
        return torch.stack([m(*a) for m in self.members]).mean(0)


def run_model(model, b):
    return model(b["acc"], b["inv"], b["target"], b["feats"], b["edge_index"], b["batch"], b["graphs"])


def predict(model, samples, slots, patterns, batch_size=1024):
    """Logits [len, 2]."""
    model.eval()
    out = []
    with torch.no_grad():
        for k in range(0, len(samples), batch_size):
            out.append(run_model(model, collate(samples[k:k + batch_size], slots, patterns)).float())
    return torch.cat(out) if out else torch.zeros(0, 2)


def feature_norm(train, appended):
    """Mean and standard deviation of the appended columns over the training nodes (a column that never varies
    keeps scale 1)."""
    x = torch.cat([s.feats for s in train]).double()
    mean, sd = x.mean(0), x.std(0)
    sd[sd < 1e-6] = 1.0
    return mean.float(), sd.float()


def train_cnn_gcn(train, val, patterns, cfg, args, log):
    """Adam with cosine decay (optionally a linear warm-up); batch membership reshuffled every epoch. With
    cfg['select'] the weights of the epoch with the best validation accuracy are kept (checked every 5 epochs in
    the last half): the held-out set plays no part."""
    torch.manual_seed(cfg["seed"])
    slots = args.slots
    norm = feature_norm(train, 1 + PLAN_COUNT[cfg["plan"]]) if cfg["norm"] else None
    model = CnnGcn(slots, cfg["channels"], cfg["cnn"], cfg["gcn"], cfg["plan"], norm, cfg["dropout"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=cfg["wd"])
    epochs = cfg["epochs"]
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    gen = torch.Generator().manual_seed(cfg["seed"])
    yv = torch.tensor([s.y for s in val])
    best = (-1.0, None, 0)
    t0 = time.time()
    for epoch in range(epochs):
        model.train()
        total, correct, loss_sum = 0, 0, 0.0
        perm = torch.randperm(len(train), generator=gen).tolist()
        for k in range(0, len(perm), cfg["batch"]):
            b = collate([train[i] for i in perm[k:k + cfg["batch"]]], slots, patterns)
            logits = run_model(model, b)
            loss = F.cross_entropy(logits, b["y"])
            if cfg["aux"]:  # the logit difference also fitted to the measured margin (Huber), a richer signal
                d = logits[:, 1] - logits[:, 0]
                loss = loss + cfg["aux"] * F.smooth_l1_loss(d, cfg["aux_scale"] * b["margin"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += loss.item() * b["graphs"]
            correct += (logits.argmax(1) == b["y"]).sum().item()
            total += b["graphs"]
        sched.step()
        check = cfg["select"] and epoch >= epochs // 2 and (epoch % 5 == 4 or epoch == epochs - 1)
        if check or epoch % 20 == 0 or epoch == epochs - 1:
            va = float((predict(model, val, slots, patterns).argmax(1) == yv).float().mean())
            log(f"  epoch {epoch}: loss {loss_sum / total:.4f}, train accuracy {correct / total:.4f}, validation {va:.4f}"
                f" ({time.time() - t0:.0f} s)")
            if check and va > best[0]:
                best = (va, {k: v.detach().clone() for k, v in model.state_dict().items()}, epoch + 1)
        if args.max_seconds_per_variant and time.time() - t0 > args.max_seconds_per_variant:
            log(f"  stopped after epoch {epoch}: over {args.max_seconds_per_variant} s")
            break
    model.epochs_run = epoch + 1
    model.epoch_kept = epoch + 1
    if best[1] is not None:
        model.load_state_dict(best[1])
        model.epoch_kept = best[2]
    model.train_seconds = time.time() - t0
    return model



# ---- Baselines on counts ----------------------------------------------------------------------------------------

def counts(rec, size):
    return [rec["counts"][k] for k in COUNT_KEYS] + [size_feature(size)]


def train_mlp(X, y, seed, device, hidden=32, steps=1500):
    torch.manual_seed(seed)
    X = torch.tensor(X, dtype=torch.float32, device=device)
    y = torch.tensor(y, dtype=torch.long, device=device)
    mu, sd = X.mean(0), X.std(0) + 1e-6
    net = nn.Sequential(nn.Linear(X.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                        nn.Linear(hidden, 2)).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    for _ in range(steps):
        loss = F.cross_entropy(net((X - mu) / sd), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    def f(Xt):
        with torch.no_grad():
            Xt = torch.tensor(Xt, dtype=torch.float32, device=device)
            return net((Xt - mu) / sd).argmax(1).cpu().numpy()
    return f


def train_tree(X, y, max_depth=6, min_leaf=5):
    """CART with the Gini impurity: nodes are (feature, threshold, left, right) or a leaf class."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)

    def gini(c1, n):
        p = c1 / n
        return 1 - p * p - (1 - p) * (1 - p)

    def build(idx, depth):
        ys = y[idx]
        major = int(ys.mean() >= 0.5)
        if depth == max_depth or len(idx) < 2 * min_leaf or ys.min() == ys.max():
            return major
        best = None
        for f in range(X.shape[1]):
            order = idx[np.argsort(X[idx, f], kind="stable")]
            xs, ys_sorted = X[order, f], y[order]
            c1 = np.cumsum(ys_sorted)
            n = len(order)
            i = np.arange(min_leaf, n - min_leaf + 1)
            i = i[(i < n) & (xs[np.minimum(i, n - 1)] != xs[i - 1])]  # splits between distinct values
            if len(i) == 0:
                continue
            score = (gini(c1[i - 1], i) * i + gini(c1[-1] - c1[i - 1], n - i) * (n - i)) / n
            k = int(np.argmin(score))  # the first of equal scores, as the loop over i did
            if best is None or score[k] < best[0]:
                best = (score[k], f, (xs[i[k] - 1] + xs[i[k]]) / 2)
        if best is None or best[0] >= gini(ys.sum(), len(ys)) - 1e-12:
            return major
        _, f, thr = best
        return (f, thr, build(idx[X[idx, f] <= thr], depth + 1), build(idx[X[idx, f] > thr], depth + 1))

    tree = build(np.arange(len(y)), 0)

    def predict_one(x):
        t = tree
        while isinstance(t, tuple):
            t = t[2] if x[t[0]] <= t[1] else t[3]
        return t
    return lambda Xt: np.array([predict_one(x) for x in np.asarray(Xt, dtype=float)])


# ---- Figures ------------------------------------------------------------------------------------------------------

def figures(pred, samples):
    """Accuracy and the slowdown of the chosen strategy against the faster of the two (the oracle)."""
    pred = np.asarray(pred)
    correct, slow = [], []
    for p, (rec, size) in zip(pred, samples):
        t = rec["times"][str(size)]
        tp, tq = t["producer-consumer"], t["parallel"]
        best = min(tp, tq)
        chosen = tp if p == 0 else tq
        correct.append(chosen == best)
        slow.append(chosen / best - 1.0)
    slow = np.array(slow)
    return {"accuracy": float(np.mean(correct)) if correct else None,
            "samples": len(correct),
            "mean_slowdown": float(slow.mean()) if len(slow) else None,
            "max_slowdown": float(slow.max()) if len(slow) else None,
            "geomean_slowdown": float(np.exp(np.log1p(slow).mean()) - 1) if len(slow) else None}


def tensors_of(model):
    return {k: {"shape": list(v.shape), "data": [float(f"{x:.9g}") for x in v.detach().cpu().float().flatten().tolist()]}
            for k, v in model.state_dict().items()}


def export_weights(model, cfg, path):
    """One member: its tensors under "tensors". An ensemble: the first member's under "tensors" and every
    member's under "members" (a list of {"tensors": ...}); the logits are the members' mean."""
    out = {"format": "stencil-explorer fusion-choice CNN+GCN, version 1", "config": cfg}
    if isinstance(model, Ensemble):
        out["tensors"] = tensors_of(model.members[0])
        out["members"] = [{"tensors": tensors_of(m)} for m in model.members]
    else:
        out["tensors"] = tensors_of(model)
    with open(path, "w") as f:
        json.dump(out, f)
        f.write("\n")


VARIANT_DEFAULTS = {"channels": 2, "cnn": 6, "gcn": 8, "plan": 0, "norm": 0, "dropout": 0.0, "epochs": 200,
                    "lr": 3e-3, "wd": 1e-4, "batch": 128, "select": 0, "seed": 0, "aux": 0.0, "aux_scale": 10.0,
                    "members": 1}
VARIANTS = {  # the named variants; NAME:key=value:... on the command line overrides any of these
    "paper": {"channels": 1},                                   # the paper's input: access bits only
    "typed": {},                                                # + a channel marking reads of stencil nodes
    "plan": {"plan": 1},                                        # + fusion-plan features version 1 (6 a node)
    "plan_wide": {"plan": 1, "cnn": 16, "gcn": 32},
    "plan2": {"plan": 2, "norm": 1},                            # + version 2 (24 a node), standardised
    "plan2_wide": {"plan": 2, "norm": 1, "cnn": 16, "gcn": 32},
}


def parse_variant(spec):
    parts = spec.split(":")
    name = parts[0]
    base = name.split("@")[0]  # "plan2@lr01:lr=0.01" runs plan2 with lr 0.01 under its own name
    if base not in VARIANTS:
        raise SystemExit(f"unknown variant '{base}' (one of {', '.join(VARIANTS)})")
    cfg = dict(VARIANT_DEFAULTS, **VARIANTS[base])
    for kv in parts[1:]:
        k, v = kv.split("=")
        if k not in cfg:
            raise SystemExit(f"variant {name}: unknown setting '{k}'")
        cfg[k] = type(VARIANT_DEFAULTS[k])(float(v)) if isinstance(VARIANT_DEFAULTS[k], int) else float(v)
    return name, cfg


def aggregate(rec, size):
    """A program-level vector for the models of the accuracy bound: the counts, the grid size, and the sums over
    nodes of the version-2 plan features (what the add pool could compute), their maxima over nodes."""
    p2 = np.array(rec["plan2"], dtype=float)
    return counts(rec, size) + p2.sum(0).tolist() + p2.max(0).tolist() + [size_feature(size) * x for x in p2.sum(0)[[8, 9, 10, 13, 14]]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="dag-label output (.jsonl or .jsonl.gz)")
    ap.add_argument("--out-dir", default="assets/models")
    ap.add_argument("--name", default="fusion_cnn_gcn")
    ap.add_argument("--slots", type=int, default=5, help="accesses per operator kept (the generator: at most 5)")
    ap.add_argument("--variants", default="paper,typed,plan,plan2",
                    help="NAME[@TAG][:key=value...], comma-separated (names: " + ", ".join(VARIANTS) +
                         "; keys: " + ", ".join(VARIANT_DEFAULTS) + "); the best on the validation set is exported")
    ap.add_argument("--max-seconds-per-variant", type=float, default=0)
    ap.add_argument("--seed", type=int, default=0, help="of the split")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-export", action="store_true", help="train and report (to <name>.json) only")
    ap.add_argument("--quick", action="store_true", help="with --no-export: the variants only, no baselines or bound models")
    ap.add_argument("--no-bounds", action="store_true", help="leave out the bound models (MLP, boosted trees on program vectors)")
    ap.add_argument("--merge-variants", default="",
                    help="a <name>.partial.json of an earlier run with the same data and split: its variants' figures "
                         "join this run's table (the exported model is still the best of the variants trained here)")
    ap.add_argument("--self-test", action="store_true", help="only compare the plain GCN layers (and torch_geometric's)")
    args = ap.parse_args()
    t_start = time.time()
    torch.set_num_threads(args.threads)

    def log(msg):
        print(f"[{time.time() - t_start:6.1f}s] {msg}", flush=True)

    st = self_test(log)
    if args.self_test:
        return
    records, summary = load(args.data)
    ok, sizes, train_p, val_p, test_p, examples = split(records, summary, args.seed)
    val_s = [(r, s) for r in val_p for s in sizes]
    train_s = [(r, s) for r in train_p for s in sizes]
    test_s = [(r, s) for r in test_p for s in sizes]
    ex_s = [(r, s) for r in examples for s in sizes]
    # Programs whose representation (accesses and edges) equals another's: a held-out one with a twin in training
    # would not be unseen.
    rep = lambda r: json.dumps([r["ops"], r["edges"]])
    train_reps = {rep(r) for r in train_p + val_p}
    twins = sum(rep(r) in train_reps for r in test_p)
    log(f"{len(records)} programs ({len(records) - len(ok)} with a failed run left out): {len(train_p)} train, "
        f"{len(val_p)} validation, {len(test_p)} held out ({twins} with the representation of a training program), "
        f"{len(examples)} hand-written examples; sizes {sizes}; torch {torch.__version__}, "
        f"torch_geometric {'yes' if PygGCNConv is not None else 'no (plain-torch GCNConv)'}")

    def label(rec, size):
        t = rec["times"][str(size)]
        return 0 if t["producer-consumer"] <= t["parallel"] else 1

    y_train = [label(r, s) for r, s in train_s]
    result = {"dataset": os.path.basename(args.data),
              "gpu": summary.get("device") if summary else None,
              "dataset_date": summary.get("date") if summary else None,
              "classes": CLASSES,
              "train_samples": len(train_s), "validation_samples": len(val_s), "held_out_samples": len(test_s),
              "train_programs": len(train_p), "validation_programs": len(val_p), "held_out_programs": len(test_p),
              "held_out_programs_with_a_training_twin": twins,
              "label_balance_parallel": float(np.mean([label(r, s) for r, s in train_s + test_s])),
              "split": "90/10 by program (seed %d); the 90 split again 80/10 into training and validation, the "
                       "validation tenth picks the exported variant (and, where a variant says so, its epoch)" % args.seed,
              "label": "the faster of producer-consumer and parallel at that size (each the median of 3 timed runs)",
              "self_test": st,
              "variants": {}}
    result["always_parallel"] = figures([1] * len(test_s), test_s)
    result["always_producer_consumer"] = figures([0] * len(test_s), test_s)

    if args.merge_variants:
        with open(args.merge_variants) as f:
            earlier = json.load(f)
        for k in ("train_programs", "validation_programs", "held_out_programs", "split"):
            if earlier.get(k) != result[k]:
                raise SystemExit(f"--merge-variants: {k} differs from this run's")
        trained_here = {parse_variant(v)[0] for v in args.variants.split(",") if v}
        for k, v in earlier["variants"].items():
            if k not in trained_here:
                result["variants"][k] = dict(v, merged_from=os.path.basename(args.merge_variants))
    best = None
    for spec in [v for v in args.variants.split(",") if v]:
        variant, cfg = parse_variant(spec)
        log(f"variant {variant}: {cfg}")
        pats = Patterns(cfg["channels"])
        mk = lambda ss: [make_sample(r, s, args.slots, pats, cfg["plan"]) for r, s in ss]
        g_train, g_val, g_test, g_ex = mk(train_s), mk(val_s), mk(test_s), mk(ex_s)
        members = []
        for i in range(cfg["members"]):
            members.append(train_cnn_gcn(g_train, g_val, pats, dict(cfg, seed=cfg["seed"] + i), args, log))
        model = members[0]
        if len(members) > 1:
            model = Ensemble(members)
            model.epochs_run = sum(m.epochs_run for m in members)
            model.epoch_kept = [m.epoch_kept for m in members]
            model.train_seconds = sum(m.train_seconds for m in members)
        logits_test = predict(model, g_test, args.slots, pats)
        pred_val = predict(model, g_val, args.slots, pats).argmax(1).numpy()
        pred_test = logits_test.argmax(1).numpy()
        pred_train = predict(model, g_train, args.slots, pats).argmax(1).numpy()
        pred_ex = predict(model, g_ex, args.slots, pats).argmax(1).numpy()
        v = {"config": cfg, "plan_features": PLAN_COUNT[cfg["plan"]],
             "epochs_run": model.epochs_run, "epoch_kept": model.epoch_kept,
             "train_seconds": round(model.train_seconds, 1),
             "parameters": sum(p.numel() for p in model.parameters()),
             "train_accuracy": float(np.mean(pred_train == np.array(y_train))),
             "validation": figures(pred_val, val_s),
             "held_out": figures(pred_test, test_s),
             "held_out_by_size": {str(s): figures([p for p, (r, z) in zip(pred_test, test_s) if z == s],
                                                  [(r, z) for r, z in test_s if z == s]) for s in sizes},
             "examples": figures(pred_ex, ex_s)}
        log(f"  {variant}: train {v['train_accuracy']:.4f}, validation {v['validation']['accuracy']:.4f}, held-out "
            f"{v['held_out']['accuracy']:.4f}, mean slowdown {100 * v['held_out']['mean_slowdown']:.2f}%, examples "
            f"{v['examples']['accuracy']:.4f}")
        result["variants"][variant] = v
        key = (v["validation"]["accuracy"], -v["validation"]["mean_slowdown"])
        if best is None or key > best[0]:
            best = (key, variant, v, model, cfg, pred_ex, pred_test)
        with open(os.path.join(args.out_dir, args.name + ".partial.json"), "w") as f:
            json.dump(result, f, indent=1)

    _, variant, v, model, cfg, pred_ex, pred_test = best
    for k, o in result["variants"].items():
        if o.get("merged_from") and (o["validation"]["accuracy"], -o["validation"]["mean_slowdown"]) > best[0]:
            log(f"note: merged variant {k} has the better validation figures but was not trained here")
    result["exported_variant"] = variant
    result["held_out_accuracy"] = v["held_out"]["accuracy"]
    result["held_out_mean_slowdown"] = v["held_out"]["mean_slowdown"]
    result["validation_accuracy"] = v["validation"]["accuracy"]
    result["examples_accuracy"] = v["examples"]["accuracy"]
    result["examples_mean_slowdown"] = v["examples"]["mean_slowdown"]
    # How accuracy depends on the margin between the two strategies (the exported model, held out).
    margin = np.array([abs(math.log(r["times"][str(s)]["producer-consumer"] / r["times"][str(s)]["parallel"]))
                       for r, s in test_s])
    right = np.array([p == label(r, s) for p, (r, s) in zip(pred_test, test_s)])
    bins = [0, 0.02, 0.05, 0.1, 0.2, 0.5, 100]
    result["held_out_by_margin"] = [
        {"margin": f"{bins[i]:.2f}-{bins[i + 1]:.2f}" if bins[i + 1] < 100 else f">{bins[i]:.2f}",
         "samples": int(((margin >= bins[i]) & (margin < bins[i + 1])).sum()),
         "accuracy": float(right[(margin >= bins[i]) & (margin < bins[i + 1])].mean())
         if ((margin >= bins[i]) & (margin < bins[i + 1])).any() else None} for i in range(len(bins) - 1)]
    result["held_out_margin_note"] = "margin = |ln(producer-consumer time / parallel time)|"
    result["examples_predictions"] = [
        {"program": r["name"], "size": s, "predicted": CLASSES[int(p)],
         "measured_best": CLASSES[label(r, s)],
         "producer_consumer_ms": r["times"][str(s)]["producer-consumer"] * 1e3,
         "parallel_ms": r["times"][str(s)]["parallel"] * 1e3} for p, (r, s) in zip(pred_ex, ex_s)]

    if args.quick and args.no_export:
        with open(os.path.join(args.out_dir, args.name + ".json"), "w") as f:
            json.dump(result, f, indent=2)
        log(f"best on validation: {variant}")
        return
    # Baselines on counts.
    Xtr = [counts(r, s) for r, s in train_s]
    Xte = [counts(r, s) for r, s in test_s]
    Xex = [counts(r, s) for r, s in ex_s]
    device = torch.device("cpu")
    mlp = train_mlp(Xtr, y_train, args.seed, device)
    tree = train_tree(Xtr, y_train)
    result["baselines"] = {
        "features": COUNT_KEYS + ["log2(grid size) - 7"],
        "mlp": {"held_out": figures(mlp(Xte), test_s), "examples": figures(mlp(Xex), ex_s),
                "model": "2 hidden layers of 32 (ReLU), standardised inputs, Adam 1500 full-batch steps"},
        "decision_tree": {"held_out": figures(tree(Xte), test_s), "examples": figures(tree(Xex), ex_s),
                          "model": "CART, Gini, depth <= 6, >= 5 samples a leaf"}}
    # The cost model's two ratios (the last two plan features): PC wins where log(bytes ratio) + w log(FLOP ratio)
    # <= c, w and c searched on the training set. Not learned from the representation: a yardstick.
    def ratios(rec):
        return rec["plan"][0][4], rec["plan"][0][5]
    rb = np.array([ratios(r)[0] for r, s in train_s])
    rf = np.array([ratios(r)[1] for r, s in train_s])
    pc_wins = np.array([label(r, s) == 0 for r, s in train_s])
    best_rule = None
    for w in [x / 10 for x in range(0, 41)]:
        score = rb + w * rf
        for c in [x / 100 for x in range(-150, 101, 2)]:
            acc = float(np.mean((score <= c) == pc_wins))
            if best_rule is None or acc > best_rule[0]:
                best_rule = (acc, w, c)
    _, w, c = best_rule
    rule = lambda samples: [0 if ratios(r)[0] + w * ratios(r)[1] <= c else 1 for r, s in samples]
    result["baselines"]["cost_model_rule"] = {
        "held_out": figures(rule(test_s), test_s), "examples": figures(rule(ex_s), ex_s),
        "model": f"producer-consumer where log(PC bytes/seq bytes) + {w} log(PC FLOPs/seq FLOPs) <= {c} (fit on training)"}
    # A bound from other model kinds on program-level vectors (counts, size, sums and maxima of the version-2
    # plan features): an MLP, and gradient-boosted trees where scikit-learn is installed. Picked on validation.
    if not args.no_bounds and all("plan2" in r for r, _ in train_s[:1] + test_s[:1]):
        Atr = np.array([aggregate(r, s) for r, s in train_s])
        Ava = np.array([aggregate(r, s) for r, s in val_s])
        Ate = np.array([aggregate(r, s) for r, s in test_s])
        Aex = np.array([aggregate(r, s) for r, s in ex_s])
        yv = np.array([label(r, s) for r, s in val_s])
        bound = {}
        f = train_mlp(Atr, y_train, args.seed, device, hidden=32, steps=1500)
        bound["mlp"] = {"validation": figures(f(Ava), val_s), "held_out": figures(f(Ate), test_s),
                        "examples": figures(f(Aex), ex_s),
                        "model": "2 hidden layers of 32 (ReLU), standardised inputs, 1500 full-batch Adam steps"}
        try:
            from sklearn.ensemble import GradientBoostingClassifier
            for depth, n_est in [(3, 300), (5, 300)]:
                gb = GradientBoostingClassifier(n_estimators=n_est, max_depth=depth, learning_rate=0.1,
                                                random_state=args.seed).fit(Atr, y_train)
                bound[f"gbdt_d{depth}"] = {"validation": figures(gb.predict(Ava), val_s),
                                           "held_out": figures(gb.predict(Ate), test_s),
                                           "examples": figures(gb.predict(Aex), ex_s),
                                           "model": f"scikit-learn gradient boosting, {n_est} trees of depth {depth}"}
            # How well each strategy's time itself is predicted from the same vectors, by the size of the largest
            # producer-consumer kernel (its distinct loaded points, plan2 column 11): where the choice goes wrong.
            from sklearn.ensemble import GradientBoostingRegressor
            kernel_pts = np.array([max(row[11] for row in r["plan2"]) * 64 for r, s in val_s])
            times = {}
            for strat in ["producer-consumer", "parallel"]:
                t = lambda ss: np.array([math.log(r["times"][str(s)][strat] / s ** 3) for r, s in ss])
                reg = GradientBoostingRegressor(n_estimators=300, max_depth=4, learning_rate=0.05, subsample=0.8,
                                                random_state=args.seed).fit(Atr, t(train_s))
                err = reg.predict(Ava) - t(val_s)
                edges = [0, 20, 40, 60, 80, 120, 10000]
                times[strat] = {"validation_rmse_log_time": float(np.sqrt((err ** 2).mean())),
                                "by_largest_pc_kernel_points": [
                                    {"points": f"{edges[i]}-{edges[i + 1]}", "samples": int(m.sum()),
                                     "rmse_log_time": float(np.sqrt((err[m] ** 2).mean()))}
                                    for i in range(len(edges) - 1)
                                    for m in [(kernel_pts >= edges[i]) & (kernel_pts < edges[i + 1])] if m.any()]}
            bound["time_regression"] = times
        except ImportError:
            pass
        result["bound_models"] = bound
        for k, b in bound.items():
            if k == "time_regression":
                continue
            log(f"bound {k}: validation {b['validation']['accuracy']:.4f}, held-out {b['held_out']['accuracy']:.4f}")
    log(f"baselines: MLP {result['baselines']['mlp']['held_out']['accuracy']:.4f}, decision tree "
        f"{result['baselines']['decision_tree']['held_out']['accuracy']:.4f}, cost-model rule "
        f"{result['baselines']['cost_model_rule']['held_out']['accuracy']:.4f}")

    result["train_seconds"] = time.time() - t_start
    result["torch"] = torch.__version__
    result["trained_on"] = ("CPU, Debian's PyTorch (python3-torch), " + torch.get_num_threads().__str__() + " threads; "
                            + ("torch_geometric's GCNConv" if PygGCNConv is not None else
                               "GCNConv and global_add_pool in plain torch (PlainGCNConv, self-tested)"))
    if args.no_export:
        with open(os.path.join(args.out_dir, args.name + ".json"), "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
        log(f"best on validation: {variant} (held out {result['held_out_accuracy']:.4f}); not exported")
        return
    os.makedirs(args.out_dir, exist_ok=True)
    wcfg = {"slots": args.slots, "channels": cfg["channels"], "cnn_hidden": cfg["cnn"], "gcn_hidden": cfg["gcn"],
            "plan_features": cfg["plan"] > 0, "plan_version": cfg["plan"], "standardised": bool(cfg["norm"]),
            "members": cfg["members"],
            "side": SIDE, "size_feature": "log2(n) - 7", "classes": CLASSES, "variant": variant}
    export_weights(model, wcfg, os.path.join(args.out_dir, args.name + ".weights.json"))
    # Reference outputs in float64 from the exported (float32-rounded) weights: what the C++ inference must give.
    with open(os.path.join(args.out_dir, args.name + ".weights.json")) as f:
        wj = json.load(f)
    refs_members = []
    for tensors in [m["tensors"] for m in wj["members"]] if "members" in wj else [wj["tensors"]]:
        sd = {k: torch.tensor(t["data"], dtype=torch.float64).view(t["shape"]) for k, t in tensors.items()}
        norm = (sd["feature_mean"], sd["feature_scale"]) if "feature_mean" in sd else None
        m = CnnGcn(args.slots, cfg["channels"], cfg["cnn"], cfg["gcn"], cfg["plan"], norm).double()
        m.load_state_dict(sd)
        refs_members.append(m)
    ref_model = (Ensemble(refs_members) if len(refs_members) > 1 else refs_members[0]).double()
    ref_model.eval()
    refs = []
    with torch.no_grad():
        for r, s in ex_s:
            p64 = Patterns(cfg["channels"], torch.float64)
            g = make_sample(r, s, args.slots, p64, cfg["plan"], torch.float64)
            logits = run_model(ref_model, collate([g], args.slots, p64))[0]
            refs.append({"program": r["name"], "size": s, "logits": logits.tolist(),
                         "probabilities": torch.softmax(logits, 0).tolist()})
    with open(os.path.join(args.out_dir, args.name + ".reference.json"), "w") as f:
        json.dump({"note": "float64 outputs of the exported weights on assets/dags programs (train_fusion_model.py)",
                   "outputs": refs}, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out_dir, args.name + ".json"), "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    log(f"exported {variant}: validation {result['validation_accuracy']:.4f}, held-out accuracy "
        f"{result['held_out_accuracy']:.4f}")


if __name__ == "__main__":
    main()
