"""End-to-end timing of ``planner plan`` at ~10K and ~100K endpoints (issue 5 goals: <= 10 s
and <= 60 s, exports included).

Runs the same steps as the command, in process, and reports the wall time of each: topology
build, the plan stages (placement, cabling, costing, summary), every export writer, and the
atomic swap of the output folder. Usage::

    python benchmarks/bench_plan.py                 # both sizes
    python benchmarks/bench_plan.py sf-10k --strategy hint
    python benchmarks/bench_plan.py --cli           # time the real command in a subprocess
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = {
    # name: (topology, catalog, floor, goal seconds)
    "sf-10k": ("slimfly:q=19,p=15", "modern-100g", "hot-aisle", 10.0),
    "df-100k": ("dragonfly:h=13", "modern-100g", "hot-aisle", 60.0),
}


def run_in_process(name: str, strategy: str, time_limit: float) -> dict[str, float]:
    from planner import output
    from planner.exports import writers
    from planner.plan import plan
    from planner.topologies import parse_spec

    spec, catalog, floor, _ = CASES[name]
    times: dict[str, float] = {}
    start = time.perf_counter()
    topology = parse_spec(spec)
    times["topology"] = time.perf_counter() - start
    result = plan(topology, catalog, floor, strategy=strategy, time_limit_s=time_limit)
    times.update({f"plan.{k[:-2]}": v for k, v in result.summary["runtime"].items()
                  if k != "total_s"})
    with tempfile.TemporaryDirectory() as tmp:
        steps = []
        for writer_name, fn in writers():
            def timed(d, fn=fn, writer_name=writer_name):
                t0 = time.perf_counter()
                fn(result, d)
                times[f"export.{writer_name}"] = time.perf_counter() - t0
            steps.append((writer_name, timed))
        output.write_folder(Path(tmp) / "plan", steps)
    times["total"] = time.perf_counter() - start
    s = result.summary
    print(f"{name}: {s['topology']['routers']:,} routers, {s['topology']['endpoints']:,} "
          f"endpoints, {s['cables']['total']:,} cables, {len(result.ports):,} ports, "
          f"strategy {strategy}")
    return times


def run_cli(name: str, strategy: str, time_limit: float) -> dict[str, float]:
    spec, catalog, floor, _ = CASES[name]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "planner.cli", "plan", "--topology", spec,
                        "--catalog", catalog, "--floor", floor, "--strategy", strategy,
                        "--time-limit", str(time_limit), "--out", str(Path(tmp) / "plan")],
                       check=True, stdout=subprocess.DEVNULL)
        return {"total": time.perf_counter() - start}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", metavar="CASE",
                        help=f"cases to run (default all): {', '.join(CASES)}")
    parser.add_argument("--strategy", default="optimize", choices=("hint", "partition",
                                                                    "optimize"))
    parser.add_argument("--time-limit", type=float, default=5.0)
    parser.add_argument("--cli", action="store_true", help="time the command in a subprocess")
    args = parser.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    failed = False
    for name in args.cases or list(CASES):
        goal = CASES[name][3]
        times = (run_cli if args.cli else run_in_process)(name, args.strategy, args.time_limit)
        for key, value in times.items():
            print(f"  {key:<24} {value:8.2f} s")
        verdict = "ok" if times["total"] <= goal else "OVER GOAL"
        failed |= times["total"] > goal
        print(f"  goal {goal:.0f} s: {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
