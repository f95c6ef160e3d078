#!/usr/bin/env python3
"""Benchmark the performance stage (planner.performance.evaluate) at about 1K, 10K and 100K
endpoints: runtime, peak memory and what it could compute exactly within its budgets.

For Slim Fly, Dragonfly, OFT and demi-PN the configuration nearest each target (radix <= 128,
the configurations of benchmarks/bench.py) is planned once on the SC14 40 Gb/s catalog and the
``pn-500`` floor with placement strategy ``hint`` (the cables' lengths are what the stage
reads); then ``performance.evaluate`` runs ``--repeat`` times in this process, timed, with
``tracemalloc`` measuring its peak allocation (numpy allocations included). Quality: whether θ
is exact (LP, or ECMP meeting a bound) or an upper bound, the lower bound beside it, and whether
the latency is exact or sampled. ``--busy N`` runs N busy-loop processes during the
measurement; the performance block must come out identical (it is checked against the quiet
run: the stage's budgets count work, not seconds).

    python benchmarks/bench_performance.py                  # 1K, 10K, 100K
    python benchmarks/bench_performance.py --sizes 10k,100k --busy 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
FAMILIES = ("slimfly", "dragonfly", "oft", "demipn")


def _busy() -> None:
    while True:
        pass


def measure(plan, repeat: int) -> tuple[list[float], float, dict]:
    """(seconds per run, peak MiB, the performance block)."""
    from planner import performance

    times, peak, block = [], 0.0, None
    for _ in range(repeat):
        tracemalloc.start()
        start = time.perf_counter()
        block = performance.evaluate(plan.topology, plan.cables, plan.router_model)
        times.append(time.perf_counter() - start)
        peak = max(peak, tracemalloc.get_traced_memory()[1] / 2**20)
        tracemalloc.stop()
    return times, peak, block


def quality(block: dict) -> str:
    uni = block["uniform"]
    lower = "" if uni.get("lower") is None or uni["kind"] == "exact" else \
        f", ECMP lower {uni['lower']:.3f}"
    lat = "latency exact" if block["latency_ns"]["method"].startswith("exact") else \
        "latency " + block["latency_ns"]["method"].split(" source routers")[0]
    return f"θ {uni['theta']:.3f} {uni['kind']}{lower}; {lat}"


def main(argv: list[str] | None = None) -> int:
    from bench import pick

    from planner.plan import plan

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1k,10k,100k")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--busy", type=int, default=0, metavar="N",
                   help="also measure with N busy-loop processes running")
    p.add_argument("--json", type=Path, help="write the measurements to this file")
    args = p.parse_args(argv)
    rows = []
    print(f"{'size':>5} {'configuration':<32} {'routers':>7} {'arcs':>8} {'quiet s':>8} "
          f"{'busy s':>8} {'peak MiB':>9}  quality")
    for size in [s.strip() for s in args.sizes.split(",") if s.strip()]:
        for spec in pick(SIZES[size], 128, FAMILIES):
            result = plan(spec, "sc14-40g", "pn-500", strategy="hint", time_limit_s=10)
            quiet, peak, block = measure(result, args.repeat)
            busy_s = None
            if args.busy:
                workers = [multiprocessing.Process(target=_busy, daemon=True)
                           for _ in range(args.busy)]
                for w in workers:
                    w.start()
                try:
                    busy, _, busy_block = measure(result, args.repeat)
                finally:
                    for w in workers:
                        w.terminate()
                        w.join()
                if json.dumps(busy_block, sort_keys=True) != json.dumps(block, sort_keys=True):
                    print(f"{spec}: the performance block changed under load", file=sys.stderr)
                    return 1
                busy_s = statistics.median(busy)
            arcs = 2 * len(result.topology.links)
            row = {"size": size, "spec": spec, "routers": result.topology.num_routers,
                   "endpoints": result.topology.num_endpoints, "arcs": arcs,
                   "quiet_s": statistics.median(quiet), "busy_s": busy_s, "peak_mib": peak,
                   "quality": quality(block)}
            rows.append(row)
            busy_text = f"{busy_s:8.2f}" if busy_s is not None else f"{'-':>8}"
            print(f"{size:>5} {spec:<32} {row['routers']:>7,} {arcs:>8,} "
                  f"{row['quiet_s']:8.2f} {busy_text} {peak:9.0f}  {row['quality']}",
                  flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
