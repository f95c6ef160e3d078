"""A rail-optimised plan with a server model (issue 27, items 1 and 3): SuperPOD's 4-unit shape
(32 servers of 8 NICs per unit on 64-port switches: 32 leaves, 16 spines) on the NDR catalog,
whose server model is a DGX H100-class 8U, 10.2 kW server, on the hot-aisle hall (42U cabinets,
servers from U1, 30 kW per cabinet). Every figure is checked against the construction, the
catalog and floor files, or the written files read back as their consumers read them."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml

from planner import topologies
from planner.exports import cabinets_csv, labels, netbox
from planner.inputs.catalog import load_catalog
from planner.inputs.catalog.servers import server_model_for
from planner.inputs.floor import load_floor
from planner.placement import rails
from planner.plan import plan as make_plan
from planner.run.errors import InputError

RAIL_4_UNITS = "railfattree:units=4,servers=32,nics=8,radix=64"
UNITS, SERVERS, NICS = 4, 32, 8


@pytest.fixture(scope="module")
def ndr():
    return load_catalog("ndr-400g")


@pytest.fixture(scope="module")
def hot():
    return load_floor("hot-aisle")


@pytest.fixture(scope="module")
def rail_plan(ndr, hot):
    return make_plan(RAIL_4_UNITS, ndr, hot, time_limit_s=10, resilience="off")


@pytest.fixture(scope="module")
def written(rail_plan, tmp_path_factory):
    out = tmp_path_factory.mktemp("rail")
    for writer in (cabinets_csv, labels, netbox):
        writer.write(rail_plan, out)
    return out


def _server_id(name: str) -> int:
    match = re.fullmatch(r"gpu-(\d+)", name)
    assert match, name
    return int(match.group(1))


def _nic_cables(plan) -> pd.DataFrame:
    cables = plan.cables
    return cables[cables["kind"] == "endpoint"]


def test_every_nic_lands_on_its_units_rail_leaf(rail_plan):
    """NIC port k (1..8) of server s goes to the rail-(k-1) leaf of unit s // 32: leaf id
    unit * 8 + (k - 1) (docs/topologies.md: leaves are ids c·N + i)."""
    nic = _nic_cables(rail_plan)
    assert len(nic) == UNITS * SERVERS * NICS == 1024
    server = np.array([_server_id(n) for n in nic["b_device"]])
    port = nic["b_port"].to_numpy(np.int64)
    assert np.array_equal(nic["a_router"].to_numpy(), (server // SERVERS) * NICS + port - 1)
    pairs = pd.Series(port).groupby(server).apply(lambda p: sorted(p.tolist()))
    assert len(pairs) == UNITS * SERVERS
    assert all(p == list(range(1, NICS + 1)) for p in pairs)


def test_a_server_stands_whole_in_one_cabinet_of_servers(rail_plan, ndr):
    """All 8 NIC cables of a server end in one cabinet at one rack unit; servers stand from
    U1 up, 8U apart, in cabinets that hold no switch."""
    nic = _nic_cables(rail_plan)
    ends = nic.groupby("b_device")[["b_cabinet", "b_ru"]].nunique()
    assert (ends == 1).all().all()
    model = server_model_for(ndr, topologies.parse_spec(RAIL_4_UNITS))
    devices = rail_plan.devices
    servers = devices[devices["kind"] == "endpoint"]
    assert len(servers) == UNITS * SERVERS
    assert set(servers["model"]) == {model.sku} and set(servers["height_ru"]) == {8.0}
    assert set(servers["ru"].astype(int)) <= {1, 9, 17, 25, 33}
    routers = devices[devices["kind"] == "router"]
    assert not set(servers["cabinet"]) & set(routers["cabinet"])


def test_cabinet_kw_includes_the_servers_and_stays_within_budget(rail_plan, written, ndr, hot):
    """cabinets.csv read back: a cabinet of servers draws its servers' data-sheet maximum
    (10.2 kW each) plus the NIC-end transceivers the cables plug in (the catalog's watts per
    module); no cabinet exceeds the floor's 30 kW, so two servers share a cabinet (three
    would draw 30.6 kW before their optics)."""
    cabinets = pd.read_csv(written / cabinets_csv.FILENAME)
    model = server_model_for(ndr, topologies.parse_spec(RAIL_4_UNITS))
    nic = _nic_cables(rail_plan)
    module_w = {m.sku: m.watts_per_end / m.ports for m in ndr.cables
                if m.kind == "transceiver"}
    nic_end_w = nic["b_transceiver"].map(lambda sku: module_w.get(sku, 0.0))
    per_cabinet = pd.DataFrame({"cabinet": nic["b_cabinet"], "server": nic["b_device"],
                                "w": nic_end_w}).groupby("cabinet").agg(
        servers=("server", "nunique"), ends=("w", "sum"))
    boxes = set(rail_plan.fabric.devices["cabinet"]) if rail_plan.fabric is not None else set()
    kw = cabinets.set_index("name")["kw"]
    checked = 0
    for name, row in per_cabinet.iterrows():
        assert row["servers"] == 2
        if name in boxes:           # a management switch or PDU shares the cabinet
            assert kw[name] > (row["servers"] * model.watts + row["ends"]) / 1000.0
            continue
        assert kw[name] == pytest.approx((row["servers"] * model.watts + row["ends"]) / 1000.0,
                                         abs=1e-3)
        checked += 1
    assert checked > 0
    assert kw.max() <= hot.cabinet_kw_budget
    assert rail_plan.summary["power"]["endpoints_w"] + rail_plan.summary["power"]["nics_w"] \
        == pytest.approx(UNITS * SERVERS * model.watts)


def test_rail_layout_is_never_dearer_than_the_partitioners(rail_plan, ndr):
    """The placement keeps the cheapest of its candidates, the partitioners' layout over the
    same cabinets among them; what it reports as network cable dollars is what the cables
    cost in the plan."""
    placement = rail_plan.placement
    pool = placement.candidates
    assert "partition" in pool and placement.method in pool
    assert pool[placement.method] == min(pool.values()) <= pool["partition"]
    network = rail_plan.cables[rail_plan.cables["kind"] == "network"]
    assert placement.cable_cost == pytest.approx(float(network["unit_price"].sum()))
    assert placement.cable_cost >= placement.cable_cost_lower_bound
    assert placement.copper <= placement.copper_upper_bound


def test_leaves_stand_in_their_servers_row(rail_plan):
    """Leaves of a unit stand in the row of the unit's servers when a rail layout wins."""
    assert rail_plan.placement.method.startswith("rails")
    nic = _nic_cables(rail_plan)
    row = nic["a_cabinet"].str[0] == nic["b_cabinet"].str[0]
    assert row.all()


