"""The inputs' defaults and limits in one place, each with what chose it.

Everything else a plan is tuned by comes from the input files themselves (the catalog's parts
and prices, the floor's halls, overheads and slack); these numbers decide what an input file,
a spec or a command line may say before any stage runs.
"""

from __future__ import annotations

DEFAULT_TIME_LIMIT_S = 10.0
"""Placement time limit when none is given: the placement budgets scale with it, and the ~10K
endpoint plans of benchmarks/RESULTS.md take 2.5-3.6 s of it (about a third) on the reference
machine, so a machine three times slower or busy still finishes within it."""
MAX_TIME_LIMIT_S = 86_400.0
"""A day: placement budgets grow with the limit (annealing steps, partitioner seeds), so a
larger one only makes a run longer than any use of it, and 1e308 overflows the budgets."""
MAX_SEED = 1_000_000
"""Placement derives partitioner seeds 1000 x seed + i, and KaMinPar, METIS and CP-SAT take
32-bit seeds."""
MAX_SPARES_PCT = 1000.0
"""Spares per BOM line: ten spares per part ordered is beyond any spares policy, so a larger
value is a typo (not a measurement)."""

MAX_BYTES = 1_000_000
"""Size of a catalog, floor or spec file: the largest built-in file (catalogs/eth-51t.yaml) is
about 11 KB, so a file a hundred times larger is not a hand-written input."""
MAX_EXTENDS_DEPTH = 4
"""Chain of ``extends`` between input files (the built-in catalogs use one level)."""
MAX_DEPTH = 32
"""Nesting of mappings and lists in an input file (the built-in files use 4)."""
MAX_NUMBER = 1e15
"""Magnitude of any number in an input file: far above any price, length, power or count the
planner takes, far below where sums of them lose precision or overflow (1e308 -> inf)."""
MAX_TEXT = 256
"""Characters of a name, SKU, part number or any other text of an input file: the longest in
the built-in files is under 70 (a SKU under 30), and a label or a NetBox field holds far less."""
LONG_TEXT_FIELDS = {"description": 4_000, "title": 4_000, "out": 4_096, "topology": 4_096,
                    "catalog": 4_096, "floor": 4_096, "extends": 4_096}
"""Fields whose text may be longer: descriptions and titles (the longest built-in one is 313
characters, and they may hold line breaks), and paths (Linux's PATH_MAX is 4,096 bytes)."""

MAX_HALL_SIDE = 1000
"""Most rows, cabinets per row and halls a floor may give (hall sizing tries every shape)."""
MIN_ASPECT = 0.5
"""An "auto" hall's footprint stays within MIN_ASPECT..1/MIN_ASPECT (width / depth): near
square, so the longest tray route stays short (benchmarks/RESULTS_room.md checks 1:2..2:1)."""

MAX_REACH_CABINETS = 1_000
"""Cabinets whose pairwise routes ``planner.inputs.feasibility.copper_neighbours`` measures to
count the routers a copper assembly reaches: a 16 x 30 hot-aisle hall is 480, and copper (5 m at
most in the built-in catalogs) reaches a few cabinets, so the middle 1,000 of a larger grid see
as many as any (1,000 x 1,000 routes: about 20 ms)."""
