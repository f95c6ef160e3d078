"""Twin-port cages true to the parts (issue 27): a twin-port transceiver with a connector per
port serves two different peers from one cage, a single-connector module (``connectors: 1``) or
a twin-port cable serves one; a router short of cages moves its odd links onto twin-port optics,
and the check before placement refuses only what even that cannot fit.

Every count is by hand: 2-way cages, so n ends of one shared part take ceil(n / 2) cages and a
one-peer part takes ceil(m / 2) cages per peer of m links.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest
import yaml

from planner import cabling
from planner.cli import main
from planner.costing import bom
from planner.inputs import feasibility
from planner.inputs.catalog import Catalog, cages, load_catalog
from planner.inputs.floor import load_floor
from planner.placement import place
from planner.topologies.slimfly import slimfly

G2_PLUS = "dragonfly:a=64,p=32,h=33,g=2"    # 32 endpoints + 63 local + 33 global links

SMALL = {
    "name": "twin",
    "routers": [{"sku": "SW", "vendor": "v", "rate_gbps": 400, "cages": 32,
                 "lanes_per_cage": 8, "breakout": 2, "price": {"fixed": 1000},
                 "watts_per_lane": 1, "rack_units": 1}],
    "cables": [
        {"sku": "TWIN-DAC", "media": "electrical", "kind": "dac", "rate_gbps": 400, "links": 2,
         "max_reach_m": 2, "stock_lengths": [0.5, 1, 1.5, 2],
         "part_numbers": "TWIN-DAC-{nv}", "price": {"fixed": 100, "per_m": 10},
         "netbox_type": "dac-passive", "color": "Black"},
        {"sku": "SPLIT", "media": "electrical", "kind": "dac", "rate_gbps": 400, "links": 2,
         "split": True, "max_reach_m": 3, "stock_lengths": [1, 2, 3],
         "part_numbers": {1: "SPLIT-1M", 2: "SPLIT-2M", 3: "SPLIT-3M"},
         "price": {"fixed": 100}, "netbox_type": "dac-passive", "color": "Black"},
        {"sku": "TWIN-SR8", "media": "optical", "kind": "transceiver", "rate_gbps": 400,
         "ports": 2, "max_reach_m": 50, "loss_budget_db": 1.8, "fibre": "om4", "nic_end": "SR4",
         "price": {"fixed": 1000}, "watts_per_end": 16},
        {"sku": "SR4", "media": "optical", "kind": "transceiver", "rate_gbps": 400,
         "max_reach_m": 50, "loss_budget_db": 1.8, "fibre": "om4", "price": {"fixed": 500},
         "watts_per_end": 8},
        {"sku": "OM4", "media": "optical", "kind": "fibre", "fibre": "om4", "max_reach_m": 50,
         "stock_lengths": [1, 3, 10, 50], "part_numbers": "OM4-{m}M",
         "price": {"fixed": 10, "per_m": 1}, "netbox_type": "mmf-om4", "color": "Aqua"},
    ],
}
SINGLE_CONNECTOR = [   # an 800G DR8 module on one MPO-16: both ports of its cage to one peer
        {"sku": "DR8-MPO16", "media": "optical", "kind": "transceiver", "rate_gbps": 400,
         "ports": 2, "connectors": 1, "max_reach_m": 500, "loss_budget_db": 3.0,
         "fibre": "os2", "nic_end": "DR4", "price": {"fixed": 1500}, "watts_per_end": 16},
        {"sku": "DR4", "media": "optical", "kind": "transceiver", "rate_gbps": 400,
         "max_reach_m": 500, "loss_budget_db": 3.0, "fibre": "os2", "price": {"fixed": 700},
         "watts_per_end": 8},
        {"sku": "OS2", "media": "optical", "kind": "fibre", "fibre": "os2", "max_reach_m": 500,
         "stock_lengths": [1, 3, 10, 50, 500], "part_numbers": "OS2-{m}M",
         "price": {"fixed": 10, "per_m": 1}, "netbox_type": "smf-os2", "color": "Yellow"},
]


def _small(cage_count: int = 32, extra=()) -> Catalog:
    data = copy.deepcopy(SMALL)
    data["routers"][0]["cages"] = cage_count
    data["cables"] += copy.deepcopy(list(extra))
    return Catalog.model_validate(data)


@pytest.fixture(scope="module")
def small():
    return _small(extra=SINGLE_CONNECTOR)


def _star_cables(links_per_peer: list[int]):
    """Router 0's network cables to routers 1.. (A end router 0), ``m`` parallel cables each."""
    b = np.repeat(np.arange(1, len(links_per_peer) + 1), links_per_peer).astype(np.int64)
    return np.zeros(b.size, dtype=np.int64), b


