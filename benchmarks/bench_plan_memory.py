"""Peak resident memory of each plan stage (placement, cabling, performance, costing,
summary), in process, without the export writers (issue 24 item 1).

Runs ``planner.plan.plan(...)`` and samples the process's resident set (``/proc/self/statm``)
every 20 ms from a thread; each sample goes to the stage running then (``Stages.run``). The
placement can be cached (``--placement FILE``: a pickled ``Placement``, written on the first
run, given to the plan on later ones), so that runs before and after a change of the later
stages start from the same layout and skip placement's minutes. Usage::

    python benchmarks/bench_plan_memory.py dragonfly:a=56,p=28,h=28,g=100 \\
        --catalog eth-51t --floor campus --placement /tmp/g100.pkl

prints a JSON object: the plan's cables, and per stage the peak MiB and KB per cable.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import planner.plan as planning
from planner.run import progress

PAGE = os.sysconf("SC_PAGE_SIZE")


def resident() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * PAGE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("topology")
    parser.add_argument("--catalog", default="modern-100g")
    parser.add_argument("--floor", default="hot-aisle")
    parser.add_argument("--strategy", default="hint")
    parser.add_argument("--placement", type=Path, help="pickled placement: read, or written")
    args = parser.parse_args()

    state = {"stage": "setup"}
    peaks: dict[str, int] = {}
    stage_run = progress.Stages.run

    @contextmanager
    def run(self, name, detail=None):
        state["stage"] = name
        with stage_run(self, name, detail):
            yield

    progress.Stages.run = run
    done = threading.Event()

    def sample():
        while not done.is_set():
            stage = state["stage"]
            peaks[stage] = max(peaks.get(stage, 0), resident())
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    given = None
    if args.placement is not None and args.placement.exists():
        with open(args.placement, "rb") as cached:
            given = pickle.load(cached)
    plan = planning.plan(args.topology, args.catalog, args.floor, strategy=args.strategy,
                         placement=given)
    done.set()
    sampler.join()
    if args.placement is not None and given is None:
        with open(args.placement, "wb") as cached:
            pickle.dump(plan.placement, cached)
    cables = len(plan.cables)
    print(json.dumps({"cables": cables,
                      "peak_mib": {k: round(v / 2 ** 20) for k, v in peaks.items()},
                      "kb_per_cable": {k: round(v / cables / 1000, 2)
                                       for k, v in peaks.items()}}, indent=1))


if __name__ == "__main__":
    main()
