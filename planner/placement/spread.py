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

On a hall floor the search limits the tray segments too (``TrayRoutes``): tray(r, s), the
cables of r routed along segment s (``planner.inputs.floor.tray_segments``, the segments the
tray failure groups take), for every segment but the bay over r's own cabinet (every cable
leaving the cabinet starts along it). Shortest routes leave a bay only along the few segments
at its two cross trays, so a share may be out of reach there: a segment may carry
max(``floor(SHARE x cables of r)``, ``tray_floor(r)``) cables, the least the geometry allows
once the cabinets keep the share. The tray excess is the cables over that. No move may put
more of a router's cables on one such segment than the largest share the plain layout reaches
(``_Search._cap``): the largest tray share never grows.

Where the topology has groups (``GroupPairs``), the search also holds each cabinet to
``floor(SHARE x cables of the pair)`` (at least 1) of every group pair's cables, counting a
cable in each cabinet holding one of its ends, as ``planner.performance.spread_risk`` measures
it; the cables over that limit are the pair excess. Where it limits the routers' trays it
limits the pairs' too (``PairTrays``): tray(p, s), the cables of group pair p routed along
segment s, every segment counted (a pair has no own bay), held to max(``floor(SHARE x cables
of the pair)``, 1, ``pair_tray_floor(p)``). That floor is what no placement relieves: a
router x's cables of the pair that leave x's cabinet all run along the bay over it, and the
cabinet takes in at most ``cabinet_routers`` - 1 of x's neighbours, so that bay carries x's
cables of the pair but its largest ``cabinet_routers`` - 1 bundles, whatever the placement.
The pair tray excess is the cables over that limit.

1. cabinet repair, pass after pass: the (router, cabinet) pairs over the limit, worst first;
   for each, every move of one of the router's neighbours in that cabinet to (or swap with a
   router of) one of the ``tuning.NEAR_CABINETS`` cabinets cheapest from it, and of the router
   itself into that cabinet (where the pair stops counting); the move with the least price
   per unit of excess removed is made, the excess weighing ``tuning.SPREAD_CABINET_WEIGHT``
   per cabinet cable and 1 per tray cable (without trays: per cabinet cable), never taking
   the tray excess past the plain layout's. With none, the neighbours are tried in every
   cabinet; a pair no move improves is left and counted.
2. with trays, tray repair, the same over the (router, segment) pairs over the tray limit:
   the router or one of its neighbours whose cable to it runs along the segment moves to (or
   swaps into) a cabinet near the router's, at the least price per tray cable removed, never
   raising the cabinet excess;
   then the cabinet repair again, for the cabinets alone: of the moves that lower the
   cabinet excess, the cheapest per unit of excess among those that remove excess so
   counted, else the one adding fewest tray cables per cabinet cable, again within the plain
   layout's tray excess: the spread layout never carries more tray cables over the limit
   than the one it started from.
   With group pairs, the cabinet excess of these repairs counts a pair cable over its limit
   as ``tuning.SPREAD_PAIR_WEIGHT`` of a router's cabinet cable, and the tray repair never
   raises the pair excess; then the pair repair: the (group pair, cabinet) cells over the
   limit, worst first, each by the move or swap of one of the pair's routers in the cabinet
   into the cabinets near it at the least price per pair cable removed, raising neither the
   cabinet nor the tray excess.
   Chains: the cabinet cells (router and group pair) still over, worst first, by two moves
   (``_repair_chains``): the first moves a router out of the cabinet to any cabinet at a
   small rise of the cabinet excess, the second, near the cabinets the first touched, brings
   the excess below where it was; single moves cannot, where every cabinet is full and a
   router's good partners sit in cabinets whose other router fits nowhere near.
   Group-pair trays: the (group pair, segment) cells over the pair tray limit, worst first,
   each by the move or swap of one of the pair's routers with a cable of the pair along the
   segment into the cabinets near its own, at the least price per pair cable taken off the
   segment, raising no other excess. The repairs before it do not count the pair tray
   excess: spreading the routers over the cabinets lowers it (measured in ``tuning``).
   Exact repair (``spread_repair``): where cabinet cells are still over and a cabinet holds
   at most two routers, the cabinets' contents are re-matched exactly (CP-SAT) and whole
   cabinets exchange their routers to lower the tray excess; undone if the trays end above
   the plain layout's.
3. recovery, pass after pass over the routers: the cheapest move or swap into the near
   cabinets of the router's own that raises no excess (cabinet, tray, group pair on cabinets
   and on trays), while one saves money.

Each counts evaluated moves against ``tuning.SPREAD_EVALUATIONS_PER_ROUTER`` (deterministic:
the same inputs and seed give the same layout on any machine). Above
``tuning.SPREAD_TRAY_MAX_PAIRS`` cabinet pairs the routes are not tabled and the trays, the
routers' and the group pairs', only measured. ``share_limit`` gives the smallest share any
placement can meet; a smaller one is an input error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from planner.inputs.floor import room_of
from planner.inputs.floor.tray_segments import exit_segments, own_bay, route_segments
from planner.placement.anneal import _fits, _move_member
from planner.placement.capacity import Limits
from planner.placement import spread_repair
from planner.placement.graph import Graph
from planner.placement.tuning import (NEAR_CABINETS, SPREAD_CABINET_WEIGHT, SPREAD_CHAIN_BUDGET,
                                      SPREAD_CHAIN_FIRST, SPREAD_CHAIN_SLACK,
                                      SPREAD_EVALUATIONS_PER_ROUTER, SPREAD_MAX_ENTRIES,
                                      SPREAD_PAIR_TRAY_BUDGET, SPREAD_PAIR_WEIGHT,
                                      SPREAD_TRAY_MAX_PAIRS)
from planner.run.errors import InputError

OPTION = "--spread-risk"


@dataclass(frozen=True)
class SpreadRisk:
    """What ``--spread-risk`` did: the share asked, the cables over the limit with and without
    it, the search's work, and the plain layout for the comparison; ``trays`` and ``pairs``:
    the tray segments and the group pairs on the cabinets (None: not limited); ``exact``: what
    the exact cabinet repair did (``spread_repair``); ``lower_bound``: the cables over that
    no placement goes below (``spread_bounds.lower_bounds``)."""

    share: float
    cables_over: int
    plain_cables_over: int
    moves: int
    evaluations: int
    plain_router_cabinet: np.ndarray
    plain_cable_cost: float | None = None
    plain_optical: int | None = None
    plain_cabinet_names: tuple[str, ...] = ()
    trays: TraySpread | None = None
    pairs: PairSpread | None = None
    exact: spread_repair.ExactRepair | None = None
    lower_bound: dict | None = None

    @property
    def met(self) -> bool:
        return self.cables_over == 0


@dataclass(frozen=True)
class TraySpread:
    """What the search did on the tray segments: ``limited`` (False: measured only, ``why``),
    per (router, segment) the cables along it (``counts``; ``codes``: each column's segment
    code, ``planner.inputs.floor.tray_segments``), the limit per router and the cables over
    it with and without the search."""

    limited: bool
    why: str = ""
    counts: np.ndarray | None = None
    codes: np.ndarray | None = None
    limit: np.ndarray | None = None
    cables_over: int | None = None
    plain_cables_over: int | None = None

    @classmethod
    def of(cls, trays: TrayOutcome | None, floor, cabinets: int) -> TraySpread:
        if trays is not None:
            return cls(True, counts=trays.counts, codes=trays.routes.codes, limit=trays.limit,
                       cables_over=trays.cables_over, plain_cables_over=trays.plain_cables_over)
        if floor.hall is None:
            return cls(False, "the floor is the papers' abstract grid (no trays)")
        return cls(False, f"{cabinets:,} cabinets: {cabinets * cabinets:,} cabinet pairs are "
                          f"above the {SPREAD_TRAY_MAX_PAIRS:,} the search routes")


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


