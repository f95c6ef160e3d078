"""topology.graphml: networkx reads it back to the plan's router graph (SST/Merlin topoAny)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from planner.exports import graphml
from test_exports_plans import get_plan

PLANS = ["slimfly-hot", "dragonfly-hot", "dragonfly-trunk", "slimfly-abstract"]


@pytest.fixture(scope="module", params=PLANS)
def read_back(request, tmp_path_factory):
    plan = get_plan(request.param)
    out = tmp_path_factory.mktemp(request.param)
    graphml.write(plan, out)
    return plan, nx.read_graphml(out / graphml.FILENAME), (out / graphml.FILENAME).read_text()


def test_isomorphic_to_the_topology_with_integer_endpoints(read_back):
    plan, graph, _ = read_back
    top = plan.topology
    assert type(graph) is nx.Graph and not graph.is_directed()
    # node ids in file order are the router ids (Merlin relabels in file order)
    assert list(graph.nodes()) == [str(r) for r in range(top.num_routers)]
    assert [graph.nodes[str(r)]["endpoints"] for r in range(top.num_routers)] == \
        top.endpoints.tolist()
    assert all(type(d["endpoints"]) is int for _, d in graph.nodes(data=True))
    relabelled = nx.relabel_nodes(graph, int)
    expected = top.to_networkx()
    assert nx.is_isomorphic(relabelled, expected,
                            node_match=lambda a, b: a["endpoints"] == b["endpoints"],
                            edge_match=lambda a, b: a["multiplicity"] == b["multiplicity"])
    assert set(map(frozenset, relabelled.edges())) == set(map(frozenset, expected.edges()))


def test_node_attributes_match_the_placement(read_back):
    plan, graph, _ = read_back
    routers = plan.devices[plan.devices["kind"] == "router"].set_index("id")
    group_of = dict(zip(plan.cabinets["name"], plan.cabinets["group"]))
    for r, data in graph.nodes(data=True):
        row = routers.loc[int(r)]
        assert data["name"] == row["name"] and data["cabinet"] == row["cabinet"]
        assert data["group"] == group_of[row["cabinet"]]
        assert data["rack_unit"] == float(row["ru"])


def test_edge_ports_lengths_media_and_latency_cover_every_cable(read_back):
    plan, graph, _ = read_back
    net = plan.cables[plan.cables["kind"] == "network"]
    seen = 0
    for (a, b), cables in net.groupby(["a_router", "b_router"]):
        data = graph.edges[str(a), str(b)]
        assert data["multiplicity"] == len(cables)
        source, target = (str(a), str(b)) if a < b else (str(b), str(a))
        ports_a = data["source_ports" if str(a) == source else "target_ports"].split(",")
        ports_b = data["target_ports" if str(a) == source else "source_ports"].split(",")
        assert sorted(ports_a) == sorted(cables["a_port"].astype(str))
        assert sorted(ports_b) == sorted(cables["b_port"].astype(str))
        assert data["length_m"] == pytest.approx(cables["length_m"].max())
        assert data["latency_ns"] == pytest.approx(cables["latency_ns"].max())
        media = set(cables["media"])
        assert data["media"] == (media.pop() if len(media) == 1 else "mixed")
        assert set(data["labels"].split(" ")) == set(cables["label"])
        seen += len(cables)
    assert seen == len(net) == plan.topology.num_links


def test_keys_are_typed_like_networkx_and_unique(read_back):
    _, _, text = read_back
    assert 'attr.name="endpoints" attr.type="long"' in text
    assert 'attr.name="length_m" attr.type="double"' in text
    ids = [line.split('id="')[1].split('"')[0] for line in text.splitlines()
           if line.strip().startswith("<key ")]
    assert len(ids) == len(set(ids))


def test_parallel_links_are_one_edge_with_multiplicity():
    plan = get_plan("slimfly-hot")
    table = graphml.edge_table(plan)
    assert len(table) == len(plan.topology.links)
    assert np.array_equal(table["multiplicity"].to_numpy(), plan.topology.multiplicity)
