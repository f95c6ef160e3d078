"""Placement that spreads risk (``planner plan --spread-risk SHARE``, issue 26 item 4).

A cabinet that fails takes every cable ending in it. A router's links all end in its own
cabinet, so that cabinet's failure takes the router itself; the risk placement can spread is
in the OTHER cabinets: the share of router r's network cables whose other end sits in one
cabinet c other than r's,

    share(r, c) = (cables between r and the routers of c) / (network cables of r),

and ``--spread-risk SHARE`` asks share(r, c) <= SHARE for every router and every cabinet but
its own, i.e. at most ``floor(SHARE x cables of r)`` of r's cables end in any one other cabinet.

The search starts from the finished cable-dollar (or optical-link) layout and keeps its
cabinets and their floor positions; it moves and swaps routers between them under every
cabinet and electrical-group limit (``capacity.Limits``), priced as placement prices them
(``objective.CabinetPrices`` on reach floors, links leaving electrical groups on membership
floors):

1. repair, pass after pass: the (router, cabinet) pairs over the limit, worst first; for
   each, every move of one of the router's neighbours in that cabinet to (or swap with a
   router of) one of the ``tuning.NEAR_CABINETS`` cabinets cheapest from it, and of the router
   itself into that cabinet (where the pair stops counting); the move that lowers the excess
   at the least price per cable is made. With none, the neighbours are tried in every
   cabinet; a pair no move improves is left and counted.
2. recovery, pass after pass over the routers: the cheapest move or swap into the near
   cabinets of the router's own that does not raise the excess, while one saves money.

Both count evaluated moves against ``tuning.SPREAD_EVALUATIONS_PER_ROUTER`` (deterministic:
the same inputs and seed give the same layout on any machine). ``share_limit`` gives the
smallest share any placement can meet; a smaller one is an input error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from planner.placement.anneal import _fits, _move_member
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.placement.tuning import (NEAR_CABINETS, SPREAD_EVALUATIONS_PER_ROUTER,
                                      SPREAD_MAX_ENTRIES)
from planner.run.errors import InputError

OPTION = "--spread-risk"


@dataclass(frozen=True)
class SpreadRisk:
    """What ``--spread-risk`` did: the share asked, the cables over the limit with and without
    it, the search's work, and the plain layout for the comparison."""

    share: float
    cables_over: int
    plain_cables_over: int
    moves: int
    evaluations: int
    plain_router_cabinet: np.ndarray
    plain_cable_cost: float | None = None
    plain_optical: int | None = None
    plain_cabinet_names: tuple[str, ...] = ()

    @property
    def met(self) -> bool:
        return self.cables_over == 0


SMALLEST = "min"
"""``--spread-risk`` without a share: the smallest share the plan allows (``share_limit``)."""


def check_share(share) -> float | str:
    """The share as a float (or ``SMALLEST``); InputError unless it is a number in (0, 1]."""
    if share == SMALLEST:
        return share
    if isinstance(share, bool) or not isinstance(share, (int, float, np.integer, np.floating)) \
            or not np.isfinite(share) or not 0 < share <= 1:
        raise InputError(f"{OPTION} must be a share of a router's cables in (0, 1] (e.g. 0.25), "
                         f"or '{SMALLEST}' (the smallest share the routers allow), got {share!r}")
    return float(share)


def allowed(graph: Graph, share: float) -> np.ndarray:
    """Most cables of each router that may end in one other cabinet."""
    return np.floor(share * graph.degree + 1e-9).astype(np.int64)


def share_limit(graph: Graph, cabinet_routers: int) -> tuple[float, int]:
    """(smallest share any placement can meet, the router that sets it). A cabinet holds at
    most ``cabinet_routers`` routers, so at most that many minus one of r's neighbours share
    r's cabinet; the rest each put their parallel cables into some other cabinet, so the
    ``cabinet_routers``-th largest multiplicity of r's neighbours over r's cables is a share
    no placement goes below."""
    a = graph.adjacency
    best, worst = 0.0, -1
    keep = max(int(cabinet_routers) - 1, 0)
    for r in range(graph.n):
        m = np.sort(a.data[a.indptr[r]:a.indptr[r + 1]])[::-1]
        if len(m) <= keep:
            continue
        need = float(m[keep]) / float(graph.degree[r])
        if need > best + 1e-12:
            best, worst = need, r
    return best, worst


