"""End-to-end timing of ``planner plan`` at ~10K and ~100K endpoints (issue 5 goals: <= 10 s
and <= 60 s, exports included).

Runs the same steps as the command, in process, and reports the wall time of each: topology
build, the plan stages (placement, cabling, costing, summary) and the exports as the command
writes them (``exports.write_plan``: writers in parallel processes on large plans, then the
atomic swap). ``--per-writer`` also times every writer alone, serially (wall and CPU seconds),
which is what to compare when optimising one writer. The headline figures (the CLI as a user
runs it, the whole process tree's memory, quiet and busy) are ``bench_headline.py``'s. Usage::

    python benchmarks/bench_plan.py                 # every case
    python benchmarks/bench_plan.py sf-10k --strategy hint --per-writer
    python benchmarks/bench_plan.py --cli           # time the real command in a subprocess
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

CASES = {
    # name: (topology, catalog, floor, goal seconds)
    "sf-10k": ("slimfly:q=19,p=15", "modern-100g", "hot-aisle", 10.0),
    "df-100k": ("dragonfly:h=13", "modern-100g", "hot-aisle", 60.0),
    "sf-100k": ("slimfly:q=41,p=31", "sc14-40g", "pn-500", 60.0),
}


def run_in_process(name: str, strategy: str, time_limit: float,
                   per_writer: bool = False) -> dict[str, float]:
    from planner import exports
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
    jobs = exports.export_jobs(result)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        exports.write_plan(result, Path(tmp) / "plan", jobs=jobs)
        times[f"exports ({jobs} jobs)"] = time.perf_counter() - t0
    times["total"] = time.perf_counter() - start
    if per_writer:
        with tempfile.TemporaryDirectory() as tmp:
            gc.disable()                        # as write_plan runs them
            for writer_name, fn in writers():
                t0, c0 = time.perf_counter(), time.process_time()
                fn(result, Path(tmp))
                times[f"  {writer_name} (alone)"] = time.perf_counter() - t0
                times[f"  {writer_name} (cpu)"] = time.process_time() - c0
            gc.enable()
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
    parser.add_argument("--per-writer", action="store_true",
                        help="also time every export writer alone (in process only)")
    args = parser.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    failed = False
    for name in args.cases or list(CASES):
        goal = CASES[name][3]
        try:
            times = (run_cli(name, args.strategy, args.time_limit) if args.cli else
                     run_in_process(name, args.strategy, args.time_limit, args.per_writer))
        except Exception:                               # noqa: BLE001 - report, go on
            print(f"{name}: FAILED\n{traceback.format_exc()}")
            failed = True
            continue
        for key, value in times.items():
            print(f"  {key:<26} {value:8.2f} s")
        verdict = "ok" if times["total"] <= goal else "OVER GOAL"
        failed |= times["total"] > goal
        print(f"  goal {goal:.0f} s: {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
