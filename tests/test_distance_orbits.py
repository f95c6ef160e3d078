"""Hop statistics from one BFS source per orbit of the claimed, verified automorphisms.

For every family that claims symmetries, the orbit result must equal the all-sources result
(the same topology with no claim) and networkx's shortest paths; a claim that is not an
automorphism (a link rewired, endpoints moved, not a permutation) must be dropped, and the
result must stay exact."""

from __future__ import annotations

import pickle
from dataclasses import replace

import networkx as nx
import numpy as np
import pytest

from planner.topologies import Topology, build, metrics, parse_spec
from planner.topologies.dragonfly import group_shift
from tests.test_distance_sums import _networkx

# spec, orbits of the measured routers under the claimed symmetries
SYMMETRIC = [
    ("dragonfly:a=4,p=2,h=2,g=9", 4),                          # g = a·h + 1: full rounds only
    ("dragonfly:a=4,p=2,h=2,g=7", 4),                          # last round of 2 ports
    ("dragonfly:a=6,p=3,h=3,g=11,arrangement=relative", 6),    # last round of 8 ports
    ("dragonfly:a=4,p=2,h=2,g=5,arrangement=relative", 4),
    ("slimfly:q=5", 3),                                        # δ = 1
    ("slimfly:q=4", 3),                                        # δ = 0, GF(2²)
    ("slimfly:q=7", 3),                                        # δ = -1
    ("slimfly:q=9", 3),                                        # GF(3²)
    ("hyperx:S=3x4,p=2", 1),
    ("hyperx:S=2x3x3", 1),
    ("torus:dims=2x3x5", 1),
    ("torus:dims=4x4,p=3", 1),
    ("hypercube:d=5", 1),
    ("fattree:k=4", 1),                                        # measured: the edge routers
    ("fattree:k=6,pods=3", 1),
    ("fattree:k=8,p=2", 1),
    ("fattree:k=5,levels=2", 1),
]


def _all_sources(top):
    """The same network with no claimed symmetries: today's BFS from every measured router."""
    return replace(top, symmetries=None)


def _stats(top):
    return metrics.distance_stats(top), metrics.endpoint_distance_sum(top)


@pytest.mark.parametrize("spec,orbits", SYMMETRIC)
def test_orbit_sums_equal_all_sources_and_networkx(spec, orbits, monkeypatch):
    monkeypatch.setattr(metrics, "_GATHER_WORDS", 64)     # one word of sources per batch
    top = parse_spec(spec)
    assert all(metrics.is_automorphism(top, perm) and _really_automorphism(top, perm)
               for perm in top.symmetries)
    assert metrics.orbit_count(top) == orbits
    (diameter, average), (e_diameter, e_sum) = _networkx(top)
    if top.roles is None:                     # direct: every router measured
        graph = top.to_networkx()
        assert average == pytest.approx(nx.average_shortest_path_length(graph), rel=1e-12)
        assert diameter == max(nx.eccentricity(graph).values())
    got, got_e = _stats(top)
    assert got[0] == diameter and got[1] == pytest.approx(average, rel=1e-12)
    assert got_e == (e_diameter, e_sum)
    assert (got, got_e) == _stats(_all_sources(top))