def check_feasible(graph: Graph, share: float, cabinet_routers: int) -> None:
    """InputError when no placement can meet ``share`` (``share_limit``)."""
    need, r = share_limit(graph, cabinet_routers)
    if share + 1e-12 < need:
        least = np.ceil(need * 1e4) / 1e4
        raise InputError(
            f"{OPTION} {share:g}: no placement meets it: router "
            f"r{r:0{len(str(graph.n - 1))}d} has "
            f"{int(graph.degree[r])} network cables and at most {int(cabinet_routers) - 1} of "
            f"its neighbours fit in its cabinet, so another cabinet holds at least "
            f"{need:.4f} of them; give a share of at least {least:.4f}")
    if graph.n * graph.n > SPREAD_MAX_ENTRIES:
        raise InputError(f"{OPTION}: {graph.n:,} routers are above the "
                         f"{int(np.sqrt(SPREAD_MAX_ENTRIES)):,} it handles; plan without it")


def cabinet_counts(graph: Graph, router_cabinet: np.ndarray, cabinets: int) -> np.ndarray:
    """(routers, cabinets) cables between each router and the routers of each cabinet."""
    cab = np.asarray(router_cabinet, np.int64)
    counts = np.zeros((graph.n, cabinets), np.int32)
    u, v, w = graph.links[:, 0], graph.links[:, 1], graph.weights
    np.add.at(counts, (u, cab[v]), w)
    np.add.at(counts, (v, cab[u]), w)
    return counts


