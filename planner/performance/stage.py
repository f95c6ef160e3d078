"""The performance stage's entry point: ``evaluate``, the ``performance`` block of a cabled plan.

Runs after cabling (``planner.plan``), from the topology, the cables' lengths and latencies
and the router model; its value is the ``performance`` block of ``summary.json``:

- ``hops``: router-to-router links on a shortest path, averaged over all ordered pairs of
  distinct endpoints (pairs on one router count 0), and the diameter between routers with
  endpoints; exact (bit-parallel BFS, ``planner.topologies.metrics``).
- ``latency_ns``: zero-load latency (``planner.performance.zero_load``).
- ``bisection``: cables across a balanced cut and a lower bound
  (``planner.performance.bisection_bounds``).
- ``uniform`` and ``worst_case``: saturation throughput θ (``planner.performance.theta``).
- ``resilience`` (when failure groups are given): θ, hops and connectivity after each single
  failure group fails and after k random cable failures (``planner.performance.resilience``);
  ``planner.plan`` moves it to the top level of summary.json.
"""

from __future__ import annotations

import pandas as pd

from planner.performance import throughput as thr
from planner.performance.bisection_bounds import bisection, bisection_cut
from planner.performance.collectives import collectives
from planner.performance.rounding import rounded
from planner.performance.theta import uniform_throughput, worst_case_throughput
from planner.performance.zero_load import latency, router_latency
from planner.topologies.base import Topology
from planner.topologies.metrics import endpoint_distance_sum
from planner.topologies.multiplane import one_plane


def plane_and_cables(top: Topology, cables: pd.DataFrame) -> tuple[Topology, pd.DataFrame]:
    """A multi-plane topology's first plane and its cables (``multiplane.one_plane``: the
    planes are identical and disconnected); any other topology and its cables unchanged."""
    plane = one_plane(top)
    if plane is top:
        return top, cables
    inside = (cables["a_router"] < plane.num_routers) & (
        (cables["kind"] == "endpoint") | (cables["b_router"] < plane.num_routers))
    return plane, cables[inside]


def evaluate(top: Topology, cables: pd.DataFrame, router_model, *,
             router_latency_ns: float | None = None, seed: int = 0,
             failures: tuple[dict, dict] | None = None, fail_links: int = 0,
             exact_failures: bool = False) -> dict:
    """The ``performance`` block of summary.json for a cabled plan; ``failures`` = (failure
    groups by kind, kinds skipped for want of data) from
    ``planner.performance.failure_groups.derive`` adds the ``resilience`` block
    (``exact_failures``: the exact LP after every failure, ``--resilience-exact``)."""
    router_ns, router_source = router_latency(router_model, router_latency_ns)
    rate = float(router_model.rate_gbps)
    whole = top
    top, cables = plane_and_cables(top, cables)
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
    delivered = theta * whole.num_endpoints * rate / 1000 if theta is not None else None
    uniform["delivered_tbps"] = rounded(delivered, 6)
    over = "ordered pairs of distinct endpoints (same router: 0 hops)"
    block = {}
    ai = collectives(top, arcs)
    if ai is not None:
        block["collectives"] = ai
    if top is not whole:
        over += ", within one plane (NIC i of a server to NIC i of another)"
        block["planes"] = {"count": int(whole.params["planes"]),
                           "scope": "hops, latency, bisection and theta are those of one plane "
                                    "(the planes are identical and independent); the system's "
                                    "bisection is planes times the plane's"}
    out = block | {
        "hops": {"average": rounded(distance_sum / pairs if pairs else 0.0),
                 "diameter": int(diameter),
                 "over": over},
        "latency_ns": lat,
        "bisection": bisection(top, arcs, side, rate, uniform.get("lower")),
        "uniform": uniform,
        "worst_case": worst_case_throughput(top, arcs),
        "injection_gbps": rate,
    }
    if failures is not None and (failures[0] or fail_links):
        from planner.performance.resilience import assess, not_per_plane
        out["resilience"] = (assess(top, side, distance_sum, uniform, *failures, fail_links,
                                    seed, rate, exact_failures) if top is whole
                             else not_per_plane(failures[0], fail_links))
    return out
