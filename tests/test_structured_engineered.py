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
# trunks of every size share a panel, as many as its 48 adapters hold):
#   2 x T144 + T48 + T24 (30)         1180 + 1 panel a side  960 = 2140  <- the cheapest
#   2 x T144 + T96 (32)               1220 + 1 panel a side  960 = 2180
#   4 x T96 (32 positions)            1280 + 1 panel a side  960 = 2240
#   3 x T144 (36)                     1350 + 1 panel a side  960 = 2310
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
        ("T144-10M", 12, 12), ("T144-10M", 12, 12), ("T48-10M", 4, 4), ("T24-10M", 2, 2)]
    named = pd.Series([p[1] for text in result.cables["segments"]
                       for p in segment_pieces(text) if p[0] == "trunk"]).value_counts()
    assert named.to_dict() == dict(zip(schedule["trunk_id"], schedule["links"]))
    bom = result.bom.set_index("sku")
    assert [int(bom.loc[f"{size}-10M", "quantity"]) for size in ("T144", "T48", "T24")] == [
        2, 1, 1] and "T96-10M" not in bom.index
    assert int(bom.loc["PNL48", "quantity"]) == 2
    got = result.summary["structured"]
    assert got["trunk_fill"] == 1.0 and got["trunk_link_capacity"] == 30
    assert got["panel_ports"] == 2 * 48 and got["panel_port_use"] == round(60 / 96, 4)
    cords = 60 * (20 + 5)                                   # 2.695 + 1.867 m at 5 m
    trunk_dollars = 2 * 450 + 170 + 110
    structured_dollars = cords + trunk_dollars + 2 * 480
    assert got["dollars"] == {"cords": cords, "trunks": trunk_dollars, "panels": 2 * 480,
                              "patch_racks": 0, "structured": structured_dollars,
                              "point_to_point": 30 * (20 + 10),   # 7.37 m on a 10 m cord
                              "point_to_point_unreached": 0,
                              "saved": 30 * 30 - structured_dollars}
    # placement still prices a link at its share of the cheapest trunk per link (T144)
    assert result.cables["unit_price"].iloc[0] == pytest.approx(
        2 * 300 + 2 * 25 + 450 / 12 + 2 * 480 / 48)


def test_a_second_pair_fills_the_panels_the_first_opened():
    """30 links A02 - B07, then 2 links A02 - C07 (panel points A-P1 - C-P1, a 10 m trunk too):
    the 2 links take a T24 (110) on free adapters of the panel the first pair opened at A-P1
    (30 of 48 used: 2 x T144 + T48 + T24) and buy one panel at C-P1 (110 + 480 = 590); A-P1's
    one panel then holds trunks of three sizes (layout 2x12 1x4 2x2)."""
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
    assert trunks["sku"].tolist() == ["T144-10M"] * 2 + ["T48-10M"] + ["T24-10M"] * 2
    assert sorted(trunks["links"].tolist()) == [2, 2, 4, 12, 12]
    panels = result.structured.panels
    assert sorted(panels["point"]) == ["A-P1", "B-P1", "C-P1"]
    assert panels.set_index("point").loc["A-P1", "trunks"] == 5
    assert panels.set_index("point").loc["A-P1", "layout"] == "2x12 1x4 2x2"


def test_spare_ports_for_growth_are_bought_and_reported():
    """structured_spare_pct 10: 30 links need 33 positions: 2 x T144 + T96 + T24 (34; 1330 + a
    panel a side, 2290) beats 3 x T144 (36; 1350 + 960 = 2310) and 2 x T144 + 2 x T48 + T24
    (1350 + 960); the links fill the trunks in order (the T24 stays empty for growth) and 4 of
    34 positions are spare."""
    top, placement = two_racks(30)
    floor = hall_floor(structured_cabling=True, structured_spare_pct=10)
    result = plan(top, sized_catalog(), floor, placement=placement)
    schedule = trunks_csv.table(result.structured)
    assert list(zip(schedule["sku"], schedule["links"])) == [
        ("T144-10M", 12), ("T144-10M", 12), ("T96-10M", 6), ("T24-10M", 0)]
    got = result.summary["structured"]
    assert got["trunk_link_capacity"] == 34
    assert got["trunk_spare_share"] == round(4 / 34, 4)


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
    # generic cords and trunks are named "<sku>_<length>m" (OM4-MPO12_5m)
    cords = [(m, float(sku.rsplit("_", 1)[1][:-1])) for kind, m, sku in
             (p for p in pieces if p[0] == "cord")]
    trunks = [(p[2], float(p[3].rsplit("_", 1)[1][:-1])) for p in pieces if p[0] == "trunk"]
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


# ----------------------------------------------------------------------------- shared hall trunks

def _hall_chains(catalog, links: list[int], spare_pct: float = 0.0) -> pd.DataFrame:
    """Cross-hall row trunks (chains) between halls 0 and 1 of modern-100g's OM4 parts, one per
    entry of ``links``, each of its own pair of row panels, with a 20 m hall piece."""
    sku = {m.sku: k for k, m in enumerate(catalog.cables)}
    panel = next(p for p, m in enumerate(catalog.panels) if m.sku == "PNL-1U-48MPO-OM4")
    return pd.DataFrame({"chain": range(len(links)), "cross_hall": True, "lo_hall": 0,
                         "hi_hall": 1, "entry_part": structured.entry_panel(catalog, panel),
                         "priced": sku["OM4-T144-MPO12"], "panel_part": panel, "links": links,
                         "hall_m": 20.0, "drop": 0.0})


