"""Structured cabling (planner.inputs.parts.structured, planner.cabling.structured): links that
leave their row run cord -> panel -> trunk -> panel (-> hall trunk -> panel) -> cord, checked
against pieces computed by hand on the test hall of tests/test_routes.py (0.6 m pitch, rows 2.4 m
apart, cross trays at x = -0.3, 2.1, 4.5, 6.9 m, 0.5 m rise per end, 0.3 m per cable split between
the two cords, 10 % slack, halls 30 m apart):

    A02 - B07 (tray 2.1 between)  cord (0.5 + 1.5 + 0.15) x 1.1 = 2.365, trunk 2.4 x 1.1 = 2.64,
                                  cord (1.5 + 0.5 + 0.15) x 1.1 = 2.365; total 7.37
    A07 - B08 (detour to 4.5)     cord (0.5 + 0.9 + 0.15) x 1.1 = 1.705, trunk 2.64,
                                  cord (0.3 + 0.5 + 0.15) x 1.1 = 1.045; total 5.39
    H1-B03 - H2-C05               cord (0.5 + 1.5 + 0.15) x 1.1 = 2.365, row trunk to the entry
                                  4.2 x 1.1 = 4.62, hall trunk 30 x 1.1 = 33, row trunk from the
                                  entry 6.6 x 1.1 = 7.26, cord (2.7 + 0.5 + 0.15) x 1.1 = 3.685;
                                  total 50.93
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import yaml

from planner.cli import main
from planner.exports import trunks_csv
from planner.inputs.floor import cabinet_names, room_of
from planner.inputs.parts import structured
from planner.inputs.schema import builtin_dir
from planner.placement.objective import cabinet_prices
from planner.placement.result import Placement
from planner.plan import plan
from planner.topologies.base import Topology
from test_exports_plans import get_plan
from test_plan_invariants import segment_pieces
from test_routes import hall_floor, hand_placement, make_catalog

TRANSCEIVER = dict(sku="SR", description="short-reach transceiver", media="optical",
                   kind="transceiver", rate_gbps=100, max_reach_m=100, loss_budget_db=1.9,
                   fibre="om4-mpo12",
                   fibres=12, price={"fixed": 300}, watts_per_end=2.5)
CORD = dict(sku="OM4", description="MPO-12 patch cord", media="optical", kind="fibre",
            fibre="om4-mpo12", max_reach_m=100, stock_lengths=[1, 2, 3, 5, 10],
            part_numbers="OM4-{m}M", price={"fixed": 20, "per_m": 1}, netbox_type="mmf-om4",
            color="Aqua")
TRUNK = dict(sku="T144", description="144-fibre MPO trunk", media="optical", kind="trunk",
             fibre="om4-mpo12", fibres=144, max_reach_m=100, stock_lengths=[3, 5, 10, 20, 50],
             part_numbers="T144-{m}M", price={"fixed": 400, "per_m": 5},
             netbox_type="mmf-om4", color="Aqua")
PANEL = dict(sku="PNL48", description="1U 48 MPO adapters", fibre="om4-mpo12", ports=48,
             rack_units=1, price=480)


DAC = dict(sku="DAC", description="copper", media="electrical", kind="dac", rate_gbps=100,
           max_reach_m=3, stock_lengths=[1, 2, 3], price={"table": {1: 50, 2: 60, 3: 70}},
           watts_per_end=0.1, netbox_type="dac-passive", color="Black")
AOC = dict(sku="AOC", description="active optical", media="optical", kind="aoc", rate_gbps=100,
           max_reach_m=30, stock_lengths=[5, 10, 20, 30], price={"fixed": 200, "per_m": 10},
           watts_per_end=1.5, netbox_type="aoc", color="Aqua")


def structured_catalog(trunk=None, panel=None):
    """The routes test catalog's switch, DAC and AOC, with SR optics, cords, trunk and panel."""
    return make_catalog(cables=[DAC, AOC, TRANSCEIVER, CORD, dict(TRUNK, **(trunk or {}))],
                        panels=[dict(PANEL, **(panel or {}))])


