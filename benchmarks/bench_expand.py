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
"""

from __future__ import annotations

import argparse
import json
import math
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
    fresh = _run("plan", "--topology", f"{spec},g={grown_g}", *common,
                 "--out", str(work / "fresh"))
    grown = _run("expand", "--from", str(work / "standing"), "--topology",
                 f"{spec},g={grown_g}", "--out", str(work / "grown"))
    summary = json.loads((work / "grown" / "summary.json").read_text())
    return {"spec": f"{spec},g={g} -> g={grown_g}",
            "endpoints": summary["topology"]["endpoints"], "fresh_s": fresh[0],
            "fresh_mb": fresh[1], "expand_s": grown[0], "expand_mb": grown[1],
            "ratio": grown[0] / fresh[0], "growth": summary["growth"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8:72", help="h:g pairs, comma-separated")
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "EXPAND.md"))
    args = parser.parse_args()
    rows = []
    for pair in args.sizes.split(","):
        h, g = (int(x) for x in pair.split(":"))
        with tempfile.TemporaryDirectory() as tmp:
            rows.append(bench(h, g, Path(tmp)))
    lines = ["# planner expand against a fresh plan (Dragonfly, +10 % groups)", "",
             "`python benchmarks/bench_expand.py --sizes " + args.sizes + "`", "",
             "| system | endpoints after | fresh plan s | MB | expand s | MB | ratio | kept | "
             "moved | removed | added | touched (lower bound) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        c = r["growth"]["cables"]
        lines.append(f"| {r['spec']} | {r['endpoints']:,} | {r['fresh_s']:.1f} | "
                     f"{r['fresh_mb']:.0f} | {r['expand_s']:.1f} | {r['expand_mb']:.0f} | "
                     f"{r['ratio']:.2f} | {c['kept']:,} | {c['moved']:,} | {c['removed']:,} | "
                     f"{c['added']:,} | {r['growth']['touched_network']:,} "
                     f"({r['growth']['touched_lower_bound']:,}) |")
    Path(args.results).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
