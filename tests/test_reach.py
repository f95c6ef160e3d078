"""Every link lights (issue 28): each optical link is checked on the fibre installed for it (its
pieces' stock lengths summed) and the mated connections it crosses (one per adapter panel, two
per LC cassette panel: LC front and MPO rear), and
gets a transceiver whose reach and loss budget hold (planner.inputs.parts.budget).

Hand-computed on the structured hall of tests/test_structured.py (floor defaults: 0.5 dB per
mated connection, 3.5 dB/km multimode, 1.0 dB/km single-mode; a 0.1 m drop into the patch rack,
added once to each cord and twice to each trunk, which leaves every stock length below as it is):

    A02 - B07 (r03-r04, cross-row)   cords 2.695 -> 3, trunk 2.64 -> 3, cord 2.695 -> 3: 9 m,
                                     2 connections; SR over OM4: 0.009 x 3.5 + 2 x 0.5 = 1.0315 dB
                                     of 1.9 dB
    H1-B03 - H2-C05 (r10-r11,        SR through 4 MPO panels: cord 2.695 -> 3, trunk 4.62 -> 5,
      cross-hall)                    hall trunk 33 -> 50, trunk 7.26 -> 10, cord 4.675 -> 5:
                                     73 m, 4 connections; 0.073 x 3.5 + 2.0 = 2.2555 dB > 1.9 dB
                                     (not lit). LR over OS2 lands on LC cassettes in the two
                                     hall entries only: cord 2.695 + 4.62 + 0.1 -> 10, hall
                                     trunk 33 + 0.2 -> 50, cord 7.26 + 4.675 + 0.1 -> 20: 80 m,
                                     2 cassettes x 2 = 4 connections;
                                     0.080 x 1.0 + 2.0 = 2.08 dB of 5.0 dB
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from planner.exports import cables_csv, summary_json
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.placement.graph import Graph
from planner.placement.objective import network_link_media
from planner.plan import plan
from planner.run.errors import InputError
from test_plan_invariants import segment_pieces
from test_routes import hand_placement, make_catalog
from test_structured import AOC, CORD, DAC, PANEL, TRANSCEIVER, TRUNK
from test_structured import structured_floor as low_loss_floor

FIXTURES = Path(__file__).parent / "fixtures"

LR = dict(sku="LR", description="single-mode transceiver", media="optical", kind="transceiver",
          rate_gbps=100, max_reach_m=2000, loss_budget_db=5.0, fibre="os2-lc", fibres=2,
          price={"fixed": 700}, watts_per_end=3.5)
OS2_CORD = dict(sku="OS2", description="duplex LC cord", media="optical", kind="fibre",
                fibre="os2-lc", max_reach_m=2000, stock_lengths=[1, 2, 3, 5, 10, 20, 50, 100],
                part_numbers="OS2-{m}M", price={"fixed": 10, "per_m": 1},
                netbox_type="smf-os2", color="Yellow")
OS2_CUT = dict(OS2_CORD, sku="OS2-CUT", stock_lengths=[], part_numbers=None)
OS2_TRUNK = dict(sku="T48", description="48-fibre single-mode trunk", media="optical",
                 kind="trunk", fibre="os2-lc", fibres=48, max_reach_m=2000,
                 stock_lengths=[3, 5, 10, 20, 50, 100], part_numbers="T48-{m}M",
                 price={"fixed": 300, "per_m": 2}, netbox_type="smf-os2", color="Yellow")
OS2_PANEL = dict(sku="PNL-LC", description="48 duplex LC on MPO cassettes", fibre="os2-lc",
                 ports=48, rack_units=1, price=600, connector="lc-upc", rear_connector="mpo")
OS2_PASS = dict(sku="PNL-MPO-PT", description="hall-entry pass-through, MPO both faces",
                fibre="os2-lc", ports=24, rack_units=1, price=300, connector="mpo",
                rear_connector="mpo")
PER_KM = {"om": 3.5, "os": 1.0}


def structured_floor(**changes):
    """The structured test hall with the default loss figures (module doc)."""
    return low_loss_floor(**{"connection_loss_db": 0.5, "patch_drop_m": 0.1, **changes})


def _catalog(*extra, panels=(), trunk=None):
    """Copper, AOC, SR over OM4 with cords, trunk and panel, and the ``extra`` parts."""
    return make_catalog(cables=[DAC, AOC, TRANSCEIVER, CORD, dict(TRUNK, **(trunk or {})),
                                *extra], panels=[PANEL, *panels])


SINGLE_MODE = (LR, OS2_CORD, OS2_TRUNK)


def _rows(result, tmp_path) -> dict[tuple[str, str], dict]:
    """cables.csv read back with the csv module, by (a_device, b_device)."""
    cables_csv.write(result, tmp_path)
    with open(tmp_path / cables_csv.FILENAME, newline="", encoding="utf-8") as f:
        return {(r["a_device"], r["b_device"]): r for r in csv.DictReader(f)}


def _stock_m(part_number: str) -> float:
    """The stock length a part number of these catalogs names (``T48-50M`` -> 50; a generic
    part's reference ``OS2-LC_50m`` -> 50)."""
    return float(re.search(r"[-_]([0-9.]+)[Mm]$", part_number).group(1))


def check_every_link(rows, catalog, floor) -> None:
    """Every link through transceivers: its installed fibre (the stock lengths its segments or
    its order length name), connections (the panels its segments pass) and loss, recomputed
    here, equal the columns, and both lie within its transceivers' reach and budget."""
    models = {m.sku: m for m in catalog.cables}
    checked = 0
    for row in rows.values():
        if not row["a_transceiver"]:
            assert row["fibre_m"] == row["connections"] == row["loss_db"] == ""
            continue
        pieces = segment_pieces(row["segments"]) if row["segments"] else []
        fibre = (sum(_stock_m(p[-1]) for p in pieces if p[0] in ("cord", "trunk"))
                 if pieces else float(row["order_length_m"]))
        ends = [models[row["a_transceiver"]], models[row["b_transceiver"]]]
        cassette = any(p.fibre == ends[0].fibre and p.rear_type != p.connector
                       for p in catalog.panels)        # cords land on LC cassettes: 2 each
        connections = sum(2 if cassette and "." not in p[2] else 1
                          for p in pieces if p[0] == "port")
        loss = fibre / 1000 * PER_KM[ends[0].fibre[:2]] + connections * floor.connection_loss_db
        assert float(row["fibre_m"]) == pytest.approx(fibre, abs=1e-3), row["cable_id"]
        assert int(row["connections"]) == connections, row["cable_id"]
        assert float(row["loss_db"]) == pytest.approx(loss, abs=1e-3), row["cable_id"]
        for model in ends:
            assert fibre <= model.max_reach_m and loss <= model.loss_budget_db, row["cable_id"]
        checked += 1
    assert checked


def test_hand_links_and_every_link_hold_their_budget(tmp_path):
    """With single-mode structured parts the cross-hall link (SR: 2.2555 dB > 1.9) gets LR
    through the four panels; the cross-row link stays SR (module doc, by hand)."""
    top, placement, _ = hand_placement()
    catalog, floor = _catalog(*SINGLE_MODE, panels=[OS2_PANEL, OS2_PASS]), structured_floor()
    rows = _rows(plan(top, catalog, floor, placement=placement), tmp_path)
    row = rows[("r03", "r04")]
    assert (row["a_transceiver"], float(row["fibre_m"]), row["connections"]) == ("SR", 9.0, "2")
    assert float(row["loss_db"]) == pytest.approx(1.0315, abs=6e-4)
    row = rows[("r10", "r11")]
    assert (row["a_transceiver"], float(row["fibre_m"]), row["connections"]) == ("LR", 80.0, "4")
    assert float(row["loss_db"]) == pytest.approx(2.08, abs=1e-6)
    assert [p[-1] for p in segment_pieces(row["segments"]) if p[0] != "port"] == [
        "OS2-10M", "T48-50M", "OS2-20M"]
    check_every_link(rows, catalog, floor)


def test_without_single_mode_panels_the_link_runs_past_them(tmp_path):
    """No single-mode trunk or panel: the cross-hall link runs point to point (no panel, no
    connection) on LR over a cut-to-length OS2 cord: 52.25 m, 0.05225 dB."""
    top, placement, expected = hand_placement()
    catalog, floor = _catalog(LR, OS2_CUT), structured_floor()
    rows = _rows(plan(top, catalog, floor, placement=placement), tmp_path)
    row = rows[("r10", "r11")]
    assert (row["a_transceiver"], row["segments"], row["connections"]) == ("LR", "", "0")
    assert float(row["fibre_m"]) == pytest.approx(52.25, abs=1e-3)
    assert float(row["loss_db"]) == pytest.approx(0.05225, abs=1e-3)
    assert row["route_kind"] == "cross-hall"
    check_every_link(rows, catalog, floor)


def test_reach_is_checked_on_the_installed_fibre_not_the_route(tmp_path):
    """Lossless connectors: halls 50 m apart give a 74.25 m route but 3 + 5 + 100 + 10 + 5 =
    123 m of installed fibre for SR (the 55 m hall piece is a 100 m trunk), beyond its 100 m:
    LR, whose cords land on the entries' LC cassettes, 10 + 100 + 20 = 130 m (module doc).
    30 m apart (73 m installed, 0.2555 dB) SR holds."""
    top, placement, _ = hand_placement()
    catalog = _catalog(*SINGLE_MODE, panels=[OS2_PANEL, OS2_PASS], trunk=dict(
        stock_lengths=[3, 5, 10, 20, 50, 100], max_reach_m=100))
    for link_m, want, fibre in ((50, "LR", 130.0), (30, "SR", 73.0)):
        floor = structured_floor(connection_loss_db=0.0, hall=dict(link_m=link_m))
        rows = _rows(plan(top, catalog, floor, placement=placement), tmp_path)
        row = rows[("r10", "r11")]
        assert float(row["length_m"]) < 100
        assert (row["a_transceiver"], float(row["fibre_m"])) == (want, fibre)
        check_every_link(rows, catalog, floor)


def test_a_link_no_part_lights_is_named():
    """SR only (cords to 10 m, so nothing runs point to point across halls): the cross-hall
    link cannot be lit, and the error names it, its fibre, connections, loss and the budget."""
    top, placement, _ = hand_placement()
    with pytest.raises(InputError) as err:
        plan(top, _catalog(), structured_floor(), placement=placement)
    text = str(err.value)
    for words in ("(r10 to r11, cross-hall) cannot be lit", "73.00 m of installed fibre",
                  "4 mated connections", "lose 2.26 dB", "1.9 dB budget", "100 m reach of SR"):
        assert words in text
    assert "\n" not in text


def test_halls_apart_get_single_mode_and_placement_prices_it(tmp_path):
    """The built-in modern-100g catalog on halls of 8 cabinets 30 m apart (slimfly q=5 spreads
    over 4 of them): every cross-hall link passes 4 panels, 2.0 dB alone above SR4's 1.9 dB,
    so none is SR4; every link holds its budget; placement's price of the layout is the bill's;
    summary.json gives the worst margin of cables.csv."""
    catalog = load_catalog("modern-100g")
    floor = load_floor(FIXTURES / "reach" / "far_halls.yaml")
    result = plan("slimfly:q=5", catalog, floor, strategy="hint")
    rows = _rows(result, tmp_path)
    hall = [r for r in rows.values() if r["route_kind"] == "cross-hall"]
    assert hall and all(r["a_transceiver"] == "MMA1L30-CM" and r["connections"] == "4"
                        for r in hall)
    assert any(r["a_transceiver"] == "MMA1B00-C100D" for r in rows.values())
    check_every_link(rows, catalog, floor)

    cables = result.cables
    net = cables[cables["kind"] == "network"]
    place = result.placement
    priced = network_link_media(Graph.from_topology(result.topology), place.router_cabinet,
                                place.cabinet_hall, place.cabinet_row, place.cabinet_col,
                                place.cabinet_group, floor, catalog, result.router_model)
    assert np.isfinite(priced.dollars)
    assert priced.dollars == pytest.approx(float(net["unit_price"].sum()))

    summary_json.write(result, tmp_path)
    optics = json.loads((tmp_path / summary_json.FILENAME).read_text())["optics"]
    models = {m.sku: m for m in catalog.cables}
    margins = {r["cable_id"]: models[r["a_transceiver"]].loss_budget_db - float(r["loss_db"])
               for r in rows.values() if r["a_transceiver"]}
    worst = min(margins, key=margins.get)
    assert optics["links"] == len(margins)
    assert optics["worst_margin_db"] == pytest.approx(margins[worst], abs=1e-3)
    assert margins[optics["worst_margin_db_cable"]] == pytest.approx(margins[worst], abs=1e-3)
    reach = {r["cable_id"]: models[r["a_transceiver"]].max_reach_m - float(r["fibre_m"])
             for r in rows.values() if r["a_transceiver"]}
    assert optics["worst_margin_m"] == pytest.approx(min(reach.values()), abs=1e-3)


def test_point_to_point_reach_is_checked_on_the_stock_length_ordered():
    """A 90 m route on a cord sold at 75 and 150 m installs 150 m, beyond SR's 100 m: SR does
    not light it though the route is within reach, LR does; at 70 m (75 m installed) SR holds
    (0.2625 dB, no connection)."""
    from planner.inputs.parts.media import choose_parts
    from test_routes import hall_floor
    cord = dict(CORD, max_reach_m=150, stock_lengths=[75, 150], part_numbers="OM4-{m}M")
    catalog = make_catalog(cables=[DAC, TRANSCEIVER, cord, LR, OS2_CUT])
    parts = choose_parts(catalog, hall_floor(), [90.0, 70.0], False)
    names = [catalog.cables[i].sku for i in parts.part]
    assert names == ["LR", "SR"]
    assert parts.fibre_m.tolist() == [90.0, 75.0] and parts.connections.tolist() == [0, 0]
    assert parts.loss_db[1] == pytest.approx(0.075 * 3.5)
    assert parts.lit.all()


BAD_PARTS = [
    ("fibre without grade", dict(TRANSCEIVER, fibre="mpo12"),
     "does not start with its fibre grade"),
    ("budget on a cord", dict(CORD, loss_budget_db=1.0), "'loss_budget_db' does not apply to kind"),
    ("budget not positive", dict(TRANSCEIVER, loss_budget_db=0), "greater than 0"),
]


@pytest.mark.parametrize("name,part,message", BAD_PARTS, ids=[b[0] for b in BAD_PARTS])
def test_catalog_rejects_a_part_without_a_usable_budget(name, part, message):
    with pytest.raises(ValueError, match=message):
        make_catalog(cables=[DAC, part])
