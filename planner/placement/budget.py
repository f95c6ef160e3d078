"""Work budgets of the placement stages, sized from the time limit in deterministic units.

A plan must depend only on its inputs, its seed and the time limit T, never on how fast or
busy the machine is. So no stage watches the clock: T is converted once, here, into units of
work that do not depend on the machine (partitioner runs, local-search candidates, annealing
steps, CP-SAT calls of fixed deterministic time, eigen-solver sizes), using the speeds
measured on the reference machine (2-core AMD EPYC, 2026, idle; numbers below). There the
budgets use about half of T; on a machine twice as slow or busy they take about T.

The hard wall-clock cap ``HARD_CAP_FACTOR`` x T is only a safety net for a machine far slower
than the reference one: stages ask ``WallClockCap.expired()`` between units of work, and a
placement the cap cut short says so (``Placement.time_capped``, the ``planner plan`` summary).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from planner.placement.capacity import Limits
from planner.placement.graph import Graph

HARD_CAP_FACTOR = 10.0

# Shares of T per stage, in seconds of the reference machine. They add up to about 0.4 of T, so
# a machine busy with two other CPU-bound processes (each process then gets 2/3 of a core)
# still finishes well within T.
BOUNDS_SHARE = 0.03        # issue 16 requires <= 10 % of T at every size: margin for 3x load
PARTITION_SHARE = 0.08
SEARCH_SHARE = 0.06        # local search on the partitioners' candidates
ANNEAL_SHARE = 0.15
LNS_SHARE = 0.03
PEEL_SHARE = 0.04          # densest-set peeling (``peel``), membership floors only
CABINET_SHARE = 0.25       # reach floors: routers over cabinets priced by the cable dollars
                           # (they skip the grouping-level annealing and LNS, 0.18 of T)

# Reference-machine speeds (seconds per unit), measured on PN q=23, MLFM h=21, Jellyfish 1000,
# Slim Fly q=19 and q=29, OFT q=16 and q=37, Dragonfly a=32 h=16. A KaMinPar or METIS run costs
# about c x (adjacency entries + routers) x log2(groups) + c_k x groups^2 (many small blocks:
# OFT q=16 in 273 groups takes 0.7-1.1 s whatever the context); the largest c seen per setting.
PARTITIONER_S_PER_ENTRY = {("kaminpar", "strong"): 1.0e-6, ("kaminpar", "4xjet"): 8e-7,
                           ("kaminpar", "default"): 4e-7, ("metis", "uf30"): 6e-7,
                           ("metis", "uf100"): 6e-7}
PARTITIONER_S_PER_GROUP2 = {"kaminpar": 1.5e-5, "metis": 6e-6}
LARGE_N = 5000             # above: KaMinPar "default" context, METIS ufactor 30 only
MAX_SEEDS = 4
# The local search costs about c x routers x groups (dense W) + c_k x groups^2 (the swap pass
# visits block pairs: 0.94 s for OFT q=16 in 273 groups) per candidate.
SEARCH_S_PER_CELL = 4e-7
SEARCH_S_PER_GROUP2 = 1.2e-5
SEARCH_MAX_CELLS = 20_000_000   # routers x groups of the dense W; annealing goes beyond
SEARCH_MIN_CANDIDATES = 1
KL_MAX_GROUPS = 80
KL_ROUNDS = 3
# Annealing: one step touches about one router's adjacency; ~1.1e9 entries per second
# (45M steps/s at degree 24). Returns fall off with steps per router: demi-PN q=27 (757
# routers, groups of 36) went 8,909 -> 8,766 with 2.5e8 steps and only to 8,741 with 1e9.
ANNEAL_ENTRIES_PER_S = 1.1e9
ANNEAL_STEPS_PER_ROUTER = 500_000
# CP-SAT pair LNS: calls of LNS_DETERMINISTIC_TIME each (about 0.25 s of wall time here).
LNS_DETERMINISTIC_TIME = 0.1
LNS_CALL_S = 0.25
LNS_MAX_CALLS = 20
# Densest-set peeling: one tabu iteration visits every router left once or twice, ~3.5-4.4e-9 s
# per visit (PN q=23 in groups of 44: 14,450 visits x 30K iterations in 1.5 s; demi-PN q=27 in
# groups of 36: 8,337 x 30K in 1.1 s). Swaps per set against demi-PN q=27's optical links after
# the local search and 2.5e8 annealing steps: 1K 8,768 (no better than the partitioners' 8,765),
# 2K 8,758, 5K 8,747, 10K 8,742, 30K 8,734; below PEEL_MIN_ITERATIONS peeling is skipped.
PEEL_ITERATIONS = 30_000
PEEL_S_PER_VISIT = 5e-9
PEEL_MIN_ITERATIONS = 5_000
# Routers over cabinets (``cabinet_anneal``): a step prices the links of one or two routers,
# ~1.2e8 adjacency entries per second (4M steps in 1.9 s on Slim Fly q=19, degree 29, on the
# hot-aisle floor). Returns fall off with steps per router: the default plan's network cables
# cost $2,913,675 before the search, $2,820,580 after 1.3M steps, $2,817,227.50 after the 5.2M
# of this budget (7,200 per router) and $2,811,610 after 20.7M.
CABINET_ENTRIES_PER_S = 1.2e8
CABINET_STEPS_PER_ROUTER = 20_000
# Dense symmetric eigenvalues (LAPACK via scipy.linalg.eigh, one BLAS thread): about c x n^3
# seconds (n = 1000: 0.11 s, 2000: 0.51 s, 3000: 2.3 s on a loaded machine).
DENSE_EIG_S_PER_CUBE = 1.0e-10
# Sparse products of the counting bounds (A^2 for the C4 test, B B^T for common neighbours):
# about c x entries of the product (OFT q=37: 8M entries per product, ~0.2 s each here).
SPARSE_PRODUCT_S_PER_ENTRY = 5e-8
# Composition LP: about c x count vectors (enumeration, link caps and column generation; fat
# tree k=20 in groups of 100 routers: 139K vectors in 0.18-0.24 s, k=34 in groups of 74: 0.1 s).
COMPOSITION_S_PER_VECTOR = 2e-6
# LOBPCG Fiedler vector of a large Laplacian: about c x entries x iterations.
LOBPCG_S_PER_ENTRY_ITER = 2e-8
LOBPCG_ITERATIONS = 200


class WallClockCap:
    """The hard wall-clock cap: far above the work budgets, a safety net only. Stages ask
    ``expired()`` between units of work; once it says True the answer may depend on the
    machine's speed and load, and ``fired`` (``Placement.time_capped``) says so."""

    def __init__(self, seconds: float):
        self.deadline = time.perf_counter() + float(seconds)
        self.fired = False

    def expired(self) -> bool:
        late = time.perf_counter() >= self.deadline
        self.fired = self.fired or late
        return late

    def remaining(self) -> float:
        return self.deadline - time.perf_counter()


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
        return cls(time_limit_s=t, bounds_s=BOUNDS_SHARE * t, partition_runs=runs, dense_search=dense,
                   ls_candidates=min(ls, len(runs)), kl_rounds=KL_ROUNDS if k <= KL_MAX_GROUPS else 0,
                   anneal_steps=int(steps), lns_calls=int(lns_calls),
                   cabinet_steps=int(cabinet_steps), peel_size=peel_size,
                   peel_iterations=peel_iterations)


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
