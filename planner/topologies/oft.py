"""Two-level Orthogonal Fat Tree (OFT) Ĝ_q from the projective plane PG(2, q).

Camarero et al., "Projective Networks", Def. 6.1; equal to Kathareios et al. SC15 §2.2.4's
k-OFT with k = q + 1 (docs/topologies.md "Orthogonal Fat Tree").
"""

from __future__ import annotations

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, prime_power_q, size_limit
from planner.topologies.projective import incidences, plane_size


def oft(q, p=None) -> Topology:
    """OFT Ĝ_q: routers (s, P), s ∈ {0, 1, 2}, id s·n + P with n = q²+q+1.

    (0,P)–(1,L) and (1,P)–(2,L) iff P ⊥ L. Level 1 = spines (degree 2(q+1)); levels 0 and 2 =
    leaves with q+1 up-links and p endpoints (default q+1). N_r = 3n, T = 2(q+1)n, leaf-to-leaf
    distance exactly 2, links 2(q+1)n. Radix 64 -> q = 31, 63,552 endpoints (Kathareios).
    """
    q = prime_power_q("oft", q, minimum=2)
    size_limit("oft", 3 * plane_size(q), 2 * (q + 1) * plane_size(q), f"q={q}")
    p = endpoints_per_router("oft", p, q + 1)
    n = plane_size(q)
    pts, lns = incidences(q)
    edges = np.concatenate([np.stack([pts, n + lns], 1), np.stack([n + pts, 2 * n + lns], 1)])
    endpoints = np.concatenate([np.full(n, p), np.zeros(n, dtype=np.int64), np.full(n, p)])
    roles = ["leaf"] * n + ["spine"] * n + ["leaf"] * n
    return Topology.from_edges("oft", {"q": q, "p": p}, 3 * n, edges, endpoints, roles=roles)
