"""The links between pairs of groups the CP-SAT LNS picks its pairs from, kept sparse (issue 24:
nothing in placement holds a k x k matrix at 1M endpoints, 17,864 groups)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.placement.graph import Graph
from planner.topologies import build
from planner.topologies.base import Topology


def _ring(n: int) -> Graph:
    edges = [(i, (i + 1) % n) for i in range(n)]
    return Graph.from_topology(Topology.from_edges("ring", {"n": n}, n, edges, np.ones(n)))


@pytest.mark.parametrize("part, expected", [
    # ring 0-1-2-3-4-5-0 in parts: pairs (a < b) with the links between them
    ([0, 0, 1, 1, 2, 2], [(0, 1, 1), (0, 2, 1), (1, 2, 1)]),
    ([0, 1, 0, 1, 0, 1], [(0, 1, 6)]),
    ([2, 2, 2, 0, 0, 0], [(0, 2, 2)]),
    ([0, 0, 0, 0, 0, 0], []),
])
def test_pair_links_by_hand(part, expected):
    a, b, w = _ring(6).pair_links(np.array(part))
    assert list(zip(a.tolist(), b.tolist(), w.tolist())) == expected


@pytest.mark.parametrize("k", [2, 7, 40])
def test_pair_links_equal_the_dense_flow_matrix(k):
    """The upper triangle of the dense k x k flow matrix, in the same (a, b) order."""
    graph = Graph.from_topology(build("slimfly", q=13))
    part = np.random.default_rng(k).integers(0, k, graph.n)
    dense = np.zeros((k, k), dtype=np.int64)
    for (u, v), weight in zip(graph.links.tolist(), graph.weights.tolist()):
        if part[u] != part[v]:
            dense[min(part[u], part[v]), max(part[u], part[v])] += weight
    ia, ib = np.nonzero(dense)
    a, b, w = graph.pair_links(part)
    assert a.tolist() == ia.tolist() and b.tolist() == ib.tolist()
    assert w.tolist() == dense[ia, ib].tolist()