def test_one_hall_trunk_carries_the_row_trunks_of_several_pairs_of_panels():
    """Row trunks carrying 12, 5, 7, 3 and 2 links (five pairs of row panels) between two
    halls, by hand: first-fit decreasing into 12 positions gives [12], [7 5], [3 2]; the third
    holds 5, and of the sizes that hold 5 (T96: 8, T144: 12) the 96-fibre one is the cheaper at
    20 m (320 + 4.2 x 20 = 404 against 450 + 6 x 20 = 570). Three hall trunks instead of the five
    of one pair each; 29 links of 32 positions."""
    from planner.cabling.structured import _hall_trunks
    from planner.inputs.catalog import load_catalog
    catalog = load_catalog("modern-100g")
    shared = _hall_trunks(_hall_chains(catalog, [12, 5, 7, 3, 2]), catalog, 0.0)
    skus = [catalog.cables[int(k)].sku for k in shared["part"]]
    assert skus == ["OM4-T144-MPO12", "OM4-T144-MPO12", "OM4-T96-MPO12"]
    assert shared["links"].tolist() == [12, 12, 5]
    assert [[(c, first, size) for c, first, size in m] for m in shared["members"]] == [
        [(0, 1, 12)], [(2, 1, 7), (1, 8, 5)], [(3, 1, 3), (4, 4, 2)]]
    # 20 % spare for growth: the third needs ceil(5 x 1.2) = 6 positions, still a T96; a full
    # trunk cannot grow past the largest size
    spare = _hall_trunks(_hall_chains(catalog, [12, 5, 7, 3, 2]), catalog, 20.0)
    assert spare["legs"].tolist() == [12, 12, 8]


def test_entry_panel_ports_follow_the_shared_hall_trunks():
    """The entry layout of the case above: each hall trunk on one rear port of as many
    positions as it has legs (12, 12, 8: 32 of a 48-adapter panel, one panel), its row trunks on
    front ports of their positions on the same adapters, the hall trunk's spare positions on a
    free front port (8 - 5 = 3); NetBox's port mappings pair them position for position."""
    from planner.cabling.structured import _entry_panels, _hall_trunks
    from planner.exports.netbox import _entry_ports
    from planner.inputs.catalog import load_catalog
    from test_routes import room_of
    catalog = load_catalog("modern-100g")
    shared = _hall_trunks(_hall_chains(catalog, [12, 5, 7, 3, 2]), catalog, 0.0)
    panels, fronts, rears = _entry_panels(room_of(hall_floor(), [0, 1], [0, 0], [0, 0]), shared,
                                          catalog, 0)
    assert panels["layout"].tolist() == ["R12F12 R12F7F5 R8F3F2F3"] * 2
    assert panels["links"].tolist() == [29, 29]
    lo = fronts[fronts["side"] == "lo"].set_index("chain")["port"].to_dict()
    assert lo == {0: 1, 2: 2, 1: 3, 3: 4, 4: 5}          # F6 is the free one
    assert rears[rears["side"] == "hi"]["port"].tolist() == [1, 2, 3]
    rear, front, maps = _entry_ports(catalog.panels[0], "R12F7F5 R8F3F2F3")
    assert [(p["name"], p["positions"]) for p in rear] == [("R1", 12), ("R2", 8)]
    assert [(p["name"], p["positions"]) for p in front] == [("F1", 7), ("F2", 5), ("F3", 3),
                                                           ("F4", 2), ("F5", 3)]
    at = {(m["front_port"], m["front_port_position"]): (m["rear_port"], m["rear_port_position"])
          for m in maps}
    assert at[("F2", 1)] == ("R1", 8) and at[("F2", 5)] == ("R1", 12)
    assert at[("F4", 2)] == ("R2", 5) and at[("F5", 3)] == ("R2", 8)
    assert len(at) == 12 + 8


@pytest.mark.parametrize("name", ["eth-51t", "ndr-400g", "xdr-800g"])
def test_apc_catalogs_sell_their_trunks_in_four_sizes(name):
    """Each MPO-12/APC fibre of these catalogs has 24-, 48-, 96- and 144-fibre trunks (2, 4, 8
    and 12 links) of one stock-length list, each size cheaper than the next larger at 10 m."""
    from planner.inputs.catalog import load_catalog
    catalog = load_catalog(name)
    for fibre in {m.fibre for m in catalog.cables if m.kind == "trunk"}:
        trunks = sorted((catalog.links_per_trunk(m), float(m.price(10.0)), tuple(m.stock_lengths))
                        for m in catalog.cables if m.kind == "trunk" and m.fibre == fibre)
        assert [legs for legs, _, _ in trunks] == [2, 4, 8, 12], fibre
        assert len({stock for _, _, stock in trunks}) == 1
        prices = [price for _, price, _ in trunks]
        assert prices == sorted(prices) and len(set(prices)) == 4
