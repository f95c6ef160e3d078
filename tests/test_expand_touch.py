"""Touched cables and their parts in the placement of a growth (issue 25: "placement minimises
the new cable dollars plus the cost of each moved or removed cable"; docs/growth.md "Touched
cables" and "Placement of the new routers").

A standing cable re-plugged at one end to a new router is moved wherever the new router
stands (its labour is fixed by the growth's ports), but whether it keeps its part depends on
where the new router stands. The search must see that: a hand-built growth on a 2 x 6 hall
where the nearest position needs a new part and a farther one keeps the standing part.
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor, room_of
from planner.inputs.parts.media import routed_parts
from planner.placement.grown import Standing, network_ports
from planner.placement.growth import moved_to_new, place_growth
from planner.topologies.base import Topology

SMALL = """extends: hot-aisle
name: touch-test
hall:
  rows: 2
  cabinets_per_row: 6
  count: 1
structured_cabling: false
"""

# Standing: routers 0, 2 in A01 and 1, 3 in A06 (hot-aisle's 2 router slots: both full), a
# ring 0-1-3-2-0. The growth drops link 0-1 and links the new router 4 to 0 instead: the
# standing cable 0-1 stays plugged in router 0 and is re-plugged from router 1 (A06) to 4.
STANDING_CABINET = np.array([0, 1, 0, 1])
HALL, ROW, COL, GROUP = np.zeros(2, int), np.zeros(2, int), np.array([0, 5]), np.array([0, 1])
STANDING_LINKS = [(0, 1), (1, 3), (2, 3), (0, 2)]
GROWN_LINKS = [(1, 3), (2, 3), (0, 2), (0, 4)]
TOUCH_PRICE = 30.0      # hot-aisle's default labour per moved or removed cable


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = tmp_path_factory.mktemp("floor") / "touch.yaml"
    path.write_text(SMALL)
    catalog = load_catalog("modern-100g")
    return load_floor(path), catalog, catalog.router_for(16)


def _growth():
    """(standing network, grown topology with its ports) of the module's growth, the ports
    dealt as ``planner expand`` deals them (``grown.network_ports``)."""
    ends = np.asarray(STANDING_LINKS)
    standing = Standing(family="import", params={}, endpoints=np.ones(4, np.int64),
                        a_router=ends[:, 0], a_port=np.array([2, 2, 3, 3]),
                        b_router=ends[:, 1], b_port=np.array([2, 3, 3, 3]))
    grown = Topology.from_edges("import", {}, 5, GROWN_LINKS, np.ones(5, np.int64))
    grown.extra["network_ports"] = network_ports(standing, grown, radix=16)
    return standing, grown


def test_moved_cable_is_the_one_the_work_order_moves():
    """Router 0's port 2 held the cable to router 1 (A06); the new link 0-4 takes the port
    it freed, so that cable is moved: new router 4, standing router 0, leaving cabinet 1."""
    standing, grown = _growth()
    new, stay, left = moved_to_new(standing, grown, STANDING_CABINET, first_new=4)
    assert (new.tolist(), stay.tolist(), left.tolist()) == ([4], [0], [1])


def _route(floor, catalog, router, col_b: int, row_b: int = 0):
    """(part, order length, price) of one cable from A01 to the position (row_b, col_b) of
    the hall, as the cabling stage chooses it."""
    hall, row, col = np.zeros(2, int), np.array([0, row_b]), np.array([0, col_b])
    room = room_of(floor, np.zeros(12, int), np.repeat([0, 1], 6), np.tile(np.arange(6), 2))
    parts = routed_parts(catalog, floor, room, hall, row, col, np.array([0]), np.array([1]),
                         np.array([False]), router=router, parallel=1).parts
    return int(parts.part[0]), float(parts.order_length[0]), float(parts.price[0])


def test_new_router_stands_where_the_moved_cable_keeps_its_part(small):
    """By hand (modern-100g on hot-aisle's routes from A01): the standing cable A01-A06 is
    4.40 m, a 5 m DAC ($140). Router 4 at A02 (1.76 m) needs a new 2 m DAC, $90 of new parts
    plus $30 of labour = $120; at A04 (3.08 m), A05 (3.74 m) or B01 (4.40 m) the 5 m DAC
    serves: $0 of new parts plus the same $30. Without the moved cable the search takes the
    cheapest new cable (A02, $90); with it, a position where the part stays ($0), which every
    position's price, computed here through the cabling stage's parts, confirms is the least
    new parts plus labour."""
    floor, catalog, router = small
    standing, grown = _growth()
    moved = moved_to_new(standing, grown, STANDING_CABINET, first_new=4)

    old_part = _route(floor, catalog, router, col_b=5)
    free = [(0, c) for c in range(1, 5)] + [(1, c) for c in range(6)]
    cost = {}
    for r, c in free:
        part = _route(floor, catalog, router, c, r)
        kept = part[:2] == old_part[:2]
        cost[(r, c)] = (0.0 if kept else part[2]) + TOUCH_PRICE
    assert old_part[2] == 140.0 and cost[(0, 1)] == 90.0 + TOUCH_PRICE
    best = min(cost.values())
    assert best == TOUCH_PRICE
    assert sorted(k for k, v in cost.items() if v == best) == [(0, 3), (0, 4), (1, 0)]

    blind = place_growth(grown, floor, catalog, router, STANDING_CABINET, HALL, ROW, COL,
                         GROUP)
    p = blind.placement
    at = p.router_cabinet[4]
    assert (int(p.cabinet_row[at]), int(p.cabinet_col[at])) == (0, 1)
    assert blind.dollars == 90.0

    placed = place_growth(grown, floor, catalog, router, STANDING_CABINET, HALL, ROW, COL,
                          GROUP, moved)
    p = placed.placement
    at = p.router_cabinet[4]
    where = (int(p.cabinet_row[at]), int(p.cabinet_col[at]))
    assert cost[where] == best
    assert _route(floor, catalog, router, where[1], where[0])[:2] == old_part[:2]
    assert placed.dollars == 0.0
    assert (placed.moved_parts_kept, placed.moved_parts_replaced) == (1, 0)
    assert placed.lower_bound is not None and 0.0 <= placed.lower_bound <= placed.dollars
    # the standing routers stay, and the search opened no more cabinets than the start
    assert p.router_cabinet[:4].tolist() == STANDING_CABINET.tolist()
    assert placed.new_cabinets == 1


ROOM = """extends: hot-aisle
name: touch-room
hall:
  rows: 8
  cabinets_per_row: 24
"""


def test_summary_splits_touched_cables_as_the_work_order_lists_them(tmp_path):
    """Dragonfly a=4, p=2, h=2, g=5 -> 9 on a structured 8 x 24 hall: summary.json's touched
    network cables are the work order's network moves and removes; the re-patched ones are
    the moves whose two ends stay (device and port), the re-plugged the others, and
    ``moved_network_part_changed`` the moves whose part number changes. The growth re-plugs
    10 (docs/growth.md, "Growing what is installed"), the bound."""
    import json

    import pandas as pd

    from planner.cli import main

    room = tmp_path / "room.yaml"
    room.write_text(ROOM)
    old, new = tmp_path / "old", tmp_path / "new"
    assert main(["plan", "--topology", "dragonfly:a=4,p=2,h=2,g=5", "--catalog", "modern-100g",
                 "--floor", str(room), "--out", str(old), "--strategy", "hint",
                 "--resilience", "off"]) == 0
    assert main(["expand", "--from", str(old), "--topology", "dragonfly:a=4,p=2,h=2,g=9",
                 "--floor", str(room), "--out", str(new)]) == 0
    growth = json.loads((new / "summary.json").read_text())["growth"]
    order = pd.read_csv(new / "work_order.csv", keep_default_na=False, dtype=str)
    net = order[order["kind"] == "network"]
    moves = net[net["action"] == "move"]

    def ends(col):
        return moves[col].str.split("@").str[0]
    same = (((ends("old_a") == ends("new_a")) & (ends("old_b") == ends("new_b")))
            | ((ends("old_a") == ends("new_b")) & (ends("old_b") == ends("new_a"))))
    assert growth["touched_network"] == len(moves) + int((net["action"] == "remove").sum())
    assert growth["touched_network_repatched"] == int(same.sum())
    assert growth["touched_network_replugged"] == int((~same).sum()) == 10
    assert growth["touched_network_removed"] == 0
    assert growth["touched_lower_bound"] == 10
    assert growth["moved_network_part_changed"] == int(
        (moves["old_sku"] != moves["new_sku"]).sum())
    # through panels the search does not price moved cables' parts (docs/growth.md)
    placement = growth["placement"]
    assert placement["moved_parts_kept"] is None and placement["moved_parts_replaced"] is None
