"""Placement benchmark: the papers' floors, instances nothing is tuned to, speed, and load.

Run: ``python benchmarks/bench_placement.py [--busy 2] [--only NAME ...] [--section S ...]``.

Sections (each row prints ok/MISS against its target):

* ``papers``: the Projective Networks Table 4 rows on floor ``pn-500`` (60 s limit): Slim Fly
  q=19 and Dragonfly h=7 must meet their lower bounds, demi-PN q=27 <= 8,600 and PN q=23 <=
  10,800 optical links.
* ``portfolio``: twelve instances the tests do not tune to (Jellyfish, MLFM, OFT, fat tree, Slim
  Fly with groups that are not whole racks, Dragonfly with groups that split Dragonfly groups)
  at ``planner plan``'s default 10 s limit. Columns: the planner, KaMinPar alone and METIS
  alone (4 seeds each, the fewest groups the limits allow, repaired to the limits: both tools
  take one weight), the lower bound and its kind, the gap, seconds. Target: the planner is never
  worse than either tool alone.
* ``reach``: the real-room floor ``hot-aisle`` (media by reach), where placement minimises
  the cable dollars: copper cables against the proven upper bound, cable dollars against the
  proven lower bound, seconds. Target: the default plan (Slim Fly q=19) has at least
  2,700 copper network cables (1,026 before cable-dollar placement).
* ``speed``: the default ``planner plan`` topology/floor within its default limit, Dragonfly
  a=32 h=16 (16,416 routers) within 60 s, and larger instances; every row of every section
  also checks that the bounds stage took <= 10 % of the limit.
* ``scale`` (not run by default): ``planner plan``'s placement at 10K, 100K and 1M endpoints
  with its default limit, catalog and floor (1M: ``eth-51t`` on ``campus``), each stage's own
  CPU seconds (``budget.own_cpu_seconds``) against what the budget expects of the reference
  machine (T plus ``budget.fixed_seconds``) and the hard cap. Target: the cap does not fire.
  The 1M row takes a few minutes and about 1.2 GB: run it under the big-run lock
  (``flock /tmp/locks/big.lock python benchmarks/bench_placement.py --section scale``).

``--busy N`` keeps N busy loops (``python -c 'while True: pass'``) running for the whole run.
Each row prints a digest of its router -> cabinet assignment: a run with ``--busy 2`` must
print the same digests as a quiet one (only the seconds change).
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import subprocess
import sys
import time

import numpy as np

from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.placement import place
from planner.placement.budget import Budget, own_cpu_seconds
from planner.topologies import parse_spec
from planner.placement.capacity import capacity_from_floor
from planner.placement.graph import Graph
from planner.placement.partition import KaMinParRunner, metis_partition, repair
from planner.topologies import build

PAPERS = [
    # name, family, params, endpoints per group, target optical (<=; None: the lower bound)
    ("SF q=19 p=13", "slimfly", dict(q=19, p=13), 494, None),
    ("DF h=7 (a=14)", "dragonfly", dict(h=7), 490, None),
    ("demi-PN q=27 p=14", "demipn", dict(q=27, p=14), 504, 8600),
    ("PN q=23 p=9", "pn", dict(q=23, p=9), 396, 10800),
]
PORTFOLIO = [
    # name, family, params, endpoints per group
    ("Jellyfish 1000 d24", "jellyfish", dict(routers=1000, degree=24, p=8), 500),
    ("Jellyfish 625 d48", "jellyfish", dict(routers=625, degree=48, p=16), 500),
    ("MLFM h=21", "mlfm", dict(h=21), 500),
    ("MLFM h=15", "mlfm", dict(h=15), 300),
    ("OFT q=16", "oft", dict(q=16, p=17), 500),
    ("OFT q=11", "oft", dict(q=11), 300),
    ("fat tree k=34", "fattree", dict(k=34), 500),
    ("fat tree k=20", "fattree", dict(k=20), 400),
    ("SF q=19, 27-router groups", "slimfly", dict(q=19, p=15), 400),
    ("SF q=13, 28-router groups", "slimfly", dict(q=13, p=9), 250),
    ("DF a=20 split in 15s", "dragonfly", dict(a=20, p=10, h=10, g=50), 150),
    ("DF a=16 split in 12s", "dragonfly", dict(a=16, h=8, p=8), 96),
]
SPEED = [
    # name, family, params, floor, endpoints per group, time limit, seconds allowed
    ("default plan (SF q=19, hot-aisle)", "slimfly", dict(q=19, p=15), "hot-aisle", None, 10.0, 10.0),
    ("DF a=32 h=16", "dragonfly", dict(a=32, h=16), "pn-500", 1024, 60.0, 60.0),
    ("SF q=29", "slimfly", dict(q=29), "pn-500", 500, 10.0, None),
    ("OFT q=37 (100K endpoints)", "oft", dict(q=37, p=38), "pn-500", 500, 10.0, None),
]
REACH = [
    # name, family, params, time limit, least copper cables (None: report only)
    ("default plan (SF q=19)", "slimfly", dict(q=19, p=15), 10.0, 2700),
    ("SF q=13", "slimfly", dict(q=13, p=9), 10.0, None),
    ("DF a=8 h=4", "dragonfly", dict(a=8, h=4, p=4), 10.0, None),
    ("Jellyfish 1000 d24", "jellyfish", dict(routers=1000, degree=24, p=8), 10.0, None),
    ("fat tree k=20", "fattree", dict(k=20), 10.0, None),
    ("MLFM h=15", "mlfm", dict(h=15), 10.0, None),
]
SCALE = [
    # name, topology, catalog, floor (planner plan's defaults at 10K and 100K)
    ("10K: SF q=19 p=15", "slimfly:q=19,p=15", "modern-100g", "hot-aisle"),
    ("100K: DF a=26 g=296", "dragonfly:a=26,p=13,h=13,g=296", "modern-100g", "hot-aisle"),
    ("1M: DF a=56 g=638", "dragonfly:a=56,p=28,h=28,g=638", "eth-51t", "campus"),
]
BOUNDS_SHARE_MAX = 0.10
ANCHOR_SEEDS = 4


def digest(pl) -> str:
    return hashlib.sha256(np.asarray(pl.router_cabinet, dtype=np.int64).tobytes()).hexdigest()[:10]


def layout_digest(pl) -> str:
    """Digest of router -> cabinet and every cabinet's hall, row and column."""
    arrays = (pl.router_cabinet, pl.cabinet_hall, pl.cabinet_row, pl.cabinet_col)
    return hashlib.sha256(b"".join(np.asarray(a, dtype=np.int64).tobytes() for a in arrays)).hexdigest()[:10]


