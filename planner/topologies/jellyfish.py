"""Jellyfish: a random regular graph of routers built by random incremental linking.

Singla, Hong, Popa, Godfrey, "Jellyfish: Networking Data Centers Randomly", NSDI'12 §3;
the "Random" rows of the Slim Fly case study (Besta, Henriksson, Hoefler, SC14 slides "RESULTS:
A CASE STUDY"; docs/topologies.md). Deterministic: all choices
come from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, integer, size_limit

_TRIES = 64


class _Uniform:
    """Uniform floats in [0, 1) from ``rng``, drawn in batches (per-call numpy cost is high)."""

    def __init__(self, rng):
        self.rng, self.buf, self.i = rng, [], 0

    def index(self, n: int) -> int:
        if self.i == len(self.buf):
            self.buf, self.i = self.rng.random(1 << 16).tolist(), 0
        self.i += 1
        return int(self.buf[self.i - 1] * n)


def _link_randomly(draw: _Uniform, r: int, degree: int, adj: list[set[int]],
                   edges: list[tuple[int, int]]) -> list[int]:
    """Join random pairs of non-adjacent routers with free ports until no such pair is left;
    returns the free ports per router."""
    free = [degree] * r
    open_ids = list(range(r))
    pos = list(range(r))
    while len(open_ids) >= 2:
        pair = None
        for _ in range(_TRIES):
            u, v = open_ids[draw.index(len(open_ids))], open_ids[draw.index(len(open_ids))]
            if u != v and v not in adj[u]:
                pair = (u, v)
                break
        if pair is None:
            cand = sorted(open_ids)
            pairs = [(u, v) for k, u in enumerate(cand) for v in cand[k + 1:] if v not in adj[u]]
            if not pairs:
                break
            pair = pairs[draw.index(len(pairs))]
        u, v = pair
        adj[u].add(v)
        adj[v].add(u)
        edges.append((min(u, v), max(u, v)))
        for x in (u, v):
            free[x] -= 1
            if free[x] == 0:
                i, last = pos[x], open_ids[-1]
                open_ids[i], pos[last] = last, i
                open_ids.pop()
    return free


def _absorb_free_ports(draw: _Uniform, free: list[int], adj: list[set[int]],
                       edges: list[tuple[int, int]]) -> None:
    """NSDI'12 §3: while routers u, v (u = v allowed if it has 2 free ports) have free ports,
    remove a random link (x, y) with x not adjacent to u, y not adjacent to v, and link u-x,
    v-y. Stops when no such link is found in a bounded number of draws."""
    while True:
        open_ids = [x for x in range(len(free)) if free[x] > 0]
        if not open_ids or (len(open_ids) == 1 and free[open_ids[0]] < 2):
            return
        u = open_ids[0]
        v = u if free[u] >= 2 else open_ids[1]
        for _ in range(_TRIES * 16):
            k = draw.index(len(edges))
            x, y = edges[k] if draw.index(2) else edges[k][::-1]
            if len({u, v, x, y}) == len({u, v}) + 2 and x not in adj[u] and y not in adj[v]:
                break
        else:
            return
        edges[k] = edges[-1]
        edges.pop()
        adj[x].discard(y)
        adj[y].discard(x)
        for a, b in ((u, x), (v, y)):
            adj[a].add(b)
            adj[b].add(a)
            edges.append((min(a, b), max(a, b)))
            free[a] -= 1


def jellyfish(routers, degree, p=None, seed=0) -> Topology:
    """Jellyfish of ``routers`` routers with ``degree`` network ports each (NSDI'12 §3).

    Router radix = degree + p; default p = degree // 3 (the Slim Fly case study's random rows:
    k' = 21, p = 7).
    If routers·degree is odd one port stays free. Same (routers, degree, seed) -> same graph.
    """
    fam = "jellyfish"
    r = integer(fam, "routers", routers, minimum=2)
    degree = integer(fam, "degree", degree, minimum=1, maximum=r - 1)
    p = endpoints_per_router(fam, p, max(1, degree // 3))
    seed = integer(fam, "seed", seed, minimum=0)
    size_limit(fam, r, r * degree // 2, f"routers={r},degree={degree}")
    draw = _Uniform(np.random.default_rng(seed))
    adj: list[set[int]] = [set() for _ in range(r)]
    edges: list[tuple[int, int]] = []
    free = _link_randomly(draw, r, degree, adj, edges)
    _absorb_free_ports(draw, free, adj, edges)
    return Topology.from_edges(fam, {"routers": r, "degree": degree, "p": p, "seed": seed}, r,
                               np.array(sorted(edges), dtype=np.int64), p)