def structured_floor(**changes):
    """The test hall with structured cabling and low-loss MPO connectors (0.35 dB a mated pair),
    so that SR lights the cross-hall link's 4 panels: 73 m x 3.5 dB/km + 4 x 0.35 = 1.66 dB of
    1.9 (tests/test_reach.py checks the budgets)."""
    return hall_floor(structured_cabling=True, **{"connection_loss_db": 0.35, **changes})


# (name, a = (hall, row, col), b, [cord_a, trunk_a, hall, trunk_b, cord_b]) computed by hand
# (patch-rack positions: column c at x = (c + c // 4) * 0.6, cross trays over the racks at
# x = -0.6, 2.4, 5.4, 8.4; the entry at (-0.6, -1.8))
PIECES = [
    ("adjacent rows, tray between", (0, 0, 1), (0, 1, 6), [2.695, 2.64, 0, 0, 2.695]),
    ("adjacent rows, detour", (0, 0, 6), (0, 1, 7), [2.035, 2.64, 0, 0, 1.375]),
    ("two halls", (0, 1, 2), (1, 2, 4), [2.695, 4.62, 33.0, 7.26, 4.675]),
]


@pytest.mark.parametrize("name,a,b,want", PIECES, ids=[p[0] for p in PIECES])
def test_pieces_are_the_hand_computed_ones_and_add_up_to_the_route(name, a, b, want):
    room = room_of(structured_floor(), [0, 1], [0, 3], [0, 11])
    got = structured.runs(room, *a, *b)
    pieces = [float(getattr(got, k)) for k in ("cord_a", "trunk_a", "hall", "trunk_b", "cord_b")]
    assert pieces == pytest.approx(want, abs=1e-9)
    assert bool(got.structured) and bool(got.cross_hall) == (a[0] != b[0])
    from planner.inputs.floor.routes import route_length_m
    assert sum(pieces) == pytest.approx(float(route_length_m(room, *a, *b)), abs=1e-9)


def test_links_within_a_row_or_cabinet_and_paper_floors_are_not_structured():
    room = room_of(structured_floor(), [0, 1], [0, 3], [0, 11])
    got = structured.runs(room, [0, 0], [0, 0], [2, 2], [0, 0], [0, 0], [2, 6], [True, False])
    assert not got.structured.any()
    flat = room_of(hall_floor(), [0, 1], [0, 3], [0, 11])
    assert not structured.runs(flat, 0, 0, 1, 0, 1, 6).structured.any()


# the hand placement's links through panels on the structured hall, computed by hand as PIECES:
# (along the rows + across + 2 x 0.5 rise/drop + 0.3 per cable) x 1.1
STRUCTURED_LENGTHS = {
    ("r03", "r04"): (1.8 + 1.8 + 2.4 + 1.3) * 1.1,            # tray at 2.4 between, 8.03 m
    ("r02", "r05"): (0.6 + 2 * 0.6 + 2.4 + 1.3) * 1.1,        # detour to the tray at 5.4
    ("r06", "r07"): (7.8 + 7.2 + 1.3) * 1.1,                  # opposite corners
    ("r06", "r08"): (2 * 0.6 + 7.2 + 1.3) * 1.1,              # one column, start of rows
    ("r07", "r09"): (2 * 0.6 + 7.2 + 1.3) * 1.1,              # one column, end of rows
    ("r10", "r11"): (1.8 + 4.2 + 30 + 3.6 + 6.6 + 1.3) * 1.1,  # two halls, 52.25 m
}


