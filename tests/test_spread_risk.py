"""``--spread-risk`` (issue 26, item 4): the spread plan meets the share, counted again from
cables.csv as a reader sees it, its worst single-cabinet θ is not below the plain plan's, and
shares no placement can meet are refused.
"""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from planner.cli import main
from planner.exports import cables_csv
from planner.performance import failure_groups, spread_risk
from planner.placement import spread
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.plan import plan
from planner.run.errors import InputError


def _largest_share(rows, router_cabinet=None) -> float:
    """max over routers r and cabinets c other than r's of (r's network cables whose other
    end is in c) / (r's network cables), from cables.csv rows (or with the routers moved to
    ``router_cabinet``: device name -> cabinet)."""
    where = {}
    for row in rows:
        where[row["a_device"]] = row["a_cabinet"]
        where[row["b_device"]] = row["b_cabinet"]
    if router_cabinet is not None:
        where = router_cabinet
    degree, into = Counter(), defaultdict(Counter)
    for row in rows:
        a, b = row["a_device"], row["b_device"]
        for me, other in ((a, b), (b, a)):
            degree[me] += 1
            if where[other] != where[me]:
                into[me][where[other]] += 1
    return max(n / degree[r] for r, per in into.items() for n in per.values())


@pytest.fixture(scope="module")
def slimfly(tmp_path_factory):
    """Slim Fly q=5 on the hot-aisle floor (2 routers a cabinet), spread as far as it goes,
    its cables.csv written and read back."""
    result = plan("slimfly:q=5", "modern-100g", "hot-aisle", strategy="hint",
                  resilience="cabinet", fail_links=0, spread_risk="min")
    out = tmp_path_factory.mktemp("spread")
    cables_csv.write(result, out)
    with open(out / "cables.csv", newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "network"]
    return result, rows


def test_the_spread_plan_meets_the_share_counted_from_cables_csv(slimfly):
    result, rows = slimfly
    block = result.summary["spread_risk"]
    # Slim Fly q=5: 7 network cables a router; one neighbour may share its cabinet, so the
    # smallest share is 1/7
    assert block["share"] == pytest.approx(1 / 7)
    assert block["met"] and block["cables_over"] == 0
    reached = _largest_share(rows)
    assert reached <= block["share"] + 1e-12
    assert block["largest_share"]["cabinet"]["router"]["largest"] == pytest.approx(reached,
                                                                                    abs=1e-6)
    # the plain placement it started from holds 2 of some router's 7 cables in one cabinet
    plain = result.placement.spread_risk
    names = {f"r{r:02d}": plain.plain_cabinet_names[c]
             for r, c in enumerate(plain.plain_router_cabinet.tolist())}
    plain_reached = _largest_share(rows, names)
    assert plain_reached > block["share"]
    assert block["without"]["largest_share"]["cabinet"]["router"]["largest"] == \
        pytest.approx(plain_reached, abs=1e-6)


def test_the_worst_cabinet_keeps_at_least_the_plain_plans_theta(slimfly):
    result, _ = slimfly
    block = result.summary["spread_risk"]
    with_, without = block["worst_cabinet"]["with"], block["worst_cabinet"]["without"]
    assert with_["theta_kind"] == without["theta_kind"]
    assert with_["theta_ratio"] >= without["theta_ratio"]
    cabinets = result.summary["resilience"]["kinds"]["cabinet"]
    assert with_ == {"theta_ratio": cabinets["theta_ratio"]["worst"],
                     "theta": cabinets["worst"]["theta"], "cabinet": cabinets["worst"]["name"],
                     "theta_kind": cabinets["theta_kind"]}
    assert "spread-risk: plain cabinet" not in result.summary["resilience"]["kinds"]
    cost = block["cable_cost"]
    assert cost["with"] == pytest.approx(result.summary["placement"]["cable_cost"])
    assert cost["extra"] == pytest.approx(cost["with"] - cost["without"])


def _ring_with_parallel_cables() -> Graph:
    """Router 0: 3 cables to router 1, one each to 2 and 3; a ring 1-2-3 besides."""
    return Graph.from_edges(4, [(0, 1)] * 3 + [(0, 2), (0, 3), (1, 2), (2, 3), (3, 1)])


@pytest.mark.parametrize("slots, limit", [
    (1, 3 / 5),     # alone in its cabinet: router 0's 3 cables to router 1 leave together
    (2, 1 / 3),     # one neighbour may join: routers 2 and 3 still have 1 of their 3 outside
    (4, 0.0),       # every neighbour fits in its cabinet
])
def test_share_limit_by_hand(slots, limit):
    share, _ = spread.share_limit(_ring_with_parallel_cables(), slots)
    assert share == pytest.approx(limit)


