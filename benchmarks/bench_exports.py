#!/usr/bin/env python3
"""Benchmark the exports of a large plan: the time and peak memory of each export writer and
of the whole ``planner plan`` command, before and after a change.

Each side is a source tree (``--before-tree``: a checkout of the code before the change, e.g.
``git worktree add /tmp/before <commit>``; the after side is this repository). Per side, one
subprocess with that tree on ``PYTHONPATH`` runs ``planner plan`` as the command line does
(``planner.cli.main``), the writers in parallel as usual, and records its wall time, CPU time
(user + system of the process and of the writer processes it forked, ``getrusage``) and peak
resident memory. The same process then takes the finished plan that ``planner.exports.write_plan``
was handed and runs each writer of ``planner.exports.writers`` alone, one after the other, each
in a forked child of the process holding the plan (``os.wait4`` gives the child's CPU time and
peak resident memory, which includes the plan the child inherited), into a scratch folder.

The machine may be shared: the report gives the load average at the start and end of each
side, and CPU time beside wall time (CPU time is less disturbed by other work).

    python benchmarks/bench_exports.py --before-tree /tmp/before --before-label "main at 4335575"
    python benchmarks/bench_exports.py --before-tree /tmp/before --work /tmp/x --reuse

Results are printed and written to ``benchmarks/EXPORTS.md``.

Growth with size (``--scaling``): each writer alone on plans of several sizes, and the growth
exponent ``log(t2 / t1) / log(n2 / n1)`` of its CPU time, its peak and its own memory between
successive sizes (``n`` the cables; 1 is linear, 2 quadratic). Each size is a saved plan
(``--save-plan`` pickles the plan ``planner plan`` built, or ``BENCH_SAVE_PLAN=FILE`` in the
environment of the side's run); each writer runs in a forked child of the process that loaded
it, and a thread samples the child's private memory (``Private_Clean + Private_Dirty`` of
``/proc/PID/smaps_rollup``: what the fork really added, its own growth and the pages of the
plan it copied) every 0.05 s:

    python benchmarks/bench_exports.py --scaling /tmp/p10k.pkl /tmp/p100k.pkl /tmp/p250k.pkl \
        --scaling-json /tmp/scaling.json --md /tmp/scaling.md

Scheduling (``--tasks``): the export tasks ``planner plan`` forks on a saved plan
(``planner.exports.export_tasks`` with the per-hall split, the plan as ``planner plan`` hands it
over), each alone in a forked child (its writer's ``prepare`` timed in the parent first, as
the planner runs it), then the exports' wall time on ``--jobs`` processes simulated from those
CPU times: before, the writers whole in the memory order (``planner.exports.writers(by_cost=
True)``, the order of main before the split); after, the tasks longest first
(``planner.run.output.start_order``); with ``--scale-to N`` also each time scaled to ``N``
cables by its writer's growth exponent (``--exponents`` from a ``--scaling-json``, default 1):

    python benchmarks/bench_exports.py --tasks /tmp/p250k.pkl --jobs 2 --scale-to 2590280
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
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
AFTER = HERE.parent
TOPOLOGY = "dragonfly:a=26,p=13,h=13,g=296"
RUN = r'''
import gc, json, os, resource, sys, tempfile, time
from pathlib import Path
start, load0 = time.perf_counter(), os.getloadavg()
import planner.exports as exports
handed = {}
original = exports.write_plan

def write_plan(plan, out, *args, **kwargs):
    handed["plan"] = plan
    t0 = time.perf_counter()
    files = original(plan, out, *args, **kwargs)
    handed["exports_s"] = time.perf_counter() - t0
    return files

exports.write_plan = write_plan

def cpu_now():
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

import planner.placement as placement_package
original_place = placement_package.place

def place(*args, **kwargs):
    t0 = cpu_now()
    try:
        return original_place(*args, **kwargs)
    finally:
        handed["placement_cpu_s"] = cpu_now() - t0

placement_package.place = place
from planner.cli import main
code = main(sys.argv[2:])
wall = time.perf_counter() - start
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
result = {"code": code, "wall_s": wall, "exports_wall_s": handed.get("exports_s"),
          "cpu_s": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
          "placement_cpu_s": handed.get("placement_cpu_s"),
          "peak_mib": max(me.ru_maxrss, kids.ru_maxrss) / 1024.0,
          "cables": len(handed["plan"].cables) if "plan" in handed else None,
          "load": [load0, os.getloadavg()], "writers": []}
if code == 0:
    plan = handed.pop("plan")
    if os.environ.get("BENCH_SAVE_PLAN"):
        import pickle
        with open(os.environ["BENCH_SAVE_PLAN"], "wb") as fh:
            pickle.dump(plan, fh, protocol=pickle.HIGHEST_PROTOCOL)
    scratch = Path(tempfile.mkdtemp(prefix="bench-exports-"))
    for name, fn in exports.writers():
        folder = scratch / name
        folder.mkdir()
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            gc.disable()
            try:
                fn(plan, folder)
            except BaseException as err:
                print(f"{name}: {err!r}", file=sys.stderr)
                os._exit(1)
            os._exit(0)
        _, status, use = os.wait4(pid, 0)
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        result["writers"].append({"writer": name, "wall_s": time.perf_counter() - t0,
                                  "cpu_s": use.ru_utime + use.ru_stime,
                                  "peak_mib": use.ru_maxrss / 1024.0,
                                  "mib_written": size / 2**20, "ok": status == 0})
    result["load"].append(os.getloadavg())
Path(sys.argv[1]).write_text(json.dumps(result))
sys.exit(code)
'''


WRITERS_RUN = r'''
import gc, json, os, pickle, sys, tempfile, threading, time
from pathlib import Path
import planner.exports as exports
t0 = time.perf_counter()
with open(sys.argv[1], "rb") as fh:
    plan = pickle.load(fh)
load_s = time.perf_counter() - t0
only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 and sys.argv[3] else None
gc.collect()
gc.freeze()


def private_kib(pid):
    total = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(("Private_Clean:", "Private_Dirty:")):
                total += int(line.split()[1])
    except (OSError, ValueError):
        pass
    return total


result = {"cables": len(plan.cables), "load_s": load_s, "load": [os.getloadavg()],
          "writers": []}
scratch = Path(tempfile.mkdtemp(prefix="bench-writers-"))
for name, fn in exports.writers():
    if only and name not in only:
        continue
    folder = scratch / name
    folder.mkdir()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        gc.disable()
        try:
            fn(plan, folder)
        except BaseException as err:
            print(f"{name}: {err!r}", file=sys.stderr)
            os._exit(1)
        os._exit(0)
    peak, done = [0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], private_kib(pid))
            done.wait(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    _, status, use = os.wait4(pid, 0)
    done.set()
    sampler.join()
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    result["writers"].append({"writer": name, "wall_s": time.perf_counter() - t0,
                              "cpu_s": use.ru_utime + use.ru_stime,
                              "peak_mib": use.ru_maxrss / 1024.0,
                              "private_mib": peak[0] / 1024.0,
                              "mib_written": size / 2**20, "ok": status == 0})
    print(f"{name}: {result['writers'][-1]}", file=sys.stderr, flush=True)
result["load"].append(os.getloadavg())
Path(sys.argv[2]).write_text(json.dumps(result))
'''


TASKS_RUN = r'''
import gc, json, os, pickle, resource, sys, time
from pathlib import Path
import tempfile
import planner.exports as exports
with open(sys.argv[1], "rb") as fh:
    plan = pickle.load(fh)
gc.collect()
gc.freeze()
gc.disable()
tasks = exports.export_tasks(plan, exports.writers(), split=True)
memory_order = [name for name, _ in exports.writers(by_cost=True)]
scratch = Path(tempfile.mkdtemp(prefix="bench-tasks-"))
done, prepared = [], set()
for task in tasks:
    prepare_s = 0.0
    if task.prepare is not None and id(task.prepare) not in prepared:
        t0 = resource.getrusage(resource.RUSAGE_SELF)
        task.prepare()
        t1 = resource.getrusage(resource.RUSAGE_SELF)
        prepare_s = t1.ru_utime + t1.ru_stime - t0.ru_utime - t0.ru_stime
        prepared.add(id(task.prepare))
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            task.write(scratch)
        except BaseException as err:
            print(f"{task.writer} {task.part}: {err!r}", file=sys.stderr)
            os._exit(1)
        os._exit(0)
    _, status, use = os.wait4(pid, 0)
    done.append({"writer": task.writer, "part": task.part, "estimate_s": task.seconds,
                 "prepare_s": prepare_s, "cpu_s": use.ru_utime + use.ru_stime,
                 "wall_s": time.perf_counter() - t0, "ok": status == 0})
    print(f"{task.writer} {task.part}: {done[-1]['cpu_s']:.2f} s (+{prepare_s:.2f})",
          file=sys.stderr, flush=True)
Path(sys.argv[2]).write_text(json.dumps({"cables": len(plan.cables), "tasks": done,
                                         "memory_order": memory_order,
                                         "load": os.getloadavg()}))
'''


def simulate(durations: list[float], jobs: int) -> float:
    """The wall time of ``durations`` run in the given order on ``jobs`` processes, each task
    starting when a process is free (list scheduling)."""
    free = [0.0] * jobs
    for d in durations:
        k = free.index(min(free))
        free[k] += d
    return max(free) if durations else 0.0


def task_schedules(record: dict, jobs: int, scale: dict[str, float]) -> dict:
    """Before (writers whole, memory order) and after (tasks longest first, each part's
    ``prepare`` on its first part) simulated wall times on ``jobs`` processes, every task's
    CPU time multiplied by its writer's ``scale``."""
    tasks = record["tasks"]
    whole: dict[str, float] = {}
    for t in tasks:
        whole[t["writer"]] = whole.get(t["writer"], 0.0) + (t["cpu_s"] + t["prepare_s"]) * \
            scale.get(t["writer"], 1.0)
    before = [whole[name] for name in record["memory_order"] if name in whole]
    after = sorted(tasks, key=lambda t: -t["estimate_s"])
    durations = [(t["cpu_s"] + t["prepare_s"]) * scale.get(t["writer"], 1.0) for t in after]
    total = sum(whole.values())
    return {"total_cpu_s": total, "ideal_s": total / jobs,
            "before_s": simulate(before, jobs), "after_s": simulate(durations, jobs),
            "longest_task_s": max(durations, default=0.0)}


