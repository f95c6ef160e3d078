"""Plain-array view of a topology for the placement algorithms.

Every algorithm in ``planner.placement`` works on this value (numpy arrays only), so it can be
driven from a ``Topology`` or from arrays built in tests and benchmarks. Links are undirected
router pairs with an integer weight (the multiplicity: parallel cables all become optical
together). ``endpoints`` is the second resource a router consumes in cabinets and groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class Graph:
    """n routers, links (L, 2) with u < v, weights (L,) >= 1, endpoints (n,) >= 0."""

    n: int
    links: np.ndarray
    weights: np.ndarray
    endpoints: np.ndarray

    @classmethod
    def from_topology(cls, top) -> "Graph":
        return cls(n=int(top.num_routers), links=np.asarray(top.links, dtype=np.int64).reshape(-1, 2),
                   weights=np.asarray(top.multiplicity, dtype=np.int64),
                   endpoints=np.asarray(top.endpoints, dtype=np.int64))

    @classmethod
    def from_edges(cls, n: int, edges, endpoints=0) -> "Graph":
        """Collapse repeated (u, v) pairs into weights; used by tests and sub-graphs."""
        arr = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        lo, hi = np.minimum(arr[:, 0], arr[:, 1]), np.maximum(arr[:, 0], arr[:, 1])
        pairs, counts = np.unique(np.stack([lo, hi], axis=1), axis=0, return_counts=True)
        ep = np.broadcast_to(np.asarray(endpoints, dtype=np.int64), (n,)).copy()
        return cls(n=int(n), links=pairs.reshape(-1, 2), weights=counts.astype(np.int64), endpoints=ep)

    @property
    def total_weight(self) -> int:
        return int(self.weights.sum())

    @cached_property
    def adjacency(self) -> sp.csr_matrix:
        """Symmetric n x n CSR matrix of link weights (sorted indices)."""
        u, v, w = self.links[:, 0], self.links[:, 1], self.weights
        a = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([u, v]), np.concatenate([v, u]))),
                          shape=(self.n, self.n)).tocsr()
        a.sort_indices()
        return a

    @cached_property
    def degree(self) -> np.ndarray:
        return np.asarray(self.adjacency.sum(axis=1)).ravel().astype(np.int64)

    def cut(self, part: np.ndarray) -> int:
        """Weighted links whose ends lie in different parts (optical cables for a grouping)."""
        part = np.asarray(part)
        return int(self.weights[part[self.links[:, 0]] != part[self.links[:, 1]]].sum())

    def pair_links(self, part: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, weight) of every pair of parts a < b with links between them, ordered by
        (a, b): O(links) memory whatever the number of parts (no k x k matrix)."""
        part = np.asarray(part, dtype=np.int64)
        pu, pv = part[self.links[:, 0]], part[self.links[:, 1]]
        cut = pu != pv
        a, b = np.minimum(pu[cut], pv[cut]), np.maximum(pu[cut], pv[cut])
        span = int(part.max()) + 1 if part.size else 1
        keys, inverse = np.unique(a * span + b, return_inverse=True)
        weight = np.bincount(inverse.ravel(), weights=self.weights[cut], minlength=len(keys))
        return keys // span, keys % span, np.rint(weight).astype(np.int64)

    def parts(self, part: np.ndarray):
        """(members, induced sub-graph) of every part 0..k-1, members in id order: the same as
        ``subgraph(np.flatnonzero(part == g))`` for each g, in one pass over the links."""
        part = np.asarray(part, dtype=np.int64)
        k = int(part.max()) + 1 if self.n else 0
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(k + 1))
        local = np.empty(self.n, dtype=np.int64)
        local[order] = np.arange(self.n) - np.repeat(bounds[:-1], np.diff(bounds))
        pu = part[self.links[:, 0]]
        inside = np.flatnonzero(pu == part[self.links[:, 1]])
        inside = inside[np.argsort(pu[inside], kind="stable")]
        link_bounds = np.searchsorted(pu[inside], np.arange(k + 1))
        for g in range(k):
            members = order[bounds[g]:bounds[g + 1]]
            idx = inside[link_bounds[g]:link_bounds[g + 1]]
            u, v = local[self.links[idx, 0]], local[self.links[idx, 1]]
            lo, hi = np.minimum(u, v), np.maximum(u, v)
            o = np.lexsort((hi, lo))
            yield members, Graph(n=len(members), links=np.stack([lo[o], hi[o]], axis=1).reshape(-1, 2),
                                 weights=self.weights[idx][o], endpoints=self.endpoints[members])

    def subgraph(self, nodes: np.ndarray) -> "Graph":
        """Induced sub-graph on ``nodes`` (relabelled 0..len-1 in the given order)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        index = np.full(self.n, -1, dtype=np.int64)
        index[nodes] = np.arange(len(nodes))
        iu, iv = index[self.links[:, 0]], index[self.links[:, 1]]
        keep = (iu >= 0) & (iv >= 0)
        lo, hi = np.minimum(iu[keep], iv[keep]), np.maximum(iu[keep], iv[keep])
        order = np.lexsort((hi, lo))
        return Graph(n=len(nodes), links=np.stack([lo[order], hi[order]], axis=1).reshape(-1, 2),
                     weights=self.weights[keep][order], endpoints=self.endpoints[nodes])
