"""BookSim2 anynet export: read back with a parser that enforces the real reader's grammar.

The parser follows ``AnyNet::readFile()`` (booksim2 src/networks/anynet.cpp, ecosystem.md §1.2)
and additionally rejects everything the real reader mishandles: tabs or repeated spaces, any
head other than ``router`` (``node`` heads create phantom routers, unknown heads assert),
comments, latencies on ``node`` entries, router/node ids that are not exactly 0..N-1, a node on
two routers, a router pair listed twice on one line, and links whose two directions disagree.
"""

from __future__ import annotations

import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from planner.exports import anynet
from test_exports_plans import get_plan

PLANS = ["slimfly-hot", "dragonfly-hot", "dragonfly-trunk"]


class AnynetError(ValueError):
    pass


def parse_anynet(text: str):
    """(graph with edge attr 'cycles', {router: [nodes]}) from a netlist, strictly."""
    if "\r" in text:
        raise AnynetError("CR line ending")
    if not text.endswith("\n"):
        raise AnynetError("missing final LF")
    links: dict[tuple[int, int], int] = {}
    nodes: dict[int, list[int]] = {}
    owner: dict[int, int] = {}
    routers = set()
    for number, line in enumerate(text[:-1].split("\n"), start=1):
        if "\t" in line or "  " in line or line != line.strip():
            raise AnynetError(f"line {number}: only single spaces may separate tokens")
        tokens = line.split(" ")
        if tokens[0] != "router" or len(tokens) < 2 or not tokens[1].isdigit():
            raise AnynetError(f"line {number}: must start with 'router <id>'")
        head = int(tokens[1])
        if head in routers:
            raise AnynetError(f"line {number}: router {head} has two lines")
        routers.add(head)
        nodes[head] = []
        i, seen = 2, set()
        while i < len(tokens):
            kind = tokens[i]
            if kind not in ("router", "node") or i + 1 >= len(tokens) \
                    or not tokens[i + 1].isdigit():
                raise AnynetError(f"line {number}: bad token {kind!r}")
            ident = int(tokens[i + 1])
            i += 2
            latency = None
            if i < len(tokens) and tokens[i].isdigit():
                latency = int(tokens[i])
                i += 1
            if kind == "node":
                if latency is not None:
                    raise AnynetError(f"line {number}: latency on node {ident}")
                if ident in owner:
                    raise AnynetError(f"node {ident} on routers {owner[ident]} and {head}")
                owner[ident] = head
                nodes[head].append(ident)
                continue
            if latency is None or latency < 1:
                raise AnynetError(f"line {number}: router {ident} without a latency >= 1")
            if ident in seen or ident == head:
                raise AnynetError(f"line {number}: router {ident} repeated or self-link")
            seen.add(ident)
            links[head, ident] = latency
    if sorted(routers) != list(range(len(routers))):
        raise AnynetError("router ids are not 0..R-1")
    if sorted(owner) != list(range(len(owner))):
        raise AnynetError("node ids are not 0..N-1")
    graph = nx.Graph()
    graph.add_nodes_from(range(len(routers)))
    for (u, v), lat in links.items():
        if links.get((v, u)) != lat:
            raise AnynetError(f"link {u}-{v}: latency {lat} one way, {links.get((v, u))} back")
        graph.add_edge(u, v, cycles=lat)
    return graph, nodes


@pytest.fixture(scope="module", params=PLANS)
def written(request, tmp_path_factory):
    plan = get_plan(request.param)
    out = tmp_path_factory.mktemp(request.param)
    anynet.write(plan, out)
    return plan, out


def test_netlist_reads_back_to_the_same_graph_endpoints_and_latencies(written):
    plan, out = written
    raw = (out / anynet.NETLIST).read_bytes()
    assert raw.isascii()
    graph, nodes = parse_anynet(raw.decode("ascii"))
    top = plan.topology
    assert graph.number_of_nodes() == top.num_routers
    assert set(map(frozenset, graph.edges())) == set(map(frozenset, top.links.tolist()))
    assert [len(nodes[r]) for r in range(top.num_routers)] == top.endpoints.tolist()
    offsets = np.concatenate([[0], np.cumsum(top.endpoints)])
    assert all(nodes[r] == list(range(offsets[r], offsets[r + 1])) for r in nodes)
    net = plan.cables[plan.cables["kind"] == "network"]
    worst = {}
    for a, b, ns in zip(net["a_router"], net["b_router"], net["latency_ns"]):
        key = (min(a, b), max(a, b))
        worst[key] = max(worst.get(key, 0.0), ns)
    for (u, v), ns in worst.items():
        assert graph[u][v]["cycles"] == max(1, int(np.ceil(round(ns * anynet.CYCLES_PER_NS, 6))))