# (part at router 0, links per peer, cages router 0 takes, its ports in cable order)
CAGE_CASES = [
    ("TWIN-SR8", [1, 1, 1], 2, [1, 2, 3]),     # 3 single-link peers: 2 twin-port modules
    ("TWIN-SR8", [2, 1], 2, [1, 2, 3]),
    ("TWIN-SR8", [1] * 5, 3, [1, 2, 3, 4, 5]),
    ("DR8-MPO16", [1, 1, 1], 3, [1, 3, 5]),    # one connector: a cage per peer
    ("DR8-MPO16", [2, 1], 2, [1, 2, 3]),
    ("DR8-MPO16", [3], 2, [1, 2, 3]),
    ("TWIN-DAC", [1, 1, 1], 3, [1, 3, 5]),     # one cable, one far end
    ("TWIN-DAC", [1, 2], 2, [1, 3, 4]),
]


@pytest.mark.parametrize("sku, links, want, ports", CAGE_CASES)
def test_cages_follow_the_connectors_of_the_part(small, sku, links, want, ports):
    a, b = _star_cables(links)
    part = np.full(a.size, small.cable_index(sku), dtype=np.int64)
    model = small.routers[0]
    used = cages.cages_used(model, small, a, b, part, len(links) + 1)
    assert used[0] == want
    a_port, _ = cages.assign_ports(model, small, a, b, part, np.arange(1, a.size + 1),
                                   np.ones(a.size, dtype=np.int64), ["r0"] + ["r"] * len(links))
    assert a_port.tolist() == ports
    cage_of = (a_port - 1) // 2
    if not small.cable(sku).one_peer_per_cage:
        return
    for c in np.unique(cage_of):             # a one-peer part: each cage holds one peer's links
        assert len(set(b[cage_of == c].tolist())) == 1


def test_connectors_field_is_checked():
    data = copy.deepcopy(SMALL)
    data["cables"] += copy.deepcopy(SINGLE_CONNECTOR)
    data["cables"][-3]["connectors"] = 3
    with pytest.raises(ValueError, match="field 'connectors' is 3 on a module of 2 ports"):
        Catalog.model_validate(data)
    data = copy.deepcopy(SMALL)
    data["cables"][0]["connectors"] = 1
    with pytest.raises(ValueError, match="'connectors' does not apply to kind 'dac'"):
        Catalog.model_validate(data)


def test_odd_links_of_one_peer_parts_move(small):
    """Peers with 1, 1, 2 and 3 links on twin-port DACs: the odd link of each pair moves (the
    single links, the third of the three), the pair of 2 fills its cage and stays."""
    a, b = _star_cables([1, 1, 2, 3])
    part = np.full(a.size, small.cable_index("TWIN-DAC"), dtype=np.int64)
    short = np.array([True, False, False, False, False])
    move = cages.odd_links(small.routers[0], small, a, b, part, short)
    assert move.tolist() == [True, True, False, False, False, False, True]
    assert not cages.odd_links(small.routers[0], small, a, b, part, ~short & False).any()


# ----------------------------------------------------------------------------- the check

def _star(endpoints: int, links_per_peer: list[int]) -> feasibility.Shape:
    peers = len(links_per_peer)
    m = np.asarray(links_per_peer, dtype=np.int64)
    ep = np.zeros(peers + 1, dtype=np.int64)
    ep[0] = endpoints
    degree = np.concatenate([[m.sum()], m])
    router = np.concatenate([np.zeros(peers, dtype=np.int64), np.arange(1, peers + 1)])
    return feasibility.Shape(peers + 1, ep, degree, (router, np.concatenate([m, m])))


