"""θ after failure: what the network delivers when one failure group of the room fails, or k
random cables (issue 26, item 2).

For every group of a kind (``planner.performance.failure_groups``) and for
``tuning.FAIL_LINK_SAMPLES`` draws of k random network cables (seeded), the network minus the
failed routers, their endpoints and the cut cables is measured as the intact one is
(``planner.performance.stage``):

- connectivity: endpoints lost (in a failed cabinet or feed) and pairs of surviving endpoints
  cut off from each other (exact: connected components, ``scipy.sparse.csgraph``);
- hops: the average over ordered pairs of distinct endpoints within the part of the network
  holding the most surviving endpoints; exact (bit-parallel BFS,
  ``planner.topologies.metrics.endpoint_distance_sum``) when the kind's BFS work fits
  ``tuning.RESILIENCE_BFS_WORK_MAX``, else a lower bound: the intact distances between the
  surviving endpoints (a failure never shortens a path);
- uniform θ among the surviving endpoints, divided by the intact θ. 0 when surviving
  endpoints are cut off (all-to-all traffic cannot be delivered). The exact max concurrent
  flow LP (``throughput.exact_theta``) when every LP of the kind fits ``tuning.LP_NONZEROS_MAX``
  and together ``tuning.RESILIENCE_LP_NONZEROS_MAX``; otherwise the smallest of the same upper
  bounds as the intact network (path length, router, group and bisection cuts:
  ``planner.performance.theta``), labelled, beside ECMP minimal routing when the kind's ECMP
  work fits ``tuning.ECMP_WORK_MAX``. ``--resilience-exact`` solves the exact LP after every
  failure whatever these budgets (``exact_estimate`` gives the time it warns of).

Each kind reports the worst, 1st percentile and median of θ after failure / intact θ, names
the worst group and gives how its θ was obtained; ``per_group`` holds every group's values
(``planner.plan`` moves them out of summary.json onto the plan).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, shortest_path

from planner.performance import throughput as thr
from planner.performance import tuning
from planner.performance.failure_groups import FailureGroups, network_cable_links
from planner.performance.rounding import rounded
from planner.performance.theta import _group_cuts, _router_cuts
from planner.topologies.base import Topology
from planner.topologies.metrics import endpoint_distance_sum


@dataclass(frozen=True)
class Outcome:
    """One failure measured."""

    theta: float
    ecmp: float | None
    endpoints_lost: int
    pairs_cut: int
    hops: float | None


@dataclass(frozen=True)
class Modes:
    """How a kind's failures are measured (chosen once per kind, from its size)."""

    lp: bool
    ecmp: bool
    exact_hops: bool


