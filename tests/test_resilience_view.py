"""The viewer's resilience layer in the page's data block, read back as the page reads it
(``tests.test_viewer.read_block``): θ after every cabinet fails, and each tray segment's cables.

- every cabinet's θ in the page is the plan's per-group value, and the worst of them is the
  summary's worst cabinet;
- the cables of every tray segment are exactly the network cables whose drawn route runs
  along that segment (``geometry.cable_routes``, an independent picture of the same trays), on
  one hall and on three;
- the θ shown for a tray segment is what ``resilience.measure`` gives for cutting exactly the
  cables the page lists for it;
- the per-group values stay out of summary.json; a plan without resilience says why.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from planner.exports import summary_json, viewer
from planner.exports.viewer import geometry
from planner.performance import resilience
from planner.performance.failure_groups import network_cable_links
from planner.performance.stage import plane_and_cables
from planner.topologies.metrics import endpoint_distance_sum
from planner.performance.bisection_bounds import bisection_cut
from tests.test_exports_plans import get_plan
from tests.test_viewer import halls_plan, read_block


@lru_cache(maxsize=None)
def built(name: str):
    return halls_plan("corridor") if name == "corridor" else get_plan(name)


@lru_cache(maxsize=None)
def page_data(name: str):
    return read_block(viewer.page(built(name)))


def _along(points: np.ndarray, seg) -> bool:
    """Does the polyline run along the straight segment for a positive length?"""
    (x0, y0), (x1, y1) = seg
    for (ax, ay), (bx, by) in zip(points[:-1], points[1:]):
        if y0 == y1 and abs(ay - y0) < 1e-6 and abs(by - y0) < 1e-6:
            lo, hi = max(min(ax, bx), min(x0, x1)), min(max(ax, bx), max(x0, x1))
        elif x0 == x1 and abs(ax - x0) < 1e-6 and abs(bx - x0) < 1e-6:
            lo, hi = max(min(ay, by), min(y0, y1)), min(max(ay, by), max(y0, y1))
        else:
            continue
        if hi - lo > 1e-6:
            return True
    return False


def _tray_members(tables) -> dict[str, list[int]]:
    trays, cables = tables["fail_trays"], tables["fail_tray_cables"]["cable"]
    start = np.r_[0, np.cumsum(trays["cables"])].astype(int)
    return {n: [int(c) for c in cables[start[k]:start[k + 1]]]
            for k, n in enumerate(trays["name"])}


@pytest.mark.parametrize("name", ["slimfly-hot", "corridor"])
def test_cabinet_theta_in_the_page_is_the_plans_and_names_the_worst(name):
    plan = built(name)
    meta, tables = page_data(name)
    per = plan.resilience_groups["cabinet"]
    got = dict(zip(tables["fail_cabinets"]["cabinet"], tables["fail_cabinets"]["theta_ratio"]))
    assert got == dict(zip(per["names"], per["theta_ratio"].tolist()))
    assert set(got) == set(plan.cabinets["name"][plan.cabinets["routers"] > 0])
    worst = plan.summary["resilience"]["kinds"]["cabinet"]["worst"]
    kind = plan.summary["resilience"]["kinds"]["cabinet"]["theta_kind"]
    assert meta["resilience"]["cabinet"] == {"measured": True, "why": "", "theta_kind": kind,
                                             "worst": worst["name"]}
    assert got[worst["name"]] == min(got.values()) == worst["theta_ratio"]


@pytest.mark.parametrize("name", ["slimfly-hot", "corridor"])
def test_tray_cables_are_the_cables_routed_along_the_segment(name):
    plan = built(name)
    meta, tables = page_data(name)
    routes = geometry.cable_routes(plan)
    n_net = int(plan.topology.multiplicity.sum())
    members = _tray_members(tables)
    trays = tables["fail_trays"]
    assert list(trays["name"]) == list(plan.resilience_groups["tray"]["names"])
    straight = 0
    for k, seg_name in enumerate(trays["name"]):
        assert members[seg_name] == sorted(set(members[seg_name]))
        assert all(0 <= c < n_net for c in members[seg_name])      # network cables only
        if seg_name in meta["resilience"]["tray_paths"]:           # a hall-to-hall link
            a, b = (int(h) for h in seg_name.replace(" link", "").replace("H", "").split("-"))
            hall = dict(zip(plan.cabinets["name"], plan.cabinets["hall"]))
            for c in members[seg_name]:
                assert {hall[plan.cables[f"{s}_cabinet"].iloc[c]] for s in "ab"} == {a - 1, b - 1}
            continue
        seg = ((trays["x0"][k], trays["y0"][k]), (trays["x1"][k], trays["y1"][k]))
        want = [c for c in range(n_net)
                if _along(routes.points[routes.offsets[c]:routes.offsets[c + 1]], seg)]
        assert members[seg_name] == want, seg_name
        straight += 1
    assert straight >= 7


def test_tray_theta_is_the_network_without_its_listed_cables():
    plan = built("slimfly-hot")
    _, tables = page_data("slimfly-hot")
    members = _tray_members(tables)
    top, _ = plane_and_cables(plan.topology, plan.cables)
    _, distance_sum = endpoint_distance_sum(top)
    intact = resilience.Intact(top, bisection_cut(top, 0), distance_sum)
    cable_link = network_cable_links(top.multiplicity)
    mode = resilience.modes(intact, len(members))
    theta0 = plan.summary["resilience"]["intact_theta"]
    trays = tables["fail_trays"]
    for k, seg_name in enumerate(trays["name"]):
        links, cut = np.unique(cable_link[members[seg_name]], return_counts=True)
        outcome = resilience.measure(intact, np.zeros(0, np.int64), links, cut, mode)
        assert trays["theta"][k] == pytest.approx(outcome.theta, abs=1e-6), seg_name
        assert trays["theta_ratio"][k] == pytest.approx(outcome.theta / theta0, abs=1e-6)
        assert trays["pairs_cut"][k] == outcome.pairs_cut


def test_per_group_values_stay_out_of_summary_json():
    plan = built("slimfly-hot")
    text = summary_json.dumps(plan.summary)
    assert "per_group" not in text and "A02" not in text     # only the worst cabinet is named
    assert set(plan.resilience_groups) == set(plan.summary["resilience"]["kinds"])


def test_a_plan_without_resilience_says_why():
    from planner.plan import plan
    from planner.topologies.slimfly import slimfly
    quiet = plan(slimfly(q=5), "modern-100g", "hot-aisle", strategy="hint", time_limit_s=5,
                 seed=0, resilience="off")
    meta, tables = read_block(viewer.page(quiet))
    assert meta["resilience"]["cabinet"]["measured"] is False
    assert "--resilience off" in meta["resilience"]["cabinet"]["why"]
    assert meta["resilience"]["tray"]["measured"] is False
    assert tables["fail_cabinets"] == {"cabinet": [], "theta_ratio": []}
    assert tables["fail_trays"] == {"name": []}                 # no segment lists either
    assert tables["fail_tray_cables"] == {"cable": []}