def _rewired(top):
    """``top`` with two global links (u1, v1), (u2, v2) swapped to (u1, v2), (u2, v1): every
    router keeps its degree and endpoints, so only the link lookup can reject the shift."""
    a = top.params["a"]
    glob = top.links[top.links[:, 0] // a != top.links[:, 1] // a]
    present = {tuple(x) for x in top.links.tolist()}
    u1, v1, u2, v2 = next(
        (u1, v1, u2, v2) for (u1, v1), (u2, v2) in zip(glob.tolist(), glob[::-1].tolist())
        if len({u1, v1, u2, v2}) == 4
        and not present & {(min(u1, v2), max(u1, v2)), (min(u2, v1), max(u2, v1))})
    edges = [e for e in np.repeat(top.links, top.multiplicity, axis=0).tolist()
             if e not in ([u1, v1], [u2, v2])] + [[u1, v2], [u2, v1]]
    rewired = type(top).from_edges(top.family, top.params, top.num_routers, edges,
                                   top.endpoints, groups=top.groups, group_kind=top.group_kind)
    return replace(rewired, symmetries=top.symmetries)


def _link_removed(top):
    keep = np.ones(len(top.links), bool)
    keep[len(top.links) // 2] = False
    return replace(top, links=top.links[keep], multiplicity=top.multiplicity[keep])


def _endpoints_moved(top):
    endpoints = top.endpoints.copy()
    endpoints[0] += 1
    return replace(top, endpoints=endpoints)


def _not_a_permutation(top):
    perm = np.arange(top.num_routers)
    perm[1] = 0
    return replace(top, symmetries=(perm,))


def _wrong_length(top):
    return replace(top, symmetries=(np.arange(top.num_routers - 1),))


def _really_automorphism(top, perm):
    """Independent check with Python sets: a permutation that maps every link (with its
    multiplicity) to a link and keeps every router's endpoints."""
    if sorted(np.asarray(perm).tolist()) != list(range(top.num_routers)):
        return False
    pairs = list(zip(top.links.tolist(), top.multiplicity.tolist()))
    links = {frozenset((u, v)): m for (u, v), m in pairs}
    image = {frozenset((int(perm[u]), int(perm[v]))): m for (u, v), m in pairs}
    return image == links and all(top.endpoints[perm] == top.endpoints)


@pytest.mark.parametrize("spec", ["dragonfly:a=4,p=2,h=2,g=9", "slimfly:q=5", "torus:dims=3x4",
                                  "fattree:k=4"])
@pytest.mark.parametrize("alter", [_link_removed, _endpoints_moved, _not_a_permutation,
                                   _wrong_length])
def test_a_false_claim_is_dropped_and_the_result_stays_exact(spec, alter):
    """Claims the altered network breaks are dropped (one that still holds, e.g. the Slim Fly
    scaling that fixes router 0, may stay); fewer symmetries, more orbits, the same exact
    figures as networkx."""
    intact = parse_spec(spec)
    top = alter(intact)
    kept = [perm for perm in top.symmetries if metrics.is_automorphism(top, perm)]
    assert len(kept) < len(top.symmetries)
    assert all(_really_automorphism(top, perm) for perm in kept)
    assert metrics.orbit_count(top) > metrics.orbit_count(intact)
    got, got_e = _stats(top)
    (diameter, average), e_stats = _networkx(top)
    assert got == (diameter, pytest.approx(average, rel=1e-12)) and got_e == e_stats


def test_a_rewired_dragonfly_keeps_no_shift():
    intact = parse_spec("dragonfly:a=4,p=2,h=2,g=9")
    top = _rewired(intact)
    assert np.array_equal(top.degree, intact.degree) and top.num_links == intact.num_links
    assert not metrics.is_automorphism(top, top.symmetries[0])
    (diameter, average), e_stats = _networkx(top)
    assert _stats(top) == ((diameter, pytest.approx(average, rel=1e-12)), e_stats)


@pytest.mark.parametrize("arrangement", ["palmtree", "relative", "absolute"])
def test_every_claimed_dragonfly_shift_is_an_automorphism(arrangement):
    """Over every small (a, h, g): where the builder claims the group shift, it holds; the
    absolute arrangement claims none."""
    claimed = 0
    for a in range(2, 6):
        for h in range(1, 4):
            for g in range(2, a * h + 2):
                top = build("dragonfly", a=a, p=1, h=h, g=g, arrangement=arrangement)
                for perm in top.symmetries or ():
                    claimed += 1
                    assert metrics.is_automorphism(top, perm), (a, h, g)
    assert claimed > 0 if arrangement != "absolute" else claimed == 0
    assert group_shift(8, 4, 20, arrangement) is None    # odd last round (13 ports): no claim


def test_a_pickled_topology_keeps_its_claims():
    top = parse_spec("slimfly:q=5")
    copy = pickle.loads(pickle.dumps(top))
    assert all(np.array_equal(x, y) for x, y in zip(copy.symmetries, top.symmetries))
    assert metrics.orbit_count(copy) == 3 and _stats(copy) == _stats(_all_sources(top))


@pytest.mark.parametrize("sizes", [(12, 1), (40, 2), (40, 3)])
def test_orbit_labels_equal_networkx_components(sizes):
    """Orbits of random permutations (seeded; automorphisms of routers without links) are the
    connected components of v -- perm[v] as networkx finds them, labelled by their smallest
    router."""
    r, count = sizes
    rng = np.random.default_rng(r + count)
    perms = tuple(rng.permutation(r) for _ in range(count))
    top = Topology.from_edges("test", {}, r, [], 1, symmetries=perms)
    graph = nx.Graph()
    graph.add_nodes_from(range(r))
    graph.add_edges_from((v, int(p[v])) for p in perms for v in range(r))
    expected = np.empty(r, np.int64)
    for part in nx.connected_components(graph):
        expected[list(part)] = min(part)
    assert np.array_equal(metrics.orbit_labels(top), expected)
