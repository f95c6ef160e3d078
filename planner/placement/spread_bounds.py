"""What no placement can go below under ``--spread-risk`` (issue 26 item 4): the cables over
the cabinet limits and over the tray-segment limits, beside what the search reaches
(summary.json ``spread_risk``).

* Cabinets (``cabinet_lower_bound``): a router's cabinet takes in at most ``cabinet_routers``
  - 1 of its neighbours; each other neighbour's bundle of parallel cables sits whole in one
  other cabinet; and every cable of a group pair at router x has an end in x's cabinet.
* Tray segments (``tray_lower_bound``): router r in cabinet a, with the cabinet limits kept
  (at most ``floor(SHARE x cables of r)`` of its cables in one other cabinet, its cabinet
  mates taking its largest bundles), sends n_c cables to cabinet c; segment s carries
  sum of n_c over the cabinets whose route from a runs along s, and r's tray excess is
  sum over s (but a's own bay) of max(0, that - tray limit of r). With n_c free in
  [0, that limit] and summing to at least the cables that must leave a, this is a linear
  program (``scipy.optimize.linprog``, HiGHS): its optimum, rounded up, is the least tray
  excess r can have in cabinet a whatever the other routers do. No two routers are coupled
  (each may pick its best neighbours' cabinets), except that a cabinet holds at most
  ``cabinet_routers`` routers: the routers go to the cabinets' slots at the least total
  (``scipy.optimize.linear_sum_assignment``). The sum is a lower bound on the router tray
  cables over; it is loose where the topology spreads a router's neighbours over the room
  (a random-like graph cannot give every router near neighbours at once).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment, linprog

from planner.placement.tuning import SPREAD_BOUND_MAX_LPS, SPREAD_BOUND_MAX_SLOTS


def cabinet_lower_bound(graph, limit: np.ndarray, cabinet_routers: int, pairs=None
                        ) -> tuple[int, int]:
    """(router cables, group-pair cables) over the cabinet limits in any placement. A router r
    shares its cabinet with at most ``cabinet_routers`` - 1 neighbours; each other
    neighbour's bundle of m parallel cables sits whole in one other cabinet, over the limit
    by at least m - ``limit[r]`` (bundles in one cabinet only add up). Every cable of a group
    pair p at router x has an end in x's cabinet, so that cell holds at least those k cables:
    over by k - limit(p) at the router with the most."""
    a = graph.adjacency
    mates = max(int(cabinet_routers) - 1, 0)
    routers = 0
    for r in range(graph.n):
        m = np.sort(a.data[a.indptr[r]:a.indptr[r + 1]])[::-1][mates:]
        routers += int(np.maximum(m - int(limit[r]), 0).sum())
    if pairs is None:
        return routers, 0
    rows = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(a.indptr))
    on = pairs.pair_of >= 0
    key, at = np.unique(pairs.pair_of[on] * graph.n + rows[on], return_inverse=True)
    cables = np.bincount(at, weights=a.data[on]).astype(np.int64)  # per (pair, router)
    most = np.zeros(pairs.pairs, np.int64)
    np.maximum.at(most, key // graph.n, cables)
    return routers, int(np.maximum(most - pairs.limit, 0).sum())


def lower_bounds(graph, limit: np.ndarray, cabinet_routers: int, pairs=None, trays=None
                 ) -> dict:
    """The cables over that no placement goes below: ``router_cabinet``, ``pair_cabinet``
    (``cabinet_lower_bound``), ``router_tray`` (``tray_lower_bound``; None where the trays
    are not limited or the programs are too many)."""
    routers, pair = cabinet_lower_bound(graph, limit, cabinet_routers, pairs)
    tray = None if trays is None else tray_lower_bound(graph, trays.routes, limit, trays.limit)
    return {"router_cabinet": routers, "pair_cabinet": pair if pairs is not None else None,
            "router_tray": tray}


def tray_lower_bound(graph, routes, limit: np.ndarray, tray_limit: np.ndarray
                     ) -> int | None:
    """Router tray cables over the tray limits that no placement into the cabinets of
    ``routes`` (``spread.TrayRoutes``) keeping the cabinet limits goes below (module doc);
    None above ``SPREAD_BOUND_MAX_LPS`` programs (router profiles x cabinets)."""
    a = graph.adjacency
    n_cab = len(routes.own)
    slots = max(int(routes.cabinet_routers), 1)
    profile = {}
    kind = np.empty(graph.n, np.int64)
    for r in range(graph.n):
        m = tuple(sorted(a.data[a.indptr[r]:a.indptr[r + 1]].tolist(), reverse=True))
        kind[r] = profile.setdefault((m, int(limit[r]), int(tray_limit[r])), len(profile))
    if len(profile) * n_cab > SPREAD_BOUND_MAX_LPS:
        return None
    cost = np.zeros((len(profile), n_cab), np.int64)
    for (m, most, tray), k in profile.items():
        bundles = np.asarray(m, np.int64)
        leaving = int(bundles[slots - 1:].sum())
        per_cabinet = min(most, int(bundles[:slots].sum()))
        for c in range(n_cab):
            cost[k, c] = _router_excess(routes, c, leaving, per_cabinet, tray)
    per_router = cost[kind]
    if graph.n * n_cab * slots > SPREAD_BOUND_MAX_SLOTS:
        return int(per_router.min(axis=1).sum())
    rows, cols = linear_sum_assignment(np.repeat(per_router, slots, axis=1))
    return int(per_router[rows, cols // slots].sum())


def _router_excess(routes, a: int, leaving: int, per_cabinet: int, tray: int) -> int:
    """Least tray excess of a router in cabinet ``a`` sending at least ``leaving`` cables out,
    at most ``per_cabinet`` into any other cabinet (the linear program of the module doc)."""
    n_cab = len(routes.own)
    lo, hi = routes.ptr[a * n_cab], routes.ptr[(a + 1) * n_cab]
    seg = routes.seg[lo:hi]
    target = np.repeat(np.arange(n_cab), np.diff(routes.ptr[a * n_cab:(a + 1) * n_cab + 1]))
    keep = (seg != routes.own[a]) & (target != a)
    if leaving <= 0 or not keep.any():
        return 0
    n_seg = routes.segments
    along = sp.csr_matrix((np.ones(int(keep.sum())), (seg[keep], target[keep])),
                          shape=(n_seg, n_cab))
    a_ub = sp.vstack([sp.hstack([along, -sp.identity(n_seg)]),          # load - t_s <= tray
                      sp.hstack([-sp.csr_matrix(np.ones((1, n_cab))),  # sum n_c >= leaving
                                 sp.csr_matrix((1, n_seg))])]).tocsr()
    b_ub = np.r_[np.full(n_seg, tray, np.float64), -leaving]
    upper = np.full(n_cab, per_cabinet, np.float64)
    upper[a] = 0
    bounds = np.c_[np.zeros(n_cab + n_seg), np.r_[upper, np.full(n_seg, np.inf)]]
    result = linprog(np.r_[np.zeros(n_cab), np.ones(n_seg)], A_ub=a_ub, b_ub=b_ub,
                     bounds=bounds, method="highs")
    if result.status != 0:
        return 0                          # no program to bound with: no claim
    return int(np.ceil(result.fun - 1e-6))
