#!/usr/bin/env python3
"""Benchmark structured cabling: how full its trunks and panels are and what it costs, before
and after a change, on the default plan (10K Slim Fly) and a 100K Dragonfly in 9 halls.

Each side is a source tree (``--before-tree``: a checkout of the code before the change, e.g.
``git worktree add /tmp/before <commit>``; the after side is this repository). Every plan runs
once per side in its own subprocess (``planner plan`` with that tree on ``PYTHONPATH``, wall time
and peak resident memory, kept beside the plan); ``--reuse`` takes plans already in ``--work``
instead of running them. The figures are read back from the plan's files as their users read
them, with the side's own catalog file, not from the planner's internals:

- ``trunks.csv``: trunks, hall trunks, links carried; a trunk's capacity is its part's fibres
  over the fibres of one link of its fibre type (the catalog's transceivers);
- ``bom.xlsx`` (BOM sheet): the extended prices of the patch cords (``fibre``), trunks, panels
  and patch racks (``rack`` lines of a ``per: patch_rack`` part), and the panels bought, whose
  catalog ``ports`` give the ports installed;
- ``summary.json``: the panel ports used (``structured.panel_ports_used``), links, totals;
- ``cables.csv``: the structured links (``segments`` set) cabled point to point instead: each
  on the cheapest ``fibre`` part of its cord's fibre type whose stock length covers its route
  length (``length_m``), the transceivers being the same both ways.

    python benchmarks/bench_structured.py --before-tree /tmp/before
    python benchmarks/bench_structured.py --before-tree /tmp/before --work /tmp/plans --reuse \
        --before-label "main at 4335575"

Results are printed and written to ``benchmarks/STRUCTURED.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import pandas as pd
import yaml

HERE = Path(__file__).resolve().parent
AFTER = HERE.parent
PLANS = {"10k": ("default plan: slimfly:q=19,p=15", []),
         "100k": ("dragonfly:a=26,p=13,h=13,g=296 (9 halls)",
                  ["--topology", "dragonfly:a=26,p=13,h=13,g=296"])}
CATALOG = "modern-100g"
RUN = ("import resource, sys\nfrom planner.cli import main\ncode = main(sys.argv[1:])\n"
       "print('MAXRSS_KIB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
       "sys.exit(code)\n")


def run_plan(tree: Path, args: list[str], out: Path) -> dict:
    """``planner plan`` from ``tree`` into ``out``: wall seconds and peak MiB."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUN, "plan", *args, "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=tree)
    seconds = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"plan from {tree} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    kib = [int(line.split()[1]) for line in proc.stderr.splitlines()
           if line.startswith("MAXRSS_KIB")]
    return {"seconds": seconds, "peak_mib": kib[-1] / 1024.0 if kib else math.nan}


# ----------------------------------------------------------------------------- the catalog

def load_parts(tree: Path) -> dict:
    """The side's catalog file: cables and panels by part-number prefix."""
    data = yaml.safe_load((tree / "catalogs" / f"{CATALOG}.yaml").read_text())
    per_link = {c["fibre"]: c["fibres"] for c in data["cables"]
                if c["kind"] == "transceiver" and "fibres" in c and "fibre" in c}
    return {"cables": data["cables"], "panels": {p["sku"]: p for p in data["panels"]},
            "per_link": per_link,
            "patch_rack": {h["sku"] for h in data.get("rack_hardware", [])
                           if h.get("per") == "patch_rack"}}


def prefix(part: dict) -> str:
    template = part.get("part_numbers")
    return template.split("{")[0] if isinstance(template, str) else part["sku"]


def part_of(parts: dict, sku: str, kind: str) -> dict:
    """The catalog part of ``kind`` whose part-number template gives ``sku`` (longest prefix)."""
    found = [c for c in parts["cables"] if c["kind"] == kind and sku.startswith(prefix(c))]
    return max(found, key=lambda c: len(prefix(c)))


def price(part: dict, length: float) -> float:
    rule = part["price"]
    if "table" in rule:
        return float(rule["table"][length])
    return float(rule.get("fixed", 0)) + float(rule.get("per_m", 0)) * length


