"""Distance metrics: diameter and average distance in router hops.

Direct networks: over all ordered pairs of distinct routers. Indirect networks (routers have
roles): leaf-to-leaf, i.e. over routers that carry endpoints (Kathareios SC15 §2; the k̄ of
Projective Networks §2.1, e.g. SF q=19 -> 1.9598). Exact breadth-first search, bit-parallel:
64 sources per machine word over the CSR adjacency, batched so the gathered frontier stays
under 64 MiB.

Sources are one router per orbit of the topology's automorphisms: a builder may claim router
permutations (``Topology.symmetries``, e.g. the Dragonfly group shift); each is checked here
(it maps the links with their multiplicities onto themselves, keeps the endpoints per router
and the measured routers) and dropped if it fails, so an imported or altered topology stays
exact. An automorphism maps the distances from a router onto those from its image, so every
router of an orbit has the same distance multiset: a representative's row sums, weighted by
its orbit's size, give the exact totals. The cost is O(orbits·links·diameter/64), plus
O(links·log links) per claimed permutation; without verified symmetries every measured router
is its own orbit.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from planner.run.errors import InputError
from planner.topologies.base import Topology

_GATHER_WORDS = 1 << 23
"""Bound on nnz(adjacency) x words per BFS batch (64 MiB of uint64)."""


def measured_routers(top: Topology) -> np.ndarray:
    """Routers between which distances are measured: leaves (with endpoints) of an indirect
    network, all routers of a direct one."""
    if top.roles is None:
        return np.arange(top.num_routers)
    leaves = top.leaves()
    return leaves if len(leaves) else np.flatnonzero(
        np.isin(np.array(top.roles), ("leaf", "edge")))


class _Csr(NamedTuple):
    """The symmetric adjacency as compressed rows (the neighbours of v are
    ``indices[indptr[v]:indptr[v + 1]]``)."""

    indptr: np.ndarray
    indices: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.indptr) - 1, len(self.indptr) - 1

    @property
    def nnz(self) -> int:
        return len(self.indices)


def _csr(top: Topology) -> _Csr:
    u, v = top.links[:, 0], top.links[:, 1]
    source, target = np.concatenate([u, v]), np.concatenate([v, u])
    order = np.argsort(source, kind="stable")
    indptr = np.zeros(top.num_routers + 1, dtype=np.int64)
    np.cumsum(np.bincount(source, minlength=top.num_routers), out=indptr[1:])
    return _Csr(indptr, target[order])


def _reached(adj: _Csr, source: int) -> np.ndarray:
    """Boolean mask of the routers reachable from ``source`` (level-synchronous BFS)."""
    seen = np.zeros(adj.shape[0], dtype=bool)
    seen[source] = True
    frontier = np.array([source], dtype=np.int64)
    while frontier.size:
        starts, lengths = adj.indptr[frontier], np.diff(adj.indptr)[frontier]
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        neighbours = adj.indices[offsets + np.arange(int(lengths.sum()))]
        frontier = np.unique(neighbours[~seen[neighbours]])
        seen[frontier] = True
    return seen


def _bitset_bfs(adj, sources: np.ndarray, targets: np.ndarray,
                target_weights: np.ndarray) -> tuple[int, int, int]:
    """BFS from up to 64·W sources at once; reached[v] holds one bit per source.
    Returns (max distance, Σ distance, Σ target weight · distance) over the (source, target)
    pairs reached. It stops at the level that reaches the last target from every source: a
    level after it only reaches routers that are not targets, and adds nothing."""
    r = adj.shape[0]
    words = (len(sources) + 63) // 64
    reached = np.zeros((r, words), dtype=np.uint64)
    bit = np.arange(len(sources))
    np.bitwise_or.at(reached, (sources, bit // 64),
                     np.left_shift(np.uint64(1), (bit % 64).astype(np.uint64)))
    frontier = reached.copy()
    nonempty = np.diff(adj.indptr) > 0
    starts = adj.indptr[:-1][nonempty]
    pairs = len(targets) * len(sources) - int(np.isin(sources, targets).sum())
    level = diameter = total = weighted = found_all = 0
    while found_all < pairs:
        level += 1
        nxt = np.zeros_like(reached)
        nxt[nonempty] = np.bitwise_or.reduceat(frontier[adj.indices], starts, axis=0)
        nxt &= ~reached
        if not nxt.any():
            break
        reached |= nxt
        frontier = nxt
        counts = np.bitwise_count(nxt[targets]).sum(axis=1, dtype=np.int64)
        found = int(counts.sum())
        if found:
            diameter = level
            total += level * found
            weighted += level * int(counts @ target_weights)
            found_all += found
    return diameter, total, weighted


_SUMS: "weakref.WeakKeyDictionary[Topology, dict]" = weakref.WeakKeyDictionary()
"""Distance sums of each topology measured while it lives (``_sums``): the summary's
``distance_stats`` and the performance stage's ``endpoint_distance_sum`` read one pass."""


