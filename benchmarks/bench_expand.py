#!/usr/bin/env python3
"""``planner expand`` against planning the grown system fresh: a Dragonfly grown by about 10 %.

For each size a balanced-radix Dragonfly (a = 2h, p = h) of g groups is planned on the
``hot-aisle`` halls with ``modern-100g``; it is then grown to g' = ⌈1.1 g⌉ groups with
``planner expand``, and the g' system is also planned fresh (strategy ``optimize``, the default
time limit). Each run is its own ``planner`` process, timed by the wall clock, its peak memory
read from ``/usr/bin/time -v``. Reported: the wall time and peak memory of the fresh plan and of
the expansion, their ratio (the issue's target: under 2), and the expansion's cables kept,
moved, removed, added and touched against the lower bound.

    python benchmarks/bench_expand.py                      # 10K endpoints -> EXPAND.md
    python benchmarks/bench_expand.py --sizes 8:72,14:99   # h:g pairs
    python benchmarks/bench_expand.py --sizes 13:296 --results /tmp/expand-100k.md  # 100K
    python benchmarks/bench_expand.py --sizes 8:72,13:296 --bound-only   # touched vs bound

The 1-minute load average is read before the fresh plan, before the expansion and after it
(the machine is shared: the ratio is only meaningful under a similar load for both runs).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*argv: str) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of ``planner ARGV``."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c",
                           "import sys; from planner.cli import main; sys.exit(main())", *argv],
                          capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"planner {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    return seconds, int(peak.group(1)) / 1024 if peak else float("nan")


def bench(h: int, g: int, work: Path) -> dict:
    spec = f"dragonfly:a={2 * h},p={h},h={h}"
    grown_g = math.ceil(1.1 * g)
    common = ["--catalog", "modern-100g", "--floor", "hot-aisle"]
    _run("plan", "--topology", f"{spec},g={g}", *common, "--out", str(work / "standing"))
    load = [os.getloadavg()[0]]
    fresh = _run("plan", "--topology", f"{spec},g={grown_g}", *common,
                 "--out", str(work / "fresh"))
    load.append(os.getloadavg()[0])
    grown = _run("expand", "--from", str(work / "standing"), "--topology",
                 f"{spec},g={grown_g}", "--out", str(work / "grown"))
    load.append(os.getloadavg()[0])
    summary = json.loads((work / "grown" / "summary.json").read_text())
    return {"spec": f"{spec},g={g} -> g={grown_g}",
            "endpoints": summary["topology"]["endpoints"], "fresh_s": fresh[0],
            "fresh_mb": fresh[1], "expand_s": grown[0], "expand_mb": grown[1],
            "ratio": grown[0] / fresh[0], "growth": summary["growth"],
            "load": load}


def touched_against_bound(h: int, g: int) -> tuple[int, int]:
    """(standing cables the Dragonfly growth g -> ⌈1.1 g⌉ touches, its lower bound), from the
    topologies alone (``planner.placement.grown.grow`` on the standing links with their ports
    numbered after the endpoints): no placement, no plan."""
    from collections import Counter

    import numpy as np

    from planner.placement.grown import Standing, grow
    from planner.topologies import parse_spec
    spec = f"dragonfly:a={2 * h},p={h},h={h}"
    old = parse_spec(f"{spec},g={g}")
    u = np.repeat(old.links[:, 0], old.multiplicity)
    v = np.repeat(old.links[:, 1], old.multiplicity)
    used: Counter = Counter()
    ports = []
    for x in np.r_[u, v].tolist():
        used[x] += 1
        ports.append(h + used[x])
    ports = np.array(ports)
    growth = grow(Standing("dragonfly", dict(old.params), old.endpoints, u, ports[:len(u)], v,
                           ports[len(u):]), parse_spec(f"{spec},g={math.ceil(1.1 * g)}"),
                  4 * h)
    new = growth.topology
    pairs = lambda x, y: Counter(zip(np.minimum(x, y).tolist(),  # noqa: E731
                                     np.maximum(x, y).tolist()))
    kept = pairs(u, v) & pairs(np.repeat(new.links[:, 0], new.multiplicity),
                               np.repeat(new.links[:, 1], new.multiplicity))
    return len(u) - sum(kept.values()), growth.lower_bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8:72", help="h:g pairs, comma-separated")
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "EXPAND.md"))
    parser.add_argument("--bound-only", action="store_true",
                        help="print the touched standing cables against the lower bound from "
                             "the topologies alone (seconds; nothing planned, nothing written)")
    args = parser.parse_args()
    if args.bound_only:
        for pair in args.sizes.split(","):
            h, g = (int(x) for x in pair.split(":"))
            touched, bound = touched_against_bound(h, g)
            print(f"dragonfly:a={2 * h},p={h},h={h},g={g} -> g={math.ceil(1.1 * g)}: touched "
                  f"{touched:,}, lower bound {bound:,}")
        return
    rows = []
    for pair in args.sizes.split(","):
        h, g = (int(x) for x in pair.split(":"))
        with tempfile.TemporaryDirectory() as tmp:
            rows.append(bench(h, g, Path(tmp)))
    lines = ["# planner expand against a fresh plan (Dragonfly, +10 % groups)", "",
             "`python benchmarks/bench_expand.py --sizes " + args.sizes + "`", "",
             "| system | endpoints after | fresh plan s | MB | expand s | MB | ratio | kept | "
             "moved | removed | added | touched (lower bound) | drain steps | load average "
             "(1 min: before fresh, before expand, after) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
             "| ---: | --- |"]
    for r in rows:
        c = r["growth"]["cables"]
        lines.append(f"| {r['spec']} | {r['endpoints']:,} | {r['fresh_s']:.1f} | "
                     f"{r['fresh_mb']:.0f} | {r['expand_s']:.1f} | {r['expand_mb']:.0f} | "
                     f"{r['ratio']:.2f} | {c['kept']:,} | {c['moved']:,} | {c['removed']:,} | "
                     f"{c['added']:,} | {r['growth']['touched_network']:,} "
                     f"({r['growth']['touched_lower_bound']:,}) | "
                     f"{len(r['growth']['drain']['steps'])} | "
                     f"{', '.join(f'{x:.1f}' for x in r['load'])} |")
    Path(args.results).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
