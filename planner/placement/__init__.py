"""Placement: routers -> cabinets -> electrical groups -> floor positions (issue 4).

``place`` runs, in order (each stage timed into ``Placement.stage_seconds``):

1. ``bounds``: lower bound on optical links (density / Fiedler / Donath–Hoffman, ``bounds``).
2. ``hint``: the topology's natural groups packed whole (the papers' layouts), or routers in id
   order when the topology has no hint.
3. ``partition``: KaMinPar (exact block capacity; "strong" and "4xjet" contexts, "default"
   above 5,000 routers) and METIS (ufactor 30 and 100, + repair), each with one seed per 10 s
   of the time limit (1 to 4; fewer above 5,000 routers), every distinct candidate (the two best above 80 groups, none
   above ``LS_MAX_CELLS`` routers x groups) improved by the move/swap local search, the best
   also by Kernighan–Lin passes.
4. ``polish`` (strategy "optimize"): simulated annealing (``anneal``) with a budget of
   ``ANNEAL_WORK_PER_SECOND`` x ``time_limit_s`` adjacency entries (a step touches about one
   router's neighbours, so steps = work / mean degree), the local search, then CP-SAT pair-bisection
   LNS with one call per second of the time limit (at most 20) and the local search again.
   Skipped when the best candidate meets the lower bound.
5. ``cabinets``: each group split into its cabinets; ``floor``: groups to slots in the halls;
   ``verify``: the full CP-SAT model with every router fixed must be FEASIBLE (small and medium
   instances).
The winner is the candidate with fewest optical links (earliest on ties, so the hint wins ties
and the result is never worse than the hint or any partitioner). Runs are deterministic for a
seed: partitioners run single-threaded with derived seeds, CP-SAT uses one worker and
deterministic-time limits, annealing counts steps: ``time_limit_s`` sizes these budgets (about
half of it is used on this 2-core machine) and otherwise only caps the wall clock as a safety
net (``Placement.time_capped`` says when it fired).
"""

from __future__ import annotations

import math
import time

import numpy as np

from planner.errors import InputError
from planner.placement.anneal import anneal, compile_kernels
from planner.placement.bounds import lower_bound
from planner.placement.cabinets import split_groups
from planner.placement.capacity import Capacity, capacity_from_floor
from planner.placement.cpsat import full_model_check, lns
from planner.placement.floor_assign import place_on_floor
from planner.placement.graph import Graph
from planner.placement.local_search import local_search
from planner.placement.partition import KaMinParRunner, metis_partition, pack_hint, relabel, repair
from planner.placement.result import Placement

__all__ = ["place", "Placement", "STRATEGIES"]

STRATEGIES = ("hint", "partition", "optimize")
PORTFOLIO_SEEDS = 4  # per partitioner setting, one per SECONDS_PER_SEED of the time limit
SECONDS_PER_SEED = 10
METIS_UFACTORS = (30, 100)
LARGE_N = 5000
LS_ALL_MAX_GROUPS = 80  # above this, only the LS_CANDIDATES best raw partitions get local search
LS_CANDIDATES = 2
LS_MAX_CELLS = 20_000_000  # routers x groups of the local search's dense W; annealing goes beyond
KL_MAX_GROUPS = 80
KL_CANDIDATES = 1
KL_ROUNDS = 3
ANNEAL_WORK_PER_SECOND = 120_000_000  # 5M steps per second of limit at degree 24: ~1/9 of it here
ANNEAL_SHARE = 0.8  # safety nets: annealing stops at 80 % of the time limit, the LNS at 90 %
LNS_SHARE = 0.9
LNS_MAX_CALLS = 20  # and at most one call per second of the time limit
LNS_DETERMINISTIC_TIME = 0.1
VERIFY_MAX_WORK = 120_000


