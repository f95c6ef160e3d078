"""θ, hops, the copper bound and link prices on topologies with parallel cables, each against a
computation written here: an LP of another formulation (OR-Tools GLOP), a breadth-first search,
an exhaustive search over placements, and the catalog's prices added up by hand.

Uniform θ (Jyothi et al., SC'16 §2): every endpoint sends 1/(N-1) of its port rate to every other
endpoint; each cable carries one unit per direction. By hand, two routers with 4 endpoints each
exchange 4 x 4 / 7 = 16/7 units per direction, so c parallel cables give θ = min(1, 7c/16).
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
import yaml
from ortools.linear_solver import pywraplp

from planner.inputs.catalog import Catalog
from planner.inputs.floor import Floor, room_of
from planner.performance import throughput as thr
from planner.placement.copper_bounds import degree_reach_bound
from planner.placement.graph import Graph
from planner.placement.objective import cabinet_prices
from planner.plan import plan
from planner.topologies.base import Topology
from rich_plan import CATALOG, FLOOR, rich_plan


# ----------------------------------------------------------------------------- θ

def theta_by_destination(top: Topology) -> float:
    """Max concurrent flow θ of uniform traffic, one commodity per destination router (the
    planner aggregates by source), solved with GLOP."""
    e = np.asarray(top.endpoints, dtype=float)
    n = e.sum()
    arcs = []
    for (u, v), m in zip(top.links.tolist(), top.multiplicity.tolist()):
        arcs += [(u, v, float(m)), (v, u, float(m))]
    solver = pywraplp.Solver.CreateSolver("GLOP")
    theta = solver.NumVar(0.0, 1.0, "theta")
    flows = {}
    for t in range(top.num_routers):
        if e[t] == 0:
            continue
        f = [solver.NumVar(0.0, solver.infinity(), f"f{t}_{i}") for i in range(len(arcs))]
        flows[t] = f
        for v in range(top.num_routers):
            if v == t:
                continue
            out = sum(f[i] for i, a in enumerate(arcs) if a[0] == v)
            inn = sum(f[i] for i, a in enumerate(arcs) if a[1] == v)
            solver.Add(out - inn == theta * (e[v] * e[t] / (n - 1)))
    for i, (_, _, cap) in enumerate(arcs):
        solver.Add(sum(f[i] for f in flows.values()) <= cap)
    solver.Maximize(theta)
    assert solver.Solve() == pywraplp.Solver.OPTIMAL
    return theta.solution_value()


TWO_ROUTERS = [(1, 7 / 16), (2, 7 / 8), (3, 1.0)]


@pytest.mark.parametrize("cables,want", TWO_ROUTERS)
def test_theta_of_two_routers_counts_every_parallel_cable(cables, want):
    top = Topology.from_edges("test", {}, 2, [(0, 1)] * cables, 4)
    assert thr.exact_theta(thr.Arcs.of(top), thr.uniform_demand(top.endpoints)) == \
        pytest.approx(want, abs=1e-6)
    assert theta_by_destination(top) == pytest.approx(want, abs=1e-6)


def test_rich_plan_theta_is_the_independent_lp_and_below_one():
    """The rich ring (2 and 3 parallel cables per ring link): summary θ, exact, equals the LP
    by destination, lies below 1 and within the bounds the summary lists."""
    p = rich_plan()
    uniform = p.summary["performance"]["uniform"]
    want = theta_by_destination(p.topology)
    assert want < 0.9
    assert uniform["kind"] == "exact"
    assert uniform["theta"] == pytest.approx(want, abs=2e-6)
    assert uniform["ecmp_minimal"] <= uniform["theta"] + 1e-6
    for name, bound in uniform["bounds"].items():
        if bound is not None:
            assert uniform["theta"] <= bound + 1e-6, name
    # one cable per ring link instead of 2 or 3 gives a lower θ: the parallel cables count
    single = Topology.from_edges("test", {}, p.topology.num_routers, p.topology.links.tolist(),
                                 p.topology.endpoints)
    assert theta_by_destination(single) < want - 0.05


def test_rich_plan_hops_are_breadth_first_distances():
    """Average hops over ordered pairs of distinct endpoints (0 on one router) and the diameter,
    from a breadth-first search of the router multigraph."""
    p = rich_plan()
    g = nx.MultiGraph()
    g.add_nodes_from(range(p.topology.num_routers))
    for (u, v), m in zip(p.topology.links.tolist(), p.topology.multiplicity.tolist()):
        g.add_edges_from([(u, v)] * m)
    dist = dict(nx.all_pairs_shortest_path_length(g))
    e = np.asarray(p.topology.endpoints, dtype=float)
    n = e.sum()
    total = sum(e[s] * e[t] * d for s, row in dist.items() for t, d in row.items())
    hops = p.summary["performance"]["hops"]
    assert hops["average"] == pytest.approx(total / (n * (n - 1)), abs=1e-6)
    assert hops["diameter"] == max(max(row.values()) for row in dist.values())
    assert p.summary["topology"]["links"] == int(p.topology.multiplicity.sum())


# ----------------------------------------------------------------------------- copper bound

COPPER_REACH_M = 3.0        # catalog.yaml's DAC
PITCH, CROSS_TRAY_EVERY, RISE, OVERHEAD, SLACK = 0.6, 2, 0.5, 0.3, 1.1


def rich_catalog() -> Catalog:
    """The rich catalog: its 3 m copper reaches, on the rows of one_router_floor(), the next
    cabinet only."""
    return Catalog.model_validate(yaml.safe_load(CATALOG.read_text()))


def one_router_floor() -> Floor:
    """One hall of 2 rows x 4 cabinets, one router per cabinet. The patch-rack gap at the
    cross tray after every 2 cabinets puts column c at x = (c + c // 2) x 0.6 (0, 0.6, 1.8,
    2.4 m): a link between neighbours of a row is (0.6 + 2 x 0.5 + 0.3) x 1.1 = 2.09 m, across
    the gap (1.2 + 1.3) x 1.1 = 2.75 m (both copper), two apart at least (1.8 + 1.3) x 1.1 =
    3.41 m and across rows at least (2.4 + 1.3) x 1.1 = 4.07 m (optical)."""
    data = yaml.safe_load(FLOOR.read_text())
    data.update(router_slots=1, hall=dict(data["hall"], count=1))
    return Floor(**data)


def copper_pairs() -> np.ndarray:
    """Which of the 8 cabinets (row-major) copper joins: same row, routed length (docs/floors.md:
    |dx| + 2 x 0.5 up/down + 0.3, plus 10 % slack) within the copper's reach."""
    slots = [(r, c) for r in range(2) for c in range(4)]
    x = {c: PITCH * (c + c // CROSS_TRAY_EVERY) for c in range(4)}
    return np.array([[a != b and a[0] == b[0]
                      and (abs(x[a[1]] - x[b[1]]) + 2 * RISE + OVERHEAD) * SLACK
                      <= COPPER_REACH_M + 1e-9 for b in slots] for a in slots])


def most_copper(top: Topology) -> int:
    """Most copper cables over every placement of the routers in the 8 cabinets (exhaustive)."""
    copper = copper_pairs()
    links, mult = top.links, top.multiplicity
    best = 0
    for perm in itertools.permutations(range(8), top.num_routers):
        at = np.asarray(perm)
        best = max(best, int(mult[copper[at[links[:, 0]], at[links[:, 1]]]].sum()))
    return best


RING = [(i, (i + 1) % 8) for i in range(8)]
COPPER_RINGS = [
    # every ring link 3 cables: degree 6 never binds, 3 parallel x reach does
    ("3 cables a link", RING * 3, 3, 6, 18),
    # links of 3 and 1 cables in turn: degree 4 binds the inner cabinets (3 x 2 = 6 > 4)
    ("3 and 1 in turn", RING + RING[::2] * 2, 3, 4, 14),
]


@pytest.mark.parametrize("name,edges,mu,degree,want", COPPER_RINGS,
                         ids=[c[0] for c in COPPER_RINGS])
def test_copper_bound_holds_and_is_reached_with_parallel_cables(name, edges, mu, degree, want):
    """A ring of 8 routers with parallel cables in 8 cabinets where copper reaches only the row
    neighbour (the 4 row-end cabinets one, the 4 inner ones two). With 3 cables a link at most
    6 of the 8 links (18 of 24 cables) can be copper (exhaustive search), and the
    degree-and-reach bound is exactly that: sum(min(degree 6, 3 parallel x reach)) / 2 =
    (4 x 3 + 4 x 6) / 2 = 18, which a bound that ignored parallel cables (1 x reach) would put
    at 6. With links of 3 and 1 cables in turn (degree 4) the best is 14, two paths of 3, 1, 3
    cables, and so is the bound (4 x 3 + 4 x 4) / 2, which a bound without the degree would put
    at 18. The plan's copper is at most the bound and equal to its electrical network cables."""
    reach = copper_pairs().sum(axis=1)
    assert sorted(reach.tolist()) == [1, 1, 1, 1, 2, 2, 2, 2]
    top = Topology.from_edges("ring", {}, 8, edges, 2)
    assert int(top.multiplicity.max()) == mu
    best = most_copper(top)
    assert best == want == sum(min(degree, mu * int(k)) for k in reach) // 2
    assert degree_reach_bound(Graph.from_topology(top), reach) == want
    p = plan(top, rich_catalog(), one_router_floor(), strategy="optimize",
             time_limit_s=5, seed=0)
    place = p.summary["placement"]
    net = p.cables[p.cables["kind"] == "network"]
    assert place["copper"] == int((net["media"] == "electrical").sum())
    assert place["copper_upper_bound"] == best
    assert place["copper"] <= place["copper_upper_bound"]
    assert place["cable_cost"] == pytest.approx(float(net["unit_price"].sum()), abs=0.01)
    assert place["cable_cost_lower_bound"] <= place["cable_cost"] + 1e-6


def test_rich_plan_copper_count_and_bound():
    p = rich_plan()
    place = p.summary["placement"]
    net = p.cables[p.cables["kind"] == "network"]
    assert place["copper"] == int((net["media"] == "electrical").sum())
    assert place["copper"] <= place["copper_upper_bound"] <= len(net)
    assert place["cable_cost"] == pytest.approx(float(net["unit_price"].sum()), abs=0.01)


# ----------------------------------------------------------------------------- prices

def structured_price(cords, trunks) -> float:
    """A link through panels priced from catalog.yaml by hand: two SR modules at 300, each cord
    20 + 1 per ordered metre, each trunk piece (200 + 4 per ordered metre) shared by its 4
    links, and each panel passed 240 / 8 adapters."""
    panels = 4 if len(trunks) == 3 else 2
    return (2 * 300 + sum(20 + c for c in cords) + sum((200 + 4 * t) / 4 for t in trunks)
            + panels * 240 / 8)


def ordered_pieces(segments: str):
    cords = [float(p.split()[-1].split("-")[-1][:-1]) for p in segments.split(" | ")
             if p.startswith("cord ")]
    trunks = [float(p.split()[-1].split("-")[-1][:-1]) for p in segments.split(" | ")
              if p.startswith("trunk ")]
    return cords, trunks


@pytest.mark.parametrize("kind", ["cross-hall", "cross-row"])
def test_placement_price_of_a_structured_link_equals_the_bill(kind):
    """For every link of the kind in the rich plan: the price placement reads from its table
    (``objective.cabinet_prices`` for the two cabinet positions and the link's parallel
    cables) equals what the cabling stage charges (``unit_price``) and the catalog prices of
    the parts its segments order, added up by hand."""
    p = rich_plan()
    place = p.placement
    room = room_of(p.floor, place.cabinet_hall, place.cabinet_row, place.cabinet_col)
    mult = np.asarray(p.topology.multiplicity)
    prices = cabinet_prices(p.floor, p.catalog, p.router_model, room,
                            int(place.cabinet_hall.max()) + 1, mult)
    local = prices.local(place.cabinet_row, place.cabinet_col)
    hall = np.asarray(place.cabinet_hall)
    pair_mult = {tuple(l): m for l, m in zip(p.topology.links.tolist(), mult.tolist())}
    rows = p.cables[p.cables["route_kind"] == kind]
    assert len(rows) >= 8
    for row in rows.itertuples(index=False):
        a, b = int(place.router_cabinet[row.a_router]), int(place.router_cabinet[row.b_router])
        m = pair_mult[(row.a_router, row.b_router)]
        table = float(prices.link_prices(np.array([m]), hall[a], local[a], hall[b],
                                         local[b])[0])
        by_hand = structured_price(*ordered_pieces(row.segments))
        assert row.unit_price == pytest.approx(by_hand, abs=1e-6), row.cable_id
        assert table == pytest.approx(by_hand, abs=1e-6), row.cable_id


@pytest.mark.parametrize("cables,assemblies", [(1, 1), (2, 1), (3, 2), (4, 2)])
def test_parallel_cables_share_twin_port_assemblies_in_the_bill(cables, assemblies):
    """eth-51t's switch-to-switch copper is a twin-port assembly (2 links, one peer switch):
    two switches in one cabinet joined by ``cables`` parallel cables pay for ceil(cables / 2)
    assemblies, in the cables' prices as in the BOM's count."""
    top = Topology.from_edges("pair", {}, 2, [(0, 1)] * cables, 1)
    p = plan(top, "eth-51t", "hot-aisle", strategy="hint", time_limit_s=5, seed=0)
    net = p.cables[p.cables["kind"] == "network"]
    assert net["a_cabinet"].nunique() == 1 and (net["media"] == "electrical").all()
    model = p.catalog.cables[int(net["part"].iloc[0])]
    assert model.links == 2
    price = float(model.price(float(net["order_length_m"].iloc[0])))
    assert float(net["unit_price"].sum()) == pytest.approx(assemblies * price)
    line = p.bom[p.bom["sku"] == net["sku"].iloc[0]]
    assert int(line["quantity"].sum()) == assemblies
