"""The performance stage: hops, zero-load latency, bisection and saturation throughput of a plan.

Runs after cabling (``planner.plan``), from the topology, the cables' lengths and latencies
and the router model; its value is the ``performance`` block of ``summary.json``:

- ``hops``: router-to-router links on a shortest path, averaged over all ordered pairs of
  distinct endpoints (pairs on one router count 0), and the diameter between routers with
  endpoints; exact (bit-parallel BFS, ``planner.topologies.metrics``).
- ``latency_ns``: zero-load head latency of a packet from one endpoint's NIC to another's:
  both endpoint cables, one router delay per router traversed (hops + 1) and the router-router
  cables of the lowest-latency shortest (minimal-hop) path; no queueing, no serialisation.
  Averaged over endpoint pairs, and the worst pair. Exact over all source routers up to
  ``throughput.ECMP_WORK_MAX``; above it over a seeded sample of source routers, said so.
- ``bisection``: cables across the best endpoint-balanced cut a partitioner finds (KaMinPar),
  which bounds the minimum bisection from above, with the best lower bound known (spectral
  for a direct network, from the uniform flow otherwise); "exact" when they meet.
- ``uniform``: saturation throughput θ under uniform all-to-all traffic (``planner.performance.throughput``):
  the exact max concurrent flow LP when it fits ``throughput.LP_NONZEROS_MAX``, else the
  smallest of the path-length and cut upper bounds, labelled as a bound, beside the θ per-hop
  ECMP minimal routing delivers (a lower bound) when it fits ``throughput.ECMP_WORK_MAX``.
- ``worst_case``: the family's published adversarial pattern (``planner.performance.traffic``), with the θ of
  ECMP minimal routing and of optimal routing (LP) on this network, and the paper's formula.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from planner.performance import throughput as thr
from planner.performance import traffic
from planner.run.errors import InputError
from planner.topologies.base import Topology
from planner.topologies.metrics import endpoint_distance_sum

DEFAULT_ROUTER_LATENCY_NS = 150.0
"""Router (switch) delay used when neither the catalog's router model nor ``--router-latency-ns``
gives one: the order of a current cut-through HPC switch ASIC (NVIDIA states 130 ns port to port
for HDR InfiniBand Quantum switches); Ethernet data-centre switches are slower (300-600 ns)."""

MAX_ROUTER_LATENCY_NS = 100_000.0
"""A router delay above 100 µs is not a switch; rejected as a typo."""

SPECTRAL_ROUTERS_MAX = 1_000
"""Largest router count for the spectral bisection bound (an eigen-solve: 2.4 s at 1,386 routers
on a loaded machine); above it the flow bound stands alone."""

LATENCY_SAMPLE_SEED = 0
"""Seed of the source-router sample for the latency of plans above ``ECMP_WORK_MAX``."""


def check_router_latency(value, where: str) -> float:
    """``value`` as a router delay in ns, or InputError naming ``where``."""
    try:
        ns = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where} must be a number of nanoseconds, got {value!r}") from None
    if not (math.isfinite(ns) and 0 <= ns <= MAX_ROUTER_LATENCY_NS):
        raise InputError(f"{where} must be between 0 and {MAX_ROUTER_LATENCY_NS:,.0f} ns (a "
                         f"switch's port-to-port delay, typically 100-1,000 ns), got {value!r}")
    return ns


def router_latency(router_model, override: float | None) -> tuple[float, str]:
    """(router delay in ns, where it comes from)."""
    if override is not None:
        return check_router_latency(override, "--router-latency-ns"), "--router-latency-ns"
    if router_model.latency_ns is not None:
        where = f"catalog router '{router_model.sku}': field 'latency_ns'"
        return check_router_latency(router_model.latency_ns, where), \
            f"catalog ({router_model.sku} latency_ns)"
    return DEFAULT_ROUTER_LATENCY_NS, (f"default {DEFAULT_ROUTER_LATENCY_NS:g} ns (the catalog "
                                       f"gives no latency_ns for {router_model.sku})")


def _round(x: float | None, digits: int = 6):
    if x is None or not math.isfinite(x):
        return None
    return round(float(x), digits)


# ------------------------------------------------------------------------------- latency

def link_latency_ns(top: Topology, cables: pd.DataFrame, slowest: bool = False) -> np.ndarray:
    """Per topology link (u < v), the latency of its fastest (or ``slowest``) cable; 0 where
    no cable is planned."""
    net = cables[cables["kind"] == "network"]
    a = net["a_router"].to_numpy(np.int64)
    b = net["b_router"].to_numpy(np.int64)
    key = np.minimum(a, b) * top.num_routers + np.maximum(a, b)
    link_key = top.links[:, 0] * top.num_routers + top.links[:, 1]
    out = np.full(len(link_key), -np.inf if slowest else np.inf)
    idx = np.searchsorted(link_key, key)
    ok = (idx < len(link_key)) & (link_key[np.minimum(idx, max(len(link_key) - 1, 0))] == key)
    (np.maximum if slowest else np.minimum).at(out, idx[ok],
                                               net["latency_ns"].to_numpy(float)[ok])
    return np.where(np.isfinite(out), out, 0.0)


def _endpoint_latency(top: Topology, cables: pd.DataFrame) -> tuple[float, np.ndarray,
                                                                    np.ndarray, bool]:
    """(mean endpoint-cable latency, slowest and second slowest per router, cables planned)."""
    ep = cables[cables["kind"] == "endpoint"]
    r = top.num_routers
    first, second = np.zeros(r), np.zeros(r)
    if not len(ep):
        return 0.0, first, second, False
    router = ep["a_router"].to_numpy(np.int64)
    lat = ep["latency_ns"].to_numpy(float)
    order = np.lexsort((-lat, router))
    router, lat = router[order], lat[order]
    starts = np.flatnonzero(np.r_[True, router[1:] != router[:-1]])
    first[router[starts]] = lat[starts]
    two = starts[(starts + 1 < len(router))]
    two = two[router[np.minimum(two + 1, len(router) - 1)] == router[two]]
    second[router[two]] = lat[two + 1]
    return float(np.mean(ep["latency_ns"])), first, second, True


def _path_latencies(arcs: thr.Arcs, weight: np.ndarray, sources: np.ndarray):
    """For each source (rows) and router: hop distance and the latency of the lowest-latency
    minimal-hop path (sum of ``weight`` over its arcs), level by level over BFS layers."""
    by_head = np.lexsort((arcs.tail, arcs.head))
    tail, head, w = arcs.tail[by_head], arcs.head[by_head], weight[by_head]
    r = arcs.num_routers
    starts = np.searchsorted(head, np.arange(r))
    has = np.diff(np.r_[starts, len(head)]) > 0
    dist = thr.distances_to(arcs, sources)                       # (S, R); symmetric graph
    at_tail, at_head = dist[:, tail], dist[:, head]
    lat = np.where(dist == 0, 0.0, np.inf)
    for level in range(1, int(dist.max(initial=0)) + 1):
        ok = (at_head == level) & (at_tail == level - 1)
        cand = np.where(ok, lat[:, tail] + w[None, :], np.inf)
        best = np.minimum.reduceat(cand, starts[has], axis=1)
        lat[:, has] = np.where(dist[:, has] == level, best, lat[:, has])
    return dist.astype(np.int32), lat


def latency(top: Topology, cables: pd.DataFrame, router_ns: float) -> dict:
    """The ``latency_ns`` block (see the module docstring)."""
    arcs = thr.Arcs.of(top)
    weight = link_latency_ns(top, cables)[arcs.link]
    ep_mean, ep_first, ep_second, planned = _endpoint_latency(top, cables)
    e = top.endpoints.astype(float)
    n = e.sum()
    leaves = top.leaves()
    work = len(leaves) * max(len(arcs), 1)
    if work <= thr.ECMP_WORK_MAX:
        sources, method = leaves, "exact: every source router"
    else:
        count = max(1, thr.ECMP_WORK_MAX // max(len(arcs), 1))
        rng = np.random.default_rng(LATENCY_SAMPLE_SEED)
        sources = np.sort(rng.choice(leaves, size=min(count, len(leaves)), replace=False))
        method = (f"sampled: {len(sources):,} of {len(leaves):,} source routers (seed "
                  f"{LATENCY_SAMPLE_SEED}), exact paths from each")
    total = worst = 0.0
    weight_sum = 0.0
    for part in thr.batches(len(sources), max(len(arcs), top.num_routers)):
        src = sources[part]
        dist, path = _path_latencies(arcs, weight, src)
        pair = np.where(dist > 0, path + router_ns * dist, 0.0)       # router-router part
        w = e[src][:, None] * e[None, :]
        w[np.arange(len(src)), src] = 0.0
        total += float((w * pair).sum())
        weight_sum += float(w.sum())
        reach = (dist > 0) & (e[None, :] > 0)
        far = np.where(reach, pair + ep_first[None, :], -np.inf).max(axis=1, initial=-np.inf)
        far = far + ep_first[src]
        same = np.where(e[src] >= 2, ep_first[src] + ep_second[src], -np.inf)
        worst = max(worst, float(np.max(np.maximum(far, same), initial=0.0)))
    pairs = n * (n - 1)
    if pairs <= 0:
        return {"average": None, "max": None, "router_ns": router_ns, "endpoint_cables": planned,
                "method": method}
    # Σ over ordered endpoint pairs: both endpoint cables (2·(N-1)·Σ ep), one router more than
    # hops, and the router-router part, scaled from the sampled sources' share of the pairs
    all_weight = n * n - float((e * e).sum())
    routed = total * all_weight / weight_sum if weight_sum else 0.0
    average = 2 * ep_mean + router_ns + routed / pairs
    return {"average": _round(average, 3), "max": _round(worst + router_ns, 3),
            "router_ns": router_ns, "endpoint_cables": planned,
            "method": method,
            "path": "lowest-latency minimal-hop path; endpoint cables + (hops + 1) router "
                    "delays + router-router cables; no queueing or serialisation"}


# ------------------------------------------------------------------------------- bisection

def bisection_cut(top: Topology, seed: int = 0) -> np.ndarray:
    """Side (bool per router) of an endpoint-balanced two-way cut with few cables: KaMinPar with
    block capacity ⌈N/2⌉ over endpoint weights (routers without endpoints go either way)."""
    from planner.placement.graph import Graph
    from planner.placement.partition import KaMinParRunner

    weights = top.endpoints.astype(np.int64)
    n = int(weights.sum())
    if top.num_routers < 2 or n < 2 or len(top.links) == 0:
        return np.zeros(top.num_routers, bool)
    part = KaMinParRunner(Graph.from_topology(top), weights).run(seed, 2, (n + 1) // 2)
    return part == 0


def _non_blocking_fat_tree(top: Topology) -> bool:
    """A fat tree with even k and at most k/2 endpoints per edge router (every router has as
    many up-links as down-links: rearrangeably non-blocking, Al-Fares et al. SIGCOMM'08)."""
    k = top.params.get("k")
    if top.family != "fattree" or not isinstance(k, int) or k % 2:
        return False
    return int(top.endpoints.max()) <= k // 2


def bisection(top: Topology, arcs: thr.Arcs, side: np.ndarray, rate_gbps: float,
              theta_lower: float | None) -> dict:
    """Cables across the partitioner's cut (an upper bound on the minimum endpoint bisection)
    and the best lower bound: spectral (Fiedler, λ2·R/4, direct networks with the same
    endpoints on every router, an even router count and at most ``SPECTRAL_ROUTERS_MAX``
    routers), a non-blocking fat tree's N/2, or from a feasible uniform flow
    (θ_lower·(N/2)²/(N-1) must cross any balanced cut)."""
    cut = float(arcs.capacity[side[arcs.tail] & ~side[arcs.head]].sum())
    e = top.endpoints
    n = float(e.sum())
    lower, how = 0.0, "none"
    if theta_lower is not None and n >= 2:
        flow = theta_lower * math.floor(n / 2) * math.ceil(n / 2) / (n - 1)
        lower, how = flow, "uniform flow (theta lower bound x (N/2)²/(N-1))"
    if _non_blocking_fat_tree(top):
        lower, how = math.floor(n / 2), ("non-blocking folded Clos: every permutation is "
                                         "routable at full rate, so N/2 cables cross any "
                                         "balanced cut")
    if top.roles is None and len(set(e.tolist())) == 1 and top.num_routers % 2 == 0 \
            and 4 <= top.num_routers <= SPECTRAL_ROUTERS_MAX:
        from planner.placement.bounds import fiedler_value
        from planner.placement.graph import Graph

        spectral = fiedler_value(Graph.from_topology(top)) * top.num_routers / 4
        if spectral > lower:
            lower, how = spectral, "spectral (Fiedler: lambda2·R/4)"
    lower = math.ceil(lower - 1e-6)
    exact = lower >= cut
    return {"links": int(cut), "tbps": _round(cut * rate_gbps / 1000, 6),
            "kind": "exact" if exact else "upper bound (partitioner cut: KaMinPar, "
                                           "endpoint-balanced)",
            "lower_bound_links": int(min(lower, cut)), "lower_bound_method": how,
            "per_endpoint": _round(cut / (n / 2), 6) if n >= 2 else None}


# ------------------------------------------------------------------------------- throughput

def _group_cuts(top: Topology, arcs: thr.Arcs) -> float:
    """Smallest uniform cut bound over the topology's natural groups (racks, groups, pods)."""
    if top.groups is None:
        return float("inf")
    g = top.groups
    k = int(g.max()) + 1
    e = top.endpoints.astype(float)
    n = e.sum()
    leaving = np.bincount(g[arcs.tail], weights=arcs.capacity * (g[arcs.tail] != g[arcs.head]),
                          minlength=k)
    inside = np.bincount(g, weights=e, minlength=k)
    ok = (inside > 0) & (inside < n)
    if not ok.any():
        return float("inf")
    return float(np.min(leaving[ok] * (n - 1) / (inside[ok] * (n - inside[ok]))))


def _router_cuts(top: Topology) -> float:
    """θ <= cables of a router / (its endpoints' uniform demand leaving it)."""
    e = top.endpoints.astype(float)
    n = e.sum()
    ok = e > 0
    if n < 2 or not ok.any():
        return float("inf")
    return float(np.min(top.degree[ok] * (n - 1) / (e[ok] * (n - e[ok]))))


def uniform_throughput(top: Topology, arcs: thr.Arcs, side: np.ndarray,
                       distance_sum: int) -> dict:
    """The ``uniform`` block: θ exact (LP) or an upper bound, the bounds and the ECMP θ."""
    e = top.endpoints.astype(float)
    n = e.sum()
    if n < 2 or len(top.leaves()) < 2:
        return {"theta": 1.0, "kind": "exact", "method": "all endpoints on one router: no "
                                                          "router-router traffic", "lower": 1.0,
                "upper": 1.0, "bounds": {}, "lp": None}
    bounds = {"path_length": thr.path_length_bound(float(arcs.capacity.sum()),
                                                   distance_sum / (n - 1)),
              "router_cut": _router_cuts(top),
              "group_cut": _group_cuts(top, arcs),
              "bisection_cut": thr.cut_bound(arcs, top.endpoints, side),
              "injection": 1.0}
    upper = min(bounds.values())
    tight = min(bounds, key=bounds.get)
    leaves = top.leaves()
    size = thr.LpSize(rows=len(leaves) * top.num_routers + len(arcs),
                      columns=len(leaves) * len(arcs) + 1,
                      nonzeros=3 * len(leaves) * len(arcs) + len(leaves) * top.num_routers)
    lp = size.as_dict() | {"budget_nonzeros": thr.LP_NONZEROS_MAX}
    ecmp = None
    if len(leaves) * len(arcs) <= thr.ECMP_WORK_MAX:
        ecmp = thr.ecmp_theta(arcs, thr.uniform_demand(top.endpoints))
    if size.nonzeros <= thr.LP_NONZEROS_MAX:
        theta = thr.exact_theta(arcs, thr.uniform_demand(top.endpoints))
        lp["solved"] = True
        out = {"theta": _round(theta), "kind": "exact",
               "method": f"max concurrent flow LP (HiGHS), {size.nonzeros:,} nonzeros",
               "lower": _round(theta), "upper": _round(theta)}
    elif ecmp is not None and ecmp >= upper - 1e-9:
        lp["solved"] = False
        out = {"theta": _round(upper), "kind": "exact",
               "method": f"ECMP minimal routing reaches the {tight.replace('_', ' ')} bound "
                         f"(LP of {size.nonzeros:,} nonzeros not needed)",
               "lower": _round(ecmp), "upper": _round(upper)}
    else:
        lp["solved"] = False
        out = {"theta": _round(upper), "kind": "upper bound",
               "method": f"{tight.replace('_', ' ')} bound; the exact LP ({size.nonzeros:,} "
                         f"nonzeros) is above the budget of {thr.LP_NONZEROS_MAX:,}",
               "lower": _round(ecmp), "upper": _round(upper)}
    out["ecmp_minimal"] = _round(ecmp)
    out["bounds"] = {k: _round(v) for k, v in bounds.items()}
    out["lp"] = lp
    return out


def worst_case_throughput(top: Topology, arcs: thr.Arcs) -> dict | None:
    """The ``worst_case`` block, or None for a family without a published pattern."""
    if top.num_routers * len(arcs) > thr.ECMP_WORK_MAX:        # a permutation's ECMP work
        pattern = traffic.worst_case(top, build=False)
    else:
        pattern = traffic.worst_case(top)
    if pattern is None:
        return None
    out = {"pattern": pattern.name, "source": pattern.source, "pairs": pattern.pairs,
           "formula": pattern.formula, "formula_theta": _round(pattern.formula_theta),
           "ecmp_minimal": None, "optimal": None, "optimal_kind": None}
    if not pattern.pairs:
        out["note"] = (f"pattern not routed: {top.num_routers:,} routers x {len(arcs):,} arcs "
                       f"is above the ECMP budget of {thr.ECMP_WORK_MAX:,}; the paper's formula "
                       "only")
        return out
    demand = thr.permutation_demand(top.num_routers, pattern.src, pattern.dst,
                                    top.endpoints[pattern.src])
    if thr.ecmp_work(arcs, demand) <= thr.ECMP_WORK_MAX:
        out["ecmp_minimal"] = _round(thr.ecmp_theta(arcs, demand))
    size = thr.lp_size(arcs, demand)
    if size.nonzeros <= thr.LP_NONZEROS_MAX:
        out["optimal"] = _round(thr.exact_theta(arcs, demand))
        out["optimal_kind"] = "exact (LP: any routing, non-minimal paths allowed)"
    else:
        out["optimal_kind"] = (f"not computed: LP of {size.nonzeros:,} nonzeros above the "
                               f"budget of {thr.LP_NONZEROS_MAX:,}")
    return out


# ------------------------------------------------------------------------------- the stage

def evaluate(top: Topology, cables: pd.DataFrame, router_model, *,
             router_latency_ns: float | None = None, seed: int = 0) -> dict:
    """The ``performance`` block of summary.json for a cabled plan."""
    router_ns, router_source = router_latency(router_model, router_latency_ns)
    rate = float(router_model.rate_gbps)
    diameter, distance_sum = endpoint_distance_sum(top)
    e = top.endpoints.astype(float)
    n = e.sum()
    pairs = n * (n - 1)
    arcs = thr.Arcs.of(top)
    side = bisection_cut(top, seed)
    uniform = uniform_throughput(top, arcs, side, distance_sum)
    lat = latency(top, cables, router_ns)
    lat["router_source"] = router_source
    theta = uniform["theta"]
    delivered = theta * n * rate / 1000 if theta is not None else None
    uniform["delivered_tbps"] = _round(delivered, 6)
    return {
        "hops": {"average": _round(distance_sum / pairs if pairs else 0.0),
                 "diameter": int(diameter),
                 "over": "ordered pairs of distinct endpoints (same router: 0 hops)"},
        "latency_ns": lat,
        "bisection": bisection(top, arcs, side, rate, uniform.get("lower")),
        "uniform": uniform,
        "worst_case": worst_case_throughput(top, arcs),
        "injection_gbps": rate,
    }


# ------------------------------------------------------------------------------- text

def theta_text(block: dict) -> str:
    """``0.957`` (exact) or ``<= 0.912`` (an upper bound)."""
    theta = block.get("theta")
    if theta is None:
        return "n/a"
    return f"{theta:.3f}" if block.get("kind") == "exact" else f"<= {theta:.3f}"


def summary_lines(perf: dict, total_cost: float | None = None) -> list[tuple[str, str]]:
    """Plain-language lines of the performance block (``planner plan`` output, PDF cover)."""
    hops, lat, bis, uni = perf["hops"], perf["latency_ns"], perf["bisection"], perf["uniform"]
    lines = [("hops", f"{hops['average']:.3f} average, {hops['diameter']} at most "
                      "(router-router links between two endpoints)")]
    if lat.get("average") is not None:
        sampled = "" if lat["method"].startswith("exact") else f"; {lat['method']}"
        lines.append(("latency", f"{lat['average']:,.0f} ns average, {lat['max']:,.0f} ns worst "
                                 f"pair at zero load (router {lat['router_ns']:g} ns, "
                                 f"{lat['router_source']}{sampled})"))
    bound = "" if bis["kind"] == "exact" else \
        f" (partitioner cut, an upper bound; at least {bis['lower_bound_links']:,})"
    lines.append(("bisection", f"{bis['links']:,} cables = {bis['tbps']:,.3f} Tb/s one way"
                               f"{bound}"))
    per_tbps = perf.get("cost_per_delivered_tbps")
    money = (f", ${per_tbps:,.0f} per delivered Tb/s" + (" (at least)" if uni["kind"] != "exact"
                                                         else "")) if per_tbps else ""
    lower = (f"; ECMP minimal routing {uni['ecmp_minimal']:.3f}"
             if uni.get("ecmp_minimal") is not None else "")
    lines.append(("uniform theta", f"{theta_text(uni)} of injection bandwidth ({uni['kind']}: "
                               f"{uni['method']}){lower}; {uni['delivered_tbps']:,.3f} Tb/s "
                               f"delivered{money}"))
    wc = perf.get("worst_case")
    if wc:
        parts = []
        if wc.get("ecmp_minimal") is not None:
            parts.append(f"{wc['ecmp_minimal']:.3f} with ECMP minimal routing")
        if wc.get("optimal") is not None:
            parts.append(f"{wc['optimal']:.3f} with optimal routing")
        parts.append(f"paper: {wc['formula']}")
        lines.append(("worst-case theta", f"{'; '.join(parts)} ({wc['source']}: {wc['pattern']})"))
    return lines