@pytest.mark.parametrize("where", ["end-of-row", "middle-of-row", "with-servers"])
def test_leaf_cabinets_sit_where_the_floor_says(ndr, hot, where):
    """End of row: a unit's leaf cabinets come first in its slot; middle of row: compute
    cabinets on both sides of them; with servers: in the unit's middle compute cabinets."""
    top = topologies.parse_spec(RAIL_4_UNITS)
    floor = hot.model_copy(update={"leaf_cabinets": where})
    pool = rails.candidates(top, floor, ndr, server_model_for(ndr, top), ndr.router_for(64))
    layout, servers = pool["rails"].layout, pool["rails"].server_cabinet
    for unit in range(UNITS):
        leaf_cols = layout.col[layout.router_cabinet[unit * NICS:(unit + 1) * NICS]]
        server_cols = layout.col[servers[unit * SERVERS:(unit + 1) * SERVERS]]
        leaf_cabs = set(layout.router_cabinet[unit * NICS:(unit + 1) * NICS].tolist())
        server_cabs = set(servers[unit * SERVERS:(unit + 1) * SERVERS].tolist())
        if where == "end-of-row":
            assert leaf_cols.max() < server_cols.min()
        elif where == "with-servers":
            assert leaf_cabs < server_cabs
            assert server_cols.min() < leaf_cols.min() <= leaf_cols.max() < server_cols.max()
        else:
            assert not leaf_cabs & server_cabs
            assert server_cols.min() < leaf_cols.min() <= leaf_cols.max() < server_cols.max()


def test_labels_name_the_server_and_its_nic(written):
    """labels.csv read back: a server's end is its device ``gpu-NNN`` and port ``nicK``; the
    cable label's server end reads ``<cabinet>-<RU>:NICK``."""
    rows = pd.read_csv(written / labels.CSV_NAME, dtype=str, keep_default_na=False,
                       encoding="utf-8-sig")
    at_server = rows[rows["this_device"].str.startswith("gpu-")]
    assert len(at_server) == UNITS * SERVERS * NICS
    assert at_server["this_port"].str.fullmatch(r"nic[1-8]").all()
    ends = at_server["label"].str.split("/").str[1]
    expected = (at_server["this_cabinet"] + "-" + at_server["this_ru"].str.zfill(2) + ":"
                + at_server["this_port"].str.upper())
    assert (ends == expected).all()


