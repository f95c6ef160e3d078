"""Budgets and thresholds of the performance stage, in one place, each with what chose it.

The budgets count work (LP nonzeros, array elements), never seconds, so a plan's performance
block is the same on a quiet and on a loaded machine (``benchmarks/bench_performance.py``
checks it; its results are in ``benchmarks/PERFORMANCE.md``). The modules read them as
``tuning.NAME`` when they run, so lowering one (``monkeypatch.setattr(tuning, NAME, value)``)
reaches every module that uses it.
"""

LP_NONZEROS_MAX = 60_000
"""Largest LP (constraint-matrix nonzeros) solved exactly (``theta``). Measured with HiGHS's
interior point solver on 2 busy cores: Slim Fly q=5 (50 routers, 55,000 nonzeros) 0.45-0.7 s;
OFT q=5 (144,150) 4-13 s; Dragonfly h=3 (324,900) 28-38 s; Slim Fly q=9 (1.05 M) several
minutes (dual simplex: 555 s). The LP grows as (sending routers) x (arcs) x 3."""

ECMP_WORK_MAX = 25_000_000
"""Largest (destination routers x arcs) for the ECMP flow (``theta``) and the exact zero-load
latency (``zero_load``); both cost that many array elements per BFS level. Measured on 2 cores:
Slim Fly q=19 (722 routers, 20,938 arcs, 15 M) 0.9 s quiet; Jellyfish 1,386 x 21 (40 M) 8 s
with the machine loaded 6x; at 100K endpoints (Slim Fly q=41: 3,362 routers, 205,082 arcs,
690 M) it would take minutes, so large plans get bounds and sampled latencies instead. It also
sizes the latency sample: ``ECMP_WORK_MAX // arcs`` source routers (121 of 3,362 for that
Slim Fly, benchmarks/PERFORMANCE.md)."""

BATCH_ELEMENTS = 4_000_000
"""Array elements per batch of destinations (``throughput.batches``): about 32 MiB of float64
per working array. Chosen by that arithmetic, not by a timing; the peak memory of
benchmarks/PERFORMANCE.md (at most 183 MiB per run, 1K to 100K endpoints) was measured with
it."""

LATENCY_SAMPLE_SEED = 0
"""Seed of the source-router sample for the latency of plans above ``ECMP_WORK_MAX``. Not
measured: any fixed seed makes the sample, and so the summary, reproducible."""

SPECTRAL_ROUTERS_MAX = 1_000
"""Largest router count for the spectral bisection bound (``bisection_bounds``; an eigen-solve:
2.4 s at 1,386 routers on a loaded machine); above it the flow bound stands alone."""

DEFAULT_ROUTER_LATENCY_NS = 150.0
"""Router (switch) delay used when neither the catalog's router model nor ``--router-latency-ns``
gives one: the order of a current cut-through HPC switch ASIC (NVIDIA states 130 ns port to port
for HDR InfiniBand Quantum switches); Ethernet data-centre switches are slower (300-600 ns).
A vendor figure, not measured here."""

MAX_ROUTER_LATENCY_NS = 100_000.0
"""A router delay above 100 µs is not a switch; rejected as a typo. A plausibility limit (switch
delays are 100-1,000 ns port to port), not a measurement."""

RESILIENCE_LP_NONZEROS_MAX = 20_000
"""Largest sum of LP nonzeros over one failure kind (``resilience``): every failure of the kind
gets the exact LP only when each fits ``LP_NONZEROS_MAX`` and all together fit this.
Measured on 2 cores at a load average of 17-20: Slim Fly q=5 (55,000 nonzeros per LP) takes
about 2 s per failure (12 trunk failures 26 s, 6 panel failures 31 s). At 200,000 the
two-hall Dragonfly a=4,p=2,h=2 (72 endpoints; 9 trunks, 6 panels, 7 tray pieces) spent 5.3 of
its 8.4 CPU s in these LPs (0.3 s each), and every small plan of the test suite paid the same:
the suite's CPU doubled. At 20,000 its resilience block takes 0.09 s, from the labelled
bounds. The exact LP per failure is what ``tests/test_resilience.py`` raises this budget
for."""

RESILIENCE_BFS_WORK_MAX = 20_000_000_000
"""Largest (failures x routers with endpoints x arcs) of one failure kind for exact hops after
every failure (a bit-parallel BFS each); above it the hops are the intact distances' lower
bound. Measured on 2 cores at a load average of 17-20 (benchmarks/RESILIENCE.md): the
default 10K plan (Slim Fly q=19: 722 routers, 20,938 arcs) takes 25 ms per failure, about
half of it the BFS; its 749 trunk failures are 1.1e10 and fit, so every kind of that plan has
exact hops in under a minute; the 100K Dragonfly's cabinets (3,848 x 7,696 x 292,448 = 8.7e12)
get the lower bound."""

DEFAULT_FAIL_LINKS = 10
"""Random cable failures per draw when ``--fail-links`` is not given (fewer when the plan has
fewer network cables). Not measured: about one router's worth of network cables on the
default Slim Fly (29 network ports per router), a handful of bad cables at once."""

FAIL_LINK_SAMPLES = 32
"""Draws of ``--fail-links`` random cables; each costs as much as one failure group."""

FAIL_LINK_SEED = 26
"""Mixed with ``--seed`` to draw the failed cables. Not measured: any fixed value makes the
draws, and so the summary, reproducible."""

RESILIENCE_WORK_MAX = 10_000_000
"""Largest (failures x arcs) of a failure kind that ``--resilience all`` (the default) measures;
a kind named on its own is measured whatever its size. Measured with the default 10K plan
(``planner plan``: Slim Fly q=19, 20,938 arcs) on 2 cores at a load average of 18: its kinds
took cabinet 4.9 s (361 failures, 7.6e6), trunk 12.5 s (749, 1.6e7), panel 6.0 s (307,
6.4e6), tray 1.5 s, row 0.2 s, 32 random draws 0.6 s, against 46 s for the whole plan; with
every kind the plan took half as long again. This budget keeps all but the trunks (named in
``not_derived``, measured with ``--resilience trunk``), about 13 s, and leaves out the 100K
Dragonfly's cabinets (3,848 x 292,448 = 1.1e9: 7 minutes loaded, benchmarks/RESILIENCE.md)."""

DISTANCE_MATRIX_MAX = 100_000_000
"""Largest router x router distance matrix (int16: 200 MB) kept for the hops lower bound of
failures above ``RESILIENCE_BFS_WORK_MAX``; the 100K Dragonfly's (7,696 routers: 5.9e7,
118 MB) fits. Above it the hops are not computed and θ's path-length bound is left out. Chosen
by memory, not measured."""

RESILIENCE_EXACT_S_PER_NONZERO = 1e-4
"""Seconds per LP nonzero that ``--resilience-exact`` warns of (its estimate of the exact LPs'
time). From the HiGHS timings of ``LP_NONZEROS_MAX`` on 2 busy cores: Dragonfly h=3 (324,900
nonzeros) 28-38 s, 1e-4 s each; Slim Fly q=5 (55,000) 0.45-2 s, 1e-5 to 4e-5. The larger
figure: the LP time grows faster than its size, so the estimate errs long on small LPs."""
