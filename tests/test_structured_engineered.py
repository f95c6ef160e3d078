"""Structured cabling engineered (planner.inputs.parts.structured ``pack``, ``patch_drop_m``,
``entry_panel``; planner.cabling.structured): trunk sizes packed at least cost, the drop into the
patch rack in every cord and trunk, the hall-entry panel that takes trunks on both faces, and
what summary.json reports, against cases computed by hand on the test hall of
tests/test_routes.py (A02 - B07: cords 2.695 m, trunk 2.64 m; tests/test_structured.py).

Test catalog trunks (OM4, stock 3/5/10/20/50 m), their price at 10 m and links per trunk:
T144 400 + 5/m = 450 (12 links), T24 100 + 1/m = 110 (2), T48 150 + 2/m = 170 (4), T96 280 +
4/m = 320 (8); a 48-port panel at 480 is 10 per adapter, 20 per link for its two ends.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import yaml

from planner.cli import main
from planner.exports import trunks_csv
from planner.inputs.floor import cabinet_names
from planner.inputs.parts import structured
from planner.inputs.schema import builtin_dir
from planner.placement.result import Placement
from planner.plan import plan
from planner.topologies.base import Topology
from test_plan_invariants import segment_pieces
from test_routes import hall_floor, hand_placement, make_catalog
from test_structured import CORD, PANEL, TRANSCEIVER, TRUNK

DROP = 42 * 0.04445                      # default drop: the 42U patch rack's height, 1.8669 m
SIZES = {"T144": (12, 400, 5), "T24": (2, 100, 1), "T48": (4, 150, 2), "T96": (8, 280, 4)}
ROUTER = dict(sku="SW-64", vendor="Acme", description="64-port switch", rate_gbps=100,
              lanes_per_port=4, radix=64, price={"fixed": 10000}, watts_per_lane=1.0,
              base_watts=100, rack_units=1)


def sized_catalog(**changes):
    """SR optics, cords, the four OM4 trunk sizes and the 48-port panel on a 64-port switch."""
    trunks = [dict(TRUNK, sku=name, fibres=12 * legs, part_numbers=f"{name}-{{m}}M",
                   price={"fixed": fixed, "per_m": per_m})
              for name, (legs, fixed, per_m) in SIZES.items()]
    return make_catalog(routers=[ROUTER], cables=[TRANSCEIVER, CORD, *trunks], panels=[PANEL],
                        **changes)


def two_racks(links: int) -> tuple[Topology, Placement]:
    """``links`` parallel links between A02 and B07 (tray between: one row panel each)."""
    hall, row, col = (np.array(v) for v in zip((0, 0, 1), (0, 1, 6)))
    placement = Placement(router_cabinet=np.array([0, 1]), cabinet_row=row, cabinet_col=col,
                          cabinet_group=np.arange(2), cabinet_names=cabinet_names(hall, row, col),
                          strategy="hint", method="hand", optical=0, lower_bound=0.0,
                          lower_bound_kind="hand", cabinet_hall=hall)
    return Topology.from_edges("test", {}, 2, [(0, 1)] * links, 0), placement


def price_at_10m(name: str) -> float:
    legs, fixed, per_m = SIZES[name]
    return fixed + per_m * 10 + legs * 2 * 480 / 48


# links -> trunks, by hand: cost at 10 m with the adapters; e.g. 30 links: 2 x T144 + T48 + T24
# (900 + 170 + 110 + 30 x 20 = 1780) beats 3 x T144 (1350 + 720 = 2070) and 2 x T144 + T96
# (900 + 320 + 640 = 1860); 13 links: T144 + T24 (450 + 110 + 280 = 840) beats 2 x T144 (1380)
PACKS = [(1, ["T24"]), (2, ["T24"]), (3, ["T48"]), (12, ["T144"]), (13, ["T144", "T24"]),
         (30, ["T144", "T144", "T48", "T24"]), (33, ["T144", "T144", "T96", "T24"])]


@pytest.mark.parametrize("need,want", PACKS)
def test_pack_takes_the_hand_computed_trunks(need, want):
    names = list(SIZES)
    sizes = [(SIZES[n][0], price_at_10m(n)) for n in names]
    assert [names[k] for k in structured.pack(need, sizes)] == want


def test_pack_is_the_cheapest_multiset_by_brute_force():
    names = list(SIZES)
    sizes = [(SIZES[n][0], price_at_10m(n)) for n in names]
    for need in range(1, 41):
        best = math.inf
        for counts in itertools.product(*(range(need // legs + 2) for legs, _ in sizes)):
            if sum(c * legs for c, (legs, _) in zip(counts, sizes)) >= need:
                best = min(best, sum(c * cost for c, (_, cost) in zip(counts, sizes)))
        got = structured.pack(need, sizes)
        assert sum(sizes[k][1] for k in got) == pytest.approx(best), need
        assert sum(sizes[k][0] for k in got) >= need


# 30 links between two panel points with no panels yet, by hand (trunks at 10 m, 480 a panel;
# a panel holds trunks of one size, 48 // links of them):
#   4 x T96 (32 positions)            1280 + 1 panel a side  960 = 2240  <- the cheapest
#   3 x T144 (36)                     1350 + 1 panel a side  960 = 2310
#   8 x T48 (32)                      1360 + 1 panel a side  960 = 2320
#   15 x T24 (30)                     1650 + 1 panel a side  960 = 2610
#   2 x T144 + T96 (32)               1220 + 2 panels a side 1920 = 3140
#   2 x T144 + T48 + T24 (30)         1180 + 3 panels a side 2880 = 4060
def test_30_links_between_two_racks_take_four_t96(tmp_path):
    """The plan of 30 links A02 - B07: the trunks read back from trunks.csv and the BOM, the
    segments naming each trunk as often as it carries links (largest first, in cable order), one
    panel at each end, and summary.json's fill, port use and dollars by hand."""
    top, placement = two_racks(30)
    result = plan(top, sized_catalog(), hall_floor(structured_cabling=True),
                  placement=placement)
    trunks_csv.write(result, tmp_path)
    schedule = pd.read_csv(tmp_path / "trunks.csv", dtype=str, keep_default_na=False)
    schedule["links"] = schedule["links"].astype(int)
    assert list(zip(schedule["sku"], schedule["links"], schedule["capacity"].astype(int))) == [
        ("T96-10M", 8, 8), ("T96-10M", 8, 8), ("T96-10M", 8, 8), ("T96-10M", 6, 8)]
    named = pd.Series([p[1] for text in result.cables["segments"]
                       for p in segment_pieces(text) if p[0] == "trunk"]).value_counts()
    assert named.to_dict() == dict(zip(schedule["trunk_id"], schedule["links"]))
    bom = result.bom.set_index("sku")
    assert int(bom.loc["T96-10M", "quantity"]) == 4 and "T144-10M" not in bom.index
    assert int(bom.loc["PNL48", "quantity"]) == 2
    got = result.summary["structured"]
    assert got["trunk_fill"] == round(30 / 32, 4) and got["trunk_link_capacity"] == 32
    assert got["panel_ports"] == 2 * 48 and got["panel_port_use"] == round(60 / 96, 4)
    cords = 60 * (20 + 5)                                   # 2.695 + 1.867 m at 5 m
    structured_dollars = cords + 4 * 320 + 2 * 480
    assert got["dollars"] == {"cords": cords, "trunks": 4 * 320, "panels": 2 * 480,
                              "patch_racks": 0, "structured": structured_dollars,
                              "point_to_point": 30 * (20 + 10),   # 7.37 m on a 10 m cord
                              "point_to_point_unreached": 0,
                              "saved": 30 * 30 - structured_dollars}
    # placement still prices a link at its share of the cheapest trunk per link (T144)
    assert result.cables["unit_price"].iloc[0] == pytest.approx(
        2 * 300 + 2 * 25 + 450 / 12 + 2 * 480 / 48)


