"""The GPU-fabric families (issue 27 item 2): rail-optimised and multi-plane fat trees and
Dragonfly+, against the published reference designs and their constructions.

- Rail-optimised: NVIDIA DGX SuperPOD B200 reference architecture, "Larger DGX SuperPOD
  component counts" (32 servers x 8 NICs per scalable unit, 64-port switches): leaves, spines,
  cores and the node-leaf, leaf-spine and spine-core cables of 2 to 64 units.
- Multi-plane: 8 planes of two-tier fat trees on 64-port switches, 16,384 NICs on 768 switches.
- Dragonfly+ (Shpiner et al., HiPINEB 2017): radix 16 gives groups of 8 leaves + 8 spines and
  64 endpoints, at most 65 groups, 8 global links per spine, leaf-to-leaf diameter 3.

Counts are counted on the built graph by role (not read from the builder's own shape), the
rail and plane wiring is checked from the links and the server layout, distances by BFS.
"""

from __future__ import annotations

import csv
import json
from collections import deque

import numpy as np
import pytest

from planner.cli import main
from planner.topologies import build, parse_spec
from planner.topologies.servers import nic_endpoints
from planner.topologies.sizing import nearest


def role_counts(top) -> dict[str, int]:
    return {r: top.roles.count(r) for r in dict.fromkeys(top.roles)}


def cables_between(top, a: str, b: str) -> int:
    """Router-router cables (with multiplicity) between routers of roles a and b."""
    roles = np.array(top.roles)
    u, v = roles[top.links[:, 0]], roles[top.links[:, 1]]
    both = ((u == a) & (v == b)) | ((u == b) & (v == a))
    return int(top.multiplicity[both].sum())


def neighbours(top) -> list[list[int]]:
    adj = [[] for _ in range(top.num_routers)]
    for u, v in top.links.tolist():
        adj[u].append(v)
        adj[v].append(u)
    return adj


def bfs(adj, source: int) -> np.ndarray:
    """Hops from ``source`` to every router (-1: unreachable)."""
    dist = np.full(len(adj), -1)
    dist[source] = 0
    todo = deque([source])
    while todo:
        u = todo.popleft()
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                todo.append(v)
    return dist


# ----------------------------------------------------------------------------- rail-optimised