@pytest.mark.parametrize("endpoints, links, want", [
    # ceil(p / 2) + floor((d + min(K, odd)) / 2), K = 2 shared kinds on eth-51t (SR8, DR8)
    (0, [1] * 56 + [2] * 28, 0 + 57),  # the 100K rail spine: 56 leaves, 28 cores of 2 links
    (0, [1] * 112, 0 + 57),
    (0, [2] * 56, 0 + 56),            # no odd peer: every cage full
    (32, [1] * 95, 16 + 48),          # dragonfly a=64,p=32,h=32 router
    (5, [4, 1], 3 + 3),
    (0, [1], 0 + 1),
])
def test_cages_with_odd_links_on_twin_port_optics(endpoints, links, want):
    eth = load_catalog("eth-51t")
    shape = _star(endpoints, links)
    model = eth.router_for(128)
    assert feasibility.cages_on_shared_optics(shape, eth, model)[0] == want


def test_the_rail_spine_passes_where_twin_port_copper_alone_would_not():
    """The 100K rail spine, 56 single-link leaves and 28 cores of two links: on twin-port copper
    each near leaf takes a cage (the old bound, above the SN5600's 64 cages); with the odd links
    on twin-port optics 57 cages do."""
    eth, hot = load_catalog("eth-51t"), load_floor("hot-aisle")
    shape = _star(0, [1] * 56 + [2] * 28)
    model = eth.router_for(128)
    assert feasibility.cages_needed(shape, eth, hot, model) > model.cage_count == 64
    feasibility.check(shape, eth, hot, model)


def test_no_fallback_without_a_part_that_splits(small):
    """7 single-link peers take (7 + 1) / 2 = 4 cages on twin-port SR8 optics; none when the
    SR8 has one connector, or when a one-peer part (the 500 m DR8 on MPO-16) reaches peers
    the 50 m SR8 does not."""
    data = copy.deepcopy(SMALL)
    data["cables"][2]["connectors"] = 1
    one = Catalog.model_validate(data)
    twin = _small()
    assert feasibility.cages_on_shared_optics(_star(0, [1] * 7), twin, twin.routers[0])[0] == 4
    assert feasibility.cages_on_shared_optics(_star(0, [1] * 7), one, one.routers[0]) is None
    assert feasibility.cages_on_shared_optics(_star(0, [1] * 7), small,
                                              small.routers[0]) is None


def _refused(argv, capsys) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_refused_where_the_parts_cannot_split(tmp_path, capsys, monkeypatch):
    """eth-51t with single-connector optics only (no cage serves two peers): the g=2 Dragonfly
    router (32 endpoints, 95 single-link peers) is refused; with a cage per peer it would need
    16 + 95 = 111 at most, and never fewer than 16 + 48 = 64 + its half-empty cages."""
    monkeypatch.chdir(tmp_path)
    data = load_catalog("eth-51t").model_dump(by_alias=True, exclude_defaults=True)
    for part in data["cables"]:
        if part.get("kind") == "transceiver" and part.get("ports", 1) == 2:
            part["connectors"] = 1
    (tmp_path / "one.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    err = _refused(["plan", "--topology", "dragonfly:a=64,p=32,h=32,g=2", "--catalog",
                    "one.yaml", "--floor", "hot-aisle", "--out", "out"], capsys)
    need = int(re.search(r"may need (\d+) cages of 2 ports", err).group(1))
    assert 64 < need <= 111, err
    assert "32 endpoints and 95 network links" in err and "SN5600 has 64" in err, err
    assert "twin-port optics" not in err and "larger router model" in err, err
    assert not (tmp_path / "out").exists()


