"""Drain steps of a growth: the touched standing cables split into steps so that, while a step's
cables are down, the standing routers stay connected and keep a stated share of the standing
system's θ (its uniform saturation throughput), issue 25, item 3.

A unit is what an installer cannot split: a removed standing cable, or a moved one together
with its grown place; a unit whose grown cable takes a port another touched cable holds is
merged with that cable's unit (they come down in the same step). Units are taken in walking
order, each router's first touched cable before any router's second (so a step spreads over
the routers), and a step takes the longest run of units for which the standing network during
the step keeps ``keep`` x its θ (binary search over the run's length; one unit when even one
is below: the step is then flagged).

The network during step k, on every router of the grown system (the new ones carry no standing
endpoints but forward their traffic): the kept cables, the touched cables of later steps where
they stood, and the grown cables of earlier steps (a step's own grown cables are not counted,
as if plugged at its very end). An added cable goes to the step after which every port it
takes is free (step 1 when none is held). θ is that of uniform traffic among the standing
endpoints that survive; the standing θ is theirs on the standing cables alone.

The share is θ during the step over θ of the network that stands when the step begins (the
standing system for step 1): a growth that dilutes the standing routers' links (a Dragonfly's
group pairs keep fewer direct cables) ends below the standing system's θ by its design, so the
share a step keeps is of what stood just before it. Both θ with the same engine of
``planner.performance.throughput``: the exact max concurrent flow LP when its size on the
standing and grown cables together fits ``tuning.LP_NONZEROS_MAX``; else the θ of a routing that mixes per-hop ECMP minimal routing
with Valiant's (``valiant_mix_theta``, a lower bound on the optimum, the same routing before
and during the step) when routers x arcs fits ``tuning.ECMP_WORK_MAX``; above both, no θ: a
step keeps at least ``keep`` of every standing router's network cables up (the share of each
router's cut bound, ``theta._router_cuts``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from planner.performance import throughput as thr
from planner.performance import tuning

DEFAULT_KEEP = 0.75
"""Share of the standing θ each drain step keeps unless ``--keep-theta`` says otherwise: a
quarter of the capacity down at a time, the margin a production fabric is commonly drained
with (Zhang et al., NSDI'19, drain a quarter of a block's links per step)."""


@dataclass(frozen=True)
class Drain:
    """Step (1..) of every standing cable (0 when kept) and of every grown cable (0 when
    kept), and per step θ before it and while its cables are down (None: not computed), the
    share kept and whether it meets ``keep``."""

    keep: float
    engine: str
    theta_standing: float | None
    old_step: np.ndarray
    new_step: np.ndarray
    share: list
    meets: list
    before: list
    during: list

    @property
    def count(self) -> int:
        return len(self.share)


def _arcs(n: int, u: np.ndarray, v: np.ndarray) -> thr.Arcs:
    """Arcs of the router graph with one unit of capacity per cable (``thr.Arcs.of``)."""
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    pairs, count = np.unique(np.stack([lo, hi], axis=1).reshape(-1, 2), axis=0,
                             return_counts=True)
    tail = np.concatenate([pairs[:, 0], pairs[:, 1]])
    head = np.concatenate([pairs[:, 1], pairs[:, 0]])
    order = np.lexsort((head, tail))
    return thr.Arcs(n, tail[order], head[order],
                    np.concatenate([count, count]).astype(float)[order],
                    np.tile(np.arange(len(pairs)), 2)[order])


def valiant_mix_theta(arcs: thr.Arcs, endpoints: np.ndarray) -> float:
    """θ of uniform traffic routed partly minimally (per-hop ECMP) and partly by Valiant's
    two-phase routing through a uniformly random router (Valiant & Brebner, STOC'81; the
    Dragonfly's VAL, Kim et al., ISCA'08), with the best split of the two over a grid of
    101: a routing that exists, so a lower bound on the optimal θ; at most 1."""
    demand = thr.uniform_demand(endpoints)
    r = arcs.num_routers
    direct = thr.ecmp_loads(arcs, demand)
    out = np.asarray(demand.sum(axis=1)).ravel()
    inward = np.asarray(demand.sum(axis=0)).ravel()
    via = thr.ecmp_loads(arcs, sp.csr_matrix(np.outer(out, np.ones(r)) / r)) + thr.ecmp_loads(
        arcs, sp.csr_matrix(np.outer(np.ones(r), inward) / r))
    mix = np.linspace(0.0, 1.0, 101)[:, None]
    worst = ((mix * direct + (1 - mix) * via) / arcs.capacity).max(axis=1)
    best = float(worst.min()) if len(arcs) else 0.0
    return 1.0 if best <= 1.0 else 1.0 / best


class _Meter:
    """θ of uniform traffic among the standing endpoints on a given set of cables, with the
    engine the network's size allows (module doc)."""

    def __init__(self, n: int, endpoints: np.ndarray, u: np.ndarray, v: np.ndarray,
                 arcs_max: int):
        """``u``, ``v``: the standing cables; ``arcs_max``: arcs of the largest network
        measured (standing and grown cables together), which the budgets are checked on."""
        self.n, self.endpoints = n, np.asarray(endpoints, float)
        self.demand = thr.uniform_demand(self.endpoints)
        self._seen: dict = {}
        leaves = int((self.endpoints > 0).sum())
        if 3 * leaves * arcs_max + leaves * n <= tuning.LP_NONZEROS_MAX:
            self.engine = "exact max concurrent flow LP (HiGHS)"
        elif n * arcs_max <= tuning.ECMP_WORK_MAX:
            self.engine = "minimal (ECMP) and Valiant routing mixed: a lower bound"
        else:
            self.engine = None
        self.base = self.theta(u, v) if self.engine else None

    def connected(self, u: np.ndarray, v: np.ndarray) -> bool:
        graph = sp.coo_matrix((np.ones(len(u)), (u, v)), shape=(self.n, self.n))
        _, label = connected_components(graph, directed=False)
        return len(np.unique(label[self.endpoints > 0])) <= 1

    def theta(self, u: np.ndarray, v: np.ndarray) -> float:
        """θ of the network of cables (u, v); once per distinct network (a unit whose cables
        end at removed routers or endpoints does not change it)."""
        arcs = _arcs(self.n, u, v)
        key = (arcs.tail.tobytes(), arcs.head.tobytes(), arcs.capacity.tobytes())
        if key not in self._seen:
            self._seen[key] = self._measure(u, v, arcs)
        return self._seen[key]

    def _measure(self, u: np.ndarray, v: np.ndarray, arcs: thr.Arcs) -> float:
        if not self.connected(u, v):
            return 0.0
        if self.engine.startswith("exact"):
            return thr.exact_theta(arcs, self.demand)
        return valiant_mix_theta(arcs, self.endpoints)


