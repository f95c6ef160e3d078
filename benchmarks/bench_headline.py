#!/usr/bin/env python3
"""The headline benchmark (issue 24 item 5): ``planner plan`` as a user runs it.

The CLI in a subprocess, every output, at 10K (``planner plan`` with no options: default
catalog and floor), 100K (``--topology dragonfly:a=26,p=13,h=13,g=296``) and 1M endpoints
(``--topology dragonfly:a=56,p=28,h=28,g=638 --catalog eth-51t --floor campus``; ``157k`` and
``250k`` are its router shape at ``g=100`` and ``g=160``, 156,800 and 250,880 endpoints), on a
quiet machine and with ``--busy N`` loops (``python -c 'while True: pass'``) running beside it.

For each run: wall time; CPU time of the planner's process tree (user + sys of the planner and
every process it forked and waited for: METIS, the export writers); the tree's peak PSS
(``Pss`` of ``/proc/PID/smaps_rollup`` summed over the planner and every process below it,
sampled every 0.25 s: a copy-on-write page shared by n processes counts 1/n, so the sum is
the memory the run really takes); the sha256 of ``cables.csv`` (equal quiet and busy: the plan
does not depend on the machine's load); every output's size; and per stage (setup: topology,
inputs and checks; placement; cabling; performance; costing; summary; exports) the wall time
from the planner's progress lines and the tree's peak PSS while it ran. The growth exponent of
a stage between two sizes is log(t2/t1) / log(n2/n1) over the cable counts n.

    python benchmarks/bench_headline.py 10k 100k            # quiet
    python benchmarks/bench_headline.py 10k 100k --busy 2   # two busy loops beside it
    flock /tmp/locks/big.lock python benchmarks/bench_headline.py 1m

Each run is merged into benchmarks/RESULTS_plan.json (keyed by case and busy loops) and
benchmarks/RESULTS_plan.md is written again from all of it. Linux only.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_writer_memory import pss_kib, tree  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS_JSON = HERE / "RESULTS_plan.json"
RESULTS_MD = HERE / "RESULTS_plan.md"

CASES = {
    "10k": [],
    "100k": ["--topology", "dragonfly:a=26,p=13,h=13,g=296"],
    "157k": ["--topology", "dragonfly:a=56,p=28,h=28,g=100", "--catalog", "eth-51t",
             "--floor", "campus"],
    "250k": ["--topology", "dragonfly:a=56,p=28,h=28,g=160", "--catalog", "eth-51t",
             "--floor", "campus"],
    "1m": ["--topology", "dragonfly:a=56,p=28,h=28,g=638", "--catalog", "eth-51t",
           "--floor", "campus"],
}
STAGES = ("setup", "placement", "cabling", "performance", "costing", "summary", "exports")
SAMPLE_S = 0.25


def _busy(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def _read_lines(stream, out: queue.Queue, start: float) -> None:
    for line in stream:
        out.put((time.perf_counter() - start, line.rstrip("\n")))
    out.put(None)


def _stage_of(line: str) -> tuple[str, float] | None:
    """("placement", 12.3) for ``plan: placement done: ... (12.3 s)``; None for other lines."""
    if not line.startswith("plan: ") or " done" not in line or not line.endswith(" s)"):
        return None
    name = line[len("plan: "):].split(" done", 1)[0]
    seconds = float(line.rsplit("(", 1)[1][:-3])
    return name, seconds


def run(case: str, busy: int, out_root: Path, extra: list[str] = ()) -> dict:
    """One ``planner plan`` run of ``case`` (plus ``extra`` options) with ``busy`` loops beside
    it (module doc)."""
    out = out_root / f"plan-{case}"
    cmd = [sys.executable, "-m", "planner.cli", "plan", *CASES[case], *extra, "--out", str(out)]
    loops = _busy(busy)
    load_start = os.getloadavg()[0]
    before = os.times()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_read_lines, args=(proc.stdout, lines, start), daemon=True).start()
    samples: list[tuple[float, int, int]] = []      # (seconds, tree PSS KiB, processes)
    while proc.poll() is None:
        pids = tree(proc.pid)
        samples.append((time.perf_counter() - start, sum(pss_kib(p) for p in pids), len(pids)))
        time.sleep(SAMPLE_S)
    wall = time.perf_counter() - start
    after = os.times()
    load_end = os.getloadavg()[0]
    for loop in loops:
        loop.kill()
        loop.wait()
    stderr = proc.stderr.read()
    got: list[tuple[float, str]] = []
    while (item := lines.get()) is not None:
        got.append(item)
    if proc.returncode != 0:
        raise SystemExit(f"{case}: planner plan exited {proc.returncode}: {stderr.strip()}")
    return {"case": " ".join([case, *extra]).replace("--", ""), "busy": busy,
            "command": " ".join(["planner", *cmd[3:-2]]),
            "wall_s": round(wall, 1),
            "cpu_s": round((after.children_user - before.children_user)
                           + (after.children_system - before.children_system), 1),
            "peak_pss_mib": round(max(s[1] for s in samples) / 1024) if samples else None,
            "most_processes": max((s[2] for s in samples), default=1),
            "load_1m": [round(load_start, 2), round(load_end, 2)],
            "cables": _count_rows(out / "cables.csv"),
            "cables_csv_sha256": _sha256(out / "cables.csv"),
            "outputs": _sizes(out), "stages": _stages(got, samples, wall),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpus": os.cpu_count()}


def _stages(got: list[tuple[float, str]], samples, wall: float) -> dict[str, dict]:
    """Wall seconds and the tree's peak PSS per stage: each plan stage ends at its progress
    line; setup is everything before placement began; exports everything after summary."""
    ends: dict[str, float] = {}
    placement_first: float | None = None
    for at, line in got:
        stage = _stage_of(line)
        if stage is None:
            continue
        name, seconds = stage
        if name.startswith("placement/") and placement_first is None:
            placement_first = at - seconds
        if name in STAGES:
            ends[name] = at
            if name == "placement" and placement_first is None:
                placement_first = at - seconds
    bounds = {"setup": (0.0, placement_first or 0.0)}
    previous = placement_first or 0.0
    for name in STAGES[1:-1]:
        bounds[name] = (previous, ends.get(name, previous))
        previous = ends.get(name, previous)
    bounds["exports"] = (previous, wall)
    result = {}
    for name, (lo, hi) in bounds.items():
        inside = [s[1] for s in samples if lo <= s[0] <= hi + SAMPLE_S]
        result[name] = {"s": round(hi - lo, 2),
                        "peak_pss_mib": round(max(inside) / 1024) if inside else None}
    return result


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _count_rows(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 20), b"")) - 1


def _sizes(out: Path) -> dict[str, int]:
    """Bytes of every output (a folder: the sum of its files)."""
    sizes = {}
    for entry in sorted(out.iterdir()):
        files = [entry] if entry.is_file() else [p for p in entry.rglob("*") if p.is_file()]
        sizes[entry.name] = sum(p.stat().st_size for p in files)
    return sizes


# ----------------------------------------------------------------------------- results

def _load() -> list[dict]:
    return json.loads(RESULTS_JSON.read_text()) if RESULTS_JSON.exists() else []


def merge(runs: list[dict]) -> list[dict]:
    """The stored runs with ``runs`` replacing those of the same case and busy loops."""
    keep = {(r["case"], r["busy"]): r for r in _load()}
    keep.update({(r["case"], r["busy"]): r for r in runs})
    return [keep[k] for k in sorted(keep, key=_order)]


def _order(key: tuple[str, int]) -> tuple:
    """Runs by size (``1m writers 1`` after ``1m``), then busy loops."""
    return list(CASES).index(key[0].split()[0]), key[0], key[1]


def exponent(small: dict, large: dict, key) -> float | None:
    """log(v2/v1) / log(n2/n1) of ``key(run)`` over the cable counts."""
    v1, v2 = key(small), key(large)
    if not v1 or not v2 or v1 <= 0 or v2 <= 0 or large["cables"] == small["cables"]:
        return None
    return math.log(v2 / v1) / math.log(large["cables"] / small["cables"])


def markdown(runs: list[dict]) -> str:
    head = ["# planner plan as a user runs it (issue 24 item 5)", "",
            "`benchmarks/bench_headline.py`: the CLI in a subprocess, every output written. "
            "CPU is the process tree's user + sys; peak PSS is the whole tree's (planner, METIS, "
            "forked writers) sampled every 0.25 s; load is the 1-minute load average at start "
            "and end (the machine is shared, so busy figures and loaded quiet figures are "
            "slower than on a quiet machine).", "",
            "| case | busy loops | cables | wall s | CPU s | peak PSS MiB | processes | load | "
            "cables.csv sha256 | date |", "| --- | --- | --- | --- | --- | --- | --- | --- | "
            "--- | --- |"]
    for r in runs:
        head.append(f"| {r['case']} | {r['busy']} | {r['cables']:,} | {r['wall_s']:,} | "
                    f"{r['cpu_s']:,} | {r['peak_pss_mib']:,} | {r['most_processes']} | "
                    f"{r['load_1m'][0]} → {r['load_1m'][1]} | `{r['cables_csv_sha256'][:16]}` | "
                    f"{r['date']} |")
    head += ["", "Commands: " + "; ".join(sorted({f"`{r['command']}`" for r in runs})), "",
             "## Per stage (quiet runs where there is one)", "",
             "Wall seconds / tree peak PSS MiB while the stage ran; the exponent is the growth "
             "of the stage's time (and peak) between consecutive sizes, log(t2/t1)/log(n2/n1) "
             "over the cables. On a shared machine at load 20 or more the stage times measure the "
             "load as much as the code: read the exponents of runs on a quiet machine. Variants "
             "that change the writers (`157k writers 1`) are not the same work scaled and are "
             "left out here.", ""]
    by_case = {}
    for r in runs:
        if " " in r["case"]:      # a variant (``157k writers 1``): not the same work scaled
            continue
        if r["case"] not in by_case or r["busy"] < by_case[r["case"]]["busy"]:
            by_case[r["case"]] = r
    cases = sorted(by_case, key=lambda c: _order((c, 0)))
    cols = ["stage"] + [f"{c} s / MiB" for c in cases] + [
        f"exp {a}→{b} (time, peak)" for a, b in zip(cases, cases[1:])]
    head += ["| " + " | ".join(cols) + " |", "|" + " --- |" * len(cols)]
    for stage in (*STAGES, "total"):
        row = [stage]
        for c in cases:
            s = _stage(by_case[c], stage)
            row.append(f"{s['s']:,} / {s['peak_pss_mib']:,}" if s["peak_pss_mib"] else
                       f"{s['s']:,} / -")
        for a, b in zip(cases, cases[1:]):
            t = exponent(by_case[a], by_case[b], lambda r: _stage(r, stage)["s"])
            m = exponent(by_case[a], by_case[b], lambda r: _stage(r, stage)["peak_pss_mib"])
            row.append(f"{t:.2f}, {m:.2f}" if t is not None and m is not None else "-")
        head.append("| " + " | ".join(row) + " |")
    head += ["", "## Output sizes (bytes)", "",
             "| output | " + " | ".join(cases) + " |", "|" + " --- |" * (len(cases) + 1)]
    names = sorted({n for c in cases for n in by_case[c]["outputs"]})
    for n in names:
        head.append(f"| {n} | " + " | ".join(f"{by_case[c]['outputs'].get(n, 0):,}"
                                             for c in cases) + " |")
    return "\n".join(head) + "\n" + FINDINGS


FINDINGS = """
## What holds the memory (issue 24 item 1)

