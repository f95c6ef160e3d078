"""Densest-set peeling: a grouping built from the densest block-sized router sets.

The multilevel partitioners (KaMinPar, METIS) coarsen along heavy, clustered links. Graphs
without dense clusters give them little to work with: on the projective planes (PN, demi-PN,
C4-free: any two routers share at most one neighbour) and on random regular graphs their
groupings stay 1-2 % above what annealing reaches. Peeling looks for dense groups directly:
it repeatedly takes the densest set of one block's size among the routers not yet grouped
(the dense k-subgraph problem; Feige, Kortsarz & Peleg, "The dense k-subgraph problem",
Algorithmica 29 (2001)) and makes it a group; the last group takes the rest.

Each set is found by tabu search over swaps (Glover, "Tabu search - Part I", ORSA Journal on
Computing 1(3), 1989): from a random set S, swap the member with the fewest links into S for
the outsider with the most (ties broken at random), forbid both routers to move back for a
few iterations, and keep the best S seen. The early groups are as dense as any found by a
long search (PN q=23 in groups of 44 routers: 97 internal links, the most 8 restarts of 2
million swaps ever found); the late ones are what is left, so the grouping goes through the
local search and annealing like every other candidate. With peeling, ``planner plan`` on
floor ``pn-500`` went from 8,765 to 8,743 optical links on demi-PN q=27 and from 10,979 to
10,966 on PN q=23 (60 s limit), and from 12,629 to 12,571 on Jellyfish 625 d48 (10 s;
``benchmarks/bench_placement.py``).

Peeling needs a block size, so it applies when every router takes the same room in a block
(``capacity.Limits.block_size``); a seed gives one grouping (xorshift generator of
``anneal``).
"""

from __future__ import annotations

import numba
import numpy as np

from planner.placement.anneal import ROUTER_STREAM, _below, seeded_rng
from planner.placement.graph import Graph
from planner.placement.tuning import TABU_TENURE


@numba.njit(cache=True)
def _densest_set(indptr, indices, data, alive_ids, size, iterations, rng):
    """Tabu search for the ``size`` routers of ``alive_ids`` with the most links among them;
    returns (links inside, members mask over all routers)."""
    n = len(indptr) - 1
    inside = np.zeros(n, np.bool_)
    pool = alive_ids.copy()
    for i in range(size):  # a random start: a partial Fisher-Yates shuffle
        j = i + _below(rng, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
        inside[pool[i]] = True
    links_in = np.zeros(n, np.int64)  # links from every router into the set
    for v in pool[:size]:
        for j in range(indptr[v], indptr[v + 1]):
            links_in[indices[j]] += data[j]
    dense = 0
    for v in pool[:size]:
        dense += links_in[v]
    dense //= 2
    best, best_inside = dense, inside.copy()
    # a router swapped out waits TABU_TENURE iterations, one swapped in half that; shorter on
    # small instances, so that each side always has free routers
    wait_out = max(1, min(TABU_TENURE, (len(alive_ids) - size) // 3))
    wait_in = max(1, min(TABU_TENURE // 2, size // 3))
    free_at = np.zeros(n, np.int64)  # tabu: a router may move again from this iteration on
    for it in range(iterations):
        low, high = 1 << 62, -1
        for v in alive_ids:
            if free_at[v] > it:
                continue
            if inside[v]:
                low = min(low, links_in[v])
            else:
                high = max(high, links_in[v])
        out, into, n_out, n_into = -1, -1, 0, 0
        for v in alive_ids:
            if free_at[v] > it:
                continue
            if inside[v] and links_in[v] == low:
                n_out += 1
                if _below(rng, n_out) == 0:
                    out = v
            elif not inside[v] and links_in[v] == high:
                n_into += 1
                if _below(rng, n_into) == 0:
                    into = v
        if out < 0 or into < 0:
            continue  # every candidate on one side is tabu: wait for one to be freed
        shared = 0
        for j in range(indptr[out], indptr[out + 1]):
            if indices[j] == into:
                shared += data[j]
        dense += high - low - shared
        inside[out] = False
        for j in range(indptr[out], indptr[out + 1]):
            links_in[indices[j]] -= data[j]
        inside[into] = True
        for j in range(indptr[into], indptr[into + 1]):
            links_in[indices[j]] += data[j]
        free_at[out] = it + wait_out + _below(rng, 3)
        free_at[into] = it + wait_in + _below(rng, 3)
        if dense > best:
            best = dense
            best_inside[:] = inside
    return best, best_inside


def compile_kernels() -> None:
    """Compile (or load from numba's cache) the tabu kernel before any timed stage."""
    ids = np.arange(3, dtype=np.int64)
    _densest_set(np.array([0, 1, 2, 2], dtype=np.int64), np.array([1, 0], dtype=np.int64),
                 np.ones(2, dtype=np.int64), ids, 2, 1, np.array([1], dtype=np.uint64))


def peel(graph: Graph, size: int, *, iterations: int, seed: int = 0) -> np.ndarray:
    """Groups of ``size`` routers, each the densest set found among the routers left; the
    last group holds the rest."""
    a = graph.adjacency
    indptr, indices = a.indptr.astype(np.int64), a.indices.astype(np.int64)
    data = a.data.astype(np.int64)
    rng = seeded_rng(seed, ROUTER_STREAM)
    part = np.full(graph.n, -1, dtype=np.int64)
    block = 0
    while np.count_nonzero(part < 0) > size:
        alive = np.flatnonzero(part < 0).astype(np.int64)
        _, members = _densest_set(indptr, indices, data, alive, int(size), int(iterations), rng)
        part[members] = block
        block += 1
    part[part < 0] = block
    return part