def test_cables_csv_lists_the_segments_and_the_bom_orders_them():
    """The hand placement of tests/test_routes.py on the structured hall: every cable between
    rows or halls is SR optics + cords + trunk(s) through panels, the pieces are the hand-computed
    ones, and the BOM has cords, trunks and panels with their part numbers."""
    top, placement, expected = hand_placement()
    result = plan(top, structured_catalog(), structured_floor(), placement=placement)
    cables = result.cables.set_index(["a_device", "b_device"])
    for pair, (_a, _b, kind, _flat) in expected.items():
        length = STRUCTURED_LENGTHS.get(pair)
        row = cables.loc[pair]
        if kind in ("cabinet", "row"):
            assert row["segments"] == "", pair
            continue
        assert (row["a_transceiver"], row["b_transceiver"]) == ("SR", "SR"), pair
        pieces = segment_pieces(row["segments"])
        metres = [x[1] for x in pieces if x[0] == "cord"] + [x[2] for x in pieces
                                                              if x[0] == "trunk"]
        assert sum(metres) == pytest.approx(length, abs=0.005), pair
        assert row["order_length_m"] == pytest.approx(
            sum(float(x[-1].split("-")[-1][:-1]) for x in pieces if x[0] in ("cord", "trunk")))
    tray_between = segment_pieces(cables.loc[("r03", "r04"), "segments"])
    # the floor's default drop into a 42U patch rack, 42 x 44.45 mm = 1.8669 m, is added at each
    # panel a piece lands on: a cord 2.695 + 1.867 = 4.562 m is ordered at 5 m, a trunk
    # 2.64 + 2 x 1.867 = 6.374 m at 10 m
    assert tray_between[0] == ("cord", 2.695, "OM4-5M")
    assert tray_between[2][2:] == (2.64, "T144-10M")
    assert tray_between[4] == ("cord", 2.695, "OM4-5M")
    hall = segment_pieces(cables.loc[("r10", "r11"), "segments"])
    # 4.62, 33 and 7.26 m plus two drops of 1.867 m: 8.35, 36.73 and 10.99 m
    assert [x[2:] for x in hall if x[0] == "trunk"] == [(4.62, "T144-10M"), (33.0, "T144-50M"),
                                                         (7.26, "T144-20M")]
    assert [x[1] for x in hall if x[0] == "port"] == ["H1-B-P0-01", "H1-ENTRY-01",
                                                      "H2-ENTRY-01", "H2-C-P0-01"]

    n_links = int((result.cables["segments"] != "").sum())
    n_hall = int((result.cables["route_kind"] == "cross-hall").sum())
    bom = result.bom
    trunks = bom[bom["item"] == "trunk"]
    assert set(trunks["sku"]) <= {f"T144-{m}M" for m in (3, 5, 10, 20, 50)}
    trunk_ids = {x[1] for text in result.cables["segments"] if text
                 for x in segment_pieces(text) if x[0] == "trunk"}
    assert int(trunks["quantity"].sum()) == len(trunk_ids)
    cords = bom[(bom["item"] == "fibre") & bom["sku"].str.startswith("OM4-")]
    assert int(cords["quantity"].sum()) == 2 * n_links
    panels = bom[bom["item"] == "panel"]
    assert panels["sku"].tolist() == ["PNL48"]
    # every link enters and leaves at a row panel of its own (one per row end it uses), and a
    # cross-hall link passes the two entry racks' panels too
    names = {x[1] for text in result.cables["segments"] if text
             for x in segment_pieces(text) if x[0] == "port"}
    assert int(panels["quantity"].iloc[0]) == len(names)
    assert result.summary["structured"]["panel_ports_used"] == 2 * n_links + 2 * n_hall


def test_trunks_csv_is_the_schedule_the_segments_name(tmp_path):
    """trunks.csv read back: one row per trunk the cables' segments name, carrying as many links
    as name it, between the two panels on either side of it in those segments (a hall trunk
    between the entry racks' panels), each panel in the rack and rack unit its name says, the
    part number the segments order; the BOM orders as many of each part number. Without
    structured cabling no trunks.csv is written."""
    top, placement, _ = hand_placement()
    result = plan(top, structured_catalog(), structured_floor(), placement=placement)
    trunks_csv.write(result, tmp_path)
    table = pd.read_csv(tmp_path / "trunks.csv", dtype=str, keep_default_na=False)
    links, ends, skus = Counter(), {}, {}
    for text in result.cables["segments"]:
        pieces = segment_pieces(text) if text else []
        for i, piece in enumerate(pieces):
            if piece[0] == "trunk":
                links[piece[1]] += 1
                ends.setdefault(piece[1], set()).add(frozenset((pieces[i - 1][1], pieces[i + 1][1])))
                skus[piece[1]] = piece[3]
    assert table["trunk_id"].tolist() == sorted(links)
    assert set(table["kind"]) == {"row", "hall"}
    for row in table.itertuples(index=False):
        assert int(row.links) == links[row.trunk_id] and row.sku == skus[row.trunk_id]
        assert ends[row.trunk_id] == {frozenset((row.a_panel, row.b_panel))}
        assert row.label == f"{row.a_panel}:{row.a_port}/{row.b_panel}:{row.b_port}"
        for panel, rack, ru in ((row.a_panel, row.a_rack, row.a_ru), (row.b_panel, row.b_rack, row.b_ru)):
            assert panel == f"{rack}-{int(ru):02d}"
    bom = result.bom[result.bom["item"] == "trunk"]
    assert dict(zip(bom["sku"], bom["quantity"].astype(int))) == dict(Counter(table["sku"]))

    plain = get_plan("slimfly-abstract")   # the papers' racks: no structured cabling
    (tmp_path / "plain").mkdir()
    trunks_csv.write(plain, tmp_path / "plain")
    assert plain.structured is None and not any((tmp_path / "plain").iterdir())


