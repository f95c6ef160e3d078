"""``--spread-risk`` limits the group pairs' cables on the tray segments too (issue 26, item 4):
the pair tray excess recounted from cables.csv (each cable's cabinets routed over the floor's
trays, not the search's counters) is what the search reports, for the plan and for the plain
layout it started from, and the search lowered it; the floor the trays allow and the pair tray
repair by hand.
"""

from __future__ import annotations

import csv
from collections import Counter, defaultdict

import numpy as np
import pytest

from planner.exports import cables_csv
from planner.inputs.floor import load_floor, room_of
from planner.inputs.floor.tray_segments import route_segments
from planner.performance.failure_groups import tray_name
from planner.placement import spread
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.plan import plan

DRAGONFLY = "dragonfly:a=4,p=2,h=2,g=5"
"""5 groups of 4 routers, 8 global links a group: 2 cables between every two groups."""
SHARE = 0.25
ROUTER_SLOTS = 2
"""Routers a hot-aisle cabinet holds (``layouts/hot-aisle.yaml`` ``router_slots``)."""


@pytest.fixture(scope="module")
def dragonfly(tmp_path_factory):
    """The Dragonfly on the hot-aisle floor at share 0.25, its cables.csv written and read
    back."""
    result = plan(DRAGONFLY, "modern-100g", "hot-aisle", strategy="hint",
                  resilience="cabinet", fail_links=0, spread_risk=SHARE)
    out = tmp_path_factory.mktemp("spread-pair-trays")
    cables_csv.write(result, out)
    with open(out / "cables.csv", newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "network"]
    return result, rows


def _pair_tray_excess(rows, group_of, cabinet_of, placement, floor) -> int:
    """Cables of a group pair (of more than one cable) routed along one tray segment over
    max(floor(SHARE x cables of the pair), 1, the least the trays allow), summed over
    (pair, segment): the route of every cables.csv row between its two routers' cabinets
    (``cabinet_of``: device -> cabinet name), the floor from the rows' bundles (a router's
    cables of the pair but its ``ROUTER_SLOTS`` - 1 largest bundles leave its cabinet along
    the bay over it)."""
    index = {name: i for i, name in enumerate(placement.cabinet_names)}
    hall, row, col = (np.asarray(placement.cabinet_hall), np.asarray(placement.cabinet_row),
                      np.asarray(placement.cabinet_col))
    room = room_of(floor, hall, row, col)
    pair_rows = [r for r in rows if group_of[r["a_device"]] != group_of[r["b_device"]]]
    pair = [tuple(sorted((group_of[r["a_device"]], group_of[r["b_device"]])))
            for r in pair_rows]
    cables = Counter(pair)
    a = np.array([index[cabinet_of[r["a_device"]]] for r in pair_rows], np.int64)
    b = np.array([index[cabinet_of[r["b_device"]]] for r in pair_rows], np.int64)
    item, code = route_segments(room, hall, row, col, a, b)
    along = Counter((pair[i], tray_name(room, int(c))) for i, c in zip(item, code))
    bundles = defaultdict(Counter)                  # (router, pair) -> neighbour -> cables
    for r, p in zip(pair_rows, pair):
        bundles[(r["a_device"], p)][r["b_device"]] += 1
        bundles[(r["b_device"], p)][r["a_device"]] += 1
    least = Counter()
    for (_, p), per in bundles.items():
        leave = sum(sorted(per.values(), reverse=True)[ROUTER_SLOTS - 1:])
        least[p] = max(least[p], leave)
    limit = {p: max(int(np.floor(SHARE * n + 1e-9)), 1, least[p])
             for p, n in cables.items() if n > 1}
    return sum(max(n - limit[p], 0) for (p, _), n in along.items() if p in limit)


def _names(result):
    top = result.topology
    width = len(str(top.num_routers - 1))
    return [f"r{r:0{width}d}" for r in range(top.num_routers)]


def test_the_pair_tray_excess_recounted_from_cables_csv_is_lowered(dragonfly):
    result, rows = dragonfly
    top, placement = result.topology, result.placement
    floor = load_floor("hot-aisle")
    names = _names(result)
    assert set(names) >= {r["a_device"] for r in rows}
    group_of = dict(zip(names, np.asarray(top.groups).tolist()))
    risk = placement.spread_risk
    assert tuple(risk.plain_cabinet_names) == tuple(placement.cabinet_names)
    pair_trays = risk.pairs.trays
    assert pair_trays is not None
    spread_cabinet = {r["a_device"]: r["a_cabinet"] for r in rows} | \
        {r["b_device"]: r["b_cabinet"] for r in rows}
    plain_cabinet = {names[r]: placement.cabinet_names[c]
                     for r, c in enumerate(risk.plain_router_cabinet.tolist())}
    with_ = _pair_tray_excess(rows, group_of, spread_cabinet, placement, floor)
    without = _pair_tray_excess(rows, group_of, plain_cabinet, placement, floor)
    assert with_ == pair_trays.cables_over
    assert without == pair_trays.plain_cables_over
    assert with_ < without
    block = result.summary["spread_risk"]
    assert block["enforced"]["group_pair"]["tray"] is True
    assert block["trays"]["group_pair"]["cables_over"] == {"with": with_, "without": without}


