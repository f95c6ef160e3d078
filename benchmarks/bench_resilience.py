#!/usr/bin/env python3
"""Benchmark θ after failure (``planner.performance.resilience``, issue 26): runtime and the
kind of θ and hops per failure kind, on the default 10K plan and the 100K Dragonfly.

``default``: the default ``planner plan`` (Slim Fly q=19, p=15 on ``modern-100g`` in
``hot-aisle``), planned twice in this process, with ``resilience="off"`` and with the default
(every kind the floor has data for within ``tuning.RESILIENCE_WORK_MAX``, 10 random cables x
32 draws): the wall time of both and the resilience block's rows. ``dragonfly``: ``dragonfly:a=26,p=13,h=13,g=296`` (100K
endpoints), placement ``hint``, all single-cabinet failures only. Each row: kind, groups, θ
kind, hops kind, worst / 1st percentile / median θ ratio, the worst group, seconds. The load
average (1 min) is printed before and after, since the machine is shared.

    python benchmarks/bench_resilience.py default
    flock /tmp/locks/big.lock python benchmarks/bench_resilience.py dragonfly
"""

from __future__ import annotations

import argparse
import json
import os
import time


def _rows(block: dict, seconds: dict) -> list[str]:
    out = []
    for kind, k in block["kinds"].items():
        r = k["theta_ratio"]
        out.append(f"| {kind} | {k['groups']:,} | {k['theta_kind']} | {k['hops_kind']} | "
                   f"{r['worst']:.3f} / {r['p1']:.3f} / {r['median']:.3f} | "
                   f"{k['worst']['name']} | {seconds[kind]:.1f} |")
    return out


def _report(name: str, wall: dict, summary: dict) -> None:
    block = summary["resilience"]
    print(f"## {name}")
    print(f"load average before/after: {wall.pop('load')}")
    for key, seconds in wall.items():
        print(f"- {key}: {seconds:.1f} s")
    print("\n| kind | groups | θ | hops | θ ratio worst / p1 / median | worst group | s |")
    print("| --- | ---: | --- | --- | --- | --- | ---: |")
    print("\n".join(_rows(block, summary["runtime"]["resilience_s"])))
    print(json.dumps(block, indent=1, ensure_ascii=False))


def default() -> None:
    from planner.plan import plan
    load = [os.getloadavg()[0]]
    wall = {}
    for choice in ("off", "all"):
        start = time.perf_counter()
        result = plan("slimfly:q=19,p=15", "modern-100g", "hot-aisle", resilience=choice)
        wall[f"plan --resilience {choice} (wall)"] = time.perf_counter() - start
        wall[f"performance stage ({choice})"] = result.summary["runtime"]["performance_s"]
    load.append(os.getloadavg()[0])
    wall["load"] = " / ".join(f"{v:.1f}" for v in load)
    _report("default 10K plan (slimfly:q=19,p=15, modern-100g, hot-aisle)", wall,
            result.summary)


def dragonfly() -> None:
    from planner.plan import plan
    load = [os.getloadavg()[0]]
    start = time.perf_counter()
    result = plan("dragonfly:a=26,p=13,h=13,g=296", "modern-100g", "hot-aisle",
                  strategy="hint", resilience="cabinet", fail_links=0)
    wall = {"plan --strategy hint --resilience cabinet (wall)": time.perf_counter() - start,
            "performance stage": result.summary["runtime"]["performance_s"]}
    load.append(os.getloadavg()[0])
    wall["load"] = " / ".join(f"{v:.1f}" for v in load)
    _report("100K Dragonfly (a=26,p=13,h=13,g=296, modern-100g, hot-aisle)", wall,
            result.summary)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=("default", "dragonfly"))
    {"default": default, "dragonfly": dragonfly}[parser.parse_args().case]()
