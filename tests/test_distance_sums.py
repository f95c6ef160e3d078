"""The bit-parallel distance sums against networkx's all-pairs shortest paths.

``distance_stats`` (summary.json hops of the routers) and ``endpoint_distance_sum`` (the
performance stage's hops over endpoint pairs) share one BFS pass where they measure the same
routers; each is checked here against an independent computation, in both call orders, with
batches small enough that the sources span several of them."""

from dataclasses import replace

import networkx as nx
import numpy as np
import pytest

from planner.topologies import metrics, parse_spec


def _networkx(top):
    """(diameter, average) over measured routers and (diameter, Σ e_s·e_t·d) over routers with
    endpoints, from networkx's shortest paths."""
    graph = top.to_networkx()
    lengths = dict(nx.all_pairs_shortest_path_length(graph))
    nodes = metrics.measured_routers(top).tolist()
    leaves = top.leaves().tolist()
    measured = [lengths[s][t] for s in nodes for t in nodes if s != t]
    weighted = [(int(top.endpoints[s]) * int(top.endpoints[t]), lengths[s][t])
                for s in leaves for t in leaves if s != t]
    return ((max(measured), sum(measured) / len(measured)),
            (max(d for _, d in weighted), sum(w * d for w, d in weighted)))


def _uneven(spec):
    """``spec`` with endpoints 0..3 dealt around its routers: some routers carry none, so the
    routers with endpoints are not all the measured routers of a direct network."""
    top = parse_spec(spec)
    return replace(top, endpoints=np.arange(top.num_routers, dtype=np.int64) % 4)


CASES = [
    ("slimfly:q=5", parse_spec),
    ("dragonfly:a=4,p=2,h=2,g=5", parse_spec),
    ("fattree:k=4", parse_spec),
    ("jellyfish:routers=40,degree=5,p=3,seed=2", parse_spec),
    ("slimfly:q=5", _uneven),
    ("dragonfly:a=4,p=2,h=2,g=5", _uneven),
]


@pytest.mark.parametrize("spec,make", CASES)
@pytest.mark.parametrize("endpoints_first", [False, True])
def test_distance_sums_equal_networkx(spec, make, endpoints_first, monkeypatch):
    monkeypatch.setattr(metrics, "_GATHER_WORDS", 64)     # one word of sources per batch
    top = make(spec)
    (diameter, average), (e_diameter, e_sum) = _networkx(top)
    if endpoints_first:
        got_e = metrics.endpoint_distance_sum(top)
        got = metrics.distance_stats(top)
    else:
        got = metrics.distance_stats(top)
        got_e = metrics.endpoint_distance_sum(top)
    assert got[0] == diameter and got[1] == pytest.approx(average, rel=1e-12)
    assert got_e == (e_diameter, e_sum)


def test_routers_without_endpoints_may_be_cut_off_from_the_endpoint_sum():
    """After a failure only the routers with endpoints must stay connected for the endpoint
    sum (the resilience stage asks for it alone); the routers' own measure still refuses."""
    top = parse_spec("dragonfly:a=4,p=2,h=2,g=5")
    lone = top.num_routers
    grown = replace(top, num_routers=lone + 1,
                    endpoints=np.r_[top.endpoints, 0].astype(np.int64))
    assert metrics.endpoint_distance_sum(grown) == metrics.endpoint_distance_sum(top)
    with pytest.raises(Exception, match="disconnected"):
        metrics.distance_stats(grown)
