"""``--spread-risk``: the exact cabinet repair (``planner.placement.spread_repair``) and the
lower bounds beside it (``planner.placement.spread_bounds``), issue 26 item 4.

On Slim Fly q=9 (162 routers, hot-aisle: cabinets of 2, ``--strategy hint``) at the smallest
share the local search leaves cabinet cells over the limit (58 cables); the repair matches
the routers into cabinets of two and reaches 0, recounted here from cables.csv (each cable's
two cabinets, not the search's counters). The tray lower bound is checked by hand and against every placement of tiny
cases.
"""

from __future__ import annotations

import csv
import itertools
from collections import Counter

import numpy as np
import pytest

from planner.exports import cables_csv
from planner.placement import spread, spread_bounds, spread_repair
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.plan import plan

SLIMFLY = "slimfly:q=7"
"""98 routers of 11 network cables in 7 racks (groups): the smallest share is 1/11."""
REPAIRED = "slimfly:q=9"
"""162 routers of 13 network cables in 9 racks: the smallest share is 1/13."""


@pytest.fixture(scope="module")
def slimfly(tmp_path_factory):
    result = plan(REPAIRED, "modern-100g", "hot-aisle", strategy="hint", resilience="off",
                  spread_risk="min")
    out = tmp_path_factory.mktemp("spread-cpsat")
    cables_csv.write(result, out)
    with open(out / "cables.csv", newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "network"]
    return result, rows


def _cells_over(rows, group_of, share) -> tuple[int, int]:
    """(router cables, group-pair cables) over the cabinet limits, from cables.csv rows alone:
    per router and other cabinet its cables to that cabinet's routers over floor(share x its
    cables); per group pair (of more than one cable) and cabinet, its cables with an end there
    (a cable with both ends there once) over floor(share x the pair's cables), at least 1."""
    cabinet_of = {r["a_device"]: r["a_cabinet"] for r in rows} | \
        {r["b_device"]: r["b_cabinet"] for r in rows}
    degree, into = Counter(), Counter()
    pair_cables, pair_at = Counter(), Counter()
    for r in rows:
        a, b = r["a_device"], r["b_device"]
        degree[a] += 1
        degree[b] += 1
        into[a, cabinet_of[b]] += 1
        into[b, cabinet_of[a]] += 1
        ga, gb = group_of[a], group_of[b]
        if ga != gb:
            pair = (min(ga, gb), max(ga, gb))
            pair_cables[pair] += 1
            for cabinet in {cabinet_of[a], cabinet_of[b]}:
                pair_at[pair, cabinet] += 1
    routers = sum(max(n - int(np.floor(share * degree[x] + 1e-9)), 0)
                  for (x, cabinet), n in into.items() if cabinet != cabinet_of[x])
    pairs = sum(max(n - max(int(np.floor(share * pair_cables[p] + 1e-9)), 1), 0)
                for (p, _), n in pair_at.items() if pair_cables[p] > 1)
    return routers, pairs


def test_the_exact_repair_reaches_zero_recounted_from_cables_csv(slimfly):
    result, rows = slimfly
    risk = result.placement.spread_risk
    width = len(str(result.topology.num_routers - 1))
    group_of = {f"r{r:0{width}d}": g for r, g in enumerate(np.asarray(result.topology.groups))}
    assert risk.exact.applies and risk.exact.cables_over_before > 0    # the search left some
    assert risk.exact.cables_over_after == 0 and risk.exact.moved > 0
    assert _cells_over(rows, group_of, risk.share) == (0, 0)
    assert risk.met and risk.cables_over == 0 and risk.pairs.cables_over == 0
    assert risk.lower_bound["router_cabinet"] == 0 and risk.lower_bound["pair_cabinet"] == 0
    block = result.summary["spread_risk"]
    assert block["exact_repair"]["cables_over"] == {"before": risk.exact.cables_over_before,
                                                    "after": 0}
    assert block["lower_bound"]["router_cabinet"] == {"bound": 0, "achieved": 0}
    tray = block["lower_bound"]["router_tray"]
    assert 0 < tray["bound"] <= tray["achieved"] == block["trays"]["cables_over"]["with"]
    assert "why_not_met" not in block