@dataclass(frozen=True)
class GroupPairs:
    """The pairs of topology groups (Dragonfly groups, Slim Fly racks, ...) with more than one
    cable between them, as the search counts them: ``pair_of[j]``, the pair of the j-th entry
    of ``Graph.adjacency`` (-1: a link inside a group or of a pair of one cable, which is
    never over its share); ``cables``: the cables of each pair; ``limit``: the most of them
    one cabinet may hold, ``floor(SHARE x cables)``, at least 1 (as
    ``planner.performance.spread_risk`` measures it)."""

    pair_of: np.ndarray
    cables: np.ndarray
    limit: np.ndarray
    key: np.ndarray

    @property
    def pairs(self) -> int:
        return len(self.cables)


def group_pairs(graph: Graph, router_group, share: float) -> GroupPairs | None:
    """The group pairs of more than one cable (``GroupPairs``), None without groups or
    without such a pair."""
    if router_group is None:
        return None
    group = np.asarray(router_group, np.int64)
    ga, gb = group[graph.links[:, 0]], group[graph.links[:, 1]]
    key = np.minimum(ga, gb) * (int(group.max()) + 1) + np.maximum(ga, gb)
    between = ga != gb
    keys, index = np.unique(key[between], return_inverse=True)
    cables = np.bincount(index, weights=graph.weights[between], minlength=len(keys))
    many = np.flatnonzero(cables > 1)
    if not len(many):
        return None
    number = np.full(len(keys), -1, np.int64)
    number[many] = np.arange(len(many))
    a = graph.adjacency
    rows = np.repeat(np.arange(graph.n), np.diff(a.indptr))
    ka, kb = group[rows], group[a.indices]
    entry = np.minimum(ka, kb) * (int(group.max()) + 1) + np.maximum(ka, kb)
    at = np.searchsorted(keys, entry)
    hit = (ka != kb) & (at < len(keys)) & (keys[np.minimum(at, len(keys) - 1)] == entry)
    pair_of = np.where(hit, number[np.minimum(at, len(keys) - 1)], -1).astype(np.int64)
    total = cables[many].astype(np.int64)
    return GroupPairs(pair_of=pair_of, cables=total,
                      limit=np.maximum(np.floor(share * total + 1e-9), 1).astype(np.int64),
                      key=keys[many])


def pair_counts(graph: Graph, router_cabinet, pairs: GroupPairs, cabinets: int) -> np.ndarray:
    """(pairs, cabinets) the cables of each group pair with an end in each cabinet (a cable
    with both ends in one cabinet counted once there)."""
    cab = np.asarray(router_cabinet, np.int64)
    a = graph.adjacency
    rows = np.repeat(np.arange(graph.n), np.diff(a.indptr))
    upper = (rows < a.indices) & (pairs.pair_of >= 0)
    u, v, w, p = rows[upper], a.indices[upper], a.data[upper], pairs.pair_of[upper]
    counts = np.zeros((pairs.pairs, cabinets), np.int32)
    np.add.at(counts, (p, cab[u]), w)
    apart = cab[u] != cab[v]
    np.add.at(counts, (p[apart], cab[v][apart]), w[apart])
    return counts


@dataclass(frozen=True)
class TrayRoutes:
    """The tray segments of the route between every two cabinets of a hall layout
    (``planner.inputs.floor.tray_segments``), as the search counts them: segment ``seg[k]``
    for k in ``ptr[a * C + b] : ptr[a * C + b + 1]``, numbered 0..S-1 (``codes``: each one's
    segment code); ``own[c]``: the bay over cabinet c, where every cable leaving c starts;
    ``exits``: the most segments a cable leaving a bay can start along, ``bay_cabinets``: the
    most cabinets over one bay, ``cabinet_routers``: routers a cabinet holds (for
    ``tray_floor``)."""

    ptr: np.ndarray
    seg: np.ndarray
    own: np.ndarray
    codes: np.ndarray
    exits: int
    bay_cabinets: int
    cabinet_routers: int

    @property
    def segments(self) -> int:
        return len(self.codes)


def tray_routes(floor, cabinet_hall, cabinet_row, cabinet_col, cabinet_routers: int
                ) -> TrayRoutes | None:
    """The routes of every ordered pair of the layout's cabinets, None on a floor without
    trays or above ``tuning.SPREAD_TRAY_MAX_PAIRS`` cabinet pairs (trays measured only)."""
    n_cab = len(cabinet_hall)
    if floor.hall is None or n_cab * n_cab > SPREAD_TRAY_MAX_PAIRS:
        return None
    hall = np.asarray(cabinet_hall, np.int64)
    row = np.asarray(cabinet_row, np.int64)
    col = np.asarray(cabinet_col, np.int64)
    room = room_of(floor, hall, row, col)
    pair_a, pair_b = np.divmod(np.arange(n_cab * n_cab, dtype=np.int64), n_cab)
    item, code = route_segments(room, hall, row, col, pair_a, pair_b)
    own_code = own_bay(room, hall, row, col)
    codes, index = np.unique(np.r_[code, own_code], return_inverse=True)
    order = np.argsort(item, kind="stable")
    ptr = np.zeros(n_cab * n_cab + 1, np.int64)
    np.cumsum(np.bincount(item, minlength=n_cab * n_cab), out=ptr[1:])
    per_bay = np.bincount(np.unique(own_code, return_inverse=True)[1])
    return TrayRoutes(ptr=ptr, seg=index[:len(code)][order].astype(np.int64),
                      own=index[len(code):].astype(np.int64), codes=codes,
                      exits=int(exit_segments(room, hall, row, col).max()),
                      bay_cabinets=int(per_bay.max()), cabinet_routers=int(cabinet_routers))


