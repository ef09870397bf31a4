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
taken from the 90 is the validation set. Baselines on counts
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
import gzip
import json
import math
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch_geometric.data import Batch, Data
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GCNConv, global_add_pool

SIDE = 7
VOX = SIDE ** 3
COUNT_KEYS = ["stencils", "inputs", "edges", "dependencies", "depth", "max_width"]
CLASSES = ["producer-consumer", "parallel"]


def load(path):
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


def size_feature(n):
    return math.log2(n) - 7.0  # 128 -> 0, 256 -> 1


PLAN_FEATURES = 6  # core/dag/dag_model.hpp, plan_features()


def make_graph(rec, size, slots, channels, plan=False, dtype=torch.float32):
    n = rec["nodes"]
    acc = torch.zeros(n, slots, channels, VOX)
    mask = torch.zeros(n, slots)
    stencil_nodes = {op["node"] for op in rec["ops"]}
    for op in rec["ops"]:
        for s, (grid, on) in enumerate(op["reads"][:slots]):
            acc[op["node"], s, 0, on] = 1.0
            if channels > 1 and grid in stencil_nodes:
                acc[op["node"], s, 1, on] = 1.0
            mask[op["node"], s] = 1.0
    e = rec["edges"]
    if e:
        ei = torch.tensor(e, dtype=torch.long).t()
        ei = torch.cat([ei, ei.flip(0)], dim=1)
    else:
        ei = torch.zeros(2, 0, dtype=torch.long)
    t = rec["times"][str(size)]
    y = 0 if t["producer-consumer"] <= t["parallel"] else 1
    gsize = torch.full((n, 1), size_feature(size), dtype=dtype)
    if plan:  # the fusion-plan features follow the grid size
        gsize = torch.cat([gsize, torch.tensor(rec["plan"], dtype=dtype)], dim=1)
    return Data(acc=acc.view(n, slots, channels, SIDE, SIDE, SIDE), mask=mask,
                gsize=gsize, edge_index=ei, y=torch.tensor([y]), num_nodes=n)


class CnnGcn(nn.Module):
    def __init__(self, slots, channels, cnn_hidden, gcn_hidden, plan=False):
        super().__init__()
        self.slots, self.channels = slots, channels
        self.conv1 = nn.Conv3d(channels, 4, 3)  # 7^3 -> 5^3
        self.conv2 = nn.Conv3d(4, 8, 3)         # 5^3 -> 3^3
        self.fc = nn.Linear(8 * 27, cnn_hidden)
        feat = slots * cnn_hidden + 1 + (PLAN_FEATURES if plan else 0)
        self.gcn = nn.ModuleList([GCNConv(feat if i == 0 else gcn_hidden, gcn_hidden) for i in range(4)])
        self.out = nn.Linear(gcn_hidden, 2)

    def cnn(self, acc):  # [m, C, 7, 7, 7] -> [m, H]
        h = F.relu(self.conv1(acc))
        h = F.relu(self.conv2(h))
        return torch.tanh(self.fc(h.flatten(1)))

    def forward(self, acc, mask, gsize, edge_index, batch):
        n = acc.shape[0]
        f = self.cnn(acc.reshape(n * self.slots, self.channels, SIDE, SIDE, SIDE)).view(n, self.slots, -1)
        f = (f * mask.unsqueeze(-1)).flatten(1)  # empty slots contribute zeros
        x = torch.cat([f, gsize], dim=1)
        for conv in self.gcn:
            x = torch.tanh(conv(x, edge_index))
        return self.out(global_add_pool(x, batch))


def predict(model, graphs, device, batch_size=256):
    model.eval()
    out = []
    with torch.no_grad():
        for b in DataLoader(graphs, batch_size=batch_size):
            b = b.to(device)
            out.append(model(b.acc, b.mask, b.gsize, b.edge_index, b.batch).float().cpu())
    return torch.cat(out) if out else torch.zeros(0, 2)