Measured in process at 100K (`dragonfly:a=26,p=13,h=13,g=296`, `--strategy hint`, 246,272
cables) after `plan()`, shared Python objects counted once:

- The glibc heap kept what the stages had freed: the process held 908 MiB, 549 MiB after
  `malloc_trim(0)`. Millions of small strings and arrays below the mmap threshold are freed
  into the heap, not to the system. `planner.run.memory.release` now runs after every plan
  stage, so the planner forks its writers from the plan alone.
- `Pieces.ends()` and `connector_ends()` were kept for the whole run: dropping both took the
  trimmed process from 549 to 417 MiB. `ends()` (16 columns per piece end, quick to lay out)
  is now built when a writer asks (only wiring.pdf does); `connector_ends()` stays (three
  writers read it, and it is costly to build).
- Per-row strings where one shared string does: `kind` of every cable (15 MiB: `np.where`
  then `astype(object)` makes a string per row), `kind`/`model` of every device (13 MiB:
  `np.full(n, "router", object)` does too), the pieces' device ports as text (a string per
  end). Labels were built by `+` on object arrays, four temporary string arrays per label.
- The pieces table was built from its parts and then reordered with the parts still alive
  (three copies at once): freeing them first took the in-process peak (maxrss) of the 100K
  `--strategy hint` plan from 941 to 812 MiB.
