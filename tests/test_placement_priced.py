"""Placement on reach floors: cable dollars as the objective, copper wherever it reaches, the
copper upper bound and the dollar lower bound checked against exact solves of small floors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from planner.inputs.catalog import load_catalog
from planner.inputs.floor import Floor, load_floor, room_of
from planner.placement.cabinet_anneal import anneal_cabinets
from planner.placement.capacity import Limits
from planner.placement.copper_bounds import (copper_upper_bound, cost_lower_bound,
                                             degree_reach_bound, projection_bound, slot_stats,
                                             spectrum)
from planner.placement.graph import Graph
from planner.placement.objective import cabinet_prices
from planner.plan import plan
from planner.topologies.slimfly import slimfly

CATALOG = load_catalog("modern-100g")
ROUTER = CATALOG.router_for(8)
COPPER_REACH_M = 5.0   # MCP1600, the only copper assembly of modern-100g (catalog file)


def row_floor(overhead_m: float) -> Floor:
    """An abstract row of cabinets 0.6 m apart, two router slots each; a cable between
    cabinets i and j is 0.6 |i - j| + overhead metres (no slack)."""
    return Floor(name="row", cabinet_width_m=0.6, cabinet_depth_m=1.2, cabinet_height_ru=42,
                 pitch_m=0.6, aisle_m=1.2, router_slots=2, group_cabinets=1, intra_cabinet_m=1.0,
                 overhead_per_cable_m=overhead_m, media_rule="reach", abstract=True,
                 cabinets_per_row=8)


def cube() -> Graph:
    return Graph.from_edges(8, [(i, i ^ b) for i in range(8) for b in (1, 2, 4) if i < i ^ b])


def ring_with_doubles() -> Graph:
    """An 8-ring with every other link doubled and two chords: parallel cables count each."""
    edges = [(i, (i + 1) % 8) for i in range(8)] + [(i, (i + 1) % 8) for i in range(0, 8, 2)]
    return Graph.from_edges(8, edges + [(0, 4), (2, 6)])


def exact(graph: Graph, prices, cabinets: int) -> tuple[int, float]:
    """(most copper cables, least dollars) over every assignment of the 8 routers to the 2
    slots of each of the cabinets, by enumeration."""
    slots = np.array(list(itertools.permutations(range(2 * cabinets), graph.n)))
    cab = slots // 2
    a, b = cab[:, graph.links[:, 0]], cab[:, graph.links[:, 1]]
    klass = np.searchsorted(prices.classes, graph.weights)
    copper = (prices.copper[0][a, b] * graph.weights).sum(axis=1)
    dollars = (prices.price[klass, 0, a, b] * graph.weights).sum(axis=1)
    return int(copper.max()), float(dollars.min())


def table(floor: Floor, cabinets: int, graph: Graph):
    hall, row, col = np.zeros(cabinets, np.int64), np.zeros(cabinets, np.int64), np.arange(cabinets)
    prices = cabinet_prices(floor, CATALOG, ROUTER, room_of(floor, hall, row, col), 1,
                            graph.weights)
    return hall, col, prices


# overhead 3.9 m: copper (<= 5 m) reaches the next cabinet only; 3.3 m: two cabinets over.
@pytest.mark.parametrize("overhead_m", [3.9, 3.3])
@pytest.mark.parametrize("graph", [cube(), ring_with_doubles()], ids=["cube", "ring"])
def test_copper_and_dollar_bounds_hold_against_the_exact_solve(graph, overhead_m):
    floor = row_floor(overhead_m)
    hall, col, prices = table(floor, 4, graph)
    # the table is the catalog's rule: copper exactly where the route is within 5 m
    length = np.abs(col[:, None] - col[None, :]) * 0.6 + overhead_m
    np.fill_diagonal(length, 1.0)
    assert np.array_equal(prices.copper[0], length <= COPPER_REACH_M + 1e-9)
    most, least = exact(graph, prices, 4)
    copper, _ = copper_upper_bound(graph, prices, hall, col, 2)
    dollars, _ = cost_lower_bound(graph, prices, hall, col, 2, copper)
    assert most <= copper <= graph.total_weight
    assert dollars <= least + 1e-6
    # the search reaches the exact optimum from the worst start on a floor this small
    worst = np.array([0, 3, 1, 2, 3, 0, 2, 1])
    limits = Limits.single(np.ones(8), 2)
    best = anneal_cabinets(graph, worst, hall, col, np.arange(4), prices, limits,
                           Limits.single(np.ones(8), 2), steps=20_000, seed=1)
    assert np.bincount(best, minlength=4).max() <= 2
    klass = np.searchsorted(prices.classes, graph.weights)
    found = prices.price[klass, 0, best[graph.links[:, 0]], best[graph.links[:, 1]]]
    assert float(graph.weights @ found) == pytest.approx(least)


def test_degree_and_reach_bound_by_hand():
    # the cube, degree 3; on the 3.9 m row the end cabinets' slots reach 3 other slots (their
    # partner and the next cabinet's two), the middle ones 5: sum min(3, r) / 2 = 8 * 3 / 2.
    graph = cube()
    hall, col, prices = table(row_floor(3.9), 4, graph)
    stats = slot_stats(prices, hall, col, 2)
    assert sorted(stats.reach.tolist()) == [3, 3, 3, 3, 5, 5, 5, 5]
    assert degree_reach_bound(graph, stats.reach) == 12
    # a star of 7 leaves: the hub's 7 links meet at most 5 slots in reach, each leaf has 1
    star = Graph.from_edges(8, [(0, i) for i in range(1, 8)])
    assert degree_reach_bound(star, stats.reach) == (5 + 7 * 1) // 2


def test_projection_bound_brackets_every_permutation():
    rng = np.random.default_rng(7)
    n = 7
    for _ in range(5):
        a = np.triu(rng.integers(0, 3, (n, n)), 1).astype(float)
        b = np.triu(rng.random((n, n)), 1)
        a, b = a + a.T, b + b.T
        values = [0.5 * np.sum(a * b[np.ix_(p, p)]) for p in itertools.permutations(range(n))]
        assert projection_bound(spectrum(a), spectrum(b), largest=True) >= max(values) - 1e-9
        assert projection_bound(spectrum(a), spectrum(b), largest=False) <= min(values) + 1e-9


@pytest.fixture(scope="module")
def reach_plans():
    top = slimfly(q=7)
    return {strategy: plan(top, "modern-100g", "hot-aisle", strategy=strategy, time_limit_s=2,
                           seed=0) for strategy in ("partition", "optimize")}


def test_reach_floor_copper_wherever_it_reaches(reach_plans):
    result = reach_plans["optimize"]
    net = result.cables[result.cables.kind == "network"]
    optical = net[net.media == "optical"]
    assert (optical.length_m > COPPER_REACH_M).all()
    assert (net[net.media == "electrical"].length_m <= COPPER_REACH_M).all()
    place = result.summary["placement"]
    assert place["objective"] == "cable dollars"
    assert place["copper"] == int((net.media == "electrical").sum())
    assert place["optical"] == len(optical)
    assert place["copper"] <= place["copper_upper_bound"] <= len(net)
    assert place["cable_cost_lower_bound"] <= place["cable_cost"]


def test_pricing_the_routes_saves_dollars_over_the_grouping_alone(reach_plans):
    grouped = reach_plans["partition"].summary["placement"]
    priced = reach_plans["optimize"].summary["placement"]
    assert priced["cable_cost"] < grouped["cable_cost"]
    assert priced["copper"] > grouped["copper"]


def test_membership_floor_keeps_the_optical_count():
    result = plan(slimfly(q=5), "modern-100g", "pn-500", strategy="optimize", time_limit_s=2,
                  seed=0)
    place = result.summary["placement"]
    assert place["objective"] == "optical links"
    net = result.cables[result.cables.kind == "network"]
    assert place["optical"] == int((net.media == "optical").sum())
    assert place["copper"] == len(net) - place["optical"]
    assert place["copper"] <= place["copper_upper_bound"]


def test_several_halls_price_the_hall_links():
    """Slim Fly q=5 (25 cabinets) on halls of 2 rows x 6 cabinets: three halls joined through
    a meet-me room; a cable between halls (40 m hall link) is never copper."""
    base = load_floor("hot-aisle")
    floor = base.model_copy(update={"hall": base.hall.model_copy(
        update={"max_rows": 2, "max_cabinets_per_row": 6})})
    result = plan(slimfly(q=5), "modern-100g", floor, strategy="optimize", time_limit_s=2, seed=0)
    cabinets = result.cabinets.set_index("name")
    assert cabinets.hall.nunique() >= 2
    net = result.cables[result.cables.kind == "network"]
    between = (cabinets.hall[net.a_cabinet].to_numpy() != cabinets.hall[net.b_cabinet].to_numpy())
    assert between.any() and (net.media[between] == "optical").all()
    assert (net.length_m[between] > 40).all()
    assert (net.media[net.length_m <= COPPER_REACH_M] == "electrical").all()
    place = result.summary["placement"]
    assert place["copper"] == int((net.media == "electrical").sum()) <= place["copper_upper_bound"]
    assert place["cable_cost_lower_bound"] <= place["cable_cost"]
