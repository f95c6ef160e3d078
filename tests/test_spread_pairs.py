"""``--spread-risk`` limits the group pairs' cables on the cabinets too (issue 26, item 4):
the counts the placement search keeps per (group pair, cabinet) are the ones an independent
recount gives from the final cables.csv, the pairs the plain layout puts over the share on a
cabinet are brought within it, and by hand on four routers in two groups.
"""

from __future__ import annotations

import csv
from collections import Counter

import numpy as np
import pytest

from planner.exports import cables_csv
from planner.placement import spread
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.plan import plan

DRAGONFLY = "dragonfly:a=4,p=2,h=2,g=4"
"""4 groups of 4 routers, 8 global links a group: each group pair has 2 or 3 cables."""


@pytest.fixture(scope="module")
def dragonfly(tmp_path_factory):
    """The Dragonfly on the hot-aisle floor at share 0.25, its cables.csv written and read
    back."""
    result = plan(DRAGONFLY, "modern-100g", "hot-aisle", strategy="hint",
                  resilience="cabinet", fail_links=0, spread_risk=0.25)
    out = tmp_path_factory.mktemp("spread-pairs")
    cables_csv.write(result, out)
    with open(out / "cables.csv", newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "network"]
    return result, rows


def _recount(rows, group_of, cabinet_of=None) -> Counter:
    """(lower group, higher group, cabinet) -> the cables between the two groups with an end
    in the cabinet (counted once where both ends are in it), for pairs of more than one
    cable, from cables.csv rows (``cabinet_of``: device -> cabinet, to move the routers)."""
    pair_cables, per_cabinet = Counter(), Counter()
    for row in rows:
        a, b = row["a_device"], row["b_device"]
        ga, gb = group_of[a], group_of[b]
        if ga == gb:
            continue
        pair = (min(ga, gb), max(ga, gb))
        pair_cables[pair] += 1
        ends = {row["a_cabinet"], row["b_cabinet"]} if cabinet_of is None else \
            {cabinet_of[a], cabinet_of[b]}
        for cabinet in ends:
            per_cabinet[pair + (cabinet,)] += 1
    return Counter({k: n for k, n in per_cabinet.items() if pair_cables[k[:2]] > 1}), \
        pair_cables


def _over(counts: Counter, pair_cables: Counter, share: float) -> int:
    """Cables over floor(share x cables of the pair), at least 1, summed over the cells."""
    return sum(max(n - max(int(np.floor(share * pair_cables[k[:2]] + 1e-9)), 1), 0)
               for k, n in counts.items())


def test_the_searchs_pair_counts_are_a_recount_of_cables_csv(dragonfly):
    result, rows = dragonfly
    top, placement = result.topology, result.placement
    names = {f"r{r:02d}": int(g) for r, g in enumerate(np.asarray(top.groups).tolist())}
    assert set(names) >= {r["a_device"] for r in rows}
    pairs = placement.spread_risk.pairs
    assert pairs is not None
    n_groups = int(np.max(top.groups)) + 1
    kept = Counter()
    for p, c in zip(*np.nonzero(pairs.counts)):
        lo, hi = divmod(int(pairs.pairs.key[p]), n_groups)
        kept[(lo, hi, placement.cabinet_names[c])] = int(pairs.counts[p, c])
    recount, pair_cables = _recount(rows, names)
    assert kept == recount
    assert sum(pair_cables.values()) == 4 * 8 // 2          # 4 groups x 8 global links
    over = _over(recount, pair_cables, 0.25)
    assert over == pairs.cables_over
    block = result.summary["spread_risk"]
    assert block["largest_share"]["cabinet"]["group_pair"]["cables_over"] == over
    assert block["enforced"]["group_pair"]["cabinet"] is True


def test_the_plain_layouts_pairs_over_the_share_are_spread(dragonfly):
    result, rows = dragonfly
    top, placement = result.topology, result.placement
    risk = placement.spread_risk
    names = {f"r{r:02d}": int(g) for r, g in enumerate(np.asarray(top.groups).tolist())}
    plain = {f"r{r:02d}": risk.plain_cabinet_names[c]
             for r, c in enumerate(risk.plain_router_cabinet.tolist())}
    plain_counts, pair_cables = _recount(rows, names, plain)
    plain_over = _over(plain_counts, pair_cables, 0.25)
    assert plain_over == risk.pairs.plain_cables_over > 0
    assert risk.pairs.cables_over == 0 and risk.cables_over == 0
    assert result.summary["spread_risk"]["without"]["largest_share"]["cabinet"]["group_pair"][
        "cables_over"] == plain_over


def test_two_groups_by_hand():
    """Groups G0 = {r0, r1}, G1 = {r2, r3}; links r0-r1, r2-r3 inside the groups and r0-r2,
    r1-r3 between them: the pair has 2 cables, so at share 1/2 a cabinet may hold an end of 1.
    Two cabinets of two slots. Plain c0 = {r0, r1}, c1 = {r2, r3}: both global cables have an
    end in c0 and one in c1, 2 per cabinet, 1 + 1 = 2 over; each router has 1 of its 2 cables
    in the other cabinet (1/2, within the share). c0 = {r0, r2}, c1 = {r1, r3} (the swap of r1
    and r2) keeps each global cable inside one cabinet: 1 per cabinet, none over, and each
    router still 1 of 2 in the other cabinet; the search finds it (or its mirror image)."""
    g = Graph.from_edges(4, [(0, 1), (2, 3), (0, 2), (1, 3)])
    groups = np.array([0, 0, 1, 1])
    start = np.array([0, 0, 1, 1])
    pairs = spread.group_pairs(g, groups, 0.5)
    assert pairs.cables.tolist() == [2] and pairs.limit.tolist() == [1]
    assert spread.pair_counts(g, start, pairs, 2).tolist() == [[2, 2]]
    assert spread.pair_counts(g, np.array([0, 1, 0, 1]), pairs, 2).tolist() == [[1, 1]]
    cabinet_group = np.zeros(2, np.int64)
    runs = [spread.spread(g, start, cabinet_group, spread.near_by_group(cabinet_group),
                          Limits.single(np.ones(4), 2), Limits.single(np.ones(4), 4),
                          np.ones((1, 2, 2)), 0.5, None, groups) for _ in range(2)]
    cab, over, _, _, _, got = runs[0]
    assert np.array_equal(cab, runs[1][0])
    assert over == 0
    assert got.plain_cables_over == 2 and got.cables_over == 0
    assert cab[0] == cab[2] and cab[1] == cab[3] and cab[0] != cab[1]
    assert np.array_equal(got.counts, spread.pair_counts(g, cab, pairs, 2))


def test_no_groups_no_pairs_and_one_cable_pairs_never_count():
    g = Graph.from_edges(3, [(0, 1), (1, 2)])
    assert spread.group_pairs(g, None, 0.5) is None
    assert spread.group_pairs(g, np.array([0, 1, 2]), 0.5) is None     # one cable a pair
