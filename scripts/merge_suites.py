#!/usr/bin/env python3
"""Combines `stencil-bench suite` JSON files measured on one GPU into the file assets/results/ records, when the
suite ran in several device calls (each call is limited in time). Rows are taken whole, never edited:

  merge_suites.py --out assets/results/NVIDIA_H200.json --base A.json \
      [--method-from lorastencil=C.json ...] [--sweep-from B.json] [--method-sweep-from cuda-core=D.json ...]
      [--note TEXT ...] [--csv FILE.csv]

--base           the papers' experiments of every method (its own sweep rows are dropped when --sweep-from is given)
--method-from    FILE's papers rows of METHOD replace the base's rows of the same METHOD, stencil and backend
                 (rows the base lacks are appended; the base's other rows of METHOD stay)
--sweep-from     the size-sweep rows come from FILE
--method-sweep-from  FILE's size-sweep rows of METHOD replace the sweep rows of METHOD with the same stencil, size
                 and backend (after --sweep-from; rows not there before are appended)
--note           a line saying where the rows come from (appended to the base's `sources`, shown above the README table)
--csv            also writes the rows as `stencil-bench suite --csv` does (same columns and number formats)
The GPUs named in the files must agree; `copy_gbs` stays the base file's."""
import argparse
import csv
import json
import sys

# The columns `stencil-bench suite --csv` writes (kernels/bench_suite.cpp), in its order.
CSV_COLUMNS = ("experiment,method,stencil,precision,backend,size,steps,fused_steps,seconds,gstencils,gbs,flops,"
               "roof_fraction,rel_l2_error,max_abs_error,error_bound,passed,checked_steps,timed_rel_l2_error,"
               "timed_max_abs_error,timed_error_bound").split(",")


def csv_field(key, value):
    if key == "size":
        return "x".join(str(n) for n in value)
    if value is None:
        return ""
    if key == "passed":
        return "true" if value else "false"
    if key in ("rel_l2_error", "max_abs_error", "timed_rel_l2_error", "timed_max_abs_error"):
        return f"{value:.3e}"
    if key in ("error_bound", "timed_error_bound"):
        return f"{value:.1e}"
    if key == "roof_fraction":
        return f"{value:.4f}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--method-from", action="append", default=[], metavar="METHOD=FILE")
    ap.add_argument("--sweep-from")
    ap.add_argument("--method-sweep-from", action="append", default=[], metavar="METHOD=FILE")
    ap.add_argument("--note", action="append", default=[])
    ap.add_argument("--csv")
    a = ap.parse_args()

    base = load(a.base)
    rows = list(base.get("results", []))
    gpu = base.get("gpu")

    def same_gpu(other, path):
        if other.get("gpu") != gpu:
            sys.exit(f"{path} was measured on {other.get('gpu')!r}, the base on {gpu!r}")

    def take_method(spec, option, sweep):
        """FILE's rows of METHOD (sweep rows or papers rows) replace those of the same key in place; the rest are
        appended. The key is the stencil and backend, and for sweep rows the size too."""
        if "=" not in spec:
            sys.exit(f"{option} takes METHOD=FILE, not {spec!r}")
        method, path = spec.split("=", 1)
        other = load(path)
        same_gpu(other, path)
        kind = lambda r: r.get("method") == method and (r.get("experiment") == "sweep") == sweep
        taken = [r for r in other.get("results", []) if kind(r)]
        if not taken:
            sys.exit(f"{path} has no {'sweep' if sweep else 'papers'} rows of {method}")
        key = (lambda r: (r.get("stencil"), tuple(r.get("size", [])), r.get("backend"))) if sweep else \
            (lambda r: (r.get("stencil"), r.get("backend")))
        fresh = {key(r): r for r in taken}
        replaced = []
        for i, r in enumerate(rows):
            if kind(r) and key(r) in fresh:
                rows[i] = fresh[key(r)]
                replaced.append(key(r))
        rows.extend(r for r in taken if key(r) not in replaced)

    if a.sweep_from:
        rows = [r for r in rows if r.get("experiment") != "sweep"]
    for spec in a.method_from:
        take_method(spec, "--method-from", sweep=False)
    if a.sweep_from:
        other = load(a.sweep_from)
        same_gpu(other, a.sweep_from)
        sweep = [r for r in other.get("results", []) if r.get("experiment") == "sweep"]
        if not sweep:
            sys.exit(f"{a.sweep_from} has no sweep rows")
        rows += sweep
    for spec in a.method_sweep_from:
        take_method(spec, "--method-sweep-from", sweep=True)

    out = {k: v for k, v in base.items() if k != "results"}
    out["results"] = rows
    if a.note:  # appended: the base's own lines still describe the rows it keeps
        out["sources"] = list(base.get("sources", [])) + a.note
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(CSV_COLUMNS)
            for r in rows:
                w.writerow([csv_field(k, r.get(k)) for k in CSV_COLUMNS])
    print(f"{a.out}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
