"""Placement's tuning: every work budget, schedule and size limit of the placement stage.

One place for the numbers a placement depends on, each with the measurement that chose it
(the reference machine: 2-core AMD EPYC, 2026; instances as named). ``budget`` turns the time
limit T into deterministic units of work with the speeds below; the searches (``anneal``,
``cabinet_anneal``, ``peel``, ``local_search``, ``cpsat``, ``floor_assign``) and the bounds
(``bounds``, ``copper_bounds``) read their schedules and limits from here. Changing one changes
plans: re-run ``benchmarks/bench_placement.py`` (quiet and ``--busy 2``) and say what moved.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- work budgets

HARD_CAP_FACTOR = 10.0
"""The hard cap (``budget.HardCap``) is this many times what the reference machine needs, T plus
the work done whatever T (``budget.fixed_seconds``), in seconds of the placement's own CPU time:
a safety net only, which other processes' load cannot advance. The budgets use about half of T
on the reference machine, so it fires only on a machine some ten times slower per core."""
WALL_CAP_FACTOR = 10.0
"""The wall-clock limit is this many times the CPU cap: it fires only when the planner gets less
than a tenth of a core (two busy loops on two cores leave it two thirds of one)."""
GUARANTEED_S_PER_ENTRY = 3e-5
"""Reference-machine CPU seconds, per adjacency entry, of the placement work done whatever T
(graph, hint, the first KaMinPar and METIS runs, repair, cabinet split, floor assignment, bounds
and checks; the local searches are counted apart), the largest of: Slim Fly q=19 on hot-aisle
(21,660 entries, 0.56 s: 2.6e-5), Dragonfly a=26 g=296 on hot-aisle (300,144 entries, 5.2 s of
which the floor assignment 3.7 s: 1.7e-5), Dragonfly a=56 g=638 on campus with eth-51t
(3.0M entries, 30.5 s for the whole placement, floor assignment 11.5 s: 1.0e-5). Measured
(benchmarks/PLACEMENT.md "Work done whatever the limit") with ``budget.own_cpu_seconds``."""

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


# ----------------------------------------------------------------------------- schedules

# Grouping annealing (``anneal``): T falls geometrically from T_START to T_END links. Measured on
# PN q=23 in groups of 44 routers (2e8 steps from an 11,084-link METIS+LS grouping): 0.3 -> 0.15
# gives 10,987; 1.0 -> 0.15 gives 11,013; a fixed T = 0.2 hovers at 11,044 and 0.3 at ~11,100.
ANNEAL_T_START = 0.3
ANNEAL_T_END = 0.15
ANNEAL_CHUNK_STEPS = 2_000_000   # steps between cap / Ctrl-C checks: ~45 ms at 45M steps/s
ANNEAL_TEMPERATURE_STEPS = 4096  # the temperature is lowered every this many steps (a power of
                                 # two far below any budget: the schedule is smooth)
ANNEAL_ACCEPT_TABLE = 64  # losses of this many links or more are never accepted
                          # (exp(-64/0.3) ~ 1e-93: no step of that size could be accepted)

# Routers over cabinets (``cabinet_anneal``): T in units of the price step that matters (the
# cheapest optical link minus the cheapest link), 0.25 -> 0.005. On the default plan (Slim Fly
# q=19, hot-aisle) this schedule took the network cables from $2,913,675 to $2,817,227.50 in the
# 5.2M steps of the budget (see ``CABINET_STEPS_PER_ROUTER``).
CABINET_T_START = 0.25
CABINET_T_END = 0.005
CABINET_CHUNK_STEPS = 1_000_000   # steps between cap / Ctrl-C checks: about 0.5 s at 2M steps/s
CABINET_TEMPERATURE_STEPS = 1024
NEAR_CABINETS = 32   # target cabinets per move: the 32 cheapest positions seen from a neighbour
                     # (16 cabinets of copper reach around it on the hot-aisle floor, doubled)

# Densest-set peeling (``peel``): tabu tenure, in iterations.
TABU_TENURE = 10     # a swapped-out router stays out 10 (+0..2 at random) iterations; on PN q=23
                     # and demi-PN q=27 (benchmarks/densest_groups.py) the densest sets found
                     # (97 and 96 links) were reached from 8 of 8 and 7 of 8 restarts

# Greedy local search (``local_search``): swap partners tried per block pair.
SWAP_CANDIDATES = 12   # the 12 routers of each block with the best gain toward the other: the
                       # swap pass stays O(groups^2 x 144) (0.94 s for OFT q=16 in 273 groups)


# ----------------------------------------------------------------------------- exact models

PAIR_DETERMINISTIC_TIME = 1.0   # CP-SAT deterministic time of one pair re-partition call (about
                                # 2.5 s of wall time here; the LNS uses LNS_DETERMINISTIC_TIME)
CALL_WALL_S = 600.0             # a CP-SAT call without a hard cap: far above any deterministic-
                                # time limit used here, so it never decides an answer
CPSAT_MAX_GROUPS = 16           # groups over floor slots: up to 16 the CP-SAT QAP polish runs
CPSAT_DETERMINISTIC_TIME = 0.5  # (16 x 16 slot model: proves or improves within 0.5 det. s)
EXACT_SPLIT_MAX_ROUTERS = 64    # groups into 2 cabinets: exact CP-SAT split up to 64 routers,
SMALL_SPLIT_ROUTERS = 16        # straight from the first-fit split up to 16,
ENUMERATE_MAX_ROUTERS = 12      # every 2-way split tried in numpy up to 12 (2^11 = 2,048 splits)
VERIFY_MAX_WORK = 120_000       # routers x cabinets + links x groups: up to here a hint layout is
                                # re-checked by brute force (well under 0.1 s)


# ----------------------------------------------------------------------------- floor slots

LENGTH_WEIGHT = 1e-3   # groups over slots: metres weigh 1/1000 of an optical link, so length
                       # only breaks ties between assignments with the same optical count
TWO_OPT_WORK = 1e8     # swap-delta entries evaluated per start (k^2 per swap): about 1 s here
MANY_GROUPS = 400      # above this, one band assignment instead of 8 linear_sum_assignment starts
                       # (8 starts of a 400 x 400 assignment and 2-opt: ~1 s here)
SPARSE_MIN_GROUPS = 2000   # above this many groups, the hierarchical sparse floor assignment
                           # (``floor_assign_sparse``). Measured (benchmarks/FLOOR_ASSIGN.md): at 181
                           # groups (10K plan) the dense path is 1.7 % cheaper and needs 2.4 MB; at
                           # 2,204 (100K Dragonfly) the sparse one is 1.8 % cheaper, takes half the CPU
                           # and 98 MB against 334 MB, and the dense memory grows k^2 from there
SPARSE_VISITS_PER_LINK = 64  # neighbour visits of the sparse pair exchange per stored flow entry, both
                             # starts together (a pass visits about 16 per entry: 4 passes; 1M plan:
                             # 95M visits, most of its 17 s of CPU after the hall searches)
HALL_TWO_OPT_WORK = 1e7    # swap-delta entries of the dense 2-opt in one hall (k^2 per swap): about
                           # 170 swaps in a hall of 240 groups, 0.1 s; 75 halls at 1M
HALL_LSA_GROUPS = 128      # halls up to this many groups: linear_sum_assignment starts, above: sorted.
                           # 240-group halls with 8 assignments each: 100K Dragonfly 1.3 % cheaper
                           # (82.1M vs 83.2M) but at 1M 600 assignments took a third of the stage
SPARSE_STALL_PASSES = 4    # sparse pair-exchange passes in a row without a swap before it stops
SLOT_TABLE_ENTRIES = 16_000_000  # priced slot-distance tables of the sparse path (128 MB of float64)
SPARSE_CHUNK_VISITS = 1 << 20  # neighbour visits priced at once (a few arrays of 8 MB)
SPARSE_EIGSH_MAXITER = 3000  # Lanczos iterations of the embedding of a hall above MANY_GROUPS groups


# --------------------------------------------------------------------------- bound and table sizes

# Memory and time limits of the bounds and price tables, whatever the time limit: above them a
# bound is skipped (the summary says which) or the slower exact path is not taken.
COMPOSITION_MAX_CLASSES = 3      # router classes of the composition LP (fat trees: 2)
COMPOSITIONS_MAX = 300_000       # count vectors of the composition LP (0.6 s at 2e-6 s each)
C4_CHECK_MAX_WORK = 20_000_000   # entries of A^2 (sum of squared degrees) a product may have
                                 # (1 s at SPARSE_PRODUCT_S_PER_ENTRY)
CLIQUE_DP_MAX_S = 160            # group size of the clique-packing DP (s^2 table, instant)
COLUMN_BATCH = 500               # columns of the composition LP added per round of column
COLUMN_ROUNDS = 30               # generation, and rounds: fat tree k=34 converges in < 10
FIEDLER_DENSE_MAX_N = 64         # LOBPCG with 2 vectors and one constraint needs n >= 11;
                                 # dense eigh is instant below 64
PROJECTION_MAX_SLOTS = 4000      # N x N dense matrices of the projection bound (128 MB each)
ROWS_PER_BLOCK = 256             # rows of the dense projection per block (256 x 4000 x 8 B = 8 MB)
MAX_TABLE_ENTRIES = 12_000_000   # cabinet price table (classes x positions^2 x hall pairs):
                                 # 96 MB of float64; 100K-endpoint plans stay below it
REPAIR_SWAP_PAIRS = 4_000_000    # candidate x partner pairs a repair swap step prices at once
                                 # (32 MB of float64)
SCALAR_RESOLUTION = 1000         # single-weight partitioners: units per block limit (0.1 % of a
                                 # block: every limit stays exact for limits up to 1,000 items)

# Risk spreading (``spread``, ``--spread-risk``): move evaluations per router for each of the
# repairs and the recovery. On the default plan (Slim Fly q=19, hot-aisle, share 1/29) the
# cabinets alone stopped by themselves after 380,594 evaluations (527 per router; 7.1 s at a
# load of 20 on 2 cores), 8 of 2,008 cables left over the limit (benchmarks/RESILIENCE.md),
# well inside the budget of 722,000; with the trays the tray repair takes its whole budget
# there (1,709,788 evaluations in all, 25 s at a load of 7 to 12). Recovery toward the
# cabinets near each neighbour too saved 0.6 % of the cable dollars for twice the time: not kept.
SPREAD_EVALUATIONS_PER_ROUTER = 1000
SPREAD_MAX_ENTRIES = 100_000_000     # routers^2 (the int32 router x cabinet counts and the
                                     # cabinet price table stay below it): 10,000 routers
# Trays under ``--spread-risk`` (``spread``): on the default plan (share 1/29, tray limit 4
# cables, the plain layout 17,443 tray cables over it; placement alone, hot-aisle) repairs
# trading a cabinet cable for 16 tray cables throughout ended at 94 cabinet and 16,922 tray
# cables over, for 32 tray cables at 39 and 18,003, for 64 at 19 and 19,248: 16 is the
# largest weight of these that kept the tray excess below the plain layout's. With the tray
# repair, the last cabinet repair, all within the plain layout's tray excess, and each router's
# tray share capped at the plain layout's largest, the search ends at 75 and 17,418 for
# +$822,869.00 of network cables. The tray table takes 0.14 s and 7.5 MB at 361
# cabinets, 0.4 s and 17.5 MB (346 MB peak while built) at 500, 3.3 s and 115 MB (1 GB peak)
# at 1,000: above 500 cabinets the trays are measured only.
SPREAD_CABINET_WEIGHT = 16           # tray cables one cabinet cable over the limit weighs
# Group pairs under ``--spread-risk`` (``spread``): a group pair's cable over its cabinet limit
# weighs this much of a router's cabinet cable in the cabinet repairs. On the default plan
# (share 1/29; the plain layout 6,054 pair cables over, the router-only search 178, 16
# router cables and 21,947 tray cables over) the weights 0.25 / 0.5 / 0.75 / 1 ended at 19 / 12
# / 22 / 17 router cables and as many pair cables over, 22,198 / 22,016 / 20,746 / 21,858
# tray cables over: 0.5 leaves the fewest cabinet cables over (+$1,044,488 against +$1,064,949).
SPREAD_PAIR_WEIGHT = 0.5
# Group pairs on tray segments and chains (``spread``): evaluations of the chain repair and of
# the group-pair tray repair, in budgets of SPREAD_EVALUATIONS_PER_ROUTER x routers; first
# links raising the cabinet excess by at most SPREAD_CHAIN_SLACK, the cheapest SPREAD_CHAIN_FIRST
# of them tried per cell. Default plan (share 1/29): the chains took the cabinet cells from 12
# router and 12 pair cables over to 9 and 9 in 72,736 evaluations (stopping by themselves; with
# the tray cap lifted from the chains, the 64 cheapest first links found nothing: kept). The
# pair tray repair took 31,721 pair tray cables over to 31,700 with a whole budget (2.7M
# evaluations, 39 s at a load of 16) and with a quarter (182,016, 1.9 s); on Dragonfly
# a=8,p=4,h=4 g=9 (share 0.25) 268 to 246 and to 250. Holding the repairs before it to the
# plain layout's pair tray excess left 19 cabinet cables over on the default plan before the
# chains (12 without) and ended at 31,891 pair tray cables over: not kept.
SPREAD_CHAIN_BUDGET = 1
SPREAD_CHAIN_SLACK = 1.0
SPREAD_CHAIN_FIRST = 64
SPREAD_PAIR_TRAY_BUDGET = 0.25
SPREAD_TRAY_MAX_PAIRS = 250_000      # cabinets^2 above which trays are measured only
# Exact cabinet repair (``spread_repair.rematch``, after the chains, where a cabinet holds at
# most two routers): the CP-SAT matching's deterministic seconds (one worker). Default plan
# (share 1/29, 6,498 compatible pairs): 18 cabinet cables over (9 router, 9 group pair) -> 0,
# 50 routers moved, in 1.0 deterministic s (0.8 s CPU with the compatibility table; the limit
# ends the search for the most cabinets kept, not the search for a matching). Placing the new
# pairs by price alone left 23,690 router tray cables over and 33 cables over the routers' tray
# caps; a tray cable over (cap: 2^20 of them) weighing SPREAD_EXACT_TRAY_PRICE dollars there,
# 23,519 and 4; then cabinet contents exchanged (SPREAD_CONTENT_SWAPS_FILLED x routers tried
# for the filled cabinets with every cabinet, tray cables alone: 22,573, no cap exceeded,
# 1.9 s), then every cabinet with its NEAR_CABINETS (SPREAD_CONTENT_SWAPS_NEAR x routers
# tried) at SPREAD_CONTENT_TRAY_DOLLARS a router tray cable plus the price. Measured from the
# search's layout before the repair (price change of the whole repair / router tray cables
# over): tray cables alone, 30 tries a router: +$180,629 / 21,354 (1.4 s), 60: 21,200 (3.2 s);
# $30 a tray cable (30 tries): -$24,199 / 22,111; $100: +$57,000 / 21,721 at 20 tries
# (1.4 s), +$43,289 / 21,542 at 30 (2.6 s), +$36,023 / 21,473 at 40; $300 (30): +$83,066 /
# 21,394; $1,000 (30): +$134,938 / 21,390. $100 at 20 tries keeps the CPU of the tray-only
# pass and the option within +20 % of its CPU time before the repair.
SPREAD_EXACT_DETERMINISTIC_TIME = 1.0
SPREAD_EXACT_TRAY_PRICE = 1e6      # dollars a tray cable over the limit weighs in placing pairs
SPREAD_CONTENT_SWAPS_FILLED = 30    # per router: exchanges tried for the cabinets it filled
SPREAD_CONTENT_SWAPS_NEAR = 20      # per router: then every cabinet with its near ones
SPREAD_CONTENT_TRAY_DOLLARS = 100.0  # dollars a router tray cable over weighs in those
SPREAD_REMATCH_MAX_ROUTERS = 4000    # the (routers x routers) compatibility table: 16 MB
SPREAD_REMATCH_MAX_EDGES = 200_000   # compatible pairs the model takes (one Boolean each)
# Tray lower bound (``spread_bounds.tray_lower_bound``): one linear program per router profile
# and cabinet (default plan: 1 profile x 361 cabinets, 87 segments: 1.9 s of CPU), the slots
# assignment while routers x cabinet slots stays below SPREAD_BOUND_MAX_SLOTS (722 x 722 on the
# default plan; above it each router takes its best cabinet, a weaker bound).
SPREAD_BOUND_MAX_LPS = 4000
SPREAD_BOUND_MAX_SLOTS = 4_000_000


# ----------------------------------------------------------------------------- growth placement

# ``planner expand``: the search over where the new routers stand (``growth_search``). One
# evaluation prices one new router's links at one site (a standing cabinet or a free position);
# a round visits every new router at every site about twice (moves, swaps). Measured with
# ``place_growth`` alone on plans of ``planner plan --resilience off`` (new-link dollars,
# greedy start -> search):
# - Dragonfly a=8, p=4, h=4, g=9 -> 17 on an 8 x 24 hall (64 new routers, 192 sites):
#   $84,782.50 -> $84,037.50 at 2 evaluations per router and site, $83,707.50 at 5, $83,695 at
#   10; at 20 it stops by itself (137,592 evaluations, 11 per router and site).
# - Jellyfish 200 -> 260 switches of degree 10, same hall (60 new, 192 sites): $191,715 ->
#   $186,887.50 at 2, $184,442.50 at 5, $183,920 at 10; it stops by itself at 12.3.
# - Dragonfly a=26, p=13, h=13, g=296 -> 326 on hot-aisle (780 new routers, 7,680 sites):
#   $23,654,391 -> $20,492,036 after 3M evaluations (1.2 s of CPU here), $16,582,603 after 10M
#   (5.2 s), $16,473,170 after 20M (10.2 s), $16,444,559 after 40M (20.8 s): 20M keeps 0.7 %
#   over 10M for 5 s; 40M adds 0.2 % for 10 s more.
GROWTH_EVALUATIONS_PER_ROUTER = 20   # per router and site: small growths stop by themselves
GROWTH_MAX_EVALUATIONS = 20_000_000  # whatever the size (the 100K Dragonfly above)
GROWTH_SWAP_SITES = 4    # full sites a router tries swapping into, cheapest first. The two
                         # small cases above: 1 site $83,985 / $186,100; 4: $83,695 /
                         # $183,920; 8: $83,695 / $183,645; 16: $83,695 / $183,507.50 at 2.8x
                         # the CPU of 4 (the swaps' Python loop)
