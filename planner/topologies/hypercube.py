"""Binary hypercube: 2^d routers, a link between ids that differ in one bit.

Dally & Towles §5 (the 2-ary d-cube); Seitz, "The Cosmic Cube", CACM 1985.
"""

from __future__ import annotations

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, integer, size_limit


def hypercube(d, p=None) -> Topology:
    """d-dimensional hypercube: 2^d routers of degree d, d·2^(d-1) links, diameter d.

    p endpoints per router (default 1). No grouping hint. Claimed automorphisms: flipping bit
    0 and rotating the bits of every id, both keep "differ in one bit" (together one orbit).
    """
    d = integer("hypercube", "d", d, minimum=1, maximum=64)
    size_limit("hypercube", 2 ** d, d * 2 ** (d - 1), f"d={d}")
    p = endpoints_per_router("hypercube", p, 1)
    ids = np.arange(2 ** d)
    parts = [np.stack([ids[(ids >> b) & 1 == 0], ids[(ids >> b) & 1 == 0] | (1 << b)], axis=1)
             for b in range(d)]
    rotate = ((ids << 1) | (ids >> (d - 1))) & (2 ** d - 1)
    return Topology.from_edges("hypercube", {"d": d, "p": p}, 2 ** d, np.concatenate(parts), p,
                               symmetries=(ids ^ 1, rotate))