def test_a_second_pair_fills_the_panels_the_first_opened():
    """30 links A02 - B07, then 2 links A02 - C07 (panel points A-P1 - C-P1, a 10 m trunk too):
    alone the 2 links would take a T24 (110), but it would buy a T24 panel on both sides
    (110 + 960 = 1070), while a T96 takes a free rear port of the T96 panel the first pair
    opened at A-P1 (4 of 6 used) and buys one panel at C-P1 (320 + 480 = 800)."""
    hall, row, col = (np.array(v) for v in zip((0, 0, 1), (0, 1, 6), (0, 2, 6)))
    placement = Placement(router_cabinet=np.array([0, 1, 0, 2]), cabinet_row=row,
                          cabinet_col=col, cabinet_group=np.arange(3),
                          cabinet_names=cabinet_names(hall, row, col), strategy="hint",
                          method="hand", optical=0, lower_bound=0.0, lower_bound_kind="hand",
                          cabinet_hall=hall)
    top = Topology.from_edges("test", {}, 4, [(0, 1)] * 30 + [(2, 3)] * 2 + [(0, 2)], 0)
    result = plan(top, sized_catalog(), hall_floor(structured_cabling=True),
                  placement=placement)
    trunks = trunks_csv.table(result.structured)
    assert trunks["sku"].tolist() == ["T96-10M"] * 5
    assert sorted(trunks["links"].tolist()) == [2, 6, 8, 8, 8]
    panels = result.structured.panels
    assert sorted(panels["point"]) == ["A-P1", "B-P1", "C-P1"]
    assert panels.set_index("point").loc["A-P1", "trunks"] == 5