def test_bom_orders_one_enclosure_per_patch_rack():
    """modern-100g prices the patch rack itself (``rack_hardware`` per ``patch_rack``): one per
    rack the cables' segments pass through (a panel ``A-P0-01`` stands in rack ``A-P0``), and no
    line on a floor without structured cabling."""
    structured_plan, plain = get_plan("slimfly-hot"), get_plan("slimfly-abstract")
    racks = {piece[1].rsplit("-", 1)[0] for text in structured_plan.cables["segments"] if text
             for piece in segment_pieces(text) if piece[0] == "port"}
    line = structured_plan.bom[structured_plan.bom["sku"] == "AR3300"]
    assert len(racks) > 0 and line["quantity"].tolist() == [len(racks)]
    assert line["item"].tolist() == ["rack"]
    assert structured_plan.summary["structured"]["patch_racks"] == len(racks)
    assert plain.structured is None and "AR3300" not in set(plain.bom["sku"])


# (trunk fibres, panel ports, links between the two panels, trunks, panels at each end)
SHARING = [(144, 48, 13, 2, 1),     # 12 links a trunk: 12 + 1; 4 trunks fit one panel
           (144, 48, 12, 1, 1),
           (24, 4, 13, 7, 4),       # 2 links a trunk: ceil(13 / 2); 2 trunks a panel
           (24, 4, 4, 2, 1)]