def test_the_search_meets_a_reachable_share_and_is_deterministic():
    """Six routers on a ring 0-1-...-5-0 in three cabinets of two: the start {0,2}, {1,3},
    {4,5} puts both cables of router 1 (to 0 and 2) into one other cabinet; a share of 1/2 (one
    cable of two) is met, e.g. by {0,1}, {2,3}, {4,5}, and the search finds such a layout the
    same way twice."""
    g = Graph.from_edges(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)])
    start = np.array([0, 1, 0, 1, 2, 2])
    group = np.zeros(3, np.int64)
    limits = Limits.single(np.ones(6), 2)
    price = np.ones((1, 3, 3))
    near = spread.near_by_group(group)
    runs = [spread.spread(g, start, group, near, limits, Limits.single(np.ones(6), 6), price,
                          0.5) for _ in range(2)]
    cab, over, *_ = runs[0]
    assert np.array_equal(cab, runs[1][0])
    assert over == 0 and np.bincount(cab).max() <= 2
    assert _ring_share(cab) == 0.5
    assert _ring_share(start) == 1.0


def _ring_share(cab) -> float:
    """Largest share of a ring router's two cables in one other cabinet."""
    worst = 0.0
    for r in range(6):
        others = [cab[(r - 1) % 6], cab[(r + 1) % 6]]
        worst = max(worst, max(others.count(c) for c in set(others) if c != cab[r]) / 2
                    if any(c != cab[r] for c in others) else 0.0)
    return worst


def test_no_placement_meets_a_share_below_the_limit():
    with pytest.raises(InputError, match=r"--spread-risk 0.1: .*at least 0.3334"):
        spread.check_feasible(_ring_with_parallel_cables(), 0.1, 2)


@pytest.mark.parametrize("value, words", [
    ("0", "--spread-risk"), ("1.5", "--spread-risk"), ("abc", "--spread-risk"),
    ("0.05", "give a share of at least"),
])
def test_bad_shares_exit_2_with_one_line(value, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(["plan", "--topology", "slimfly:q=5", "--strategy", "hint",
                     "--resilience", "off", "--out", "plan", "--spread-risk", value])
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "--spread-risk" in err and words in err, err
    assert not (tmp_path / "plan").exists()


def test_measured_shares_by_hand():
    """Routers 0, 1 (topology group 0) and 2, 3 (group 1); cables 0-2 x2, 1-3, 0-1; cabinets
    A = {0}, B = {1}, C = {2, 3}; a trunk T carries the two 0-2 cables."""
    top = SimpleNamespace(links=np.array([[0, 2], [1, 3], [0, 1]]),
                          multiplicity=np.array([2, 1, 1]), num_routers=4,
                          groups=np.array([0, 0, 1, 1]))
    cabinets = failure_groups.cabinet_groups(
        SimpleNamespace(router_cabinet=np.array([0, 1, 2, 2]), cabinet_names=("A", "B", "C")),
        4, 3)
    trunks = failure_groups._groups("trunk", ["T"], num_routers=4, cable_group=np.array([0, 0]),
                                    cable_link=np.array([0, 0]), num_links=3)
    names = [f"r{i}" for i in range(4)]
    got = spread_risk.shares(top, {"cabinet": cabinets, "trunk": trunks}, names)
    # r2's two cables both end in A (r3's one in B: a tie, the first group wins)
    assert got["cabinet"]["router"] == {"largest": 1.0, "router": "r2", "group": "A"}
    # the 3 cables between groups 0 and 1 all end in C
    assert got["cabinet"]["group_pair"] == {"largest": 1.0, "pair": "groups 0-1", "cables": 3,
                                            "group": "C"}
    # T: both of r2's cables, 2 of r0's 3, 2 of the pair's 3
    assert got["trunk"]["router"] == {"largest": 1.0, "router": "r2", "group": "T"}
    assert got["trunk"]["group_pair"]["largest"] == pytest.approx(2 / 3, abs=1e-6)


def test_without_is_the_plain_layout_planned_on_its_own(slimfly):
    """The block's "without" θ is what planning the plain layout itself reports."""
    result, _ = slimfly
    risk = result.placement.spread_risk
    assert risk.plain_cabinet_names == result.placement.cabinet_names   # no cabinet emptied
    plain = replace(result.placement, router_cabinet=risk.plain_router_cabinet,
                    spread_risk=None)
    again = plan("slimfly:q=5", "modern-100g", "hot-aisle", strategy="hint",
                 resilience="cabinet", fail_links=0, placement=plain)
    cabinets = again.summary["resilience"]["kinds"]["cabinet"]
    without = result.summary["spread_risk"]["worst_cabinet"]["without"]
    assert without["theta_ratio"] == cabinets["theta_ratio"]["worst"]
    assert without["cabinet"] == cabinets["worst"]["name"]
