"""``--spread-risk`` limits tray segments too (issue 26, item 4): the counts the placement
search keeps per (router, tray segment) are the ones the tray failure groups give for the
final cables, the spread layout carries no more cables over the tray limit than the plain one,
and by hand on one row of cabinets a move lowers a router's share of one tray segment.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from planner.inputs.floor import load_floor, room_of
from planner.inputs.floor.tray_segments import own_bay
from planner.performance import failure_groups
from planner.performance.failure_groups import tray_name
from planner.placement import spread
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.plan import plan


def _per_router_segment(top, placement, floor) -> dict[tuple[int, str], int]:
    """(router, segment name) -> the router's network cables routed along it, counted from
    the plan's cables as the tray failure groups derive them (its own bay included)."""
    cable_link = failure_groups.network_cable_links(top.multiplicity)
    links = np.asarray(top.links, np.int64).reshape(-1, 2)
    a, b = links[cable_link, 0], links[cable_link, 1]
    trays = failure_groups.tray_groups(floor, placement, cable_link, a, b, top.num_routers)
    cables = trays.cables.tocoo()
    out: dict[tuple[int, str], int] = {}
    for g, link, n in zip(cables.row.tolist(), cables.col.tolist(), cables.data.tolist()):
        for r in links[link].tolist():
            key = (r, trays.names[g])
            out[key] = out.get(key, 0) + n
    return out


@pytest.fixture(scope="module")
def slimfly():
    """Slim Fly q=5 on the hot-aisle floor, spread as far as the cabinets allow."""
    result = plan("slimfly:q=5", "modern-100g", "hot-aisle", strategy="hint",
                  resilience="tray", fail_links=0, spread_risk="min")
    return result


def test_the_searchs_tray_counts_are_the_tray_groups_of_the_final_cables(slimfly):
    result = slimfly
    placement, floor = result.placement, load_floor("hot-aisle")
    trays = placement.spread_risk.trays
    assert trays.limited
    room = room_of(floor, placement.cabinet_hall, placement.cabinet_row, placement.cabinet_col)
    names = [tray_name(room, int(c)) for c in trays.codes]
    kept = {(r, names[s]): int(n) for r, s in zip(*np.nonzero(trays.counts))
            for n in [trays.counts[r, s]]}
    assert kept == _per_router_segment(result.topology, placement, floor)


def test_the_spread_layout_has_no_more_tray_excess_nor_a_larger_tray_share(slimfly):
    result = slimfly
    floor = load_floor("hot-aisle")
    placement = result.placement
    trays = placement.spread_risk.trays
    plain = _plain(placement)

    def excess(layout) -> int:
        """Cables over each router's tray limit on segments other than its own bay."""
        own = _own_bays(layout, floor)
        return sum(max(n - int(trays.limit[r]), 0)
                   for (r, name), n in _per_router_segment(result.topology, layout,
                                                           floor).items() if name != own[r])

    def largest(layout) -> float:
        """Largest share of a router's cables on one segment other than its own bay."""
        own, degree = _own_bays(layout, floor), result.topology
        cables = np.bincount(np.asarray(degree.links).ravel(),
                             weights=np.repeat(degree.multiplicity, 2))
        return max(n / cables[r] for (r, name), n in
                   _per_router_segment(result.topology, layout, floor).items()
                   if name != own[r])

    spread_excess, plain_excess = excess(placement), excess(plain)
    assert spread_excess == trays.cables_over
    assert plain_excess == trays.plain_cables_over
    assert spread_excess <= plain_excess
    assert largest(placement) <= largest(plain) + 1e-12
    block = result.summary["spread_risk"]
    assert block["enforced"]["tray"] and block["trays"]["limited"]
    assert block["trays"]["cables_over"] == {"with": spread_excess, "without": plain_excess}


def _plain(placement):
    """The plain layout the search started from (the spread plan's cabinets)."""
    risk = placement.spread_risk
    assert tuple(risk.plain_cabinet_names) == tuple(placement.cabinet_names)
    return replace(placement, router_cabinet=risk.plain_router_cabinet, spread_risk=None)


