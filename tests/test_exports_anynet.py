"""BookSim2 anynet export: read back with a parser that enforces the real reader's grammar.

The parser follows ``AnyNet::readFile()`` (booksim2 src/networks/anynet.cpp) and additionally
rejects everything the real reader mishandles: tabs or repeated spaces, any
head other than ``router`` (``node`` heads create phantom routers, unknown heads assert),
comments, latencies on ``node`` entries, router/node ids that are not exactly 0..N-1, a node on
two routers, a router pair listed twice on one line, and links whose two directions disagree.
"""

from __future__ import annotations

import heapq
import math
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from planner.exports import anynet
from planner.performance import simulators
from planner.plan import plan as make_plan
from planner.topologies import FAMILIES
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
    per_hop = re.search(r"a per-hop delay of (\d+) cycles",
                        (out / anynet.CONFIG).read_text()).group(1)
    for (u, v), ns in worst.items():
        assert graph[u][v]["cycles"] == max(1, int(np.ceil(round(ns, 6)))) + int(per_hop)


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


def cfg_settings(text: str) -> dict[str, str]:
    settings = {}
    for statement in re.sub(r"//[^\n]*", "", text).split(";"):
        if statement.strip():
            key, value = (part.strip() for part in statement.split("="))
            settings[key] = value
    return settings


def test_booksim_config_runs_the_netlist_from_any_folder(written):
    _, out = written
    text = (out / anynet.CONFIG).read_text()
    settings = cfg_settings(text)
    assert settings["topology"] == "anynet"
    assert settings["network_file"] == anynet.NETLIST    # relative: BookSim runs in the folder
    assert settings["routing_function"] == "min"
    assert float(settings["latency_thres"]) > 0 and "." in settings["latency_thres"]
    longest = max(parse_anynet((out / anynet.NETLIST).read_text())[0].edges(data="cycles"),
                  key=lambda e: e[2])[2]
    assert int(settings["vc_buf_size"]) >= 2 * longest          # credits' round trip
    assert "1 ns per cycle" in text


def booksim_routes(graph: nx.Graph, num_routers: int) -> list[dict[int, int]]:
    """Next hop per (router, destination router) as BookSim's ``AnyNet::route`` computes it:
    Dijkstra over the channel latencies from every router, the unvisited router of least
    distance taken next (lowest id on ties: it scans an ordered set), strict improvement only;
    the next hop towards t is the first router on the tree path to t."""
    tables = []
    for start in range(num_routers):
        dist = {r: math.inf for r in range(num_routers)}
        prev = {r: -1 for r in range(num_routers)}
        dist[start] = 0
        heap = [(0, start)]
        done = set()
        while heap:
            d, x = heapq.heappop(heap)
            if x in done:
                continue
            done.add(x)
            for y in sorted(graph[x]):
                nd = d + graph[x][y]["cycles"]
                if nd < dist[y]:
                    dist[y], prev[y] = nd, x
                    heapq.heappush(heap, (nd, y))
        table = {}
        for t in range(num_routers):
            if t == start:
                continue
            hop = t
            while prev[hop] != start:
                hop = prev[hop]
            table[t] = hop
        tables.append(table)
    return tables


def routed_hops(graph: nx.Graph, nodes: dict[int, list[int]]) -> dict[tuple[int, int], int]:
    """Hops of every packet route between routers with endpoints, hop by hop through each
    router's own table (as min_anynet forwards)."""
    tables = booksim_routes(graph, graph.number_of_nodes())
    leaves = [r for r, ns in nodes.items() if ns]
    hops = {}
    for s in leaves:
        for t in leaves:
            x, count = s, 0
            while x != t:
                x, count = tables[x][t], count + 1
                assert count <= graph.number_of_nodes()
            hops[s, t] = count
    return hops


SMALL = {"slimfly": "slimfly:q=5", "dragonfly": "dragonfly:a=4,p=2,h=2",
         "fattree": "fattree:k=4", "hyperx": "hyperx:S=4x4,p=2", "oft": "oft:q=3",
         "mlfm": "mlfm:h=3", "pn": "pn:q=3", "demipn": "demipn:q=5",
         "galaxyfly": "galaxyfly:n=4,q=1,a=3,h=2", "jellyfish": "jellyfish:routers=30,degree=5,p=2",
         "torus": "torus:dims=4x4x3", "hypercube": "hypercube:d=5,p=2",
         "railfattree": "railfattree:units=2,servers=4,nics=2,radix=8",
         "multiplane": "multiplane:planes=2,radix=4", "dragonflyplus": "dragonflyplus:radix=6,g=4"}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_booksim_routes_every_family_minimally(family, tmp_path):
    plan = make_plan(SMALL[family], "modern-100g", "hot-aisle", strategy="hint",
                     time_limit_s=5)
    anynet.write(plan, tmp_path)
    graph, nodes = parse_anynet((tmp_path / anynet.NETLIST).read_text())
    minimal = dict(nx.all_pairs_shortest_path_length(graph))
    for (s, t), hops in routed_hops(graph, nodes).items():
        assert hops == minimal[s][t], (family, s, t)


