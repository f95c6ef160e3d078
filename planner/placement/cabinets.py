"""Split each electrical group into its cabinets (second objective: fewest links leaving cabinets).

A group gets as many cabinets as first-fit-decreasing packing of its routers gives under
``router_slots`` and ``endpoint_slots`` (separate limits, ``capacity.Limits``). With one cabinet
there is nothing to decide. With two, every split of a tiny group is tried; else CP-SAT bisects
the group exactly (straight from the first-fit split for small groups, else from a KaMinPar
split); with more, KaMinPar (repaired to
the cabinet limits) plus the move/swap local search and CP-SAT pair LNS. A split is kept only
when it fits the same number of cabinets and leaves fewer links between them than the
first-fit packing, which always holds.
"""

from __future__ import annotations

import numpy as np

from planner.placement.capacity import Capacity, Limits, pack_first_fit
from planner.placement.cpsat import bisect, lns
from planner.placement.graph import Graph
from planner.placement.local_search import local_search
from planner.placement.partition import KaMinParRunner, relabel, repair
from planner.placement.tuning import (ENUMERATE_MAX_ROUTERS, EXACT_SPLIT_MAX_ROUTERS,
                                      SMALL_SPLIT_ROUTERS)


def enumerate_bisection(sub: Graph, limits: Limits) -> np.ndarray | None:
    """The 2-way split with fewest links between the sides that keeps every limit, by trying
    them all (router 0 stays on side 0; ties: the smallest bit pattern), or None if none fits."""
    n = sub.n
    codes = np.arange(1 << (n - 1), dtype=np.int64) << 1          # bit v = side of router v
    side = (codes[:, None] >> np.arange(n)) & 1                    # (splits, n)
    load1 = side @ limits.demand                                   # (splits, resources)
    load0 = limits.demand.sum(axis=0) - load1
    ok = np.all(load1 <= limits.limit, axis=1) & np.all(load0 <= limits.limit, axis=1)
    if not ok.any():
        return None
    cut = (side[:, sub.links[:, 0]] != side[:, sub.links[:, 1]]) @ sub.weights
    best = int(np.argmin(np.where(ok, cut, np.iinfo(np.int64).max)))
    return side[best].astype(np.int64)


def _fits(part: np.ndarray, n_cab: int, limits: Limits) -> bool:
    return int(part.max(initial=-1)) + 1 == n_cab and limits.fits(part, n_cab)


def split_group(sub: Graph, cap: Capacity, seed: int = 0) -> np.ndarray:
    """Cabinet index (0..c-1) of each router of one group's sub-graph."""
    limits = cap.cabinet_limits(sub.endpoints)
    ffd = pack_first_fit(limits, np.argsort(-sub.endpoints, kind="stable"))
    n_cab = int(ffd.max()) + 1 if sub.n else 0
    if n_cab <= 1 or len(sub.links) == 0:
        return ffd
    best = ffd
    if n_cab == 2 and sub.n <= ENUMERATE_MAX_ROUTERS:
        exact = enumerate_bisection(sub, limits)
        return relabel(best if exact is None else exact)
    if n_cab == 2 and sub.n <= SMALL_SPLIT_ROUTERS:
        res = bisect(sub, np.arange(sub.n), best, limits, seed=seed)
        return relabel(best if res is None else res[0])
    w, c = limits.scalar()
    part = repair(sub, KaMinParRunner(sub, w).run(seed, n_cab, c), limits, n_cab)
    if _fits(part, n_cab, limits):
        part = local_search(sub, part, limits, n_cab)
        if n_cab == 2 and sub.n <= EXACT_SPLIT_MAX_ROUTERS:
            res = bisect(sub, np.arange(sub.n), part, limits, seed=seed)
            if res is not None:
                part = res[0]
        elif sub.n <= 4 * EXACT_SPLIT_MAX_ROUTERS:
            part, _ = lns(sub, part, limits, n_cab, lower_bound=0, max_calls=2 * n_cab, seed=seed)
        if sub.cut(part) < sub.cut(best):
            best = part
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