@pytest.mark.parametrize("fibres,ports,links,trunks,panels", SHARING)
def test_links_between_two_panels_share_trunks_and_fill_panels_by_ports(fibres, ports, links,
                                                                        trunks, panels):
    cabinets = [(0, 0, 1), (0, 1, 6)]
    hall, row, col = (np.array(v) for v in zip(*cabinets))
    placement = Placement(router_cabinet=np.array([0, 1]), cabinet_row=row, cabinet_col=col,
                          cabinet_group=np.arange(2), cabinet_names=cabinet_names(hall, row, col),
                          strategy="hint", method="hand", optical=0, lower_bound=0.0,
                          lower_bound_kind="hand", cabinet_hall=hall)
    top = Topology.from_edges("test", {}, 2, [(0, 1)] * links, 0)
    catalog = structured_catalog(trunk={"fibres": fibres}, panel={"ports": ports})
    result = plan(top, catalog, structured_floor(), placement=placement)
    bom = result.bom.set_index("item")
    assert int(bom.loc[["trunk"], "quantity"].sum()) == trunks == math.ceil(links / (fibres // 12))
    assert int(bom.loc[["panel"], "quantity"].sum()) == 2 * panels
    per_trunk: dict[str, int] = {}
    for text in result.cables["segments"]:
        tid = next(x[1] for x in segment_pieces(text) if x[0] == "trunk")
        per_trunk[tid] = per_trunk.get(tid, 0) + 1
    assert sorted(per_trunk.values(), reverse=True) == [fibres // 12] * (links // (fibres // 12)) \
        + ([links % (fibres // 12)] if links % (fibres // 12) else [])
    assert len(result.structured.racks) == 2 and (result.structured.racks["ru_used"] == panels).all()


def test_structured_link_price_is_optics_cords_trunk_and_panel_shares():
    """A02 - B07 alone: two SR modules (300 each), two cords ordered at 5 m (20 + 5 each: 2.365 m
    and the 1.867 m drop into the patch rack), a 10 m trunk (400 + 50: 2.64 m and two drops)
    shared by its 12 links, and two panel passages at 480 / 48 each: the same price placement
    sees through ``media.choose_parts``."""
    top, placement, _ = hand_placement()
    result = plan(top, structured_catalog(), structured_floor(), placement=placement)
    row = result.cables.set_index(["a_device", "b_device"]).loc[("r03", "r04")]
    want = 2 * 300 + 2 * (20 + 5) + (400 + 5 * 10) / 12 + 2 * 480 / 48
    assert row["unit_price"] == pytest.approx(want)


def _position_price(result, catalog, floor, a_device, b_device) -> float:
    """Placement's price (``objective.cabinet_prices``) of one link between the cabinet
    positions of two routers of a plan."""
    place = result.placement
    room = room_of(floor, place.cabinet_hall, place.cabinet_row, place.cabinet_col)
    prices = cabinet_prices(floor, catalog, result.router_model, room, 1, np.array([1]))
    a, b = (int(place.router_cabinet[int(d[1:])]) for d in (a_device, b_device))   # "r03" -> 3
    local = prices.local(place.cabinet_row, place.cabinet_col)
    return float(prices.price[0, 0, local[a], local[b]])


def test_placement_prices_a_structured_link_as_the_cabling_stage_does():
    """A02 - B07 (8.03 m, beyond the 3 m copper): placement's price table holds the structured
    price of the bill; with a copper assembly that reaches 10 m the same link runs point to
    point on copper (no segments) and both the bill and the table charge the copper price."""
    top, placement, _ = hand_placement()
    floor = structured_floor()
    for dac_reach, want_media in ((3, "optical"), (10, "electrical")):
        catalog = structured_catalog()
        if dac_reach == 10:
            dac = dict(DAC, max_reach_m=10, stock_lengths=[1, 2, 3, 9, 10],
                       price={"table": {1: 50, 2: 60, 3: 70, 9: 95, 10: 110}})
            catalog = make_catalog(cables=[dac, AOC, TRANSCEIVER, CORD, TRUNK], panels=[PANEL])
        result = plan(top, catalog, floor, placement=placement)
        row = result.cables.set_index(["a_device", "b_device"]).loc[("r03", "r04")]
        assert row["media"] == want_media
        assert (row["segments"] != "") == (want_media == "optical")
        want = (2 * 300 + 2 * (20 + 5) + (400 + 5 * 10) / 12 + 2 * 480 / 48
                if want_media == "optical" else 95)
        assert row["unit_price"] == pytest.approx(want)
        assert _position_price(result, catalog, floor, "r03", "r04") == pytest.approx(want)


# ----------------------------------------------------------------------------- bad input

def _modern(change) -> dict:
    data = yaml.safe_load((builtin_dir("catalogs") / "modern-100g.yaml").read_text())
    change(data)
    return data


def _trunk_of_100_fibres(data):
    next(c for c in data["cables"] if c["kind"] == "trunk")["fibres"] = 100


def _panel_without_ports(data):
    data["panels"][0]["ports"] = 0


def _no_panels(data):
    data["panels"] = []


BAD = [("trunk fibres", _trunk_of_100_fibres, ("fibres", "100", "multiple of 12")),
       ("panel without ports", _panel_without_ports, ("panels[0].ports", "is 0")),
       ("structured floor without panels", _no_panels,
        ("structured_cabling", "trunk", "panel", "set structured_cabling: false"))]


@pytest.mark.parametrize("name,change,words", BAD, ids=[b[0] for b in BAD])
def test_bad_structured_parts_exit_2_naming_the_field(tmp_path, capsys, monkeypatch, name,
                                                      change, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(_modern(change)))
    code = main(["plan", "--topology", "slimfly:q=5", "--catalog", "cat.yaml", "--floor",
                 "hot-aisle", "--strategy", "hint", "--out", "out"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, (word, err)
    assert not (tmp_path / "out").exists()