def tasks_main(args) -> int:
    """``--tasks``: time each export task alone, then simulate the schedules (module doc)."""
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "tasks.json"
        env = dict(os.environ, PYTHONPATH=str(args.scaling_tree.resolve()))
        proc = subprocess.run([sys.executable, "-c", TASKS_RUN, str(args.tasks.resolve()),
                               str(record)], text=True, env=env, cwd=args.scaling_tree)
        if proc.returncode:
            sys.exit(f"tasks on {args.tasks} failed ({proc.returncode})")
        result = json.loads(record.read_text())
    if args.scaling_json:
        args.scaling_json.write_text(json.dumps(result, indent=1))
    n = result["cables"]
    exponents = json.loads(args.exponents.read_text()) if args.exponents else {}
    lines = [f"Tasks of the plan of {n:,} cables (each alone, CPU s; load {result['load'][0]:.1f})\n",
             "| writer | tasks | CPU s (parts) | prepare CPU s | largest part CPU s |",
             "|---|---:|---:|---:|---:|"]
    by: dict[str, list] = {}
    for t in result["tasks"]:
        by.setdefault(t["writer"], []).append(t)
    for name, ts in sorted(by.items(), key=lambda kv: -sum(t["cpu_s"] for t in kv[1])):
        lines.append(f"| {name} | {len(ts)} | {sum(t['cpu_s'] for t in ts):.1f} | "
                     f"{sum(t['prepare_s'] for t in ts):.1f} | "
                     f"{max(t['cpu_s'] for t in ts):.1f} |")
    lines += ["", f"| simulated on {args.jobs} processes | cables | all CPU s | ideal s | "
              "before s | after s | longest task s |", "|---|---:|---:|---:|---:|---:|---:|"]
    targets = [n] + ([args.scale_to] if args.scale_to else [])
    for target in targets:
        scale = {name: (target / n) ** float(exponents.get(name, 1.0)) for name in by}
        sim = task_schedules(result, args.jobs, scale)
        lines.append(f"| {'measured' if target == n else 'scaled'} | {target:,} | "
                     f"{sim['total_cpu_s']:.0f} | {sim['ideal_s']:.0f} | {sim['before_s']:.0f} | "
                     f"{sim['after_s']:.0f} | {sim['longest_task_s']:.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.report_path != HERE / "EXPORTS.md":
        args.report_path.write_text(text)
    return 0


def time_writers(tree: Path, plan_pickle: Path, record: Path, only: str = "") -> dict:
    """Each writer alone, forked from a process that loaded the pickled plan (module doc)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, "-c", WRITERS_RUN, str(plan_pickle), str(record),
                           only], text=True, env=env, cwd=tree)
    if proc.returncode:
        sys.exit(f"writers on {plan_pickle} failed ({proc.returncode})")
    return json.loads(record.read_text())


def exponent(small: float, large: float, n_small: int, n_large: int) -> str:
    """Growth exponent of a figure from ``n_small`` to ``n_large`` cables."""
    if small <= 0 or large <= 0 or n_large == n_small:
        return "-"
    return f"{math.log(large / small) / math.log(n_large / n_small):.2f}"


def scaling_report(runs: list[dict], label: str) -> str:
    """The per-writer table of ``--scaling``: CPU time, peak and private memory per size, and
    the exponents between successive sizes."""
    sizes = [r["cables"] for r in runs]
    heads = [f"{n:,}" for n in sizes]
    pairs = list(zip(range(len(runs) - 1), range(1, len(runs))))
    lines = [f"### Each writer alone by size: {label}\n",
             "CPU s, peak resident MiB (the inherited plan included) and the child's private "
             "MiB (its own growth and the pages of the plan it copied) at each size in cables; "
             "exponents of CPU time and of private memory between successive sizes.\n",
             "| writer | " + " | ".join(f"CPU s {h}" for h in heads) + " | "
             + " | ".join(f"private MiB {h}" for h in heads) + " | "
             + " | ".join(f"CPU exp. {heads[a]}-{heads[b]}" for a, b in pairs) + " | "
             + " | ".join(f"mem. exp. {heads[a]}-{heads[b]}" for a, b in pairs) + " |",
             "|---|" + "---:|" * (2 * len(runs) + 2 * len(pairs))]
    by = [{w["writer"]: w for w in r["writers"]} for r in runs]
    names = sorted(set().union(*by))
    totals = [0.0] * len(runs)
    for name in names:
        ws = [b.get(name) for b in by]
        if any(w is None for w in ws):
            continue
        for i, w in enumerate(ws):
            totals[i] += w["cpu_s"]
        lines.append(f"| {name} | " + " | ".join(f"{w['cpu_s']:.2f}" for w in ws) + " | "
                     + " | ".join(f"{w.get('private_mib', 0):,.0f}" for w in ws) + " | "
                     + " | ".join(exponent(ws[a]["cpu_s"], ws[b]["cpu_s"], sizes[a], sizes[b])
                                  for a, b in pairs) + " | "
                     + " | ".join(exponent(ws[a].get("private_mib", 0),
                                           ws[b].get("private_mib", 0), sizes[a], sizes[b])
                                  for a, b in pairs) + " |")
    lines.append("| all writers | " + " | ".join(f"{t:.1f}" for t in totals) + " | "
                 + " | ".join("" for _ in runs) + " | "
                 + " | ".join(exponent(totals[a], totals[b], sizes[a], sizes[b])
                              for a, b in pairs) + " | " + " | ".join("" for _ in pairs) + " |")
    lines.append("")
    if not pairs:      # one size: no exponent columns
        lines = [line.replace(" |  |", " |").rstrip(" |") + " |" if line.startswith("|")
                 else line for line in lines]
        lines[3] = "|---|" + "---:|" * 2 * len(runs)
        lines[-2] += " |"
    return "\n".join(lines)


def run_side(tree: Path, out: Path, record: Path, topology: str = TOPOLOGY) -> dict:
    """``planner plan`` at 100K from ``tree`` into ``out``, then each writer alone (module
    doc); the figures are kept in ``record``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, "-c", RUN, str(record), "plan", "--topology",
                           topology, "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=tree)
    if proc.returncode:
        sys.exit(f"plan from {tree} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(record.read_text())


def ratio(after: float, before: float) -> str:
    return f"{after / before:.2f}x" if before else "-"


def report(sides: dict, labels: dict, topology: str = TOPOLOGY) -> str:
    heads = list(sides)
    lines = ["# Exports of a large plan, before and after\n",
             f"Generated by `python benchmarks/bench_exports.py` on {date.today()}; "
             f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, "
             f"Python {platform.python_version()}. Plan `planner plan --topology {topology}` "
             "(default catalog, floor and placement, seed 0). "
             + "; ".join(f"{h}: {labels[h]}" for h in heads) + ". The machine is shared: "
             "CPU time (user + system, the process and the writer processes it forks) is the "
             "fairer comparison; wall time depends on the other work (load averages below). "
             "Placement at 100K stops at its wall-clock safety net, so its time does not "
             "shrink on a quiet machine.\n",
             "## Whole `planner plan`\n",
             "| figure | " + " | ".join(heads) + (" | after / before |" if len(heads) == 2
                                                 else " |"),
             "|---|" + "---:|" * (len(heads) + (len(heads) == 2))]
    rows = [("cables", "cables", "{:,.0f}"), ("wall time (s)", "wall_s", "{:,.1f}"),
            ("CPU time (s)", "cpu_s", "{:,.1f}"),
            ("exports wall time, writers in parallel (s)", "exports_wall_s", "{:,.1f}"),
            ("peak memory (MiB)", "peak_mib", "{:,.0f}")]
    for label, key, fmt in rows:
        vals = [sides[h][key] for h in heads]
        extra = [ratio(vals[1], vals[0])] if len(heads) == 2 and key != "cables" else (
            ["-"] if len(heads) == 2 else [])
        lines.append(f"| {label} | " + " | ".join(fmt.format(v) for v in vals + []) + "".join(
            f" | {e}" for e in extra) + " |")
    if all(sides[h].get("placement_cpu_s") is not None for h in heads):
        for label, value in (("placement CPU time (s)", lambda d: d["placement_cpu_s"]),
                             ("CPU time without placement (s)",
                              lambda d: d["cpu_s"] - d["placement_cpu_s"])):
            vals = [value(sides[h]) for h in heads]
            lines.append(f"| {label} | " + " | ".join(f"{v:,.1f}" for v in vals)
                         + (f" | {ratio(vals[1], vals[0])} |" if len(heads) == 2 else " |"))
    lines.append("| load average at start / end (1 min) | " + " | ".join(
        f"{sides[h]['load'][0][0]:.2f} / {sides[h]['load'][1][0]:.2f}" for h in heads)
        + (" | |" if len(heads) == 2 else " |"))
    lines += ["", "## Each writer alone (forked from the process holding the plan)\n",
              "Peak memory includes the plan the writer's process inherited.\n",
              "| writer | " + " | ".join(f"{h} wall s | {h} CPU s | {h} peak MiB | {h} MiB "
                                         "written" for h in heads)
              + (" | CPU after / before |" if len(heads) == 2 else " |"),
              "|---|" + "---:|" * (4 * len(heads) + (len(heads) == 2))]
    by = {h: {w["writer"]: w for w in sides[h]["writers"]} for h in heads}
    names = sorted(set().union(*(by[h] for h in heads)))
    totals = {h: [0.0, 0.0] for h in heads}
    for name in names:
        cells = []
        for h in heads:
            w = by[h].get(name)
            if w is None:
                cells += ["-"] * 4
                continue
            totals[h][0] += w["wall_s"]
            totals[h][1] += w["cpu_s"]
            cells += [f"{w['wall_s']:.1f}", f"{w['cpu_s']:.1f}", f"{w['peak_mib']:,.0f}",
                      f"{w['mib_written']:,.1f}" + ("" if w["ok"] else " (failed)")]
        if len(heads) == 2:
            b, a = by[heads[0]].get(name), by[heads[1]].get(name)
            cells.append(ratio(a["cpu_s"], b["cpu_s"]) if a and b else "new" if a else "gone")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    cells = []
    for h in heads:
        cells += [f"{totals[h][0]:.1f}", f"{totals[h][1]:.1f}", "", ""]
    if len(heads) == 2:
        cells.append(ratio(totals[heads[1]][1], totals[heads[0]][1]))
    lines.append("| all writers, one after the other | " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before-tree", type=Path, help="source tree of the code before")
    parser.add_argument("--before-label", help="how the report names the before tree")
    parser.add_argument("--after-label", default="this repository")
    parser.add_argument("--work", type=Path, help="where the plans go (default: a temp folder)")
    parser.add_argument("--reuse", action="store_true", help="take figures already in --work")
    parser.add_argument("--sides", default="before,after",
                        help="which sides to run (the others must be in --work with --reuse)")
    parser.add_argument("--topology", default=TOPOLOGY, help="a smaller plan to try the script")
    parser.add_argument("--md", dest="report_path", type=Path, default=HERE / "EXPORTS.md")
    parser.add_argument("--scaling", nargs="+", type=Path, metavar="PLAN.pickle",
                        help="time each writer alone on these saved plans, smallest first, and "
                        "report the growth exponents (module doc)")
    parser.add_argument("--scaling-json", type=Path, help="--scaling: keep/reuse the figures")
    parser.add_argument("--scaling-label", default="this repository")
    parser.add_argument("--scaling-tree", type=Path, default=AFTER,
                        help="--scaling: the source tree whose writers run (default this one)")
    parser.add_argument("--only", default="", help="--scaling: these writers only (a,b,...)")
    parser.add_argument("--tasks", type=Path, metavar="PLAN.pickle",
                        help="time each export task alone on this saved plan and simulate the "
                        "schedules (module doc)")
    parser.add_argument("--jobs", type=int, default=2, help="--tasks: processes to simulate")
    parser.add_argument("--scale-to", type=int, metavar="CABLES",
                        help="--tasks: also simulate every task scaled to this many cables")
    parser.add_argument("--exponents", type=Path, metavar="JSON",
                        help="--tasks: growth exponent per writer ({name: exponent}; default 1)")
    parser.add_argument("--save-plan", type=Path,
                        help="pickle the after side's plan here (for --scaling)")
    args = parser.parse_args()
    if args.scaling:
        return scaling_main(args)
    if args.tasks:
        return tasks_main(args)
    if args.save_plan:
        os.environ["BENCH_SAVE_PLAN"] = str(args.save_plan.resolve())
    trees = {"before": args.before_tree, "after": AFTER} if args.before_tree else {"after": AFTER}
    labels = {"before": args.before_label or str(args.before_tree), "after": args.after_label}
    run = set(args.sides.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        sides = {}
        for side, tree in trees.items():
            record = work / f"exports-{side}.json"
            if side in run and not (args.reuse and record.exists()):
                run_side(tree.resolve(), (work / f"exports-{side}-plan").resolve(), record,
                         args.topology)
            sides[side] = json.loads(record.read_text())
            s = sides[side]
            print(f"{side}: wall {s['wall_s']:.1f} s, CPU {s['cpu_s']:.1f} s, peak "
                  f"{s['peak_mib']:.0f} MiB; " + ", ".join(
                      f"{w['writer']} {w['cpu_s']:.1f}" for w in s["writers"]), flush=True)
    if not all(math.isfinite(s["wall_s"]) for s in sides.values()):
        return 1
    args.report_path.write_text(report(sides, labels, args.topology))
    print(f"wrote {args.report_path}")
    return 0


def scaling_main(args) -> int:
    """``--scaling``: each writer alone on each saved plan, then the exponents."""
    runs = []
    for path in args.scaling:
        with tempfile.TemporaryDirectory() as tmp:
            record = Path(tmp) / "writers.json"
            runs.append(time_writers(args.scaling_tree.resolve(), path.resolve(), record,
                                      args.only))
        print(f"{path}: {runs[-1]['cables']:,} cables, " + ", ".join(
            f"{w['writer']} {w['cpu_s']:.1f} s" for w in runs[-1]["writers"]), flush=True)
    if args.scaling_json:
        args.scaling_json.write_text(json.dumps(runs, indent=1))
    text = scaling_report(runs, args.scaling_label)
    print(text)
    if args.report_path != HERE / "EXPORTS.md":
        args.report_path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