- Row filters that copied every column (`cables[cables.kind == ...]` in the latency and the
  summary, `ports[ports.used]`) now copy the two or three columns they read.
- What remains, per cable: the `cables` frame's 37 columns (about 300 B), its unique strings
  (label 80 B, cable_id 60 B, endpoint names), the pieces table (26 columns per piece) and the
  connector ends kept for three writers, the port table (radix rows per router, 7 columns).
  The whole tree's peak is the export writers' (labels alone adds 4.4 KB per cable,
  `planner/exports/tuning.py`) and the forked writers' copies of the planner's pages.

Before these changes, the same 100K run (`planner plan`, load 5 to 15): 366.6 s, CPU 81.3 s,
tree peak 3,382 MiB; cabling's peak 1,025 MiB (now 900), performance 1,010 (744), costing
1,002 (574), summary 993 (673). With `--strategy hint` (a placement that does not depend on
the load) the tables, cables.csv and summary are identical before and after. With the default
placement the 100K cables.csv differed between the run before and the run after, and it
differs between the quiet and busy 100K rows above: the placement still depends on the load at
100K (its wall-clock cap, issue 24's placement item), while the 10K rows agree.

### The plan stages' peak per stage, before and after the cabling cut

`python benchmarks/bench_plan_memory.py TOPOLOGY --catalog eth-51t --floor campus --placement
FILE`: `planner.plan.plan(...)` in process with no writer, the resident set sampled every
20 ms and charged to the stage running; the `--strategy hint` placement of each size is
pickled once and given to both runs, so before (commit ba256c3) and after start from the same
layout. Plan cables (rows of `Plan.cables`; cables.csv adds the management cords): 116,760 at
`dragonfly:a=56,p=28,h=28,g=30`, 389,200 at `g=100`. Load average 6 to 12 on the 2 CPUs
(memory, not time, is measured). Peak MiB, and KB per plan cable at g=100:

| stage | g=30 before | g=30 after | g=100 before | g=100 after | KB/cable g=100 before → after | growth KB per cable, before → after |
| --- | ---: | ---: | ---: | ---: | --- | --- |
| cabling | 614 | 454 | 1,555 | 1,051 | 4.19 → 2.83 | 3.62 → 2.30 |
| performance | 631 | 575 | 1,317 | 1,226 | 3.55 → 3.30 | 2.64 → 2.51 |
| costing | 509 | 468 | 1,163 | 1,093 | 3.13 → 2.94 | 2.52 → 2.41 |
| summary | 551 | 497 | 1,275 | 1,142 | 3.44 → 3.08 | 2.79 → 2.48 |

The plan stages' peak at g=100: 1,555 MiB (cabling) before, 1,226 MiB (performance) after.
The later stages' peaks move by tens of MiB between runs with the same tables (a run with one
more small cut, of the tray failure groups, since dropped because that code was rewritten
meanwhile, gave performance 1,193 and summary 1,086): what glibc keeps of the freed heap
depends on the order of allocations.

