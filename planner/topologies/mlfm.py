"""Multi-Layer Full Mesh (MLFM).

Kathareios et al. SC15 §2.2.3; Projective Networks §6 names it by n = h+1 (incidence graph of
K_n); docs/topologies.md.
"""

from __future__ import annotations

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, integer, size_limit


def mlfm(h, p=None) -> Topology:
    """h-MLFM: h layers × (h+1) local routers (LR, leaves) + h(h+1)/2 global routers (GR).

    GR {i,j} links to LR i and LR j of every layer (GR radix 2h); each LR has h GR links and p
    endpoints (default h, radix 2h). N = h²(h+1), N_r = 3h(h+1)/2, links = h²(h+1).
    LR (layer l, i) has id l(h+1) + i; GR {i<j} follows in lexicographic order.
    No grouping hint: the global routers are shared by all layers.
    """
    h = integer("mlfm", "h", h, minimum=1)
    size_limit("mlfm", 3 * h * (h + 1) // 2, h * h * (h + 1), f"h={h}")
    p = endpoints_per_router("mlfm", p, h)
    lrs = h * (h + 1)
    i, j = np.triu_indices(h + 1, k=1)
    gr = lrs + np.arange(len(i))
    layer = np.arange(h)[:, None] * (h + 1)
    edges = np.concatenate([np.stack([(layer + i).ravel(), np.tile(gr, h)], 1),
                            np.stack([(layer + j).ravel(), np.tile(gr, h)], 1)])
    r = lrs + len(gr)
    endpoints = np.concatenate([np.full(lrs, p), np.zeros(len(gr), dtype=np.int64)])
    roles = ["leaf"] * lrs + ["spine"] * len(gr)
    return Topology.from_edges("mlfm", {"h": h, "p": p}, r, edges, endpoints, roles=roles)