def test_netbox_has_one_device_per_server_with_its_nics(written, rail_plan):
    """The bundle read back as NetBox imports it: each server one device of the server model's
    type, whose interfaces nic1..nic8 carry exactly the server's 8 cables."""
    folder = written / netbox.FOLDER
    devices = pd.read_csv(folder / "devices.csv", dtype=str, keep_default_na=False)
    cables = pd.read_csv(folder / "cables.csv", dtype=str, keep_default_na=False)
    types = {t["model"]: t for t in (yaml.safe_load(p.read_text())
                                     for p in folder.glob("device-types/*/*.yaml"))}
    servers = devices[devices["name"].str.startswith("gpu-")]
    assert len(servers) == UNITS * SERVERS
    assert set(servers["device_type"]) == {"H100-8GPU-8U"}
    interfaces = [i["name"] for i in types["H100-8GPU-8U"]["interfaces"]]
    assert interfaces == [f"nic{k}" for k in range(1, NICS + 1)]
    at_server = cables[cables["side_b_device"].str.startswith("gpu-")]
    assert len(at_server) == UNITS * SERVERS * NICS
    per_server = at_server.groupby("side_b_device")["side_b_name"].apply(sorted)
    assert all(names == sorted(interfaces) for names in per_server)
    assert set(at_server["side_b_device"]) == set(servers["name"])


def test_summary_counts_the_servers_and_their_cabinets(rail_plan):
    """summary.json ``servers``: 128 servers of 8 NICs (1,024 GPUs), two per cabinet in 64
    compute cabinets (hot-aisle's 30 kW over 10.2 kW each)."""
    assert rail_plan.summary["servers"] == {
        "model": "H100-8GPU-8U", "count": 128, "nics": 8, "gpus": 1024, "cabinets": 64,
        "most_per_cabinet": 2}


def test_bom_lists_the_servers_and_their_nics(rail_plan):
    bom = rail_plan.bom.set_index("item")
    assert bom.loc["server", "quantity"] == UNITS * SERVERS
    assert bom.loc["nic", "quantity"] == UNITS * SERVERS * NICS
    assert rail_plan.summary["cost"]["servers"] == 0.0     # the catalog prices no server


@pytest.mark.parametrize("in_bom, price, lines, dollars", [
    (True, 0.0, 1, 0.0),
    (True, 250_000.0, 1, 128 * 250_000.0),
    (False, 250_000.0, 0, 0.0),
])
def test_servers_on_the_bom_as_the_catalog_says(rail_plan, ndr, in_bom, price, lines, dollars):
    """The server line follows the model's ``price`` and ``in_bom``; the NICs stay either way."""
    from planner.costing import bom as boms

    model = ndr.servers[0].model_copy(update={"in_bom": in_bom, "price": price})
    bom = boms.build(ndr, rail_plan.router_model, 64, rail_plan.topology.num_routers,
                     rail_plan.cables, servers=(model, UNITS * SERVERS),
                     num_endpoints=UNITS * SERVERS * NICS)
    servers = bom[bom["item"] == "server"]
    assert len(servers) == lines
    assert float(servers["extended_price"].sum()) == dollars
    assert int(bom.loc[bom["item"] == "nic", "quantity"].sum()) == UNITS * SERVERS * NICS


def test_server_model_is_chosen_by_nic_count(ndr):
    """The first model with as many NICs as the topology's servers; none for another count
    or for a topology without servers (those plans keep anonymous endpoints)."""
    assert server_model_for(ndr, topologies.parse_spec(RAIL_4_UNITS)).sku == "H100-8GPU-8U"
    assert server_model_for(ndr, topologies.parse_spec(
        "railfattree:units=2,servers=32,nics=4,radix=64")) is None
    assert server_model_for(ndr, topologies.parse_spec("fattree:k=8")) is None


def _floor(height, first, budget):
    return SimpleNamespace(cabinet_height_ru=height, first_endpoint_ru=first,
                           cabinet_kw_budget=budget, source="test")


@pytest.mark.parametrize("height, first, ru, budget, watts, expected", [
    (42, 1, 8, None, 10200, 5),       # 42 // 8 by height alone
    (42, 1, 8, 30, 10200, 2),         # 30 kW // 10.2 kW
    (42, 1, 8, 41, 10200, 4),         # 4 x 10.2 = 40.8 kW in a 41 kW cabinet
    (48, 9, 4, 100, 2000, 10),        # U9..U48: 40 U // 4 U
    (42, 1, 8, 10.2, 10200, 1),       # exactly at the budget
])
def test_servers_per_cabinet(height, first, ru, budget, watts, expected):
    server = SimpleNamespace(ru=ru, watts=watts, nics=8, sku="s")
    catalog = SimpleNamespace(cables=[])
    assert rails.servers_per_cabinet(_floor(height, first, budget), catalog, server) == expected


