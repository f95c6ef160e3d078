"""Work budgets of the placement stages, sized from the time limit in deterministic units.

A plan must depend only on its inputs, its seed and the time limit T, never on how fast or
busy the machine is. So no stage watches the clock: T is converted once, here, into units of
work that do not depend on the machine (partitioner runs, local-search candidates, annealing
steps, CP-SAT calls of fixed deterministic time, eigen-solver sizes), using the speeds
measured on the reference machine (2-core AMD EPYC, 2026, idle; ``tuning``). There the
budgets use about half of T; on a machine twice as slow or busy they take about T.

The hard cap (``HardCap``) is only a safety net for a machine far slower than the reference
one. It counts the placement's own CPU time (the placing thread and the METIS child processes,
``own_cpu_seconds``), not wall time, so other processes, however many, cannot advance it: it
fires after ``tuning.HARD_CAP_FACTOR`` times what the reference machine needs (T plus the work
done whatever T, ``fixed_seconds``). A wall-clock limit remains far above that
(``tuning.WALL_CAP_FACTOR`` times the CPU cap), for a machine so overloaded that the planner
hardly runs. Stages ask ``HardCap.expired()`` between units of work, and a placement the cap cut
short says so (``Placement.time_capped``, the ``planner plan`` summary).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

from planner.placement import tuning
from planner.placement.capacity import Limits
from planner.placement.graph import Graph
from planner.placement.tuning import (BOUNDS_SHARE, PARTITION_SHARE, SEARCH_SHARE, ANNEAL_SHARE,
                                      LNS_SHARE, PEEL_SHARE, CABINET_SHARE, PARTITIONER_S_PER_ENTRY,
                                      PARTITIONER_S_PER_GROUP2, LARGE_N, MAX_SEEDS,
                                      SEARCH_S_PER_CELL, SEARCH_S_PER_GROUP2, SEARCH_MAX_CELLS,
                                      SEARCH_MIN_CANDIDATES, KL_MAX_GROUPS, KL_ROUNDS,
                                      ANNEAL_ENTRIES_PER_S, ANNEAL_STEPS_PER_ROUTER,
                                      LNS_DETERMINISTIC_TIME, LNS_CALL_S, LNS_MAX_CALLS,
                                      PEEL_ITERATIONS, PEEL_S_PER_VISIT, PEEL_MIN_ITERATIONS,
                                      CABINET_ENTRIES_PER_S, CABINET_STEPS_PER_ROUTER,
                                      DENSE_EIG_S_PER_CUBE, LOBPCG_S_PER_ENTRY_ITER,
                                      LOBPCG_ITERATIONS)


def own_cpu_seconds() -> float:
    """CPU seconds of the calling thread plus this process's finished child processes (METIS
    runs in a forked child, ``interrupts.in_fork``). Other processes on the machine, however
    busy, do not advance it; plans in other threads of the same process (a threaded Dask
    worker) only by their own finished METIS children."""
    times = os.times()
    return time.thread_time() + times.children_user + times.children_system


class HardCap:
    """The safety net, far above the work budgets: ``cpu_s`` seconds of the placement's own
    CPU time (``own_cpu_seconds``), and ``wall_s`` seconds of wall time, set far above that
    for a machine so overloaded that the planner hardly runs. Stages ask ``expired()`` between
    units of work; once it says True the answer may depend on the machine, and ``fired``
    (``Placement.time_capped``) says so."""

    def __init__(self, cpu_s: float, wall_s: float):
        self.cpu_deadline = own_cpu_seconds() + float(cpu_s)
        self.wall_deadline = time.perf_counter() + float(wall_s)
        self.fired = False

    def expired(self) -> bool:
        late = own_cpu_seconds() >= self.cpu_deadline or time.perf_counter() >= self.wall_deadline
        self.fired = self.fired or late
        return late

    def wall_remaining(self) -> float:
        """Wall seconds left: the time limit of a CP-SAT call, which counts wall time (its
        work is bounded by its deterministic time; the CPU cap is checked after it)."""
        return self.wall_deadline - time.perf_counter()


@dataclass(frozen=True)
class PartitionRun:
    tool: str      # "kaminpar" | "metis"
    setting: str   # KaMinPar context, or METIS "uf<ufactor>"
    k: int
    seed: int


@dataclass(frozen=True)
class Budget:
    """Deterministic work of every stage for one instance and time limit."""

    time_limit_s: float
    bounds_s: float
    partition_runs: tuple[PartitionRun, ...]
    dense_search: bool
    ls_candidates: int
    kl_rounds: int
    anneal_steps: int
    lns_calls: int
    cabinet_steps: int = 0
    peel_size: int | None = None   # routers per group for densest-set peeling (None: not used)
    peel_iterations: int = 0
    lns_deterministic_time: float = LNS_DETERMINISTIC_TIME
    guaranteed_runs: int = 2   # the first KaMinPar and METIS runs: never skipped
    fixed_s: float = 0.0       # reference-machine seconds of the work done whatever T

    @property
    def cap_cpu_s(self) -> float:
        """CPU seconds of the hard cap: ``HARD_CAP_FACTOR`` times what the reference machine
        needs (the time limit plus the work done whatever the limit)."""
        return tuning.HARD_CAP_FACTOR * (self.time_limit_s + self.fixed_s)

    def hard_cap(self) -> "HardCap":
        """The safety net of this budget, started now."""
        return HardCap(self.cap_cpu_s, tuning.WALL_CAP_FACTOR * self.cap_cpu_s)

    @classmethod
    def of(cls, graph: Graph, limits: Limits, time_limit_s: float) -> "Budget":
        t = float(time_limit_s)
        k_min = max(2, limits.min_blocks())
        entries = graph.adjacency.nnz + graph.n
        runs = partition_runs(graph.n, entries, (k_min, k_min + 1), PARTITION_SHARE * t)
        k = k_min + 1
        dense = graph.n * k <= SEARCH_MAX_CELLS
        per_candidate = SEARCH_S_PER_CELL * graph.n * k + SEARCH_S_PER_GROUP2 * k * k
        ls = max(SEARCH_MIN_CANDIDATES, int(SEARCH_SHARE * t // max(per_candidate, 1e-9)))
        mean_degree = max(graph.adjacency.nnz / max(graph.n, 1), 1.0)
        steps = min(ANNEAL_SHARE * t * ANNEAL_ENTRIES_PER_S / mean_degree, ANNEAL_STEPS_PER_ROUTER * graph.n)
        lns_calls = min(k_min, LNS_MAX_CALLS, int(LNS_SHARE * t // LNS_CALL_S))
        cabinet_steps = min(CABINET_SHARE * t * CABINET_ENTRIES_PER_S / (2 * mean_degree),
                            CABINET_STEPS_PER_ROUTER * graph.n)
        peel_size, peel_iterations = _peeling(graph.n, limits, PEEL_SHARE * t)
        ls_candidates = min(ls, len(runs))
        return cls(time_limit_s=t, bounds_s=BOUNDS_SHARE * t, partition_runs=runs, dense_search=dense,
                   ls_candidates=ls_candidates, kl_rounds=KL_ROUNDS if k <= KL_MAX_GROUPS else 0,
                   anneal_steps=int(steps), lns_calls=int(lns_calls),
                   cabinet_steps=int(cabinet_steps), peel_size=peel_size,
                   peel_iterations=peel_iterations,
                   fixed_s=fixed_seconds(graph.n, entries, k, dense, ls_candidates))


def fixed_seconds(n: int, entries: int, groups: int, dense_search: bool, ls_candidates: int) -> float:
    """Reference-machine seconds of the work placement does whatever the time limit: the first
    KaMinPar and METIS runs, the cabinet split, the floor assignment, the bounds and checks
    (``GUARANTEED_S_PER_ENTRY`` per adjacency entry), and the local search of the best
    candidates and of the hint (``SEARCH_S_PER_CELL`` per router x group each)."""
    searches = ls_candidates + 1 if dense_search else 0
    return tuning.GUARANTEED_S_PER_ENTRY * entries + searches * SEARCH_S_PER_CELL * n * groups


def partition_runs(n: int, entries: int, ks: tuple[int, ...], seconds: float) -> tuple[PartitionRun, ...]:
    """Partitioner runs in priority order (seed 0 of every setting and group count first),
    as many as fit ``seconds`` by the estimates above, and always the first KaMinPar and
    METIS runs."""
    settings = ([("kaminpar", "strong"), ("metis", "uf30"), ("kaminpar", "4xjet"), ("metis", "uf100")]
                if n <= LARGE_N else [("kaminpar", "default"), ("metis", "uf30")])
    runs, spent = [], 0.0
    for seed in range(MAX_SEEDS):
        for k in ks:
            for tool, setting in settings:
                cost = (PARTITIONER_S_PER_ENTRY[tool, setting] * entries * math.log2(max(k, 2))
                        + PARTITIONER_S_PER_GROUP2[tool] * k * k)
                if len(runs) >= 2 and spent + cost > seconds:
                    return tuple(runs)
                runs.append(PartitionRun(tool, setting, int(k), seed))
                spent += cost
    return tuple(runs)


def _peeling(n: int, limits: Limits, seconds: float) -> tuple[int | None, int]:
    """Block size and tabu swaps per set of the densest-set peeling that fit ``seconds``;
    (None, 0) when routers differ in the room they take, there is one group, or the swaps
    that fit are too few."""
    size = limits.block_size()
    if size is None or size >= n:
        return None, 0
    per_iteration = PEEL_S_PER_VISIT * max(peel_visits(n, size), 1)
    iterations = min(PEEL_ITERATIONS, int(seconds / per_iteration))
    return (size, iterations) if iterations >= PEEL_MIN_ITERATIONS else (None, 0)


def peel_visits(n: int, size: int) -> int:
    """Routers left summed over the sets of a peeling: the visits of one tabu iteration."""
    return sum(n - b * size for b in range(-(-n // size) - 1))


def dense_eigen_fits(n: int, seconds: float) -> bool:
    """Whether all eigenvalues of an n x n dense matrix fit in ``seconds`` (estimate)."""
    return DENSE_EIG_S_PER_CUBE * float(n) ** 3 <= seconds


def lobpcg_fits(entries: int, seconds: float) -> bool:
    return LOBPCG_S_PER_ENTRY_ITER * entries * LOBPCG_ITERATIONS <= seconds