@pytest.mark.parametrize("with_pairs", [False, True])
def test_compatible_mates_by_hand(with_pairs):
    """Racks {r0, r1, r2} and {r3, r4, r5}, each router with one cable to every router of the
    other rack (K3,3), share 1/3: a router may have 1 cable in another cabinet. Two routers of
    one rack share three neighbours, each then with 2 cables into their cabinet: only mates
    across the racks are compatible. The rack pair has 9 cables, 3 allowed with an end in one
    cabinet: two routers across the racks hold 3 + 3 - 1 = 5 of them, so with the group pair
    counted no two routers may share a cabinet; alone each holds 3 (within)."""
    g = Graph.from_edges(6, [(x, y) for x in range(3) for y in range(3, 6)])
    racks = np.array([0, 0, 0, 1, 1, 1])
    pairs = spread.group_pairs(g, racks, 1 / 3) if with_pairs else None
    search = spread._Search(g, np.array([0, 0, 1, 1, 2, 2]), np.zeros(3, np.int64),
                            Limits.single(np.ones(6), 2), Limits.single(np.ones(6), 6),
                            np.ones((1, 3, 3)), 1 / 3, None, pairs)
    ok, alone = spread_repair.compatible(search)
    across = racks[:, None] != racks[None, :]
    assert np.array_equal(ok, across & (not with_pairs))
    assert alone.all()


def test_why_the_cabinets_stay_over_when_the_repair_would_raise_the_trays():
    """Slim Fly q=7 with ``--strategy optimize``: the matching meets the cabinet limits but
    its layout carries more tray cables over the limit than the plain one, so it is undone,
    the cells stay over, and summary.json says why; the lower bound stays below."""
    result = plan(SLIMFLY, "modern-100g", "hot-aisle", resilience="off", spread_risk="min")
    risk = result.placement.spread_risk
    assert not risk.met and risk.exact.applies and not risk.exact.within_trays
    assert risk.exact.cables_over_after == risk.exact.cables_over_before > 0
    assert risk.trays.cables_over <= risk.trays.plain_cables_over
    block = result.summary["spread_risk"]
    assert "tray" in block["why_not_met"] and block["exact_repair"]["within_trays"] is False
    assert block["lower_bound"]["router_cabinet"]["bound"] == 0 < risk.cables_over


def test_rematch_is_exact_and_deterministic_on_a_ring_of_cabinets():
    """Eight routers on a cycle r0-r1-...-r7-r0 (2 cables each, share 1/2: 1 per other
    cabinet), cabinets of two. Mates x, y are compatible unless they have a common neighbour
    (then it has 2 cables into their cabinet): x and x + 2 are not. Start {0, 2} {1, 3}
    {4, 6} {5, 7}: every cabinet holds two routers with a common neighbour, r1, r2, r5, r6,
    r3, r0, r7, r4 each 2 cables in one other cabinet: 8 over. A layout of 0 exists ({0, 1}
    {2, 3} {4, 5} {6, 7}: mates adjacent, no common neighbour on a cycle of 8); the rematch
    finds one, recounted from scratch, twice the same."""
    g = Graph.from_edges(8, [(i, (i + 1) % 8) for i in range(8)])
    group = np.zeros(4, np.int64)
    start = np.array([0, 1, 0, 1, 2, 3, 2, 3])
    outs = []
    for _ in range(2):
        search = spread._Search(g, start, group, Limits.single(np.ones(8), 2),
                                Limits.single(np.ones(8), 8), np.ones((1, 4, 4)), 0.5,
                                None, None)
        assert search.excess() == 4
        ok, _ = spread_repair.compatible(search)
        common = (g.adjacency @ g.adjacency).toarray() > 0
        np.fill_diagonal(common, True)
        assert np.array_equal(ok, ~common)
        got = spread_repair.exact_repair(search, spread.near_by_group(group))
        assert got.applies and got.cables_over_before == 4 and got.cables_over_after == 0
        counts = spread.cabinet_counts(g, search.cab, 4)
        assert spread.over_limit(counts, search.cab, spread.allowed(g, 0.5)).sum() == 0
        assert np.bincount(search.cab, minlength=4).tolist() == [2, 2, 2, 2]
        outs.append(search.cab.copy())
    assert np.array_equal(outs[0], outs[1])


def test_no_matching_is_proved_and_said():
    """A triangle r0-r1-r2 plus r3 alone in two cabinets of two, share 1/2: any two of the
    triangle share the third as a common neighbour, and r3 with any of them leaves the other
    two together: no layout meets the share, and the repair proves it (INFEASIBLE)."""
    g = Graph.from_edges(4, [(0, 1), (1, 2), (0, 2)])
    group = np.zeros(2, np.int64)
    search = spread._Search(g, np.array([0, 0, 1, 1]), group, Limits.single(np.ones(4), 2),
                            Limits.single(np.ones(4), 4), np.ones((1, 2, 2)), 0.5, None)
    before = search.excess()
    assert before > 0
    got = spread_repair.exact_repair(search, spread.near_by_group(group))
    assert got.applies and got.no_matching and got.cables_over_after == before