def point_to_point(parts: dict, lengths, fibres) -> tuple[float, int]:
    """(dollars, links none reaches): each link on the cheapest cord of its fibre that covers
    it at a stock length."""
    cords = [c for c in parts["cables"] if c["kind"] == "fibre"]
    total, lost = 0.0, 0
    cache: dict = {}
    for length, fibre in zip(lengths, fibres):
        key = (round(float(length), 3), fibre)
        if key not in cache:
            best = math.inf
            for cord in cords:
                if cord["fibre"] != fibre or length > cord["max_reach_m"] + 1e-9:
                    continue
                stock = [s for s in cord.get("stock_lengths", []) if s >= length - 1e-9]
                if cord.get("stock_lengths") and not stock:
                    continue
                best = min(best, price(cord, stock[0] if stock else length))
            cache[key] = best
        if math.isfinite(cache[key]):
            total += cache[key]
        else:
            lost += 1
    return total, lost


# ----------------------------------------------------------------------------- the figures

def figures(out: Path, parts: dict) -> dict:
    summary = json.loads((out / "summary.json").read_text())
    trunks = pd.read_csv(out / "trunks.csv", dtype={"sku": str})
    capacity = [part_of(parts, sku, "trunk") for sku in trunks["sku"]]
    capacity = [c["fibres"] // parts["per_link"][c["fibre"]] for c in capacity]
    bom = pd.read_excel(out / "bom.xlsx", sheet_name="BOM")
    bom = bom[bom["Item"].isin(["fibre", "trunk", "panel", "rack"])]
    money = bom.groupby("Item")["Extended price"].sum()
    racks = bom[(bom["Item"] == "rack") & bom["Part number"].isin(parts["patch_rack"])]
    panels = bom[bom["Item"] == "panel"]
    installed = int(sum(parts["panels"][sku]["ports"] * int(q)
                        for sku, q in zip(panels["Part number"], panels["Quantity"])))
    cables = pd.read_csv(out / "cables.csv", usecols=["length_m", "segments"],
                         dtype={"segments": str}, keep_default_na=False)
    through = cables[cables["segments"] != ""]
    first_cord = through["segments"].str.split(" ", n=4).str[3]
    fibre = [part_of(parts, sku, "fibre")["fibre"] for sku in first_cord]
    direct, unreached = point_to_point(parts, through["length_m"].to_numpy(float), fibre)
    structured = summary["structured"]
    dollars = {"cords": float(money.get("fibre", 0.0)), "trunks": float(money.get("trunk", 0.0)),
               "panels": float(money.get("panel", 0.0)),
               "patch racks": float(racks["Extended price"].sum())}
    return {"links": structured["links"], "cross-hall links": structured["cross_hall_links"],
            "trunks": len(trunks), "hall trunks": int((trunks["kind"] == "hall").sum()),
            "trunk capacity (links)": int(sum(capacity)),
            "links carried by trunks": int(trunks["links"].sum()),
            "trunk fill": trunks["links"].sum() / sum(capacity),
            "panels": int(panels["Quantity"].sum()), "panel ports installed": installed,
            "panel ports used": structured["panel_ports_used"],
            "panel-port use": structured["panel_ports_used"] / installed,
            "patch racks": structured["patch_racks"],
            **{f"$ {k}": v for k, v in dollars.items()},
            "$ structured": sum(dollars.values()),
            "$ point to point (same links)": direct, "links no cord reaches": unreached,
            "$ optics (plan)": summary["cost"]["optics"],
            "$ plan total": summary["cost"]["total"],
            "cabling stage (s)": summary["runtime"]["cabling_s"],
            "placement method": summary["placement"]["method"],
            "placement time-capped": str(summary["placement"].get("time_capped", "-"))}


def cell(name: str, value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, float) and math.isnan(value):
        return "-"
    if name in ("trunk fill", "panel-port use"):
        return f"{100 * value:.1f} %"
    if name.startswith("$"):
        return f"{value:,.0f}"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{value:,}"


READING = """Reading the table. *trunk fill* is the links the trunks carry over the links their
fibres could carry (a link counts once per trunk it passes); *panel-port use* the front ports
carrying a link over those installed. Both sides add the drop into the patch rack to every cord
and trunk, share hall trunks between the row trunks of two halls and mix trunk sizes on a
panel. Before, every link between halls passed four panels: a row trunk per pair of row panels
to its hall's entry, a pass-through entry panel, a hall trunk carrying whole legs of row trunks
(12 links on an OS2 MPO-24 leg), the same at the far hall. At 100K every link between halls is
single-mode duplex LC (CWDM4) and most pairs of row panels in different halls have a few links,
so those row trunks and the hall trunks carrying their legs are about half full. After, a
duplex LC link between halls lands on LC cassette panels in the two hall entries only (its cords
run from the device to the entry rack), and MPO trunks between the two entries carry it, shared
link by link by every row of the two halls and packed to their traffic (an OS2 96-fibre, 48-link
trunk was added to the catalog for them); a cassette counts two mated connections in the loss
check (four per link between halls, as before). Longer cords replace the row trunks, so
*$ cords* rises while trunks, panels and patch racks fall."""


def report(results: dict, before_tree) -> str:
    lines = ["# Structured cabling, before and after\n",
             f"Generated by `python benchmarks/bench_structured.py` on {date.today()}; "
             f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, "
             f"Python {platform.python_version()}. Catalog `{CATALOG}`, floor `hot-aisle`, "
             "placement `optimize` with its default time limit, seed 0. Before: "
             f"{before_tree or 'not run'}; after: this "
             "repository. Figures read back from each plan's `trunks.csv`, `bom.xlsx`, "
             "`summary.json` and `cables.csv` with the side's own catalog file (module doc of "
             "the script). Placement prices the links by the same rule on both sides; the "
             "100K placement stops at its wall-clock safety net on a busy "
             "machine (row *placement time-capped*), which changes the layout.\n"]
    lines.append(READING + "\n")
    for size, sides in results.items():
        lines.append(f"## {PLANS[size][0]}\n")
        names = list(next(iter(sides.values()))["figures"])
        heads = list(sides)
        lines.append("| figure | " + " | ".join(heads) + " |")
        lines.append("|---|" + "---:|" * len(heads))
        for name in names:
            lines.append(f"| {name} | " + " | ".join(cell(name, sides[h]["figures"][name])
                                                      for h in heads) + " |")
        for what in ("seconds", "peak_mib"):
            label = "plan wall time (s)" if what == "seconds" else "plan peak memory (MiB)"
            lines.append(f"| {label} | " + " | ".join(
                cell(label, float(sides[h]["run"].get(what, math.nan))) for h in heads) + " |")
        for h in heads:
            if sides[h]["run"].get("note"):
                lines.append(f"\n{h}: {sides[h]['run']['note']}")
        if {"before", "after"} <= set(sides):
            b, a = sides["before"]["figures"], sides["after"]["figures"]
            lines.append("")
            plant = ("$ trunks", "$ panels", "$ patch racks")
            lines.append(f"Dollars saved on structured cabling (cords, trunks, panels, patch "
                         f"racks): {b['$ structured'] - a['$ structured']:,.0f} "
                         f"({b['$ structured']:,.0f} -> {a['$ structured']:,.0f}); on trunks, "
                         f"panels and patch racks alone: "
                         f"{sum(b[k] - a[k] for k in plant):,.0f}. Plan total "
                         f"{b['$ plan total']:,.0f} -> {a['$ plan total']:,.0f}.")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before-tree", type=Path, help="source tree of the code before")
    parser.add_argument("--work", type=Path, help="where the plans go (default: a temp folder)")
    parser.add_argument("--reuse", action="store_true", help="take plans already in --work")
    parser.add_argument("--sizes", default="10k,100k")
    parser.add_argument("--before-label", help="how the report names the before tree "
                        "(default: its path), e.g. 'main at 4335575'")
    parser.add_argument("--md", dest="report_path", type=Path, default=HERE / "STRUCTURED.md")
    args = parser.parse_args()
    sides = {"before": args.before_tree, "after": AFTER} if args.before_tree else {"after": AFTER}
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        results: dict = {}
        for size in args.sizes.split(","):
            for side, tree in sides.items():
                out = work / f"{side}-{size}"
                timing = work / f"{side}-{size}.run.json"
                if not (args.reuse and (out / "summary.json").exists()):
                    timing.write_text(json.dumps(run_plan(tree.resolve(), PLANS[size][1],
                                                          out.resolve())))
                run = json.loads(timing.read_text()) if timing.exists() else {}
                got = figures(out, load_parts(tree))
                results.setdefault(size, {})[side] = {"run": run, "figures": got}
                print(f"{size} {side}: " + ", ".join(f"{k} {cell(k, v)}" for k, v in got.items())
                      + (f"; {run['seconds']:.0f} s, {run['peak_mib']:.0f} MiB" if run else ""),
                      flush=True)
    args.report_path.write_text(report(results, args.before_label or args.before_tree))
    print(f"wrote {args.report_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
