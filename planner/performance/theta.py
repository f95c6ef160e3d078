"""The stage's saturation throughput θ blocks, computed with the LP and ECMP engine of
``planner.performance.throughput`` and the patterns of ``planner.performance.traffic``.

- ``uniform``: θ under uniform all-to-all traffic: the exact max concurrent flow LP when it
  fits ``tuning.LP_NONZEROS_MAX``, else the smallest of the path-length and cut upper bounds,
  labelled as a bound, beside the θ per-hop ECMP minimal routing delivers (a lower bound) when
  it fits ``tuning.ECMP_WORK_MAX``.
- ``worst_case``: the family's published adversarial pattern, with the θ of ECMP minimal
  routing and of optimal routing (LP) on this network, and the paper's formula.
"""

from __future__ import annotations

import numpy as np

from planner.performance import throughput as thr
from planner.performance import traffic, tuning
from planner.performance.rounding import rounded
from planner.topologies.base import Topology


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
    lp = size.as_dict() | {"budget_nonzeros": tuning.LP_NONZEROS_MAX}
    ecmp = None
    if len(leaves) * len(arcs) <= tuning.ECMP_WORK_MAX:
        ecmp = thr.ecmp_theta(arcs, thr.uniform_demand(top.endpoints))
    if size.nonzeros <= tuning.LP_NONZEROS_MAX:
        theta = thr.exact_theta(arcs, thr.uniform_demand(top.endpoints))
        lp["solved"] = True
        out = {"theta": rounded(theta), "kind": "exact",
               "method": f"max concurrent flow LP (HiGHS), {size.nonzeros:,} nonzeros",
               "lower": rounded(theta), "upper": rounded(theta)}
    elif ecmp is not None and ecmp >= upper - 1e-9:
        lp["solved"] = False
        out = {"theta": rounded(upper), "kind": "exact",
               "method": f"ECMP minimal routing reaches the {tight.replace('_', ' ')} bound "
                         f"(LP of {size.nonzeros:,} nonzeros not needed)",
               "lower": rounded(ecmp), "upper": rounded(upper)}
    else:
        lp["solved"] = False
        out = {"theta": rounded(upper), "kind": "upper bound",
               "method": f"{tight.replace('_', ' ')} bound; the exact LP ({size.nonzeros:,} "
                         f"nonzeros) is above the budget of {tuning.LP_NONZEROS_MAX:,}",
               "lower": rounded(ecmp), "upper": rounded(upper)}
    out["ecmp_minimal"] = rounded(ecmp)
    out["bounds"] = {k: rounded(v) for k, v in bounds.items()}
    out["lp"] = lp
    return out


def worst_case_throughput(top: Topology, arcs: thr.Arcs) -> dict | None:
    """The ``worst_case`` block, or None for a family without a published pattern."""
    if top.num_routers * len(arcs) > tuning.ECMP_WORK_MAX:        # a permutation's ECMP work
        pattern = traffic.worst_case(top, build=False)
    else:
        pattern = traffic.worst_case(top)
    if pattern is None:
        return None
    out = {"pattern": pattern.name, "source": pattern.source, "pairs": pattern.pairs,
           "formula": pattern.formula, "formula_theta": rounded(pattern.formula_theta),
           "ecmp_minimal": None, "optimal": None, "optimal_kind": None}
    if not pattern.pairs:
        out["note"] = (f"pattern not routed: {top.num_routers:,} routers x {len(arcs):,} arcs "
                       f"is above the ECMP budget of {tuning.ECMP_WORK_MAX:,}; the paper's formula "
                       "only")
        return out
    demand = thr.permutation_demand(top.num_routers, pattern.src, pattern.dst,
                                    top.endpoints[pattern.src])
    if thr.ecmp_work(arcs, demand) <= tuning.ECMP_WORK_MAX:
        out["ecmp_minimal"] = rounded(thr.ecmp_theta(arcs, demand))
    size = thr.lp_size(arcs, demand)
    if size.nonzeros <= tuning.LP_NONZEROS_MAX:
        out["optimal"] = rounded(thr.exact_theta(arcs, demand))
        out["optimal_kind"] = "exact (LP: any routing, non-minimal paths allowed)"
    else:
        out["optimal_kind"] = (f"not computed: LP of {size.nonzeros:,} nonzeros above the "
                               f"budget of {tuning.LP_NONZEROS_MAX:,}")
    return out
