"""Simulated annealing on a grouping: random moves and swaps under exact block capacity.

Kirkpatrick, Gelatt & Vecchi, "Optimization by simulated annealing", Science 220 (1983); for
graph partitioning Johnson, Aragon, McGeoch & Schevon, Operations Research 37(6) (1989). The
greedy move/swap search (``local_search``) stops at the first local optimum; on graphs without
dense clusters (projective planes, random graphs) annealing walks across many of them.

One step picks a random router v (block a) and a random neighbour's block b != a, then either
moves v to b (when b has room, half of the time) or swaps v with a router u of b (a random one,
or half of the time one adjacent to a router of a), keeping both blocks within every limit
(routers, endpoints, ...: ``capacity.Limits``). The gain is
read from W[v, g] = link weight from v into block g:
  move  W[v,b] - W[v,a];  swap  W[v,b] - W[v,a] + W[u,a] - W[u,b] - 2 A[u,v].
A step is accepted when the gain is >= 0, else with probability exp(gain / T); T falls
geometrically from ``T_START`` to ``T_END`` (in links) over the step budget. Measured on PN
q=23 in groups of 44 routers (2e8 steps from an 11,084-link METIS+LS grouping): 0.3 -> 0.15
gives 10,987; 1.0 -> 0.15 gives 11,013; fixed T = 0.2 hovers at 11,044 and 0.3 at ~11,100.
The best grouping seen is returned, so the result is never worse than the start.

The kernel is compiled with numba (about 45 million steps per second here, with an inline
xorshift generator) and runs in chunks, so the hard cap (``budget.HardCap``) and Ctrl-C are honoured
between chunks. The step budget, not the clock, sets the answer: a seed gives one grouping.
"""

from __future__ import annotations

import numba
import numpy as np

from planner.placement.budget import HardCap
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.placement.tuning import (ANNEAL_ACCEPT_TABLE as ACCEPT_TABLE,
                                      ANNEAL_CHUNK_STEPS as CHUNK_STEPS,
                                      ANNEAL_TEMPERATURE_STEPS as TEMPERATURE_STEPS,
                                      ANNEAL_T_END as T_END, ANNEAL_T_START as T_START)
from planner.run.interrupts import ctrl_c_deferred


ANNEAL_STREAM = 0x2545F4914F6CDD1D
ROUTER_STREAM = 0x632BE59BD9B4E019   # ``cabinet_anneal`` and ``peel``


def seeded_rng(seed: int, stream: int = ANNEAL_STREAM) -> np.ndarray:
    """The 1-element xorshift64* state of ``seed`` (never 0; ``stream`` keeps the generators of
    different searches apart for one seed)."""
    return np.array([(int(seed) * 0x9E3779B97F4A7C15 + stream) % 2**64 or 1], dtype=np.uint64)


@numba.njit(cache=True, inline="always")
def _next(rng):
    """xorshift64* (Vigna, ACM TOMS 42(4), 2016): 64 random bits; ``rng`` is a 1-element state."""
    x = rng[0]
    x ^= x >> numba.uint64(12)
    x ^= x << numba.uint64(25)
    x ^= x >> numba.uint64(27)
    rng[0] = x
    return x * numba.uint64(0x2545F4914F6CDD1D)


@numba.njit(cache=True, inline="always")
def _below(rng, n):
    """A random integer in [0, n)."""
    return np.int64((_next(rng) >> numba.uint64(32)) * numba.uint64(n) >> numba.uint64(32))


@numba.njit(cache=True, inline="always")
def _uniform(rng):
    """A random float in [0, 1)."""
    return (_next(rng) >> numba.uint64(11)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True)
def _state(indptr, indices, data, demand, part, k):
    """W matrix, block loads (k x resources) and per-block member lists of ``part``."""
    n = len(part)
    w = np.zeros((n, k), np.int32)
    for v in range(n):
        for j in range(indptr[v], indptr[v + 1]):
            w[v, part[indices[j]]] += data[j]
    load = np.zeros((k, demand.shape[1]), np.int64)
    members = np.empty((k, n), np.int32)
    count = np.zeros(k, np.int64)
    pos = np.empty(n, np.int64)
    for v in range(n):
        b = part[v]
        load[b] += demand[v]
        members[b, count[b]] = v
        pos[v] = count[b]
        count[b] += 1
    return w, load, members, count, pos


@numba.njit(cache=True)
def _fits(load, demand, limit, b, add, remove):
    """Block b within every limit after router ``add`` joins and ``remove`` (-1: none) leaves."""
    for r in range(limit.shape[0]):
        x = load[b, r] + demand[add, r]
        if remove >= 0:
            x -= demand[remove, r]
        if x > limit[r]:
            return False
    return True


@numba.njit(cache=True)
def _move_member(x, src, dst, members, count, pos):
    """Router ``x`` leaves block ``src``'s member list (the last member takes its place) and
    joins the end of ``dst``'s."""
    last = members[src, count[src] - 1]
    members[src, pos[x]] = last
    pos[last] = pos[x]
    count[src] -= 1
    members[dst, count[dst]] = x
    pos[x] = count[dst]
    count[dst] += 1


