"""The ``bisection`` block of the performance stage: the cables across the best endpoint-balanced
cut a partitioner finds (KaMinPar), which bounds the minimum bisection from above, with the best
lower bound known (spectral for a direct network, from the uniform flow otherwise); "exact"
when they meet."""

from __future__ import annotations

import math

import numpy as np

from planner.performance import throughput as thr
from planner.performance import tuning
from planner.performance.rounding import rounded
from planner.topologies.base import Topology


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
    endpoints on every router, an even router count and at most
    ``tuning.SPECTRAL_ROUTERS_MAX`` routers), a non-blocking fat tree's N/2, or from a feasible
    uniform flow (θ_lower·(N/2)²/(N-1) must cross any balanced cut)."""
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
            and 4 <= top.num_routers <= tuning.SPECTRAL_ROUTERS_MAX:
        from planner.placement.bounds import fiedler_value
        from planner.placement.graph import Graph

        spectral = fiedler_value(Graph.from_topology(top)) * top.num_routers / 4
        if spectral > lower:
            lower, how = spectral, "spectral (Fiedler: lambda2·R/4)"
    lower = math.ceil(lower - 1e-6)
    exact = lower >= cut
    return {"links": int(cut), "tbps": rounded(cut * rate_gbps / 1000, 6),
            "kind": "exact" if exact else "upper bound (partitioner cut: KaMinPar, "
                                           "endpoint-balanced)",
            "lower_bound_links": int(min(lower, cut)), "lower_bound_method": how,
            "per_endpoint": rounded(cut / (n / 2), 6) if n >= 2 else None}