def over_limit(counts: np.ndarray, cab: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """(routers, cabinets) cables over the limit (0 in each router's own cabinet)."""
    over = np.maximum(counts - limit[:, None], 0)
    over[np.arange(len(cab)), cab] = 0
    return over


@numba.njit(cache=True)
def _shift(x, dst, indptr, indices, data, counts, cab):
    """Router x goes to cabinet dst: its neighbours' counts follow."""
    src = cab[x]
    for j in range(indptr[x], indptr[x + 1]):
        counts[indices[j], src] -= data[j]
        counts[indices[j], dst] += data[j]
    cab[x] = dst


@numba.njit(cache=True)
def _terms(x, y, a, c, indptr, indices, counts, limit, cab, stamp, tick):
    """Cables over the limit in cabinets a and c of x, y (-1: none) and their neighbours (the
    only (router, cabinet) pairs a move of x and y between a and c changes)."""
    total = 0
    for z in (x, y):
        if z < 0:
            continue
        for j in range(indptr[z], indptr[z + 1] + 1):
            r = indices[j] if j < indptr[z + 1] else z
            if stamp[r] == tick:
                continue
            stamp[r] = tick
            for col in (a, c):
                if cab[r] != col:
                    over = counts[r, col] - limit[r]
                    if over > 0:
                        total += over
    return total


@numba.njit(cache=True)
def _price_change(x, skip, src, dst, indptr, indices, data, klass, cab, price):
    d = 0.0
    for j in range(indptr[x], indptr[x + 1]):
        w = indices[j]
        if w == skip:
            continue
        d += data[j] * (price[klass[j], dst, cab[w]] - price[klass[j], src, cab[w]])
    return d


@numba.njit(cache=True)
def _delta(v, u, c, indptr, indices, data, klass, cab, counts, limit, price, stamp, tick):
    """(change of the cables over the limit, change of the price) of v going to cabinet c
    and u (-1: none) coming back from c."""
    a = cab[v]
    before = _terms(v, u, a, c, indptr, indices, counts, limit, cab, stamp, tick)
    cost = _price_change(v, u, a, c, indptr, indices, data, klass, cab, price)
    if u >= 0:
        cost += _price_change(u, v, c, a, indptr, indices, data, klass, cab, price)
    _shift(v, c, indptr, indices, data, counts, cab)
    if u >= 0:
        _shift(u, a, indptr, indices, data, counts, cab)
    after = _terms(v, u, a, c, indptr, indices, counts, limit, cab, stamp, tick + 1)
    if u >= 0:
        _shift(u, c, indptr, indices, data, counts, cab)
    _shift(v, a, indptr, indices, data, counts, cab)
    return after - before, cost


@numba.njit(cache=True)
def _fits_move(v, u, c, cab, group, cab_load, cab_demand, cab_limit, grp_load, grp_demand,
               grp_limit):
    a = cab[v]
    if not _fits(cab_load, cab_demand, cab_limit, c, v, u):
        return False
    if u >= 0 and not _fits(cab_load, cab_demand, cab_limit, a, u, v):
        return False
    if group[a] == group[c]:
        return True
    if not _fits(grp_load, grp_demand, grp_limit, group[c], v, u):
        return False
    return u < 0 or _fits(grp_load, grp_demand, grp_limit, group[a], u, v)


@numba.njit(cache=True)
def _best_move(movers, targets, need_gain, indptr, indices, data, klass, cab, counts, limit,
               price, group, members, count, cab_load, cab_demand, cab_limit, grp_load,
               grp_demand, grp_limit, stamp, state):
    """The move (v, u, c) of a mover v to one of its target cabinets (u = -1) or swapped with
    a router u there with the smallest (excess change, price change), the first on ties; with
    ``need_gain`` one that lowers the excess, else one that keeps it and saves money.
    ``state`` = [stamp tick, evaluations]."""
    best_v, best_u, best_c = -1, -1, -1
    best_p = 0.0
    for i in range(len(movers)):
        v = movers[i]
        for k in range(targets.shape[1]):
            c = targets[i, k]
            if c < 0 or c == cab[v]:
                continue
            for m in range(-1, count[c]):
                u = -1 if m < 0 else members[c, m]
                if not _fits_move(v, u, c, cab, group, cab_load, cab_demand, cab_limit,
                                  grp_load, grp_demand, grp_limit):
                    continue
                d_e, d_p = _delta(v, u, c, indptr, indices, data, klass, cab, counts, limit,
                                  price, stamp, state[0])
                state[0] += 2
                state[1] += 1
                if need_gain:         # dollars per cable brought within the limit
                    if d_e >= 0:
                        continue
                    key = d_p / -d_e
                elif d_e <= 0 and d_p < -1e-9:
                    key = d_p
                else:
                    continue
                if best_v < 0 or key < best_p - 1e-9:
                    best_v, best_u, best_c, best_p = v, u, c, key
    return best_v, best_u, best_c


@numba.njit(cache=True)
def _apply(v, u, c, indptr, indices, data, cab, counts, group, members, count, pos, cab_load,
           cab_demand, grp_load, grp_demand):
    a = cab[v]
    for x, src, dst in ((v, a, c), (u, c, a)):
        if x < 0:
            continue
        _shift(x, dst, indptr, indices, data, counts, cab)
        _move_member(x, src, dst, members, count, pos)
        cab_load[src] -= cab_demand[x]
        cab_load[dst] += cab_demand[x]
        grp_load[group[src]] -= grp_demand[x]
        grp_load[group[dst]] += grp_demand[x]


class _Search:
    """The layout under search and the arrays the kernels share."""

    def __init__(self, graph: Graph, cab, cabinet_group, cabinet_limits: Limits,
                 group_limits: Limits, price: np.ndarray, share: float):
        a = graph.adjacency
        self.graph = graph
        self.cab = np.asarray(cab, np.int64).copy()
        self.group = np.asarray(cabinet_group, np.int64)
        n_cab = len(self.group)
        self.counts = cabinet_counts(graph, self.cab, n_cab)
        self.limit = allowed(graph, share)
        self.csr = (a.indptr.astype(np.int64), a.indices.astype(np.int64),
                    a.data.astype(np.int32))
        classes = np.unique(graph.weights)
        self.klass = np.searchsorted(classes, a.data).astype(np.int64)
        self.price = np.ascontiguousarray(price, dtype=np.float64)
        self.cab_demand = np.ascontiguousarray(cabinet_limits.demand, np.int64)
        self.grp_demand = np.ascontiguousarray(group_limits.demand, np.int64)
        self.cab_limit = np.ascontiguousarray(cabinet_limits.limit, np.int64)
        self.grp_limit = np.ascontiguousarray(group_limits.limit, np.int64)
        self.cab_load = cabinet_limits.loads(self.cab, n_cab)
        self.grp_load = group_limits.loads(self.group[self.cab], int(self.group.max()) + 1)
        slots = max(int(np.bincount(self.cab, minlength=n_cab).max()),
                    cabinet_limits.max_count()) + 1
        self.members = np.full((n_cab, slots), -1, np.int64)
        self.count = np.zeros(n_cab, np.int64)
        self.pos = np.empty(graph.n, np.int64)
        for v, c in enumerate(self.cab.tolist()):
            self.members[c, self.count[c]] = v
            self.pos[v] = self.count[c]
            self.count[c] += 1
        self.stamp = np.full(graph.n, -1, np.int64)
        self.state = np.zeros(2, np.int64)       # stamp tick, evaluations

    @property
    def evaluations(self) -> int:
        return int(self.state[1])

    def excess(self) -> int:
        return int(over_limit(self.counts, self.cab, self.limit).sum())

    def best(self, movers, targets, need_gain: bool):
        indptr, indices, data = self.csr
        v, u, c = _best_move(np.asarray(movers, np.int64),
                             np.ascontiguousarray(targets, dtype=np.int64), need_gain, indptr,
                             indices, data, self.klass, self.cab, self.counts, self.limit,
                             self.price, self.group, self.members, self.count, self.cab_load,
                             self.cab_demand, self.cab_limit, self.grp_load, self.grp_demand,
                             self.grp_limit, self.stamp, self.state)
        return None if v < 0 else (v, u, c)

    def apply(self, move) -> None:
        indptr, indices, data = self.csr
        _apply(*move, indptr, indices, data, self.cab, self.counts, self.group, self.members,
               self.count, self.pos, self.cab_load, self.cab_demand, self.grp_load,
               self.grp_demand)


def spread(graph: Graph, router_cabinet, cabinet_group, near: np.ndarray,
           cabinet_limits: Limits, group_limits: Limits, price: np.ndarray, share: float
           ) -> tuple[np.ndarray, int, int, int]:
    """(router -> cabinet meeting ``share`` where the search can, cables still over the limit,
    moves made, moves evaluated). ``near[c]``: the cabinets cheapest from cabinet c (move
    targets); ``price[m, a, b]``: price per cable of a link of the m-th multiplicity class
    (``numpy.unique`` of the link weights) between cabinets a and b (module doc)."""
    search = _Search(graph, router_cabinet, cabinet_group, cabinet_limits, group_limits, price,
                     share)
    budget = SPREAD_EVALUATIONS_PER_ROUTER * max(graph.n, 1)
    moves = 0
    stuck = np.zeros_like(search.counts, dtype=bool)
    adjacency = graph.adjacency
    progress = True
    while progress and search.evaluations < budget:      # 1. repair, pass after pass
        progress = False
        over = over_limit(search.counts, search.cab, search.limit)
        over[stuck] = 0
        pairs = np.flatnonzero(over)
        # the worst (router, cabinet) pairs first, lowest ids on ties
        for key in pairs[np.argsort(-over.ravel()[pairs], kind="stable")].tolist():
            if search.evaluations >= budget:
                break
            r, c = divmod(key, over.shape[1])
            if c == search.cab[r] or search.counts[r, c] <= search.limit[r]:
                continue                                  # an earlier move repaired it
            nbr = adjacency.indices[adjacency.indptr[r]:adjacency.indptr[r + 1]]
            inside = nbr[search.cab[nbr] == c].astype(np.int64)
            movers = np.r_[r, inside]
            targets = np.full((len(movers), near.shape[1]), -1, np.int64)
            targets[0, 0] = c
            targets[1:] = near[c]
            move = search.best(movers, targets, need_gain=True)
            if move is None:              # every cabinet, before the pair is given up
                everywhere = np.broadcast_to(np.arange(over.shape[1]),
                                             (len(inside), over.shape[1]))
                move = search.best(inside, everywhere, need_gain=True)
            if move is None:
                stuck[r, c] = True
                continue
            search.apply(move)
            moves += 1
            progress = True
    improved = True
    while improved and search.evaluations < 2 * budget:  # 2. recovery, pass after pass
        improved = False
        for v in range(graph.n):
            while search.evaluations < 2 * budget:
                move = search.best([v], near[search.cab[v]][None, :], need_gain=False)
                if move is None:
                    break
                search.apply(move)
                moves += 1
                improved = True
    return search.cab, search.excess(), moves, search.evaluations


def near_by_group(cabinet_group: np.ndarray, k: int = NEAR_CABINETS) -> np.ndarray:
    """(C, k) move targets on a floor without a price table: the cabinets of the same
    electrical group first, then the nearest by index."""
    group = np.asarray(cabinet_group, np.int64)
    c = len(group)
    idx = np.arange(c)
    key = (group[:, None] != group[None, :]) * (2 * c) + np.abs(idx[:, None] - idx[None, :])
    np.fill_diagonal(key, np.iinfo(np.int64).max)
    k = max(1, min(int(k), c - 1))
    return np.ascontiguousarray(np.argsort(key, axis=1, kind="stable")[:, :k], dtype=np.int64)