# SuperPOD B200 RA: units, leaves, spines, cores, node-leaf, leaf-spine, spine-core cables
SUPERPOD = [
    (2, 16, 8, 0, 512, 512, 0),
    (4, 32, 16, 0, 1024, 1024, 0),
    (8, 64, 32, 0, 2048, 2048, 0),
    (16, 128, 128, 64, 4096, 4096, 4096),
    (32, 256, 256, 128, 8192, 8192, 8192),
    (64, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize("units, leaves, spines, cores, node_leaf, leaf_spine, spine_core",
                         SUPERPOD)
def test_rail_fat_tree_reproduces_the_superpod_table(units, leaves, spines, cores, node_leaf,
                                                     leaf_spine, spine_core):
    top = build("railfattree", units=units, servers=32, nics=8, radix=64)
    expected = {"leaf": leaves, "spine": spines} | ({"core": cores} if cores else {})
    assert role_counts(top) == expected
    assert top.num_endpoints == node_leaf == units * 32 * 8
    assert cables_between(top, "leaf", "spine") == leaf_spine
    assert cables_between(top, "spine", "core") == spine_core
    assert top.num_links == leaf_spine + spine_core       # no other router-router cable
    assert top.radix <= 64


def test_every_nic_i_of_a_unit_is_on_its_rail_i_leaf():
    """From the server layout alone: a server's 8 NICs sit on 8 distinct leaves of its own
    unit, NIC i on the leaf that carries NIC i of every other server of the unit."""
    for units in (4, 16):
        top = build("railfattree", units=units, servers=32, nics=8, radix=64)
        router, server, nic = nic_endpoints(top)
        assert sorted(np.bincount(server).tolist()) == [8] * (units * 32)   # 8 NICs each
        unit = server // 32
        assert (top.groups[router] == unit).all()          # the leaf is in the server's unit
        rail_leaf = {}
        for r, u, i in zip(router.tolist(), unit.tolist(), nic.tolist()):
            assert rail_leaf.setdefault((u, i), r) == r    # one leaf per (unit, rail)
        assert len(set(rail_leaf.values())) == units * 8   # and a different leaf for each
        roles = np.array(top.roles)
        assert (roles[router] == "leaf").all()


def test_three_tier_spines_are_partitioned_by_rail():
    """16 units: every spine's leaves carry one rail only (the rail's spine-leaf group, every
    spine of the group joined to every leaf of it), and every core joins spines of all 8 rail
    groups."""
    top = build("railfattree", units=16, servers=32, nics=8, radix=64)
    router, _, nic = nic_endpoints(top)
    leaf_rail = dict(zip(router.tolist(), nic.tolist()))
    roles = np.array(top.roles)
    adj = neighbours(top)
    spine_rail = {}
    for s in np.flatnonzero(roles == "spine").tolist():
        rails = {leaf_rail[v] for v in adj[s] if roles[v] == "leaf"}
        assert len(rails) == 1
        spine_rail[s] = rails.pop()
        assert sum(roles[v] == "leaf" for v in adj[s]) == 16     # all 16 units' rail leaves
    for c in np.flatnonzero(roles == "core").tolist():
        assert {spine_rail[v] for v in adj[c]} == set(range(8))
    assert distances_between_leaves(top) == {2, 4}               # same group 2, else via core


def distances_between_leaves(top) -> set[int]:
    adj = neighbours(top)
    leaves = top.leaves()
    seen = set()
    for s in leaves[:: max(1, len(leaves) // 8)].tolist():
        d = bfs(adj, s)[leaves]
        seen |= set(d[d > 0].tolist())
    return seen


def test_a_unit_larger_than_a_leaf_takes_whole_leaves_per_rail():
    """64 servers per unit on 64-port switches: each rail of a unit is 2 leaves of 32 servers
    (2 units: 32 leaves and 16 spines, 1,024 NICs); NIC i of every server still on one of its
    unit's rail-i leaves, each server's 8 NICs on 8 different leaves."""
    top = build("railfattree", units=2, servers=64, nics=8, radix=64)
    assert role_counts(top) == {"leaf": 32, "spine": 16} and top.num_endpoints == 1024
    router, server, nic = nic_endpoints(top)
    unit = server // 64
    assert (top.groups[router] == unit).all()
    for u in range(2):
        for i in range(8):
            leaves = set(router[(unit == u) & (nic == i)].tolist())
            assert len(leaves) == 2 and all(top.endpoints[r] == 32 for r in leaves)
    per_server = {}
    for r, sv in zip(router.tolist(), server.tolist()):
        per_server.setdefault(sv, set()).add(r)
    assert all(len(rs) == 8 for rs in per_server.values())


@pytest.mark.parametrize("oversub, up", [(1, 32), (2, 16), (4, 8), ("1.6", 20)])
def test_oversubscription_at_the_leaf(oversub, up):
    top = build("railfattree", units=4, servers=32, nics=8, radix=64, oversub=oversub)
    leaves = np.flatnonzero(np.array(top.roles) == "leaf")
    assert set(top.degree[leaves].tolist()) == {up}
    assert cables_between(top, "leaf", "spine") == 32 * up


def test_two_tiers_join_every_leaf_to_every_spine_evenly():
    top = build("railfattree", units=4, servers=32, nics=8, radix=64)
    assert len(top.links) == 32 * 16 and set(top.multiplicity.tolist()) == {2}
    assert distances_between_leaves(top) == {2}


# ----------------------------------------------------------------------------- multi-plane

def test_multiplane_counts_and_independent_planes():
    top = build("multiplane", planes=8, radix=64)
    assert top.num_endpoints == 16_384 and top.num_routers == 768
    assert role_counts(top) == {"leaf": 8 * 64, "spine": 8 * 32}
    adj = neighbours(top)
    router, server, nic = nic_endpoints(top)
    plane_of = np.full(top.num_routers, -1)
    for start in range(top.num_routers):
        if plane_of[start] < 0:
            reached = bfs(adj, start) >= 0
            plane_of[reached] = plane_of.max() + 1
            per_plane = np.array(top.roles)[reached]
            assert (per_plane == "leaf").sum() == 64 and (per_plane == "spine").sum() == 32
    assert plane_of.max() + 1 == 8                          # 8 disconnected components
    planes_of_nic = {}
    for r, i in zip(router.tolist(), nic.tolist()):
        assert planes_of_nic.setdefault(i, plane_of[r]) == plane_of[r]
    assert sorted(planes_of_nic.values()) == list(range(8))  # NIC i alone in its own plane
    assert sorted(np.bincount(server).tolist()) == [8] * 2048


def test_multiplane_with_fewer_servers_spreads_them_over_the_leaves():
    top = build("multiplane", planes=4, radix=16, endpoints=50)
    leaves = np.flatnonzero(np.array(top.roles) == "leaf")
    assert top.num_endpoints == 200 and len(leaves) == 4 * 7
    assert set(top.endpoints[leaves].tolist()) == {7, 8}   # 50 over 7 leaves


# ----------------------------------------------------------------------------- Dragonfly+

def test_dragonfly_plus_radix_16_at_the_maximum():
    top = build("dragonflyplus", radix=16)
    assert top.params["g"] == 65
    groups, roles = top.groups, np.array(top.roles)
    for grp in range(65):
        mine = groups == grp
        assert (roles[mine] == "leaf").sum() == 8 and (roles[mine] == "spine").sum() == 8
        assert top.endpoints[mine].sum() == 64
    u, v = top.links[:, 0], top.links[:, 1]
    glob = groups[u] != groups[v]
    assert set(roles[u[glob]]) == set(roles[v[glob]]) == {"spine"}
    per_spine = np.bincount(np.concatenate([u[glob], v[glob]]), minlength=top.num_routers)
    assert set(per_spine[roles == "spine"].tolist()) == {8}
    pairs = {(min(a, b), max(a, b)) for a, b in zip(groups[u[glob]], groups[v[glob]])}
    assert len(pairs) == 65 * 64 // 2                        # every pair of groups joined
    adj = neighbours(top)
    leaves = top.leaves()
    assert max(int(bfs(adj, s)[leaves].max()) for s in leaves[::37].tolist()) == 3


def test_dragonfly_plus_fewer_groups_use_every_global_port():
    top = build("dragonflyplus", radix=16, g=10)
    groups = top.groups
    u, v = top.links[:, 0], top.links[:, 1]
    glob = groups[u] != groups[v]
    key = np.minimum(groups[u], groups[v]) * 10 + np.maximum(groups[u], groups[v])
    per_pair = np.bincount(key[glob], weights=top.multiplicity[glob]).astype(int)
    assert set(per_pair[per_pair > 0].tolist()) == {7, 8}    # 64 ports over 9 other groups
    assert int(top.multiplicity[glob].sum()) == 10 * 64 // 2


# ----------------------------------------------------------------------------- command line

def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("spec, tiers, cables", [
    ("railfattree:units=4,servers=32,nics=8,radix=64", {"leaf": 32, "spine": 16},
     {"endpoint-leaf": 1024, "leaf-spine": 1024}),
    ("railfattree:units=16,servers=32,nics=8,radix=64", {"leaf": 128, "spine": 128, "core": 64},
     {"endpoint-leaf": 4096, "leaf-spine": 4096, "spine-core": 4096}),
    ("multiplane:planes=8,radix=64", {"leaf": 512, "spine": 256},
     {"endpoint-leaf": 16384, "leaf-spine": 16384}),
    ("dragonflyplus:radix=16", {"leaf": 520, "spine": 520},
     {"endpoint-leaf": 4160, "leaf-spine": 4160, "spine-spine": 2080}),
])
def test_topology_command_prints_routers_and_cables_per_tier(capsys, spec, tiers, cables):
    code, out, _ = run(capsys, "topology", spec, "--json")
    rep = json.loads(out)
    assert code == 0 and rep["roles"] == tiers and rep["cables_by_tier"] == cables
    code, out, _ = run(capsys, "topology", spec, "--no-distances")
    assert "routers per tier     " + ", ".join(f"{n:,} {r}" for r, n in tiers.items()) in out
    assert "cables per tier      " + ", ".join(f"{n:,} {t}" for t, n in cables.items()) in out


def test_multiplane_distances_are_within_a_plane(capsys):
    code, out, _ = run(capsys, "topology", "multiplane:planes=4,radix=8", "--json")
    rep = json.loads(out)
    assert code == 0 and rep["diameter"] == 2 and rep["distance_scope"] == "leaf to leaf, " \
        "within a plane"


@pytest.mark.parametrize("target, radix", [(1024, 64), (4096, 64), (300, 16), (20000, 32)])
def test_size_proposes_the_families_and_each_builds_with_its_counts(target, radix):
    found = nearest(target, radix, ["railfattree", "multiplane", "dragonflyplus"], count=2)
    for family, options in found.items():
        assert options, family
        for o in options:
            top = parse_spec(o.spec())
            assert (top.num_routers, top.num_endpoints, top.num_links, top.radix) == \
                (o.routers, o.endpoints, o.links, o.radix), o.spec()
            assert o.radix <= radix
    assert found["railfattree"][0].spec() == "railfattree:units=4,servers=32,nics=8," \
        "radix=64,oversub=1" if (target, radix) == (1024, 64) else True
    if (target, radix) == (4096, 64):
        assert found["railfattree"][0].params["units"] == 16


# ----------------------------------------------------------------------------- smoke plans

@pytest.mark.parametrize("spec", ["railfattree:units=2,servers=8,nics=4,radix=16",
                                  "multiplane:planes=2,radix=8",
                                  "dragonflyplus:radix=8,g=5"])
def test_a_small_plan_of_each_family_runs_end_to_end(spec, tmp_path, capsys):
    out = tmp_path / "plan"
    code = main(["plan", "--topology", spec, "--strategy", "hint", "--out", str(out)])
    capsys.readouterr()
    assert code == 0
    top = parse_spec(spec)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["topology"]["routers"] == top.num_routers
    assert summary["topology"]["endpoints"] == top.num_endpoints
    with open(out / "cables.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sum(r["kind"] == "network" for r in rows) == top.num_links
    # endpoint n<j> is cabled to the router the builder put it on (NIC i on its rail-i leaf)
    router, _, _ = nic_endpoints(top)
    cabled = {}
    for r in rows:
        if r["kind"] == "endpoint":
            node, dev = (r["a_device"], r["b_device"]) if r["a_device"].startswith("n") \
                else (r["b_device"], r["a_device"])
            cabled[int(node[1:])] = int(dev[1:])
    assert cabled == dict(enumerate(router.tolist()))
    if top.family == "multiplane":      # measured on one plane, delivered over every NIC
        perf = summary["performance"]
        assert perf["planes"]["count"] == 2 and perf["hops"]["diameter"] == 2
        rate = perf["injection_gbps"]
        assert perf["uniform"]["delivered_tbps"] == pytest.approx(
            perf["uniform"]["theta"] * top.num_endpoints * rate / 1000)
        netlist = (out / "netlist.anynet").read_text().splitlines()
        assert len(netlist) == top.num_routers // 2       # BookSim runs plane 0 alone
        assert (out / "booksim.cfg").read_text().startswith("// plane 0 of 2 identical")


@pytest.mark.parametrize("spec", [
    "railfattree:units=3,servers=24,nics=8,radix=64",
    "railfattree:units=13,servers=32,nics=8,radix=64,oversub=2",
    "railfattree:units=40,servers=16,nics=4,radix=32",
    "railfattree:units=5,servers=6,nics=3,radix=10,oversub=1.5",
    "railfattree:units=40,servers=96,nics=8,radix=64",
    "multiplane:planes=3,radix=10,endpoints=33",
    "multiplane:planes=1,radix=7",
    "dragonflyplus:radix=9,g=7",
    "dragonflyplus:radix=12",
])
def test_size_guard_counts_equal_the_built_graph(spec):
    """``sizing.estimate`` (the size guard before a plan builds anything) from the closed forms,
    against the graph: odd radixes, part-full blocks, oversubscription, fewer groups."""
    from planner.topologies.sizing import estimate
    family, _, rest = spec.partition(":")
    params = dict(kv.split("=") for kv in rest.split(","))
    size = estimate(family, params)
    top = parse_spec(spec)
    assert (size.routers, size.endpoints, size.links, size.radix) == \
        (top.num_routers, top.num_endpoints, top.num_links, top.radix)
