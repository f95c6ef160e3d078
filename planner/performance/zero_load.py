"""Zero-load latency: the router delay, the cable latency of every link, and the ``latency_ns``
block of the performance stage.

``latency_ns``: zero-load head latency of a packet from one endpoint's NIC to another's: both
endpoint cables, one router delay per router traversed (hops + 1) and the router-router cables
of the lowest-latency shortest (minimal-hop) path; no queueing, no serialisation. Averaged over
endpoint pairs, and the worst pair. Exact over all source routers up to
``tuning.ECMP_WORK_MAX``; above it over a seeded sample of source routers, said so.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from planner.performance import throughput as thr
from planner.performance import tuning
from planner.performance.rounding import rounded
from planner.run.errors import InputError
from planner.topologies.base import Topology


def check_router_latency(value, where: str) -> float:
    """``value`` as a router delay in ns, or InputError naming ``where``."""
    try:
        ns = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where} must be a number of nanoseconds, got {value!r}") from None
    if not (math.isfinite(ns) and 0 <= ns <= tuning.MAX_ROUTER_LATENCY_NS):
        raise InputError(f"{where} must be between 0 and {tuning.MAX_ROUTER_LATENCY_NS:,.0f} ns (a "
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
    return tuning.DEFAULT_ROUTER_LATENCY_NS, (f"default {tuning.DEFAULT_ROUTER_LATENCY_NS:g} ns "
                                              f"(the catalog gives no latency_ns for "
                                              f"{router_model.sku})")


def link_latency_ns(top: Topology, cables: pd.DataFrame, slowest: bool = False) -> np.ndarray:
    """Per topology link (u < v), the latency of its fastest (or ``slowest``) cable; 0 where
    no cable is planned."""
    net = cables.loc[cables["kind"] == "network", ["a_router", "b_router", "latency_ns"]]
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
    ep = cables.loc[cables["kind"] == "endpoint", ["a_router", "latency_ns"]]
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
    if work <= tuning.ECMP_WORK_MAX:
        sources, method = leaves, "exact: every source router"
    else:
        count = max(1, tuning.ECMP_WORK_MAX // max(len(arcs), 1))
        rng = np.random.default_rng(tuning.LATENCY_SAMPLE_SEED)
        sources = np.sort(rng.choice(leaves, size=min(count, len(leaves)), replace=False))
        method = (f"sampled: {len(sources):,} of {len(leaves):,} source routers (seed "
                  f"{tuning.LATENCY_SAMPLE_SEED}), exact paths from each")
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
    return {"average": rounded(average, 3), "max": rounded(worst + router_ns, 3),
            "router_ns": router_ns, "endpoint_cables": planned,
            "method": method,
            "path": "lowest-latency minimal-hop path; endpoint cables + (hops + 1) router "
                    "delays + router-router cables; no queueing or serialisation"}