def _own_bays(placement, floor) -> dict[int, str]:
    """Router -> name of the row-tray bay over its cabinet."""
    room = room_of(floor, placement.cabinet_hall, placement.cabinet_row, placement.cabinet_col)
    bay = own_bay(room, placement.cabinet_hall, placement.cabinet_row, placement.cabinet_col)
    return {r: tray_name(room, int(bay[c]))
            for r, c in enumerate(np.asarray(placement.router_cabinet).tolist())}


def test_one_move_lowers_a_tray_share_by_hand():
    """One row of the hot-aisle floor (cross trays at both ends and after every 10 cabinets):
    cabinets c0, c1 at columns 0, 1 (bay A:P0-P1) and c2, c3 at columns 21, 22 (bay
    A:P2-P3), two router slots each. Routers r0..r3 one a cabinet on the cycle r0-r2-r1-r3-r0:
    every cable runs A:P0-P1, A:P1-P2, A:P2-P3, so every router has both of its cables on the
    two segments other than its own bay: share 2/2 = 1 on A:P1-P2. At share 1/2 a router may
    put 1 cable on a segment (a bay holds 4 routers, so no cable has to leave it: the floor
    is 0), so each router is 1 + 1 over: 8 cables over in all.

    r2 to c0: r0-r2 stays in c0, r2-r1 runs A:P0-P1 only; r0 keeps r3's cable alone on
    A:P1-P2 and A:P2-P3 (share 1/2), r1 the same, r2 is in bay A:P0-P1 with nothing leaving
    it, r3 still has both cables on A:P0-P1 and A:P1-P2: 2 over, 6 fewer. r3 to c1 as well
    leaves no cable outside bay A:P0-P1: 0 over; the search gets there."""
    floor = load_floor("hot-aisle")
    hall, row, col = np.zeros(4, np.int64), np.zeros(4, np.int64), np.array([0, 1, 21, 22])
    routes = spread.tray_routes(floor, hall, row, col, cabinet_routers=2)
    room = room_of(floor, hall, row, col)
    name = {tray_name(room, int(c)): s for s, c in enumerate(routes.codes)}
    g = Graph.from_edges(4, [(0, 2), (2, 1), (1, 3), (3, 0)])
    start = np.array([0, 1, 2, 3])
    limit = spread.allowed(g, 0.5)
    assert limit.tolist() == [1, 1, 1, 1]
    assert spread.tray_floor(g, routes, limit).tolist() == [0, 0, 0, 0]
    counts = spread.tray_counts(g, start, routes)
    for seg in ("A:P0-P1", "A:P1-P2", "A:P2-P3"):
        assert counts[:, name[seg]].tolist() == [2, 2, 2, 2]
    assert spread.tray_over(counts, start, limit, routes).sum() == 8

    moved = np.array([0, 1, 0, 3])
    after = spread.tray_counts(g, moved, routes)
    p1p2 = name["A:P1-P2"]
    assert after[:, p1p2].tolist() == [1, 1, 0, 2]        # r0: 1 of its 2 cables, was 2 of 2
    assert spread.tray_over(after, moved, limit, routes).sum() == 2

    group = np.zeros(4, np.int64)
    result = spread.spread(g, start, group, spread.near_by_group(group),
                           Limits.single(np.ones(4), 2), Limits.single(np.ones(4), 8),
                           np.ones((1, 4, 4)), 0.5, routes)
    cab, over, _, _, trays, _ = result
    assert over == 0
    assert trays.plain_cables_over == 8 and trays.cables_over == 0
    assert np.array_equal(trays.counts, spread.tray_counts(g, cab, routes))
    assert len(set(np.asarray(routes.own)[cab].tolist())) == 1     # all four in one bay


def test_trays_are_measured_only_above_the_pair_budget(monkeypatch):
    floor = load_floor("hot-aisle")
    monkeypatch.setattr(spread, "SPREAD_TRAY_MAX_PAIRS", 15)
    hall, row, col = np.zeros(4, np.int64), np.zeros(4, np.int64), np.arange(4)
    assert spread.tray_routes(floor, hall, row, col, 2) is None
    why = spread.TraySpread.of(None, floor, 4)
    assert not why.limited and "16 cabinet pairs" in why.why