def tray_floor(graph: Graph, routes: TrayRoutes, allowed_cables: np.ndarray) -> np.ndarray:
    """Per router r, cables some tray segment other than its own bay carries in any placement
    that keeps at most ``allowed_cables[r]`` of them in one other cabinet: its own cabinet
    holds ``cabinet_routers`` - 1 neighbours (the largest bundles), the other
    ``bay_cabinets`` - 1 cabinets of its bay at most ``allowed_cables[r]`` cables each (and
    ``cabinet_routers`` neighbours); every other cable leaves the bay along one of at most
    ``exits`` segments (``tray_segments.exit_segments``), so one carries at least
    ``ceil(leaving / exits)``."""
    a = graph.adjacency
    mates = max(routes.cabinet_routers - 1, 0)
    others = max(routes.bay_cabinets - 1, 0)
    out = np.zeros(graph.n, np.int64)
    for r in range(graph.n):
        m = np.sort(a.data[a.indptr[r]:a.indptr[r + 1]])[::-1]
        near = m[mates:mates + others * routes.cabinet_routers].sum()
        out[r] = int(m[mates:].sum() - min(near, others * int(allowed_cables[r])))
    return -(-out // max(routes.exits, 1))


def tray_counts(graph: Graph, router_cabinet, routes: TrayRoutes) -> np.ndarray:
    """(routers, segments) each router's cables routed along each segment."""
    cab = np.asarray(router_cabinet, np.int64)
    counts = np.zeros((graph.n, routes.segments), np.int32)
    _add_routes(graph.links[:, 0].astype(np.int64), graph.links[:, 1].astype(np.int64),
                graph.weights.astype(np.int32), cab, len(routes.own), routes.ptr, routes.seg,
                counts)
    return counts


def tray_over(counts: np.ndarray, cab: np.ndarray, limit: np.ndarray,
              routes: TrayRoutes) -> np.ndarray:
    """(routers, segments) cables over the limit (0 on each router's own bay)."""
    over = np.maximum(counts - limit[:, None], 0)
    over[np.arange(len(cab)), routes.own[np.asarray(cab, np.int64)]] = 0
    return over


def _pair_entries(graph: Graph, pairs: GroupPairs) -> tuple[np.ndarray, ...]:
    """(router, neighbour, cables, pair) of every entry of ``Graph.adjacency`` on a group pair
    of more than one cable (each cable twice, once from each end)."""
    a = graph.adjacency
    rows = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(a.indptr))
    on = pairs.pair_of >= 0
    return (rows[on], a.indices[on].astype(np.int64), a.data[on].astype(np.int64),
            pairs.pair_of[on])


def pair_tray_floor(graph: Graph, pairs: GroupPairs, routes: TrayRoutes) -> np.ndarray:
    """Per group pair, cables some tray segment carries in any placement: every cable of the
    pair that leaves the cabinet of one of its routers x runs along the bay over that
    cabinet (``tray_segments.own_bay``), and the cabinet holds at most ``cabinet_routers`` - 1
    other routers, so that bay carries at least x's cables of the pair but its
    ``cabinet_routers`` - 1 largest bundles; the most of that over the pair's routers."""
    x, _, cables, pair = _pair_entries(graph, pairs)
    mates = max(routes.cabinet_routers - 1, 0)
    out = np.zeros(pairs.pairs, np.int64)
    order = np.lexsort((-cables, pair, x))           # per (router, pair), largest bundle first
    x, cables, pair = x[order], cables[order], pair[order]
    start = np.r_[True, (x[1:] != x[:-1]) | (pair[1:] != pair[:-1])]
    rank = np.arange(len(x)) - np.maximum.accumulate(np.where(start, np.arange(len(x)), 0))
    left = np.where(rank >= mates, cables, 0)       # the bundles the cabinet cannot take in
    first = np.flatnonzero(start)
    np.maximum.at(out, pair[first], np.add.reduceat(left, first) if len(first) else left[:0])
    return out


def pair_tray_counts(graph: Graph, router_cabinet, pairs: GroupPairs, routes: TrayRoutes
                     ) -> np.ndarray:
    """(group pairs, segments) each pair's cables routed along each segment."""
    x, w, cables, pair = _pair_entries(graph, pairs)
    once = x < w
    counts = np.zeros((pairs.pairs, routes.segments), np.int32)
    _add_pair_routes(x[once], w[once], cables[once].astype(np.int32), pair[once],
                     np.asarray(router_cabinet, np.int64), len(routes.own), routes.ptr,
                     routes.seg, counts)
    return counts


@numba.njit(cache=True)
def _add_pair_routes(u, v, w, pair, cab, n_cab, ptr, seg, counts):
    for i in range(len(u)):
        p = cab[u[i]] * n_cab + cab[v[i]]
        for k in range(ptr[p], ptr[p + 1]):
            counts[pair[i], seg[k]] += w[i]


@numba.njit(cache=True)
def _add_routes(u, v, w, cab, n_cab, ptr, seg, counts):
    for i in range(len(u)):
        p = cab[u[i]] * n_cab + cab[v[i]]
        for k in range(ptr[p], ptr[p + 1]):
            counts[u[i], seg[k]] += w[i]
            counts[v[i], seg[k]] += w[i]


_OVER_CAP = 1 << 20
"""Weight of a cable over a router's tray cap (``_Search``): no move that adds one is taken."""


@numba.njit(cache=True)
def _tray_term(t, z, tlimit):
    """Router z's tray excess of t cables on one segment, and ``_OVER_CAP`` per cable over
    its cap (``tlimit[z]`` = [limit, cap])."""
    return max(t - tlimit[z, 0], 0) + _OVER_CAP * max(t - tlimit[z, 1], 0)


@numba.njit(cache=True)
def _tray_add(z, s, m, tray, tlimit, cab, own):
    """m more of router z's cables on segment s: the change of its tray terms."""
    old = tray[z, s]
    tray[z, s] = old + m
    if s == own[cab[z]]:
        return 0
    return _tray_term(old + m, z, tlimit) - _tray_term(old, z, tlimit)


@numba.njit(cache=True)
def _pair_tray_add(p, s, m, ptray, ptlimit):
    """m more of group pair p's cables along segment s: the change of its tray excess."""
    old = ptray[p, s]
    ptray[p, s] = old + m
    return max(old + m - ptlimit[p], 0) - max(old - ptlimit[p], 0)


@numba.njit(cache=True)
def _tray_shift(x, dst, indptr, indices, data, cab, ptr, seg, own, tray, tlimit, tpair_of,
                ptray, ptlimit):
    """Router x goes to cabinet dst, the tray counts of x and its neighbours follow, and those
    of the group pairs of its cables (``tpair_of[j]`` >= 0: the pair of the j-th adjacency
    entry, -1 where the pairs' trays are not counted); the changes of the router cables and
    of the pair cables over the tray limits (each step counted as it is made, so the sums are
    exact whatever the order)."""
    src = cab[x]
    n_cab = len(own)
    d = 0
    q = 0
    if own[src] != own[dst]:              # x's own bay changes: it stops (starts) counting
        d += _tray_term(tray[x, own[src]], x, tlimit) - _tray_term(tray[x, own[dst]], x, tlimit)
    cab[x] = dst
    for j in range(indptr[x], indptr[x + 1]):
        w, m, b, p = indices[j], data[j], cab[indices[j]], tpair_of[j]
        r = src * n_cab + b
        for k in range(ptr[r], ptr[r + 1]):
            d += _tray_add(x, seg[k], -m, tray, tlimit, cab, own)
            d += _tray_add(w, seg[k], -m, tray, tlimit, cab, own)
            if p >= 0:
                q += _pair_tray_add(p, seg[k], -m, ptray, ptlimit)
        r = dst * n_cab + b
        for k in range(ptr[r], ptr[r + 1]):
            d += _tray_add(x, seg[k], m, tray, tlimit, cab, own)
            d += _tray_add(w, seg[k], m, tray, tlimit, cab, own)
            if p >= 0:
                q += _pair_tray_add(p, seg[k], m, ptray, ptlimit)
    return d, q


@numba.njit(cache=True)
def _pair_add(p, c, m, pcount, plimit):
    """m more of group pair p's cables with an end in cabinet c: the change of its excess."""
    old = pcount[p, c]
    pcount[p, c] = old + m
    return max(old + m - plimit[p], 0) - max(old - plimit[p], 0)


