"""Saturation throughput θ of a router graph under a traffic pattern, by max concurrent flow.

Model (the usual one for topology throughput, e.g. Jyothi, Singla, Godfrey & Kolla, "Measuring
and Understanding Throughput of Network Topologies", SC'16 §2): every endpoint injects at the
rate of its port; router-router links carry one unit (one port's rate) per direction per cable;
θ is the largest fraction of injection bandwidth that every endpoint can send at once with the
pattern's destinations, θ <= 1 (an endpoint cannot send faster than its own port). Demand is
aggregated per router pair: ``D[s, t]`` = traffic from router s's endpoints to router t's at
θ = 1, intra-router traffic left out (it never crosses a router-router link).

How θ is obtained, by decreasing strength:

- ``exact_theta``: the max concurrent flow LP aggregated by source router (one commodity per
  router that sends), solved with HiGHS's interior point method (``scipy.optimize.linprog``),
  when its size fits ``tuning.LP_NONZEROS_MAX``;
- ``ecmp_theta``: a lower bound, the θ that minimal routing with an even per-hop split over
  the shortest-path next hops (ECMP, split by cable) achieves; any routing is a feasible flow,
  so this bounds the optimum from below, and it is what oblivious minimal routing delivers;
- ``cut_bound`` / ``path_length_bound``: upper bounds, from a cut (what crosses it cannot exceed
  its cables) and from total capacity (every unit of traffic uses at least its shortest-path
  number of links: θ·Σ D·d <= Σ capacity).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from planner.performance import tuning
from planner.topologies.base import Topology


@dataclass(frozen=True)
class Arcs:
    """Directed router-router arcs, both directions of every router pair, sorted by tail then
    head; ``capacity`` = parallel cables of the pair (one unit each); ``link`` = the pair's
    row in ``Topology.links``."""

    num_routers: int
    tail: np.ndarray
    head: np.ndarray
    capacity: np.ndarray
    link: np.ndarray

    @classmethod
    def of(cls, top: Topology) -> "Arcs":
        u, v = top.links[:, 0], top.links[:, 1]
        tail, head = np.concatenate([u, v]), np.concatenate([v, u])
        cap = np.concatenate([top.multiplicity, top.multiplicity]).astype(float)
        link = np.tile(np.arange(len(u)), 2)
        order = np.lexsort((head, tail))
        return cls(int(top.num_routers), tail[order], head[order], cap[order], link[order])

    def __len__(self) -> int:
        return len(self.tail)


# ------------------------------------------------------------------------------- patterns

def uniform_demand(endpoints: np.ndarray) -> sp.csr_matrix:
    """All-to-all: each endpoint sends 1/(N-1) of its injection to every other endpoint, so
    ``D[s, t] = e_s·e_t/(N-1)`` between distinct routers (dense; only for small networks)."""
    e = np.asarray(endpoints, float)
    n = e.sum()
    if n < 2:
        return sp.csr_matrix((len(e), len(e)))
    dense = np.outer(e, e) / (n - 1)
    np.fill_diagonal(dense, 0.0)
    return sp.csr_matrix(dense)


def permutation_demand(num_routers: int, src: np.ndarray, dst: np.ndarray,
                       amount: np.ndarray) -> sp.csr_matrix:
    """Router-level demand of a pattern given as (source router, destination router, endpoints
    sending) triples; intra-router pairs dropped."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    keep = src != dst
    return sp.csr_matrix((np.asarray(amount, float)[keep], (src[keep], dst[keep])),
                         shape=(num_routers, num_routers))


# ------------------------------------------------------------------------------- exact LP

@dataclass(frozen=True)
class LpSize:
    rows: int
    columns: int
    nonzeros: int

    def as_dict(self) -> dict:
        return {"rows": self.rows, "columns": self.columns, "nonzeros": self.nonzeros}


def lp_size(arcs: Arcs, demand: sp.csr_matrix) -> LpSize:
    """Size of ``exact_theta``'s LP, known before it is built."""
    sources = int(np.count_nonzero(np.diff(demand.indptr)))
    r, a = arcs.num_routers, len(arcs)
    return LpSize(rows=sources * r + a, columns=sources * a + 1,
                  nonzeros=3 * sources * a + sources * r)


def exact_theta(arcs: Arcs, demand: sp.csr_matrix) -> float:
    """Max concurrent flow θ <= 1 for ``demand`` (LP aggregated by source router, HiGHS).

    Variables f[s, a] >= 0 (flow of source s's commodity on arc a) and θ; for every source s
    and router v: out-flow - in-flow = θ·b_s(v), with b_s(s) = Σ_t D[s, t] and b_s(t) =
    -D[s, t]; for every arc: Σ_s f[s, a] <= capacity. Maximise θ.
    """
    from scipy.optimize import linprog

    demand = sp.csr_matrix(demand)
    sources = np.flatnonzero(np.diff(demand.indptr))
    if len(sources) == 0:
        return 1.0
    r, a, s = arcs.num_routers, len(arcs), len(sources)
    flow = np.arange(s * a).reshape(s, a)
    commodity = np.arange(s)[:, None] * r
    rows = np.concatenate([(commodity + arcs.tail[None, :]).ravel(),
                           (commodity + arcs.head[None, :]).ravel()])
    cols = np.concatenate([flow.ravel(), flow.ravel()])
    vals = np.concatenate([np.ones(s * a), -np.ones(s * a)])
    b = -demand[sources].toarray()
    b[np.arange(s), sources] = -b.sum(axis=1)
    theta_col = s * a
    rows = np.concatenate([rows, np.arange(s * r)])
    cols = np.concatenate([cols, np.full(s * r, theta_col)])
    vals = np.concatenate([vals, -b.ravel()])
    a_eq = sp.csr_matrix((vals, (rows, cols)), shape=(s * r, s * a + 1))
    a_ub = sp.csr_matrix((np.ones(s * a), (np.tile(np.arange(a), s), flow.ravel())),
                         shape=(a, s * a + 1))
    cost = np.zeros(s * a + 1)
    cost[theta_col] = -1.0
    bounds = np.zeros((s * a + 1, 2))
    bounds[:, 1] = np.inf
    bounds[theta_col, 1] = 1.0
    res = linprog(cost, A_ub=a_ub, b_ub=arcs.capacity, A_eq=a_eq, b_eq=np.zeros(s * r),
                  bounds=bounds, method="highs-ipm")
    if res.status != 0:
        raise RuntimeError(f"max concurrent flow LP: HiGHS status {res.status}: {res.message}")
    return float(min(1.0, -res.fun))


