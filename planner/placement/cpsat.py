"""OR-Tools CP-SAT models: pair-of-groups LNS polish, group -> cabinet split, full-model check.

* ``bisect``: free the routers of two blocks a, b; z_v = 1 puts v in b. Every limit (routers,
  endpoints, ...) on both sides, c_e >= |z_u - z_v| on the links inside the pair, minimise
  sum m_e c_e. Links leaving the pair are cut either way, so the sub-problem is exact for that
  neighbourhood (after Henzinger, Noe & Schulz, "ILP-based local search for graph
  partitioning", SEA'18). The incumbent is a complete hint; only strict gains are kept.
* ``lns``: pairs by decreasing inter-block links; a pair is retried only after one of its blocks
  changed. The budget is a number of solver calls, each with a deterministic-time limit and one
  worker, so a seed gives one answer; the wall-clock limit of a call is only the hard cap
  (``budget.HardCap``), far above what a call needs.
* ``qap_polish``: groups -> floor slots as a CP-SAT model (quadratic assignment): one slot
  variable per group, ``AddAllDifferent``, and for every pair of groups with links an element
  constraint reading the priced distance of their two slots. Warm-started with the 2-opt
  assignment as a complete hint; used on small instances only, kept only when strictly better.
* ``full_model_check``: the formal model of issue 4 — x[v,c] one cabinet per router, cabinet
  router/endpoint slots, group endpoint/router limits, y[v,g] = sum_{c in g} x[v,c],
  o_e >= y[u,g] - y[v,g] — with every x fixed to the placement; FEASIBLE/OPTIMAL with objective
  equal to the counted optical links certifies the layout.
"""

from __future__ import annotations

import numpy as np
from ortools.sat.python import cp_model

from planner.placement.budget import HardCap
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.placement.tuning import CALL_WALL_S, PAIR_DETERMINISTIC_TIME


def _solver(det_time: float, seed: int, wall_s: float = CALL_WALL_S) -> cp_model.CpSolver:
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    s.parameters.catch_sigint_signal = False  # Ctrl-C stops the plan, not just this solve
    s.parameters.random_seed = int(seed)
    s.parameters.max_deterministic_time = float(det_time)
    s.parameters.max_time_in_seconds = max(0.01, float(wall_s))
    return s


def bisect(graph: Graph, nodes: np.ndarray, side: np.ndarray, limits: Limits, seed: int = 0,
           det_time: float = PAIR_DETERMINISTIC_TIME, wall_s: float = CALL_WALL_S):
    """Best 2-way split of ``nodes`` (hint ``side`` in {0,1}) with both sides within every limit
    (``limits`` rows are the whole graph's routers).

    Returns (new_side, cut inside nodes) or None when the solver found nothing strictly better.
    """
    sub = graph.subgraph(nodes)
    side = np.asarray(side, dtype=np.int64)
    flip = bool(side[0] == 1)
    hint = 1 - side if flip else side
    current = int(sub.weights[hint[sub.links[:, 0]] != hint[sub.links[:, 1]]].sum())
    if current == 0:
        return None
    m = cp_model.CpModel()
    z = [m.NewBoolVar(f"z{i}") for i in range(sub.n)]
    m.Add(z[0] == 0)  # the two sides are interchangeable
    for col, cap in zip(limits.demand[nodes].T.tolist(), limits.limit.tolist()):
        m.Add(sum(wi * zi for wi, zi in zip(col, z) if wi) <= cap)
        m.Add(sum(wi * (1 - zi) for wi, zi in zip(col, z) if wi) <= cap)
    cuts = []
    for (u, v), mult in zip(sub.links.tolist(), sub.weights.tolist()):
        c = m.NewBoolVar("")
        m.AddBoolOr([z[u].Not(), z[v], c])
        m.AddBoolOr([z[v].Not(), z[u], c])
        cuts.append((int(mult), c))
        m.AddHint(c, bool(hint[u] != hint[v]))
    for i in range(sub.n):
        m.AddHint(z[i], bool(hint[i]))
    m.Minimize(sum(k * c for k, c in cuts))
    solver = _solver(det_time, seed, wall_s)
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    value = int(round(solver.ObjectiveValue()))
    if value >= current:
        return None
    new = np.array([solver.Value(zi) for zi in z], dtype=np.int64)
    return (1 - new if flip else new), value


