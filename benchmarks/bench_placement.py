"""Placement benchmark: the Projective Networks Table 4 rows on floor ``pn-500`` and speed.

Run: ``python benchmarks/bench_placement.py [--time-limit S] [--only NAME ...]``.
Per row: hint (papers' natural layout, or routers in id order), best partitioner alone (the best
raw KaMinPar / METIS run, before any local search), final optical count, lower bound and kind,
gap and seconds; the targets of issue 4 are checked and printed as ok/MISS.
"""

from __future__ import annotations

import argparse
import time

from planner.floor import load_floor
from planner.placement import place
from planner.topologies import build

ROWS = [
    # name, family, params, endpoints per group, target optical (<=), published hand layout
    ("SF q=19 p=13", "slimfly", dict(q=19, p=13), 494, 6498, 6498),
    ("DF h=7 (a=14)", "dragonfly", dict(h=7), 490, 4655, 4514),
    ("demi-PN q=27 p=14", "demipn", dict(q=27, p=14), 504, 9000, 10028),
    ("PN q=23 p=9", "pn", dict(q=23, p=9), 396, 11000, 11365),
    ("DF a=32 h=16 (speed)", "dragonfly", dict(a=32, h=16), 1024, None, None),
    ("SF q=23 (speed, ~10K ep.)", "slimfly", dict(q=23, p=9), None, None, None),
]
SPEED_LIMIT_S = {"DF a=32 h=16 (speed)": 60.0, "SF q=23 (speed, ~10K ep.)": 20.0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--strategy", default="optimize")
    ap.add_argument("--only", nargs="*", default=None, help="substring of row names to run")
    args = ap.parse_args()
    floor = load_floor("pn-500")
    print(f"{'row':28s} {'routers':>7s} {'endp.':>6s} {'grp':>4s} {'hint':>7s} {'best part.':>10s} "
          f"{'final':>7s} {'LB':>7s} {'gap':>6s} {'sec':>6s}  target  method / LB kind")
    for name, family, params, group_ep, target, published in ROWS:
        if args.only and not any(o in name for o in args.only):
            continue
        top = build(family, **params)
        t0 = time.perf_counter()
        pl = place(top, floor, None, strategy=args.strategy, time_limit_s=args.time_limit,
                   group_endpoints=group_ep)
        sec = time.perf_counter() - t0
        base = pl.candidates.get("hint", pl.candidates.get("sequential"))
        raw = [v for k, v in pl.candidates.items() if k.startswith(("kaminpar", "metis")) and "+" not in k]
        best_part = min(raw) if raw else None
        checks = []
        if target is not None:
            checks.append(pl.optical <= target)
        if best_part is not None:
            checks.append(pl.optical <= best_part)
        if name in SPEED_LIMIT_S:
            checks.append(sec <= SPEED_LIMIT_S[name])
        verdict = "ok" if all(checks) else "MISS"
        extra = f" (published {published})" if published else ""
        print(f"{name:28s} {top.num_routers:7d} {top.num_endpoints:6d} {pl.num_groups:4d} {base:7d} "
              f"{best_part if best_part is not None else '-':>10} {pl.optical:7d} {int(pl.lower_bound):7d} "
              f"{pl.gap:6.1%} {sec:6.1f}  {verdict:6s}  {pl.method} / {pl.lower_bound_kind}{extra}")
        print(f"{'':28s} stages: " + ", ".join(f"{k} {v:.2f}s" for k, v in pl.stage_seconds.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
