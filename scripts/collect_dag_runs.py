#!/usr/bin/env python3
"""Collects the JSON files of `stencil-bench dag --strategy all --json F` runs (one per program and size) into the
two records of assets/results/: <GPU>_dag.json (every run as written) and
<GPU>_dag.csv (one row per program, size and strategy). Every run must have passed its check against the CPU
interpreter; a failed one stops the script.

  python3 scripts/collect_dag_runs.py --runs DIR --what "..." --commit SHA --out assets/results/NVIDIA_H200_dag
"""
import argparse
import glob
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True, help="folder of the runs' JSON files")
    ap.add_argument("--what", required=True, help="how the runs were made (the command, the machine, the date)")
    ap.add_argument("--commit", required=True, help="the commit the binaries were built from")
    ap.add_argument("--out", required=True, help="output path without extension")
    a = ap.parse_args()
    programs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(a.runs, "*.json")))]
    if not programs:
        sys.exit(f"no runs in {a.runs}")
    for p in programs:
        for r in p["results"]:
            if not r["passed"]:
                sys.exit(f"{p['program']} {p['domain']} {r['strategy']} failed its check (rel L2 {r['rel_l2_error']})")
    gpus = {p["device"] for p in programs}
    if len(gpus) != 1:
        sys.exit(f"runs from several GPUs: {sorted(gpus)}")
    # As the earlier records: by size, the two hand-written programs first, then the benchmark set by number.
    def order(p):
        name = p["program"]
        n = int(name[2:].split("_")[0]) if name.startswith("cs") else -1
        return (p["domain"][0], n, name)
    programs.sort(key=order)
    with open(a.out + ".json", "w") as f:
        json.dump({"gpu": gpus.pop(), "what": a.what, "commit_of_binaries": a.commit, "programs": programs}, f,
                  indent=1, sort_keys=True)
        f.write("\n")
    with open(a.out + ".csv", "w") as f:
        f.write("program,size,strategy,ms,launches,model_MB,model_MFLOP,effective_GBs,rel_l2,passed,registers,"
                "compile_s,schedule\n")
        for p in programs:
            for r in p["results"]:
                f.write(f"{p['program']},{p['domain'][0]},{r['strategy']},{r['seconds'] * 1e3:.4f},{r['launches']},"
                        f"{r['model_bytes'] / 1e6:.1f},{r['model_flops'] / 1e6:.1f},"
                        f"{r['model_bytes'] / r['seconds'] / 1e9:.0f},{r['rel_l2_error']:.3e},{r['passed']},"
                        f"{r['registers']},{r['compile_seconds']:.3f},\"{r['schedule']}\"\n")
    print(f"{len(programs)} runs -> {a.out}.json, {a.out}.csv")


if __name__ == "__main__":
    main()
