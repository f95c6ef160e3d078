"""Groupings of routers into electrical groups: id order, the hint packing, partitioners, repair.

All functions take a ``Graph`` and the block ``Limits`` (one column per resource, see
``capacity``) and return a part id per router with every block within every limit.

* ``sequential``: routers in id order, a new block whenever the next one does not fit.
* ``pack_hint``: the topology's natural groups kept whole (Slim Fly racks, Dragonfly groups,
  fat-tree pods), packed greedily into blocks, each hint group going to the open block it has
  most links to. This is how the papers' layouts were made.
* ``KaMinParRunner``: KaMinPar (Gottesbüren et al., "Deep Multilevel Graph Partitioning",
  ESA'21) with exact ``max_block_weights`` on the scalarised weights (``Limits.scalar``); one
  thread so that a seed gives one answer.
* ``metis_partition``: METIS 5 k-way (Karypis & Kumar, SIAM J. Sci. Comput. 20(1), 1998) via
  pymetis on the same scalar weights.
* ``repair``: the single-weight partitioners only see the scalarisation, so their blocks may
  break one real limit; repair moves (or, when no block has room, swaps) the routers that
  lose the fewest internal links until every limit holds, opening a block as a last resort.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.run.interrupts import in_fork
from planner.placement.tuning import REPAIR_SWAP_PAIRS


def relabel(part: np.ndarray) -> np.ndarray:
    """Renumber non-empty blocks 0..k-1 in order of their smallest router id (canonical form)."""
    _, first = np.unique(part, return_index=True)
    order = np.argsort(first, kind="stable")
    mapping = np.empty(int(part.max()) + 1, dtype=np.int64)
    mapping[np.unique(part)[order]] = np.arange(len(order))
    return mapping[part]


def sequential(limits: Limits) -> np.ndarray:
    """Routers in id order, a new block whenever the next one does not fit."""
    part = np.empty(limits.n, dtype=np.int64)
    g, load = 0, np.zeros(len(limits.limit), dtype=np.int64)
    for v in range(limits.n):
        if np.any(load + limits.demand[v] > limits.limit):
            g, load = g + 1, np.zeros_like(load)
        part[v] = g
        load += limits.demand[v]
    return part


def _split_oversized(members: np.ndarray, limits: Limits) -> list[np.ndarray]:
    """Cut a hint group larger than one block into consecutive pieces that fit."""
    pieces, start = [], 0
    load = np.zeros(len(limits.limit), dtype=np.int64)
    for i, v in enumerate(members):
        if np.any(load + limits.demand[v] > limits.limit):
            pieces.append(members[start:i])
            start, load = i, np.zeros_like(load)
        load += limits.demand[v]
    pieces.append(members[start:])
    return pieces


def pack_hint(graph: Graph, hint: np.ndarray, limits: Limits) -> np.ndarray:
    """Whole hint groups packed into blocks (routers without a hint id, < 0, are singleton
    groups). Each group, largest first, joins the feasible open block it shares the most links
    with (ties: lowest block id), else opens a new block."""
    hint = np.asarray(hint, dtype=np.int64).copy()
    loose = hint < 0
    hint[loose] = hint.max(initial=-1) + 1 + np.arange(int(loose.sum()))
    _, hint = np.unique(hint, return_inverse=True)
    units: list[np.ndarray] = []
    for g in range(int(hint.max()) + 1 if graph.n else 0):
        members = np.flatnonzero(hint == g)
        whole = limits.subset(members).demand.sum(axis=0)
        units.extend(_split_oversized(members, limits) if np.any(whole > limits.limit) else [members])
    unit_d = np.array([limits.demand[m].sum(axis=0) for m in units], dtype=np.int64).reshape(len(units), -1)
    size = (unit_d / np.maximum(limits.limit, 1)).sum(axis=1)
    a = graph.adjacency
    part = np.full(graph.n, -1, dtype=np.int64)
    loads = np.zeros((0, len(limits.limit)), dtype=np.int64)
    for i in sorted(range(len(units)), key=lambda i: (-size[i], i)):
        members = units[i]
        row = a[members]
        nb_part = part[row.indices]
        placed = nb_part >= 0
        affinity = np.bincount(nb_part[placed], weights=row.data[placed], minlength=len(loads))
        room = np.all(loads + unit_d[i] <= limits.limit, axis=1)
        if room.any():
            b = int(np.argmax(np.where(room, affinity, -1.0)))
        else:
            b = len(loads)
            loads = np.vstack([loads, np.zeros((1, len(limits.limit)), dtype=np.int64)])
        part[members] = b
        loads[b] += unit_d[i]
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
    """Loads the graph once with one weight per router; ``run(seed, k, cap, ctx)`` returns a
    partition into k blocks of weight <= cap."""

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
    """METIS k-way with one weight per router, imbalance ``ufactor`` (per mille); in a forked
    child, since METIS traps SIGTERM in a way that can crash or hang the process
    (``interrupts.in_fork``)."""
    import pymetis  # noqa: F401 - imported here so that the child need not

    return in_fork(_metis_kway, graph.adjacency, weights, int(k), int(seed), int(ufactor))


def _metis_kway(a, weights: np.ndarray, k: int, seed: int, ufactor: int) -> np.ndarray:
    import pymetis

    opts = pymetis.Options()
    opts.ufactor, opts.seed = ufactor, seed
    _, part = pymetis.part_graph(k, adjacency=pymetis.CSRAdjacency(a.indptr, a.indices),
                                 vweights=np.maximum(weights, 1).tolist(), eweights=a.data.tolist(),
                                 options=opts)
    return np.asarray(part, dtype=np.int64)


def _links_to_blocks(graph: Graph, part: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """(len(rows), k) link weight from each router of ``rows`` into each block."""
    a = graph.adjacency
    starts, ends = a.indptr[rows], a.indptr[rows + 1]
    lens = ends - starts
    entry = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(starts, lens)
    out = np.zeros((len(rows), k), dtype=np.int64)
    np.add.at(out, (np.repeat(np.arange(len(rows)), lens), part[a.indices[entry]]), a.data[entry])
    return out


def _repair_move(graph: Graph, part: np.ndarray, limits: Limits, loads: np.ndarray, b: int,
                 cand: np.ndarray) -> tuple[int, int] | None:
    """Best (router, block) move of a candidate out of b into a block with room, or None."""
    k = len(loads)
    links = _links_to_blocks(graph, part, cand, k)
    room = np.all(loads[None, :, :] + limits.demand[cand][:, None, :] <= limits.limit, axis=2)
    room[:, b] = False
    if not room.any():
        return None
    gain = np.where(room, links - links[:, [b]], np.iinfo(np.int64).min)
    i, g = np.unravel_index(int(np.argmax(gain)), gain.shape)  # first maximum: lowest router, block
    return int(cand[i]), int(g)


def _repair_swap(graph: Graph, part: np.ndarray, limits: Limits, loads: np.ndarray, b: int,
                 cand: np.ndarray) -> tuple[int, int] | None:
    """Best swap of a candidate v of b with a router u of another block g that lowers b's excess
    and keeps g within its limits, or None."""
    others = np.flatnonzero(part != b)
    if len(others) == 0 or len(cand) * len(others) > REPAIR_SWAP_PAIRS:
        return None
    d = limits.demand
    excess = np.maximum(loads[b] - limits.limit, 0).sum()
    after_b = loads[b][None, None, :] - d[cand][:, None, :] + d[others][None, :, :]
    lower = np.maximum(after_b - limits.limit, 0).sum(axis=2) < excess
    g = part[others]
    after_g = loads[g][None, :, :] - d[others][None, :, :] + d[cand][:, None, :]
    ok = lower & np.all(after_g <= limits.limit, axis=2)
    if not ok.any():
        return None
    a = graph.adjacency
    links_v = _links_to_blocks(graph, part, cand, len(loads))
    to_b = np.asarray(a[:, np.flatnonzero(part == b)].sum(axis=1)).ravel()[others]
    same = part[graph.links[:, 0]] == part[graph.links[:, 1]]
    own = np.zeros(graph.n, dtype=np.int64)
    np.add.at(own, graph.links[same].ravel(), np.repeat(graph.weights[same], 2))
    between = a[cand][:, others].toarray()
    gain = links_v[:, g] - links_v[:, [b]] + (to_b - own[others])[None, :] - 2 * between
    gain = np.where(ok, gain, np.iinfo(np.int64).min)
    i, j = np.unravel_index(int(np.argmax(gain)), gain.shape)
    return int(cand[i]), int(others[j])


def repair(graph: Graph, part: np.ndarray, limits: Limits, k: int | None = None) -> np.ndarray:
    """Make every block fit every limit: from each overfull block move the router that loses
    the fewest internal links into a block with room, else swap it with a router of another
    block, else move it to a new block. Blocks already within their limits are only ever
    filled up to them."""
    part = np.asarray(part, dtype=np.int64).copy()
    k = int(part.max()) + 1 if k is None else int(k)
    loads = limits.loads(part, k)
    for b in range(k):
        while np.any(loads[b] > limits.limit):
            over = loads[b] > limits.limit
            members = np.flatnonzero(part == b)
            cand = members[(limits.demand[members][:, over] > 0).any(axis=1)]
            move = _repair_move(graph, part, limits, loads, b, cand)
            if move is not None:
                v, g = move
                part[v] = g
                loads[b] -= limits.demand[v]
                loads[g] += limits.demand[v]
                continue
            swap = _repair_swap(graph, part, limits, loads, b, cand)
            if swap is not None:
                v, u = swap
                g = int(part[u])
                part[v], part[u] = g, b
                loads[b] += limits.demand[u] - limits.demand[v]
                loads[g] += limits.demand[v] - limits.demand[u]
                continue
            v = int(cand[0])
            part[v] = len(loads)
            loads = np.vstack([loads, limits.demand[v][None, :]])
            loads[b] -= limits.demand[v]
    return part