class _Clock:
    def __init__(self, time_limit_s: float, on_stage=None):
        self.on_stage = on_stage  # called with (stage name, seconds) as each stage ends
        self.start = time.perf_counter()
        self.deadline = self.start + float(time_limit_s)
        self.stages: dict[str, float] = {}
        self.capped = False
        self._mark = self.start

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.stages[name] = round(self.stages.get(name, 0.0) + now - self._mark, 4)
        if self.on_stage is not None:
            self.on_stage(name, now - self._mark)
        self._mark = now

    def at(self, fraction: float) -> float:
        """The wall-clock time ``fraction`` of the way from start to deadline."""
        return self.start + fraction * (self.deadline - self.start)

    def passed(self, when: float) -> bool:
        """True (and remembered in ``capped``) once the clock is past ``when``: a safety net
        fired, so the answer may depend on the machine's speed and load."""
        late = time.perf_counter() >= when
        self.capped = self.capped or late
        return late


def sequential(weights: np.ndarray, cap: int) -> np.ndarray:
    """Routers in id order, a new group whenever the next one does not fit."""
    part = np.empty(len(weights), dtype=np.int64)
    g, load = 0, 0
    for v, w in enumerate(weights.tolist()):
        if load + w > cap:
            g, load = g + 1, 0
        part[v] = g
        load += w
    return part


def _dense_search_fits(graph: Graph, k: int) -> bool:
    """Whether the local search's dense routers x groups matrix is small enough to be worth it."""
    return graph.n * k <= LS_MAX_CELLS