def _units(old_touched: np.ndarray, new_source: np.ndarray,
           new_blockers: np.ndarray) -> np.ndarray:
    """Unit (a representative standing cable) of every standing cable: union of a moved
    cable with the cables holding its grown ports."""
    parent = np.arange(len(old_touched))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for j in np.flatnonzero(new_source >= 0).tolist():
        i = int(new_source[j])
        for b in new_blockers[j].tolist():
            if b >= 0 and b != i:
                ri, rb = find(i), find(b)
                parent[max(ri, rb)] = min(ri, rb)
    return np.array([find(i) for i in range(len(old_touched))], dtype=np.int64)


def _spread_order(unit_ids: np.ndarray, old_u: np.ndarray, old_v: np.ndarray,
                  walk: np.ndarray) -> list[np.ndarray]:
    """The units (each an array of standing cables), in walking order, each router's k-th
    touched unit after every router's (k-1)-th."""
    members: dict[int, list[int]] = {}
    for i in walk.tolist():
        members.setdefault(int(unit_ids[i]), []).append(i)
    seen: dict[int, int] = {}
    keyed = []
    for k, cables in enumerate(members.values()):
        routers = {int(x) for i in cables for x in (old_u[i], old_v[i]) if x >= 0}
        rank = max((seen.get(r, 0) for r in routers), default=0)
        for r in routers:
            seen[r] = seen.get(r, 0) + 1
        keyed.append((rank, k, np.array(cables, dtype=np.int64)))
    keyed.sort(key=lambda t: (t[0], t[1]))
    return [c for _, _, c in keyed]


def _longest_run(share_with, count: int, keep: float) -> tuple[int, float]:
    """(the longest run of the next ``count`` units whose share is >= ``keep``, by binary
    search, at least 1; its share)."""
    best, best_share = 1, share_with(1)
    lo, hi = 2, count
    if best_share < keep - 1e-9:
        return best, best_share
    while lo <= hi:
        mid = (lo + hi) // 2
        share = share_with(mid)
        if share >= keep - 1e-9:
            best, best_share, lo = mid, share, mid + 1
        else:
            hi = mid - 1
    return best, best_share