def test_spare_ports_for_growth_are_bought_and_reported():
    """structured_spare_pct 10: 30 links need 33 positions: 3 x T144 (36; 1350 + a panel a side,
    2310) beats 9 x T48 (1530 + 960 = 2490) and 5 x T96 (1600 + 960 = 2560); the links fill
    the trunks in order and 6 of 36 positions are spare."""
    top, placement = two_racks(30)
    floor = hall_floor(structured_cabling=True, structured_spare_pct=10)
    result = plan(top, sized_catalog(), floor, placement=placement)
    schedule = trunks_csv.table(result.structured)
    assert list(zip(schedule["sku"], schedule["links"])) == [
        ("T144-10M", 12), ("T144-10M", 12), ("T144-10M", 6)]
    got = result.summary["structured"]
    assert got["trunk_link_capacity"] == 36
    assert got["trunk_spare_share"] == round(6 / 36, 4)


# (patch_drop_m, cord stock, trunk stock, first panel RU): the drop is added to a cord once
# and to a trunk twice before rounding up to stock (3/5/10/20/50 m); one link takes the 2-link
# T24; panels fill only the top rack units the drop reaches (0.5 m / 44.45 mm = 11 RU: U32-U42)
DROPS = [(None, "OM4-5M", "T24-10M", 1),               # 2.695 + 1.867 = 4.56; 2.64 + 3.73 = 6.37
         (0.5, "OM4-5M", "T24-5M", 32),                # 2.695 + 0.5 = 3.195; 2.64 + 1 = 3.64
         (3 * 0.04445, "OM4-3M", "T24-3M", 40)]        # 2.83; 2.91


@pytest.mark.parametrize("drop,cord,trunk,ru", DROPS)
def test_every_cord_and_trunk_reaches_its_panel(drop, cord, trunk, ru):
    top, placement = two_racks(1)
    floor = hall_floor(structured_cabling=True, patch_drop_m=drop)
    result = plan(top, sized_catalog(), floor, placement=placement)
    pieces = segment_pieces(result.cables["segments"].iloc[0])
    assert (pieces[0][2], pieces[2][3], pieces[4][2]) == (cord, trunk, cord)
    assert pieces[1][1] == f"A-P1-{ru:02d}" and pieces[3][1] == f"B-P1-{ru:02d}"
    assert (result.structured.panels["ru"] == ru).all()


def test_a_point_beyond_the_drop_band_starts_a_second_rack():
    """patch_drop_m of 3 RU: a patch rack holds three 1U panels (U40-U42). 156 links on 144-fibre
    trunks: 13 trunks, 4 to a 48-port panel, so 4 panels at each end: U40-U42 of rack A-P1 and
    U40 of the next rack, A-P1.2."""
    top, placement = two_racks(13 * 12)
    catalog = make_catalog(routers=[dict(ROUTER, radix=256)], cables=[TRANSCEIVER, CORD, TRUNK],
                           panels=[PANEL])
    floor = hall_floor(structured_cabling=True, patch_drop_m=3 * 0.04445)
    panels = plan(top, catalog, floor, placement=placement).structured.panels
    at_a = panels[panels["point"] == "A-P1"].sort_values("name")
    assert at_a["name"].tolist() == ["A-P1-40", "A-P1-41", "A-P1-42", "A-P1.2-40"]


@pytest.mark.parametrize("name", ["slimfly-hot", "dragonfly-hot"])
def test_every_piece_of_a_real_plan_is_ordered_for_its_drops(name):
    """On the shared hot-aisle plans (42U patch racks: a 1.867 m drop), read from the cables'
    segments: every cord's stock length covers its computed length plus one drop, every trunk's
    its length plus two; every panel sits in a rack unit of its 42U rack."""
    from test_exports_plans import get_plan
    result = get_plan(name)
    pieces = [p for text in result.cables["segments"] if text for p in segment_pieces(text)]
    cords = [(m, float(sku.rsplit("-", 1)[1][:-1])) for kind, m, sku in
             (p for p in pieces if p[0] == "cord")]
    trunks = [(p[2], float(p[3].rsplit("-", 1)[1][:-1])) for p in pieces if p[0] == "trunk"]
    assert cords and trunks
    assert all(stock >= m + DROP - 1e-9 for m, stock in cords)
    assert all(stock >= m + 2 * DROP - 1e-9 for m, stock in trunks)
    assert result.structured.panels["ru"].between(1, 42).all()


