"""Placement: known optima, bounds, capacities, determinism, the full CP-SAT check, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from planner.inputs.floor import Floor, group_capacity, load_floor
from planner.placement import place
from planner.placement.anneal import anneal
from planner.run.errors import InputError
from planner.placement.bounds import (COLUMN_BATCH, complete_bipartite_blocks, composition_bound, density_bound,
                                      feasible_compositions, group_link_caps, lower_bound,
                                      most_kept_links, router_classes)
from planner.placement.capacity import Limits
from planner.placement.cpsat import full_model_check, qap_polish
from planner.placement.floor_assign import assign_slots, qap_cost, slot_costs, slot_grid
from planner.placement.graph import Graph
from planner.placement.local_search import local_search
from planner.placement.partition import KaMinParRunner, metis_partition, repair, sequential
from planner.topologies.base import Topology
from planner.topologies.dragonfly import dragonfly
from planner.topologies.fattree import fattree
from planner.topologies.hyperx import hyperx
from planner.topologies.jellyfish import jellyfish
from planner.topologies.mlfm import mlfm
from planner.topologies.oft import oft
from planner.topologies.slimfly import slimfly


def make_floor(**kw) -> Floor:
    base = dict(name="test", cabinet_width_m=0.6, cabinet_depth_m=1.2, cabinet_height_ru=42,
                pitch_m=0.6, aisle_m=1.2, router_slots=8, group_cabinets=1, intra_cabinet_m=1.0,
                overhead_per_cable_m=2.0, media_rule="membership", abstract=True)
    base.update(kw)
    return Floor(**base)


def strip_hint(top: Topology) -> Topology:
    return Topology.from_edges(top.family, top.params, top.num_routers,
                               np.repeat(top.links, top.multiplicity, axis=0), top.endpoints)


def check_capacity(top: Topology, floor: Floor, pl) -> None:
    n_cab = pl.num_cabinets
    routers = np.bincount(pl.router_cabinet, minlength=n_cab)
    eps = np.bincount(pl.router_cabinet, weights=top.endpoints, minlength=n_cab)
    assert routers.max() <= floor.router_slots
    if floor.endpoint_slots is not None:
        assert eps.max() <= floor.endpoint_slots
    if floor.group_cabinets is not None:
        assert np.bincount(pl.cabinet_group).max() <= floor.group_cabinets
        # a group's cabinets sit side by side in one row
        for g in range(pl.num_groups):
            cabs = np.flatnonzero(pl.cabinet_group == g)
            assert len(set(pl.cabinet_row[cabs])) == 1
            assert np.ptp(pl.cabinet_col[cabs]) == len(cabs) - 1
    # every cabinet position is distinct and names follow row letter + column
    assert len({(r, c) for r, c in zip(pl.cabinet_row, pl.cabinet_col)}) == n_cab
    assert pl.cabinet_names[0] == "A01"


def optical_of(top: Topology, pl) -> int:
    g = pl.router_group
    return int(top.multiplicity[g[top.links[:, 0]] != g[top.links[:, 1]]].sum())


@pytest.mark.parametrize("strategy", ["hint", "partition", "optimize"])
def test_slimfly_q5_petersen_split(strategy):
    """MMS q=5 (Hoffman–Singleton) into 5 groups of 10: Petersen graphs, 75 internal links."""
    top = slimfly(q=5, p=3)
    pl = place(top, make_floor(router_slots=10), strategy=strategy, time_limit_s=30)
    assert top.num_links == 175
    assert pl.optical == optical_of(top, pl) == 100
    assert pl.lower_bound == 100
    assert pl.num_groups == 5


def test_slimfly_q5_without_hint_partitioners_reach_optimum():
    top = strip_hint(slimfly(q=5, p=3))
    pl = place(top, make_floor(router_slots=10), strategy="optimize", time_limit_s=30)
    assert pl.optical == 100 and pl.gap == 0.0


@pytest.mark.parametrize("q", [5, 7])
def test_annealing_escapes_local_optima_to_the_rack_optimum(q):
    """From a random balanced grouping of MMS(q) into q groups of 2q, the greedy search stalls
    above the optimum q^2(q-1) (= the spectral (Fiedler) bound ½·λ₂·Σ s_i(n−s_i)/n with λ₂ = q;
    docs/placement.md "How a layout is found"); annealing reaches it."""
    g = Graph.from_topology(strip_hint(slimfly(q=q, p=1)))
    cap = 2 * q
    limits = Limits.single(np.ones(g.n, dtype=np.int64), cap)
    start = np.random.default_rng(0).permutation(np.arange(g.n) % q)
    greedy = local_search(g, start, limits, q)
    annealed = anneal(g, start, limits, q, steps=2_000_000, seed=0)
    assert g.cut(greedy) > q * q * (q - 1)
    assert g.cut(annealed) == q * q * (q - 1)
    assert np.bincount(annealed, minlength=q).max() <= cap
    assert np.array_equal(annealed, anneal(g, start, limits, q, steps=2_000_000, seed=0))


def test_annealing_keeps_weighted_capacity_and_never_gets_worse():
    top = jellyfish(routers=60, degree=6, p=2, seed=3)
    g = Graph.from_topology(top)
    weights = np.random.default_rng(1).integers(1, 4, g.n)
    cap = 24
    start = np.zeros(g.n, dtype=np.int64)
    load, block = 0, 0
    for v in range(g.n):  # sequential first fit: a feasible, poor start
        if load + weights[v] > cap:
            block, load = block + 1, 0
        start[v], load = block, load + weights[v]
    k = int(start.max()) + 1
    annealed = anneal(g, start, Limits.single(weights, cap), k, steps=500_000, seed=2)
    assert np.bincount(annealed, weights=weights, minlength=k).max() <= cap
    assert g.cut(annealed) < g.cut(start)


@pytest.mark.parametrize("q,t", [(5, 1), (13, 1), (13, 13)])
def test_slimfly_racks_meet_spectral_bound(q, t):
    """Groups of t whole racks (2q routers each): optical = q^2 (q - t) = lower bound."""
    top = slimfly(q=q)
    floor = make_floor(router_slots=2 * q * t)
    pl = place(top, floor, strategy="hint", time_limit_s=30)
    assert pl.optical == q * q * (q - t)
    if t < q:
        assert pl.lower_bound == q * q * (q - t)
        assert pl.lower_bound_kind in ("Fiedler", "Donath-Hoffman")


def test_hyperx_rows_are_optimal_groups():
    """2D HyperX 6x6: a row is a K6; groups of 6 routers: 6 columns x C(6,2) = 90 optical."""
    top = strip_hint(hyperx(S=[6, 6], p=2))
    pl = place(top, make_floor(router_slots=6), time_limit_s=30)
    assert pl.optical == 90 == pl.lower_bound
    assert pl.lower_bound_kind.startswith("density")
    rows = pl.router_group.reshape(6, 6)
    assert all(len(set(r)) == 1 for r in rows) or all(len(set(c)) == 1 for c in rows.T)


@pytest.mark.parametrize("per_group", [1, 2, 3])
def test_balanced_dragonfly_at_density_bound(per_group):
    """a=8, h=4, g=33: EG of t whole DF groups; optical = C(33,2) - sum over EGs C(t_i, 2)."""
    top = dragonfly(a=8, h=4, p=4)
    pl = place(top, make_floor(router_slots=8 * per_group), time_limit_s=30)
    full, rest = divmod(33, per_group)
    expected = 33 * 32 // 2 - full * per_group * (per_group - 1) // 2 - rest * (rest - 1) // 2
    assert pl.optical == pl.lower_bound == expected
    assert pl.lower_bound_kind == "density (clique groups)"


@pytest.mark.parametrize("t,expected", [(1, 8256), (2, 8192), (3, 8127)])
def test_dragonfly_density_bound_values(t, expected):
    """Density bound of the balanced Dragonfly a=16, h=8 with groups of S = 16t routers:
    M(ta) = t·C(a,2) + C(t,2), cut = ½Σ(s·d − 2M(s)) (docs/placement.md "How a layout is
    found")."""
    top = dragonfly(a=16, h=8, p=8)
    value, kind = density_bound(Graph.from_topology(top), 16 * t, top.groups)
    assert (value, kind) == (expected, "density (clique groups)")


FLOORS = [
    dict(router_slots=4, group_cabinets=2),
    dict(router_slots=5, endpoint_slots=12, group_cabinets=3),
    dict(router_slots=6, group_cabinets=None, group_endpoints=20),
]


@pytest.mark.parametrize("floor_kw", FLOORS)
@pytest.mark.parametrize("top", [jellyfish(routers=40, degree=5, p=3, seed=1), fattree(k=6)],
                         ids=["jellyfish", "fattree"])
def test_capacity_bound_and_full_model(top, floor_kw):
    floor = make_floor(**floor_kw)
    pl = place(top, floor, time_limit_s=30, seed=3)
    check_capacity(top, floor, pl)
    assert pl.optical == optical_of(top, pl)
    assert 0 <= pl.lower_bound <= pl.optical
    assert pl.optical <= min(v for k, v in pl.candidates.items())
    caps = {"sequential", "hint"} & set(pl.candidates)
    assert all(pl.optical <= pl.candidates[c] for c in caps)
    _, group_eps, group_routers = group_capacity(floor, top.endpoints)
    status, value = full_model_check(
        Graph.from_topology(top), pl.router_cabinet, pl.cabinet_group,
        cabinet_routers=floor.router_slots, cabinet_endpoints=floor.endpoint_slots,
        group_routers=group_routers, group_endpoints=group_eps)
    assert status in ("OPTIMAL", "FEASIBLE") and value == pl.optical
    assert set(pl.stage_seconds) >= {"bounds", "hint", "cabinets", "floor", "verify"}


def test_same_seed_same_placement():
    top = jellyfish(routers=60, degree=6, p=2, seed=4)
    floor = make_floor(router_slots=5, group_cabinets=2)
    a = place(top, floor, seed=7, time_limit_s=30)
    b = place(top, floor, seed=7, time_limit_s=30)
    assert np.array_equal(a.router_cabinet, b.router_cabinet)
    assert np.array_equal(a.cabinet_row, b.cabinet_row) and np.array_equal(a.cabinet_col, b.cabinet_col)
    assert a.candidates == b.candidates and a.method == b.method


@pytest.mark.parametrize("s_max", [3, 5, 8, 13])
def test_dragonfly_groups_larger_than_electrical_groups(s_max):
    """a = 8 routers per Dragonfly group, electrical groups of fewer routers: the clique-group
    bound still holds (and is computed) when whole Dragonfly groups do not fit."""
    top = dragonfly(a=8, p=4, h=4)
    pl = place(top, make_floor(router_slots=s_max), strategy="partition", time_limit_s=30)
    g = Graph.from_topology(top)
    lb, _ = lower_bound(g, Limits.single(np.ones(g.n), s_max), top.groups)
    assert 0 < lb == pl.lower_bound <= pl.optical


@pytest.mark.parametrize("q,s_max", [(5, 10), (5, 7), (13, 16)])
def test_lower_bound_never_above_achieved(q, s_max):
    top = slimfly(q=q)
    pl = place(top, make_floor(router_slots=s_max), strategy="partition", time_limit_s=30)
    g = Graph.from_topology(top)
    lb, _ = lower_bound(g, Limits.single(np.ones(g.n), s_max), top.groups)
    assert lb == pl.lower_bound <= pl.optical


def test_floor_qap_never_worse_than_row_major():
    """Fat-tree-like bipartite flows: pods talk only to core groups (the floor assignment,
    docs/placement.md "How a layout is found" step 5)."""
    k = 12
    flows = np.zeros((k, k), dtype=np.int64)
    flows[:8, 8:] = 16
    flows[8:, :8] = 16
    floor = make_floor(router_slots=4, group_cabinets=1)
    rows, cols = slot_grid(floor, k, 1)
    dist = slot_costs(floor, None, rows, cols, 1)
    perm = assign_slots(flows, dist, rows, cols)
    assert sorted(perm.tolist()) == list(range(k))
    assert qap_cost(flows, dist, perm) < qap_cost(flows, dist, np.arange(k))


def test_many_groups_land_near_their_grid_layout():
    """450 groups whose flows form the slot grid itself (neighbours only), labels shuffled: above
    MANY_GROUPS the sorted spectral mapping + 2-opt must get close to the grid optimum."""
    k = 450
    floor = make_floor()
    rows, cols = slot_grid(floor, k, 1)
    near = np.abs(rows[:, None] - rows[None, :]) + np.abs(cols[:, None] - cols[None, :]) == 1
    optimum = np.random.default_rng(0).permutation(k)  # group a sits at slot optimum[a]
    flows = (3 * near.astype(np.int64))[np.ix_(optimum, optimum)]
    dist = slot_costs(floor, None, rows, cols, 1)
    perm = assign_slots(flows, dist, rows, cols)
    assert sorted(perm.tolist()) == list(range(k))
    best = qap_cost(flows, dist, optimum)
    assert qap_cost(flows, dist, perm) <= 1.5 * best
    assert qap_cost(flows, dist, perm) <= 0.3 * qap_cost(flows, dist, np.arange(k))


@pytest.mark.parametrize("top", [jellyfish(routers=60, degree=5, p=2, seed=1),
                                 dragonfly(a=4, p=2, h=4, g=3)], ids=["jellyfish", "trunked-dragonfly"])
def test_parts_are_the_induced_subgraphs(top):
    g = Graph.from_topology(top)
    part = np.random.default_rng(0).integers(0, 7, g.n)
    for i, (members, sub) in enumerate(g.parts(part)):
        ref = g.subgraph(np.flatnonzero(part == i))
        assert np.array_equal(members, np.flatnonzero(part == i)) and sub.n == ref.n
        assert np.array_equal(sub.links, ref.links) and np.array_equal(sub.weights, ref.weights)
        assert np.array_equal(sub.endpoints, ref.endpoints)


def test_cpsat_floor_polish_finds_the_optimum_of_a_small_qap():
    """A chain of 6 groups (flows only between neighbours) on a 1 x 6 row: the optimum lays the
    chain out in order, cost 5 x one-pitch price; the polish reaches it from a scrambled start."""
    k = 6
    flows = np.zeros((k, k), dtype=np.int64)
    for a in range(k - 1):
        flows[a, a + 1] = flows[a + 1, a] = 4
    floor = make_floor(cabinets_per_row=k)
    rows, cols = slot_grid(floor, k, 1)
    dist = slot_costs(floor, None, rows, cols, 1)
    start = np.array([0, 3, 1, 5, 2, 4])
    polished = qap_polish(flows, dist, start)
    assert sorted(polished.tolist()) == list(range(k))
    assert qap_cost(flows, dist, polished) == pytest.approx(5 * 4 * dist[0, 1])
    assert qap_polish(flows, dist, polished) is None  # nothing strictly better than the optimum


def test_pn500_paper_floor_one_cabinet_per_group():
    top = slimfly(q=5, p=3)
    pl = place(top, load_floor("pn-500"), group_endpoints=30, time_limit_s=30)
    assert pl.num_cabinets == pl.num_groups == 5 and pl.optical == 100


@pytest.mark.parametrize("kwargs,floor_kw,match", [
    (dict(time_limit_s=0), {}, "time-limit"),
    (dict(time_limit_s=-1), {}, "time-limit"),
    (dict(strategy="magic"), {}, "strategy"),
    (dict(group_endpoints=2), {}, "group-endpoints 2 is below one router's 3"),
    ({}, dict(endpoint_slots=2), "endpoint"),
    ({}, dict(router_slots=2, max_cabinets=3), "max_cabinets"),
])
def test_bad_input(kwargs, floor_kw, match):
    top = slimfly(q=5, p=3)
    with pytest.raises(InputError, match=match) as err:
        place(top, make_floor(**floor_kw), **kwargs)
    assert "\n" not in str(err.value)


# ----------------------------------------------------------------- issue 16: separate capacities

def test_separate_limits_need_fewer_groups_than_one_folded_weight():
    """MLFM h=5: 30 leaves of 5 endpoints, 15 spines without. Groups of one cabinet with 9 router
    slots and 25 endpoint slots hold at most 5 leaves, so 6 groups suffice by both counts
    (45/9 = 5, 150/25 = 6); one folded weight max(25, 9 e) per router against 9 x 25 would need
    ceil((30 x 45 + 15 x 25) / 225) = 8. Every group and cabinet keeps both limits."""
    top = mlfm(h=5)
    floor = make_floor(router_slots=9, endpoint_slots=25, group_cabinets=1)
    limits = Limits.of({"routers": (1, 9), "endpoints": (top.endpoints, 25)}, top.num_routers)
    assert limits.min_blocks() == 6
    pl = place(top, floor, time_limit_s=2, seed=1)
    check_capacity(top, floor, pl)
    assert 6 <= pl.num_groups <= 7
    groups = pl.router_group
    assert np.bincount(groups).max() <= 9
    assert np.bincount(groups, weights=top.endpoints).max() <= 25
    assert pl.optical == optical_of(top, pl) == min(pl.candidates.values())


def test_repair_keeps_every_limit():
    """A partition that breaks the endpoint limit (all leaves in block 0) is repaired to one in
    which every block holds <= 4 routers and <= 6 endpoints."""
    g = Graph.from_topology(mlfm(h=3, p=2))          # 12 leaves of 2 endpoints, 6 spines
    limits = Limits.of({"routers": (1, 4), "endpoints": (g.endpoints, 6)}, g.n)
    start = np.where(g.endpoints > 0, 0, 1 + np.arange(g.n) % 5)
    fixed = repair(g, start, limits)
    assert limits.fits(fixed)
    assert np.bincount(fixed, weights=g.endpoints).max() <= 6 and np.bincount(fixed).max() <= 4


def test_annealing_and_local_search_keep_two_limits():
    g = Graph.from_topology(mlfm(h=4))                # 20 leaves of 4 endpoints, 10 spines
    limits = Limits.of({"routers": (1, 6), "endpoints": (g.endpoints, 12)}, g.n)
    start = sequential(limits)
    k = int(start.max()) + 1
    for part in (local_search(g, start, limits, k), anneal(g, start, limits, k, steps=300_000, seed=1)):
        assert limits.fits(part, k) and g.cut(part) <= g.cut(start)
        assert np.bincount(part, weights=g.endpoints, minlength=k).max() <= 12


# ----------------------------------------------------------------- issue 16: composition bound

def test_composition_bound_is_tight_on_an_unbalanced_complete_bipartite_graph():
    """K_{4,8} in groups of 6 routers. A group with x of the 4 and y of the 8 keeps x y links;
    the best grouping is two groups of (2, 4): 32 - 2 x 8 = 16 optical. The spectral bounds give
    12 (Laplacian eigenvalues 0, 4 x7, 8 x3, 12: Donath-Hoffman 1/2 (6 x 0 + 6 x 4)) and the
    density bound 32 - 2 x 15 = 2; the composition LP gives 16."""
    edges = [(a, 4 + b) for a in range(4) for b in range(8)]
    top = Topology.from_edges("import", {}, 12, edges, 1)
    g = Graph.from_topology(top)
    limits = Limits.single(np.ones(12, dtype=np.int64), 6)
    assert composition_bound(g, limits) == pytest.approx(16, abs=1e-3)
    assert lower_bound(g, limits) == (16, "composition LP")
    pl = place(top, make_floor(router_slots=6), time_limit_s=2)
    assert pl.optical == pl.lower_bound == 16


@pytest.mark.parametrize("top,router_slots,endpoint_slots", [
    (mlfm(h=4), 8, 20), (mlfm(h=5, p=3), 10, None), (fattree(k=4), 4, None),
], ids=["mlfm4", "mlfm5", "fattree4"])
def test_composition_bound_never_above_an_achieved_grouping(top, router_slots, endpoint_slots):
    """Small indirect networks (leaves with endpoints, spines without) under both limits: the
    composition bound applies (two or three classes) and no grouping the planner finds beats it."""
    floor = make_floor(router_slots=router_slots, endpoint_slots=endpoint_slots)
    g = Graph.from_topology(top)
    limits = Limits.of({"routers": (1, router_slots), "endpoints": (g.endpoints, endpoint_slots)}, g.n)
    bound = composition_bound(g, limits)
    pl = place(top, floor, time_limit_s=2)
    assert bound is not None and bound <= pl.optical


def _most_links_by_class_counts(g: Graph, cls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Brute force over all 2^n router sets: (every class-count vector, the most links inside
    any set with those counts), the zero vector left out."""
    masks = np.arange(1 << g.n, dtype=np.int64)
    inside = np.zeros(len(masks), dtype=np.int64)
    for (u, v), w in zip(g.links.tolist(), g.weights.tolist()):
        inside += w * ((masks >> u) & (masks >> v) & 1)
    shape = [int(x) + 1 for x in np.bincount(cls)]
    counts = [sum((masks >> v) & 1 for v in np.flatnonzero(cls == c)) for c in range(len(shape))]
    best = np.full(int(np.prod(shape)), -1, dtype=np.int64)
    np.maximum.at(best, np.ravel_multi_index(counts, shape), inside)
    comps = np.stack(np.unravel_index(np.arange(len(best)), shape), axis=1)
    return comps[1:], best[1:]


def test_fat_tree_link_caps_equal_the_brute_force_maximum():
    """Fat tree k=4 (4 pods of 2 edges + 2 aggregations, 4 cores): for every count of cores,
    edges and aggregations, the most links inside any router set with those counts, by
    enumerating all 2^20 sets, equals the composition LP's cap M(c) (pods and core index groups
    as complete bipartite blocks, the aggregation routers shared by both; without them the caps
    were above the maximum for 43 of the vectors a group with 7 endpoints can hold)."""
    g = Graph.from_topology(fattree(k=4))
    limits = Limits.of({"routers": (1, 20), "endpoints": (g.endpoints, 7)}, g.n)
    cls, _ = router_classes(g, limits)
    members = [np.flatnonzero(cls == c) for c in range(3)]
    edges, aggs, cores = (next(c for c in range(3) if (g.endpoints[members[c]] > 0).all()),
                          *sorted((c for c in range(3) if (g.endpoints[members[c]] == 0).all()),
                                  key=lambda c: -len(members[c])))
    pods = complete_bipartite_blocks(g, members[aggs], members[edges])
    index_groups = complete_bipartite_blocks(g, members[aggs], members[cores])
    assert (pods.count, pods.a, pods.b) == (4, 2, 2)
    assert (index_groups.count, index_groups.a, index_groups.b) == (2, 4, 2)
    comps, most = _most_links_by_class_counts(g, cls)
    assert np.array_equal(group_link_caps(g, cls, comps), most)


def test_fat_tree_composition_bound_meets_the_pod_grouping():
    """Fat tree k=20 in groups of 100 routers and 400 endpoints (40 of the 200 edges): groups
    of 4 whole pods and the 20 cores of 2 index groups keep 4 x 100 edge links and
    4 x 2 x 10 core links each, 5 x 480 of 4,000 links: 1,600 optical. The composition LP
    proves no grouping does better (the spectral bound said 764)."""
    top = fattree(k=20)
    g = Graph.from_topology(top)
    limits = Limits.of({"routers": (1, 100), "endpoints": (g.endpoints, 400)}, g.n)
    pods_then_cores = np.where(top.groups < 20, top.groups // 4, (top.groups - 20) // 2)
    assert limits.fits(pods_then_cores) and g.cut(pods_then_cores) == 1600
    assert composition_bound(g, limits) == pytest.approx(1600, abs=1e-3)
    assert lower_bound(g, limits) == (1600, "composition LP")
    # its 139K count vectors are sized against the bounds' share of the limit, not timed
    assert composition_bound(g, limits, seconds=0.01) is None


@pytest.mark.parametrize("router_slots,endpoint_slots", [(10, 8), (10, None), (11, 9)])
def test_fat_tree_bound_never_above_the_exact_bisection(router_slots, endpoint_slots):
    """Fat tree k=4 in two groups: the optimum over every split (enumerated) is never below
    the lower bound."""
    g = Graph.from_topology(fattree(k=4))
    limits = Limits.of({"routers": (1, router_slots), "endpoints": (g.endpoints, endpoint_slots)}, g.n)
    masks = np.arange(1 << (g.n - 1), dtype=np.int64) << 1  # router 0 always in the other group
    side = (masks[:, None] >> np.arange(g.n)) & 1
    fits = np.ones(len(masks), dtype=bool)
    for col, cap in zip(limits.demand.T, limits.limit):
        load = side @ col
        fits &= (load <= cap) & (col.sum() - load <= cap)
    cut = (side[:, g.links[:, 0]] != side[:, g.links[:, 1]]) @ g.weights
    optimum = int(cut[fits].min())
    lb, _ = lower_bound(g, limits)
    assert composition_bound(g, limits) <= optimum and lb <= optimum


def test_column_generation_matches_the_full_lp():
    """The composition LP by column generation equals HiGHS on every column, and its
    certificate (duals plus the largest reduced profit per router) is never below it."""
    from scipy.optimize import linprog

    g = Graph.from_topology(fattree(k=8))
    limits = Limits.of({"routers": (1, 40), "endpoints": (g.endpoints, 60)}, g.n)
    cls, demand = router_classes(g, limits)
    sizes = np.bincount(cls)
    comps = feasible_compositions(sizes, demand, limits.limit, limits.max_count())
    assert len(comps) > 4 * COLUMN_BATCH  # several rounds of columns
    kept = group_link_caps(g, cls, comps)
    full = linprog(-kept, A_eq=comps.T.astype(float), b_eq=sizes.astype(float), bounds=(0, None),
                   method="highs")
    value = most_kept_links(comps, kept, sizes)
    assert -full.fun - 1e-6 <= value <= -full.fun + 1e-6


# ----------------------------------------------------------------- issue 16: never worse

@pytest.mark.parametrize("top,floor_kw", [
    (jellyfish(routers=80, degree=6, p=2, seed=5), dict(router_slots=7)),
    (mlfm(h=6), dict(router_slots=10, endpoint_slots=30)),
    (fattree(k=8), dict(router_slots=9, endpoint_slots=20)),
    (slimfly(q=7), dict(router_slots=9)),
], ids=["jellyfish", "mlfm", "fattree", "slimfly-mismatched"])
def test_never_worse_than_a_plain_partitioner_with_the_same_limits(top, floor_kw):
    """KaMinPar and METIS alone (4 seeds each, the fewest groups the limits allow, repaired to
    the limits: both single-weight tools need it) and the natural grouping are upper bounds on
    the planner's result, which is its best candidate."""
    floor = make_floor(**floor_kw)
    g = Graph.from_topology(top)
    limits = Limits.of({"routers": (1, floor.router_slots), "endpoints": (g.endpoints, floor.endpoint_slots)}, g.n)
    w, cap = limits.scalar()
    k = limits.min_blocks()
    alone = []
    for seed in range(4):
        for part in (KaMinParRunner(g, w).run(seed, k, cap, "strong"), metis_partition(g, w, k, seed)):
            fixed = repair(g, part, limits)
            assert limits.fits(fixed)
            alone.append(g.cut(fixed))
    pl = place(top, floor, time_limit_s=3, seed=0)
    assert pl.optical <= min(alone)
    if top.groups is not None:
        assert pl.optical <= pl.candidates["hint"]
    assert pl.optical == min(pl.candidates.values())
    assert pl.candidates[pl.method] == pl.optical


def test_a_tiny_time_limit_still_runs_the_partitioners():
    """However short the limit, the first KaMinPar and METIS runs happen: the answer never falls
    back to routers in id order (OFT q=3 in groups of 8 routers)."""
    top = oft(q=3)
    pl = place(top, make_floor(router_slots=8), time_limit_s=1e-4)
    assert any(name.startswith("kaminpar") for name in pl.candidates)
    assert any(name.startswith("metis") for name in pl.candidates)
    assert pl.optical < pl.candidates["sequential"]


def test_tiny_group_bisection_is_the_exhaustive_optimum():
    """Every 2-way split of a 10-router group, enumerated here independently with itertools,
    against the cabinet split: same fewest links between the cabinets, limits kept."""
    import itertools

    from planner.placement.cabinets import enumerate_bisection

    g = Graph.from_topology(jellyfish(routers=10, degree=4, p=2, seed=3))
    limits = Limits.of({"routers": (1, 6), "endpoints": (g.endpoints, 12)}, g.n)
    best = min(g.cut(np.array((0,) + bits)) for bits in itertools.product((0, 1), repeat=g.n - 1)
               if 4 <= sum(bits) <= 6)
    side = enumerate_bisection(g, limits)
    assert g.cut(side) == best and limits.fits(side, 2)
