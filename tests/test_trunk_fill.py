"""Trunks sized to the traffic between halls (issue 28, item 5): duplex LC links between halls
land on LC cassettes in the two hall entries, and one MPO trunk between the entries carries the
links of every row of the two halls (planner.inputs.parts.structured.via_entry); a cassette
counts two mated connections (LC front, MPO rear) in the loss check.

By hand, on the structured test hall (tests/test_reach.py: 0.5 dB per mated connection, 1.0
dB/km single-mode, 0.1 m drop; halls 30 m apart, 10 % slack: the hall piece is 33 m, + 2 drops
-> the 50 m stock length). Two halls, rows A-C in hall 1 and A-B in hall 2; six links between
the halls from four pairs of rows (A-A twice, B-B twice, C-A, B-A), single-mode only (SR over
OM4 cannot light 4 panels, test_reach). Through row panels they took four pairs of row trunks;
through the entries they take one hall trunk, the cheapest size holding 6 links: a 24-fibre
trunk (12 links) at 200 + 1.2 x 50 = 260 against a 48-fibre one (24 links) at 300 + 2 x 50 =
400. One 48-port cassette panel in each entry rack, 6 of its front ports used; trunk fill
6 / 12, panel-port use 12 / 96; every link 4 connections.
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.inputs.floor import cabinet_names
from planner.inputs.parts import structured as parts
from planner.placement.result import Placement
from planner.plan import plan
from planner.topologies.base import Topology
from test_plan_invariants import segment_pieces
from test_reach import LR, OS2_CORD, OS2_PANEL, OS2_PASS, OS2_TRUNK, structured_floor
from test_routes import make_catalog
from test_structured import CORD, DAC, PANEL, TRANSCEIVER, TRUNK

OS2_T24 = dict(OS2_TRUNK, sku="T24", description="24-fibre single-mode trunk", fibres=24,
               part_numbers="T24-{m}M", price={"fixed": 200, "per_m": 1.2})
# (hall, row, column) of each router's cabinet: hall 1 rows A (r0, r1), B (r2, r3), C (r4);
# hall 2 rows A (r5, r6), B (r7, r8)
CABINETS = [(0, 0, 1), (0, 0, 2), (0, 1, 1), (0, 1, 2), (0, 2, 1), (1, 0, 1), (1, 0, 2),
            (1, 1, 1), (1, 1, 2)]
HALL_LINKS = [(0, 5), (1, 6), (2, 7), (3, 8), (4, 5), (3, 6)]
ROW_LINKS = [(0, 1), (2, 3), (5, 6), (7, 8)]               # same row: point to point


def _plan(cables=(LR, OS2_CORD, OS2_TRUNK, OS2_T24)):
    hall, row, col = (np.array(v) for v in zip(*CABINETS))
    placement = Placement(router_cabinet=np.arange(len(CABINETS)), cabinet_row=row,
                          cabinet_col=col, cabinet_group=np.arange(len(CABINETS)),
                          cabinet_names=cabinet_names(hall, row, col), strategy="hint",
                          method="hand", optical=0, lower_bound=0.0, lower_bound_kind="hand",
                          cabinet_hall=hall)
    top = Topology.from_edges("test", {}, len(CABINETS), HALL_LINKS + ROW_LINKS, 0)
    catalog = make_catalog(cables=[DAC, TRANSCEIVER, CORD, TRUNK, *cables],
                           panels=[PANEL, OS2_PANEL, OS2_PASS])
    return plan(top, catalog, structured_floor(), placement=placement)


def test_links_between_halls_share_one_trunk_between_the_entries():
    result = _plan()
    cables = result.cables
    hall = cables[cables["route_kind"] == "cross-hall"]
    assert len(hall) == len(HALL_LINKS)
    plant = result.structured
    trunks = plant.trunks
    assert trunks[["kind", "sku", "length_m", "order_length_m", "links", "capacity", "a_panel",
                   "a_port", "b_panel", "b_port"]].to_dict("records") == [
        {"kind": "hall", "sku": "T24-50M", "length_m": 33.0, "order_length_m": 50.0, "links": 6,
         "capacity": 12, "a_panel": "H1-ENTRY-41", "a_port": "R1", "b_panel": "H2-ENTRY-41",
         "b_port": "R1"}]
    panels = plant.panels
    assert panels[["rack", "sku", "links"]].sort_values("rack").to_dict("records") == [
        {"rack": "H1-ENTRY", "sku": "PNL-LC", "links": 6},
        {"rack": "H2-ENTRY", "sku": "PNL-LC", "links": 6}]
    assert sorted(plant.racks["kind"]) == ["entry", "entry"]
    for row in hall.itertuples():
        pieces = segment_pieces(row.segments)
        kinds = [p[0] for p in pieces]
        assert kinds == ["cord", "port", "trunk", "port", "cord"], row.segments
        assert pieces[2][1] == trunks["trunk_id"].iloc[0]
        # the 0.1 m drop reaches U41-U42 of the 42U entry rack: the panel takes U41
        assert pieces[1][1] == "H1-ENTRY-41" and pieces[3][1] == "H2-ENTRY-41"
        # the cords and the hall trunk add up to the route; each cord reaches its port
        assert pieces[0][1] + 33.0 + pieces[4][1] == pytest.approx(row.length_m, abs=2e-3)
        stock = [float(p[-1].split("-")[-1][:-1]) for p in pieces if p[0] != "port"]
        assert stock[0] >= pieces[0][1] + 0.1 and stock[2] >= pieces[4][1] + 0.1
        assert stock[1] == 50.0
        assert (row.a_transceiver, row.connections) == ("LR", 4)
        assert row.fibre_m == pytest.approx(sum(stock))
        assert row.loss_db == pytest.approx(sum(stock) / 1000 * 1.0 + 4 * 0.5)
    # both entries' front ports: one per link, 01 .. 06, the same at both ends
    ends = plant.links[["a_port", "b_port"]]
    assert sorted(ends["a_port"]) == sorted(ends["b_port"]) == [f"{k:02d}" for k in range(1, 7)]
    figures = plant.summary()
    assert figures["cross_hall_links"] == 6 and figures["hall_trunks"] == 1
    assert figures["trunk_fill"] == 0.5
    assert figures["panel_ports"] == 96 and figures["panel_ports_used"] == 12
    assert figures["panel_port_use"] == 0.125


def test_only_the_largest_trunk_packs_as_many_trunks_as_the_traffic_needs():
    """Without the 24-fibre size the six links take one 48-fibre trunk (24 links): still one
    trunk for the four pairs of rows, 6 / 24 full."""
    trunks = _plan(cables=(LR, OS2_CORD, OS2_TRUNK)).structured.trunks
    assert trunks[["kind", "sku", "links", "capacity"]].to_dict("records") == [
        {"kind": "hall", "sku": "T48-50M", "links": 6, "capacity": 24}]


CASSETTE, ADAPTER = 1, 0        # OS2_PANEL (LC front, MPO rear) and PANEL (MPO both faces)
CONNECTIONS = [  # (row panel, cross hall through pass-through entry panels, mated connections)
    (ADAPTER, False, 2), (ADAPTER, True, 4),       # MPO cords: one per panel
    (CASSETTE, False, 4),                          # LC cords on cassettes: two per cassette
    (CASSETTE, True, 2 * 2 + 2 * 1),               # + two pass-through entry panels
    (-1, False, 0)]                                # not structured


@pytest.mark.parametrize("panel,cross_hall,want", CONNECTIONS)
def test_a_cassette_counts_two_mated_connections(panel, cross_hall, want):
    catalog = make_catalog(cables=[TRANSCEIVER, CORD, TRUNK, LR, OS2_CORD, OS2_TRUNK],
                           panels=[PANEL, OS2_PANEL, OS2_PASS])
    assert parts.panel_connections(catalog, 1) == 2 and parts.panel_connections(catalog, 0) == 1
    assert parts.connections(catalog, [panel], [cross_hall]).tolist() == [want]