def lns(graph: Graph, part: np.ndarray, limits: Limits, k: int, *, lower_bound: int, max_calls: int,
        seed: int = 0, hard_cap: HardCap | None = None,
        det_time: float = PAIR_DETERMINISTIC_TIME) -> tuple[np.ndarray, int]:
    """Pair-bisection LNS; returns (part, solver calls used). Never increases the cut."""
    part = np.asarray(part, dtype=np.int64).copy()
    cut = graph.cut(part)
    version = np.zeros(k, dtype=np.int64)
    tried: dict[tuple[int, int], tuple[int, int]] = {}
    calls = 0
    while calls < max_calls and cut > lower_bound:
        ia, ib, between = graph.pair_links(part)
        order = np.lexsort((ib, ia, -between))
        pick = None
        for a, b in zip(ia[order].tolist(), ib[order].tolist()):
            if tried.get((a, b)) != (version[a], version[b]):
                pick = (a, b)
                break
        if pick is None:
            break
        if hard_cap is not None and hard_cap.expired():
            break
        a, b = pick
        tried[pick] = (version[a], version[b])
        nodes = np.flatnonzero((part == a) | (part == b))
        wall = CALL_WALL_S if hard_cap is None else max(0.05, hard_cap.wall_remaining())
        res = bisect(graph, nodes, (part[nodes] == b).astype(np.int64), limits,
                     seed=seed + calls, det_time=det_time, wall_s=wall)
        if hard_cap is not None:
            hard_cap.expired()  # records a call the cap cut short
        calls += 1
        if res is not None:
            new_side, _ = res
            part[nodes] = np.where(new_side == 1, b, a)
            cut = graph.cut(part)
            version[a] += 1
            version[b] += 1
    return part, calls


def qap_polish(flows: np.ndarray, dist: np.ndarray, perm: np.ndarray, *, seed: int = 0,
               det_time: float = PAIR_DETERMINISTIC_TIME, wall_s: float = CALL_WALL_S) -> np.ndarray | None:
    """Slot per group minimising sum_{a<b} F_ab D[slot_a, slot_b], hinted with ``perm``.

    ``dist`` is scaled to integer cents for the model; returns the new assignment or None when
    the solver found nothing strictly better than ``perm`` (checked in exact arithmetic).
    """
    k = len(perm)
    scale = 100.0
    table = np.rint(np.asarray(dist, dtype=float) * scale).astype(np.int64).ravel().tolist()
    m = cp_model.CpModel()
    slot = [m.NewIntVar(0, k - 1, f"slot{a}") for a in range(k)]
    m.AddAllDifferent(slot)
    terms = []
    ia, ib = np.nonzero(np.triu(flows, 1))
    for a, b in zip(ia.tolist(), ib.tolist()):
        index = m.NewIntVar(0, k * k - 1, "")
        m.Add(index == k * slot[a] + slot[b])
        cost = m.NewIntVar(min(table), max(table), "")
        m.AddElement(index, table, cost)
        terms.append(int(flows[a, b]) * cost)
    for a in range(k):
        m.AddHint(slot[a], int(perm[a]))
    m.Minimize(sum(terms))
    solver = _solver(det_time, seed, wall_s)
    if solver.Solve(m) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    new = np.array([solver.Value(x) for x in slot], dtype=np.int64)
    f = np.asarray(flows, dtype=float)
    old_cost = float(np.sum(f * dist[np.ix_(perm, perm)]))
    new_cost = float(np.sum(f * dist[np.ix_(new, new)]))
    return new if new_cost < old_cost - 1e-9 else None


def full_model_check(graph: Graph, router_cabinet: np.ndarray, cabinet_group: np.ndarray, *,
                     cabinet_routers: int, cabinet_endpoints: int | None, group_routers: int,
                     group_endpoints: int, wall_s: float = CALL_WALL_S) -> tuple[str, int | None]:
    """Solve the full assignment model with every router fixed to its cabinet.

    Returns (status name, objective = optical links) — "FEASIBLE"/"OPTIMAL" certifies that the
    placement meets every capacity and that its optical count is what the model computes.
    """
    n, n_cab = graph.n, len(cabinet_group)
    k = int(cabinet_group.max()) + 1 if n_cab else 0
    m = cp_model.CpModel()
    x = [[m.NewBoolVar("") for _ in range(n_cab)] for _ in range(n)]
    ep = graph.endpoints.tolist()
    for v in range(n):
        m.AddExactlyOne(x[v])
        for c in range(n_cab):
            m.Add(x[v][c] == int(router_cabinet[v] == c))
    cab_of_group = [np.flatnonzero(cabinet_group == g).tolist() for g in range(k)]
    for c in range(n_cab):
        m.Add(sum(x[v][c] for v in range(n)) <= cabinet_routers)
        if cabinet_endpoints is not None:
            m.Add(sum(ep[v] * x[v][c] for v in range(n) if ep[v]) <= cabinet_endpoints)
    y = [[sum(x[v][c] for c in cab_of_group[g]) for g in range(k)] for v in range(n)]
    for g in range(k):
        m.Add(sum(y[v][g] for v in range(n)) <= group_routers)
        m.Add(sum(ep[v] * y[v][g] for v in range(n) if ep[v]) <= group_endpoints)
    objective = []
    for (u, v), mult in zip(graph.links.tolist(), graph.weights.tolist()):
        o = m.NewBoolVar("")
        for g in range(k):
            m.Add(o >= y[u][g] - y[v][g])
        objective.append(int(mult) * o)
    m.Minimize(sum(objective))
    solver = _solver(1e9, 0, wall_s)
    status = solver.Solve(m)
    name = solver.StatusName(status)
    value = int(round(solver.ObjectiveValue())) if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None
    return name, value
