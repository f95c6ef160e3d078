"""Importers: hand-written fixtures of each format, round trips, malformed files."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from planner.exports.anynet import netlist_lines
from planner.run.errors import InputError
from planner.topologies import build, parse_spec
from planner.topologies.importers import write_edge_csv, write_graphml

FIX = Path(__file__).parent / "fixtures" / "topologies"


@pytest.mark.parametrize("name, multiplicity, endpoints", [
    ("ring4.graphml", [2, 1, 1, 1], [2, 2, 2, 1]),
    ("ring4.csv", [2, 1, 1, 1], [2, 2, 2, 1]),
    ("ring4.anynet", [1, 1, 1, 1], [2, 2, 2, 2]),  # anynet cannot express parallel links
])
def test_fixtures(name, multiplicity, endpoints):
    top = parse_spec(f"file:{FIX / name}")
    assert top.family == "import" and top.num_routers == 4
    assert top.links.tolist() == [[0, 1], [0, 3], [1, 2], [2, 3]]
    assert top.multiplicity.tolist() == multiplicity
    assert top.endpoints.tolist() == endpoints


def _same(a, b):
    ga, gb = a.to_networkx(), b.to_networkx()
    assert nx.is_isomorphic(ga, gb, node_match=lambda x, y: x["endpoints"] == y["endpoints"],
                            edge_match=lambda x, y: x["multiplicity"] == y["multiplicity"])
    assert (a.links == b.links).all() and (a.multiplicity == b.multiplicity).all()
    assert (a.endpoints == b.endpoints).all()


@pytest.mark.parametrize("family, params", [
    ("slimfly", {"q": 5}),
    ("dragonfly", {"a": 2, "h": 4, "g": 3}),     # parallel global links (multiplicity 2)
    ("fattree", {"k": 4}),                      # endpoints on edge routers only
    ("demipn", {"q": 3}),
])
@pytest.mark.parametrize("writer, ext", [(write_graphml, "graphml"), (write_edge_csv, "csv")])
def test_round_trip(tmp_path, family, params, writer, ext):
    top = build(family, **params)
    path = tmp_path / f"net.{ext}"
    writer(top, path)
    _same(top, parse_spec(f"file:{path}"))


def test_round_trip_has_parallel_links():
    assert build("dragonfly", a=2, h=4, g=3).multiplicity.max() == 2


def test_uniform_p_for_files_without_endpoints(tmp_path):
    path = tmp_path / "links.csv"
    path.write_text("0,1\n1,2\n2,0,3\n")
    top = parse_spec(f"file:{path}?p=5")
    assert top.endpoints.tolist() == [5, 5, 5] and top.multiplicity.tolist() == [1, 3, 1]
    with pytest.raises(InputError, match=r"no 'router,endpoints' table; .*\?p=N"):
        parse_spec(f"file:{path}")


def test_anynet_node_heads_latencies_and_side_table(tmp_path):
    net = tmp_path / "netlist.anynet"
    net.write_text("router 0 node 0 router 1 7 router 2\nnode 1 router 1\n"
                   "router 2 node 2 node 3 router 1 3\n")
    (tmp_path / "netlist.multiplicity.csv").write_text(
        "u,v,multiplicity,length_m\n0,1,2,3.5\n1,2,1,2.0\n")
    top = parse_spec(f"file:{net}")
    assert top.endpoints.tolist() == [1, 1, 2]
    assert top.links.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert top.multiplicity.tolist() == [2, 1, 1]


GRAPHML = ('<?xml version="1.0" encoding="UTF-8"?>'
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
           '<key id="ep" for="node" attr.name="endpoints" attr.type="int"/>'
           '<graph edgedefault="undirected">{nodes}{edges}</graph></graphml>')

BAD = [
    ("a.csv", "0,1\n1,1\n", r"line 2: self-loop on router 1"),
    ("a.csv", "0,1\n1,x\n", r"line 2: field 'x' is not a non-negative integer"),
    ("a.csv", "0,1\n0,5\nrouter,endpoints\n0,1\n1,1\n", r"line 2: unknown router 5; .*0\.\.1"),
    ("a.csv", "0,1,0\n", r"line 1: count must be >= 1"),
    ("a.csv", "0,1,2,3\n", r"line 1: expected a,b\[,count\], got 4 fields"),
    ("a.csv", "0,1\nrouter,endpoints\n0,1\n2,1\n", r"skips router 1"),
    ("a.anynet", "router 0 router 0\n", r"line 1: self-loop on router 0"),
    ("a.anynet", "router 0 node 0 router 1\nrouter 1 foo 3\n", r"line 2: unexpected token 'foo'"),
    ("a.anynet", "router 0 node x\n", r"line 1: 'node' must be followed by a non-negative integer"),
    ("a.anynet", "router 0 node 0 router 1\nrouter 1 node 0\n", r"node 0 is attached to routers 0 and 1"),
    ("a.anynet", "router 0 node 0 router 2\n", r"router 1 is never mentioned"),
    ("a.anynet", "router 0 node 1 router 1\n", r"node 0 is never attached"),
    ("a.anynet", "// comment\n", r"line 1: unexpected token '//'"),
    ("a.graphml", "<graphml><graph", r"not valid GraphML"),
    ("a.txt", "0,1\n", r"unknown extension '.txt'; use one of .graphml, .csv, .anynet"),
    ("a.csv", "0,1\n1,200000\n", r"line 2: b = 200000 is too large; at most 199999"),
    ("a.csv", "0,1,10001\n", r"line 1: count = 10001 is too large; at most 10000"),
    ("a.csv", "0,1\nrouter,endpoints\n0,1\n1,99999999999999999999\n",
     r"line 4: endpoints = 99999999999999999999 is too large"),
    ("a.anynet", "router 0 router 1\nrouter 1 node 0 router 99999999999\n",
     r"line 2: router id 99999999999 is too large; ids are 0\.\.199999"),
    ("a.graphml", GRAPHML.format(nodes='<node id="0"/><node id="1"/>', edges=(
        '<edge source="0" target="1"/><edge source="1" target="7"/>')),
     r"an edge names node '7', which has no <node id=\"7\"> element"),
    ("a.graphml", GRAPHML.format(nodes='<node id="0"><data key="ep">lots</data></node>', edges=""),
     r"a <data> value does not match the attr.type of its <key> \(.*'lots'\)"),
]


@pytest.mark.parametrize("name, text, message", BAD, ids=[f"{b[0]}-{b[2][:24]}" for b in BAD])
def test_malformed_files(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=message) as err:
        parse_spec(f"file:{path}")
    assert "\n" not in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("name", ["a.csv", "a.anynet"])
def test_not_utf8(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"0,1\n\xff\xfe,2\n" if name.endswith(".csv") else b"router 0 \xff\n")
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xff at offset \d+\); save it "
                                         r"as UTF-8"):
        parse_spec(f"file:{path}")


def test_byte_order_mark_is_skipped(tmp_path):
    """Spreadsheet programs start UTF-8 CSV files with a BOM; the header still reads."""
    path = tmp_path / "bom.csv"
    path.write_bytes("a,b,count\n0,1,2\nrouter,endpoints\n0,3\n1,4\n".encode("utf-8-sig"))
    top = parse_spec(f"file:{path}")
    assert top.multiplicity.tolist() == [2] and top.endpoints.tolist() == [3, 4]


def test_uniform_p_is_bounded(tmp_path):
    with pytest.raises(InputError, match=r"p must be an integer between 1 and 10000, got '10001'"):
        parse_spec(f"file:{FIX / 'ring4.csv'}?p=10001")


@pytest.mark.parametrize("family, params", [
    ("slimfly", {"q": 5}),
    ("dragonfly", {"a": 2, "h": 4, "g": 3}),     # parallel global links, in the side table
    ("fattree", {"k": 4}),                      # routers without endpoints
])
def test_anynet_round_trip(tmp_path, family, params):
    """The netlist lines ``planner plan`` writes (exports.anynet) and the multiplicity side
    table read back to the same graph with the same endpoints."""
    top = build(family, **params)
    u, v = top.links[:, 0], top.links[:, 1]
    lines = netlist_lines(top.endpoints, u, v, np.ones(len(u), dtype=np.int64))
    (tmp_path / "netlist.anynet").write_text("\n".join(lines) + "\n")
    side = ["u,v,multiplicity"] + [f"{a},{b},{m}" for a, b, m in zip(u, v, top.multiplicity)]
    (tmp_path / "netlist.multiplicity.csv").write_text("\n".join(side) + "\n")
    _same(top, parse_spec(f"file:{tmp_path / 'netlist.anynet'}"))


def test_graphml_errors(tmp_path):
    g = nx.Graph()
    g.add_node("a", endpoints=2)
    g.add_node("b", endpoints="many")
    g.add_edge("a", "b")
    path = tmp_path / "g.graphml"
    nx.write_graphml(g, path)
    with pytest.raises(InputError, match="node 'b' attribute 'endpoints' must be an integer"):
        parse_spec(f"file:{path}")
    g.nodes["b"]["endpoints"] = 1
    g.add_edge("a", "a")
    nx.write_graphml(g, path)
    with pytest.raises(InputError, match="self-loop on node 'a'"):
        parse_spec(f"file:{path}")


def test_graphml_string_ids_keep_file_order(tmp_path):
    g = nx.Graph()
    for name in ("sw-b", "sw-a", "sw-c"):
        g.add_node(name, endpoints=1)
    g.add_edges_from([("sw-b", "sw-a"), ("sw-a", "sw-c")])
    path = tmp_path / "named.graphml"
    nx.write_graphml(g, path)
    top = parse_spec(f"file:{path}")
    assert top.links.tolist() == [[0, 1], [1, 2]] and np.all(top.endpoints == 1)


def test_missing_file_and_bad_p(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        parse_spec(f"file:{tmp_path / 'none.csv'}")
    with pytest.raises(InputError, match="p must be a positive integer .*, got 'x'"):
        parse_spec(f"file:{FIX / 'ring4.csv'}?p=x")
    with pytest.raises(InputError, match="unknown option 'q'"):
        parse_spec(f"file:{FIX / 'ring4.csv'}?q=1")
