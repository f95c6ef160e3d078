"""Where ``planner expand`` puts the new routers (``planner.placement.growth``, docs/growth.md
"Placement of the new routers").

Small growths placed directly are compared with every placement of their new routers
enumerated here and priced as the cabling stage prices them
(``planner.placement.objective.network_link_media``): the search never raises the greedy
start's dollars, ends at the enumerated optimum, and its lower bound stays below it. A
Jellyfish grown through the CLI on a hall whose free positions lie far away fills the free
slot of a standing cabinet, and its standing routers keep their cabinets and rack units.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from planner.cli import main
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.placement.graph import Graph
from planner.placement.growth import place_growth
from planner.placement.objective import network_link_media
from planner.topologies.base import Topology

SMALL = """extends: hot-aisle
name: small-test
hall:
  rows: 2
  cabinets_per_row: 6
  count: 1
structured_cabling: false
"""

# Standing: routers 0-6 in A01, A02, A03 (two each: full, hot-aisle's 2 router slots) and A04
# (one: a free slot), A03 and A04 one electrical group. Routers 7.. are new.
STANDING = np.array([0, 0, 1, 1, 2, 2, 3])
HALL, ROW, COL, GROUP = np.zeros(4, int), np.zeros(4, int), np.arange(4), np.array([0, 0, 1, 1])
RING = [(0, 1), (2, 3), (4, 5), (1, 2), (3, 4), (5, 6), (0, 6)]

FULL = np.array([0, 0, 1, 1, 2, 2, 3, 3])     # A04 full too: router 7 stands there

CASES = {
    # three new routers in a triangle hung on router 6 (A04) and on 0 and 2: the greedy packs
    # 7, 8 into one new cabinet and 9 into another; a new router beside 6 in A04 is cheaper
    "standing slot": (STANDING, 10, RING + [(6, 7), (6, 8), (7, 8), (8, 9), (7, 9), (2, 9),
                                            (0, 7)], True),
    # two new routers linked to the far ends of the row and to each other
    "two ends": (STANDING, 9, RING + [(0, 7), (1, 7), (5, 8), (6, 8), (7, 8)], None),
    # three new routers, a ring of their own with two links into the standing ring
    "new ring": (STANDING, 10, RING + [(7, 8), (8, 9), (7, 9), (1, 7), (4, 9)], None),
    # every standing cabinet full: the greedy's two new cabinets (8, 9 | 10) trade routers
    "swap": (FULL, 11, [(0, 1), (0, 7), (0, 8), (1, 2), (1, 9), (2, 3), (3, 4), (4, 5), (5, 6),
                        (5, 8), (5, 10), (6, 7), (7, 10), (8, 9)], True),
}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = tmp_path_factory.mktemp("floor") / "small.yaml"
    path.write_text(SMALL)
    catalog = load_catalog("modern-100g")
    return load_floor(path), catalog, catalog.router_for(16)


def _new_link_dollars(graph, first_new, router_cabinet, hall, row, col, floor, catalog,
                      router) -> float:
    """Dollars of the links with a new router (id >= first_new), as cabling prices them."""
    keep = graph.links[:, 1] >= first_new
    part = Graph(n=graph.n, links=graph.links[keep], weights=graph.weights[keep],
                 endpoints=graph.endpoints)
    return network_link_media(part, router_cabinet, hall, row, col, np.arange(len(hall)),
                              floor, catalog, router).dollars


def _enumerated_optimum(top, standing, floor, catalog, router) -> float:
    """Least new-link dollars over every placement of the new routers on the standing
    cabinets' free slots and the free positions of the 2 x 6 hall, two routers a cabinet."""
    graph = Graph.from_topology(top)
    taken = set(zip(ROW.tolist(), COL.tolist()))
    free = [(r, c) for r in range(2) for c in range(6) if (r, c) not in taken]
    sites = [(int(r), int(c)) for r, c in zip(ROW, COL)] + free
    n_new = top.num_routers - len(standing)
    best = np.inf
    for choice in itertools.product(range(len(sites)), repeat=n_new):
        where = np.r_[standing, choice]
        if np.bincount(where, minlength=len(sites)).max() > floor.router_slots:
            continue
        used = np.unique(where)
        index = np.searchsorted(used, where)
        row = np.array([sites[s][0] for s in used])
        col = np.array([sites[s][1] for s in used])
        best = min(best, _new_link_dollars(graph, len(standing), index,
                                           np.zeros(len(used), int), row, col, floor, catalog,
                                           router))
    return best


