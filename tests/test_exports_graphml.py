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


def anytopo_import(path):
    """What SST/Merlin's ``topoAny.import_graph`` + ``_process_graph`` do with a GraphML file
    (sst-elements merlin/topology/pymerlin-topo-any.py), and the check its C++ side
    (anytopo.cc) makes: every router needs an endpoint-to-port mapping, i.e. >= 1 endpoint."""
    g = nx.read_graphml(path)
    assert not g.is_directed(), "FATAL: Input graph must be undirected"
    if not all(isinstance(v, int) for v in g.nodes()):
        g = nx.relabel_nodes(g, {node: i for i, node in enumerate(g.nodes())}, copy=True)
    endpoints = {}
    for v in g.nodes():
        assert "endpoints" in g.nodes[v], "each vertex needs an 'endpoints' attribute"
        endpoints[v] = int(g.nodes[v]["endpoints"])
    r2r_ports = {v: len(list(g.edges(v))) for v in g.nodes()}
    cpp_accepts = all(n >= 1 for n in endpoints.values())
    return g, endpoints, r2r_ports, cpp_accepts


@pytest.mark.parametrize("spec, accepted", [("slimfly:q=5", True), ("fattree:k=4", False),
                                            ("oft:q=3", False), ("dragonfly:a=4,p=2,h=2", True)])
def test_merlin_anytopo_reads_it_and_the_file_says_whether_it_can_run(spec, accepted, tmp_path):
    from planner.plan import plan

    result = plan(spec, "modern-100g", "hot-aisle", strategy="hint", time_limit_s=5)
    graphml.write(result, tmp_path)
    path = tmp_path / graphml.FILENAME
    g, endpoints, r2r, cpp_accepts = anytopo_import(path)
    top = result.topology
    assert [endpoints[r] for r in range(top.num_routers)] == top.endpoints.tolist()
    assert [r2r[r] for r in range(top.num_routers)] == \
        np.count_nonzero(top.adjacency.toarray(), axis=1).tolist()
    assert cpp_accepts is accepted
    attr = g.graph["merlin_anytopo"]
    assert (attr == "accepted") is accepted
    assert result.summary["simulators"]["merlin_anytopo"]["accepted"] is accepted
    if not accepted:
        spines = int((top.endpoints == 0).sum())
        assert attr.startswith(f"{spines:,} routers have no endpoints")
        assert "No endpoint-to-port mapping provided" in path.read_text().splitlines()[1]
