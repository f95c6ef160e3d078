"""The topologies' limits and sizing tolerances in one place, each with what chose it.

The limits refuse, before anything is built, a topology the rest of the pipeline could never
plan; the tolerances decide which configurations ``planner size`` and ``planner compare`` call
"the target size".
"""

from __future__ import annotations

MAX_Q = 2048
"""Largest finite field GF(q) of the algebraic families: its tables (q x q int64 for + and x)
take 2 x 32 MiB; Slim Fly at q = 2048 already has 8.4 M routers, far beyond ``MAX_ROUTERS``."""

MAX_ROUTERS = 200_000
MAX_LINKS = 20_000_000
"""Largest topology a builder or importer accepts: twice the cables a plan may have
(``planner.run.guards.MAX_CABLES``, 10 M), so a topology is refused here only when no plan of it
could be made; the ~100K-endpoint plans of benchmarks/RESULTS.md have at most 4,221 routers
and 248,000 cables."""

MAX_ENDPOINTS_PER_ROUTER = 100_000
"""Far above any router's ports, and small enough that counts of endpoints stay exact in
64-bit arrays (routers x p)."""

MAX_PER_ROUTER = 10_000
"""Most endpoints on one router, and most cables between one router pair, an imported file may
give, and the largest ``radix`` of the GPU-fabric builders: above the largest chassis switch
(about 2,300 ports with breakout, ``guards.MAX_RADIX``)."""

MAX_BYTES = {".csv": 32 * 2 ** 20, ".anynet": 64 * 2 ** 20, ".graphml": 192 * 2 ** 20}
"""File size per format: about twice the file of the largest network planned in
benchmarks/RESULTS.md (Slim Fly q=89, 15,842 routers, 1.05 M links, 1 M endpoints: edge list
13.4 MB, anynet 26 MB, GraphML 87 MB); larger files would take longer to plan than to doubt."""

MAX_ENDPOINTS = 100_000_000
MAX_RADIX = 1024
"""``planner size --endpoints N --max-radix R``: a thousand times the largest benchmarked plan,
and the ports of the largest switch a family is sized for (sizing enumerates every radix up to
it)."""

SIZE_TOLERANCE = 0.25
"""A configuration counts as the target size when its endpoints are within ±25 % of it: the
algebraic families grow in steps of q (Slim Fly q = 17 -> 19 is +25 % routers), so a tighter
window leaves some families with no configuration at all."""

MIN_PORTS_USED = 0.5
"""``like_for_like`` leaves out a family whose configuration uses under half the switch's ports
(the issue's torus at one endpoint per router: 7 of 32 ports)."""

GPU_NICS = 8
"""NICs per server ``planner size`` gives the GPU fabrics (rail-optimised and multi-plane fat
trees): one per GPU of an 8-GPU server, as the DGX H100 / B200 servers of the NVIDIA DGX
SuperPOD reference architectures (8 ConnectX-7 NICs)."""
