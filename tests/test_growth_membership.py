"""Growth on membership floors (the papers' reading: copper only inside an electrical group):
the new routers get the same search as on reach floors, priced as the placement stage prices
such floors (a link leaving its group is optical), within the groups' limits
(``planner.placement.growth``, docs/growth.md "Placement of the new routers").

A 2 x 4 hall of groups of two cabinets is grown by three routers and the search is compared
with every placement of them enumerated here and priced as the cabling stage prices it
(``planner.placement.objective.network_link_media`` with each cabinet in its slot's group); a
Dragonfly grown through the CLI on ``cascade`` (Cray XC: 48 routers a cabinet, groups of two)
fills the standing group's free slots, and the same command gives the same cables.
"""

from __future__ import annotations

import itertools
import json

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

HALL = """extends: hot-aisle
name: membership-test
hall:
  rows: 2
  cabinets_per_row: 4
  count: 1
structured_cabling: false
group_cabinets: 2
media_rule: membership
"""

# Standing: routers 0, 1 in A01 and 2, 3 in A02 (group 0: slot A01-A02, full), router 4 in A03
# (group 1: slot A03-A04, one free router slot in A03 and the free position A04). Routers 5..
# are new; the free positions of row B are two new groups' slots.
STANDING = np.array([0, 0, 1, 1, 2])
HALLS, ROWS, COLS, GROUPS = np.zeros(3, int), np.zeros(3, int), np.arange(3), np.array([0, 0, 1])
RING = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]
SITES = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)]
SLOT_GROUP = {(0, 0): 0, (0, 1): 0, (0, 2): 1, (0, 3): 1, (1, 0): 2, (1, 1): 2, (1, 2): 3,
              (1, 3): 3}

CASES = {
    # three new routers in a triangle hung on router 4: the greedy start opens row B's
    # groups, where every link to router 4 leaves its group; group 1 holds them all
    "standing group": (8, RING + [(4, 5), (4, 6), (4, 7), (5, 6), (6, 7), (5, 7)], True),
    # two new routers, each tied to a different standing group
    "two groups": (7, RING + [(0, 5), (1, 5), (4, 6), (5, 6)], None),
    # three new routers that talk mostly among themselves
    "new ring": (8, RING + [(5, 6), (6, 7), (5, 7), (4, 5)], None),
}


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    path = tmp_path_factory.mktemp("floor") / "membership.yaml"
    path.write_text(HALL)
    catalog = load_catalog("modern-100g")
    floor = load_floor(path)
    assert floor.media_rule == "membership" and floor.router_slots == 2
    return floor, catalog, catalog.router_for(16)


def _new_link_dollars(graph, first_new, router_cabinet, row, col, floor, catalog, router):
    """Dollars of the links with a new router, as cabling prices them: a cabinet's group is
    its slot's."""
    keep = graph.links[:, 1] >= first_new
    part = Graph(n=graph.n, links=graph.links[keep], weights=graph.weights[keep],
                 endpoints=graph.endpoints)
    group = np.array([SLOT_GROUP[(int(r), int(c))] for r, c in zip(row, col)])
    return network_link_media(part, router_cabinet, np.zeros(len(row), int), row, col, group,
                              floor, catalog, router).dollars


def _enumerated_optimum(top, floor, catalog, router) -> float:
    """Least new-link dollars over every placement of the new routers on the hall's router
    slots (two a cabinet; a group of two cabinets holds at most 4 routers, so the slots are
    the groups' limits too)."""
    graph = Graph.from_topology(top)
    n_new = top.num_routers - len(STANDING)
    best = np.inf
    for choice in itertools.product(range(len(SITES)), repeat=n_new):
        where = np.r_[STANDING, choice]
        if np.bincount(where, minlength=len(SITES)).max() > floor.router_slots:
            continue
        used = np.unique(where)
        index = np.searchsorted(used, where)
        row = np.array([SITES[s][0] for s in used])
        col = np.array([SITES[s][1] for s in used])
        best = min(best, _new_link_dollars(graph, len(STANDING), index, row, col, floor,
                                           catalog, router))
    return best


