#!/usr/bin/env python3
"""Renders the GPU results recorded in assets/results/*.json (the JSON `stencil-bench suite` writes, and the
complex-stencil records <GPU>_dag.json) as the README's results tables, between the <!-- results:begin --> and
<!-- results:end --> markers.
`--check` exits 1 when the README's table is not what the results give (a CTest runs it)."""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def fmt_err(x):
    return "n/a" if x is None else f"{x:.1e}"


def timed_error(r):
    """The timed run's rel L2 (files before the suite's check runs hold it as rel_l2_error)."""
    return r["timed_rel_l2_error"] if "timed_rel_l2_error" in r else r.get("rel_l2_error")


def check(r):
    """ok / FAILED, with the length of the check run where a shorter run from the same input decided."""
    verdict = "ok" if r.get("passed", True) else "FAILED"
    checked = r.get("checked_steps", r.get("steps"))
    return verdict if checked == r.get("steps") else f"{verdict} ({checked} steps: {fmt_err(r.get('rel_l2_error'))})"


STRATEGIES = ("sequential", "producer-consumer", "parallel", "graph", "horizontal", "hybrid")


def render_dag(record, name):
    """A complex-stencil record (`stencil-bench dag --strategy all --json` runs collected by
    scripts/collect_dag_runs.py): each program and size, every strategy's median time, the fastest and its
    speed-up over sequential, and whether every strategy matched the CPU interpreter."""
    lines = [f"**{record.get('gpu', '?')}**, complex stencils — [{name}]({name})\n", f"- {record.get('what', '')}", ""]
    # The strategies the record ran (horizontal and hybrid fusion came later than the first records).
    strategies = [s for s in STRATEGIES if any(r["strategy"] == s for p in record["programs"] for r in p["results"])]
    lines.append("| program | size | " + " | ".join(f"{s} ms" for s in strategies) + " | fastest | speed-up "
                 "over sequential | check |")
    lines.append("| --- | --- | " + " | ".join("---:" for _ in strategies) + " | --- | ---: | --- |")
    speedups = {}
    for p in record["programs"]:
        t = {r["strategy"]: r for r in p["results"]}
        ms = lambda s: f"{t[s]['seconds'] * 1e3:.4f}" if s in t else ""
        ok = all(r["passed"] for r in p["results"])
        passed = [r for r in p["results"] if r["passed"]]
        best = min(passed, key=lambda r: r["seconds"]) if passed else None
        up = t["sequential"]["seconds"] / best["seconds"] if best and "sequential" in t else None
        size = "x".join(str(n) for n in p["domain"])
        if up is not None:
            speedups.setdefault(size, []).append(up)
        lines.append(f"| {p['program']} | {size} | " + " | ".join(ms(s) for s in strategies)
                     + f" | {best['strategy'] if best else ''} | {'' if up is None else f'{up:.2f}x'} | "
                     + ("ok" if ok else "FAILED") + " |")
    lines.append("")
    for size, ups in speedups.items():
        lines.append(f"Mean speed-up of the fastest strategy over sequential at {size}: {sum(ups) / len(ups):.2f}x "
                     f"over {len(ups)} programs.")
    lines.append("")
    return lines


def render():
    lines = []
    for path in sorted(glob.glob(os.path.join(ROOT, "assets", "results", "*.json"))):
        with open(path) as f:
            suite = json.load(f)
        if "programs" in suite:
            # A complex-stencil record: <GPU>_dag.json is the current one (the others are earlier partial runs that
            # notes/complex-stencils.md cites).
            if path.endswith("_dag.json"):
                lines += render_dag(suite, os.path.relpath(path, ROOT))
            continue
        rows = [r for r in suite.get("results", []) if r.get("backend") == "gpu"]
        if not rows:
            continue
        copy = suite.get("copy_gbs")
        name = os.path.relpath(path, ROOT)
        lines.append(f"**{suite.get('gpu', '?')}** — [{name}]({name})"
                     + (f", measured copy bandwidth {copy:.0f} GB/s" if copy else "")
                     + (" (suite incomplete: see the file)" if suite.get("incomplete") else "") + "\n")
        for note in suite.get("sources", []):
            lines.append(f"- {note}")
        if suite.get("sources"):
            lines.append("")
        papers = [r for r in rows if r.get("experiment", "papers") != "sweep"]
        sweep = [r for r in rows if r.get("experiment") == "sweep"]
        # "timed s": the timed run's length. The suite runs every method of an experiment for the reference kernel's
        # steps, so a faster method is timed over less than the call's --seconds (and before 2026-11-29 the first
        # experiment of a call often over a tenth of it: the reference's first launch was timed as a step).
        lines.append("| method | stencil | precision | size | steps fused | timed s | GStencil/s | % of copy roof | rel L2 vs FP64 "
                     "| check |")
        lines.append("| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
        for r in papers:
            size = "x".join(str(n) for n in r.get("size", []))
            roof = r.get("roof_fraction")
            secs = r.get("seconds")
            lines.append(f"| {r['method']} | {r['stencil']} | {r['precision']} | {size} | {r.get('fused_steps', 1)} | "
                         f"{'' if secs is None else f'{secs:.3f}'} | {r['gstencils']:.1f} | {'' if roof is None else f'{100 * roof:.0f}%'} | "
                         f"{fmt_err(timed_error(r))} | {check(r)} |")
        lines.append("")
        if sweep:
            # The size sweep as one row per grid size, one column per method (GStencil/s; * = failed its check).
            methods = list(dict.fromkeys(r["method"] for r in sweep))
            sizes = list(dict.fromkeys("x".join(str(n) for n in r.get("size", [])) for r in sweep))
            cell = {("x".join(str(n) for n in r.get("size", [])), r["method"]): r for r in sweep}
            lines.append(f"Size sweep, {sweep[0]['stencil']} (GStencil/s; * = above the precision's error bound):\n")
            lines.append("| size | " + " | ".join(methods) + " |")
            lines.append("| --- |" + " ---: |" * len(methods))
            for size in sizes:
                vals = []
                for m in methods:
                    r = cell.get((size, m))
                    vals.append("" if r is None else f"{r['gstencils']:.1f}" + ("" if r.get("passed", True) else "*"))
                lines.append(f"| {size} | " + " | ".join(vals) + " |")
            lines.append("")
    if not lines:
        lines = ["No GPU results recorded yet.", ""]
    return "\n".join(lines)


def main():
    readme = os.path.join(ROOT, "README.md")
    with open(readme) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        print(f"README.md lacks the {BEGIN} / {END} markers", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + render() + END + tail
    if "--check" in sys.argv:
        if new != text:
            print("README.md's results table is out of date: run scripts/render_results.py", file=sys.stderr)
            return 1
        print("README.md's results table matches assets/results")
        return 0
    with open(readme, "w") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