@numba.njit(cache=True)
def _pair_shift(x, dst, indptr, indices, data, cab, pair_of, pcount, plimit):
    """Router x goes to cabinet dst, the (group pair, cabinet) counts follow (a cable counts
    once in each cabinet holding one of its ends); the change of the cables over the pair
    limit, counted step by step as ``_tray_shift`` does."""
    src = cab[x]
    d = 0
    for j in range(indptr[x], indptr[x + 1]):
        p = pair_of[j]
        if p < 0:
            continue
        b, m = cab[indices[j]], data[j]
        if b != src:
            d += _pair_add(p, src, -m, pcount, plimit)
        if b != dst:
            d += _pair_add(p, dst, m, pcount, plimit)
    cab[x] = dst
    return d


@numba.njit(cache=True)
def _pair_delta(v, u, c, indptr, indices, data, cab, pair_of, pcount, plimit):
    """Change of the cables over the group-pair limit of v going to cabinet c and u (-1:
    none) coming back from c (0 without pairs)."""
    if pcount.shape[0] == 0:
        return 0
    a = cab[v]
    d = _pair_shift(v, c, indptr, indices, data, cab, pair_of, pcount, plimit)
    if u >= 0:
        d += _pair_shift(u, a, indptr, indices, data, cab, pair_of, pcount, plimit)
        _pair_shift(u, c, indptr, indices, data, cab, pair_of, pcount, plimit)
    _pair_shift(v, a, indptr, indices, data, cab, pair_of, pcount, plimit)
    return d


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
def _tray_delta(v, u, c, indptr, indices, data, cab, ptr, seg, own, tray, tlimit, tpair_of,
                ptray, ptlimit):
    """(change of the router cables over the tray limit, change of the group-pair cables over
    theirs) of v going to cabinet c and u (-1: none) coming back from c ((0, 0) without
    trays)."""
    if len(own) == 0:
        return 0, 0
    a = cab[v]
    d, q = _tray_shift(v, c, indptr, indices, data, cab, ptr, seg, own, tray, tlimit, tpair_of,
                       ptray, ptlimit)
    if u >= 0:
        d2, q2 = _tray_shift(u, a, indptr, indices, data, cab, ptr, seg, own, tray, tlimit,
                             tpair_of, ptray, ptlimit)
        d += d2
        q += q2
        _tray_shift(u, c, indptr, indices, data, cab, ptr, seg, own, tray, tlimit, tpair_of,
                    ptray, ptlimit)
    _tray_shift(v, a, indptr, indices, data, cab, ptr, seg, own, tray, tlimit, tpair_of, ptray,
                ptlimit)
    return d, q


@numba.njit(cache=True)
def _delta(v, u, c, indptr, indices, data, klass, cab, counts, limit, price, stamp, tick):
    """(change of the cables over the cabinet limit, change of the price) of v going to
    cabinet c and u (-1: none) coming back from c."""
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


_CABINETS, _TRAYS, _RECOVER, _TRADE, _PAIRS, _PAIR_TRAYS = 0, 1, 2, 3, 4, 5
"""``_best_move`` modes: cabinet repair, tray repair, recovery, cabinet and tray repair,
group-pair repair, group-pair tray repair."""


@numba.njit(cache=True)
def _candidates(movers, targets, cab, group, members, count, cab_load, cab_demand, cab_limit,
                grp_load, grp_demand, grp_limit):
    """The moves ``_best_move`` and ``_first_links`` weigh, in their order: each mover v to
    each of its target cabinets c (-1 and its own skipped), alone (u = -1) or swapped with
    each router u there, within every cabinet and electrical-group limit; (v, u, c) arrays."""
    size = len(movers) * targets.shape[1] * (members.shape[1] + 1)
    out_v = np.empty(size, np.int64)
    out_u = np.empty(size, np.int64)
    out_c = np.empty(size, np.int64)
    n = 0
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
                out_v[n], out_u[n], out_c[n] = v, u, c
                n += 1
    return out_v[:n], out_u[:n], out_c[:n]


@numba.njit(cache=True)
def _counts_pairs_on_cabinets(mode):
    """Modes whose cabinet excess counts the group pairs' (cabinet repairs)."""
    return mode == _CABINETS or mode == _TRADE


@numba.njit(cache=True)
def _cabinet_rejects(mode, d_e, d_p):
    """No cabinet gain (cabinet repair), a cabinet loss (the modes that keep it), no saving
    (recovery)."""
    if mode == _CABINETS:
        return d_e >= 0
    if mode != _TRADE and d_e > 0:
        return True
    return mode == _RECOVER and d_p >= -1e-9


@numba.njit(cache=True)
def _tray_rejects(mode, d_t, d_q, tray_room):
    """More tray cables than the room left (cabinet repairs), any (group-pair repairs); a
    group-pair tray loss (recovery), no group-pair tray gain (group-pair tray repair)."""
    if (mode == _CABINETS or mode == _TRADE) and d_t > tray_room:
        return True
    if (mode == _PAIRS or mode == _PAIR_TRAYS) and d_t > 0:
        return True
    return mode == _RECOVER and d_q > 0 or mode == _PAIR_TRAYS and d_q >= 0


@numba.njit(cache=True)
def _weighs_pairs(mode):
    """Modes that check the group pairs' cabinet excess (and do not count it in d_e)."""
    return mode == _TRAYS or mode == _RECOVER or mode == _PAIRS or mode == _PAIR_TRAYS


@numba.njit(cache=True)
def _pair_rejects(mode, d_g):
    """A group-pair loss, or no group-pair gain (group-pair repair)."""
    return d_g >= 0 if mode == _PAIRS else d_g > 0


@numba.njit(cache=True)
def _key(mode, weight, d_e, d_p, d_t, d_q, d_g):
    """(tier, key, usable) of a move that passed the mode's predicates (``_best_move``)."""
    if (mode == _CABINETS or mode == _TRADE) and weight * d_e + d_t < 0:
        return 0, d_p / -(weight * d_e + d_t), True   # dollars per unit of excess removed
    if mode == _CABINETS:                               # tray cables added per cabinet cable
        return 1, d_t / -d_e, True
    if mode == _TRAYS and d_t < 0:                      # dollars per tray cable removed
        return 0, d_p / -d_t, True
    if mode == _RECOVER and d_t <= 0:
        return 0, d_p, True
    if mode == _PAIRS:                                  # dollars per group-pair cable removed
        return 0, d_p / -d_g, True
    if mode == _PAIR_TRAYS:                             # per group-pair tray cable removed
        return 0, d_p / -d_q, True
    return 0, 0.0, False