class Intact:
    """The intact network and what every failure is measured against."""

    def __init__(self, top: Topology, side: np.ndarray, distance_sum: int):
        self.top = top
        self.arcs = thr.Arcs.of(top)
        self.side = np.asarray(side, bool)
        self.distance_sum = int(distance_sum)
        self._d0 = None

    @property
    def distances(self) -> np.ndarray:
        """Router-to-router hop counts of the intact network (int16; computed on first use)."""
        if self._d0 is None:
            r = self.top.num_routers
            d0 = np.empty((r, r), np.int16)
            d0e = np.empty(r)
            step = max(1, tuning.BATCH_ELEMENTS // max(r, 1))
            for start in range(0, r, step):
                part = shortest_path(self.top.adjacency, unweighted=True, directed=False,
                                     indices=np.arange(start, min(r, start + step)))
                part[~np.isfinite(part)] = 0           # a router without links or endpoints
                d0[start:start + step] = part
                d0e[start:start + step] = part @ self.top.endpoints
            self._d0, self._d0e = d0, np.rint(d0e).astype(np.int64)
        return self._d0

    def lower_distance_sum(self, kept: np.ndarray) -> int | None:
        """Σ over routers s, t of kept_s·kept_t·d0(s, t) (kept = the intact endpoints minus a
        few): the intact sum less what the removed endpoints ``y = e - kept`` took part in;
        None when the distance matrix is above ``tuning.DISTANCE_MATRIX_MAX``."""
        y = self.top.endpoints.astype(np.int64) - kept
        support = np.flatnonzero(y)
        if not len(support):                  # cables cut only: the intact sum bounds it
            return self.distance_sum
        if self.top.num_routers ** 2 > tuning.DISTANCE_MATRIX_MAX:
            return None
        d0 = self.distances
        ys = y[support]
        inner = int(ys @ d0[np.ix_(support, support)].astype(np.int64) @ ys)
        return int(self.distance_sum - 2 * int(ys @ self._d0e[support]) + inner)


def lp_nonzeros(top: Topology) -> int:
    """Constraint-matrix nonzeros of the intact network's max concurrent flow LP (an LP after
    a failure has at most as many)."""
    leaves = len(top.leaves())
    return 3 * leaves * 2 * len(top.links) + leaves * top.num_routers


def exact_estimate(top: Topology, failures: int) -> tuple[int, float]:
    """(LP nonzeros of ``failures`` exact LPs together, the seconds they take at about
    ``tuning.RESILIENCE_EXACT_S_PER_NONZERO``), for the ``--resilience-exact`` warning."""
    nonzeros = failures * lp_nonzeros(top)
    return nonzeros, nonzeros * tuning.RESILIENCE_EXACT_S_PER_NONZERO


def modes(intact: Intact, count: int, exact: bool = False) -> Modes:
    """Exact LP, ECMP and exact hops for a kind of ``count`` failures, if their budgets allow;
    ``exact`` (``--resilience-exact``): the exact LP whatever its size."""
    top, arcs = intact.top, intact.arcs
    leaves = len(top.leaves())
    nonzeros = 3 * leaves * len(arcs) + leaves * top.num_routers
    work = count * leaves * len(arcs)
    return Modes(lp=exact or (nonzeros <= tuning.LP_NONZEROS_MAX
                              and count * nonzeros <= tuning.RESILIENCE_LP_NONZEROS_MAX),
                 ecmp=work <= tuning.ECMP_WORK_MAX,
                 exact_hops=work <= tuning.RESILIENCE_BFS_WORK_MAX)


def reduced(top: Topology, dead: np.ndarray, links: np.ndarray, cut: np.ndarray,
            arcs: thr.Arcs) -> tuple[Topology, thr.Arcs]:
    """The topology without routers ``dead`` (their endpoints and cables) and with ``cut``
    cables fewer on ``links``, and its arcs (``arcs``, the intact ones, filtered: still sorted);
    routers keep their ids (a dead one has no links, no endpoints)."""
    down = np.zeros(top.num_routers, bool)
    down[dead] = True
    mult = top.multiplicity.copy()
    np.subtract.at(mult, links, cut)
    alive = (mult > 0) & ~down[top.links[:, 0]] & ~down[top.links[:, 1]]
    endpoints = np.where(down, 0, top.endpoints)
    keep = alive[arcs.link]
    renumber = np.cumsum(alive) - 1
    after_arcs = thr.Arcs(arcs.num_routers, arcs.tail[keep], arcs.head[keep],
                          mult[arcs.link[keep]].astype(float), renumber[arcs.link[keep]])
    return (replace(top, links=top.links[alive], multiplicity=mult[alive], endpoints=endpoints,
                    extra={}), after_arcs)


def _adjacency(arcs: thr.Arcs) -> sp.csr_matrix:
    """The arcs as a router x router matrix (they are sorted by tail: compressed rows as is)."""
    indptr = np.searchsorted(arcs.tail, np.arange(arcs.num_routers + 1))
    return sp.csr_matrix((np.ones(len(arcs), np.int8), arcs.head, indptr),
                         shape=(arcs.num_routers, arcs.num_routers))


def measure(intact: Intact, dead: np.ndarray, links: np.ndarray, cut: np.ndarray,
            mode: Modes) -> Outcome:
    """Connectivity, hops and uniform θ of the network after one failure (module doc)."""
    top = intact.top
    after, arcs = reduced(top, dead, links, cut, intact.arcs)
    e = after.endpoints.astype(np.int64)
    n = int(e.sum())
    lost = top.num_endpoints - n
    parts, label = connected_components(_adjacency(arcs), directed=False)
    per_part = np.bincount(label, weights=e, minlength=parts).astype(np.int64)
    pairs_cut = int((n * n - int(per_part @ per_part)) // 2)
    main = int(np.argmax(per_part))
    kept = np.where(label == main, e, 0)
    m = int(kept.sum())
    hops_sum = _distance_sum(intact, after, kept, mode.exact_hops)
    hops = None if hops_sum is None else hops_sum / (m * (m - 1)) if m > 1 else 0.0
    if pairs_cut:
        return Outcome(0.0, 0.0 if mode.ecmp else None, lost, pairs_cut, hops)
    if n < 2 or len(after.leaves()) < 2:
        return Outcome(1.0, 1.0, lost, 0, hops)
    demand = thr.uniform_demand(e) if (mode.lp or mode.ecmp) else None
    if mode.lp:
        theta = thr.exact_theta(arcs, demand)
        return Outcome(theta, None, lost, 0, hops)
    path = (float("inf") if hops_sum is None else
            thr.path_length_bound(float(arcs.capacity.sum()), hops_sum / (n - 1)))
    upper = min(path, _router_cuts(after), _group_cuts(after, arcs),
                thr.cut_bound(arcs, e, intact.side), 1.0)
    ecmp = thr.ecmp_theta(arcs, demand) if mode.ecmp else None
    return Outcome(upper, ecmp, lost, 0, hops)


def _distance_sum(intact: Intact, after: Topology, kept: np.ndarray,
                  exact: bool) -> int | None:
    """Σ e_s·e_t·d(s, t) over the routers of ``kept``'s part: exact (BFS on the reduced
    network), the intact distances' lower bound, or None (neither fits its budget)."""
    if exact:
        return int(endpoint_distance_sum(replace(after, endpoints=kept))[1])
    return intact.lower_distance_sum(kept)


def link_samples(top: Topology, k: int, samples: int, seed: int) -> FailureGroups:
    """``samples`` draws of ``k`` distinct network cables, seeded, as failure groups."""
    cable_link = network_cable_links(top.multiplicity)
    rng = np.random.default_rng([tuning.FAIL_LINK_SEED, seed])
    rows = np.repeat(np.arange(samples), k)
    picks = np.concatenate([rng.choice(len(cable_link), size=k, replace=False)
                            for _ in range(samples)]) if k else np.zeros(0, np.int64)
    cables = sp.csr_matrix((np.ones(len(picks), np.int64), (rows, cable_link[picks])),
                           shape=(samples, len(top.links)))
    cables.sum_duplicates()
    names = tuple(f"sample {i + 1}" for i in range(samples))
    return FailureGroups("links", names, sp.csr_matrix((samples, top.num_routers), dtype=bool),
                         cables)


def assess_kind(intact: Intact, groups: FailureGroups, intact_theta: float,
                intact_kind: str, rate: float, exact: bool = False) -> dict:
    """The block of one kind: distribution of θ after failure / intact θ, the worst group,
    hops and connectivity, and how θ was obtained (``exact``: the LP whatever the budget)."""
    started = time.perf_counter()
    mode = modes(intact, len(groups), exact)
    results = [measure(intact, *groups.failure(i), mode) for i in range(len(groups))]
    theta = np.array([o.theta for o in results])
    ratio = theta / intact_theta if intact_theta else np.zeros_like(theta)
    order = np.lexsort((np.arange(len(results)), -np.array([o.pairs_cut for o in results]),
                        ratio))
    worst = int(order[0])
    w = results[worst]
    ecmp = [o.ecmp for o in results]
    kind = ("exact" if mode.lp else
            "exact" if all(o.ecmp is not None and o.ecmp >= o.theta - 1e-9 for o in results)
            else "upper bound")
    return {
        "groups": len(groups),
        "theta_kind": kind,
        "method": _method(mode, kind, intact_kind),
        "hops_kind": ("exact" if mode.exact_hops else "lower bound"
                      if intact.top.num_routers ** 2 <= tuning.DISTANCE_MATRIX_MAX
                      else "not computed"),
        "theta_ratio": _spread(ratio),
        "theta": _spread(theta),
        "ecmp_minimal": _spread(np.array(ecmp, float)) if mode.ecmp else None,
        "worst": {"name": groups.names[worst], "theta": rounded(w.theta),
                  "theta_ratio": rounded(float(ratio[worst])),
                  "endpoints_lost": w.endpoints_lost, "pairs_cut": w.pairs_cut,
                  "hops": rounded(w.hops),
                  "delivered_tbps": rounded(w.theta * (intact.top.num_endpoints
                                                       - w.endpoints_lost) * rate / 1000, 6)},
        "disconnecting": int(sum(o.pairs_cut > 0 for o in results)),
        "pairs_cut_max": int(max((o.pairs_cut for o in results), default=0)),
        "endpoints_lost_max": int(max((o.endpoints_lost for o in results), default=0)),
        "hops": _hops(results),
        "runtime_s": round(time.perf_counter() - started, 3),
        "per_group": per_group(groups, results, ratio),
    }


def per_group(groups: FailureGroups, results: list[Outcome], ratio: np.ndarray) -> dict:
    """Every group's outcome, in group order (the viewer colours cabinets and tray segments
    by them; ``planner.plan`` keeps them on the plan, out of summary.json)."""
    return {"names": groups.names,
            "theta_ratio": np.array([rounded(float(r)) for r in ratio], float),
            "theta": np.array([rounded(o.theta) for o in results], float),
            "endpoints_lost": np.array([o.endpoints_lost for o in results], np.int64),
            "pairs_cut": np.array([o.pairs_cut for o in results], np.int64)}


def _hops(results: list[Outcome]) -> dict:
    hops = [o.hops for o in results if o.hops is not None]
    if not hops:
        return {"median": None, "worst": None}
    return {"median": rounded(float(np.median(hops))), "worst": rounded(max(hops))}


def _spread(values: np.ndarray) -> dict:
    """Worst (smallest), 1st percentile and median, taken from the values themselves."""
    if not len(values):
        return {"worst": None, "p1": None, "median": None}
    return {"worst": rounded(float(values.min())),
            "p1": rounded(float(np.percentile(values, 1, method="lower"))),
            "median": rounded(float(np.percentile(values, 50, method="lower")))}


def _method(mode: Modes, kind: str, intact_kind: str) -> str:
    if mode.lp:
        how = "max concurrent flow LP (HiGHS) per failure"
    elif kind == "exact":
        how = "ECMP minimal routing reaches the smallest upper bound in every failure"
    else:
        how = ("smallest of the path-length, router, group and bisection cut bounds (the LPs "
               f"are above the budget of {tuning.RESILIENCE_LP_NONZEROS_MAX:,} nonzeros)")
    return f"{how}; divided by the intact θ ({intact_kind})"


def assess(top: Topology, side: np.ndarray, distance_sum: int, uniform: dict,
           groups: dict[str, FailureGroups], skipped: dict[str, str], fail_links: int,
           seed: int, rate: float, exact: bool = False) -> dict:
    """The ``resilience`` block of summary.json; ``rate``: the port rate in Gb/s (the worst
    group's delivered Tb/s: θ x surviving endpoints x rate); ``exact``
    (``--resilience-exact``): the exact LP after every failure whatever the budget."""
    intact = Intact(top, side, distance_sum)
    theta0 = uniform.get("theta") or 0.0
    skipped = dict(skipped)
    skipped.update({kind: "the plan has none" for kind, g in groups.items()
                    if kind not in skipped and not len(g)})
    kinds = {kind: assess_kind(intact, g, theta0, uniform.get("kind", ""), rate, exact)
             for kind, g in groups.items() if kind not in skipped}
    if fail_links and not len(top.links):
        skipped["links"] = "the plan has no network cables"
    elif fail_links:
        sampled = link_samples(top, fail_links, tuning.FAIL_LINK_SAMPLES, seed)
        kinds["links"] = assess_kind(intact, sampled, theta0, uniform.get("kind", ""), rate,
                                     exact)
        kinds["links"]["k"] = int(fail_links)
    return {"groups": {kind: len(g) for kind, g in groups.items()},
            "intact_theta": uniform.get("theta"), "intact_kind": uniform.get("kind"),
            "kinds": kinds, "not_derived": skipped,
            "over": "θ after failure among the surviving endpoints / intact θ; 0 when "
                    "surviving endpoints are cut off from each other"}


def not_per_plane(groups: dict[str, FailureGroups], fail_links: int) -> dict:
    """The block of a topology of several planes: its groups counted, none measured (the
    stage measures one plane; a cabinet or tray may hold several planes' routers and cables)."""
    why = "the topology has several planes; failures are not measured on it yet"
    kinds = list(groups) + (["links"] if fail_links else [])
    return {"groups": {kind: len(g) for kind, g in groups.items()}, "intact_theta": None,
            "intact_kind": None, "kinds": {}, "not_derived": {kind: why for kind in kinds},
            "over": "not measured"}


def text_lines(block: dict) -> list[tuple[str, str]]:
    """The ``resilience`` block in words, one line per kind (``planner plan`` output, the
    ``wiring.pdf`` cover): worst group, its θ against the intact one, 1st percentile, median."""
    lines = []
    for kind, k in block.get("kinds", {}).items():
        w, ratio = k["worst"], k["theta_ratio"]
        what = (f"{k['k']} random cables x {k['groups']} draws" if kind == "links"
                else f"{k['groups']:,} {kind} groups")
        bound = "" if k["theta_kind"] == "exact" else " (upper bounds)"
        cut = (f", {w['pairs_cut']:,} endpoint pairs cut off" if w["pairs_cut"] else "")
        lost = f", {w['endpoints_lost']:,} endpoints lost" if w["endpoints_lost"] else ""
        lines.append(("after random cable failures" if kind == "links" else
                      f"after {kind} failure",
                      f"{what}: worst {w['name']} keeps θ {ratio['worst']:.3f} of intact{cut}"
                      f"{lost}; 1st percentile {ratio['p1']:.3f}, median {ratio['median']:.3f}"
                      f"{bound}"))
    for kind, why in block.get("not_derived", {}).items():
        lines.append(("after random cable failures" if kind == "links" else
                      f"after {kind} failure", f"not measured: {why}"))
    return lines