def test_refused_when_even_twin_port_optics_do_not_fit(tmp_path, capsys):
    """32 endpoints (16 cages) and 96 single-link peers: 16 + (96 + 2) / 2 = 65 > 64."""
    out = tmp_path / "out"
    err = _refused(["plan", "--topology", G2_PLUS, "--catalog", "eth-51t", "--floor",
                    "hot-aisle", "--out", str(out)], capsys)
    assert "may need 70 cages of 2 ports" in err, err
    assert "65 for a router with 32 endpoints and 96 network links even with its odd links on " \
           "twin-port optics" in err, err
    assert "SN5600 has 64" in err and "planner size --catalog" in err, err
    assert not out.exists()


# ----------------------------------------------------------------------------- a plan

def _point_to_point_hall():
    return load_floor("hot-aisle").model_copy(update={"structured_cabling": False})


def _router_cages(c, sku=None):
    """{(router, cage)} of the router ends of cables ``c`` (with transceiver ``sku`` when
    given)."""
    out = set()
    for side in ("a", "b"):
        rows = c[c[f"{side}_router"] >= 0]
        if sku is not None:
            rows = rows[rows[f"{side}_transceiver"] == sku]
        out |= set(zip(rows[f"{side}_router"], (rows[f"{side}_port"] - 1) // 2))
    return out


def _cages_per_router(c) -> dict:
    count = {}
    for router, _ in _router_cages(c):
        count[router] = count.get(router, 0) + 1
    return count


def test_a_router_short_of_cages_takes_twin_port_optics():
    """Slim Fly q=5, 3 NICs and 7 single-link peers per router: on twin-port DACs a near peer
    takes a cage each (up to 2 + 7 = 9 cages); with 6 cages the odd links go on twin-port SR8
    modules, 2 + ceil(7 / 2) = 6 at most. With 32 cages the cheapest parts stay (no move)."""
    floor = _point_to_point_hall()
    top = slimfly(5, p=3)
    layout = place(top, floor, _small(32), strategy="hint")
    built = {}
    for count in (32, 6):
        catalog = _small(count)
        built[count] = cabling.build(top, layout, floor, catalog, catalog.routers[0]).cables
    roomy, tight = built[32], built[6]
    assert max(_cages_per_router(roomy).values()) > 6   # the cheapest parts overflow 6 cages
    assert max(_cages_per_router(tight).values()) <= 6
    net = lambda c: c[c["b_router"] >= 0]
    short = lambda c: net(c)[net(c)["length_m"] <= 2.0]
    assert short(roomy)["sku"].str.startswith("TWIN-DAC").all()
    assert (short(tight)["a_transceiver"] == "TWIN-SR8").sum() > 0
    # the BOM buys one twin-port module per cage holding SR8 ends; some cages serve two peers
    lines = bom.part_lines(_small(6), tight)
    twin = lines[(lines["item"] == "transceiver") & (lines["sku"] == "TWIN-SR8")]
    assert int(twin["quantity"].sum()) == len(_router_cages(tight, "TWIN-SR8"))
    peers = {}
    for side, other in (("a", "b"), ("b", "a")):
        rows = net(tight)[net(tight)[f"{side}_transceiver"] == "TWIN-SR8"]
        for router, port, peer in zip(rows[f"{side}_router"], rows[f"{side}_port"],
                                      rows[f"{other}_router"]):
            peers.setdefault((router, (port - 1) // 2), set()).add(peer)
    assert max(len(p) for p in peers.values()) == 2


# ----------------------------------------------------------------------------- the GPU catalog

@pytest.mark.parametrize("sku, ru, watts", [
    ("H100-8GPU-8U", 8, 10200.0),      # DGX H100 data sheet: 8U, ~10.2 kW max
    ("B200-8GPU-10U", 10, 14300.0),    # DGX B200 data sheet: 10U, ~14.3 kW max
])
def test_eth_catalog_server_models(sku, ru, watts):
    """eth-51t (SN5600, the rail plan's GPU fabric) describes 8-GPU servers of 8 ConnectX-7
    400G fabric NICs on the catalog's own NIC, each NIC one endpoint."""
    eth = load_catalog("eth-51t")
    server = {s.sku: s for s in eth.servers}[sku]
    assert (server.ru, server.watts, server.nics, server.gpus) == (ru, watts, 8, 8)
    assert server.nic == eth.nic.sku