@numba.njit(cache=True)
def _best_move(movers, targets, mode, weight, pair_weight, tray_room, indptr, indices, data,
               klass, cab, counts, limit, price, group, members, count,
               cab_load, cab_demand, cab_limit, grp_load, grp_demand, grp_limit, stamp, state,
               ptr, seg, own, tray, tlimit, pair_of, pcount, plimit, tpair_of, ptray, ptlimit):
    """The move (v, u, c) of a mover v to one of its target cabinets (u = -1) or swapped with
    a router u there (``_candidates``), the first on ties (module doc); in modes 3 and 0 one
    adding at most ``tray_room`` tray cables. ``mode`` 3 (cabinet and tray repair): the least
    dollars per unit of excess removed (``weight`` x cabinet cables + tray cables); 0 (cabinet
    repair): one that lowers the cabinet excess, by the same key among those that remove
    excess so counted, else the fewest tray cables added per cabinet cable; 1 (tray repair):
    the least dollars per tray cable removed, keeping the cabinet excess; 2 (recovery): the
    most dollars saved keeping every excess (cabinet, tray, group pair on cabinets and on
    trays); 4 (group-pair repair): the least dollars per pair cable removed, keeping the
    cabinet and tray excesses; 5 (group-pair tray repair): the least dollars per pair cable
    removed from the trays, keeping the cabinet, tray and group-pair cabinet excesses. In
    modes 0 and 3 the cabinet excess is the routers' cabinet cables plus ``pair_weight`` x
    the group pairs' (``GroupPairs``); mode 1 never raises the pairs'. Each mode's tests are
    ``_cabinet_rejects``, ``_tray_rejects``, ``_pair_rejects`` and ``_key``, in that order
    (the later deltas are computed only for the moves the earlier tests keep). ``state`` =
    [stamp tick, evaluations]."""
    best_v, best_u, best_c = -1, -1, -1
    best_p, best_tier = 0.0, 2
    vs, us, cs = _candidates(movers, targets, cab, group, members, count, cab_load, cab_demand,
                             cab_limit, grp_load, grp_demand, grp_limit)
    for i in range(len(vs)):
        v, u, c = vs[i], us[i], cs[i]
        d_e, d_p = _delta(v, u, c, indptr, indices, data, klass, cab, counts, limit, price,
                          stamp, state[0])
        state[0] += 2
        state[1] += 1
        if _counts_pairs_on_cabinets(mode):
            d_e = d_e + pair_weight * _pair_delta(v, u, c, indptr, indices, data, cab, pair_of,
                                                  pcount, plimit)
        if _cabinet_rejects(mode, d_e, d_p):
            continue
        d_t, d_q = _tray_delta(v, u, c, indptr, indices, data, cab, ptr, seg, own, tray,
                               tlimit, tpair_of, ptray, ptlimit)
        if _tray_rejects(mode, d_t, d_q, tray_room):
            continue
        d_g = 0
        if _weighs_pairs(mode):
            d_g = _pair_delta(v, u, c, indptr, indices, data, cab, pair_of, pcount, plimit)
            if _pair_rejects(mode, d_g):
                continue
        tier, key, usable = _key(mode, weight, d_e, d_p, d_t, d_q, d_g)
        if not usable:
            continue
        if tier < best_tier or tier == best_tier and key < best_p - 1e-9:
            best_v, best_u, best_c, best_p, best_tier = v, u, c, key, tier
    return best_v, best_u, best_c


@numba.njit(cache=True)
def _first_links(movers, targets, slack, pair_weight, tray_room, indptr, indices, data,
                 klass, cab, counts, limit, price, group, members, count,
                 cab_load, cab_demand, cab_limit, grp_load, grp_demand, grp_limit, stamp,
                 state, ptr, seg, own, tray, tlimit, pair_of, pcount, plimit, tpair_of, ptray,
                 ptlimit):
    """Every move (v, u, c) as ``_best_move`` enumerates them (``_candidates``) that raises
    the cabinet excess (routers' cables plus ``pair_weight`` x the group pairs') by at most
    ``slack``, adding at most ``tray_room`` tray cables: (v, u, c, change of that excess,
    change of the price) arrays, the links of ``_repair_chains``."""
    vs, us, cs = _candidates(movers, targets, cab, group, members, count, cab_load, cab_demand,
                             cab_limit, grp_load, grp_demand, grp_limit)
    out_e = np.empty(len(vs), np.float64)
    out_p = np.empty(len(vs), np.float64)
    keep = np.zeros(len(vs), np.bool_)
    for i in range(len(vs)):
        v, u, c = vs[i], us[i], cs[i]
        d_e, d_p = _delta(v, u, c, indptr, indices, data, klass, cab, counts, limit, price,
                          stamp, state[0])
        state[0] += 2
        state[1] += 1
        d_e = d_e + pair_weight * _pair_delta(v, u, c, indptr, indices, data, cab, pair_of,
                                              pcount, plimit)
        if d_e > slack:
            continue
        d_t, _ = _tray_delta(v, u, c, indptr, indices, data, cab, ptr, seg, own, tray, tlimit,
                             tpair_of, ptray, ptlimit)
        if d_t > tray_room:
            continue
        out_e[i], out_p[i], keep[i] = d_e, d_p, True
    return vs[keep], us[keep], cs[keep], out_e[keep], out_p[keep]


@numba.njit(cache=True)
def _apply(v, u, c, indptr, indices, data, cab, counts, group, members, count, pos, cab_load,
           cab_demand, grp_load, grp_demand, ptr, seg, own, tray, tlimit, pair_of, pcount,
           plimit, tpair_of, ptray, ptlimit):
    a = cab[v]
    for x, src, dst in ((v, a, c), (u, c, a)):
        if x < 0:
            continue
        if len(own):
            _tray_shift(x, dst, indptr, indices, data, cab, ptr, seg, own, tray, tlimit,
                        tpair_of, ptray, ptlimit)
            cab[x] = src
        if pcount.shape[0]:
            _pair_shift(x, dst, indptr, indices, data, cab, pair_of, pcount, plimit)
            cab[x] = src
        _shift(x, dst, indptr, indices, data, counts, cab)
        _move_member(x, src, dst, members, count, pos)
        cab_load[src] -= cab_demand[x]
        cab_load[dst] += cab_demand[x]
        grp_load[group[src]] -= grp_demand[x]
        grp_load[group[dst]] += grp_demand[x]