def alone(top, floor, group_endpoints) -> tuple[int, int]:
    """Best optical count of KaMinPar ("strong") and of METIS (ufactor 30) alone, 4 seeds
    each, at the fewest groups the limits allow, repaired to the limits."""
    g = Graph.from_topology(top)
    limits = capacity_from_floor(floor, g.endpoints, group_endpoints).group_limits(g.endpoints)
    w, cap = limits.scalar()
    k = max(2, limits.min_blocks())
    runner = KaMinParRunner(g, w)
    kaminpar = min(g.cut(repair(g, runner.run(s, k, cap, "strong"), limits)) for s in range(ANCHOR_SEEDS))
    metis = min(g.cut(repair(g, metis_partition(g, w, k, s, 30), limits)) for s in range(ANCHOR_SEEDS))
    return kaminpar, metis


def timed_place(top, floor, catalog, limit, group_endpoints, on_stage=None):
    t0 = time.perf_counter()
    pl = place(top, floor, catalog, strategy="optimize", time_limit_s=limit, group_endpoints=group_endpoints,
               on_stage=on_stage)
    return pl, time.perf_counter() - t0


def selected(rows, args) -> list:
    """The rows of a section whose name contains one of ``--only`` (all without it)."""
    return [row for row in rows if not args.only or any(o in row[0] for o in args.only)]