def test_the_pair_tray_floor_by_hand():
    """Groups G0 = {r0}, G1 = {r1, r2, r3}; r0 has one cable to each of r1, r2, r3 (a pair
    of 3). A cabinet holds 2 routers, so at most one of r0's neighbours shares its cabinet and
    the bay over it carries at least 2 of the pair's cables in any placement; a pair with a
    bundle of 2 parallel cables (r0-r1 twice, r0-r2) keeps the bundle in the cabinet: 1. The
    placement c0 = {r0, r1}, c1 = {r2}, c2 = {r3} in one bay reaches 2."""
    floor = load_floor("hot-aisle")
    hall, row, col = np.zeros(3, np.int64), np.zeros(3, np.int64), np.array([0, 1, 2])
    routes = spread.tray_routes(floor, hall, row, col, cabinet_routers=2)
    groups = np.array([0, 1, 1, 1])
    g = Graph.from_edges(4, [(0, 1), (0, 2), (0, 3)])
    pairs = spread.group_pairs(g, groups, 0.5)
    assert pairs.cables.tolist() == [3] and pairs.limit.tolist() == [1]
    assert spread.pair_tray_floor(g, pairs, routes).tolist() == [2]
    counts = spread.pair_tray_counts(g, np.array([0, 0, 1, 2]), pairs, routes)
    assert counts.max() == 2
    bundled = Graph.from_edges(3, [(0, 1), (0, 1), (0, 2)])
    pairs = spread.group_pairs(bundled, groups[:3], 0.5)
    assert spread.pair_tray_floor(bundled, pairs, routes).tolist() == [1]


def test_one_swap_takes_a_pairs_cables_off_the_cross_bays_by_hand():
    """One row of the hot-aisle floor: cabinets c0, c1 at columns 0, 1 (bay A:P0-P1) and c2,
    c3 at columns 21, 22 (bay A:P2-P3), one router each. Groups G0 = {r0, r1}, G1 = {r2, r3}:
    r0-r1 and r2-r3 inside them, r0-r2 and r1-r3 the pair's 2 cables (share 1/2: 1 a segment;
    one router a cabinet, so each of them leaves its cabinet: the floor is 1). Start r0, r1,
    r2, r3 in c0..c3: both pair cables run A:P0-P1, A:P1-P2, A:P2-P3, 2 on each, 3 over. Every
    router has 2 cables and no other cabinet holds 2 of them, and no router has more than 1
    on a segment other than its bay: the pair's trays are the only excess. Swapping r1 and r2
    keeps each pair cable inside one bay: 1 on A:P0-P1 and A:P2-P3, none over; the search
    finds it (or the swap of r0 and r3, the same by symmetry)."""
    floor = load_floor("hot-aisle")
    hall, row, col = np.zeros(4, np.int64), np.zeros(4, np.int64), np.array([0, 1, 21, 22])
    routes = spread.tray_routes(floor, hall, row, col, cabinet_routers=1)
    room = room_of(floor, hall, row, col)
    name = {tray_name(room, int(c)): s for s, c in enumerate(routes.codes)}
    g = Graph.from_edges(4, [(0, 1), (2, 3), (0, 2), (1, 3)])
    groups = np.array([0, 0, 1, 1])
    start = np.array([0, 1, 2, 3])
    pairs = spread.group_pairs(g, groups, 0.5)
    assert spread.pair_tray_floor(g, pairs, routes).tolist() == [1]
    counts = spread.pair_tray_counts(g, start, pairs, routes)
    assert [int(counts[0, name[s]]) for s in ("A:P0-P1", "A:P1-P2", "A:P2-P3")] == [2, 2, 2]
    group = np.zeros(4, np.int64)
    runs = [spread.spread(g, start, group, spread.near_by_group(group),
                          Limits.single(np.ones(4), 1), Limits.single(np.ones(4), 4),
                          np.ones((1, 4, 4)), 0.5, routes, groups) for _ in range(2)]
    cab, over, _, _, trays, got = runs[0]
    assert np.array_equal(cab, runs[1][0])                  # deterministic
    assert over == 0 and trays.cables_over == 0 and got.cables_over == 0
    assert got.trays.plain_cables_over == 3 and got.trays.cables_over == 0
    assert np.array_equal(got.trays.counts, spread.pair_tray_counts(g, cab, pairs, routes))
    assert {frozenset({int(cab[0]), int(cab[2])}), frozenset({int(cab[1]), int(cab[3])})} == \
        {frozenset({0, 1}), frozenset({2, 3})}              # each pair cable in one bay


def test_pair_trays_are_not_counted_without_trays():
    g = Graph.from_edges(4, [(0, 1), (2, 3), (0, 2), (1, 3)])
    group = np.zeros(2, np.int64)
    *_, got = spread.spread(g, np.array([0, 0, 1, 1]), group, spread.near_by_group(group),
                            Limits.single(np.ones(4), 2), Limits.single(np.ones(4), 4),
                            np.ones((1, 2, 2)), 0.5, None, np.array([0, 0, 1, 1]))
    assert got is not None and got.trays is None