@pytest.mark.parametrize("name", CASES)
def test_search_reaches_the_enumerated_optimum(hall, name):
    floor, catalog, router = hall
    n, edges, strictly = CASES[name]
    top = Topology.from_edges("import", {}, n, edges, 1)
    placed = place_growth(top, floor, catalog, router, STANDING, HALLS, ROWS, COLS, GROUPS)
    p = placed.placement
    best = _enumerated_optimum(top, floor, catalog, router)
    priced = _new_link_dollars(Graph.from_topology(top), len(STANDING), p.router_cabinet,
                               p.cabinet_row, p.cabinet_col, floor, catalog, router)
    assert placed.method == "standing+greedy+search"
    assert placed.dollars == pytest.approx(priced)           # the layout's groups are the slots'
    assert placed.dollars <= placed.start_dollars + 1e-9
    assert placed.dollars == pytest.approx(best)
    assert placed.lower_bound <= best + 1e-9
    if strictly:
        assert placed.dollars < placed.start_dollars - 1
        assert placed.in_standing_cabinets == 1              # A03's free slot
    # standing routers stay; every layout group matches its cabinets' slot
    assert (p.router_cabinet[:len(STANDING)] == STANDING).all()
    assert np.bincount(p.router_cabinet).max() <= floor.router_slots
    for g in np.unique(p.cabinet_group):
        slots = {SLOT_GROUP[(int(r), int(c))] for r, c in
                 zip(p.cabinet_row[p.cabinet_group == g], p.cabinet_col[p.cabinet_group == g])}
        assert len(slots) == 1


def test_groups_limits_hold_on_group_endpoints_floors(tmp_path):
    """``group_endpoints`` floors (pn-500's kind): one cabinet of 512 slots is one group of
    about N endpoints; the greedy start and the search keep every group within its routers."""
    path = tmp_path / "pn.yaml"
    path.write_text(HALL.replace("group_cabinets: 2", "group_cabinets: null\ngroup_endpoints: 4")
                    .replace("extends: hot-aisle",
                             "extends: hot-aisle\nrouter_slots: 8\nfirst_router_ru: 34"))
    floor, catalog = load_floor(path), load_catalog("modern-100g")
    router = catalog.router_for(16)
    top = Topology.from_edges("import", {}, 12, RING + [(4, k) for k in range(5, 12)]
                              + [(k, k + 1) for k in range(5, 11)], 1)
    standing = np.array([0, 0, 0, 0, 1])
    placed = place_growth(top, floor, catalog, router, standing, np.zeros(2, int),
                          np.zeros(2, int), np.arange(2), np.array([0, 1]))
    p = placed.placement
    per_group = np.bincount(p.cabinet_group[p.router_cabinet])
    assert per_group.max() <= 4                               # 4 endpoints of 1: 4 routers
    assert placed.dollars <= placed.start_dollars + 1e-9


@pytest.fixture(scope="module")
def cascade(tmp_path_factory):
    base = tmp_path_factory.mktemp("cascade")
    old = base / "old"
    assert main(["plan", "--topology", "dragonfly:a=8,p=4,h=4,g=9", "--catalog",
                 "modern-100g", "--floor", "cascade", "--strategy", "hint", "--resilience",
                 "off", "--out", str(old)]) == 0
    grown = []
    for k in range(2):
        out = base / f"grown{k}"
        assert main(["expand", "--from", str(old), "--topology",
                     "dragonfly:a=8,p=4,h=4,g=17", "--out", str(out)]) == 0
        grown.append(out)
    return old, grown


def test_dragonfly_on_cascade_fills_the_standing_group(cascade):
    old, (grown, again) = cascade
    block = json.loads((grown / "summary.json").read_text())["growth"]["placement"]
    assert block["method"] == "standing+greedy+search"
    assert block["new_cable_dollars"] < block["new_cable_dollars_start"]
    old_cab = pd.read_csv(old / "cabinets.csv")
    free = int((48 - old_cab["routers"]).clip(lower=0).sum())   # cascade: 48 routers a cabinet
    assert free > 0
    assert block["new_routers_in_standing_cabinets"] == free
    cab = pd.read_csv(grown / "cabinets.csv")
    assert cab["name"].tolist()[:len(old_cab)] == old_cab["name"].tolist()
    assert (cab["routers"] <= 48).all()
    assert (grown / "cables.csv").read_bytes() == (again / "cables.csv").read_bytes()
