"""θ after failure (issue 26, items 1-2), checked against an independent computation.

For every single failure group of small plans, the planner's θ after failure equals a max
concurrent flow LP written here (one commodity per destination router, where the planner's LP
aggregates by source) on the networkx graph minus the group's routers and cables, and the
endpoint pairs it reports cut off equal networkx's connected components on that graph.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from planner.inputs.floor import load_floor
from planner.performance import failure_groups, resilience, tuning
from planner.performance.bisection_bounds import bisection_cut
from planner.plan import plan
from planner.topologies.metrics import endpoint_distance_sum

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _graph_after(top, dead, links, cut) -> nx.MultiGraph:
    """The topology as networkx, one edge per cable, without ``dead`` routers and with ``cut``
    cables fewer on ``links``."""
    mult = top.multiplicity.copy()
    for link, n in zip(links.tolist(), cut.tolist()):
        mult[link] -= n
    g = nx.MultiGraph()
    alive = [r for r in range(top.num_routers) if r not in set(dead.tolist())]
    g.add_nodes_from((r, {"endpoints": int(top.endpoints[r])}) for r in alive)
    for (u, v), m in zip(top.links.tolist(), mult.tolist()):
        if u in g and v in g:
            g.add_edges_from([(u, v)] * m)
    return g


def _lp_theta(g: nx.MultiGraph) -> float:
    """Max concurrent flow θ <= 1 of uniform all-to-all traffic among the endpoints of ``g``:
    one commodity per destination router t, flow f[t, arc] on both directions of every
    cable pair; at router v != t: out - in = θ·e_v·e_t/(N-1); capacity = parallel cables."""
    nodes = sorted(g.nodes)
    e = {v: g.nodes[v]["endpoints"] for v in nodes}
    n = sum(e.values())
    pairs = {}
    for u, v in g.edges():
        pairs[(u, v)] = pairs.get((u, v), 0) + 1
    arcs = [(u, v, c) for (u, v), c in pairs.items()] + [(v, u, c) for (u, v), c in pairs.items()]
    dests = [t for t in nodes if e[t] > 0]
    index = {v: i for i, v in enumerate(nodes)}
    a, k = len(arcs), len(dests)
    rows, cols, vals = [], [], []
    for j, t in enumerate(dests):
        for i, (u, v, _) in enumerate(arcs):
            rows += [j * len(nodes) + index[u], j * len(nodes) + index[v]]
            cols += [j * a + i, j * a + i]
            vals += [1.0, -1.0]
        for v in nodes:
            if v != t:                       # θ·demand(v -> t) leaves v; t absorbs the rest
                rows.append(j * len(nodes) + index[v])
                cols.append(k * a)
                vals.append(-e[v] * e[t] / (n - 1))
    keep = [r % len(nodes) != index[dests[r // len(nodes)]] for r in range(k * len(nodes))]
    a_eq = sp.csr_matrix((vals, (rows, cols)), shape=(k * len(nodes), k * a + 1))[keep]
    a_ub = sp.csr_matrix((np.ones(k * a), (np.tile(np.arange(a), k), np.arange(k * a))),
                         shape=(a, k * a + 1))
    cost = np.zeros(k * a + 1)
    cost[-1] = -1.0
    bounds = [(0, None)] * (k * a) + [(0, 1)]
    res = linprog(cost, A_ub=a_ub, b_ub=[c for *_, c in arcs], A_eq=a_eq,
                  b_eq=np.zeros(a_eq.shape[0]), bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return -res.fun


def _pairs_cut(g: nx.MultiGraph) -> int:
    """Unordered pairs of endpoints of ``g`` in different connected components."""
    sizes = [sum(g.nodes[v]["endpoints"] for v in c) for c in nx.connected_components(g)]
    n = sum(sizes)
    return (n * n - sum(s * s for s in sizes)) // 2


def _exact(monkeypatch, on: bool) -> None:
    """Every failure of the small plans gets the exact LP (on), or none does (off)."""
    monkeypatch.setattr(tuning, "RESILIENCE_LP_NONZEROS_MAX", 10**9 if on else 0)


def _check_kind(result, kind: str, lp: bool = True) -> list[float]:
    """Pairs cut off and endpoints lost of every group of ``kind`` against networkx, and θ
    against the LP written here (``lp``); the θ of every group."""
    top = result.topology
    groups, _ = failure_groups.derive(kind, top, result.placement, result.floor, result.cables,
                                      result.structured)
    g_kind = groups.get(kind)
    assert g_kind is not None and len(g_kind) > 0
    intact = resilience.Intact(top, bisection_cut(top, 0), endpoint_distance_sum(top)[1])
    mode = resilience.modes(intact, len(g_kind))
    assert mode.lp
    if not lp:
        mode = resilience.Modes(lp=False, ecmp=False, exact_hops=True)
    thetas = []
    for i in range(len(g_kind)):
        dead, links, cut = g_kind.failure(i)
        out = resilience.measure(intact, dead, links, cut, mode)
        g = _graph_after(top, dead, links, cut)
        assert out.pairs_cut == _pairs_cut(g), (kind, g_kind.names[i])
        assert out.endpoints_lost == int(top.endpoints[dead].sum())
        if lp:
            want = 0.0 if out.pairs_cut else _lp_theta(g)
            assert out.theta == pytest.approx(want, abs=2e-6), (kind, g_kind.names[i])
        thetas.append(out.theta)
    return thetas


@pytest.mark.parametrize("spec, floor", [("slimfly:q=5", "sc14"), ("fattree:k=4", "hot-aisle"),
                                         ("dragonfly:a=4,h=2", "pn-500")])
def test_every_cabinet_failure_matches_an_independent_lp(spec, floor, monkeypatch):
    _exact(monkeypatch, False)                   # the plan's summary: the labelled bounds
    result = plan(spec, "modern-100g", floor, strategy="hint", resilience="cabinet",
                  fail_links=0)
    _exact(monkeypatch, True)
    thetas = _check_kind(result, "cabinet")
    assert len(thetas) == len(np.unique(result.placement.router_cabinet))
    block = result.summary["resilience"]["kinds"]["cabinet"]
    assert block["groups"] == len(thetas)
    if block["theta_kind"] == "upper bound":        # a bound never falls below the LP
        assert block["theta"]["worst"] >= min(thetas) - 1e-6
    else:
        assert block["theta"]["worst"] == pytest.approx(min(thetas), abs=1e-6)


@pytest.fixture(scope="module")
def two_halls():
    """A structured plan over two halls, its resilience block from the labelled bounds."""
    with pytest.MonkeyPatch.context() as patch:
        _exact(patch, False)
        return plan("dragonfly:a=4,p=2,h=2", "modern-100g", str(BENCH / "two-halls.yaml"),
                    strategy="hint", resilience="all", fail_links=3)


def test_trunk_panel_and_tray_failures_of_two_halls_match_lp_and_networkx(two_halls,
                                                                          monkeypatch):
    result = two_halls
    _exact(monkeypatch, True)
    assert result.placement.cabinet_hall.max() >= 1            # the plan spans two halls
    for kind in ("trunk", "panel", "tray"):
        _check_kind(result, kind, lp=kind != "panel")
    names = failure_groups.derive("tray", result.topology, result.placement, result.floor,
                                  result.cables, result.structured)[0]["tray"].names
    assert "H1-H2 link" in names
    block = result.summary["resilience"]
    assert set(block["groups"]) == {"cabinet", "trunk", "panel", "tray"}
    assert block["kinds"]["links"]["k"] == 3
    assert "row" in block["not_derived"]


def test_a_hall_link_failure_cuts_every_cross_hall_cable(two_halls):
    result = two_halls
    trays = failure_groups.derive("tray", result.topology, result.placement, result.floor,
                                  result.cables, result.structured)[0]["tray"]
    i = trays.names.index("H1-H2 link")
    cab = result.placement.router_cabinet
    hall = result.placement.cabinet_hall[cab]
    net = result.cables.iloc[:result.topology.num_links]
    crossing = hall[net["a_router"].to_numpy()] != hall[net["b_router"].to_numpy()]
    assert trays.cables[i].sum() == int(crossing.sum()) > 0


def test_row_power_feeds_group_the_cabinets_of_their_rows():
    floor = load_floor("hot-aisle").model_copy(update={"power_feed_rows": 2})
    result = plan("dragonfly:a=4,h=2", "modern-100g", floor, strategy="hint",
                  resilience="row", fail_links=0)
    rows = failure_groups.row_groups(floor, result.placement, result.topology.num_routers, 0)
    feed = result.placement.cabinet_row[result.placement.router_cabinet] // 2
    assert len(rows) == len(np.unique(feed)) > 1
    for i in range(len(rows)):
        dead = rows.failure(i)[0]
        assert len(np.unique(feed[dead])) == 1                  # rows 2f and 2f+1, all of them
        assert len(dead) == int(np.sum(feed == feed[dead[0]]))
    assert result.summary["resilience"]["groups"] == {"row": len(rows)}


def test_random_cable_draws_follow_the_seed():
    from planner.topologies import parse_spec
    top = parse_spec("slimfly:q=5")
    a = resilience.link_samples(top, 7, 5, seed=3)
    b = resilience.link_samples(top, 7, 5, seed=3)
    c = resilience.link_samples(top, 7, 5, seed=4)
    assert (a.cables != b.cables).nnz == 0 and (a.cables != c.cables).nnz > 0
    assert np.all(np.asarray(a.cables.sum(axis=1)).ravel() == 7)


def _tray_names_of_polyline(room, pieces) -> set[str]:
    """The tray segments a cable's drawn route (``routes.route_segments``) runs along, named
    as ``failure_groups`` names them: row trays cut at the cross trays, cross trays cut at the
    rows (and the hall entry), the hall link."""
    from planner.inputs.floor import row_letters
    pitch = room.floor.row_pitch_m
    cross = list(room.cross_x)
    prefix = (lambda h: f"H{h + 1}-") if room.halls > 1 else (lambda h: "")
    names = set()
    for p in pieces:
        (x0, y0, _), (x1, y1, _) = p.start, p.end
        if p.kind == "hall link":
            names.add("link")
        elif p.kind == "row tray":
            row = round(y0 / pitch)
            lo, hi = sorted((x0, x1))
            for k in range(len(cross) - 1):
                if min(hi, cross[k + 1]) - max(lo, cross[k]) > 1e-9:
                    names.add(f"{prefix(p.hall)}{row_letters(row)}:P{k}-P{k + 1}")
        elif p.kind == "cross tray":
            t = min(range(len(cross)), key=lambda i: abs(cross[i] - x0))
            lo, hi = sorted((y0, y1))
            for j in range(room.rows):            # span j: row j-1 (or the entry) to row j
                start = (j - 1) * pitch if j else -np.inf
                if min(hi, j * pitch) - max(lo, start) > 1e-9:
                    first = "entry" if j == 0 else row_letters(j - 1)
                    names.add(f"{prefix(p.hall)}P{t}:{first}-{row_letters(j)}")
    return names


def test_tray_segments_follow_the_drawn_routes(two_halls):
    from planner.inputs.floor import room_of
    from planner.inputs.floor.routes import route_segments
    result = two_halls
    pl, top = result.placement, result.topology
    room = room_of(result.floor, pl.cabinet_hall, pl.cabinet_row, pl.cabinet_col)
    trays = failure_groups.derive("tray", top, pl, result.floor, result.cables,
                                  result.structured)[0]["tray"]
    on = trays.cables.T.tocsr()                     # link -> tray groups
    net = result.cables.iloc[:top.num_links]
    link_of = failure_groups.network_cable_links(top.multiplicity)
    checked = 0
    for i, (a, b) in enumerate(zip(net["a_router"].tolist(), net["b_router"].tolist())):
        ca, cb = pl.router_cabinet[a], pl.router_cabinet[b]
        if ca == cb:
            continue
        pos = [(int(pl.cabinet_hall[c]), int(pl.cabinet_row[c]), float(pl.cabinet_col[c]))
               for c in (ca, cb)]
        want = _tray_names_of_polyline(room, route_segments(room, *pos))
        got = {trays.names[g] for g in on[link_of[i]].indices}
        got = {"link" if g.endswith(" link") else g for g in got}
        # parallel cables of one link share its groups: the link's set holds this cable's
        assert want <= got, (i, want, got)
        if top.multiplicity[link_of[i]] == 1:
            assert want == got, (i, want, got)
            checked += 1
    assert checked > 20


def test_the_terminal_and_the_pdf_cover_name_the_worst_group_of_each_kind(two_halls):
    from pathlib import Path as _Path

    from planner.commands.plan import summary_table
    from planner.exports.wiring_pdf.cover import totals_rows
    block = two_halls.summary["resilience"]
    table = summary_table(two_halls, _Path("out"), [])
    cover = dict(totals_rows(two_halls))
    for kind, k in block["kinds"].items():
        name = "after random cable failures" if kind == "links" else f"after {kind} failure"
        line = next(l for l in table.splitlines() if l.startswith(name))
        assert k["worst"]["name"] in line and f"{k['theta_ratio']['worst']:.3f}" in line
        assert k["worst"]["name"] in cover[name[:1].upper() + name[1:]]
    assert "not measured" in cover["After row failure"]


def test_all_leaves_out_a_kind_above_the_work_budget_but_a_named_kind_is_measured(
        two_halls, monkeypatch):
    r = two_halls
    arcs = 2 * len(r.topology.links)
    cabinets = len(np.unique(r.placement.router_cabinet))
    monkeypatch.setattr(tuning, "RESILIENCE_WORK_MAX", cabinets * arcs - 1)
    groups, skipped = failure_groups.derive("all", r.topology, r.placement, r.floor, r.cables,
                                            r.structured)
    over = {k for k, g in groups.items() if len(g) * arcs > cabinets * arcs - 1}
    assert "cabinet" in over and over <= set(skipped)
    assert "--resilience cabinet" in skipped["cabinet"]
    named = failure_groups.derive("cabinet", r.topology, r.placement, r.floor, r.cables,
                                  r.structured)
    assert len(named[0]["cabinet"]) == cabinets and named[1] == {}


def test_the_hops_lower_bound_is_the_intact_distances_between_survivors():
    """Above the BFS budget hops come from the intact distances (``Intact.lower_distance_sum``):
    equal to networkx's intact distances summed over the surviving endpoint pairs, and never
    above the exact sum on the reduced network."""
    from planner.topologies import parse_spec
    top = parse_spec("dragonfly:a=4,h=2")
    intact = resilience.Intact(top, bisection_cut(top, 0), endpoint_distance_sum(top)[1])
    d = dict(nx.all_pairs_shortest_path_length(top.to_networkx()))
    none = np.zeros(0, np.int64)
    for first in range(0, top.num_routers, 4):
        dead = np.arange(first, first + 2)
        after, _ = resilience.reduced(top, dead, none, none, intact.arcs)
        e = after.endpoints
        want = sum(int(e[s]) * int(e[t]) * d[s][t] for s in range(len(e)) for t in range(len(e)))
        got = intact.lower_distance_sum(e.astype(np.int64))
        assert got == want
        assert got <= endpoint_distance_sum(after)[1]


def test_the_worst_group_prices_what_is_left(two_halls):
    s = two_halls.summary
    rate = s["catalog"]["rate_gbps"]
    for kind, k in s["resilience"]["kinds"].items():
        w = k["worst"]
        tbps = w["theta"] * (s["topology"]["endpoints"] - w["endpoints_lost"]) * rate / 1000
        assert w["delivered_tbps"] == pytest.approx(tbps, rel=1e-5), kind
        if tbps:
            assert w["cost_per_delivered_tbps"] == pytest.approx(s["cost"]["total"] / tbps,
                                                                 rel=1e-5)
        else:
            assert w["cost_per_delivered_tbps"] is None


def test_a_multi_plane_topology_counts_its_groups_and_says_they_are_not_measured():
    result = plan("multiplane:planes=2,radix=8", "modern-100g", "hot-aisle", strategy="hint",
                  resilience="cabinet", fail_links=2)
    block = result.summary["resilience"]
    assert block["kinds"] == {}
    assert block["groups"] == {"cabinet": len(np.unique(result.placement.router_cabinet))}
    assert set(block["not_derived"]) == {"cabinet", "links"}
