"""The connector-cage check before placement (``planner.inputs.feasibility``) on routers whose
peers take several parallel links: a peer with m links on a twin-port assembly fills
ceil(m / 2) cages, so a rail-optimised leaf (two links to each of 16 spines) is not refused as
if each link were its own peer."""

from __future__ import annotations

import numpy as np
import pytest

from planner import topologies
from planner.costing import power
from planner.inputs import feasibility
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor

RAIL_4_UNITS = "railfattree:units=4,servers=32,nics=8,radix=64"


@pytest.fixture(scope="module")
def ndr():
    return load_catalog("ndr-400g")


@pytest.fixture(scope="module")
def hot():
    return load_floor("hot-aisle")


def _star(endpoints: int, links_per_peer: list[int]) -> feasibility.Shape:
    """Router 0 with ``endpoints`` endpoints, linked to routers 1.. with the given links each
    (the peers carry no endpoints)."""
    peers = len(links_per_peer)
    m = np.asarray(links_per_peer, dtype=np.int64)
    ep = np.zeros(peers + 1, dtype=np.int64)
    ep[0] = endpoints
    degree = np.concatenate([[m.sum()], m])
    router = np.concatenate([np.zeros(peers, dtype=np.int64), np.arange(1, peers + 1)])
    return feasibility.Shape(peers + 1, ep, degree, (router, np.concatenate([m, m])))


@pytest.mark.parametrize("endpoints, links, cages", [
    # every peer within twin-port DAC reach on the hot aisle (C >= 16), 2 ports per cage:
    # endpoint cages ceil(p / 2), network cages ceil((d + W) / 2), W = one empty port per odd peer
    (32, [2] * 16, 16 + 16),          # the rail-optimised leaf: 16 + 32 / 2
    (32, [1] * 16, 16 + 16),          # one link per peer: a half-empty cage each
    (0, [3] * 10, 0 + 20),            # ceil((30 + 10) / 2): two cages per peer
    (0, [2] * 8 + [1] * 4, 0 + 12),   # 8 full cages + 4 half-empty ones
    (5, [4, 1], 3 + 3),
])
def test_cages_count_parallel_links_per_peer(ndr, hot, endpoints, links, cages):
    shape = _star(endpoints, links)
    model = ndr.router_for(64)
    assert feasibility.cages_needed(shape, ndr, hot, model) == cages


def test_unknown_peers_keep_one_link_per_peer(ndr, hot):
    """Without the peers (closed-form counts) each link is taken as its own peer, as before:
    the leaf of the rail-optimised plan then may need the 43 cages the plan was refused with
    (16 endpoint cages, and more network cages than its 16 peers fill)."""
    known = _star(32, [2] * 16)
    unknown = feasibility.Shape(known.num_routers, known.endpoints, known.degree)
    model = ndr.router_for(64)
    assert feasibility.cages_needed(unknown, ndr, hot, model) == 43


def test_rail_optimised_four_units_pass_the_cage_check(ndr, hot):
    """SuperPOD's 4-unit shape on 32-cage NDR switches: leaves 16 endpoint + 16 spine cages,
    spines 32 leaf cages, so the check passes (it refused with 43 cages before)."""
    top = topologies.parse_spec(RAIL_4_UNITS)
    model = ndr.router_for(top.radix)
    floor = power.fit_budget(hot, top, ndr, model, True)
    shape = feasibility.Shape.of(top)
    assert feasibility.cages_needed(shape, ndr, floor, model) == model.cage_count == 32
    feasibility.check(shape, ndr, floor, model, given=hot)


def test_ndr_catalog_server_model(ndr):
    """The built-in ndr-400g describes a DGX H100-class server (data sheet: 8U, 10.2 kW,
    8 ConnectX-7 400G fabric NICs) on the catalog's own NIC."""
    (server,) = ndr.servers
    assert (server.ru, server.watts, server.nics, server.gpus) == (8, 10200.0, 8, 8)
    assert server.nic == ndr.nic.sku


@pytest.mark.parametrize("change, message", [
    ({"nic": "MCX653105A-HDAT"}, "field 'servers[0].nic' 'MCX653105A-HDAT' is not the catalog's"),
    ({"nics": 0}, "servers"),
    ({"ru": 0}, "servers"),
])
def test_bad_server_model_exits_2(ndr, tmp_path, capsys, change, message):
    """A bad server model: exit code 2, one line naming the field."""
    import yaml

    from planner.cli import main

    server = ndr.servers[0].model_dump(exclude_defaults=True) | change
    path = tmp_path / "cat.yaml"
    path.write_text(yaml.safe_dump({"extends": "ndr-400g", "name": "bad", "servers": [server]}))
    assert main(["catalogs", "show", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert list(tmp_path.iterdir()) == [path]