@pytest.mark.parametrize("edges, n, slots, limit", [
    ([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], 4, 1, 3),   # K4, the hand case
    ([(0, 1), (0, 2), (0, 3), (0, 4)], 5, 1, 4),                   # a star: centre in the middle
    ([(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)], 5, 1, 2),           # a 5-cycle
])
def test_the_tray_lower_bound_against_every_placement(edges, n, slots, limit):
    """Cabinets c0..c5 in one line, one bay segment over each (b0..b5); a cable between c_a
    and c_b runs along the bays from a to b. A router's tray excess: on every bay but its
    own, its cables along it over 1. Brute force over every placement of the routers into
    the six cabinets (``slots`` a cabinet) keeping at most ``limit`` cables of a router in
    one other cabinet: the bound is never above the least total, and for K4 it is the hand
    count of the least (module doc of ``spread_bounds``)."""
    cabinets = 6
    ptr, seg = [0], []
    for a in range(cabinets):
        for b in range(cabinets):
            lo, hi = min(a, b), max(a, b)
            seg += list(range(lo, hi + 1)) if a != b else []
            ptr.append(len(seg))
    routes = spread.TrayRoutes(ptr=np.array(ptr, np.int64), seg=np.array(seg, np.int64),
                               own=np.arange(cabinets), codes=np.arange(cabinets), exits=2,
                               bay_cabinets=1, cabinet_routers=slots)
    g = Graph.from_edges(n, edges)
    share_limit = np.full(n, limit, np.int64)
    tray_limit = np.ones(n, np.int64)
    bound = spread_bounds.tray_lower_bound(g, routes, share_limit, tray_limit)
    best = None
    for cab in itertools.permutations(range(cabinets), n):
        cab = np.array(cab)
        if np.bincount(cab, minlength=cabinets).max() > slots:
            continue
        counts = spread.cabinet_counts(g, cab, cabinets)
        if spread.over_limit(counts, cab, share_limit).sum():
            continue
        trays = spread.tray_counts(g, cab, routes)
        excess = int(spread.tray_over(trays, cab, tray_limit, routes).sum())
        best = excess if best is None else min(best, excess)
    assert bound <= best
    if n == 4:
        # K4 in 4 of 6 cabinets in a line: the best takes 4 consecutive ones, c1..c4: the
        # outer routers send 3 cables along 3 bays (3, 2, 1 on them: over 2 + 1), the inner
        # ones 1, 2, 1 (over 1): 3 + 1 + 1 + 3 = 8. The bound lets each router choose its
        # neighbours' cabinets: in c1..c4 one on each side, 2 on one bay (over 1); in c0, c5
        # 3 (as above); the four best cabinets: 1 + 1 + 1 + 1 = 4.
        assert best == 8 and bound == 4


@pytest.mark.parametrize("edges, groups, share, slots, hand", [
    # r0 = r1 three times, r0 - r2 once; share 1/4: r0 may have 1 cable in another cabinet,
    # r1 and r2 none. One router a cabinet: r0 2 over in r1's cabinet, r1 3 in r0's, r2 1.
    ([(0, 1), (0, 1), (0, 1), (0, 2)], None, 0.25, 1, (6, 0)),
    # two a cabinet: each router alone could take its largest bundle in (r0 r1, r2 r0): 0,
    # though r0 cannot be with both, and the least is 1 (r2's cable into r0's cabinet).
    ([(0, 1), (0, 1), (0, 1), (0, 2)], None, 0.25, 2, (0, 0)),
    # groups {r0}, {r1, r2}: the pair's 4 cables, 1 allowed a cabinet; r0's cabinet holds
    # all 4 (3 over) whatever the placement: the pair bound is the least.
    ([(0, 1), (0, 1), (0, 1), (0, 2)], [0, 1, 1], 0.25, 2, (0, 3)),
])
def test_the_cabinet_lower_bound_against_every_placement(edges, groups, share, slots, hand):
    """The bound by hand, and never above the least over every placement of the routers
    into three cabinets of ``slots`` routers (recounted with ``cabinet_counts`` and
    ``pair_counts``)."""
    g = Graph.from_edges(3, edges)
    limit = spread.allowed(g, share)
    pairs = None if groups is None else spread.group_pairs(g, np.array(groups), share)
    bound = spread_bounds.cabinet_lower_bound(g, limit, slots, pairs)
    assert bound == hand
    least = None
    for cab in itertools.product(range(3), repeat=3):
        cab = np.array(cab)
        if np.bincount(cab, minlength=3).max() > slots:
            continue
        routers = int(spread.over_limit(spread.cabinet_counts(g, cab, 3), cab, limit).sum())
        pair = 0 if pairs is None else int(np.maximum(
            spread.pair_counts(g, cab, pairs, 3) - pairs.limit[:, None], 0).sum())
        least = (routers, pair) if least is None else (min(least[0], routers),
                                                       min(least[1], pair))
    assert bound[0] <= least[0] and bound[1] <= least[1]
    assert (bound[0] == least[0]) == (slots == 1)        # one router a cabinet: no choice
    assert bound[1] == least[1]
