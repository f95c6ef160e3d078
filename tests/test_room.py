"""The machine room: hall sizes, several halls, placement across halls, cabinet power and its
budget, cabinets.csv and the summary, bad room input on the command line."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pandas as pd
import pytest
import yaml

from planner.cli import main
from planner.exports import cabinets_csv, cables_csv, summary_json
from planner.run.errors import InputError
from planner.inputs.floor import (MIN_ASPECT, cabinet_name, hall_footprint_m, load_floor, room_of,
                           slot_layout)
from planner.costing.power import fit_budget
from planner.placement.floor_assign import place_on_floor
from planner.placement.result import Placement
from planner.plan import plan
from planner.topologies.base import Topology
from planner.topologies.dragonfly import dragonfly
from planner.topologies.slimfly import slimfly
from test_routes import hall_floor, make_catalog


# ----------------------------------------------------------------------------- hall sizes

def test_small_system_takes_a_compact_block_not_a_strip():
    """12 cabinets in a 20 x 40 hall. Block footprints (rows r of c cabinets: 0.6 c + 2.4 by
    1.2 r + 1.2 (r + 1)): 1 x 12 -> 9.6 x 3.6, 2 x 6 -> 6.0 x 6.0, 3 x 4 -> 4.8 x 8.4,
    4 x 3 -> 4.2 x 10.8; 2 x 6 has the shortest longer side."""
    floor = hall_floor(hall=dict(rows=20, cabinets_per_row=40))
    layout = slot_layout(floor, 12, 1)
    assert layout.room.halls == 1 and (layout.room.rows, layout.room.cols) == (20, 40)
    assert list(zip(layout.row.tolist(), layout.col.tolist())) == \
        [(r, c) for r in range(2) for c in range(6)]


def test_system_larger_than_a_hall_is_split_evenly_over_halls():
    """Halls of 2 x 4 cabinets hold 8; 10 groups fill two halls of 5, each in a 2 x 3 block."""
    floor = hall_floor(hall=dict(rows=2, cabinets_per_row=4, count=3))
    layout = slot_layout(floor, 10, 1)
    assert layout.room.halls == 2
    block = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    assert list(zip(layout.hall.tolist(), layout.row.tolist(), layout.col.tolist())) == \
        [(0, r, c) for r, c in block] + [(1, r, c) for r, c in block]
    with pytest.raises(InputError, match=r"the system needs 25 cabinets but field 'hall.count' "
                                         r"allows 3 hall\(s\) of at most 2 rows x 4 cabinets "
                                         r"\(8 each\); raise hall.count to at least 4"):
        slot_layout(floor, 25, 1)


@pytest.mark.parametrize("width", [1, 2, 3])
def test_auto_halls_stay_within_bounds_and_near_square(width):
    """Every size from 1 to 1,300 group slots on the built-in hot-aisle floor (up to 16 rows of
    30 cabinets, up to 16 halls): halls within bounds, aspect within 1:2..2:1, groups split
    evenly, every slot a distinct position inside its hall."""
    floor = load_floor("hot-aisle")
    for k in list(range(1, 120)) + list(range(120, 1300, 37)):
        layout = slot_layout(floor, k, width)
        room = layout.room
        assert room.rows <= 16 and room.cols <= 30 and room.halls <= 16
        assert MIN_ASPECT - 1e-9 <= room.aspect <= 1 / MIN_ASPECT + 1e-9, (k, room)
        w, d = hall_footprint_m(floor, room.rows, room.cols)
        assert (room.width_m, room.depth_m) == pytest.approx((w, d))
        per_hall = np.bincount(layout.hall, minlength=room.halls)
        assert per_hall.max() - per_hall.min() <= 1
        cells = {(h, r, c + i) for h, r, c in zip(layout.hall, layout.row, layout.col)
                 for i in range(width)}
        assert len(cells) == k * width
        assert max(r for _, r, _ in cells) < room.rows and max(c for _, _, c in cells) < room.cols


def test_hall_count_is_the_fewest_halls_that_hold_the_system():
    """hot-aisle, groups of 2 cabinets: the largest near-square hall is 16 rows x 30 cabinets
    (20.4 x 39.6 m, aspect 0.52) = 240 group slots."""
    floor = load_floor("hot-aisle")
    assert slot_layout(floor, 240, 2).room.halls == 1
    assert slot_layout(floor, 241, 2).room.halls == 2
    assert slot_layout(floor, 16 * 240, 2).room.halls == 16
    with pytest.raises(InputError, match="hall.count"):
        slot_layout(floor, 16 * 240 + 1, 2)


def test_talkative_groups_share_a_hall():
    """8 groups in two halls of 2 x 2: groups {0,2,4,6} and {1,3,5,7} exchange 10 cables each
    pair inside, 1 across. Row-major order would mix them; routed slot costs keep each set in
    one hall (a cable between halls runs 30 m further)."""
    floor = hall_floor(hall=dict(rows=2, cabinets_per_row=2, count=2))
    flows = np.ones((8, 8), dtype=np.int64)
    for part in (0, 1):
        idx = np.arange(part, 8, 2)
        flows[np.ix_(idx, idx)] = 10
    np.fill_diagonal(flows, 0)
    hall, row, col = place_on_floor(floor, make_catalog(), flows, np.arange(8))
    assert len(set(hall[::2])) == 1 and len(set(hall[1::2])) == 1 and hall[0] != hall[1]
    assert len(set(zip(hall, row, col))) == 8


def test_planned_cabinets_have_unique_hall_prefixed_names():
    """Slim Fly q=7 (98 routers) on halls of 2 rows x 8 cabinets: several halls, and every name
    is the hall prefix + row letter + column of its position."""
    floor = load_floor("hot-aisle").model_copy(update={"hall": load_floor("hot-aisle").hall
                                                       .model_copy(update={"rows": 2,
                                                                           "cabinets_per_row": 8})})
    p = plan(slimfly(7), "modern-100g", floor, strategy="hint")
    cab = p.cabinets
    assert cab["hall"].max() >= 1 and cab["name"].is_unique
    for name, h, r, c in zip(cab["name"], cab["hall"], cab["row"], cab["col"]):
        assert name == f"H{h + 1}-{cabinet_name(r, c)}"
    assert p.summary["floor"]["halls"] == cab["hall"].max() + 1
    assert (p.cables["route_kind"] == "cross-hall").any()
    assert p.cables["label"].str.len().max() <= 100
    assert p.summary["cables"]["route_kind"]["cross-hall"] == \
        int((p.cables["route_kind"] == "cross-hall").sum())


# ----------------------------------------------------------------------------- power

def power_plan(**floor_changes):
    """4 routers of 2 endpoints, links 0-1, 0-2, 1-3, 2-3; r0 and r1 in A01, r2 in A02 (one
    electrical group of two cabinets), r3 in B01 of the test hall (module doc of test_routes)."""
    top = Topology.from_edges("test", {}, 4, [(0, 1), (0, 2), (1, 3), (2, 3)], 2)
    floor_changes.setdefault("group_cabinets", 2)
    placement = Placement(router_cabinet=np.array([0, 0, 1, 2]), cabinet_row=np.array([0, 0, 1]),
                          cabinet_col=np.array([0, 1, 0]), cabinet_group=np.array([0, 0, 1]),
                          cabinet_names=("A01", "A02", "B01"), strategy="hint", method="hand",
                          optical=0, lower_bound=0.0, lower_bound_kind="hand")
    return plan(top, make_catalog(), hall_floor(**floor_changes), placement=placement)


def test_cabinet_power_by_hand():
    """Routers: 100 W base + 4 ports x 4 lanes x 1 W = 116 W, plus their cable ends. Cables:
    r0-r1 inside A01 1.65 m DAC; r0-r2 along row A (0.6 + 1.3) x 1.1 = 2.09 m DAC; r1-r3
    A01-B01 (2 x 0.3 to the end tray + 2.4 + 1.3) x 1.1 = 4.73 m AOC; r2-r3 A02-B01
    (0.6 + 2 x 0.3 + 2.4 + 1.3) x 1.1 = 5.39 m AOC; endpoint cables 1.65 m DAC. DAC 0.1 W and
    AOC 1.5 W per end. Endpoints: 300 W server + 5 W NIC + 0.1 W cable end = 305.1 W.

        r0 116 + 0.1 + 0.1 + 2 x 0.1 = 116.4     A01 = r0 + r1 + 4 endpoints = 1454.6 W
        r1 116 + 0.1 + 1.5 + 0.2     = 117.8     A02 = r2 + 2 endpoints      =  728.0 W
        r2 116 + 0.1 + 1.5 + 0.2     = 117.8     B01 = r3 + 2 endpoints      =  729.4 W
        r3 116 + 1.5 + 1.5 + 0.2     = 119.2     total                       = 2912.0 W
    """
    p = power_plan()
    net = p.cables[p.cables["kind"] == "network"]
    assert net["length_m"].tolist() == pytest.approx([1.65, 2.09, 4.73, 5.39])
    assert net["sku"].tolist() == ["DAC", "DAC", "AOC", "AOC"]
    assert (p.cables["a_watts"] == p.cables["b_watts"]).all()
    assert net["a_watts"].tolist() == [0.1, 0.1, 1.5, 1.5]
    watts = p.devices.set_index("name")["watts"]
    assert watts[["r0", "r1", "r2", "r3"]].tolist() == pytest.approx([116.4, 117.8, 117.8, 119.2])
    assert watts[[f"n{i}" for i in range(8)]].tolist() == pytest.approx([305.1] * 8)
    assert p.cabinets["kw"].tolist() == pytest.approx([1.4546, 0.728, 0.7294])
    s = p.summary["power"]
    assert (s["routers_w"], s["cables_w"], s["endpoints_w"], s["nics_w"]) == \
        pytest.approx((464.0, 8.0, 2400.0, 40.0))
    assert s["total_w"] == pytest.approx(2912.0)
    assert s["total_w"] == pytest.approx(1000 * p.cabinets["kw"].sum())
    assert s["peak_cabinet_kw"] == pytest.approx(1.455, abs=0.0005)
    assert s["per_endpoint_w"] == pytest.approx(364.0)


def test_budget_lowers_router_slots_or_names_the_load():
    """Worst case per router: 116 W + 2 network ports x 3.5 W (LR, the hungriest end) + 2
    endpoints x (305 W + two 0.1 W DAC ends) = 733.4 W."""
    top = Topology.from_edges("test", {}, 4, [(0, 1), (0, 2), (1, 3), (2, 3)], 2)
    catalog = make_catalog()
    router = catalog.router_for(top.radix)
    assert fit_budget(hall_floor(), top, catalog, router) == hall_floor()       # no budget
    assert fit_budget(hall_floor(cabinet_kw_budget=1.5), top, catalog, router).router_slots == 2
    assert fit_budget(hall_floor(cabinet_kw_budget=1.4668), top, catalog,
                      router).router_slots == 2                                   # 2 x 733.4
    assert fit_budget(hall_floor(cabinet_kw_budget=1.4667), top, catalog,
                      router).router_slots == 1
    assert fit_budget(hall_floor(cabinet_kw_budget=10), top, catalog, router).router_slots == 4
    with pytest.raises(InputError, match=r"field 'cabinet_kw_budget' is 0.7 kW but router 0 with "
                                         r"its 2 endpoints can draw 0.733 kW.*raise "
                                         r"cabinet_kw_budget to at least 0.733"):
        fit_budget(hall_floor(cabinet_kw_budget=0.7), top, catalog, router)
    with pytest.raises(InputError, match=r"field 'cabinet_kw_budget' is 0.1 kW but one router "
                                         r"\(SW-16, 4 ports\) draws 0.116 kW; raise "
                                         r"cabinet_kw_budget to at least 0.116"):
        fit_budget(hall_floor(cabinet_kw_budget=0.1), top, catalog, router)


def test_planned_cabinets_stay_within_the_budget():
    top = slimfly(5)
    floor = hall_floor(cabinet_kw_budget=1.0, hall=dict(rows=6, cabinets_per_row=12))
    p = plan(top, make_catalog(endpoint_watts=200), floor, strategy="hint")
    assert p.cabinets["kw"].max() <= 1.0
    assert p.summary["floor"]["router_slots_within_budget"] < floor.router_slots
    assert p.cabinets["routers"].max() <= p.summary["floor"]["router_slots_within_budget"]


def test_a_cabinet_over_the_budget_is_named():
    with pytest.raises(InputError, match=r"cabinet A01 draws 1.455 kW, above field "
                                         r"'cabinet_kw_budget' 1.4 kW"):
        power_plan(cabinet_kw_budget=1.4)


# ----------------------------------------------------------------------------- outputs

@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Dragonfly h=2 on hot-aisle, cabinets.csv / cables.csv / summary.json written and read
    back as a spreadsheet user reads them."""
    out = tmp_path_factory.mktemp("room")
    p = plan(dragonfly(h=2), "modern-100g", "hot-aisle", strategy="hint")
    for writer in (cabinets_csv, cables_csv, summary_json):
        writer.write(p, out)
    cab = pd.read_csv(out / "cabinets.csv", keep_default_na=False)
    cab = cab[cab["kind"] == "cabinet"].astype({"column": int, "group": int, "kw": float})
    return (p, cab,
            fabric_rows(pd.read_csv(out / "cables.csv", keep_default_na=False)),
            json.loads((out / "summary.json").read_text()))