def bounds_ok(pl, limit) -> bool:
    return pl.stage_seconds.get("bounds", 0.0) <= BOUNDS_SHARE_MAX * limit


def papers(args) -> bool:
    floor = load_floor("pn-500")
    print(f"\n## papers' floor pn-500, {args.paper_limit:g} s limit\n")
    print(f"{'row':20s} {'routers':>7s} {'grp':>4s} {'hint':>7s} {'planner':>8s} {'bound':>7s} {'gap':>6s} "
          f"{'sec':>6s} {'bnd s':>6s} target      verdict digest     method / bound kind")
    good = True
    for name, family, params, group_ep, target in selected(PAPERS, args):
        top = build(family, **params)
        pl, sec = timed_place(top, floor, None, args.paper_limit, group_ep)
        goal = int(pl.lower_bound) if target is None else target
        ok = pl.optical <= goal and bounds_ok(pl, args.paper_limit)
        good &= ok
        base = pl.candidates.get("hint", pl.candidates.get("sequential"))
        print(f"{name:20s} {top.num_routers:7d} {pl.num_groups:4d} {base:7d} {pl.optical:8d} {int(pl.lower_bound):7d} "
              f"{pl.gap:6.1%} {sec:6.1f} {pl.stage_seconds.get('bounds', 0):6.2f} "
              f"{'<= ' + str(goal):11s} {'ok' if ok else 'MISS':7s} {digest(pl)} "
              f"{pl.method} / {pl.lower_bound_kind}{' (time-capped)' if pl.time_capped else ''}", flush=True)
    return good


def portfolio(args) -> bool:
    floor = load_floor("pn-500")
    print(f"\n## instances nothing is tuned to: floor pn-500, {args.limit:g} s limit\n")
    print(f"{'row':27s} {'routers':>7s} {'grp':>4s} {'planner':>8s} {'KaMinPar':>8s} {'METIS':>8s} {'bound':>7s} "
          f"{'gap':>6s} {'sec':>6s} {'bnd s':>6s} verdict digest     bound kind")
    good = True
    for name, family, params, group_ep in selected(PORTFOLIO, args):
        top = build(family, **params)
        pl, sec = timed_place(top, floor, None, args.limit, group_ep)
        kaminpar, metis = alone(top, floor, group_ep)
        ok = pl.optical <= min(kaminpar, metis) and bounds_ok(pl, args.limit)
        good &= ok
        print(f"{name:27s} {top.num_routers:7d} {pl.num_groups:4d} {pl.optical:8d} {kaminpar:8d} {metis:8d} "
              f"{int(pl.lower_bound):7d} {pl.gap:6.1%} {sec:6.1f} {pl.stage_seconds.get('bounds', 0):6.2f} "
              f"{'ok' if ok else 'MISS':7s} {digest(pl)} {pl.lower_bound_kind}"
              f"{' (time-capped)' if pl.time_capped else ''}", flush=True)
    return good


def reach(args) -> bool:
    catalog, floor = load_catalog("modern-100g"), load_floor("hot-aisle")
    print("\n## reach floor hot-aisle, modern-100g: cable dollars\n")
    print(f"{'row':24s} {'routers':>7s} {'links':>6s} {'copper':>6s} {'<= max':>6s} {'cables $':>12s} "
          f"{'>= bound $':>12s} {'gap':>6s} {'sec':>6s} {'bnd s':>6s} verdict digest     bound kinds")
    good = True
    for name, family, params, limit, least in selected(REACH, args):
        top = build(family, **params)
        pl, sec = timed_place(top, floor, catalog, limit, None)
        ok = (least is None or pl.copper >= least) and bounds_ok(pl, limit)
        good &= ok
        print(f"{name:24s} {top.num_routers:7d} {int(top.multiplicity.sum()):6d} {pl.copper:6d} "
              f"{pl.copper_upper_bound:6d} {pl.cable_cost:12,.0f} {pl.cable_cost_lower_bound:12,.0f} "
              f"{pl.gap:6.1%} {sec:6.1f} {pl.stage_seconds.get('bounds', 0):6.2f} {'ok' if ok else 'MISS':7s} "
              f"{digest(pl)} {pl.copper_bound_kind} / {pl.cable_cost_bound_kind}"
              f"{' (time-capped)' if pl.time_capped else ''}", flush=True)
    return good


