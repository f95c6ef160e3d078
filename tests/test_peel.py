"""Densest-set peeling: the tabu search against brute force, planted groups recovered, and the
budget that decides where peeling runs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from planner.placement.budget import Budget
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.placement.peel import _densest_set, peel


def kernel_args(g: Graph):
    a = g.adjacency
    return a.indptr.astype(np.int64), a.indices.astype(np.int64), a.data.astype(np.int64)


def links_inside(g: Graph, members: np.ndarray) -> int:
    mask = np.zeros(g.n, dtype=bool)
    mask[members] = True
    both = mask[g.links[:, 0]] & mask[g.links[:, 1]]
    return int(g.weights[both].sum())


def random_graph(n: int, p: float, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    edges = [(u, v) for u, v in itertools.combinations(range(n), 2) if rng.random() < p]
    edges += edges[:: 4]  # some double links: weights 2
    return Graph.from_edges(n, edges)


@pytest.mark.parametrize("n, p, size, alive_from, seed", [
    (14, 0.3, 5, 0, 1), (14, 0.5, 6, 0, 2), (16, 0.25, 4, 3, 3), (15, 0.4, 7, 2, 4),
])
def test_densest_set_matches_brute_force(n, p, size, alive_from, seed):
    g = random_graph(n, p, seed)
    alive = np.arange(alive_from, n, dtype=np.int64)
    best = max(links_inside(g, np.array(s)) for s in itertools.combinations(alive.tolist(), size))
    found, mask = _densest_set(*kernel_args(g), alive, size, 3000, np.array([seed], dtype=np.uint64))
    members = np.flatnonzero(mask)
    assert len(members) == size and set(members.tolist()) <= set(alive.tolist())
    assert found == links_inside(g, members) == best


def test_peel_recovers_planted_cliques():
    """Six 8-cliques on shuffled ids, a ring of single links between them: the only grouping
    into 8-router groups that cuts just the ring is the cliques."""
    rng = np.random.default_rng(7)
    ids = rng.permutation(48)
    cliques = [ids[8 * c:8 * c + 8] for c in range(6)]
    edges = [(u, v) for c in cliques for u, v in itertools.combinations(c.tolist(), 2)]
    ring = [(int(cliques[c][0]), int(cliques[(c + 1) % 6][1])) for c in range(6)]
    g = Graph.from_edges(48, edges + ring)
    part = peel(g, 8, iterations=2000, seed=3)
    assert g.cut(part) == len(ring)
    assert sorted(sorted(np.flatnonzero(part == b).tolist()) for b in range(6)) == \
        sorted(sorted(c.tolist()) for c in cliques)
    assert np.array_equal(part, peel(g, 8, iterations=2000, seed=3))  # a seed gives one grouping


def test_peel_sizes_and_remainder():
    g = random_graph(30, 0.3, 5)
    part = peel(g, 7, iterations=500, seed=0)
    assert sorted(np.bincount(part).tolist()) == [2, 7, 7, 7, 7]


@pytest.mark.parametrize("demand, limit, expect_size", [
    (np.full(40, 14), 504, 36),                       # every router the same: 504 // 14
    (np.where(np.arange(40) < 20, 17, 0), 300, None),  # leaves and spines differ: no block size
])
def test_budget_peels_only_with_one_block_size(demand, limit, expect_size):
    g = random_graph(40, 0.3, 6)
    limits = Limits.of({"routers": (1, 36), "endpoints": (demand, limit)}, g.n)
    budget = Budget.of(g, limits, 60.0)
    assert limits.block_size() == expect_size
    assert budget.peel_size == expect_size and (budget.peel_iterations > 0) == (expect_size is not None)