def test_raised_per_hop_delay_keeps_routes_minimal_and_writes_the_physical_pair(tmp_path):
    plan = make_plan("slimfly:q=5", "modern-100g", "hot-aisle", strategy="hint",
                     time_limit_s=5, router_latency_ns=0)
    anynet.write(plan, tmp_path)
    text = (tmp_path / anynet.CONFIG).read_text()
    graph, nodes = parse_anynet((tmp_path / anynet.NETLIST).read_text())
    cycles = sorted(c for _, _, c in graph.edges(data="cycles"))
    assert "makes every route minimal" in text and anynet.PHYSICAL_CONFIG in text
    minimal = dict(nx.all_pairs_shortest_path_length(graph))
    assert all(h == minimal[s][t] for (s, t), h in routed_hops(graph, nodes).items())
    # the physical netlist carries the cable delays alone (router delay 0): latency routing
    physical, _ = parse_anynet((tmp_path / anynet.PHYSICAL_NETLIST).read_text())
    per_hop = cycles[0] - min(c for _, _, c in physical.edges(data="cycles"))
    assert per_hop > 0
    assert all(physical[u][v]["cycles"] + per_hop == c for u, v, c in graph.edges(data="cycles"))
    settings = cfg_settings((tmp_path / anynet.PHYSICAL_CONFIG).read_text())
    assert settings["network_file"].endswith(anynet.PHYSICAL_NETLIST)


def test_fat_tree_cfg_and_summary_warn_about_single_path_routing(tmp_path):
    plan = make_plan("fattree:k=4", "modern-100g", "hot-aisle", strategy="hint", time_limit_s=5)
    anynet.write(plan, tmp_path)
    assert "// WARNING: fattree is an indirect network" in (tmp_path / anynet.CONFIG).read_text()
    assert "ONE shortest path" in plan.summary["simulators"]["booksim"]["warning"]
    assert get_plan("slimfly-hot").summary["simulators"]["booksim"]["warning"] is None


def test_the_files_are_the_same_in_any_folder(tmp_path):
    """The cfg names its netlist relative to the folder BookSim runs in, so a plan folder
    written, moved or copied anywhere (a space in the path too) has the same bytes."""
    plan = get_plan("slimfly-hot")
    folders = [tmp_path / ".plan.tmp-abc12345", tmp_path / "with space" / "plan"]
    for folder in folders:
        folder.mkdir(parents=True)
        anynet.write(plan, folder)
    names = sorted(p.name for p in folders[0].iterdir())
    assert names == sorted(p.name for p in folders[1].iterdir())
    assert anynet.LAUNCHER in names
    for name in names:
        assert (folders[0] / name).read_bytes() == (folders[1] / name).read_bytes(), name
    assert cfg_settings((folders[1] / anynet.CONFIG).read_text())["network_file"] == \
        anynet.NETLIST


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


@pytest.mark.parametrize("ns, cycle_ns, cycles", [(0.2, 1, 1), (4.5, 1, 5), (9.0, 1, 9),
                                                  (9.0000000001, 1, 9), (9.01, 1, 10),
                                                  (24.5, 1, 25), (24.5, 2, 13), (3.0, 0.5, 6)])
def test_latency_cycles_round_up_and_never_below_one(ns, cycle_ns, cycles):
    assert simulators.cycles_of(np.array([ns]), cycle_ns).tolist() == [cycles]


def test_per_hop_delay_is_the_smallest_that_guarantees_minimal_routes():
    """H > D·(c_max - c_min) - c_min: a k-hop path then always beats a (k+1)-hop one."""
    plan = get_plan("dragonfly-hot")
    top = plan.topology
    ch = simulators.booksim_channels(top, plan.cables, 0.0, 1.0)
    lo, hi = int(ch.cable_cycles.min()), int(ch.cable_cycles.max())
    assert ch.reach == 3 and ch.minimal_per_hop == 3 * (hi - lo) - lo + 1
    assert ch.per_hop == ch.minimal_per_hop > 0 and ch.raised             # router delay 0
    big = simulators.booksim_channels(top, plan.cables, 1000.0, 1.0)
    assert big.per_hop == big.router_cycles == 1000 and not big.raised