class _Search:
    """The layout under search and the arrays the kernels share."""

    OVER_CAP = _OVER_CAP

    def __init__(self, graph: Graph, cab, cabinet_group, cabinet_limits: Limits,
                 group_limits: Limits, price: np.ndarray, share: float,
                 routes: TrayRoutes | None, pairs: GroupPairs | None = None):
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
        self.routes = routes
        if routes is None:                       # trays measured only: empty tray arrays
            self.trays = (np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                          np.zeros((graph.n, 0), np.int32), np.zeros((graph.n, 2), np.int64))
        else:
            self.tray_limit = np.maximum(self.limit, tray_floor(graph, routes, self.limit))
            counts = tray_counts(graph, self.cab, routes)
            self.trays = (routes.ptr, routes.seg, routes.own, counts,
                          np.c_[self.tray_limit, self._cap(counts)].astype(np.int64))
        self.group_pairs = pairs
        if pairs is None:                        # no group pairs: empty pair arrays
            self.pairs = (np.full(len(a.data), -1, np.int64), np.zeros((0, n_cab), np.int32),
                          np.zeros(0, np.int64))
        else:
            self.pairs = (pairs.pair_of, pair_counts(graph, self.cab, pairs, n_cab),
                          pairs.limit)
        if pairs is None or routes is None:      # group pairs' trays not counted
            self.pair_tray_limit = None
            self.pair_trays = (np.full(len(a.data), -1, np.int64),
                               np.zeros((0, 0 if routes is None else routes.segments),
                                        np.int32), np.zeros(0, np.int64))
        else:
            self.pair_tray_limit = np.maximum(pairs.limit, pair_tray_floor(graph, pairs, routes))
            self.pair_trays = (pairs.pair_of, pair_tray_counts(graph, self.cab, pairs, routes),
                               self.pair_tray_limit)

    def _cap(self, counts: np.ndarray) -> np.ndarray:
        """Per router the most cables one tray segment other than its own bay may carry:
        the largest share of a router's cables one such segment carries in the plain layout
        (the search never raises the largest share), at least the tray limit."""
        degree = np.maximum(self.graph.degree, 1)
        other = counts.astype(np.int64)
        other[np.arange(len(self.cab)), self.routes.own[self.cab]] = 0
        largest = float((other / degree[:, None]).max()) if other.size else 1.0
        return np.maximum(np.floor(largest * degree + 1e-9).astype(np.int64), self.tray_limit)

    @property
    def evaluations(self) -> int:
        return int(self.state[1])

    def excess(self) -> int:
        return int(over_limit(self.counts, self.cab, self.limit).sum())

    def pair_over(self) -> np.ndarray:
        """(group pairs, cabinets) cables over the pair limit."""
        return np.maximum(self.pairs[1] - self.pairs[2][:, None], 0)

    def pair_tray_over(self) -> np.ndarray | None:
        """(group pairs, segments) cables over the pair tray limit, None when not counted."""
        if self.pair_tray_limit is None:
            return None
        return np.maximum(self.pair_trays[1] - self.pair_tray_limit[:, None], 0)

    def pair_tray_excess(self) -> int:
        over = self.pair_tray_over()
        return 0 if over is None else int(over.sum())

    def tray_over(self) -> np.ndarray | None:
        """(routers, segments) cables over the tray limit, None without trays."""
        if self.routes is None:
            return None
        return tray_over(self.trays[3], self.cab, self.tray_limit, self.routes)

    def best(self, movers, targets, mode: int, tray_room: int = 0):
        indptr, indices, data = self.csr
        v, u, c = _best_move(np.asarray(movers, np.int64),
                             np.ascontiguousarray(targets, dtype=np.int64), mode,
                             SPREAD_CABINET_WEIGHT, SPREAD_PAIR_WEIGHT, tray_room, indptr,
                             indices, data, self.klass, self.cab,
                             self.counts, self.limit, self.price, self.group, self.members,
                             self.count, self.cab_load, self.cab_demand, self.cab_limit,
                             self.grp_load, self.grp_demand, self.grp_limit, self.stamp,
                             self.state, *self.trays, *self.pairs, *self.pair_trays)
        return None if v < 0 else (v, u, c)

    def first_links(self, movers, targets, slack: float, tray_room: int
                    ) -> tuple[np.ndarray, ...]:
        """The moves raising the cabinet excess by at most ``slack`` (``_first_links``)."""
        indptr, indices, data = self.csr
        return _first_links(np.asarray(movers, np.int64),
                            np.ascontiguousarray(targets, dtype=np.int64), float(slack),
                            SPREAD_PAIR_WEIGHT, tray_room, indptr, indices, data, self.klass,
                            self.cab, self.counts, self.limit, self.price,
                            self.group, self.members, self.count, self.cab_load,
                            self.cab_demand, self.cab_limit, self.grp_load, self.grp_demand,
                            self.grp_limit, self.stamp, self.state, *self.trays, *self.pairs,
                            *self.pair_trays)

    def tray_change(self, v: int, c: int) -> int:
        """Change of the router tray excess (``_OVER_CAP`` per cable over a router's tray
        cap) if router v alone went to cabinet c (0 without trays)."""
        indptr, indices, data = self.csr
        return int(_tray_delta(v, -1, c, indptr, indices, data, self.cab, *self.trays,
                               *self.pair_trays)[0])

    def tray_swap_change(self, v: int, u: int, c: int) -> int:
        """``tray_change`` of router v going to cabinet c and u coming back from it."""
        indptr, indices, data = self.csr
        return int(_tray_delta(v, u, c, indptr, indices, data, self.cab, *self.trays,
                               *self.pair_trays)[0])

    def swap_price_change(self, v: int, u: int, c: int) -> float:
        """Change of the price of router v going to cabinet c and u coming back from it."""
        indptr, indices, data = self.csr
        a = int(self.cab[v])
        change = _price_change(v, u, a, c, indptr, indices, data, self.klass, self.cab,
                               self.price)
        return change + _price_change(u, v, c, a, indptr, indices, data, self.klass, self.cab,
                                      self.price)

    def price_total(self) -> float:
        """The price of every link where its routers stand."""
        indptr, indices, data = self.csr
        rows = np.repeat(np.arange(len(self.cab)), np.diff(indptr))
        return float((data * self.price[self.klass, self.cab[rows], self.cab[indices]]).sum()
                     ) / 2

    def tray_total(self) -> int:
        """Router tray cables over the limits, plus ``_OVER_CAP`` per cable over a cap."""
        counts = self.trays[3].astype(np.int64)
        counts[np.arange(len(self.cab)), self.routes.own[self.cab]] = 0
        return int(self.tray_over().sum()) + _OVER_CAP * int(
            np.maximum(counts - self.trays[4][:, 1:2], 0).sum())

    def trays_within(self, excess: int) -> bool:
        """No router over its tray cap and at most ``excess`` tray cables over the limits
        (True without trays)."""
        if self.routes is None:
            return True
        counts = self.trays[3].astype(np.int64)
        counts[np.arange(len(self.cab)), self.routes.own[self.cab]] = 0
        return bool((counts <= self.trays[4][:, 1:2]).all()) and \
            int(self.tray_over().sum()) <= excess

    def cabinet_excess(self) -> float:
        """The cabinet excess the cabinet repairs weigh: the routers' cables over the limit
        plus ``SPREAD_PAIR_WEIGHT`` x the group pairs'."""
        return self.excess() + SPREAD_PAIR_WEIGHT * int(self.pair_over().sum())

    def undo(self, move, source: int) -> None:
        """Take back ``move``, made when its router was in cabinet ``source``."""
        v, u, _ = move
        self.apply((v, u, source))

    def apply(self, move) -> None:
        indptr, indices, data = self.csr
        _apply(*move, indptr, indices, data, self.cab, self.counts, self.group, self.members,
               self.count, self.pos, self.cab_load, self.cab_demand, self.grp_load,
               self.grp_demand, *self.trays, *self.pairs, *self.pair_trays)


@dataclass(frozen=True)
class TrayOutcome:
    """The tray segments under the search: per (router, segment) its cables along it
    (``counts``, segments as ``routes`` numbers them), the limit per router (the share's, or
    the floor where it is higher: ``tray_floor``), and the cables over it before and after."""

    routes: TrayRoutes
    counts: np.ndarray
    limit: np.ndarray
    cables_over: int
    plain_cables_over: int


@dataclass(frozen=True)
class PairSpread:
    """What the search did for the group pairs on the cabinets (``GroupPairs``): the cables
    of a pair with an end in one cabinet over ``floor(SHARE x cables of the pair)`` (at least
    1) with and without it, and per (pair, cabinet) the counts it ended with (``counts``;
    ``pairs.key``: each row's pair, lower group x (groups) + higher group)."""

    pairs: GroupPairs
    counts: np.ndarray
    cables_over: int
    plain_cables_over: int
    trays: PairTrays | None = None


@dataclass(frozen=True)
class PairTrays:
    """What the search did for the group pairs on the tray segments: per (pair, segment) the
    pair's cables routed along it (``counts``, segments as ``TrayRoutes`` numbers them), the
    limit per pair (``floor(SHARE x cables of the pair)``, at least 1, or the floor where it
    is higher: ``pair_tray_floor``), and the cables over it before and after."""

    counts: np.ndarray
    limit: np.ndarray
    cables_over: int
    plain_cables_over: int