# ------------------------------------------------------------------------------- distances

def distances_to(arcs: Arcs, targets: np.ndarray) -> np.ndarray:
    """Hop distance from every router to each target: int16 array (len(targets), R), -1 if
    unreachable (breadth-first, one sparse product per level for the whole batch)."""
    r = arcs.num_routers
    adj = sp.csr_matrix((np.ones(len(arcs), np.float32), (arcs.tail, arcs.head)), shape=(r, r))
    dist = np.full((len(targets), r), -1, dtype=np.int16)
    dist[np.arange(len(targets)), targets] = 0
    frontier = np.zeros((r, len(targets)), dtype=np.float32)
    frontier[targets, np.arange(len(targets))] = 1.0
    level = 0
    while True:
        level += 1
        reached = (adj @ frontier) > 0
        new = reached & (dist.T < 0)
        if not new.any():
            return dist
        dist.T[new] = level
        frontier = new.astype(np.float32)


def batches(count: int, per_item: int):
    """Slices of ``count`` items, each batch about ``tuning.BATCH_ELEMENTS / per_item`` items."""
    size = max(1, tuning.BATCH_ELEMENTS // max(per_item, 1))
    for start in range(0, count, size):
        yield slice(start, min(count, start + size))


# ------------------------------------------------------------------------------- ECMP

def ecmp_work(arcs: Arcs, demand: sp.csr_matrix) -> int:
    """Array elements per BFS level of ``ecmp_loads`` (destinations x arcs)."""
    return int(np.count_nonzero(np.diff(sp.csc_matrix(demand).indptr))) * len(arcs)


def ecmp_loads(arcs: Arcs, demand: sp.csr_matrix) -> np.ndarray:
    """Traffic on every arc at θ = 1 when each router splits what it forwards towards a
    destination evenly over the cables to its next hops on shortest paths (per-hop ECMP)."""
    demand = sp.csc_matrix(demand)
    dests = np.flatnonzero(np.diff(demand.indptr))
    r, a = arcs.num_routers, len(arcs)
    starts = np.searchsorted(arcs.tail, np.arange(r))
    has_arcs = np.diff(np.r_[starts, a]) > 0
    into = sp.csr_matrix((np.ones(a), (arcs.head, np.arange(a))), shape=(r, a))
    load = np.zeros(a)
    for part in batches(len(dests), a):
        t = dests[part]
        dist = distances_to(arcs, t).T                           # (R, B)
        sent = demand[:, t].toarray()                            # (R, B) traffic leaving v for t
        at_tail = dist[arcs.tail]
        nxt = dist[arcs.head] == at_tail - 1                     # (A, B) arc on a shortest path
        weight = np.where(nxt, arcs.capacity[:, None], 0.0)
        split = np.zeros((r, len(t)))
        split[has_arcs] = np.add.reduceat(weight, starts[has_arcs], axis=0)
        share = weight / np.maximum(split[arcs.tail], 1e-300)    # per-hop ECMP split
        for level in range(int(dist.max()), 0, -1):
            at = (at_tail == level) & nxt
            if not at.any():
                continue
            flow = np.where(at, sent[arcs.tail] * share, 0.0)
            load += flow.sum(axis=1)
            sent += into @ flow
    return load


def ecmp_theta(arcs: Arcs, demand: sp.csr_matrix) -> float:
    """θ of per-hop ECMP minimal routing (a lower bound on the optimal θ), at most 1."""
    load = ecmp_loads(arcs, demand)
    utilisation = float(np.max(load / arcs.capacity)) if len(load) else 0.0
    return 1.0 if utilisation <= 1.0 else 1.0 / utilisation


# ------------------------------------------------------------------------------- bounds

def cut_bound(arcs: Arcs, endpoints: np.ndarray, side: np.ndarray) -> float:
    """Uniform-traffic upper bound of a cut: θ·E_S·E_T/(N-1) <= cables from S to T (and back),
    where ``side`` marks S; inf when the cut separates no endpoints."""
    e = np.asarray(endpoints, float)
    n = e.sum()
    side = np.asarray(side, bool)
    es, et = e[side].sum(), e[~side].sum()
    if es == 0 or et == 0 or n < 2:
        return float("inf")
    crossing = side[arcs.tail] & ~side[arcs.head]
    return float(arcs.capacity[crossing].sum()) * (n - 1) / (es * et)


def path_length_bound(total_capacity: float, demand_distance: float) -> float:
    """θ <= (arc capacity in total) / (Σ over router pairs of D[s, t]·d(s, t))."""
    return float("inf") if demand_distance <= 0 else total_capacity / demand_distance
