"""Adversarial (worst-case) traffic patterns from the literature, one per family that has one.

Each pattern is a router-level permutation: every endpoint of a source router sends all its
traffic to the endpoints of one destination router (patterns that are "not end-node limited",
Kathareios et al. SC15 §4.2). ``worst_case(top)`` returns the pattern with the paper it comes
from and the throughput that paper gives for minimal routing, or None for a family without a
published adversarial pattern (the planner then reports uniform traffic only).

- Dragonfly: every group sends to the next group (Kim, Dally, Scott & Abts, ISCA'08 §4.2,
  "worst-case traffic"): under minimal routing a group's a·p endpoints share the global cables
  to the next group, θ = m/(a·p) with m such cables.
- Slim Fly: routers paired at distance 2 so that two pairs' unique minimal paths overlap on
  one link (Kathareios et al. SC15 §4.2 Fig. 5, after Besta & Hoefler SC14): that link carries
  2p flows, θ = 1/(2p).
- OFT and MLFM: each leaf sends to a leaf it shares exactly one spine with (Kathareios et al.
  SC15 §4.2): the single minimal path carries p flows, θ = 1/p.
- Fat tree: every edge (leaf) router sends to the same edge router of the next pod (next leaf
  for two levels), so all traffic crosses the top level (Lei et al., Galaxyfly, ICS'16 §5).
- HyperX / flattened butterfly: each router sends to its neighbour in the first dimension
  (single minimal path, the direct link; Kim, Dally & Abts, ISCA'07, minimal routing's worst
  case): θ = m/p.
- Torus: tornado in the first dimension, a shift of ⌈k/2⌉ - 1 (Dally & Towles, "Principles and
  Practices of Interconnection Networks", §3.2): θ = 1/(p·(⌈k/2⌉ - 1)) under minimal routing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from planner.topologies.base import Topology


@dataclass(frozen=True)
class Pattern:
    """A router-level permutation with its source and the published minimal-routing θ."""

    name: str
    source: str
    src: np.ndarray
    dst: np.ndarray
    formula: str
    formula_theta: float | None

    @property
    def pairs(self) -> int:
        return len(self.src)


def single_path_pairs(top: Topology) -> np.ndarray:
    """Dense (R, R) bool: router pairs at distance 2 joined by exactly one two-hop path (their
    only shortest path). Dense: built only for networks small enough to route the pattern."""
    a = top.adjacency.copy()
    a.data[:] = 1
    two = (a @ a).astype(np.int32).toarray()
    unique = (two == 1) & (a.toarray() == 0)
    np.fill_diagonal(unique, False)
    return unique


def dragonfly_shift(top: Topology) -> Pattern | None:
    groups = top.groups
    if groups is None or int(groups.max()) < 1:
        return None
    g = int(groups.max()) + 1
    order = np.lexsort((np.arange(top.num_routers), groups))
    local = np.empty(top.num_routers, np.int64)
    local[order] = np.arange(top.num_routers) - np.searchsorted(groups[order], groups[order])
    first = np.searchsorted(groups[order], np.arange(g))
    size = np.bincount(groups, minlength=g)
    nxt = (groups + 1) % g
    ok = local < size[nxt]
    src = np.flatnonzero(ok)
    dst = order[first[nxt[src]] + local[src]]
    gu, gv = groups[top.links[:, 0]], groups[top.links[:, 1]]
    forward = ((gv == (gu + 1) % g) | (gu == (gv + 1) % g)) & (gu != gv)
    per_pair = np.bincount(np.minimum(gu, gv)[forward] * g + np.maximum(gu, gv)[forward],
                           weights=top.multiplicity[forward], minlength=g * g)
    adjacent = [per_pair[min(i, (i + 1) % g) * g + max(i, (i + 1) % g)] for i in range(g)]
    a_p = int(np.bincount(groups, weights=top.endpoints).max())
    m = int(min(adjacent))
    return Pattern(*GROUP_SHIFT, src, dst,
                   f"m/(a·p) = {m}/{a_p} (global cables between neighbour groups / endpoints "
                   "of a group)", min(1.0, m / a_p) if a_p else None)


def _greedy_partners(sources, unique: np.ndarray, receiving: np.ndarray) -> dict[int, int]:
    """Each source in turn takes the lowest free router it has a single shortest path to."""
    pairs = {}
    for s in np.asarray(sources).tolist():
        free = np.flatnonzero(unique[s] & ~receiving)
        if len(free):
            pairs[s] = int(free[0])
            receiving[free[0]] = True
    return pairs


GROUP_SHIFT = ("group shift: every router sends to the same router of the next group",
               "Kim, Dally, Scott & Abts, ISCA'08 §4.2")
POD_SHIFT = ("pod shift: every edge router sends to the same edge router of the next pod",
             "Lei et al., Galaxyfly, ICS'16 §5")
LEAF_SHIFT = ("leaf shift: every leaf sends to the next leaf (all traffic through the spines)",
              "Lei et al., Galaxyfly, ICS'16 §5")
NEIGHBOUR_SHIFT = ("neighbour shift: each router sends to its neighbour in the first dimension "
                   "(the direct link is the only minimal path)", "Kim, Dally & Abts, ISCA'07")
TORNADO = "Dally & Towles, Principles and Practices of Interconnection Networks §3.2"
FULL_BISECTION = "1 with full bisection (every path crosses the top level)"
LEAF_PAIRS = ("single-path leaf pairs: each leaf sends to a leaf it shares exactly one spine "
              "with", "Kathareios et al. SC15 §4.2")
OVERLAPPING_PAIRS = ("overlapping distance-2 pairs: A->C and B->D with unique minimal paths "
                     "A-B-C and B-C-D share link B->C",
                     "Kathareios et al. SC15 §4.2 Fig. 5 (after Besta & Hoefler SC14)")


def leaf_single_path(top: Topology) -> Pattern | None:
    leaves = top.leaves()
    if len(leaves) < 2:
        return None
    unique = single_path_pairs(top)
    unique[:, top.endpoints == 0] = False
    pairs = _greedy_partners(leaves, unique, np.zeros(top.num_routers, bool))
    if not pairs:
        return None
    p = int(top.endpoints[leaves].max())
    return Pattern(*LEAF_PAIRS, np.array(list(pairs)), np.array(list(pairs.values())),
                   f"1/p = 1/{p}", 1.0 / p)


def slimfly_overlap(top: Topology) -> Pattern | None:
    """Greedy pairs (A→C, B→D) over the links B–C in order, where A–B–C is the only shortest
    A→C path and B–C–D the only shortest B→D path, so link B->C carries both pairs' traffic;
    routers left over are paired greedily along single shortest paths."""
    r = top.num_routers
    adj = top.adjacency
    unique = single_path_pairs(top)
    sending = np.zeros(r, bool)
    receiving = np.zeros(r, bool)
    src, dst = [], []
    for b, c in top.links.tolist():
        for u, v in ((b, c), (c, b)):
            if sending[u] or receiving[v]:
                continue
            nb_u = adj.indices[adj.indptr[u]:adj.indptr[u + 1]]
            nb_v = adj.indices[adj.indptr[v]:adj.indptr[v + 1]]
            a_opts = nb_u[unique[v, nb_u] & ~sending[nb_u]]
            d_opts = nb_v[unique[u, nb_v] & ~receiving[nb_v]]
            if not len(a_opts) or not len(d_opts):
                continue
            a, d = int(a_opts[0]), int(d_opts[0])
            src += [a, u]
            dst += [v, d]
            sending[[a, u]] = True
            receiving[[v, d]] = True
    extra = _greedy_partners(np.flatnonzero(~sending), unique, receiving)
    src += list(extra)
    dst += list(extra.values())
    if not src:
        return None
    p = int(top.endpoints.max())
    return Pattern(*OVERLAPPING_PAIRS, np.array(src), np.array(dst), f"1/(2p) = 1/{2 * p}",
                   1.0 / (2 * p))


def fattree_pod_shift(top: Topology) -> Pattern | None:
    leaves = top.leaves()
    if top.groups is not None and top.params.get("levels", 3) == 3:
        pods = top.groups[leaves]
        k = int(pods.max()) + 1
        order = np.lexsort((leaves, pods))
        rank = np.empty(len(leaves), np.int64)
        rank[order] = np.arange(len(leaves)) - np.searchsorted(pods[order], pods[order])
        key = {(int(pd), int(rk)): int(leaf) for pd, rk, leaf in zip(pods, rank, leaves)}
        src, dst = [], []
        for leaf, pd, rk in zip(leaves.tolist(), pods.tolist(), rank.tolist()):
            target = key.get(((pd + 1) % k, rk))
            if target is not None:
                src.append(leaf)
                dst.append(target)
        name = POD_SHIFT
    else:
        src, dst = leaves.tolist(), np.roll(leaves, -1).tolist()
        name = LEAF_SHIFT
    if len(src) < 2:
        return None
    return Pattern(*name, np.array(src), np.array(dst), FULL_BISECTION, None)


def _shift(top: Topology, sizes: list[int], shift: int) -> tuple[np.ndarray, np.ndarray]:
    ids = np.arange(top.num_routers)
    stride = int(np.prod(sizes[1:]))
    c = (ids // stride) % sizes[0]
    return ids, ids + (((c + shift) % sizes[0]) - c) * stride


def hyperx_neighbour(top: Topology) -> Pattern | None:
    sizes = list(top.params["S"])
    src, dst = _shift(top, sizes, 1)
    p = int(top.endpoints.max())
    return Pattern(*NEIGHBOUR_SHIFT, src, dst, f"1/p = 1/{p}", min(1.0, 1.0 / p))


def torus_tornado(top: Topology) -> Pattern | None:
    sizes = list(top.params["dims"])
    shift = math.ceil(sizes[0] / 2) - 1
    if shift < 1:
        return None
    src, dst = _shift(top, sizes, shift)
    p = int(top.endpoints.max())
    return Pattern(f"tornado: each router sends {shift} hops along the first dimension",
                   TORNADO, src, dst, f"1/(p·(ceil(k/2)-1)) = 1/{p * shift}",
                   min(1.0, 1.0 / (p * shift)))


def worst_case(top: Topology, build: bool = True) -> Pattern | None:
    """The family's published adversarial pattern on this topology, or None; ``build=False``
    gives only its name, source and formula (no router pairs), for networks too large to
    route it."""
    family = top.family
    if not build and family in FORMULA_ONLY:
        p = int(top.endpoints.max())
        none = np.zeros(0, np.int64)
        name, source, formula, theta = FORMULA_ONLY[family](top, p)
        return Pattern(name, source, none, none, formula, theta)
    if family == "dragonfly":
        return dragonfly_shift(top)
    if family == "slimfly":
        return slimfly_overlap(top)
    if family in ("oft", "mlfm"):
        return leaf_single_path(top)
    if family == "fattree":
        return fattree_pod_shift(top)
    if family == "hyperx":
        return hyperx_neighbour(top)
    if family == "torus":
        return torus_tornado(top)
    return None


FORMULA_ONLY = {
    "slimfly": lambda top, p: (*OVERLAPPING_PAIRS, f"1/(2p) = 1/{2 * p}", 1 / (2 * p)),
    "oft": lambda top, p: (*LEAF_PAIRS, f"1/p = 1/{p}", 1 / p),
    "mlfm": lambda top, p: (*LEAF_PAIRS, f"1/p = 1/{p}", 1 / p),
    "dragonfly": lambda top, p: (*GROUP_SHIFT, "m/(a·p) with m global cables between "
                                               "neighbour groups", None),
    "fattree": lambda top, p: (*POD_SHIFT, FULL_BISECTION, None),
    "hyperx": lambda top, p: (*NEIGHBOUR_SHIFT, f"1/p = 1/{p}", min(1.0, 1.0 / p)),
    "torus": lambda top, p: ("tornado along the first dimension", TORNADO,
                             "1/(p·(ceil(k/2)-1))", None),
}
"""Name, source, formula and θ of each pattern without building it (large networks)."""