def spread(graph: Graph, router_cabinet, cabinet_group, near: np.ndarray,
           cabinet_limits: Limits, group_limits: Limits, price: np.ndarray, share: float,
           routes: TrayRoutes | None = None, router_group=None
           ) -> tuple[np.ndarray, int, int, int, TrayOutcome | None, PairSpread | None]:
    """``spread_repaired`` without what the exact repair did."""
    return spread_repaired(graph, router_cabinet, cabinet_group, near, cabinet_limits,
                           group_limits, price, share, routes, router_group)[:6]


def spread_repaired(graph: Graph, router_cabinet, cabinet_group, near: np.ndarray,
                    cabinet_limits: Limits, group_limits: Limits, price: np.ndarray,
                    share: float, routes: TrayRoutes | None = None, router_group=None
                    ) -> tuple[np.ndarray, int, int, int, TrayOutcome | None,
                               PairSpread | None, spread_repair.ExactRepair]:
    """(router -> cabinet meeting ``share`` where the search can, cables still over the limit,
    moves made, moves evaluated, the tray segments' counts with ``routes``, the group pairs'
    counts with ``router_group``). ``near[c]``: the cabinets cheapest from cabinet c (move
    targets); ``price[m, a, b]``: price per cable of a link of the m-th multiplicity class
    (``numpy.unique`` of the link weights) between cabinets a and b; ``routes``: the tray
    segments of every cabinet pair (``tray_routes``; None: trays not limited);
    ``router_group``: each router's topology group (None: no group pairs) (module doc); last,
    what the exact cabinet repair did (``spread_repair``)."""
    pairs = group_pairs(graph, router_group, share)
    if pairs is not None and pairs.pairs * len(cabinet_group) > SPREAD_MAX_ENTRIES:
        pairs = None                      # above the table the search keeps: measured only
    search = _Search(graph, router_cabinet, cabinet_group, cabinet_limits, group_limits, price,
                     share, routes, pairs)
    plain_tray = search.tray_over()
    plain_pairs = int(search.pair_over().sum())
    plain_pair_trays = search.pair_tray_excess()
    budget = SPREAD_EVALUATIONS_PER_ROUTER * max(graph.n, 1)
    cap = None if routes is None else int(plain_tray.sum())   # the tray excess never grows
    if routes is None:                                          # past the plain one's
        moves = _repair_cabinets(search, graph, near, budget, _CABINETS)
        done = budget
    else:
        moves = _repair_cabinets(search, graph, near, budget, _TRADE, cap)
        moves += _repair_trays(search, graph, near, 2 * budget)
        moves += _repair_cabinets(search, graph, near, 3 * budget, _CABINETS, cap)
        done = 3 * budget
    recover = 4 * budget
    if pairs is not None:
        done, recover = max(done, search.evaluations) + budget, recover + budget
        moves += _repair_pairs(search, near, done)
    if search.cabinet_excess() > 0:
        done = search.evaluations + int(SPREAD_CHAIN_BUDGET * budget)
        recover = max(recover, done + budget)
        moves += _repair_chains(search, graph, near, done, cap)
    exact = spread_repair.ExactRepair(applies=spread_repair.applies(search))
    if search.cabinet_excess() > 0:
        exact = spread_repair.exact_repair(search, near, cap)
    if search.pair_tray_limit is not None:
        done = search.evaluations + int(SPREAD_PAIR_TRAY_BUDGET * budget)
        recover = max(recover, done + budget)
        moves += _repair_pair_trays(search, near, done)
    moves += _recover(search, graph, near, recover)
    trays = None if routes is None else TrayOutcome(
        routes=routes, counts=search.trays[3], limit=search.tray_limit,
        cables_over=int(search.tray_over().sum()), plain_cables_over=int(plain_tray.sum()))
    pair_trays = None if search.pair_tray_limit is None else PairTrays(
        counts=search.pair_trays[1], limit=search.pair_tray_limit,
        cables_over=search.pair_tray_excess(), plain_cables_over=plain_pair_trays)
    pair = None if pairs is None else PairSpread(
        pairs=pairs, counts=search.pairs[1], cables_over=int(search.pair_over().sum()),
        plain_cables_over=plain_pairs, trays=pair_trays)
    return search.cab, search.excess(), moves, search.evaluations, trays, pair, exact


_REPAIRED = object()
"""What a ``_repair_worst`` attempt returns for a cell an earlier move already repaired."""


def _repair_worst(search: _Search, excess, attempt, budget: int) -> int:
    """Pass after pass, the cells of ``excess()`` (a 2-D array of the cables over a limit), worst
    first, lowest index on ties: ``attempt(row, column)`` gives the move that repairs the cell
    (or the number of moves it made itself), ``_REPAIRED`` when an earlier move did, or None
    when no move does (the cell is then left out of later passes); passes end when one makes
    no move or the budget is spent. The moves made."""
    moves = 0
    stuck = None
    progress = True
    while progress and search.evaluations < budget:
        progress = False
        over = excess()
        if stuck is None:
            stuck = np.zeros(over.shape, dtype=bool)
        over[stuck] = 0
        cells = np.flatnonzero(over)
        for key in cells[np.argsort(-over.ravel()[cells], kind="stable")].tolist():
            if search.evaluations >= budget:
                break
            row, col = divmod(key, over.shape[1])
            move = attempt(row, col)
            if move is _REPAIRED:
                continue
            if move is None:
                stuck[row, col] = True
                continue
            if isinstance(move, int):     # the attempt made its moves itself (a chain)
                moves += move
            else:
                search.apply(move)
                moves += 1
            progress = True
    return moves


def _repair_cabinets(search: _Search, graph: Graph, near: np.ndarray, budget: int,
                     mode: int, tray_cap: int | None = None) -> int:
    """1. The (router, cabinet) pairs over the limit, worst first, pass after pass (module
    doc), ``mode`` as ``_best_move`` takes it, the tray excess kept within ``tray_cap``; the
    moves made."""
    adjacency = graph.adjacency

    def attempt(r: int, c: int):
        if c == search.cab[r] or search.counts[r, c] <= search.limit[r]:
            return _REPAIRED
        nbr = adjacency.indices[adjacency.indptr[r]:adjacency.indptr[r + 1]]
        inside = nbr[search.cab[nbr] == c].astype(np.int64)
        movers = np.r_[r, inside]
        targets = np.full((len(movers), near.shape[1]), -1, np.int64)
        targets[0, 0] = c
        targets[1:] = near[c]
        room = 0 if tray_cap is None else tray_cap - int(search.tray_over().sum())
        move = search.best(movers, targets, mode, room)
        if move is None:                  # every cabinet, before the pair is given up
            cabinets = search.counts.shape[1]
            everywhere = np.broadcast_to(np.arange(cabinets), (len(inside), cabinets))
            move = search.best(inside, everywhere, mode, room)
        return move

    return _repair_worst(search, lambda: over_limit(search.counts, search.cab, search.limit),
                         attempt, budget)