@numba.njit(cache=True)
def _relocate(x, dst, indptr, indices, data, part, w, load, demand, members, count, pos):
    src = part[x]
    for j in range(indptr[x], indptr[x + 1]):
        w[indices[j], src] -= data[j]
        w[indices[j], dst] += data[j]
    _move_member(x, src, dst, members, count, pos)
    load[src] -= demand[x]
    load[dst] += demand[x]
    part[x] = dst


@numba.njit(cache=True)
def _run(indptr, indices, data, demand, limit, part, w, load, members, count, pos,
         cut, best_cut, best_part, first, last, total, t_start, t_end, rng):
    """Steps [first, last) of a ``total``-step schedule; returns (cut, best_cut)."""
    n = len(part)
    ratio = t_end / t_start
    accept = np.zeros(ACCEPT_TABLE, np.float64)  # accept[-gain] = exp(gain / T)
    for step in range(first, last):
        if step == first or step % TEMPERATURE_STEPS == 0:
            temp = t_start * ratio ** (step / total)
            for g in range(ACCEPT_TABLE):
                accept[g] = np.exp(-g / temp)
        v = _below(rng, n)
        deg = indptr[v + 1] - indptr[v]
        if deg == 0:
            continue
        a = part[v]
        b = part[indices[indptr[v] + _below(rng, deg)]]
        if b == a:
            continue
        u = -1
        if _fits(load, demand, limit, b, v, -1) and _uniform(rng) < 0.5:
            gain = w[v, b] - w[v, a]
        else:
            u = members[b, _below(rng, count[b])]
            if _uniform(rng) < 0.5:
                y = members[a, _below(rng, count[a])]
                dy = indptr[y + 1] - indptr[y]
                if dy > 0:
                    cand = indices[indptr[y] + _below(rng, dy)]
                    if part[cand] == b:
                        u = cand
            if not (_fits(load, demand, limit, b, v, u) and _fits(load, demand, limit, a, u, v)):
                continue
            gain = w[v, b] - w[v, a] + w[u, a] - w[u, b]
        # draw once; a step rejected before the u-v links are subtracted stays rejected after
        r = _uniform(rng)
        if gain < 0 and (-gain >= ACCEPT_TABLE or r >= accept[-gain]):
            continue
        if u >= 0:
            for j in range(indptr[v], indptr[v + 1]):
                if indices[j] == u:
                    gain -= 2 * data[j]
            if gain < 0 and (-gain >= ACCEPT_TABLE or r >= accept[-gain]):
                continue
        _relocate(v, b, indptr, indices, data, part, w, load, demand, members, count, pos)
        if u >= 0:
            _relocate(u, a, indptr, indices, data, part, w, load, demand, members, count, pos)
        cut -= gain
        if cut < best_cut:
            best_cut = cut
            best_part[:] = part
    return cut, best_cut


def compile_kernels() -> None:
    """Compile (first run after install, a few seconds) or load (from numba's cache) the
    kernels on a 4-router ring, so that a time limit measures annealing, not the compiler.
    Ctrl-C waits until they are loaded (``planner.run.interrupts``)."""
    ring = Graph.from_edges(4, [(0, 1), (1, 2), (2, 3), (3, 0)])
    with ctrl_c_deferred():
        anneal(ring, np.array([0, 0, 1, 1]), Limits.single(np.ones(4), 2), 2, steps=10)


def anneal(graph: Graph, part: np.ndarray, limits: Limits, k: int, *, steps: int, seed: int = 0,
           lower_bound: float = 0, hard_cap: HardCap | None = None) -> np.ndarray:
    """Best grouping found by ``steps`` annealing steps from ``part`` (never worse, every limit
    kept); stops early, between chunks, once the cut meets ``lower_bound`` or the hard
    ``hard_cap`` fires."""
    part = np.asarray(part, dtype=np.int64).copy()
    if graph.n < 2 or k < 2 or steps <= 0 or len(graph.links) == 0:
        return part
    a = graph.adjacency
    indptr, indices = a.indptr.astype(np.int64), a.indices.astype(np.int64)
    data = a.data.astype(np.int64)
    demand = np.ascontiguousarray(limits.demand, dtype=np.int64)
    limit = np.ascontiguousarray(limits.limit, dtype=np.int64)
    w, load, members, count, pos = _state(indptr, indices, data, demand, part, int(k))
    cut = best_cut = graph.cut(part)
    best_part = part.copy()
    rng = seeded_rng(seed)
    for first in range(0, int(steps), CHUNK_STEPS):
        if best_cut <= lower_bound or (hard_cap is not None and hard_cap.expired()):
            break
        last = min(int(steps), first + CHUNK_STEPS)
        cut, best_cut = _run(indptr, indices, data, demand, limit, part, w, load, members, count, pos,
                             cut, best_cut, best_part, first, last, int(steps), T_START, T_END, rng)
    return best_part