The growth column is (peak at g=100 - peak at g=30) / (cables added), so the fixed part (the
interpreter and libraries, about 230 MiB; performance's batched working arrays,
`planner.performance.tuning.BATCH_ELEMENTS`, about 180 MiB) drops out. What was cut:

- `planner.cabling.pieces.build` laid the pieces out as frames, concatenated them, selected the
  columns and reordered the whole table: three copies of 26 columns at once. It now builds
  each column once in its final order (the parts' copies of that column only), finds a leg's
  piece by arithmetic instead of an index of piece ids, and the table takes its columns
  without a consolidating copy.
- `Pieces.connector_ends` concatenated four frames and sorted the result (again three copies);
  it now builds column by column in the sorted order.
- `planner.cabling.build` kept every routing and label array alive while the pieces were
  built; the cables table is now built by its own function, whose working arrays are freed
  before the pieces start, and without a consolidating copy of its numeric columns.
- `Pieces.by_sku` copied the whole pieces table (`drop_duplicates`) in the summary; it and
  `order_length_m` now compare only the legs of multi-link assemblies.
- The cords of links through panels had their ids and labels made by `+` on whole arrays (a
  partial text per row per `+`, freed between the kept texts); each is now joined once.
- The BOM counted the parts bought one per row by grouping a table of one row per cable
  twice; one grouping of the keys counts them.

Outputs are unchanged: sha256 of every file of `planner plan` (10K), of `--floor
benchmarks/two-halls.yaml --topology dragonfly:a=4,p=2,h=2` and of the 100K `--topology
dragonfly:a=26,p=13,h=13,g=296 --strategy hint` plan agree before and after, except the files
that carry the run times or the date (`bom.xlsx`: only `docProps/core.xml`; `index.html`: its
data equal but the summary's run times, its tables byte-identical; `wiring.pdf`: only the run
times on its first pages); `cables.csv` and summary.json (run times left out) are identical.

Extrapolated to the 1M case (2,483,096 cables), peak at g=100 plus the growth per cable:
before, cabling 8.6 GiB (the 1M attempt above measured 9,072 MiB, 8.9 GiB, in a plan stage, so
the line holds); after, cabling 5.5 GiB, performance 6.1, costing 5.8, summary 6.0: the plan
stages' peak about 6.1 GiB (2.6 KB per cable), down from about 8.6 GiB (3.7 KB per cable).
The goal of about 2.2 KB per cable (5.3 GB) is not reached: what is left is mostly what the
plan keeps for the writers, 2.3-2.5 KB per cable in every stage (the cables table's 37 columns,
the pieces table's 26, two connector ends per piece of 15 text columns each, the port table,
the unique texts: labels, ids, segments, cord labels), and performance adds its fixed batched
arrays on top. Cutting further means holding those tables more compactly (integer codes for
the repeated texts of the pieces and connector ends), which changes what the writers read.
Not run at g=160 or 1M (the coordinator's 1M run on a quiet machine is the check).

## The 1M row (issue 24 item 3)

`flock /tmp/locks/big.lock python benchmarks/bench_headline.py 1m`: `planner plan --topology
dragonfly:a=56,p=28,h=28,g=638 --catalog eth-51t --floor campus`, 1,000,384 endpoints,
2,590,280 rows in cables.csv, every output written (75 halls: wiring.pdf and labels.pdf split
per hall, `wiring-hall-NN.pdf`, `labels-hall-NN.pdf`).

- **2026-11-27 11:41 UTC, commit 2f8b6e5, quiet (load 1.7 at the start, 2.6 at the end): the
  table's row, 436.8 s wall (7.3 min), 618.5 s CPU, tree peak 7,042 MiB (7.38 x 10^9 bytes)**,
  the same cables.csv digest. Placement 23.7 s, cabling 60.7, performance 16.3, costing 2.5,
  summary 6.2, exports 325.7 s. What changed: the connector ends made on demand and the export
  tasks kept within 1.25 x the largest one's memory ("Within 8 GB" below). This machine is
  another (an AMD EPYC with AVX-512; the rows before ran on an Intel one): the 10K row took
  10.0 s here against 14.4, so compare times within one date only; the memory and the digests
  do not depend on the machine. With two busy loops (`--busy 2`, 11:50 UTC, load 3.4 -> 4.6):
  805.3 s wall, 629.5 s CPU, tree peak 6,874 MiB, the same digest; the 8 GB and 15-minute
  targets are met quiet and busy.
- 2026-11-27 09:13 UTC, commit 647d310, quiet (load 1.6 at the start, 2.4 at the end):
  607.2 s wall (10.1 min), 815.1 s CPU, tree peak 8,296 MiB, the same
  cables.csv digest. Placement 30.5 s, cabling 87.9, performance 21.3, costing 4.5, summary
  8.0, exports 452.9 s. What changed: the hop statistics take one BFS source per orbit of the
  topology's verified symmetries (`planner.topologies.metrics`; this Dragonfly's group shift
  leaves 56 orbits of 35,728 routers: 39.0 -> 0.25 s for the hops), so the performance stage
  fell from 56.3 to 21.3 s. With two busy loops (`--busy 2`, 09:35 UTC, load 3.7 -> 4.5):
  1,158.0 s wall, 864.8 s CPU, tree peak 8,310 MiB, the same digest. The peak is the same
  moment as below (8,205 to 8,548 MiB over
  three runs: which writers overlap shifts by seconds); the 8 GB target is still missed.
- 2026-11-27 05:45 UTC, commit 15e4323, quiet (load 1.0 at the start, 2.2 at the end):
  683.3 s wall (11.4 min), 883.5 s CPU, tree peak 8,548 MiB, the same
  cables.csv digest as every 1M run before. Placement 30.8 s (inside its work budget),
  cabling 88.7, performance 56.3, costing 3.6, summary 8.2, exports 491.4 s. The 15-minute
  target is met with 3.6 minutes to spare; the 8 GB target is missed by 356 MiB (8,192 MiB)
  or 0.96 GB (8 x 10^9 bytes).
- **With two busy loops** (`--busy 2`, 06:09 UTC, same commit, load 1.4 → 4.4): 1,276.1 s
  wall, 935.9 s CPU, tree peak 8,359 MiB, **the same cables.csv digest**: the plan does not
  depend on the load; placement took 49.2 s of wall time for the same work.
- What changed since the 03:59 run (927.3 s, 1,160.2 s CPU, 12,727 MiB):
  - **The tree's peak was one writer's dense matrix.** A run with every process's PSS sampled
    (0.5 s) showed the wiring.pdf overview part alone at 7.5 GB: the cables between
    electrical groups were counted in a dense G x G array of the 17,864 groups (2.5 GB) and
    its transpose summed (2.5 GB more). They are now counted per group pair that has cables
    (`planner.exports.wiring_pdf.groups.GroupPairs`); at 250K the overview's growth fell from
    407 to 182 MiB, the PDF byte-identical.
  - **One BFS instead of two** (`planner.topologies.metrics`): the summary's router hops and the
    performance stage's endpoint hops are the same all-pairs BFS where the two measure the same
    routers, and each batch stops at the level that reaches its last target (104 -> 38 CPU s
    for this topology alone). Performance + summary: 121.9 -> 64.5 s.
  - **Per-cabinet pandas lookups**: the management cords took their ends with a group lookup per
    cabinet (costing 22.3 -> 3.6 s); cabinets.csv and the wiring sheet layout split the fabric's
    boxes into a frame per cabinet, and the sheet layout joined each twin-port connector's legs
    with a Python aggregate per group (cabinets.csv 5.0 -> 0.17 CPU s at 250K, the sheet layout
    36.7 -> 25.8). A trunk's stock length for one length skips numpy (209,705 calls at 250K).
  - **Repeated texts shared**: the port, entry-port and trunk-chain texts of the pieces,
    connector ends and structured links are one string per distinct text
    (`planner.cabling.shared_text`): at 250K the plan held 1,465 MiB after its stages, now
    1,330; its stages peaked at 1,867 MiB, now 1,575.
- **Growth per stage.** 10K and 100K plan `modern-100g` on `hot-aisle` (no structured
  cabling); 157K and 1M plan the same router shape on `eth-51t` in `campus` (structured
  cabling through patch panels, 75 halls at 1M). Read the exponents between runs of one
  catalog and floor: 157K -> 1M in the per-stage table; 100K -> 157K mixes the two.
- **Cabling grows with the plant it builds.** cProfile of `planner.cabling.build` alone at
  `g=160` (622,720 cables, 19 halls) and `g=638` (2,483,096 cables, 75 halls): 20.7 -> 133.5 s
  (exponent 1.35). The structured plant grows faster than the cables: 119,214 -> 930,191
  trunks (7.8x for 4.0x the cables) and 188,494 -> 1,707,995 chain costings (9.1x), since
  with more halls the links of a row reach more other halls and fill fewer fibres of each
  trunk. Per chain the work is the same (the costing 1.2 -> 9.9 s for 9.1x the calls;
  `_stock` 0.8 -> 7.1 s for 8.5x): the stage is linear in what it outputs.

### Why the forked writers hold the memory at 1M (measured 2026-11-27)

Commit 3a2b6e9, every process's PSS sampled every 0.5 s (`planner plan` of the 1M row, another
engineer's tests running beside it): **tree peak 8,205 MiB**, the planner holding 5.6 GB when
it forks, then `bom_xlsx` beside `netbox` (8,178 MiB) and beside the wiring.pdf overview part
(8,205 MiB). The headline row's 8,548 MiB is the same moment in another run.

- **The planner at 1M** after its stages (`planner.plan.plan` in process, after `release`):
  5,093 MiB; the same plan unpickled, 4,738 MiB (so about 350 MiB is freed memory the heap
  keeps). Freed attribute by attribute: `cables` 1,413 MiB, the connector ends kept for three
  writers 1,019, the pieces table 767, the structured trunks 801 (with what the heap could
  return once they went), ports 218, structured links 155, legs 129, fabric boxes 107.
- **Each writer that reads the plan's text copies it.** Every task of the 250K plan forked
  alone, its private memory (`Private_Clean` + `Private_Dirty`) at its peak, per cable:
  netbox 709 B, bom_xlsx 620, viewer 566, cables_csv 556, the wiring.pdf overview part 542,
  codes 441, labels.csv 406, fabric_checkers 322, anynet 234, a wiring hall part 226, graphml
  173, trunks_csv 162, dot 153, a labels hall part 98, cabinets_csv 37. In process (not
  forked) netbox grows by 163 MiB of its 421: the rest is the planner's pages it copies. A
  forked child that only reads every text object of the plan's tables once copies 298 MiB of
  the 1,250 MiB planner: a read writes the object's reference count, and copy-on-write then
  copies its page. At 1M that is about 1.3 GB per such writer.
- **One such writer at a time is not enough.** Tried (not kept): the export tasks that copy
  the plan (the list above from 400 B per cable) started one at a time, the others beside
  them, and the hall parts' shared work (`prepare`) run by the planner while the forks run.
  Tree peak 8,633 MiB: `netbox` alone reached about 2.0 GB private beside a light task, and
  the planner had grown by the wiring sheets' shared layout (21.5 s and 139 MiB at 250K; at
  1M about 90 s during which the planner could not start the next fork).
