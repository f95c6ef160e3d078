"""How dense can one electrical group of the projective networks be? The evidence behind the
papers' targets for demi-PN q=27 and PN q=23 on floor ``pn-500``.

Run: ``python benchmarks/densest_groups.py [--restarts 8] [--iterations 2000000]``.

A grouping keeps inside its groups at most sum_i M(s_i) links, where M(s) is the most links any
s routers have among themselves and s_i <= the group size. This script estimates M(s) for every
s up to the group size with the tabu search of ``planner.placement.peel`` (``--restarts`` random
starts of ``--iterations`` swaps at the group size, a tenth of that below it), prints the
densest group found, how many restarts found it, and the optical-link floor the estimates imply:
links - max sum_i M(s_i) over sizes adding up to the routers (``bounds.max_sum_over_parts``).
The floor is conditional: it holds if no denser set exists than the search found. It is not a
proven lower bound (that would need every s-router configuration of the plane), so the planner
never reports it as one.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from planner.placement.bounds import max_sum_over_parts
from planner.placement.graph import Graph
from planner.placement.peel import _densest_set
from planner.topologies import build

ROWS = [
    # name, family, params, routers per group (endpoints per group / endpoints per router), target
    ("demi-PN q=27 p=14", "demipn", dict(q=27, p=14), 504 // 14, 8600),
    ("PN q=23 p=9", "pn", dict(q=23, p=9), 396 // 9, 10800),
]


def densest(graph: Graph, size: int, restarts: int, iterations: int) -> list[int]:
    a = graph.adjacency
    args = (a.indptr.astype(np.int64), a.indices.astype(np.int64), a.data.astype(np.int64))
    alive = np.arange(graph.n, dtype=np.int64)
    return [int(_densest_set(*args, alive, size, iterations, np.array([r + 1], dtype=np.uint64))[0])
            for r in range(restarts)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--restarts", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=2_000_000)
    args = ap.parse_args()
    print(f"{'row':18s} {'routers':>7s} {'group':>5s} {'densest':>7s} {'found by':>8s} "
          f"{'floor':>6s} {'target':>6s} {'sec':>6s}")
    for name, family, params, size, target in ROWS:
        t0 = time.perf_counter()
        g = Graph.from_topology(build(family, **params))
        m = np.zeros(size + 1)
        for s in range(2, size):
            m[s] = max(densest(g, s, 2, args.iterations // 10))
        top = densest(g, size, args.restarts, args.iterations)
        m[size] = max(top)
        floor = g.total_weight - max_sum_over_parts(np.maximum.accumulate(m), g.n)
        print(f"{name:18s} {g.n:7d} {size:5d} {int(m[size]):7d} {sum(f == m[size] for f in top):4d}/{args.restarts:<3d} "
              f"{int(floor):6d} {target:6d} {time.perf_counter() - t0:6.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
