"""Build times of the largest configurations (issue 2: each must take < 5 s).

Builds every configuration of the published tables in docs/topologies.md (the largest by
routers is the Dragonfly h=11 of the Slim Fly case study's radix-43 table, 5,346 routers; by
endpoints the radix-64 OFT of Kathareios et al. SC15, 63,552), a Dragonfly with
a=32, h=16 (16,416 routers) and the same Dragonfly with 300 groups instead of 513 (several
global links per group pair, dealt by an assignment per group), printing the build time of
each; with --distances also the exact diameter / average-distance time.
Run: python benchmarks/bench_topologies.py [--distances]
"""

from __future__ import annotations

import argparse
import sys
import time

from planner.topologies import parse_spec
from planner.topologies.metrics import distance_stats

LIMIT_S = 5.0
TABLE_SPECS = [
    "hyperx:S=22x22,p=22", "demipn:q=27,p=14", "slimfly:q=19,p=13", "pn:q=23,p=9",
    "dragonfly:h=7", "hyperx:S=29x29,p=29", "demipn:q=37,p=19", "slimfly:q=27,p=18",
    "pn:q=31,p=13", "dragonfly:h=9", "mlfm:h=21", "mlfm:h=29", "oft:q=16", "oft:q=23",
    "fattree:k=35", "jellyfish:routers=1386,degree=21,p=7", "hyperx:S=10x10x10,p=10",
    "slimfly:q=19,p=15", "fattree:k=43", "jellyfish:routers=4020,degree=33,p=10",
    "hyperx:S=12x12x12,p=12", "dragonfly:h=11", "dragonfly:a=19,p=9,h=9",
    "hyperx:S=13x13x13,p=13", "fattree:k=50", "slimfly:q=27,p=20",
    "galaxyfly:n=25,q=49,a=3,h=16,p=8", "galaxyfly:n=25,q=47,a=3,h=16,p=9",
    "galaxyfly:n=21,q=37,a=2,h=19,p=20", "oft:q=31", "mlfm:h=32", "slimfly:q=29,p=21",
    "slimfly:q=29,p=22", "slimfly:q=13,p=9", "slimfly:q=13,p=10", "mlfm:h=15", "oft:q=11",
]
BIG = "dragonfly:a=32,h=16"
EXTRA = ["dragonfly:a=32,h=16,g=300"]


def timed(spec: str, distances: bool) -> tuple[float, float | None, object]:
    t0 = time.perf_counter()
    top = parse_spec(spec)
    build_s = time.perf_counter() - t0
    dist_s = None
    if distances:
        t0 = time.perf_counter()
        distance_stats(top)
        dist_s = time.perf_counter() - t0
    return build_s, dist_s, top


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--distances", action="store_true", help="also time distance_stats")
    args = ap.parse_args()
    worst = 0.0
    print(f"{'configuration':<40} {'routers':>8} {'endpoints':>9} {'build s':>8}"
          + (f" {'dist s':>7}" if args.distances else ""))
    rows = []
    for spec in TABLE_SPECS + [BIG] + EXTRA:
        build_s, dist_s, top = timed(spec, args.distances)
        rows.append((spec, top.num_routers, build_s))
        worst = max(worst, build_s)
        print(f"{spec:<40} {top.num_routers:>8,} {top.num_endpoints:>9,} {build_s:>8.3f}"
              + (f" {dist_s:>7.2f}" if dist_s is not None else ""))
    table = rows[:len(TABLE_SPECS)]
    largest = max(table, key=lambda r: r[1])
    big = rows[len(TABLE_SPECS)]
    print(f"largest table configuration: {largest[0]} ({largest[1]:,} routers) built in "
          f"{largest[2]:.3f} s; {BIG} ({big[1]:,} routers) in {big[2]:.3f} s; "
          f"slowest build {worst:.3f} s (limit {LIMIT_S:g} s)")
    return 0 if worst < LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