- **Arrow strings as they are not enough either.** The same 250K tasks with pandas 3 storing
  every text column in Arrow (pyarrow installed, the code unchanged): the planner 1,814 MiB
  instead of 1,283, and the writers as large or larger (netbox 624 MiB instead of 505, viewer
  619 instead of 439): the writers turn whole columns into Python strings.
- **What would meet 8 GB.** Two processes at once cannot, while the planner holds 5.6 GB and
  each writer that reads the text copies about 1.3 GB of it and adds its own growth. The way
  is the plan's per-row texts held outside Python objects *and* the writers reading them a
  chunk at a time (a fork then copies nothing, and each writer makes only a chunk's strings),
  and the pieces table and connector ends keeping row numbers into the cables instead of
  repeating their texts per piece end (1.8 GB at 1M).

### Within 8 GB: connector ends on demand, one large writer at a time (2026-11-27, commit 7d37df3)

Every process's PSS and private memory sampled every 0.5 s, each forked process named by the
output files it held open (a sampler outside the repository), on the 1M row, quiet:

- **The connector ends were 1 GB of the planner.** `Pieces.connector_ends` (one row per
  connector end of every piece, 15 columns of text; 7.5 million rows at 1M) was built before
  the writers forked and kept for the three that read it. It is now a `ConnectorIndex`: per
  connector end the row of the pieces table and which end (a one-leg piece's connector is that
  row seen from one end), and values of their own only for the connectors of multi-link
  assemblies (20 % of them). The frame is made from it when a writer asks, for the columns and
  positions it asks for: labels a chunk of ends at a time, NetBox only the printed labels (per
  piece row, not a dict of every piece id with a new string per id), the wiring sheets only the
  assemblies' labels. At 250K the planner after its stages fell from 1,253 to 1,107 MiB and the
  index takes 0.7 s to build instead of 1.6 s; the whole frame made from it equals the old one
  column by column, and every output of the default plan, a 4-group Dragonfly on `eth-51t`
  and the 250K plan is byte-identical (but the creation times). 1M row: tree peak 8,296 ->
  7,673 MiB, 607 -> 468 s.
- **Two large writers at once were the peak.** In that run the writers that read every cable's
  text each held 1.3 to 1.6 GB private at 1M (bom.xlsx 1,394 MiB, NetBox 1,374, wiring.pdf's
  overview 1,639, index.html 1,634, labels.csv 1,322, cables.csv 1,313, codes 1,038), and the
  peak was bom.xlsx beside index.html. Each export task now carries its estimated private
  memory (`planner.exports.tuning.FORK_BYTES_PER_CABLE`, from these figures and each writer
  forked alone at 250K), and a task starts only when it fits beside the running ones within
  1.25 x the largest estimate, at least 2 GiB (`planner.run.output.next_task`). At 1M each
  large writer runs beside a hall's sheets or labels, or alone; at 250K and below every pair
  fits and nothing changes. 1M row: tree peak **6,962 MiB**, 434.1 s, the same cables.csv
  digest (7,042 MiB and 436.8 s in the table's row, commit 2f8b6e5); the peak is now
  wiring.pdf's overview (1,642 MiB private) beside a hall's sheets.
- **Left as it is:** the wiring sheets' shared layout (`prepare`, about 65 s at 1M) runs in the
  planner, which starts no task meanwhile and grows by about 600 MiB; the task forked beside it
  then holds those pages privately (bom.xlsx reached 1,974 MiB that way instead of 1,394).

Before (2026-11-26), at a load average of 15-17, the 622,720-cable case (`g=160`) had taken 30
minutes for its plan stages alone, and a 1M attempt was stopped after 12.8 minutes with its
PSS at 9,072 MiB in a plan stage; the panel failure groups' `np.isin` over millions of strings
(minutes at 1M, now a hash index) and the cuts above are what changed.
"""


def _stage(r: dict, stage: str) -> dict:
    if stage == "total":
        return {"s": r["wall_s"], "peak_pss_mib": r["peak_pss_mib"]}
    return r["stages"][stage]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["10k", "100k"], metavar="CASE",
                        help=f"cases to run (default 10k 100k): {', '.join(CASES)}")
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside the run")
    parser.add_argument("--out", type=Path, help="keep the plans here (default: a temp dir)")
    parser.add_argument("--no-save", action="store_true", help="print only")
    parser.add_argument("--writers", type=int,
                        help="pass --writers N (default: as the planner chooses)")
    args = parser.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    runs = []
    with tempfile.TemporaryDirectory(dir=args.out) as tmp:
        for case in args.cases:
            result = run(case, args.busy, Path(tmp),
                         [] if args.writers is None else ["--writers", str(args.writers)])
            print(json.dumps(result), flush=True)
            runs.append(result)
    if not args.no_save:
        merged = merge(runs)
        RESULTS_JSON.write_text(json.dumps(merged, indent=1) + "\n")
        RESULTS_MD.write_text(markdown(merged))
    return 0


if __name__ == "__main__":
    sys.exit(main())