def lc_catalog(pass_through: bool):
    """Single-mode duplex links only: LR optics, LC cords, 48-fibre trunks (24 links, MPO-24
    ends), the LC-cassette row panel and, if asked, the MPO-24 pass-through panel."""
    lr = dict(TRANSCEIVER, sku="LR", fibre="os2-lc", fibres=2, max_reach_m=2000,
              loss_budget_db=5.0, price={"fixed": 700})
    cord = dict(CORD, sku="LC", fibre="os2-lc", part_numbers="LC-{m}M", netbox_type="smf-os2",
                color="Yellow")
    trunk = dict(TRUNK, sku="T48", fibre="os2-lc", fibres=48, part_numbers="T48-{m}M",
                 netbox_type="smf-os2", color="Yellow")
    cassette = dict(PANEL, sku="LC48", fibre="os2-lc", connector="lc-upc", rear_connector="mpo")
    through = dict(PANEL, sku="MPO24-PT", fibre="os2-lc", ports=288, price=300)
    return make_catalog(cables=[lr, cord, trunk],
                        panels=[cassette] + ([through] if pass_through else []))


def test_hall_entry_panels_take_trunks_on_both_faces():
    """Between halls the row panels are LC cassettes (cords land there) and the entry panels
    the pass-through part (trunk meets trunk): 4 passages, two at 600 / 48 and two at
    300 / 288 per link; without a pass-through panel a link between halls has no way."""
    top, placement, _ = hand_placement()
    result = plan(top, lc_catalog(True), hall_floor(structured_cabling=True),
                  placement=placement)
    panels = result.structured.panels
    skus = {kind: set(panels.loc[panels["kind"] == kind, "sku"]) for kind in ("row", "entry")}
    assert skus == {"row": {"LC48"}, "entry": {"MPO24-PT"}}
    hall_link = result.cables.set_index(["a_device", "b_device"]).loc[("r10", "r11")]
    assert hall_link["route_kind"] == "cross-hall"
    with pytest.raises(Exception, match="field 'panels' has no hall-entry panel"):
        plan(top, lc_catalog(False), hall_floor(structured_cabling=True), placement=placement)


def test_default_plan_catalog_lands_matching_parts():
    """modern-100g: every OS2 hall-entry panel is the MPO-24 pass-through, every row panel the
    cassette (LC cords) or the MPO-12 panel (OM4), per ``row_panels`` and ``entry_panel``."""
    from planner.inputs.catalog import load_catalog
    catalog = load_catalog("modern-100g")
    sku = {p.sku: i for i, p in enumerate(catalog.panels)}
    assert structured.row_panels(catalog, "os2-lc") == [sku["PNL-1U-48LC-OS2"]]
    assert structured.entry_panel(catalog, sku["PNL-1U-48LC-OS2"]) == sku["PNL-1U-24MPO24-OS2"]
    assert structured.entry_panel(catalog, sku["PNL-1U-48MPO-OM4"]) == sku["PNL-1U-48MPO-OM4"]


# ----------------------------------------------------------------------------- bad input

def _floor_with(**fields) -> dict:
    data = yaml.safe_load((builtin_dir("layouts") / "hot-aisle.yaml").read_text())
    data.update(fields)
    return data


BAD = [("negative drop", dict(patch_drop_m=-1), ("patch_drop_m", "-1")),
       ("drop above no panel", dict(patch_drop_m=0.02), ("patch_drop_m", "at least 0.045")),
       ("negative spare", dict(structured_spare_pct=-5), ("structured_spare_pct",)),
       ("spare above 100", dict(structured_spare_pct=150), ("structured_spare_pct", "100"))]


@pytest.mark.parametrize("name,fields,words", BAD, ids=[b[0] for b in BAD])
def test_bad_drop_or_spare_exits_2_naming_the_field(tmp_path, capsys, monkeypatch, name,
                                                    fields, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "floor.yaml").write_text(yaml.safe_dump(_floor_with(**fields)))
    code = main(["plan", "--topology", "slimfly:q=5", "--floor", "floor.yaml", "--strategy",
                 "hint", "--out", "out"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, (word, err)
    assert not (tmp_path / "out").exists()