def train_cnn_gcn(train, device, args, slots, channels, cnn_hidden, gcn_hidden, plan, log):
    torch.manual_seed(args.seed)
    model = CnnGcn(slots, channels, cnn_hidden, gcn_hidden, plan).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    # Batches collated once and kept on the device (collating every epoch costs more than the training); their
    # order is shuffled every epoch, their membership is fixed by the seed.
    perm = torch.randperm(len(train), generator=torch.Generator().manual_seed(args.seed)).tolist()
    batches = [Batch.from_data_list([train[i] for i in perm[k:k + args.batch]]).to(device)
               for k in range(0, len(perm), args.batch)]
    t0 = time.time()
    for epoch in range(args.epochs):
        model.train()
        total, correct, loss_sum = 0, 0, 0.0
        for bi in torch.randperm(len(batches)).tolist():
            b = batches[bi]
            logits = model(b.acc, b.mask, b.gsize, b.edge_index, b.batch)
            loss = F.cross_entropy(logits, b.y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_sum += loss.item() * b.num_graphs
            correct += (logits.argmax(1) == b.y).sum().item()
            total += b.num_graphs
        sched.step()
        if epoch % 20 == 0 or epoch == args.epochs - 1:
            log(f"  epoch {epoch}: loss {loss_sum / total:.4f}, train accuracy {correct / total:.4f}")
        if args.max_seconds_per_variant and time.time() - t0 > args.max_seconds_per_variant:
            log(f"  stopped after epoch {epoch}: over {args.max_seconds_per_variant} s")
            break
    model.epochs_run = epoch + 1
    return model


# ---- Baselines on counts ----------------------------------------------------------------------------------------

def counts(rec, size):
    return [rec["counts"][k] for k in COUNT_KEYS] + [size_feature(size)]


def train_mlp(X, y, seed, device):
    torch.manual_seed(seed)
    X = torch.tensor(X, dtype=torch.float32, device=device)
    y = torch.tensor(y, dtype=torch.long, device=device)
    mu, sd = X.mean(0), X.std(0) + 1e-6
    net = nn.Sequential(nn.Linear(X.shape[1], 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2)).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    for _ in range(1500):
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
            for i in range(min_leaf, n - min_leaf + 1):
                if xs[i - 1] == xs[i]:
                    continue
                left = gini(c1[i - 1], i) * i
                right = gini(c1[-1] - c1[i - 1], n - i) * (n - i)
                score = (left + right) / n
                if best is None or score < best[0]:
                    best = (score, f, (xs[i - 1] + xs[i]) / 2)
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


def export_weights(model, cfg, path):
    tensors = {}
    for k, v in model.state_dict().items():
        tensors[k] = {"shape": list(v.shape), "data": [float(f"{x:.9g}") for x in v.detach().cpu().float().flatten().tolist()]}
    with open(path, "w") as f:
        json.dump({"format": "stencil-explorer fusion-choice CNN+GCN, version 1", "config": cfg, "tensors": tensors}, f)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="dag-label output (.jsonl or .jsonl.gz)")
    ap.add_argument("--out-dir", default="assets/models")
    ap.add_argument("--name", default="fusion_cnn_gcn")
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--slots", type=int, default=5, help="accesses per operator kept (the generator: at most 5)")
    ap.add_argument("--variants", default="paper:1:6:8,typed:2:6:8,plan:2:6:8:plan,plan_wide:2:16:32:plan",
                    help="name:channels:cnn_hidden:gcn_hidden[:plan], comma-separated; the best on the validation set "
                         "is exported")
    ap.add_argument("--weight-decay", type=float, default=1e-4)
    ap.add_argument("--max-seconds-per-variant", type=float, default=0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t_start = time.time()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def log(msg):
        print(f"[{time.time() - t_start:6.1f}s] {msg}", flush=True)

    records, summary = load(args.data)
    ok = [r for r in records if all("error" not in t for t in r["times"].values())]
    sizes = summary["sizes"] if summary else sorted({int(s) for r in ok for s in r["times"]})
    generated = [r for r in ok if r.get("source") == "generated"]
    examples = [r for r in ok if r.get("source") == "file"]
    rng = random.Random(args.seed)
    order = list(range(len(generated)))
    rng.shuffle(order)
    n_test = len(order) // 10
    test_p = [generated[i] for i in order[:n_test]]
    rest = [generated[i] for i in order[n_test:]]
    # A validation tenth of the training programs picks the variant (the held-out set stays untouched).
    val_p, train_p = rest[:n_test], rest[n_test:]
    val_s = [(r, s) for r in val_p for s in sizes]
    train_s = [(r, s) for r in train_p for s in sizes]
    test_s = [(r, s) for r in test_p for s in sizes]
    ex_s = [(r, s) for r in examples for s in sizes]
    log(f"{len(records)} programs ({len(records) - len(ok)} with a failed run left out): {len(train_p)} train, "
        f"{len(val_p)} validation, {len(test_p)} held out, {len(examples)} hand-written examples; sizes {sizes}; device {device}")

    def label(rec, size):
        t = rec["times"][str(size)]
        return 0 if t["producer-consumer"] <= t["parallel"] else 1

    y_train = [label(r, s) for r, s in train_s]
    result = {"dataset": os.path.basename(args.data),
              "gpu": summary.get("device") if summary else None,
              "dataset_date": summary.get("date") if summary else None,
              "classes": CLASSES,
              "train_samples": len(train_s), "held_out_samples": len(test_s),
              "train_programs": len(train_p), "held_out_programs": len(test_p),
              "label_balance_parallel": float(np.mean([label(r, s) for r, s in train_s + test_s])),
              "validation_programs": len(val_p),
              "split": "90/10 by program (seed %d); the 90 split again 80/10 into training and validation, the "
                       "validation tenth picks the exported variant" % args.seed,
              "epochs": args.epochs,
              "variants": {}}

    # Trivial choices and the oracle over all four strategies (how much the two-way choice leaves on the table).
    result["always_parallel"] = figures([1] * len(test_s), test_s)
    result["always_producer_consumer"] = figures([0] * len(test_s), test_s)

    best = None
    for spec in args.variants.split(","):
        parts = spec.split(":")
        variant, channels, cnn_hidden, gcn_hidden = parts[0], int(parts[1]), int(parts[2]), int(parts[3])
        plan = len(parts) > 4 and parts[4] == "plan"
        log(f"variant {variant}: {channels} input channel(s), CNN hidden {cnn_hidden}, GCN hidden {gcn_hidden}, "
            f"plan features {plan}")
        g_train = [make_graph(r, s, args.slots, channels, plan) for r, s in train_s]
        g_val = [make_graph(r, s, args.slots, channels, plan) for r, s in val_s]
        g_test = [make_graph(r, s, args.slots, channels, plan) for r, s in test_s]
        g_ex = [make_graph(r, s, args.slots, channels, plan) for r, s in ex_s]
        model = train_cnn_gcn(g_train, device, args, args.slots, channels, cnn_hidden, gcn_hidden, plan, log)
        pred_val = predict(model, g_val, device).argmax(1).numpy()
        pred_test = predict(model, g_test, device).argmax(1).numpy()
        pred_train = predict(model, g_train, device).argmax(1).numpy()
        pred_ex = predict(model, g_ex, device).argmax(1).numpy()
        v = {"channels": channels, "cnn_hidden": cnn_hidden, "gcn_hidden": gcn_hidden, "plan_features": plan,
             "epochs_run": model.epochs_run,
             "parameters": sum(p.numel() for p in model.parameters()),
             "train_accuracy": float(np.mean(pred_train == np.array(y_train))),
             "validation": figures(pred_val, val_s),
             "held_out": figures(pred_test, test_s),
             "held_out_by_size": {str(s): figures([p for p, (r, z) in zip(pred_test, test_s) if z == s],
                                                  [(r, z) for r, z in test_s if z == s]) for s in sizes},
             "examples": figures(pred_ex, ex_s)}
        log(f"  {variant}: validation {v['validation']['accuracy']:.4f}, held-out accuracy {v['held_out']['accuracy']:.4f}, mean slowdown "
            f"{100 * v['held_out']['mean_slowdown']:.2f}%, examples {v['examples']['accuracy']}")
        result["variants"][variant] = v
        if best is None or v["validation"]["accuracy"] > best[1]["validation"]["accuracy"]:
            best = (variant, v, model, channels, pred_ex, cnn_hidden, gcn_hidden, plan)

    variant, v, model, channels, pred_ex, cnn_hidden, gcn_hidden, plan = best
    result["exported_variant"] = variant
    result["held_out_accuracy"] = v["held_out"]["accuracy"]
    result["held_out_mean_slowdown"] = v["held_out"]["mean_slowdown"]
    result["examples_accuracy"] = v["examples"]["accuracy"]
    result["examples_mean_slowdown"] = v["examples"]["mean_slowdown"]
    result["examples_predictions"] = [
        {"program": r["name"], "size": s, "predicted": CLASSES[int(p)],
         "measured_best": CLASSES[label(r, s)],
         "producer_consumer_ms": r["times"][str(s)]["producer-consumer"] * 1e3,
         "parallel_ms": r["times"][str(s)]["parallel"] * 1e3} for p, (r, s) in zip(pred_ex, ex_s)]

    # Baselines on counts.
    Xtr = [counts(r, s) for r, s in train_s]
    Xte = [counts(r, s) for r, s in test_s]
    Xex = [counts(r, s) for r, s in ex_s]
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
    log(f"baselines: MLP {result['baselines']['mlp']['held_out']['accuracy']:.4f}, decision tree "
        f"{result['baselines']['decision_tree']['held_out']['accuracy']:.4f}, cost-model rule "
        f"{result['baselines']['cost_model_rule']['held_out']['accuracy']:.4f}")

    os.makedirs(args.out_dir, exist_ok=True)
    cfg = {"slots": args.slots, "channels": channels, "cnn_hidden": cnn_hidden, "gcn_hidden": gcn_hidden,
           "plan_features": plan,
           "side": SIDE, "size_feature": "log2(n) - 7", "classes": CLASSES, "variant": variant}
    export_weights(model, cfg, os.path.join(args.out_dir, args.name + ".weights.json"))
    # Reference outputs in float64 from the exported (float32-rounded) weights: what the C++ inference must give.
    ref_model = CnnGcn(args.slots, channels, cnn_hidden, gcn_hidden, plan)
    with open(os.path.join(args.out_dir, args.name + ".weights.json")) as f:
        wj = json.load(f)["tensors"]
    ref_model.load_state_dict({k: torch.tensor(t["data"], dtype=torch.float64).view(t["shape"]) for k, t in wj.items()})
    ref_model = ref_model.double().eval()
    refs = []
    with torch.no_grad():
        for r, s in ex_s:
            g = make_graph(r, s, args.slots, channels, plan, torch.float64)
            logits = ref_model(g.acc.double(), g.mask.double(), g.gsize.double(), g.edge_index,
                               torch.zeros(g.num_nodes, dtype=torch.long))[0]
            refs.append({"program": r["name"], "size": s, "logits": logits.tolist(),
                         "probabilities": torch.softmax(logits, 0).tolist()})
    with open(os.path.join(args.out_dir, args.name + ".reference.json"), "w") as f:
        json.dump({"note": "float64 outputs of the exported weights on assets/dags programs (train_fusion_model.py)",
                   "outputs": refs}, f, indent=1)
        f.write("\n")
    result["train_seconds"] = time.time() - t_start
    result["torch"] = torch.__version__
    with open(os.path.join(args.out_dir, args.name + ".json"), "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    log(f"exported {variant}: held-out accuracy {result['held_out_accuracy']:.4f}")


if __name__ == "__main__":
    main()