@pytest.mark.parametrize("name", CASES)
def test_search_reaches_the_enumerated_optimum(small, name):
    floor, catalog, router = small
    standing, n, edges, strictly = CASES[name]
    top = Topology.from_edges("import", {}, n, edges, 1)
    placed = place_growth(top, floor, catalog, router, standing, HALL, ROW, COL, GROUP)
    p = placed.placement
    best = _enumerated_optimum(top, standing, floor, catalog, router)
    priced = _new_link_dollars(Graph.from_topology(top), len(standing), p.router_cabinet,
                               p.cabinet_hall, p.cabinet_row, p.cabinet_col, floor, catalog,
                               router)
    assert placed.method == "standing+greedy+search"
    assert placed.dollars == pytest.approx(priced)          # the reported figure is the layout's
    assert placed.dollars <= placed.start_dollars + 1e-9    # never dearer than the greedy start
    assert placed.dollars == pytest.approx(best)            # the optimum of every placement
    assert placed.lower_bound <= best + 1e-9
    if strictly:
        assert placed.dollars < placed.start_dollars - 1
    assert placed.in_standing_cabinets == (standing is STANDING)   # A04's free slot taken
    # standing routers never move; no cabinet over its router slots
    assert (p.router_cabinet[:len(standing)] == standing).all()
    assert p.cabinet_names[:4] == ("A01", "A02", "A03", "A04")
    assert np.bincount(p.router_cabinet).max() <= floor.router_slots


def test_search_respects_endpoint_slots(small):
    """A standing cabinet whose endpoint slots are full takes no new router: A04's router 6
    carries 32 endpoints (hot-aisle's endpoint_slots), so the new router hung on it alone
    stands elsewhere although A04 has a free router slot."""
    floor, catalog, router = small
    endpoints = np.r_[np.ones(6, int), 32, 1]
    top = Topology.from_edges("import", {}, 8, RING + [(6, 7)], endpoints)
    placed = place_growth(top, floor, catalog, router, STANDING, HALL, ROW, COL, GROUP)
    assert placed.placement.router_cabinet[7] >= 4
    assert placed.in_standing_cabinets == 0


ROOM = """extends: hot-aisle
name: room-test
hall:
  rows: 8
  cabinets_per_row: 24
structured_cabling: false
"""


def _far_room(path: Path) -> Path:
    """ROOM with every position but the standing A01-A04, B01-B04 and the far corner H24
    marked reserved: the only new cabinet position lies beyond copper reach."""
    keep = {(r, c) for r in "AB" for c in range(1, 5)} | {("H", 24)}
    marks = [f"    - {{row: {r}, column: {c}, kind: reserved}}"
             for r in "ABCDEFGH" for c in range(1, 25) if (r, c) not in keep]
    path.write_text(ROOM.replace("structured_cabling: false\n", "") + "  positions:\n"
                    + "\n".join(marks) + "\nstructured_cabling: false\n")
    return path


@pytest.fixture(scope="module")
def jellyfish(tmp_path_factory):
    """A Jellyfish of 15 switches of degree 4 planned on ROOM (8 cabinets, B04 holding one
    switch), grown to 16 on the far room twice."""
    base = tmp_path_factory.mktemp("grow")
    room, far = base / "room.yaml", _far_room(base / "far.yaml")
    room.write_text(ROOM)
    standing = base / "standing"
    assert main(["plan", "--topology", "jellyfish:routers=15,degree=4", "--catalog",
                 "modern-100g", "--floor", str(room), "--strategy", "hint", "--resilience",
                 "off", "--out", str(standing)]) == 0
    grown = []
    for k in range(2):
        out = base / f"grown{k}"
        assert main(["expand", "--from", str(standing), "--topology",
                     "jellyfish:routers=16,degree=4", "--floor", str(far), "--out",
                     str(out)]) == 0
        grown.append(out)
    return standing, grown


def _router_seats(folder: Path) -> dict:
    """Router -> (cabinet, rack unit), read from the ends of cables.csv."""
    cables = pd.read_csv(folder / "cables.csv")
    seats = {}
    for end in "ab":
        rows = cables[cables[f"{end}_device"].str.startswith("r")]
        seats.update(zip(rows[f"{end}_device"], zip(rows[f"{end}_cabinet"], rows[f"{end}_ru"])))
    return seats


def test_new_switch_fills_the_standing_free_slot(jellyfish):
    standing, (grown, _) = jellyfish
    old = pd.read_csv(standing / "cabinets.csv")
    half = old.loc[old["routers"] == 1, "name"].tolist()
    assert len(half) == 1                         # 15 switches, 2 a cabinet: one half empty
    before, after = _router_seats(standing), _router_seats(grown)
    assert all(after[r] == seat for r, seat in before.items())   # cabinet and RU kept
    cabinet, ru = after["r15"]
    assert cabinet == half[0]                     # not H24, out of copper reach
    assert ru > before[next(r for r, s in before.items() if s[0] == half[0])][1]
    block = json.loads((grown / "summary.json").read_text())["growth"]["placement"]
    assert block["new_routers_in_standing_cabinets"] == 1 and block["new_cabinets"] == 0
    assert block["new_cable_dollars"] < block["new_cable_dollars_start"]
    assert block["new_cable_lower_bound"] <= block["new_cable_dollars"]
    cabinets = pd.read_csv(grown / "cabinets.csv")
    cabinets = cabinets[cabinets["kind"] == "cabinet"]       # not the marked positions
    assert cabinets["name"].tolist() == old["name"].tolist()
    assert int(cabinets.loc[cabinets["name"] == half[0], "routers"].iloc[0]) == 2


def test_same_command_same_cables(jellyfish):
    _, (first, second) = jellyfish
    assert (first / "cables.csv").read_bytes() == (second / "cables.csv").read_bytes()
