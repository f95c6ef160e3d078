"""Split each electrical group into its cabinets (second objective: fewest links leaving cabinets).

A group needs at least as many cabinets as first-fit-decreasing packing of its routers gives
under ``router_slots`` / ``endpoint_slots``. With one cabinet there is nothing to decide. With
two, CP-SAT bisects the group exactly (straight from the first-fit split for tiny groups, else
from a KaMinPar split); with more,
KaMinPar under the cabinet capacity plus the move/swap local search. Any split that breaks a
cabinet limit falls back to the first-fit packing, which always holds.
"""

from __future__ import annotations

import numpy as np

from planner.placement.capacity import Capacity, split_cabinets_ffd
from planner.placement.cpsat import bisect, lns
from planner.placement.graph import Graph
from planner.placement.local_search import local_search
from planner.placement.partition import KaMinParRunner, relabel

EXACT_SPLIT_MAX_ROUTERS = 64
SMALL_SPLIT_ROUTERS = 16  # two cabinets this small: CP-SAT straight from the first-fit split


def _fits(sub: Graph, part: np.ndarray, n_cab: int, cap: Capacity) -> bool:
    counts = np.bincount(part, minlength=n_cab)
    ep = np.bincount(part, weights=sub.endpoints, minlength=n_cab)
    ok = len(counts) == n_cab and counts.max(initial=0) <= cap.cabinet_routers
    return bool(ok and (cap.cabinet_endpoints is None or ep.max(initial=0) <= cap.cabinet_endpoints))


def split_group(sub: Graph, cap: Capacity, seed: int = 0) -> np.ndarray:
    """Cabinet index (0..c-1) of each router of one group's sub-graph."""
    bins = split_cabinets_ffd(sub.endpoints, cap.cabinet_routers, cap.cabinet_endpoints)
    ffd = np.empty(sub.n, dtype=np.int64)
    for i, b in enumerate(bins):
        ffd[b] = i
    n_cab = len(bins)
    if n_cab == 1 or len(sub.links) == 0:
        return ffd
    w, c = cap.cabinet_folded_weights(sub.endpoints)
    if int(w.sum()) > n_cab * c:
        return ffd
    best = ffd if _fits(sub, ffd, n_cab, cap) else None
    if best is not None and n_cab == 2 and sub.n <= SMALL_SPLIT_ROUTERS:
        res = bisect(sub, np.arange(sub.n), best, w, c, seed=seed)
        return relabel(best if res is None else res[0])
    part = KaMinParRunner(sub, w).run(seed, n_cab, c)
    if _fits(sub, part, n_cab, cap):
        part = local_search(sub, part, w, c, n_cab)
        if n_cab == 2 and sub.n <= EXACT_SPLIT_MAX_ROUTERS:
            res = bisect(sub, np.arange(sub.n), part, w, c, seed=seed)
            if res is not None:
                part = res[0]
        elif sub.n <= 4 * EXACT_SPLIT_MAX_ROUTERS:
            part, _ = lns(sub, part, w, c, n_cab, lower_bound=0, max_calls=2 * n_cab, seed=seed)
        if best is None or sub.cut(part) < sub.cut(best):
            best = part
    if best is None or not _fits(sub, best, n_cab, cap):
        return ffd
    return relabel(best)


def split_groups(graph: Graph, group: np.ndarray, cap: Capacity, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(router_cabinet, cabinet_group): cabinets numbered group by group."""
    router_cabinet = np.empty(graph.n, dtype=np.int64)
    cabinet_group: list[int] = []
    for g, (members, sub) in enumerate(graph.parts(group)):
        local = split_group(sub, cap, seed)
        router_cabinet[members] = len(cabinet_group) + local
        cabinet_group.extend([g] * (int(local.max()) + 1))
    return router_cabinet, np.asarray(cabinet_group, dtype=np.int64)
