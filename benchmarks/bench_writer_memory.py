#!/usr/bin/env python3
"""Whole-tree memory of ``planner plan`` with its forked export writers.

Runs ``planner plan ARGS`` (``planner.cli.main``) with a given source tree on ``PYTHONPATH`` and samples, every
0.25 s, the proportional set size (``Pss`` of ``/proc/PID/smaps_rollup``) of the process and of
every process below it: PSS splits a shared copy-on-write page among the processes sharing it,
so their sum is the memory the run really takes (RSS counts a shared page once per process).
Prints one JSON line: wall time, the tree's peak PSS, the main process's peak PSS, the most
processes at once, the tree's PSS at the moment the most writers ran, and the 1-minute load
average at the start and end. Linux only.

    python benchmarks/bench_writer_memory.py --tree /work/main -- \
        --topology dragonfly:a=26,p=13,h=13,g=296 --out /tmp/p100k
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def _children(pid: int) -> list[int]:
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:
            pass
    return found


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += _children(p)
    return out


def pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", required=True, help="source tree put first on PYTHONPATH")
    ap.add_argument("--interval", type=float, default=0.25)
    ap.add_argument("plan_args", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    plan_args = [a for a in args.plan_args if a != "--"]
    env = dict(os.environ, PYTHONPATH=args.tree)
    load0 = os.getloadavg()[0]
    start = time.perf_counter()
    code = "import sys; from planner.cli import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", code, "plan", *plan_args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = main_peak = most = at_most = 0
    while proc.poll() is None:
        pids = tree(proc.pid)
        sizes = [pss_kib(p) for p in pids]
        total = sum(sizes)
        peak = max(peak, total)
        main_peak = max(main_peak, sizes[0])
        if len(pids) > most or (len(pids) == most and total > at_most):
            most, at_most = len(pids), total
        time.sleep(args.interval)
    out = proc.stdout.read()
    print(json.dumps({"code": proc.returncode, "wall_s": round(time.perf_counter() - start, 1),
                      "tree_peak_pss_mib": round(peak / 1024), "main_peak_pss_mib":
                      round(main_peak / 1024), "most_processes": most,
                      "tree_pss_at_most_mib": round(at_most / 1024),
                      "load_start": load0, "load_end": os.getloadavg()[0],
                      "args": plan_args, "tree": args.tree}))
    if proc.returncode:
        print(out[-2000:], file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
