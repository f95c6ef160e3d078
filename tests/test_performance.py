"""The performance stage: θ against an independent LP, hops and latency against networkx,
bisection and bounds, and the literature's worst-case values under minimal routing."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from ortools.linear_solver import pywraplp

from planner import performance
from planner.performance import throughput, traffic, tuning
from planner.run.errors import InputError
from planner.topologies import parse_spec
from test_exports_plans import get_plan


def independent_theta(top, pairs: dict[tuple[int, int], float] | None = None) -> float:
    """Max concurrent flow by GLOP, one commodity per DESTINATION router (the planner uses
    one per source, with HiGHS): max θ s.t. flow conservation and Σ flow <= cables per arc."""
    g = top.to_networkx()
    e = {v: d["endpoints"] for v, d in g.nodes(data=True)}
    n = sum(e.values())
    if pairs is None:
        pairs = {(s, t): e[s] * e[t] / (n - 1) for s in g for t in g if s != t and e[s] * e[t]}
    arcs = [(u, v, d["multiplicity"]) for u, v, d in g.edges(data=True)]
    arcs += [(v, u, m) for u, v, m in arcs]
    solver = pywraplp.Solver.CreateSolver("GLOP")
    theta = solver.NumVar(0, 1, "theta")
    dests = sorted({t for _, t in pairs})
    flow = {(t, i): solver.NumVar(0, solver.infinity(), "") for t in dests
            for i in range(len(arcs))}
    for t in dests:
        into = {v: 0 for v in g}
        for s, tt in pairs:
            if tt == t:
                into[s] += pairs[s, tt]
        for v in g:
            if v == t:
                continue
            out_f = [flow[t, i] for i, (a, _, _) in enumerate(arcs) if a == v]
            in_f = [flow[t, i] for i, (_, b, _) in enumerate(arcs) if b == v]
            solver.Add(sum(out_f) - sum(in_f) == into[v] * theta)
    for i, (_, _, m) in enumerate(arcs):
        solver.Add(sum(flow[t, i] for t in dests) <= m)
    solver.Maximize(theta)
    assert solver.Solve() == pywraplp.Solver.OPTIMAL
    return theta.solution_value()


@pytest.mark.parametrize("spec, published", [
    ("slimfly:q=5,p=7", None),                    # oversubscribed endpoints (balanced p = 4)
    ("fattree:k=4", 1.0),                         # full bisection: every endpoint at full rate
    ("torus:dims=8,p=1", 16 / (8 * 16 / 7)),      # ring of 8: capacity 16 / Σ D·d = 0.875
    ("torus:dims=6,p=2", None),
    ("dragonfly:a=4,p=2,h=2,g=5", None),
    ("mlfm:h=3", None),
])
def test_uniform_theta_equals_an_independent_lp(spec, published):
    top = parse_spec(spec)
    arcs = throughput.Arcs.of(top)
    mine = throughput.exact_theta(arcs, throughput.uniform_demand(top.endpoints))
    assert mine == pytest.approx(independent_theta(top), abs=1e-6)
    if published is not None:
        assert mine == pytest.approx(published, abs=1e-9)


@pytest.mark.parametrize("spec", ["slimfly:q=5", "oft:q=3", "torus:dims=8x4", "hyperx:S=4x4"])
def test_worst_case_optimal_theta_equals_an_independent_lp(spec):
    top = parse_spec(spec)
    pat = traffic.worst_case(top)
    pairs = {(int(s), int(t)): float(top.endpoints[s]) for s, t in zip(pat.src, pat.dst)}
    demand = throughput.permutation_demand(top.num_routers, pat.src, pat.dst,
                                           top.endpoints[pat.src])
    mine = throughput.exact_theta(throughput.Arcs.of(top), demand)
    assert mine == pytest.approx(independent_theta(top, pairs), abs=1e-6)


@pytest.mark.parametrize("spec, published", [
    ("slimfly:q=5", 1 / 8),                # 1/(2p), Kathareios SC15 §4.2
    ("slimfly:q=7,p=6", 1 / 12),
    ("oft:q=3", 1 / 4),                    # 1/k with k = q + 1 = p
    ("mlfm:h=4", 1 / 4),                   # 1/h
    ("hyperx:S=5x5,p=3", 1 / 3),           # the direct link carries p flows
    ("torus:dims=8x8,p=1", 1 / 3),         # tornado: ⌈k/2⌉ - 1 = 3 flows per channel
    ("torus:dims=9,p=2", 1 / 8),           # shift 4, two endpoints per router
])
def test_minimal_routing_on_the_published_worst_case_gives_the_published_theta(spec, published):
    top = parse_spec(spec)
    pat = traffic.worst_case(top)
    assert pat.formula_theta == pytest.approx(published)
    demand = throughput.permutation_demand(top.num_routers, pat.src, pat.dst,
                                           top.endpoints[pat.src])
    assert throughput.ecmp_theta(throughput.Arcs.of(top), demand) == pytest.approx(published)
    # a permutation: every router sends to one router and receives from at most one
    assert len(set(pat.src.tolist())) == len(pat.src) >= 0.5 * len(top.leaves())
    assert len(set(pat.dst.tolist())) == len(pat.dst)


@pytest.mark.parametrize("spec", ["slimfly:q=5,p=7", "dragonfly:a=4,p=2,h=2,g=7",
                                  "fattree:k=4,levels=2", "oft:q=3", "torus:dims=5x4",
                                  "jellyfish:routers=24,degree=5,p=3"])
def test_bounds_bracket_the_exact_theta(spec):
    top = parse_spec(spec)
    arcs = throughput.Arcs.of(top)
    demand = throughput.uniform_demand(top.endpoints)
    exact = throughput.exact_theta(arcs, demand)
    assert throughput.ecmp_theta(arcs, demand) <= exact + 1e-9
    _, dsum = performance.endpoint_distance_sum(top)
    n = top.num_endpoints
    assert throughput.path_length_bound(arcs.capacity.sum(), dsum / (n - 1)) >= exact - 1e-9
    side = performance.bisection_cut(top)
    assert throughput.cut_bound(arcs, top.endpoints, side) >= exact - 1e-9
    rng = np.random.default_rng(1)
    for _ in range(20):                                 # any cut bounds θ from above
        cut = rng.random(top.num_routers) < 0.5
        assert throughput.cut_bound(arcs, top.endpoints, cut) >= exact - 1e-9


def _networkx_hops_and_latency(plan, router_ns):
    """Average/diameter hops over endpoint pairs, and latency average/max, by networkx:
    per router pair the lowest-latency path among the minimal-hop ones (a Dijkstra on
    weight = 1e6 per hop + cable latency)."""
    top = plan.topology
    net = plan.cables[plan.cables["kind"] == "network"]
    fastest = {}
    for a, b, ns in zip(net["a_router"], net["b_router"], net["latency_ns"]):
        key = (min(a, b), max(a, b))
        fastest[key] = min(fastest.get(key, math.inf), ns)
    g = nx.Graph()
    g.add_nodes_from(range(top.num_routers))
    for (u, v), ns in fastest.items():
        g.add_edge(u, v, w=1e6 + ns)
    ep = plan.cables[plan.cables["kind"] == "endpoint"]
    ep_lat = dict(zip(ep["b_endpoint"], ep["latency_ns"]))
    offsets = np.concatenate([[0], np.cumsum(top.endpoints)])
    owner = np.repeat(np.arange(top.num_routers), top.endpoints)
    dist = dict(nx.all_pairs_dijkstra_path_length(g, weight="w"))
    n = top.num_endpoints
    hops = lat = 0.0
    worst = 0.0
    diameter = 0
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            s, t = owner[i], owner[j]
            w = dist[s][t]
            h = int(round(w / 1e6))
            path = w - h * 1e6
            total = ep_lat[i] + ep_lat[j] + (h + 1) * router_ns + path
            hops += h
            lat += total
            worst = max(worst, total)
            diameter = max(diameter, h)
    assert offsets[-1] == n
    return hops / (n * (n - 1)), diameter, lat / (n * (n - 1)), worst


@pytest.mark.parametrize("name", ["slimfly-hot", "dragonfly-trunk"])
def test_hops_and_latency_equal_networkx(name):
    plan = get_plan(name)
    perf = plan.summary["performance"]
    router_ns = perf["latency_ns"]["router_ns"]
    assert router_ns == plan.router_model.latency_ns == 425          # SN3700C in modern-100g
    avg, diameter, lat, worst = _networkx_hops_and_latency(plan, router_ns)
    assert perf["hops"]["average"] == pytest.approx(avg, abs=1e-6)
    assert perf["hops"]["diameter"] == diameter
    assert perf["latency_ns"]["average"] == pytest.approx(lat, abs=1e-3)
    assert perf["latency_ns"]["max"] == pytest.approx(worst, abs=1e-3)
    assert perf["latency_ns"]["method"].startswith("exact")


def test_sampled_latency_is_labelled_and_close(monkeypatch):
    plan = get_plan("slimfly-hot")
    exact = performance.latency(plan.topology, plan.cables, 300.0)
    monkeypatch.setattr(tuning, "ECMP_WORK_MAX", 20 * 350)       # 20 of 50 sources
    sampled = performance.latency(plan.topology, plan.cables, 300.0)
    assert sampled["method"].startswith("sampled: 20 of 50 source routers")
    assert sampled["average"] == pytest.approx(exact["average"], rel=0.03)
    assert sampled["max"] <= exact["max"]


def test_ring_bisection_is_exact_and_fat_tree_has_full_bisection():
    ring = parse_spec("torus:dims=8,p=1")
    arcs = throughput.Arcs.of(ring)
    block = performance.bisection(ring, arcs, performance.bisection_cut(ring), 100, 0.875)
    assert (block["links"], block["kind"]) == (2, "exact")       # a ring is cut twice
    tree = parse_spec("fattree:k=6")
    arcs = throughput.Arcs.of(tree)
    side = performance.bisection_cut(tree)
    block = performance.bisection(tree, arcs, side, 100, 1.0)
    assert block["links"] >= tree.num_endpoints // 2 == block["lower_bound_links"]
    assert block["tbps"] == pytest.approx(block["links"] * 0.1)


def test_large_plans_fall_back_to_a_labelled_bound(monkeypatch):
    plan = get_plan("slimfly-hot")
    exact = plan.summary["performance"]["uniform"]
    assert exact["kind"] == "exact" and exact["lp"]["solved"]
    monkeypatch.setattr(tuning, "LP_NONZEROS_MAX", 1000)
    monkeypatch.setattr(tuning, "ECMP_WORK_MAX", 1000)
    top = plan.topology
    arcs = throughput.Arcs.of(top)
    _, dsum = performance.endpoint_distance_sum(top)
    block = performance.uniform_throughput(top, arcs, performance.bisection_cut(top), dsum)
    assert block["kind"] == "upper bound" and not block["lp"]["solved"]
    assert "above the budget of 1,000" in block["method"]
    assert block["theta"] == min(block["bounds"].values()) >= exact["theta"] - 1e-6
    assert block["lower"] is None
    assert performance.theta_text(block).startswith("<= ")


def test_ecmp_meeting_the_path_bound_is_exact_without_the_lp(monkeypatch):
    top = parse_spec("slimfly:q=5")                    # ECMP = path-length bound = 0.9567
    monkeypatch.setattr(tuning, "LP_NONZEROS_MAX", 1000)
    arcs = throughput.Arcs.of(top)
    _, dsum = performance.endpoint_distance_sum(top)
    block = performance.uniform_throughput(top, arcs, performance.bisection_cut(top), dsum)
    assert block["kind"] == "exact" and "path length bound" in block["method"]
    assert block["theta"] == pytest.approx(0.956731, abs=1e-6)


@pytest.mark.parametrize("value", [-1, float("nan"), float("inf"), 2e5, "fast"])
def test_router_latency_that_makes_no_sense_is_an_input_error(value):
    with pytest.raises(InputError, match="--router-latency-ns"):
        performance.check_router_latency(value, "--router-latency-ns")


def test_catalog_router_latency_is_checked_and_named():
    plan = get_plan("slimfly-hot")
    model = plan.router_model.model_copy(update={"latency_ns": 5e6})
    with pytest.raises(InputError, match=r"field 'latency_ns'"):
        performance.router_latency(model, None)
    model = plan.router_model.model_copy(update={"latency_ns": None})
    ns, source = performance.router_latency(model, None)
    assert ns == performance.DEFAULT_ROUTER_LATENCY_NS and source.startswith("default")
