"""Exact repair of the cabinet limits of ``--spread-risk`` (issue 26 item 4), after the local
search of ``planner.placement.spread``.

The search moves one router (or swaps two) at a time, and two in a chain. Where every cabinet
holds two routers (the default plan: 722 routers in 361 cabinets of 2) a cabinet cell over the
share can need a long exchange: which routers may share a cabinet is a sparse graph (on Slim
Fly MMS(19) at share 1/29 each router has 18 possible cabinet mates, its neighbours in the
other subgraph), and a layout without a cell over is a perfect matching of that graph.

Where a cabinet holds at most two routers, the repair therefore takes the cabinets' contents
as a matching (``rematch``):

* ``compatible``: two routers may share a cabinet when no router z then has more than
  ``floor(SHARE x cables of z)`` cables into it (m(z, x) + m(z, y), counted over every z) and
  no group pair more than its limit of cables with an end in it (its cables at x and at y, a
  cable between them once); a router may stand alone when its own cables keep every limit;
* a CP-SAT model (OR-Tools): one Boolean per compatible pair, every router in exactly one
  pair or alone, as many alone as there are cabinets of one router now; it keeps the most
  cabinets as they stand (maximum), hinted with the current mates. One worker, a fixed seed
  and a deterministic-time limit (``tuning.SPREAD_EXACT_DETERMINISTIC_TIME``), never a
  wall-clock one: the same inputs give the same layout on any machine;
* the pairs it forms go into the cabinets they empty, at the least price of their links with
  the other ends where they stand plus ``tuning.SPREAD_EXACT_TRAY_PRICE`` a router tray
  cable over (``scipy.optimize.linear_sum_assignment``), within every cabinet and
  electrical-group limit;
* a cabinet's cells depend only on the routers it holds, so whole cabinets may exchange
  their routers without changing the cabinet excess (``swap_contents``): on hall floors the
  cabinets the matching filled exchange theirs with any cabinet where that lowers the router
  tray excess, then every cabinet with the cabinets cheapest from it where that lowers
  ``tuning.SPREAD_CONTENT_TRAY_DOLLARS`` a tray cable plus the price. The repair is undone
  when the trays end above the plain layout's tray excess, or a router above its tray cap
  (the search's own guarantees); the recovery of the search then saves what it can without
  taking a cell over.

Every cell of a cabinet of two is counted exactly by the pair test, so a matching found is a
layout with no router or group-pair cable over the cabinet limits; INFEASIBLE is a proof that
none exists with these cabinets (summary.json says so).

``planner.placement.spread_bounds`` gives what no placement can go below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model
from scipy.optimize import linear_sum_assignment

from planner.placement.tuning import (SPREAD_CONTENT_SWAPS_FILLED, SPREAD_CONTENT_SWAPS_NEAR,
                                      SPREAD_CONTENT_TRAY_DOLLARS,
                                      SPREAD_EXACT_DETERMINISTIC_TIME, SPREAD_EXACT_TRAY_PRICE,
                                      SPREAD_REMATCH_MAX_EDGES,
                                      SPREAD_REMATCH_MAX_ROUTERS)


@dataclass(frozen=True)
class ExactRepair:
    """What the exact repair did: whether it applies (cabinets of at most two routers, at
    most ``SPREAD_REMATCH_MAX_ROUTERS`` routers and ``SPREAD_REMATCH_MAX_EDGES`` compatible
    pairs), whether it proved that no layout of these cabinets meets the limits
    (``no_matching``), the routers the matching moved, the router and
    group-pair cabinet cables over before and after it, the solver's deterministic
    seconds, and ``within_trays``: False where the matching was undone because it took the
    trays past what the search holds them to."""

    applies: bool = False
    no_matching: bool = False
    moved: int = 0
    cables_over_before: int = 0
    cables_over_after: int = 0
    deterministic_time: float = 0.0
    within_trays: bool = True


def compatible(search) -> tuple[np.ndarray, np.ndarray]:
    """(routers x routers: the two share a cabinet of two without taking a cell over,
    routers: one alone in a cabinet takes none over). Router z's cell in the cabinet of x and
    y holds m(z, x) + m(z, y) cables; a group pair p's cell holds p's cables at x and at y,
    a cable between them once."""
    graph = search.graph
    n = graph.n
    indptr, indices, data = search.csr
    ok = np.ones((n, n), bool)
    alone = np.ones(n, bool)
    for z in range(n):
        nb, mult = indices[indptr[z]:indptr[z + 1]], data[indptr[z]:indptr[z + 1]]
        over = mult[:, None] + mult[None, :] > search.limit[z]
        ok[np.ix_(nb, nb)] &= ~over
        alone[nb[mult > search.limit[z]]] = False
    pair_of, _, plimit = search.pairs
    if len(plimit):
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        order = np.argsort(pair_of, kind="stable")
        cut = np.searchsorted(pair_of[order], np.arange(len(plimit) + 1))
        for p in range(len(plimit)):
            mine = order[cut[p]:cut[p + 1]]
            x, w, m = rows[mine], indices[mine], data[mine].astype(np.int64)
            ends, at = np.unique(x, return_inverse=True)
            k = np.bincount(at, weights=m).astype(np.int64)
            shared = np.zeros((len(ends), len(ends)), np.int64)
            inside = np.isin(w, ends)
            shared[at[inside], np.searchsorted(ends, w[inside])] = m[inside]
            over = k[:, None] + k[None, :] - shared > plimit[p]
            ok[np.ix_(ends, ends)] &= ~over
            alone[ends[k > plimit[p]]] = False
    np.fill_diagonal(ok, False)
    return ok, alone


def applies(search) -> bool:
    """Whether ``rematch`` takes the layout: cabinets of at most two routers, at most
    ``SPREAD_REMATCH_MAX_ROUTERS`` routers (the compatible pairs are counted after)."""
    return search.graph.n <= SPREAD_REMATCH_MAX_ROUTERS and search.count.max() <= 2


def rematch(search, seed: int = 0):
    """Where a cabinet holds at most two routers: the cabinets' contents as a matching of the
    routers (CP-SAT: one Boolean per compatible pair, ``compatible``; every router in one
    pair or alone, as many alone as cabinets of one router now) keeping the most cabinets as
    they are; the new pairs go into the cabinets they leave at the least price of their
    links (``scipy.optimize.linear_sum_assignment``). A layout without a cell over when the
    solver finds one; (routers moved, deterministic time, proved: no such matching exists),
    None when it does not apply."""
    n = search.graph.n
    if not applies(search):
        return None
    ok, alone_ok = compatible(search)
    full = np.flatnonzero(search.count == 2)
    mates = search.members[full, :2]
    singles = search.members[search.count == 1, 0]
    xs, ys = np.nonzero(np.triu(ok))
    if len(xs) > SPREAD_REMATCH_MAX_EDGES:
        return None
    m = cp_model.CpModel()
    edge = [m.NewBoolVar("") for _ in range(len(xs))]
    alone = {v: m.NewBoolVar("") for v in np.flatnonzero(alone_ok).tolist()}
    incident: list[list] = [[] for _ in range(n)]
    for e, (x, y) in enumerate(zip(xs.tolist(), ys.tolist())):
        incident[x].append(edge[e])
        incident[y].append(edge[e])
    for v in range(n):
        m.AddExactlyOne(incident[v] + ([alone[v]] if v in alone else []))
    m.Add(sum(alone.values()) == len(singles))
    now = {(int(min(a, b)), int(max(a, b))) for a, b in mates.tolist()}
    kept = [edge[e] for e, xy in enumerate(zip(xs.tolist(), ys.tolist())) if xy in now]
    kept += [alone[v] for v in singles.tolist() if v in alone]
    for e, xy in enumerate(zip(xs.tolist(), ys.tolist())):
        m.AddHint(edge[e], xy in now)
    m.Maximize(sum(kept))
    solver = _solver(seed)
    status = solver.Solve(m)
    det = solver.deterministic_time
    if status == cp_model.INFEASIBLE:
        return 0, det, True
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return 0, det, False
    units = [(x, y) for e, (x, y) in enumerate(zip(xs.tolist(), ys.tolist()))
             if solver.Value(edge[e])] + [(v,) for v, var in alone.items() if solver.Value(var)]
    before = {tuple(sorted(search.members[c, :search.count[c]].tolist())): c
              for c in np.flatnonzero(search.count).tolist()}
    moving = [u for u in units if u not in before]
    keep = {before[u] for u in units if u in before}
    free = np.array([c for c in sorted(before.values()) if c not in keep], np.int64)
    target = _place_units(search, moving, free)
    if target is None:
        return 0, det, False
    freed = np.array([v for u in moving for v in u], np.int64)
    order = np.argsort(freed, kind="stable")
    return _assign(search, freed[order], target[order]), det, False


def _place_units(search, units: list[tuple], free: np.ndarray) -> np.ndarray | None:
    """The cabinets of ``free`` for the new pairs (and routers alone), at the least price of
    their links with the other ends where they stand plus ``SPREAD_EXACT_TRAY_PRICE`` a
    router tray cable over (each router moved alone), within every cabinet and electrical
    group limit; per router of ``units`` in order, its cabinet (None: none fits)."""
    indptr, indices, data = search.csr
    cost = np.zeros((len(units), len(free)))
    fits = np.ones((len(units), len(free)), bool)
    trays = np.zeros((len(units), len(free)))
    for i, unit in enumerate(units):
        demand = search.cab_demand[list(unit)].sum(axis=0)
        fits[i] = np.all(demand <= search.cab_limit)
        for v in unit:
            sl = slice(indptr[v], indptr[v + 1])
            cost[i] += (data[sl][None, :] * search.price[search.klass[sl][None, :], free[:, None],
                                                         search.cab[indices[sl]][None, :]]
                        ).sum(axis=1)
            trays[i] += [search.tray_change(v, c) for c in free.tolist()]
    cost += SPREAD_EXACT_TRAY_PRICE * trays
    fits &= np.isfinite(cost)
    big = np.where(fits, cost, 0).sum() + 1.0
    rows, cols = linear_sum_assignment(np.where(fits, cost, big))
    if not fits[rows, cols].all():
        return None
    target = np.concatenate([np.full(len(units[r]), free[c], np.int64)
                             for r, c in zip(rows.tolist(), cols.tolist())])
    cab = search.cab.copy()
    freed = np.array([v for r in rows.tolist() for v in units[r]], np.int64)
    cab[freed] = target
    loads = np.zeros((int(search.group.max()) + 1, len(search.grp_limit)), np.int64)
    np.add.at(loads, search.group[cab], search.grp_demand)
    if (loads > search.grp_limit).any():
        return None
    out = dict(zip(freed.tolist(), target.tolist()))
    return np.array([out[v] for unit in units for v in unit], np.int64)


def exact_repair(search, near: np.ndarray, tray_cap: int | None = None, seed: int = 0
                 ) -> ExactRepair:
    """The cabinet cells still over after the local search, by ``rematch`` where a cabinet
    holds at most two routers (module doc); with trays, the cabinets it filled then exchange
    their routers with any cabinet where that lowers the router tray excess, and every
    cabinet with the ``near`` ones where that lowers ``SPREAD_CONTENT_TRAY_DOLLARS`` x the
    tray excess plus the price (``_trays_by_swapping_contents``, the cabinet excess kept).
    Kept only where the trays stay within what the search holds them to: no router over its
    tray cap, at most ``tray_cap`` tray cables over the limits (None: trays not limited);
    ``search``: ``spread._Search``, moved in place."""
    start = _total(search)
    before = search.cab.copy()
    matched = rematch(search, seed)
    moved, det, impossible = (0, 0.0, False) if matched is None else matched
    if moved and search.routes is not None:
        n, n_cab = search.graph.n, search.counts.shape[1]
        filled = np.unique(search.cab[search.cab != before])
        _trays_by_swapping_contents(search, filled, lambda c: range(n_cab),
                                    SPREAD_CONTENT_SWAPS_FILLED * n)
        _trays_by_swapping_contents(search, np.arange(n_cab), lambda c: near[c].tolist(),
                                    SPREAD_CONTENT_SWAPS_NEAR * n, SPREAD_CONTENT_TRAY_DOLLARS)
    trays = True
    if moved and not search.trays_within(tray_cap if tray_cap is not None else 1 << 62):
        _assign(search, np.arange(len(before)), before)
        moved, trays = 0, False
    return ExactRepair(applies=matched is not None, no_matching=impossible, moved=moved,
                       cables_over_before=start, cables_over_after=_total(search),
                       deterministic_time=round(det, 3), within_trays=trays)


def swap_contents(search, c: int, d: int) -> None:
    """Cabinets c and d exchange their routers (by the search's swaps and moves). A router's
    cables into a cabinet, and a group pair's cables with an end in it, depend only on which
    routers it holds: the cabinet excess stays what it was."""
    a = search.members[c, :search.count[c]].tolist()
    b = search.members[d, :search.count[d]].tolist()
    for x, y in zip(a, b):
        search.apply((x, y, d))
    for x in a[len(b):]:
        search.apply((x, -1, d))
    for y in b[len(a):]:
        search.apply((y, -1, c))


def _swap_change(search, c: int, d: int) -> tuple[int, float]:
    """(change of the router tray excess, ``_Search.OVER_CAP`` per cable over a router's tray
    cap; change of the price) if cabinets c and d exchanged their routers
    (``swap_contents``), the layout kept."""
    a = search.members[c, :search.count[c]].tolist()
    b = search.members[d, :search.count[d]].tolist()
    if len(a) != len(b):
        price = search.price_total()
        trays = search.tray_total()
        swap_contents(search, c, d)
        change = search.tray_total() - trays, search.price_total() - price
        swap_contents(search, c, d)
        return change
    trays, price = 0, 0.0
    for x, y in zip(a, b):
        trays += search.tray_swap_change(x, y, d)
        price += search.swap_price_change(x, y, d)
        search.apply((x, y, d))
    for x, y in zip(a, b):
        search.apply((y, x, d))
    return trays, price


def _trays_by_swapping_contents(search, cabinets: np.ndarray, targets, budget: int,
                                dollars: float | None = None) -> int:
    """Pass after pass over ``cabinets``, each exchanging its routers with those of the one of
    ``targets(c)`` that lowers most (first on ties) the router tray excess, cables over the
    caps first (``dollars`` None), or ``dollars`` x that excess plus the price (never adding
    a cable over a cap), while one does and within ``budget`` exchanges tried; the cabinet
    excess does not change (``swap_contents``). The exchanges made."""
    tried = made = 0
    improved = True
    while improved and tried < budget:
        improved = False
        for c in cabinets.tolist():
            best, where = -1e-6, -1
            for d in targets(c):
                if d == c or tried >= budget:
                    continue
                tried += 1
                trays, price = _swap_change(search, c, d)
                if dollars is not None and trays >= search.OVER_CAP:
                    continue
                key = trays if dollars is None else dollars * trays + price
                if key < best:
                    best, where = key, d
            if where >= 0:
                swap_contents(search, c, where)
                if (search.grp_load > search.grp_limit).any():
                    swap_contents(search, c, where)
                    continue
                made += 1
                improved = True
    return made


def _total(search) -> int:
    """Router and group-pair cables over the cabinet limits."""
    return search.excess() + int(search.pair_over().sum())


def _solver(seed: int) -> cp_model.CpSolver:
    """One worker, a fixed seed, a deterministic-time limit: the same answer on any machine."""
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    s.parameters.catch_sigint_signal = False  # Ctrl-C stops the plan, not just this solve
    s.parameters.random_seed = int(seed)
    s.parameters.max_deterministic_time = float(SPREAD_EXACT_DETERMINISTIC_TIME)
    return s


def _assign(search, freed: np.ndarray, target: np.ndarray) -> int:
    """Move the freed routers to their new cabinets by moves and swaps the search makes (a
    router joins a cabinet with a free member slot, else swaps with a member bound
    elsewhere); the routers moved."""
    goal = dict(zip(freed.tolist(), target.tolist()))
    slots = search.members.shape[1] - 1
    moved = sum(1 for v, c in goal.items() if search.cab[v] != c)
    for v in freed.tolist():
        while search.cab[v] != goal[v]:
            c = goal[v]
            if search.count[c] < slots:
                search.apply((v, -1, c))
                continue
            inside = search.members[c, :search.count[c]].tolist()
            u = next(w for w in sorted(inside) if goal.get(w, c) != c)
            search.apply((v, u, c))
    return moved
