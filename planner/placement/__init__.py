"""Placement: routers -> cabinets -> electrical groups -> floor positions (issues 4 and 16).

Takes a ``Topology``, the ``Catalog`` (the router model and the link-part rule of
``planner.inputs.parts`` that prices a layout) and the ``Floor``; hands on a ``Placement``
(router -> cabinet, cabinet -> hall, row, column and electrical group, the objective, its lower
bound and how it was found) to the cabling stage. Tuning: ``tuning``.

``place`` runs, in order (each stage timed into ``Placement.stage_seconds``):

1. ``bounds``: lower bound on optical links (``bounds``), its solvers chosen by size so the
   stage fits its share of the budget.
2. ``hint``: the topology's natural groups packed whole (the papers' layouts), or routers in id
   order when the topology has no hint.
3. ``partition``: KaMinPar and METIS runs on the scalarised capacities, each repaired to the
   real limits (``partition.repair``), with the fewest groups the capacities allow and one
   more; then the move/swap local search on the best distinct candidates and Kernighan–Lin
   passes on the best of those.
4. ``peel`` (strategy "optimize", membership floors whose routers all take the same room):
   densest-set peeling (``peel``) and the local search, one more candidate.
5. ``polish`` (strategy "optimize"): simulated annealing (``anneal``) from the best candidate,
   the local search, then CP-SAT pair-bisection LNS (``cpsat.lns``) and the local search again.
   Skipped when the best candidate meets the lower bound.
6. ``cabinets``: each group split into its cabinets; ``floor``: groups to slots in the halls;
   ``verify``: every limit, and the full CP-SAT model with every router fixed must be FEASIBLE
   (small and medium instances).
7. ``spread`` (``--spread-risk``, after the router search of reach floors, before ``verify``):
   routers moved between the same cabinets until no other cabinet holds more than the share
   asked of a router's cables (``spread``, then the exact repair ``spread_repair`` where a
   cabinet holds two routers); the layout before it is kept for the comparison
   (``Placement.spread_risk``), with the lower bounds of ``spread_bounds``.

Topologies whose endpoints are the NICs of a catalog server model go to ``rails`` instead
(servers in compute cabinets, leaves at their servers, spines and cores in network rows).

Capacities stay separate resources throughout (``capacity.Limits``). Every grouping found is a
candidate and the winner is the cheapest one under the objective (``objective``; ties go to the
earliest, so the hint wins ties): the result is never worse than the natural grouping or any
partitioner run alone. Results depend only on the inputs, the seed and ``time_limit_s``: the
limit sizes deterministic work budgets (``budget.Budget``: partitioner runs, local-search
candidates, annealing steps, CP-SAT calls of fixed deterministic time, eigen-solver sizes),
partitioners run single-threaded with derived seeds. Only the hard cap (``budget.HardCap``:
``tuning.HARD_CAP_FACTOR`` times what the reference machine needs, in the planner's own CPU
time, so other processes' load cannot trip it) can cut a stage short; ``Placement.time_capped``
then says so.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np
from threadpoolctl import threadpool_limits

from planner.inputs import floor as floors
from planner.inputs.catalog.servers import server_model_for
from planner.placement.anneal import anneal, compile_kernels
from planner.placement.bounds import lower_bound
from planner.placement.budget import Budget, HardCap
from planner.placement.cabinet_anneal import compile_kernels as compile_cabinet_kernels
from planner.placement.cabinet_anneal import near_cabinets
from planner.placement.cabinets import split_groups
from planner.placement.capacity import Capacity, Limits, capacity_from_floor
from planner.placement.cpsat import full_model_check, lns
from planner.placement.floor_assign import group_flows, place_on_floor
from planner.placement.graph import Graph
from planner.placement.local_search import local_search
from planner.placement.objective import OpticalLinks, network_link_media
from planner.placement.partition import KaMinParRunner, metis_partition, pack_hint, relabel, repair, sequential
from planner.placement.peel import compile_kernels as compile_peel_kernels
from planner.placement.peel import peel
from planner.placement.priced import (Layout, drop_empty, membership_bounds, price_table,
                                     reach_bounds, refine)
from planner.placement import spread, spread_bounds
from planner.placement.rails import place_rails
from planner.placement.result import Placement
from planner.run.errors import InputError
from planner.placement.tuning import VERIFY_MAX_WORK

__all__ = ["place", "Placement", "STRATEGIES"]

STRATEGIES = ("hint", "partition", "optimize")


class _StageTimer:
    def __init__(self, on_stage=None):
        self.on_stage = on_stage  # called with (stage name, seconds) as each stage ends
        self.stages: dict[str, float] = {}
        self._mark = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.stages[name] = round(self.stages.get(name, 0.0) + now - self._mark, 4)
        if self.on_stage is not None:
            self.on_stage(name, now - self._mark)
        self._mark = now


class _Candidates:
    """Every grouping found, by name, with its cost; ``best`` is the cheapest (earliest on ties)."""

    def __init__(self, objective: OpticalLinks):
        self.objective = objective
        self.parts: dict[str, np.ndarray] = {}
        self.costs: dict[str, int] = {}

    def add(self, name: str, part: np.ndarray) -> int:
        part = relabel(np.asarray(part, dtype=np.int64))
        self.parts[name], self.costs[name] = part, self.objective.cost(part)
        return self.costs[name]

    def best(self, names=None) -> tuple[str, np.ndarray]:
        order = {name: i for i, name in enumerate(self.costs)}
        name = min(self.costs if names is None else names, key=lambda c: (self.costs[c], order[c]))
        return name, self.parts[name]

    @property
    def best_cost(self) -> int:
        return min(self.costs.values())


def _validate(strategy: str, time_limit_s) -> None:
    if strategy not in STRATEGIES:
        raise InputError(f"--strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if isinstance(time_limit_s, bool) or not isinstance(time_limit_s, (int, float)) \
            or not math.isfinite(time_limit_s) or time_limit_s <= 0:
        raise InputError(f"--time-limit must be a positive number of seconds, got {time_limit_s!r}")


def _portfolio(graph: Graph, limits: Limits, budget: Budget, seed: int, pool: _Candidates,
               base: str, lb: int, hard_cap: HardCap) -> None:
    """Partitioner candidates (each repaired to the limits), then the local search. The first
    KaMinPar and METIS runs and the local search of the best of them happen even after the hard
    cap fired, so a tiny limit never falls back to routers in id order. Stops once a candidate
    meets the lower bound."""
    weights, cap = limits.scalar()
    runner = None
    raw: dict[bytes, str] = {}
    for i, run in enumerate(budget.partition_runs):
        if i >= budget.guaranteed_runs and hard_cap.expired():
            break
        s = 1000 * seed + run.seed
        if run.tool == "kaminpar":
            runner = runner or KaMinParRunner(graph, weights)
            part = runner.run(s, run.k, cap, run.setting)
        else:
            part = metis_partition(graph, weights, run.k, s, int(run.setting[2:]))
        name = f"{run.tool}-{run.setting}[k={run.k},seed={s}]"
        pool.add(name, repair(graph, part, limits, max(run.k, int(part.max()) + 1)))
        raw.setdefault(pool.parts[name].tobytes(), name)
        if i + 1 >= budget.guaranteed_runs and pool.best_cost <= lb:
            return
    if not budget.dense_search:
        return
    ranked = sorted(raw.values(), key=lambda c: (pool.costs[c], c))[:budget.ls_candidates]
    for i, name in enumerate(ranked + [base]):
        if pool.best_cost <= lb or (i >= 1 and hard_cap.expired()):
            return
        part = pool.parts[name]
        pool.add(name + "+ls", local_search(graph, part, limits, int(part.max()) + 1))
    if budget.kl_rounds and pool.best_cost > lb:
        name, part = pool.best([c for c in pool.costs if c.endswith("+ls")] or None)
        if not hard_cap.expired() and name.endswith("+ls"):
            pool.add(name + "+kl", local_search(graph, part, limits, int(part.max()) + 1,
                                                max_rounds=budget.kl_rounds, kl=True))


def _optimize(graph: Graph, limits: Limits, budget: Budget, lb: int, seed: int, pool: _Candidates,
              hard_cap: HardCap) -> None:
    """Annealing + local search from the best candidate, then the CP-SAT LNS + local search."""
    name, part = pool.best()
    k = int(part.max()) + 1
    annealed = anneal(graph, part, limits, k, steps=budget.anneal_steps, seed=seed, lower_bound=lb,
                      hard_cap=hard_cap)
    if budget.dense_search:
        annealed = local_search(graph, annealed, limits, k)
    if pool.objective.cost(annealed) < pool.costs[name]:
        name += "+anneal"
        pool.add(name, annealed)
        part = pool.parts[name]
    if pool.costs[name] <= lb or budget.lns_calls == 0 or hard_cap.expired():
        return
    polished, _ = lns(graph, part, limits, k, lower_bound=lb, max_calls=budget.lns_calls, seed=seed,
                      hard_cap=hard_cap, det_time=budget.lns_deterministic_time)
    if budget.dense_search:
        polished = local_search(graph, polished, limits, k)
    if pool.objective.cost(polished) < pool.costs[name]:
        pool.add(name + "+cpsat", polished)


def place(topology, floor, catalog=None, *, strategy: str = "optimize", time_limit_s: float = 60,
          seed: int = 0, group_endpoints: int | None = None, on_stage=None,
          spread_risk: float | str | None = None) -> Placement:
    """Place ``topology``'s routers on ``floor`` (see the module docstring and issue 4).

    ``catalog`` prices the optical cables between groups on the floor (None: length only).
    ``group_endpoints`` overrides the floor's electrical-group rule (``--group-endpoints``).
    ``on_stage(name, seconds)`` is called as each stage ends (progress reporting).
    ``spread_risk``: the largest share of a router's cables one other cabinet may hold
    (``spread``; ``"min"``: the smallest the routers allow; None: placement for cost alone).
    BLAS runs on one thread meanwhile: the work budgets assume it, and several BLAS threads on
    a busy machine slow dense linear algebra down a hundredfold.
    """
    _validate(strategy, time_limit_s)
    with threadpool_limits(limits=1):
        return _place(topology, floor, catalog, strategy, float(time_limit_s), int(seed),
                      group_endpoints, on_stage, spread_risk)


def _place(topology, floor, catalog, strategy: str, time_limit_s: float, seed: int,
           group_endpoints: int | None, on_stage, spread_share: float | None = None) -> Placement:
    server = None if catalog is None else server_model_for(catalog, topology)
    if server is not None:     # endpoints are the NICs of servers: the rail layout
        if spread_share is not None:
            raise InputError("--spread-risk does not apply to a plan whose endpoints are the "
                             f"NICs of server model '{server.sku}' (the rail layout); leave "
                             "--spread-risk out")
        graph = Graph.from_topology(topology)
        budget = Budget.of(graph, Limits.single(np.ones(graph.n), floor.router_slots),
                           time_limit_s)
        placement = place_rails(topology, floor, catalog, server,
                                _router_model(catalog, topology.radix), strategy=strategy,
                                seed=seed, bounds_s=budget.bounds_s)
        if on_stage is not None:
            on_stage("rails", placement.stage_seconds["rails"])
        return placement
    priced = floor.media_rule == "reach" and catalog is not None
    if strategy == "optimize":
        compile_kernels()
        if priced:
            compile_cabinet_kernels()
        else:
            compile_peel_kernels()
    timer = _StageTimer(on_stage)
    graph = Graph.from_topology(topology)
    if graph.n == 0:
        raise InputError("topology has no routers; nothing to place")
    capacity = capacity_from_floor(floor, graph.endpoints, group_endpoints)
    limits = capacity.group_limits(graph.endpoints)
    if spread_share is not None:
        spread_share = spread.check_share(spread_share)
        slots = capacity.cabinet_limits(graph.endpoints).max_count()
        if spread_share == spread.SMALLEST:
            spread_share = spread.share_limit(graph, slots)[0] or 1.0
        spread.check_feasible(graph, spread_share, slots)
    hint = None if topology.groups is None else np.asarray(topology.groups, dtype=np.int64)
    budget = Budget.of(graph, limits, time_limit_s)
    hard_cap = budget.hard_cap()
    router = _router_model(catalog, topology.radix)

    # a reach floor pays for cable dollars, not for links leaving groups: its bounds come
    # after the layout (``priced.reach_bounds``)
    lb, lb_kind = 0, ""
    if not priced:
        lb, lb_kind = lower_bound(graph, limits, hint, budget.bounds_s)
        timer.lap("bounds")

    pool = _Candidates(OpticalLinks(graph))
    base = "hint" if hint is not None else "sequential"
    pool.add(base, pack_hint(graph, hint, limits) if hint is not None else sequential(limits))
    timer.lap("hint")

    if strategy != "hint" and pool.best_cost > lb:
        _portfolio(graph, limits, budget, seed, pool, base, lb, hard_cap)
        timer.lap("partition")
    if strategy == "optimize" and not priced and budget.peel_iterations and pool.best_cost > lb \
            and not hard_cap.expired():
        part = peel(graph, budget.peel_size, iterations=budget.peel_iterations, seed=seed)
        k = int(part.max()) + 1
        pool.add("peel+ls", local_search(graph, part, limits, k) if budget.dense_search else part)
        timer.lap("peel")
    if strategy == "optimize" and not priced and pool.best_cost > lb and not hard_cap.expired():
        _optimize(graph, limits, budget, lb, seed, pool, hard_cap)
        timer.lap("polish")
    method, part = pool.best()

    router_cabinet, cabinet_group = split_groups(graph, part, capacity, seed)
    if capacity.max_cabinets is not None and len(cabinet_group) > capacity.max_cabinets:
        raise InputError(f"floor '{floor.source}': the placement needs {len(cabinet_group)} cabinets for "
                         f"{graph.n} routers but field 'max_cabinets' is {capacity.max_cabinets}; "
                         f"raise max_cabinets or the slots per cabinet")
    timer.lap("cabinets")

    halls, rows, cols = place_on_floor(floor, catalog, group_flows(graph, part), cabinet_group)
    order = np.lexsort((cols, rows, halls))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    layout = Layout(router_cabinet=rank[router_cabinet], hall=halls[order], row=rows[order],
                    col=cols[order], group=cabinet_group[order])
    timer.lap("floor")

    optical = pool.costs[method]
    prices = price_table(graph, floor, catalog, router, layout) if priced else None
    if prices is not None and strategy == "optimize" and not hard_cap.expired():
        layout = refine(graph, layout, prices, capacity, budget, seed, hard_cap)
        method += "+price"
        timer.lap("polish")
    media = None if catalog is None else network_link_media(
        graph, layout.router_cabinet, layout.hall, layout.row, layout.col, layout.group, floor,
        catalog, router)
    risk = None
    if spread_share is not None:
        plain = layout
        layout, risk = _spread(graph, layout, prices, capacity, spread_share, media, optical,
                               floor, hint)
        method += "+spread"
        if catalog is not None:
            media = network_link_media(graph, layout.router_cabinet, layout.hall, layout.row,
                                       layout.col, layout.group, floor, catalog, router)
        if prices is None:
            optical = graph.cut(layout.group[layout.router_cabinet])
        risk = replace(risk, plain_cabinet_names=floors.cabinet_names(plain.hall, plain.row,
                                                                      plain.col))
        timer.lap("spread")
    if prices is not None:
        bounds = reach_bounds(graph, layout, prices, capacity, budget.bounds_s)
        optical, lb, lb_kind = media.optical, graph.total_weight - bounds.copper, bounds.copper_kind
    else:
        bounds = membership_bounds(graph, layout, floor, catalog, router, lb)
    timer.lap("bounds")

    _verify(graph, layout, capacity, None if priced else optical)
    timer.lap("verify")

    return Placement(router_cabinet=layout.router_cabinet, cabinet_row=layout.row,
                     cabinet_col=layout.col, cabinet_group=layout.group, cabinet_hall=layout.hall,
                     cabinet_names=floors.cabinet_names(layout.hall, layout.row, layout.col),
                     strategy=strategy, method=method, optical=optical, lower_bound=float(lb),
                     lower_bound_kind=lb_kind, candidates=dict(pool.costs), stage_seconds=timer.stages,
                     time_capped=hard_cap.fired,
                     objective="cable dollars" if prices is not None else "optical links",
                     copper=None if media is None else media.copper,
                     copper_upper_bound=bounds.copper, copper_bound_kind=bounds.copper_kind,
                     cable_cost=None if media is None else media.dollars,
                     cable_cost_lower_bound=bounds.cost, cable_cost_bound_kind=bounds.cost_kind,
                     spread_risk=risk)


def _spread(graph: Graph, layout: Layout, prices, capacity: Capacity, share: float, media,
            optical: int, floor, router_group) -> tuple[Layout, spread.SpreadRisk]:
    """The layout moved to meet ``share`` (``spread``), priced like the placement (the cabinet
    price table, or links leaving groups without one), and what it did; ``router_group``: the
    topology's groups, whose pairs' cables it spreads too (None: none)."""
    group, hall = layout.group, layout.hall
    classes = len(np.unique(graph.weights))
    if prices is not None:
        local = prices.local(layout.row, layout.col)
        price = prices.price[:, prices.hall_link[hall[:, None], hall[None, :]],
                             local[:, None], local[None, :]]
        near = near_cabinets(prices, hall, local)
    else:
        price = np.broadcast_to((group[:, None] != group[None, :]).astype(float),
                                (classes, len(group), len(group)))
        near = spread.near_by_group(group)
    n_cab = len(group)
    cabinet_limits = capacity.cabinet_limits(graph.endpoints)
    routes = spread.tray_routes(floor, hall, layout.row, layout.col, cabinet_limits.max_count())
    cab, over, moves, evaluations, trays, pairs, exact = spread.spread_repaired(
        graph, layout.router_cabinet, group, near, cabinet_limits,
        capacity.group_limits(graph.endpoints), price, share, routes, router_group)
    if pairs is not None:                 # the columns of the cabinets the layout keeps
        pairs = replace(pairs, counts=pairs.counts[:, np.bincount(cab, minlength=n_cab) > 0])
    limit = spread.allowed(graph, share)
    plain_over = int(spread.over_limit(spread.cabinet_counts(graph, layout.router_cabinet, n_cab),
                                       layout.router_cabinet, limit).sum())
    risk = spread.SpreadRisk(
        share=share, cables_over=over, plain_cables_over=plain_over, moves=moves, evaluations=evaluations,
        plain_router_cabinet=layout.router_cabinet,
        plain_cable_cost=None if media is None else media.dollars,
        plain_optical=optical if media is None else media.optical,
        trays=spread.TraySpread.of(trays, floor, n_cab), pairs=pairs, exact=exact,
        lower_bound=spread_bounds.lower_bounds(graph, limit, cabinet_limits.max_count(),
                                               None if pairs is None else pairs.pairs, trays))
    return drop_empty(replace(layout, router_cabinet=cab)), risk


def _router_model(catalog, radix: int):
    """The router model ``planner plan`` buys (``Catalog.router_for``), or None when no
    catalog is given or none of its models has the ports (placement alone, as benchmarks call
    it: parts are then priced for any of the catalog's routers, ``media.choose_parts``)."""
    if catalog is None or not any(m.radix >= radix for m in catalog.routers):
        return None
    return catalog.router_for(radix)


def _verify(graph: Graph, layout: Layout, capacity: Capacity, optical: int | None) -> None:
    """Every limit always; with ``optical`` (membership floors) the links leaving groups, and
    the full CP-SAT model on small and medium instances."""
    router_cabinet, cabinet_group = layout.router_cabinet, layout.group
    n_cab = len(cabinet_group)
    group = cabinet_group[router_cabinet]
    k = int(cabinet_group.max()) + 1
    problems = []
    cabinet_limits, group_limits = capacity.cabinet_limits(graph.endpoints), capacity.group_limits(graph.endpoints)
    for what, limits, part, blocks in (("cabinet", cabinet_limits, router_cabinet, n_cab),
                                       ("group", group_limits, group, k)):
        over = np.any(limits.loads(part, blocks) > limits.limit, axis=0)
        problems += [f"{what} {name}" for name, bad in zip(limits.names, over) if bad]
    if optical is not None and graph.cut(group) != optical:
        problems.append(f"optical count ({graph.cut(group)} links leave groups, {optical} reported)")
    if capacity.fixed_group_cabinets and np.bincount(cabinet_group, minlength=k).max() > capacity.group_cabinets:
        problems.append("group cabinets")
    if (optical is not None and not problems
            and graph.n * n_cab + len(graph.links) * k <= VERIFY_MAX_WORK):
        status, value = full_model_check(graph, router_cabinet, cabinet_group,
                                         cabinet_routers=capacity.cabinet_routers,
                                         cabinet_endpoints=capacity.cabinet_endpoints,
                                         group_routers=capacity.group_routers,
                                         group_endpoints=capacity.group_endpoints)
        if status not in ("OPTIMAL", "FEASIBLE") or value != optical:
            problems.append(f"full CP-SAT model says {status} (objective {value}, counted {optical})")
    if problems:
        raise RuntimeError("placement violates " + ", ".join(problems))
