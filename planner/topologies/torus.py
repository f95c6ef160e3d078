"""Torus (k-ary n-cube) with arbitrary dimension sizes.

Dally & Towles, "Principles and Practices of Interconnection Networks" §5; Li et al. MEMSYS'16
§1.1 (ports and links per dimension); docs/topologies.md.
Folding a ring (placing its routers 0, k-1, 1, k-2, ...) avoids a cable spanning the whole
row; it is a physical placement, the graph is the same ring, so placement decides it.
"""

from __future__ import annotations

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, int_list, size_limit
from planner.topologies.hyperx import axes, coordinate_shifts


def ring_edges(sizes: list[int]) -> np.ndarray:
    """(L, 2): in every dimension of size k, a ring of k links (one link if k = 2)."""
    ids = np.arange(int(np.prod(sizes)))
    parts = []
    for k, stride, coord in axes(sizes):
        src = ids if k > 2 else ids[coord == 0]
        c = coord[src]
        dst = src + (((c + 1) % k) - c) * stride
        parts.append(np.stack([src, dst], axis=1))
    return np.concatenate(parts)


def torus(dims, p=None) -> Topology:
    """Torus with ring sizes ``dims`` (each >= 2), p endpoints per router (default 1).

    prod(dims) routers; degree 2 per dimension of size > 2, 1 per dimension of size 2; links
    prod(dims)·n for a k-ary n-cube with k > 2 (docs/topologies.md). Hint: rows along the last
    dimension. Claimed automorphisms: a cyclic shift per dimension (``coordinate_shifts``).
    """
    sizes = int_list("torus", "dims", dims, minimum=2)
    r = int(np.prod(sizes, dtype=object))
    size_limit("torus", r, r * len(sizes), f"dims={'x'.join(map(str, sizes))}")
    p = endpoints_per_router("torus", p, 1)
    return Topology.from_edges("torus", {"dims": sizes, "p": p}, r, ring_edges(sizes), p,
                               groups=np.arange(r) // sizes[-1], group_kind="row",
                               symmetries=coordinate_shifts(sizes))