def fabric_rows(cables: pd.DataFrame) -> pd.DataFrame:
    """cables.csv without its management cords (those: tests/test_fabric_devices.py)."""
    return cables[cables["kind"] != "mgmt"]


def test_cabinets_csv_agrees_with_cables_and_devices(written):
    p, cab, cables, summary = written
    assert list(cab.columns) == ["name", "hall", "row", "column", "x_m", "y_m", "group",
                                 "routers", "endpoints", "kw", "ru_used", "kind",
                                 "fabric_devices"]
    boxes = p.fabric.devices                      # subnet manager, management switches, PDUs
    box_ru = boxes[boxes["ru"].notna()].groupby("cabinet")["height_ru"].sum()
    box_w = boxes.groupby("cabinet")["watts"].sum()
    assert set(cables["a_cabinet"]) | set(cables["b_cabinet"]) <= set(cab["name"])
    dev = p.devices
    counts = dev.groupby(["cabinet", "kind"]).size().unstack(fill_value=0)
    for r in cab.itertuples():
        assert r.name == f"{r.row}{r.column:02d}"                    # one hall: no prefix
        col = r.column - 1                          # a patch rack's position every 10 columns
        assert (r.x_m, r.y_m) == pytest.approx(((col + col // 10) * 0.6, (ord(r.row) - 65) * 2.4))
        assert r.routers == counts.loc[r.name, "router"]
        assert r.endpoints == counts.loc[r.name, "endpoint"]
        assert r.ru_used == (r.routers * p.router_model.rack_units + r.endpoints
                             + box_ru.get(r.name, 0.0))
    # kW recomputed from the devices and the cables: routers at the topology radix, every
    # cable end in the cabinet of its device, every endpoint with its NIC
    model, catalog, top = p.router_model, p.catalog, p.topology
    # a part's watts at one end of one link: an assembly's watts_per_end over the links it
    # carries; a transceiver's module watts over the ports it serves (a NIC end: the module)
    assembly = {pn: m.watts_per_end / m.links for m in catalog.cables
                if m.kind in ("dac", "acc", "aoc")
                for pn in m.part_numbers_at(np.asarray(m.stock_lengths or [1.0]))}
    module = {m.sku: m for m in catalog.cables if m.kind == "transceiver"}

    def end_w(transceiver: str, sku: str, at_nic: bool) -> float:
        if not transceiver:
            return assembly[sku]
        m = module[transceiver]
        return m.watts_per_end if at_nic else m.watts_per_end / m.ports
    cabinet_of = dict(zip(dev["name"], dev["cabinet"]))
    load = pd.Series(0.0, index=cab["name"])
    for name, kind in zip(dev["name"], dev["kind"]):
        load[cabinet_of[name]] += (model.base_watts + model.power_w(top.radix)
                                   if kind == "router" else
                                   catalog.endpoint_watts + catalog.nic_watts)
    for c in cables.itertuples():
        load[c.a_cabinet] += end_w(c.a_transceiver, c.sku, False)
        load[c.b_cabinet] += end_w(c.b_transceiver, c.sku, c.kind == "endpoint")
    load += box_w.reindex(load.index, fill_value=0.0)
    assert cab["kw"].to_numpy() == pytest.approx(load.to_numpy() / 1000, abs=1e-6)
    assert summary["power"]["total_w"] == pytest.approx(1000 * cab["kw"].sum(), abs=1e-3)
    assert summary["power"]["peak_cabinet_kw"] == pytest.approx(cab["kw"].max(), abs=5e-4)


def test_summary_describes_the_room_and_the_cable_lengths(written):
    p, cab, cables, summary = written
    floor, c = summary["floor"], summary["cables"]
    assert floor["halls"] == cab["hall"].max() == 1
    assert floor["hall_rows"] == cab["row"].map(lambda r: ord(r) - 64).max()
    assert floor["hall_cabinets_per_row"] == cab["column"].max()
    w, d = floor["hall_width_m"], floor["hall_depth_m"]
    cols = floor["hall_cabinets_per_row"]                  # + patch racks at both ends, every 10
    assert (w, d) == pytest.approx((0.6 * (cols + 2 + (cols - 1) // 10) + 2.4,
                                    2.4 * floor["hall_rows"] + 1.2 + 1.2))   # + the entry row
    assert 0.5 <= w / d <= 2 and floor["footprint_m2"] == pytest.approx(w * d)
    assert c["longest_m"] == cables["length_m"].max()
    assert c["route_kind"] == cables["route_kind"].value_counts().reindex(
        ["cabinet", "row", "cross-row", "cross-hall"], fill_value=0).to_dict()
    hist = c["length_distribution"]["histogram"]
    assert sum(hist.values()) == len(cables)
    assert hist["1-2 m"] == int(((cables["length_m"] > 1) & (cables["length_m"] <= 2)).sum())
    assert c["length_distribution"]["p50_m"] == pytest.approx(cables["length_m"].median())
    for key in ("network", "endpoint", "total", "by_sku"):                # existing keys stay
        assert key in c
    for key in ("routers_w", "cables_w", "nics_w", "total_w", "per_endpoint_w",
                "per_router_port_w"):
        assert key in summary["power"]


def test_wiring_pdf_has_a_floor_page_per_hall(tmp_path):
    from pypdf import PdfReader

    from planner.exports import wiring_pdf

    floor = load_floor("hot-aisle")
    floor = floor.model_copy(update={"hall": floor.hall.model_copy(
        update={"rows": 2, "cabinets_per_row": 6})})
    p = plan(slimfly(5), "modern-100g", floor, strategy="hint")
    wiring_pdf.write(p, tmp_path)
    texts = [page.extract_text() for page in PdfReader(tmp_path / "wiring.pdf").pages]
    halls = int(p.cabinets["hall"].max()) + 1
    assert halls >= 2
    for h in range(halls):
        page = next(t for t in texts if f"Hall H{h + 1}: 2 rows x 6 cabinets" in t)
        names = set(p.cabinets.loc[p.cabinets["hall"] == h, "name"])
        assert all(name.split("-", 1)[1] in page for name in names)   # the caption gives H<h>
        for word in ("cold aisle", "hot aisle", "entry", "overhead cable tray", "cabinet front"):
            assert word in page
    last = p.cabinets.iloc[-1]
    sheet = next(t for t in texts if f"Cabinet {last['name']}" in t.splitlines()[:3])
    assert f"hall H{int(last['hall']) + 1}, row" in sheet and f"{last['kw']:.2f} kW" in sheet


# ----------------------------------------------------------------------------- bad input

def _floor_file(tmp_path, **fields) -> str:
    path = tmp_path / "room.yaml"
    path.write_text(yaml.safe_dump({"extends": "hot-aisle", "name": "room", **fields}))
    return str(path)


BAD_ROOMS = {
    "halls too small": ({"hall": {"count": 1, "max_rows": 2, "max_cabinets_per_row": 4}},
                        ["field 'hall.count'", "raise hall.count to at least 4"]),
    "budget below a router": ({"cabinet_kw_budget": 0.01},
                              ["field 'cabinet_kw_budget' is 0.01 kW but one router",
                               "raise cabinet_kw_budget"]),
    "negative hall link": ({"hall": {"count": 2, "link_m": -5}},
                           ["field 'hall.link_m' must be a finite number of metres >= 0"]),
    "infinite hall link": ({"hall": {"count": 2, "link_m": math.inf}},
                           ["field 'hall.link_m'", "got inf"]),
    "zero rows": ({"hall": {"rows": 0}}, ["field 'hall.rows' must be a whole number of rows"]),
    "zero cabinets per row": ({"hall": {"cabinets_per_row": 0}},
                              ["field 'hall.cabinets_per_row'"]),
}


@pytest.mark.parametrize("case", sorted(BAD_ROOMS))
def test_bad_room_exits_2_with_one_line_and_writes_nothing(case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fields, words = BAD_ROOMS[case]
    floor = _floor_file(tmp_path, **fields)
    before = sorted(os.listdir(tmp_path))
    code = main(["plan", "--topology", "slimfly:q=5", "--catalog", "modern-100g", "--floor",
                 floor, "--strategy", "hint", "--out", "out"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert f"floor '{floor}'" in err
    for word in words:
        assert word in err, (word, err)
    assert sorted(os.listdir(tmp_path)) == before