def speed(args) -> bool:
    catalog = load_catalog("modern-100g")
    print("\n## speed\n")
    print(f"{'row':34s} {'routers':>7s} {'limit':>6s} {'sec':>6s} {'allowed':>7s} {'bnd s':>6s} {'optical':>8s} "
          f"{'gap':>6s} verdict digest")
    good = True
    for name, family, params, floor_name, group_ep, limit, allowed in selected(SPEED, args):
        top = build(family, **params)
        pl, sec = timed_place(top, load_floor(floor_name), catalog, limit, group_ep)
        ok = (allowed is None or sec <= allowed) and bounds_ok(pl, limit)
        good &= ok
        print(f"{name:34s} {top.num_routers:7d} {limit:6.0f} {sec:6.1f} {allowed or '-':>7} "
              f"{pl.stage_seconds.get('bounds', 0):6.2f} {pl.optical:8d} {pl.gap:6.1%} {'ok' if ok else 'MISS':7s} "
              f"{digest(pl)}{' (time-capped)' if pl.time_capped else ''}", flush=True)
    return good


def scale(args) -> bool:
    """Each stage's own CPU seconds at 10K, 100K and 1M against the budget's expectation."""
    print(f"\n## scale: placement's own CPU seconds per stage, {args.limit:g} s limit\n")
    print(f"{'row':20s} {'routers':>7s} {'groups':>6s} {'stages (CPU s)':64s} {'CPU s':>6s} {'wall s':>6s} "
          f"{'T+fixed':>7s} {'cap':>6s} {'peak MB':>7s} verdict digest")
    good = True
    for name, spec, catalog_name, floor_name in selected(SCALE, args):
        top, floor = parse_spec(spec), load_floor(floor_name)
        graph = Graph.from_topology(top)
        capacity = capacity_from_floor(floor, graph.endpoints, None)
        budget = Budget.of(graph, capacity.group_limits(graph.endpoints), args.limit)
        stages, mark = {}, [own_cpu_seconds()]

        def on_stage(stage, _seconds):
            now = own_cpu_seconds()
            stages[stage] = stages.get(stage, 0.0) + now - mark[0]
            mark[0] = now
        start = own_cpu_seconds()
        pl, sec = timed_place(top, floor, load_catalog(catalog_name), args.limit, None, on_stage)
        cpu = own_cpu_seconds() - start
        ok = not pl.time_capped
        good &= ok
        parts = " ".join(f"{s} {v:.1f}" for s, v in stages.items())
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{name:20s} {graph.n:7d} {int(pl.cabinet_group.max()) + 1:6d} {parts:64s} {cpu:6.1f} {sec:6.1f} "
              f"{args.limit + budget.fixed_s:7.1f} {budget.cap_cpu_s:6.0f} {peak:7.0f} "
              f"{'ok' if ok else 'MISS':7s} {layout_digest(pl)}{' (time-capped)' if pl.time_capped else ''}",
              flush=True)
    return good


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=10.0, help="time limit of the portfolio rows")
    ap.add_argument("--paper-limit", type=float, default=60.0, help="time limit of the papers' rows")
    ap.add_argument("--busy", type=int, default=0, help="busy loops to keep running meanwhile")
    ap.add_argument("--section", nargs="*", default=["papers", "portfolio", "reach", "speed"])
    ap.add_argument("--only", nargs="*", default=None, help="substring of row names to run")
    args = ap.parse_args()
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    print(f"busy loops running: {args.busy}")
    try:
        results = [{"papers": papers, "portfolio": portfolio, "reach": reach, "speed": speed,
                    "scale": scale}[s](args)
                   for s in args.section]
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
