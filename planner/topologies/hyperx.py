"""HyperX / flattened butterfly / Hamming graph: routers on a grid [S_0]×...×[S_{d-1}], a link
between every two routers that differ in exactly one coordinate.

Ahn et al., "HyperX", SC09; Kim, Dally, Abts, "Flattened Butterfly", ISCA'07; the Hamming graph
K_n² of Projective Networks Table 4 (§4.1) is S = (n, n), p = n (docs/topologies.md).
"""

from __future__ import annotations

import numpy as np

from planner.topologies.base import Topology
from planner.topologies.checks import endpoints_per_router, int_list, size_limit


def axes(sizes: list[int]):
    """Per dimension: its size, its stride and every router's coordinate in it (mixed-radix
    ids, last coordinate fastest)."""
    ids = np.arange(int(np.prod(sizes)))
    for dim, s in enumerate(sizes):
        stride = int(np.prod(sizes[dim + 1:]))
        yield s, stride, (ids // stride) % s


def grid_edges(sizes: list[int]) -> np.ndarray:
    """(L, 2) pairs of mixed-radix ids (last coordinate fastest) differing in one coordinate."""
    ids = np.arange(int(np.prod(sizes)))
    parts = []
    for s, stride, coord in axes(sizes):
        for off in range(1, s):
            src = ids[coord + off < s]
            parts.append(np.stack([src, src + off * stride], axis=1))
    return np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)


def coordinate_shifts(sizes: list[int]) -> tuple[np.ndarray, ...]:
    """Claimed automorphisms: per dimension, the cyclic shift of that coordinate (mixed-radix
    ids, last coordinate fastest). Both the HyperX (a link iff one coordinate differs, SC09 §3)
    and the torus (a ring per dimension, Dally & Towles §5) keep their links under it; with
    one per dimension every router lies in one orbit."""
    ids = np.arange(int(np.prod(sizes)))
    return tuple(ids + (((coord + 1) % s) - coord) * stride for s, stride, coord in axes(sizes))


def hyperx(S, p=None) -> Topology:
    """HyperX with dimension sizes S (SC09 §3).

    prod(S) routers, network degree sum(S_i - 1), links prod(S)·sum(S_i - 1)/2. Default p =
    min(S), the concentration of the k-ary n-flat (ISCA'07 §3) and of the Hamming graphs of
    Projective Networks Tables 4-5.
    Router id = mixed radix of the coordinates, last coordinate fastest; hint: rows = routers
    that differ only in the last coordinate (a K_{S_{d-1}}).
    """
    sizes = int_list("hyperx", "S", S, minimum=2)
    r = int(np.prod(sizes, dtype=object))
    size_limit("hyperx", r, r * sum(s - 1 for s in sizes) // 2, f"S={'x'.join(map(str, sizes))}")
    p = endpoints_per_router("hyperx", p, min(sizes))
    return Topology.from_edges("hyperx", {"S": sizes, "p": p}, r, grid_edges(sizes), p,
                               groups=np.arange(r) // sizes[-1], group_kind="row",
                               symmetries=coordinate_shifts(sizes))