def _place_grown(new_step: np.ndarray, new_action: np.ndarray, new_source: np.ndarray,
                 new_blockers: np.ndarray, old_step: np.ndarray, step: int) -> None:
    """Put in ``step`` every grown cable not kept whose standing cable and port holders all
    have a step now (an added cable with none in step 1)."""
    for j in np.flatnonzero((new_action != "keep") & (new_step == 0)).tolist():
        holders = [int(b) for b in new_blockers[j].tolist() if b >= 0]
        if new_source[j] >= 0:
            holders.append(int(new_source[j]))
        if all(old_step[h] > 0 for h in holders):
            new_step[j] = max([step] + [int(old_step[h]) for h in holders]) if holders else 1


def drain(n: int, endpoints: np.ndarray, old_u: np.ndarray, old_v: np.ndarray,
          old_action: np.ndarray, walk: np.ndarray, new_u: np.ndarray, new_v: np.ndarray,
          new_action: np.ndarray, new_source: np.ndarray, new_blockers: np.ndarray,
          keep: float) -> Drain:
    """The drain steps (module doc).

    ``n`` routers of the grown system with the ``endpoints`` of the standing ones (0 on new
    routers); standing cables (router ids ``old_u``, ``old_v``, -1 for an endpoint or a
    removed router; ``old_action`` keep | move | remove) and ``walk``, the touched ones in
    walking order; grown cables (``new_u``,
    ``new_v``, ids >= n for new routers, -1 for endpoints; ``new_action`` keep | move | add;
    ``new_source`` its standing cable; ``new_blockers`` (2 per grown cable) the touched standing
    cables holding its ports, -1 none)."""
    old_u, old_v = np.asarray(old_u, np.int64), np.asarray(old_v, np.int64)
    new_u, new_v = np.asarray(new_u, np.int64), np.asarray(new_v, np.int64)
    touched = old_action != "keep"
    standing_net = (old_u >= 0) & (old_v >= 0)
    grown_net = (new_u >= 0) & (new_v >= 0)
    kept_edges = standing_net & ~touched
    union = _arcs(n, np.r_[old_u[standing_net], new_u[grown_net]],
                  np.r_[old_v[standing_net], new_v[grown_net]])
    meter = _Meter(n, endpoints, old_u[standing_net], old_v[standing_net], len(union))
    units = _spread_order(_units(touched, new_source, new_blockers), old_u, old_v,
                          np.asarray(walk, np.int64))
    old_step = np.zeros(len(old_u), dtype=np.int64)
    new_step = np.zeros(len(new_u), dtype=np.int64)
    pending = touched.copy()                          # touched, not yet in a step
    shares, meets, thetas = [], [], []
    degree = np.bincount(np.r_[old_u[standing_net], old_v[standing_net]], minlength=n)
    step = 0
    start = 0
    while start < len(units):
        step += 1
        placed = (new_step > 0) & grown_net

        def down(length: int) -> np.ndarray:
            cut = pending.copy()
            for unit in units[start:start + length]:
                cut[unit] = False
            return cut

        def cables(length: int, during: bool = True) -> tuple[np.ndarray, np.ndarray]:
            standing = standing_net & (kept_edges | (down(length) if during else pending))
            return (np.r_[old_u[standing], new_u[placed]], np.r_[old_v[standing], new_v[placed]])

        before = meter.theta(*cables(0, during=False)) if meter.engine else None

        def share_with(length: int) -> float:
            u, v = cables(length)
            if meter.engine is None:
                up = np.bincount(np.r_[u, v], minlength=n)
                return float(np.min(np.where(degree > 0, up / np.maximum(degree, 1), 1.0)))
            return meter.theta(u, v) / before if before else 0.0

        best, best_share = _longest_run(share_with, len(units) - start, keep)
        for unit in units[start:start + best]:
            old_step[unit] = step
            pending[unit] = False
        start += best
        shares.append(best_share)
        thetas.append((before, None if before is None else best_share * before))
        meets.append(bool(best_share >= keep - 1e-9))
        _place_grown(new_step, new_action, new_source, new_blockers, old_step, step)
    new_step[(new_action != "keep") & (new_step == 0)] = max(step, 1)
    if not len(units) and (new_action != "keep").any():
        shares, meets, thetas = [1.0], [True], [(meter.base, meter.base)]
    return Drain(keep=keep, engine=meter.engine or "share of each router's network cables up "
                                                  "(θ above the LP and ECMP budgets)",
                 theta_standing=meter.base, old_step=old_step, new_step=new_step,
                 share=shares, meets=meets, before=[t[0] for t in thetas],
                 during=[t[1] for t in thetas])