@pytest.mark.parametrize("budget, expected", [
    (41, 3),      # 41 kW - 2 x 1.5 kW of leaves = 38 kW: three 10.2 kW servers
    (43.8, 4),    # 43.8 - 3 = 40.8 kW: four
    (None, 4),    # U1..U38 below the leaves at U39: 38 U // 8 U
])
def test_servers_beside_their_leaves_leave_them_room_and_power(budget, expected):
    """Leaves in the compute cabinet (``leaf_cabinets: with-servers``): 2 router slots from
    U39 of 1,000 W base + 64 ports x 7.8125 W of SerDes (= 1.5 kW each, no cable ends in this
    catalog)."""
    floor = SimpleNamespace(cabinet_height_ru=42, first_endpoint_ru=1, first_router_ru=39,
                            router_slots=2, cabinet_kw_budget=budget, source="test")
    router = SimpleNamespace(base_watts=1000.0, power_w=lambda ports: ports * 7.8125)
    server = SimpleNamespace(ru=8, watts=10200, nics=8, sku="s")
    assert rails.servers_per_cabinet(floor, SimpleNamespace(cables=[]), server, router,
                                     64) == expected


@pytest.mark.parametrize("height, first, budget, field", [
    (42, 40, None, "first_endpoint_ru"),
    (42, 1, 10, "cabinet_kw_budget"),
])
def test_a_server_that_fits_no_cabinet_is_refused(height, first, budget, field):
    server = SimpleNamespace(ru=8, watts=10200, nics=8, sku="s")
    with pytest.raises(InputError, match=field):
        rails.servers_per_cabinet(_floor(height, first, budget), SimpleNamespace(cables=[]),
                                  server)


def test_the_same_seed_gives_the_same_layout(ndr, hot):
    top = topologies.parse_spec(RAIL_4_UNITS)
    args = (top, hot, ndr, server_model_for(ndr, top), ndr.router_for(64))
    first, again = rails.candidates(*args, seed=3), rails.candidates(*args, seed=3)
    assert list(first) == list(again)
    for name in first:
        assert np.array_equal(first[name].layout.router_cabinet,
                              again[name].layout.router_cabinet)
        assert np.array_equal(first[name].server_cabinet, again[name].server_cabinet)
        assert first[name].dollars == again[name].dollars


def test_multiplane_pods_are_leaf_columns_across_the_planes(ndr):
    """multiplane:planes=8,radix=8: 8 planes of 8 leaves (4 servers each) and 4 spines; NIC i
    of server s is on leaf s // 4 of plane i, so pod c is the 8 leaves of column c (one per
    plane) and its 4 servers."""
    top = topologies.parse_spec("multiplane:planes=8,radix=8")
    pods = rails.pods_of(top)
    assert pods.count == 8
    assert np.array_equal(pods.server_pod, np.arange(32) // 4)
    leaves = pods.router_pod >= 0
    assert int(leaves.sum()) == 64 and int((~leaves).sum()) == 32
    assert all(np.sum(pods.router_pod == c) == 8 for c in range(8))


def test_leaves_with_their_servers_plan_end_to_end(ndr, hot):
    """``leaf_cabinets: with-servers`` on one unit: switches stand in compute cabinets above
    the servers (rack units apart), every cabinet stays within 30 kW, and the NIC cables of
    the servers next to their leaves are copper, none longer than its part reaches."""
    floor = hot.model_copy(update={"leaf_cabinets": "with-servers"})
    plan = make_plan("railfattree:units=1,servers=32,nics=8,radix=64", ndr, floor,
                     time_limit_s=5, resilience="off")
    devices = plan.devices
    routers, servers = devices[devices["kind"] == "router"], devices[devices["kind"] == "endpoint"]
    shared = set(routers["cabinet"]) & set(servers["cabinet"])
    assert shared
    for cabinet in shared:
        top = servers.loc[servers["cabinet"] == cabinet]
        low = routers.loc[routers["cabinet"] == cabinet, "ru"].astype(float).min()
        assert (top["ru"].astype(float) + top["height_ru"] - 1).max() < low
    assert plan.cabinets["kw"].max() <= hot.cabinet_kw_budget
    nic = _nic_cables(plan)
    copper = nic[nic["media"] == "electrical"]
    assert len(copper) > 0
    parts = [ndr.cables[i] for i in copper["part"]]
    assert all(length <= part.max_reach_m + 1e-9
               for length, part in zip(copper["length_m"], parts))