def _sums(top: Topology, which: str) -> tuple[int, int]:
    """(diameter, Σ d) over ordered pairs of distinct ``measured_routers`` (``which`` =
    "measured"), or (diameter, Σ e_s·e_t·d) over routers with endpoints e (``"endpoints"``).
    Where the two are the same routers (every direct network whose routers all carry
    endpoints, every fat tree) one BFS pass gives both, and the other is kept for its call.
    InputError if those routers are not all connected."""
    known = _SUMS.setdefault(top, {})
    if which not in known:
        nodes, leaves = measured_routers(top), top.leaves()
        adj = _csr(top)
        orbit = orbit_labels(top)
        if np.array_equal(nodes, leaves):
            check_connected(top, leaves, adj)
            known["measured"], known["endpoints"] = _pass(
                adj, leaves, top.endpoints[leaves].astype(np.int64), orbit[leaves])
        elif which == "measured":
            check_connected(top, nodes, adj)
            known[which] = _pass(adj, nodes, np.ones(len(nodes), np.int64), orbit[nodes])[0]
        else:
            check_connected(top, leaves, adj)
            known[which] = _pass(adj, leaves, top.endpoints[leaves].astype(np.int64),
                                 orbit[leaves])[1]
    return known[which]


def _pass(adj: _Csr, nodes: np.ndarray, weights: np.ndarray, orbit: np.ndarray):
    """((diameter, Σ d), (diameter, Σ w_s·w_t·d)) over ordered pairs of distinct ``nodes``,
    from one source per orbit (``orbit``: each node's orbit label) whose row sums count once
    per member, batched so the gathered frontier stays under ``_GATHER_WORDS``."""
    labels, first, size = np.unique(orbit, return_index=True, return_counts=True)
    reps = np.sort(first)
    members = size[np.searchsorted(labels, orbit[reps])].astype(np.int64)
    batch = 64 * max(1, _GATHER_WORDS // max(adj.nnz, 1))
    diameter = total = weighted = 0
    span = int(weights.max(initial=0)) + 1
    kind = members * span + weights[reps]              # (orbit size, weight) as one number
    for key in np.unique(kind).tolist():
        count, weight = divmod(key, span)
        sources = nodes[reps[kind == key]]
        for start in range(0, len(sources), batch):
            d, t, w = _bitset_bfs(adj, sources[start:start + batch], nodes, weights)
            diameter = max(diameter, d)
            total, weighted = total + count * t, weighted + count * weight * w
    return (diameter, total), (diameter, weighted)


def is_automorphism(top: Topology, perm: np.ndarray, routers: np.ndarray | None = None) -> bool:
    """Whether ``perm`` (router v -> perm[v]) is a permutation of the routers that keeps the
    endpoints per router, the measured routers and the degrees (O(R), which rejects most false
    claims, a removed link among them) and maps the links with their multiplicities onto
    themselves (O(links·log links)). ``routers``: ``router_keys(top)``, when known."""
    perm = np.asarray(perm)
    r = top.num_routers
    if perm.shape != (r,) or perm.dtype.kind not in "iu" or (r and (perm.min() < 0
                                                                    or perm.max() >= r)):
        return False
    keys = router_keys(top) if routers is None else routers
    return (np.array_equal(keys[perm], keys)
            and bool((np.bincount(perm, minlength=r) == 1).all())
            and _keeps_links(top, perm))


def router_keys(top: Topology) -> np.ndarray:
    """One integer per router that an automorphism keeps: its endpoints, whether it is
    measured, and its degree counting multiplicity."""
    r = top.num_routers
    measured = np.zeros(r, np.int64)
    measured[measured_routers(top)] = 1
    degree = (np.bincount(top.links[:, 0], top.multiplicity, minlength=r)
              + np.bincount(top.links[:, 1], top.multiplicity, minlength=r)).astype(np.int64)
    return (top.endpoints * 2 + measured) * (int(degree.max(initial=0)) + 1) + degree


def _keeps_links(top: Topology, perm: np.ndarray) -> bool:
    """Every link's image is a link of the same multiplicity: the links are stored once,
    sorted and unique, so each image is found by binary search."""
    if not len(top.links):
        return True
    r = np.int64(top.num_routers)
    keys = top.links[:, 0] * r + top.links[:, 1]
    u, v = perm[top.links[:, 0]], perm[top.links[:, 1]]
    image = np.minimum(u, v).astype(np.int64) * r + np.maximum(u, v)
    at = np.minimum(np.searchsorted(keys, image), len(keys) - 1)
    return bool(np.array_equal(keys[at], image)
                and np.array_equal(top.multiplicity[at], top.multiplicity))


def orbit_labels(top: Topology) -> np.ndarray:
    """Orbit label of every router under the group generated by the claimed symmetries that
    pass ``is_automorphism``: the smallest router id of its orbit (every router its own orbit
    when none passes)."""
    keys = router_keys(top) if top.symmetries else None
    verified = [np.asarray(p) for p in top.symmetries or () if is_automorphism(top, p, keys)]
    return _smallest_in_orbit(verified, top.num_routers)


def _smallest_in_orbit(perms: list[np.ndarray], r: int) -> np.ndarray:
    """Connected components of the graph v -- perm[v] over ``perms``, labelled by their
    smallest vertex: each round takes the smallest label of a vertex's images and preimages,
    then follows labels to their own label until none changes (pointer jumping, Shiloach &
    Vishkin 1982), so a cycle of length L settles in O(log L) jumps. At the end a label equals
    those of its images and preimages, hence is constant on a component."""
    label = np.arange(r)
    moves = list(perms)
    for perm in perms:
        inverse = np.empty_like(perm)
        inverse[perm] = np.arange(r)
        moves.append(inverse)
    while moves:
        new = label
        for move in moves:
            new = np.minimum(new, new[move])
        while not np.array_equal(new, jumped := new[new]):
            new = jumped
        if np.array_equal(new, label):
            break
        label = new
    return label


def orbit_count(top: Topology) -> int:
    """Orbits of the measured routers: the BFS sources of ``distance_stats``."""
    return len(np.unique(orbit_labels(top)[measured_routers(top)]))


def check_connected(top: Topology, nodes: np.ndarray, adj: "_Csr | None" = None) -> None:
    """InputError unless ``nodes`` all lie in one connected component (an imported graph may
    not). SciPy counts the components only for the message, so a connected topology is checked
    without importing it (``planner topology`` starts fast)."""
    if _reached(adj if adj is not None else _csr(top), int(nodes[0]))[nodes].all():
        return
    from scipy.sparse.csgraph import connected_components

    _, labels = connected_components(top.adjacency, directed=False)
    parts = len(np.unique(labels[nodes]))
    raise InputError(f"topology '{top.family}' is disconnected: its routers form "
                     f"{parts} separate components; every router must be reachable")


def distance_stats(top: Topology) -> tuple[int, float]:
    """(diameter, average distance) in router hops, exact; leaf-to-leaf for indirect networks.

    A single measured router gives (0, 0.0). InputError if the measured routers are not all
    connected (an imported graph may be).
    """
    nodes = measured_routers(top)
    if len(nodes) < 2:
        return 0, 0.0
    diameter, total = _sums(top, "measured")
    return diameter, total / (len(nodes) * (len(nodes) - 1))


def endpoint_distance_sum(top: Topology) -> tuple[int, int]:
    """(diameter between routers with endpoints, Σ over ordered router pairs of e_s·e_t·d(s, t)):
    the hop count summed over all endpoint pairs (pairs on one router add 0). Same bit-parallel
    BFS as ``distance_stats`` (one pass for both where they measure the same routers)."""
    if len(top.leaves()) < 2:
        return 0, 0
    return _sums(top, "endpoints")
