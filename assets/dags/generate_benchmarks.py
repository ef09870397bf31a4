#!/usr/bin/env python3
"""Writes the benchmark set of complex-stencil programs in the paper's naming, csN_kK_iI_eE.dag (K stencil
nodes, I inputs, E edges: (node -> stencil) pairs). Deterministic (fixed seed); run it from anywhere.

Each stencil node reads 1 to 5 grids (the paper: fewer than 6), each at a neighbour pattern of radius 1 to 3
(a star, a line, a plane cross or a box corner), and combines the grids' averages with weights summing to one,
sometimes through a product or a quotient by (1 + x*x), so values stay near the inputs' range [0.5, 1.5).
Stencils read inputs and the stencils of the previous layers, so buckets hold several operators.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
KS = [3, 4, 4, 5, 5, 6, 6, 7, 8, 9, 10, 11, 12, 12]


def pattern(rng, grid):
    kind = rng.choice(["star", "star", "line", "cross", "corner", "centre"])
    r = rng.choice([1, 1, 2, 3])
    pts = [(0, 0, 0)]
    if kind == "star":
        for d in range(1, r + 1):
            for axis in range(3):
                for s in (-d, d):
                    o = [0, 0, 0]
                    o[axis] = s
                    pts.append(tuple(o))
    elif kind == "line":
        axis = rng.randrange(3)
        for d in range(-r, r + 1):
            if d:
                o = [0, 0, 0]
                o[axis] = d
                pts.append(tuple(o))
    elif kind == "cross":
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx or dy:
                    pts.append((dx, dy, 0))
    elif kind == "corner":
        for dx in (0, 1):
            for dy in (0, 1):
                for dz in (0, 1):
                    if dx or dy or dz:
                        pts.append((dx, dy, dz))
    terms = [grid if p == (0, 0, 0) else f"{grid}[{p[0]},{p[1]},{p[2]}]" for p in pts]
    if len(terms) == 1:
        return terms[0]
    return f"({' + '.join(terms)}) * {1.0 / len(terms):.6g}"


def program(pid, k, rng):
    n_inputs = rng.randint(2, 6)
    inputs = [f"in{i}" for i in range(n_inputs)]
    lines = [f"# benchmark program {pid}: {k} stencil nodes over {n_inputs} inputs (generate_benchmarks.py)",
             "PROGRAM", "domain 128 128 128"]
    lines += [f"input {g} f64" for g in inputs]
    stencils, layer_of = [], {}
    used_inputs = set()
    edges = 0
    width = rng.choice([2, 3, 4])
    layer = 0
    while len(stencils) < k:
        this_layer = []
        for _ in range(min(width, k - len(stencils))):
            name = f"s{len(stencils)}"
            prev = [s for s in stencils if layer_of[s] == layer - 1]
            older = [s for s in stencils if layer_of[s] < layer - 1]
            n_reads = min(rng.randint(1, 4), len(inputs) + len(older) + len(prev))
            reads = []
            if prev:
                reads.append(rng.choice(prev))
            while len(reads) < n_reads:
                pool = inputs + older + prev if rng.random() < 0.7 else inputs
                g = rng.choice(pool)
                if g not in reads:
                    reads.append(g)
            for g in reads:
                if g in inputs:
                    used_inputs.add(g)
            weights = [rng.uniform(0.5, 1.5) for _ in reads]
            total = sum(weights)
            terms = [f"{w / total:.4f} * {pattern(rng, g)}" for w, g in zip(weights, reads)]
            form = rng.random()
            if len(terms) >= 2 and form < 0.25:
                expr = f"({terms[0]}) * ({' + '.join(terms[1:])})"
            elif len(terms) >= 2 and form < 0.45:
                expr = f"({' + '.join(terms[:-1])}) / (1.0 + {terms[-1]} * {terms[-1]}) * 2.0"
            elif form < 0.55:
                expr = f"sqrt({' + '.join(terms)})"
            else:
                expr = " + ".join(terms)
            lines.append(f"{name} = {expr}")
            edges += len(reads)
            stencils.append(name)
            layer_of[name] = layer
            this_layer.append(name)
        layer += 1
        width = rng.choice([1, 2, 3, 4])
    # inputs nobody reads are dropped (a const node is an input of some stencil)
    lines = [l for l in lines if not (l.startswith("input ") and l.split()[1] not in used_inputs)]
    n_used = len(used_inputs)
    name = f"cs{pid}_k{k}_i{n_used}_e{edges}"
    lines[1] = f"program {name}"
    return name, "\n".join(lines) + "\n"


def main():
    rng = random.Random(2025)
    for old in os.listdir(HERE):
        if old.startswith("cs") and old.endswith(".dag"):
            os.remove(os.path.join(HERE, old))
    for pid, k in enumerate(KS, start=1):
        name, text = program(pid, k, rng)
        with open(os.path.join(HERE, name + ".dag"), "w") as f:
            f.write(text)
        print(name)


if __name__ == "__main__":
    main()