def _repair_trays(search: _Search, graph: Graph, near: np.ndarray, budget: int) -> int:
    """2. The (router, tray segment) pairs over the tray limit, worst first, pass after pass:
    the router itself, or one of its neighbours whose cables to it run along the segment,
    moves into the cabinets near the router's (module doc); the moves made."""
    routes = search.routes
    n_cab = len(routes.own)
    adjacency = graph.adjacency

    def attempt(r: int, s: int):
        a = search.cab[r]
        if s == routes.own[a] or search.trays[3][r, s] <= search.tray_limit[r]:
            return _REPAIRED
        nbr = adjacency.indices[adjacency.indptr[r]:adjacency.indptr[r + 1]]
        along = [w for w in nbr.tolist()
                 if s in routes.seg[routes.ptr[a * n_cab + search.cab[w]]:
                                    routes.ptr[a * n_cab + search.cab[w] + 1]]]
        movers = np.array([r] + along, np.int64)
        targets = np.broadcast_to(near[a], (len(movers), near.shape[1]))
        return search.best(movers, targets, _TRAYS)

    return _repair_worst(search, search.tray_over, attempt, budget)


def _repair_pairs(search: _Search, near: np.ndarray, budget: int) -> int:
    """The (group pair, cabinet) cells over the pair limit, worst first, pass after pass: one
    of the pair's routers in the cabinet moves to (or swaps into) the cabinets near it, at the
    least price per pair cable removed, raising neither the cabinet nor the tray excess
    (module doc); the moves made."""
    pairs = search.group_pairs
    a = search.graph.adjacency
    rows = np.repeat(np.arange(search.graph.n), np.diff(a.indptr))
    on = np.flatnonzero(pairs.pair_of >= 0)
    order = on[np.argsort(pairs.pair_of[on], kind="stable")]
    cut = np.searchsorted(pairs.pair_of[order], np.arange(pairs.pairs + 1))
    ends = [np.unique(rows[order[cut[p]:cut[p + 1]]]) for p in range(pairs.pairs)]

    def attempt(p: int, c: int):
        if search.pairs[1][p, c] <= pairs.limit[p]:
            return _REPAIRED
        movers = ends[p][search.cab[ends[p]] == c]
        targets = np.broadcast_to(near[c], (len(movers), near.shape[1]))
        return search.best(movers, targets, _PAIRS)

    return _repair_worst(search, search.pair_over, attempt, budget)


def _repair_pair_trays(search: _Search, near: np.ndarray, budget: int) -> int:
    """The (group pair, tray segment) cells over the pair tray limit, worst first, pass after
    pass: one of the pair's routers with a cable of the pair along the segment moves to (or
    swaps into) the cabinets near its own, at the least price per pair cable taken off the
    trays, raising no other excess (cabinet, tray, group pair on cabinets; module doc); the
    moves made."""
    routes, pairs = search.routes, search.group_pairs
    n_cab = len(routes.own)
    x, w, _, pair = _pair_entries(search.graph, pairs)
    order = np.argsort(pair, kind="stable")
    cut = np.searchsorted(pair[order], np.arange(pairs.pairs + 1))
    cables = [(x[order[cut[p]:cut[p + 1]]], w[order[cut[p]:cut[p + 1]]])
              for p in range(pairs.pairs)]

    def attempt(p: int, s: int):
        if search.pair_trays[1][p, s] <= search.pair_tray_limit[p]:
            return _REPAIRED
        ends, others = cables[p]
        route = search.cab[ends] * n_cab + search.cab[others]
        movers = [int(v) for v, r in zip(ends.tolist(), route.tolist())
                  if s in routes.seg[routes.ptr[r]:routes.ptr[r + 1]]]
        movers = np.unique(np.array(movers, np.int64))
        return search.best(movers, near[search.cab[movers]], _PAIR_TRAYS)

    return _repair_worst(search, search.pair_tray_over, attempt, budget)


def _repair_chains(search: _Search, graph: Graph, near: np.ndarray, budget: int,
                   tray_cap: int | None) -> int:
    """The cabinet cells the single moves left over (a router's cables in one cabinet, a
    group pair's cables with an end in one), worst first, pass after pass, by chains of two
    moves: the first moves one of the routers in the cabinet (the router's neighbours, the
    pair's routers) to any cabinet, or swaps it there, raising the cabinet excess by at most
    ``tuning.SPREAD_CHAIN_SLACK`` (the cheapest ``tuning.SPREAD_CHAIN_FIRST`` of those, least
    raise first); the second, from the cabinets the first touched into the cabinets near
    them, is the cheapest that leaves the excess below where it was. Within ``tray_cap`` as
    the cabinet repairs; the moves made."""
    adjacency = graph.adjacency
    cabinets = search.counts.shape[1]
    every = np.arange(cabinets)
    pairs = search.group_pairs
    ends = None
    if pairs is not None:
        x, _, _, pair = _pair_entries(graph, pairs)
        order = np.argsort(pair, kind="stable")
        cut = np.searchsorted(pair[order], np.arange(pairs.pairs + 1))
        ends = [np.unique(x[order[cut[p]:cut[p + 1]]]) for p in range(pairs.pairs)]

    def room() -> int:
        return 0 if tray_cap is None else tray_cap - int(search.tray_over().sum())

    def chain(movers: np.ndarray):
        before = search.cabinet_excess()
        v1, u1, c1, e1, p1 = search.first_links(
            movers, np.broadcast_to(every, (len(movers), cabinets)), SPREAD_CHAIN_SLACK, room())
        for i in np.lexsort((p1, e1))[:SPREAD_CHAIN_FIRST].tolist():
            if search.evaluations >= budget:
                return None
            first = (int(v1[i]), int(u1[i]), int(c1[i]))
            source = int(search.cab[first[0]])
            search.apply(first)
            touched = [source, first[2]]
            movers2 = np.concatenate([search.members[c, :search.count[c]] for c in touched])
            v2, u2, c2, e2, p2 = search.first_links(
                movers2, near[search.cab[movers2]], before - search.cabinet_excess() - 1e-6,
                room())
            if len(v2):
                j = int(np.lexsort((e2, p2))[0])
                search.apply((int(v2[j]), int(u2[j]), int(c2[j])))
                return 2
            search.undo(first, source)
        return None

    def router_cell(r: int, c: int):
        if c == search.cab[r] or search.counts[r, c] <= search.limit[r]:
            return _REPAIRED
        nbr = adjacency.indices[adjacency.indptr[r]:adjacency.indptr[r + 1]]
        return chain(nbr[search.cab[nbr] == c].astype(np.int64))

    def pair_cell(p: int, c: int):
        if search.pairs[1][p, c] <= pairs.limit[p]:
            return _REPAIRED
        return chain(ends[p][search.cab[ends[p]] == c])

    moves = _repair_worst(search, lambda: over_limit(search.counts, search.cab, search.limit),
                          router_cell, budget)
    if pairs is not None:
        moves += _repair_worst(search, search.pair_over, pair_cell, budget)
    return moves


def _recover(search: _Search, graph: Graph, near: np.ndarray, budget: int) -> int:
    """3. Pass after pass over the routers, the cheapest move into the cabinets near its own
    that keeps both excesses, while one saves money (module doc); the moves made."""
    moves = 0
    improved = True
    while improved and search.evaluations < budget:
        improved = False
        for v in range(graph.n):
            while search.evaluations < budget:
                move = search.best([v], near[search.cab[v]][None, :], _RECOVER)
                if move is None:
                    break
                search.apply(move)
                moves += 1
                improved = True
    return moves


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