def _validate(strategy: str, time_limit_s) -> None:
    if strategy not in STRATEGIES:
        raise InputError(f"--strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if isinstance(time_limit_s, bool) or not isinstance(time_limit_s, (int, float)) \
            or not math.isfinite(time_limit_s) or time_limit_s <= 0:
        raise InputError(f"--time-limit must be a positive number of seconds, got {time_limit_s!r}")


def _portfolio(graph: Graph, weights: np.ndarray, cap: int, k: int, seed: int, clock: _Clock,
               time_limit_s: float, cands: dict[str, np.ndarray], counts: dict[str, int]) -> None:
    """KaMinPar and METIS candidates (raw counts recorded, then improved by local search)."""
    if k < 2:
        return
    seeds = max(1, min(PORTFOLIO_SEEDS, int(time_limit_s // SECONDS_PER_SEED)))
    runs: list[tuple[str, object]] = []
    runner = KaMinParRunner(graph, weights)
    contexts = ("strong", "4xjet") if graph.n <= LARGE_N else ("default",)  # strong: 13 s at 16K
    for ctx in contexts:
        for i in range(seeds):
            s = 1000 * seed + i
            runs.append((f"kaminpar-{ctx}[seed={s}]", lambda s=s, ctx=ctx: runner.run(s, k, cap, ctx)))
    for uf in METIS_UFACTORS if graph.n <= LARGE_N else METIS_UFACTORS[:1]:
        for i in range(seeds if graph.n <= LARGE_N else 1):
            s = 1000 * seed + i
            runs.append((f"metis-uf{uf}[seed={s}]", lambda s=s, uf=uf: metis_partition(graph, weights, k, s, uf)))
    raw: dict[bytes, tuple[str, np.ndarray]] = {}
    for name, run in runs:
        if clock.passed(clock.deadline):
            break
        part = run()
        if np.bincount(part, weights=weights, minlength=k).max() > cap:
            part = repair(graph, part, weights, cap, k)
        part = relabel(part)
        counts[name] = graph.cut(part)
        raw.setdefault(part.tobytes(), (name, part))
    # local search on every distinct candidate, or on the best few when there are many groups
    ranked = sorted(raw.values(), key=lambda c: (counts[c[0]], c[0]))
    if not _dense_search_fits(graph, k):
        cands.update({name: part for name, part in ranked[:1]})
        return
    for name, part in ranked if k <= LS_ALL_MAX_GROUPS else ranked[:LS_CANDIDATES]:
        if clock.passed(clock.deadline):
            break
        improved = local_search(graph, part, weights, cap, int(part.max()) + 1)
        cands[name + "+ls"] = improved
        counts[name + "+ls"] = graph.cut(improved)
    if k <= KL_MAX_GROUPS:
        for name in sorted(cands, key=lambda c: (counts[c], c))[:KL_CANDIDATES]:
            if clock.passed(clock.deadline) or not name.endswith("+ls"):
                continue
            part = cands[name]
            improved = local_search(graph, part, weights, cap, int(part.max()) + 1, max_rounds=KL_ROUNDS,
                                    kl=True)
            cands[name + "+kl"] = improved
            counts[name + "+kl"] = graph.cut(improved)


def _optimize(graph: Graph, part: np.ndarray, weights: np.ndarray, cap: int, lb: int, seed: int,
              clock: _Clock, time_limit_s: float) -> tuple[str, np.ndarray]:
    """Annealing + local search, then the CP-SAT LNS + local search; returns (suffix, part)."""
    k = int(part.max()) + 1
    dense = _dense_search_fits(graph, k)
    steps = int(ANNEAL_WORK_PER_SECOND * time_limit_s * graph.n / max(graph.adjacency.nnz, 1))
    annealed = anneal(graph, part, weights, cap, k, steps=steps,
                      seed=seed, lower_bound=lb, deadline=clock.at(ANNEAL_SHARE))
    clock.passed(clock.at(ANNEAL_SHARE))
    if dense:
        annealed = local_search(graph, annealed, weights, cap, k)
    annealed_cut = graph.cut(annealed)
    suffix = "+anneal" if annealed_cut < graph.cut(part) else ""
    if annealed_cut <= lb:
        return suffix, annealed
    calls = min(k, LNS_MAX_CALLS, math.ceil(time_limit_s))
    polished, _ = lns(graph, annealed, weights, cap, k, lower_bound=lb, max_calls=calls, seed=seed,
                      deadline=clock.at(LNS_SHARE), det_time=LNS_DETERMINISTIC_TIME)
    clock.passed(clock.at(LNS_SHARE))
    if dense:
        polished = local_search(graph, polished, weights, cap, k)
    if graph.cut(polished) < annealed_cut:
        return suffix + "+cpsat", polished
    return suffix, annealed


def place(topology, floor, catalog=None, *, strategy: str = "optimize", time_limit_s: float = 60,
          seed: int = 0, group_endpoints: int | None = None, on_stage=None) -> Placement:
    """Place ``topology``'s routers on ``floor`` (see the module docstring and issue 4).

    ``catalog`` prices the optical cables between groups on the floor (None: length only).
    ``group_endpoints`` overrides the floor's electrical-group rule (``--group-endpoints``).
    ``on_stage(name, seconds)`` is called as each stage ends (progress reporting).
    """
    _validate(strategy, time_limit_s)
    if strategy == "optimize":
        compile_kernels()
    clock = _Clock(time_limit_s, on_stage)
    graph = Graph.from_topology(topology)
    capacity = capacity_from_floor(floor, graph.endpoints, group_endpoints)
    weights, cap = capacity.folded_weights(graph.endpoints)
    if graph.n == 0:
        raise InputError("topology has no routers; nothing to place")
    k = max(1, math.ceil(int(weights.sum()) / cap))
    hint = None if topology.groups is None else np.asarray(topology.groups, dtype=np.int64)

    lb, lb_kind = lower_bound(graph, capacity.max_group_routers(graph.endpoints), hint, seed)
    clock.lap("bounds")

    cands: dict[str, np.ndarray] = {}
    counts: dict[str, int] = {}
    base = "hint" if hint is not None else "sequential"
    cands[base] = pack_hint(graph, hint, weights, cap) if hint is not None else sequential(weights, cap)
    counts[base] = graph.cut(cands[base])
    clock.lap("hint")

    if strategy != "hint" and counts[base] > lb:
        _portfolio(graph, weights, cap, k, seed, clock, time_limit_s, cands, counts)
        # id order is a poor start for many groups; the dense W of huge instances costs seconds
        if (hint is not None or k <= LS_ALL_MAX_GROUPS) and _dense_search_fits(graph, k):
            hinted = local_search(graph, cands[base], weights, cap, int(cands[base].max()) + 1)
            cands[base + "+ls"], counts[base + "+ls"] = hinted, graph.cut(hinted)
        clock.lap("partition")
    method = min(cands, key=lambda name: counts[name])
    part = cands[method]

    if strategy == "optimize" and counts[method] > lb and not clock.passed(clock.deadline):
        suffix, polished = _optimize(graph, part, weights, cap, lb, seed, clock, time_limit_s)
        if suffix:
            method, part = method + suffix, polished
            counts[method] = graph.cut(part)
        clock.lap("polish")

    part = relabel(part)
    router_cabinet, cabinet_group = split_groups(graph, part, capacity, seed)
    if capacity.max_cabinets is not None and len(cabinet_group) > capacity.max_cabinets:
        raise InputError(f"floor '{floor.source}': the placement needs {len(cabinet_group)} cabinets for "
                         f"{graph.n} routers but field 'max_cabinets' is {capacity.max_cabinets}; "
                         f"raise max_cabinets or the slots per cabinet")
    clock.lap("cabinets")

    flows = graph.flows(part, int(part.max()) + 1)
    np.fill_diagonal(flows, 0)
    halls, rows, cols = place_on_floor(floor, catalog, flows, cabinet_group)
    order = np.lexsort((cols, rows, halls))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    router_cabinet = rank[router_cabinet]
    halls, rows, cols, cabinet_group = halls[order], rows[order], cols[order], cabinet_group[order]
    clock.lap("floor")

    optical = graph.cut(part)
    _verify(graph, router_cabinet, cabinet_group, capacity, optical)
    clock.lap("verify")

    from planner.floor import cabinet_names

    return Placement(router_cabinet=router_cabinet, cabinet_row=rows, cabinet_col=cols,
                     cabinet_group=cabinet_group, cabinet_hall=halls,
                     cabinet_names=cabinet_names(halls, rows, cols),
                     strategy=strategy, method=method, optical=optical, lower_bound=float(lb),
                     lower_bound_kind=lb_kind, candidates=counts, stage_seconds=clock.stages,
                     time_capped=clock.capped)


def _verify(graph: Graph, router_cabinet: np.ndarray, cabinet_group: np.ndarray, capacity: Capacity,
            optical: int) -> None:
    """Capacity check always; the full CP-SAT model on small and medium instances."""
    n_cab = len(cabinet_group)
    routers = np.bincount(router_cabinet, minlength=n_cab)
    endpoints = np.bincount(router_cabinet, weights=graph.endpoints, minlength=n_cab)
    group = cabinet_group[router_cabinet]
    k = int(cabinet_group.max()) + 1
    problems = []
    if routers.max() > capacity.cabinet_routers:
        problems.append("cabinet router slots")
    if capacity.cabinet_endpoints is not None and endpoints.max() > capacity.cabinet_endpoints:
        problems.append("cabinet endpoint slots")
    if np.bincount(group, minlength=k).max() > capacity.group_routers:
        problems.append("group routers")
    if np.bincount(group, weights=graph.endpoints, minlength=k).max() > capacity.group_endpoints:
        problems.append("group endpoints")
    if capacity.fixed_group_cabinets and np.bincount(cabinet_group, minlength=k).max() > capacity.group_cabinets:
        problems.append("group cabinets")
    if not problems and graph.n * n_cab + len(graph.links) * k <= VERIFY_MAX_WORK:
        status, value = full_model_check(graph, router_cabinet, cabinet_group,
                                         cabinet_routers=capacity.cabinet_routers,
                                         cabinet_endpoints=capacity.cabinet_endpoints,
                                         group_routers=capacity.group_routers,
                                         group_endpoints=capacity.group_endpoints)
        if status not in ("OPTIMAL", "FEASIBLE") or value != optical:
            problems.append(f"full CP-SAT model says {status} (objective {value}, counted {optical})")
    if problems:
        raise RuntimeError("placement violates " + ", ".join(problems))
