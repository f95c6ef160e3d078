"""Groupings of routers into electrical groups: the hint packing and a partitioner portfolio.

All functions take a ``Graph``, one integer weight per router and one block capacity (see
``capacity.Capacity.folded_weights``) and return a part id per router with every block's weight
<= capacity.

* ``pack_hint``: the topology's natural groups kept whole (Slim Fly racks, Dragonfly groups,
  fat-tree pods), packed greedily into electrical groups, each hint group going to the open
  group it has most links to (layout_opt.md §7 (a)). This is how the papers' layouts were made.
* ``kaminpar_partition``: KaMinPar (Gottesbüren et al., "Deep Multilevel Graph Partitioning",
  ESA'21) with exact ``max_block_weights``; one thread so that a seed gives one answer.
* ``metis_partition``: METIS 5 k-way (Karypis & Kumar 1998) via pymetis with ufactor 30, then
  ``repair`` moves the cheapest routers out of overfull blocks (layout_opt.md §4.1).
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from planner.placement.graph import Graph


def block_loads(part: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(part, weights=weights, minlength=k).astype(np.int64)


def relabel(part: np.ndarray) -> np.ndarray:
    """Renumber non-empty blocks 0..k-1 in order of their smallest router id (canonical form)."""
    _, first = np.unique(part, return_index=True)
    order = np.argsort(first, kind="stable")
    mapping = np.empty(int(part.max()) + 1, dtype=np.int64)
    mapping[np.unique(part)[order]] = np.arange(len(order))
    return mapping[part]


def _split_oversized(members: np.ndarray, weights: np.ndarray, cap: int) -> list[np.ndarray]:
    """Cut a hint group heavier than one block into consecutive pieces that fit."""
    pieces, start, load = [], 0, 0
    for i, v in enumerate(members):
        if load + weights[v] > cap:
            pieces.append(members[start:i])
            start, load = i, 0
        load += weights[v]
    pieces.append(members[start:])
    return pieces


def pack_hint(graph: Graph, hint: np.ndarray, weights: np.ndarray, cap: int) -> np.ndarray:
    """Whole hint groups packed into blocks of capacity ``cap`` (routers without a hint id, < 0,
    are singleton groups). Each group, largest first, joins the feasible open block it shares the
    most links with (ties: lowest block id), else opens a new block."""
    hint = np.asarray(hint, dtype=np.int64).copy()
    loose = hint < 0
    hint[loose] = hint.max(initial=-1) + 1 + np.arange(int(loose.sum()))
    _, hint = np.unique(hint, return_inverse=True)
    units: list[np.ndarray] = []
    for g in range(int(hint.max()) + 1 if graph.n else 0):
        members = np.flatnonzero(hint == g)
        units.extend(_split_oversized(members, weights, cap) if weights[members].sum() > cap else [members])
    unit_of = np.empty(graph.n, dtype=np.int64)
    for i, m in enumerate(units):
        unit_of[m] = i
    unit_w = np.array([weights[m].sum() for m in units], dtype=np.int64)
    a = graph.adjacency
    part = np.full(graph.n, -1, dtype=np.int64)
    loads: list[int] = []
    for i in sorted(range(len(units)), key=lambda i: (-unit_w[i], i)):
        members = units[i]
        row = a[members]
        nb_part = part[row.indices]
        placed = nb_part >= 0
        affinity = np.bincount(nb_part[placed], weights=row.data[placed], minlength=len(loads))
        room = np.array(loads, dtype=np.int64) + unit_w[i] <= cap
        if room.any():
            affinity = np.where(room, affinity, -1.0)
            b = int(np.argmax(affinity))
            part[members] = b
            loads[b] += int(unit_w[i])
        else:
            part[members] = len(loads)
            loads.append(int(unit_w[i]))
    return relabel(part)


def write_metis(graph: Graph, weights: np.ndarray, path: str) -> None:
    """METIS graph file (fmt 11: vertex and edge weights), vertices 1-based."""
    a = graph.adjacency
    with open(path, "w") as f:
        f.write(f"{graph.n} {len(graph.links)} 11\n")
        indptr, idx, data = a.indptr, a.indices + 1, a.data
        for v in range(graph.n):
            s, e = indptr[v], indptr[v + 1]
            pairs = np.empty(2 * (e - s), dtype=np.int64)
            pairs[0::2], pairs[1::2] = idx[s:e], data[s:e]
            f.write(f"{int(weights[v])} " + " ".join(map(str, pairs.tolist())) + "\n")


class KaMinParRunner:
    """Loads the graph once; ``run(seed, k, cap, ctx)`` returns a partition."""

    def __init__(self, graph: Graph, weights: np.ndarray):
        import kaminpar

        self._kaminpar = kaminpar
        self.graph = graph
        with tempfile.TemporaryDirectory(prefix="planner-kaminpar-") as tmp:
            path = os.path.join(tmp, "graph.metis")
            write_metis(graph, weights, path)
            self._g = kaminpar.load_graph(path, kaminpar.GraphFileFormat.METIS)

    def run(self, seed: int, k: int, cap: int, ctx: str = "strong") -> np.ndarray:
        kp = self._kaminpar
        kp.reseed(int(seed))
        solver = kp.KaMinPar(1, kp.context_by_name(ctx))
        return np.asarray(solver.compute_partition(self._g, [int(cap)] * int(k)), dtype=np.int64)


def metis_partition(graph: Graph, weights: np.ndarray, k: int, seed: int, ufactor: int = 30) -> np.ndarray:
    import pymetis

    a = graph.adjacency
    opts = pymetis.Options()
    opts.ufactor, opts.seed = int(ufactor), int(seed)
    _, part = pymetis.part_graph(int(k), adjacency=pymetis.CSRAdjacency(a.indptr, a.indices),
                                 vweights=np.maximum(weights, 1).tolist(), eweights=a.data.tolist(),
                                 options=opts)
    return np.asarray(part, dtype=np.int64)


def repair(graph: Graph, part: np.ndarray, weights: np.ndarray, cap: int, k: int) -> np.ndarray:
    """Move routers out of overfull blocks, each time the one losing the fewest internal links,
    into a block with room (a new block if none has room)."""
    part = part.copy()
    loads = block_loads(part, weights, k).tolist()
    a = graph.adjacency
    for b in range(k):
        while loads[b] > cap:
            members = np.flatnonzero(part == b)
            best = None
            for v in members:
                row = slice(a.indptr[v], a.indptr[v + 1])
                links = np.bincount(part[a.indices[row]], weights=a.data[row], minlength=len(loads))
                room = np.array(loads) + weights[v] <= cap
                room[b] = False
                if not room.any():
                    continue
                g = int(np.argmax(np.where(room, links, -np.inf)))
                gain = links[g] - links[b]
                if best is None or gain > best[0]:
                    best = (gain, int(v), g)
            if best is None:
                v = int(members[np.argmin(weights[members])])
                best = (0, v, len(loads))
                loads.append(0)
            _, v, g = best
            part[v] = g
            loads[b] -= int(weights[v])
            loads[g] += int(weights[v])
    return part
