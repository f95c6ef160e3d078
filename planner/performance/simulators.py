"""What the network simulators can express of a plan, and the BookSim2 run options.

The plan folder carries three simulator inputs (``planner/exports/anynet.py``, ``graphml.py``,
``codes.py``); their limits come from each reader's source:

- BookSim2 ``anynet`` (booksim2 ``src/networks/anynet.cpp``): ``min_anynet`` is the only routing
  function; ``AnyNet::route`` runs one Dijkstra per router over the channel latencies of the
  netlist and keeps ONE next hop per destination. So the latencies decide the routes: with
  the cable delays alone, paths are latency-shortest, not minimal. ``booksim_channels`` adds a
  per-hop delay H to every channel (the router's own delay, folded into its output channel),
  raised when needed to the smallest H that makes every latency-shortest path minimal:
  a k-hop path weighs at most k·(H + c_max) and any longer one at least (k+1)·(H + c_min), so
  H > D·(c_max - c_min) - c_min suffices (D = largest hop distance to a router with
  endpoints). Single-path routing also leaves a fat tree's parallel up-links idle.
- SST/Merlin ``anytopo`` (sst-elements ``merlin/topology/anytopo.cc``): every router must carry at
  least one endpoint (``No endpoint-to-port mapping provided`` otherwise) and all router links
  share one latency; the GraphML is still a complete description for other readers.
- CODES ``dragonfly-dally`` (codes ``src/networks/model-net/dragonfly-dally.cxx``): Dragonfly
  only; one propagation delay per link class (``local_delay``, ``global_delay``, ``cn_delay``)
  plus ``router_delay``, so the cable latencies enter as class means.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from planner.run.errors import InputError
from planner.run.terminal import printable
from planner.topologies.base import Topology

if TYPE_CHECKING:  # pandas is not imported for ``planner --help`` (this module is)
    import pandas as pd

BOOKSIM_DEFAULTS = {"cycle_ns": 1.0, "injection_rate": 0.1, "traffic": "uniform"}
"""BookSim run options written into ``booksim.cfg`` (``planner plan --booksim-*``)."""

BOOKSIM_TRAFFIC = ("uniform", "randperm", "bitcomp", "bitrev", "shuffle", "transpose",
                   "diagonal", "asymmetric", "taper64", "hotspot")
"""BookSim traffic patterns that need no mesh parameters (booksim2 ``src/traffic.cpp``);
``tornado``, ``neighbor``, ``badperm_yarc`` and ``bad_dragon`` read k and n of a k-ary n-cube
or the built-in dragonfly, which an anynet netlist does not have."""

MAX_CHANNEL_CYCLES = 1 << 30
"""BookSim stores channel latencies as int; keep far below 2^31."""

TRAFFIC_TEXT = re.compile(r"[A-Za-z0-9_]+(\([A-Za-z0-9_{},. -]*\))?")
"""How a BookSim traffic pattern is written (``uniform``, ``hotspot({0,1})``): a ';', a quote
or a newline would end its ``booksim.cfg`` statement and start another (booksim2
``src/config.l``, the configuration file's lexer)."""


def check_traffic(text) -> str:
    """``text`` (``--booksim-traffic``) stripped, or InputError when ``booksim.cfg`` could not
    hold it as one statement (``TRAFFIC_TEXT``)."""
    name = text.strip() if isinstance(text, str) else None
    if name is None or not TRAFFIC_TEXT.fullmatch(name):
        raise InputError(f"--booksim-traffic {printable(repr(text))} is not a BookSim traffic "
                         f"pattern: write a name with optional arguments in parentheses (e.g. "
                         f"uniform, hotspot({{0,1}})), without ';', quotes or line breaks")
    return name


def check_booksim(options: dict | None, num_endpoints: int) -> dict:
    """The BookSim options with defaults filled in, or InputError naming the option."""
    opts = dict(BOOKSIM_DEFAULTS)
    for key, value in (options or {}).items():
        if key not in opts:
            raise InputError(f"unknown BookSim option {key!r}; valid: {', '.join(opts)}")
        if value is not None:
            opts[key] = value
    cycle = opts["cycle_ns"]
    if not (isinstance(cycle, (int, float)) and math.isfinite(cycle) and 0.01 <= cycle <= 1000):
        raise InputError(f"--booksim-cycle-ns must be a router clock period between 0.01 and "
                         f"1000 ns, got {cycle!r}")
    rate = opts["injection_rate"]
    if not (isinstance(rate, (int, float)) and math.isfinite(rate) and 0 < rate <= 1):
        raise InputError(f"--booksim-rate must be an injection rate in flits per cycle per node, "
                         f"greater than 0 and at most 1, got {rate!r}")
    name = check_traffic(opts["traffic"])
    base = name.split("(")[0]
    if base not in BOOKSIM_TRAFFIC:
        hint = (" (it needs the k and n of a k-ary n-cube or of BookSim's own dragonfly, which "
                "an anynet netlist does not have)"
                if base in ("tornado", "neighbor", "badperm_yarc", "bad_dragon") else "")
        raise InputError(f"--booksim-traffic {name!r} is not a BookSim traffic pattern for an "
                         f"anynet network{hint}; use one of {', '.join(BOOKSIM_TRAFFIC)}")
    n = int(num_endpoints)
    power_of_two = n > 0 and n & (n - 1) == 0
    if base in ("bitcomp", "bitrev", "shuffle", "transpose") and not power_of_two:
        raise InputError(f"--booksim-traffic {base} needs a power-of-two number of endpoints "
                         f"(BookSim exits otherwise); this plan has {n:,}")
    if base == "transpose" and (n.bit_length() - 1) % 2:
        raise InputError(f"--booksim-traffic transpose needs an even power of two endpoints; "
                         f"this plan has {n:,}")
    if base == "taper64" and n != 64:
        raise InputError(f"--booksim-traffic taper64 needs exactly 64 endpoints; this plan has "
                         f"{n:,}")
    opts.update(cycle_ns=float(cycle), injection_rate=float(rate), traffic=name)
    return opts


@dataclass(frozen=True)
class BooksimChannels:
    """Channel latencies of the anynet netlist, per topology link (u < v)."""

    cable_cycles: np.ndarray       # ceil(slowest cable of the pair / cycle), >= 1
    router_cycles: int             # the router delay in cycles (rounded)
    per_hop: int                   # H added to every channel in netlist.anynet
    minimal_per_hop: int           # smallest H that guarantees minimal routes
    reach: int                     # D: largest hop distance to a router with endpoints

    @property
    def raised(self) -> bool:
        return self.per_hop > self.router_cycles

    @property
    def cycles(self) -> np.ndarray:
        return self.cable_cycles + self.per_hop

    @property
    def physical_cycles(self) -> np.ndarray:
        return self.cable_cycles + self.router_cycles


def cycles_of(latency_ns: np.ndarray, cycle_ns: float) -> np.ndarray:
    """Whole cycles, rounded up (after rounding away float noise below 1e-6), at least 1."""
    cycles = np.ceil(np.round(np.asarray(latency_ns, float) / cycle_ns, 6))
    return np.maximum(cycles, 1).astype(np.int64)


def reach_to_leaves(top: Topology) -> int:
    """Largest hop distance from any router to a router with endpoints."""
    from planner.performance.throughput import Arcs, batches, distances_to

    arcs = Arcs.of(top)
    leaves = top.leaves()
    reach = 0
    for part in batches(len(leaves), top.num_routers):
        reach = max(reach, int(distances_to(arcs, leaves[part]).max(initial=0)))
    return reach


def booksim_channels(top: Topology, cables: pd.DataFrame, router_ns: float,
                     cycle_ns: float) -> BooksimChannels:
    """Channel cycles for a minimal-routing anynet netlist (see the module docstring)."""
    from planner.performance.zero_load import link_latency_ns

    cable = cycles_of(link_latency_ns(top, cables, slowest=True), cycle_ns)
    router = int(round(router_ns / cycle_ns))
    reach = reach_to_leaves(top) if len(cable) else 0
    lo, hi = (int(cable.min()), int(cable.max())) if len(cable) else (1, 1)
    minimal = max(0, reach * (hi - lo) - lo + 1)
    per_hop = max(router, minimal)
    if hi + per_hop > MAX_CHANNEL_CYCLES:
        raise InputError(f"--booksim-cycle-ns {cycle_ns:g}: channel latencies reach "
                         f"{hi + per_hop:,} cycles, more than BookSim can hold; use a longer "
                         "cycle")
    return BooksimChannels(cable, router, per_hop, minimal, reach)


def single_path_warning(top: Topology) -> str | None:
    """The warning for networks whose capacity needs multipath routing (indirect networks:
    every leaf reaches the others through many spines), or None."""
    if top.roles is None:
        return None
    return (f"{top.family} is an indirect network: BookSim's min_anynet routes every router "
            "pair over ONE shortest path, so most parallel up-links stay idle and the "
            "throughput it measures is that of single-path routing, not of the fabric "
            "(summary.json performance.uniform has the multipath theta)")


def merlin_note(top: Topology) -> str | None:
    """Why SST/Merlin's anytopo cannot take this topology, or None if it can."""
    empty = int(np.count_nonzero(top.endpoints == 0))
    if empty == 0:
        return None
    return (f"{empty:,} routers have no endpoints (spines); SST/Merlin's anytopo aborts on them "
            "('No endpoint-to-port mapping provided', sst-elements merlin/topology/anytopo.cc)"
            ", so this GraphML cannot be simulated with anytopo; other GraphML readers take it")


def notes(top: Topology) -> dict:
    """The ``simulators`` block of summary.json."""
    return {"booksim": {"routing": "min_anynet: one minimal-hop path per router pair "
                                   "(channel latencies include a per-hop delay chosen so)",
                        "warning": single_path_warning(top)},
            "merlin_anytopo": {"accepted": merlin_note(top) is None, "note": merlin_note(top)},
            "codes": {"written": top.family == "dragonfly" and top.groups is not None,
                      "model": "dragonfly-dally" if top.family == "dragonfly" else None}}