def test_multiplicity_side_file_restores_every_cable(written):
    plan, out = written
    side = pd.read_csv(out / anynet.MULTIPLICITY)
    top = plan.topology
    assert side[["u", "v"]].to_numpy().tolist() == top.links.tolist()
    assert side["multiplicity"].tolist() == top.multiplicity.tolist()
    assert side["multiplicity"].sum() == (plan.cables["kind"] == "network").sum()
    graph, _ = parse_anynet((out / anynet.NETLIST).read_text())
    assert [graph[u][v]["cycles"] for u, v in zip(side["u"], side["v"])] == \
        side["cycles"].tolist()


def test_parallel_cables_are_one_channel_counted_in_the_side_file(tmp_path):
    plan = get_plan("dragonfly-trunk")
    anynet.write(plan, tmp_path)
    graph, _ = parse_anynet((tmp_path / anynet.NETLIST).read_text())
    side = pd.read_csv(tmp_path / anynet.MULTIPLICITY)
    trunks = side[side["multiplicity"] > 1]
    assert len(trunks) == 12 and set(trunks["multiplicity"]) == {2}
    assert graph.number_of_edges() == len(side) < (plan.cables["kind"] == "network").sum()
    for u, v, labels in zip(trunks["u"], trunks["v"], trunks["labels"]):
        pair = plan.cables[((plan.cables["a_router"] == u) & (plan.cables["b_router"] == v)) |
                           ((plan.cables["a_router"] == v) & (plan.cables["b_router"] == u))]
        assert sorted(labels.split(" ")) == sorted(pair["label"])


def test_booksim_config_runs_the_netlist(written):
    _, out = written
    text = (out / anynet.CONFIG).read_text()
    settings = {}
    for statement in re.sub(r"//[^\n]*", "", text).split(";"):
        if statement.strip():
            key, value = (part.strip() for part in statement.split("="))
            settings[key] = value
    assert settings["topology"] == "anynet"
    assert settings["network_file"] == anynet.NETLIST
    assert settings["routing_function"] == "min"
    assert re.fullmatch(r"[A-Za-z_\-][A-Za-z0-9_\-.]*", settings["network_file"])
    assert "1 cycles/ns" in text


@pytest.mark.parametrize("bad", [
    "router 0\tnode 0 router 1 2\nrouter 1 node 1 router 0 2\n",      # tab
    "router 0 node 0 router 1 2 // link\nrouter 1 node 1 router 0 2\n",  # comment
    "router 0 node 0 3 router 1 2\nrouter 1 node 1 router 0 2\n",      # node latency
    "router 0 node 0 router 2 2\nrouter 2 node 1 router 0 2\n",        # router id gap
    "router 0 node 0 router 1 2\nrouter 1 node 2 router 0 2\n",        # node id gap
    "node 0 router 0\nrouter 0 router 1 2\nrouter 1 node 1 router 0 2\n",  # node head
    "router 0 node 0 router 1 2\nrouter 1 node 1 router 0 5\n",        # one-way latency
    "router 0  node 0 router 1 2\nrouter 1 node 1 router 0 2\n",       # double space
    "router 0 node 0 router 1 2\nrouter 1 node 1 router 0\n",          # missing latency
])
def test_parser_rejects_what_booksim_would_misread(bad):
    with pytest.raises(AnynetError):
        parse_anynet(bad)


@pytest.mark.parametrize("ns, cycles", [(0.2, 1), (4.5, 5), (9.0, 9), (9.0000000001, 9), (9.01, 10),
                                        (24.5, 25)])
def test_latency_cycles_round_up_and_never_below_one(ns, cycles):
    assert anynet.latency_cycles(np.array([ns])).tolist() == [cycles]
