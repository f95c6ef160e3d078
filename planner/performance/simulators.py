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

import functools
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

def booksim_router_keys(num_vcs: int, vc_buf_size: int) -> list[str]:
    """The router micro-architecture lines of every BookSim2 cfg the plan writes: VCs and their
    buffers, separable input-first allocators, and the pipeline delays written explicitly
    (routing, VC and switch allocation 1 cycle each, switch traversal 1: booksim2
    ``src/booksim_config.cpp`` defaults)."""
    return [f"num_vcs = {num_vcs};",
            f"vc_buf_size = {vc_buf_size};",
            "vc_allocator = separable_input_first;",
            "sw_allocator = separable_input_first;",
            "alloc_iters = 1;",
            "routing_delay = 1;",
            "vc_alloc_delay = 1;",
            "sw_alloc_delay = 1;",
            "st_prepare_delay = 0;",
            "st_final_delay = 1;",
            ""]


BOOKSIM_DEFAULTS = {"cycle_ns": 1.0, "injection_rate": None, "traffic": "uniform"}
"""BookSim run options written into ``booksim.cfg`` (``planner plan --booksim-*``); an
injection rate of None is ``default_rate`` of the plan's saturation estimate."""

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
    if rate is not None and not (isinstance(rate, (int, float)) and math.isfinite(rate) and 0 < rate <= 1):
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
    opts.update(cycle_ns=float(cycle), traffic=name,
                injection_rate=None if rate is None else float(rate))
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


def reach_to_leaves(top: Topology, leaf_diameter: int | None = None) -> int:
    """Largest hop distance from any router to a router with endpoints.

    That is the larger of the diameter between routers with endpoints (``leaf_diameter``,
    ``summary.json`` ``performance.hops.diameter``, measured when not given) and the largest
    distance from a router without endpoints to one with: with the diameter given, a direct
    network (every router has endpoints) needs no search at all.
    """
    from planner.performance.throughput import Arcs, batches, distances_to

    arcs = Arcs.of(top)
    leaves = top.leaves()
    if leaf_diameter is None:
        sources, reach = leaves, 0
    else:
        sources, reach = np.flatnonzero(np.asarray(top.endpoints) == 0), int(leaf_diameter)
    for part in batches(len(sources), top.num_routers):
        dist = distances_to(arcs, sources[part])
        reach = max(reach, int(dist[:, leaves].max(initial=0)))
    return reach


def booksim_channels(top: Topology, cables: pd.DataFrame, router_ns: float,
                     cycle_ns: float, leaf_diameter: int | None = None) -> BooksimChannels:
    """Channel cycles for a minimal-routing anynet netlist (see the module docstring);
    ``leaf_diameter`` as in ``reach_to_leaves``."""
    from planner.performance.zero_load import link_latency_ns

    cable = cycles_of(link_latency_ns(top, cables, slowest=True), cycle_ns)
    router = int(round(router_ns / cycle_ns))
    reach = reach_to_leaves(top, leaf_diameter) if len(cable) else 0
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
    every leaf reaches the others through many spines), or None. ``booksim.cfg`` adds the
    figures of the plan's own routes (``single_path_loads``)."""
    if top.roles is None:
        return None
    return (f"{top.family} is an indirect network: BookSim's min_anynet routes every router "
            "pair over ONE shortest path, so the throughput it measures is that of single-path "
            "routing, not of the fabric (summary.json performance.uniform has the multipath "
            "theta; booksim.cfg gives the idle channels, the max/mean channel load and the "
            "single-path saturation bound of these routes)")


MIN_ANYNET_NOTE = ("min_anynet has no deadlock avoidance (one path per router pair, any VC on "
                   "any hop: booksim2 src/networks/anynet.cpp min_anynet): its buffers can fill "
                   "in a cycle and the run deadlock before the busiest channel saturates")
"""Said in every ``anynet`` cfg, with the load below which it is trustworthy
(``TRUSTED_LOAD_FRACTION``)."""

TRUSTED_LOAD_FRACTION = 0.6
"""An ``anynet`` run is trustworthy below this fraction of the plan's saturation estimate.
Measured in BookSim2 28f43299 (``--booksim-cycle-ns 10``, sample_period 2000): on
``dragonfly:a=4,p=2,h=2`` (estimate 0.9) latency stays within 6 % of zero load up to 0.5 (0.56
of the estimate), doubles at 0.6 (0.67) and the run deadlocks at 0.75 (0.83); on
``fattree:k=8`` (estimate 0.083) it is flat to 0.08 and diverges at 0.1 (docs/performance.md
"Saturation in BookSim2")."""

DEFAULT_LOAD_FRACTION = 0.5
"""The default ``injection_rate`` is this fraction of the plan's saturation estimate. BookSim2
saturated at 0.65-0.8 of the single-path bound of its own routes on ``slimfly:q=5``,
``fattree:k=8`` and ``dragonfly:a=8,p=4,h=4,g=9`` (docs/performance.md "Checked with
BookSim2"), so half of it is below saturation on all three."""

ROUTE_LOAD_MAX_ROUTERS = 2000
"""``single_path_loads`` replays BookSim's route table: R Dijkstras and an R x R table of int32
(16 MB at 2,000 routers). Measured 0.13 s CPU at 780 routers and 29,640 channels (the 10K plan
``dragonfly:a=26,p=13,h=13,g=30``), growing as R x channels: about 1 s at 2,000 routers.
BookSim builds the same table with an O(R³) scan (``AnyNet::route``), so larger anynet plans
are beyond what it runs in practice."""


@dataclass(frozen=True)
class SinglePathLoads:
    """Channel loads of BookSim's min_anynet routes under uniform traffic, per unit injection
    rate (flits per cycle per node); a channel carries 1 flit per cycle."""

    channels: int      # directed router-router channels
    idle: int          # channels no route uses
    max_load: float
    mean_load: float

    @property
    def saturation(self) -> float:
        """Single-path saturation bound: 1 / the busiest channel's load (injection and
        ejection channels carry 1 per node, so never more than 1)."""
        return min(1.0, 1.0 / self.max_load) if self.max_load > 0 else 1.0

    def note(self) -> str:
        """The loss of single-path routing on this plan, named by what it is."""
        ratio = self.max_load / self.mean_load if self.mean_load else 1.0
        if ratio < 1.01:
            return (f"every one of the {self.channels:,} channels carries the same load: "
                    "single-path routing loses nothing here")
        if self.idle:
            return (f"{self.idle:,} of {self.channels:,} channels ({self.idle / self.channels:.0%})"
                    f" carry no traffic (idle links), and the busiest carries {ratio:.2f}x the "
                    f"mean load")
        return (f"every one of the {self.channels:,} channels carries traffic, but path choice "
                f"is uneven: the busiest carries {ratio:.2f}x the mean load")


@functools.cache
def _route_loads_kernel():
    """The numba kernel of ``single_path_loads``, compiled on first use (numba is not
    imported for ``planner --help``)."""
    import heapq

    import numba

    @numba.njit(cache=True)
    def loads(indptr, nbr, lat, endpoints):
        """BookSim's ``AnyNet::route`` from every router (the unvisited router of least
        distance next, lowest id on ties; neighbours in ascending id; strict improvement), then
        each (source, destination) router pair's flow e_s·e_t/N walked hop by hop along each
        router's own next hop, as min_anynet forwards."""
        r = len(endpoints)
        n = endpoints.sum()
        nxt = np.empty((r, r), np.int32)
        dist = np.empty(r, np.int64)
        prev = np.empty(r, np.int64)
        order = np.empty(r, np.int64)
        for s in range(r):
            dist[:] = 1 << 62
            prev[:] = -1
            dist[s] = 0
            heap = [s]               # keys dist·r + id: least distance, then lowest id
            done = np.zeros(r, np.bool_)
            count = 0
            while heap:
                key = heapq.heappop(heap)
                x = key % r
                if done[x]:
                    continue
                done[x] = True
                order[count] = x
                count += 1
                for i in range(indptr[x], indptr[x + 1]):
                    y = nbr[i]
                    d = dist[x] + lat[i]
                    if d < dist[y]:
                        dist[y] = d
                        prev[y] = x
                        heapq.heappush(heap, d * r + y)
            nxt[s, s] = s
            for j in range(1, count):
                t = order[j]
                nxt[s, t] = t if prev[t] == s else nxt[s, prev[t]]
        load = np.zeros(len(nbr))
        for s in range(r):
            if endpoints[s] == 0:
                continue
            for t in range(r):
                if endpoints[t] == 0 or t == s:
                    continue
                flow = endpoints[s] * endpoints[t] / n
                x = s
                while x != t:
                    y = nxt[x, t]
                    lo, hi = indptr[x], indptr[x + 1]
                    while lo < hi:           # neighbours are sorted: binary search for y
                        mid = (lo + hi) // 2
                        if nbr[mid] < y:
                            lo = mid + 1
                        else:
                            hi = mid
                    load[lo] += flow
                    x = y
        return load

    return loads


def single_path_loads(top: Topology, cycles: np.ndarray) -> SinglePathLoads | None:
    """Loads of BookSim's min_anynet routes over the netlist with channel ``cycles`` (per
    ``top.links`` row) under uniform traffic (BookSim's ``uniform`` picks any of the N nodes,
    itself included); None above ``ROUTE_LOAD_MAX_ROUTERS`` routers."""
    r = top.num_routers
    if r > ROUTE_LOAD_MAX_ROUTERS or len(top.links) == 0:
        return None
    u, v = top.links[:, 0].astype(np.int64), top.links[:, 1].astype(np.int64)
    src, dst = np.concatenate([u, v]), np.concatenate([v, u])
    lat = np.concatenate([cycles, cycles]).astype(np.int64)
    order = np.lexsort((dst, src))
    src, dst, lat = src[order], dst[order], lat[order]
    indptr = np.searchsorted(src, np.arange(r + 1)).astype(np.int64)
    load = _route_loads_kernel()(indptr, dst, lat, np.asarray(top.endpoints, np.int64))
    return SinglePathLoads(channels=len(load), idle=int(np.count_nonzero(load == 0)),
                           max_load=float(load.max()), mean_load=float(load.mean()))


def default_rate(estimate: float) -> float:
    """``DEFAULT_LOAD_FRACTION`` of a saturation estimate, rounded down to 2 significant
    digits (0.26, 0.039)."""
    x = DEFAULT_LOAD_FRACTION * estimate
    step = 10.0 ** (math.floor(math.log10(x)) - 1)
    return math.floor(round(x / step, 6)) * step


@dataclass(frozen=True)
class NativeModel:
    """A BookSim2 built-in network that expresses the plan, with its cfg keys."""

    name: str            # file stem: booksim.<name>.cfg
    settings: dict       # topology, k, n
    routings: tuple      # routing_function values, one cfg each (the first is the main one)
    note: str            # how BookSim's network relates to the plan


def native_model(top: Topology) -> tuple[NativeModel | None, str]:
    """BookSim2's own model of the plan, or None, with the reason either way.

    - ``fattree`` (booksim2 ``src/networks/fattree.cpp``) is a k-ary n-tree: n levels of
      k^(n-1) routers, k down and k up ports each, k^n nodes, 1-cycle channels; ``nca_fattree``
      goes up on a random parent to the nearest common ancestor. The planner's fat tree of
      radix K (Al-Fares; K/2 endpoints per edge router) has the same radix, levels and
      up-link fan-out as the (K/2)-ary n-tree, with twice its pods: the top routers of a k-ary
      n-tree leave k of their 2k ports unused. Odd K or an oversubscribed p has no k-ary
      n-tree.
    - ``dragonflynew`` (``src/networks/dragonfly.cpp``) takes k = p and n = 1 only:
      a = 2p routers per group, h = p global links per router, g = a·h + 1 groups, its own
      global arrangement, local channels 10 cycles and global 100 (``DRAGON_LATENCY``);
      ``ugal_dragonflynew`` needs exactly 3 VCs, ``min_dragonflynew`` uses 2 of them.
    """
    params = top.params
    if top.family == "fattree":
        k, levels, p = params["k"], params["levels"], params.get("p")
        if k % 2 or p != k // 2:
            return None, (f"fattree k={k}, p={p}: BookSim's fattree is a k-ary n-tree with as "
                          "many endpoints as up-links per edge router, which needs an even k "
                          "and p = k/2")
        return NativeModel("fattree", {"topology": "fattree", "k": k // 2, "n": levels},
                           ("nca",),
                           f"BookSim's {k // 2}-ary {levels}-tree: the plan's radix ({k}), "
                           f"levels ({levels}), {p} endpoints per edge router and {k // 2} "
                           f"up-links each; it has {(k // 2) ** levels:,} endpoints, half the "
                           f"plan's {top.num_endpoints:,} (a k-ary n-tree's top routers use k "
                           f"of their 2k ports, the plan's use all {k}), the same full "
                           "bisection, 1-cycle channels"), ""
    if top.family == "dragonfly":
        a, p, h, g = (params[x] for x in "aphg")
        if not (a == 2 * p == 2 * h and g == a * h + 1):
            return None, (f"dragonfly a={a}, p={p}, h={h}, g={g}: BookSim's dragonflynew "
                          "builds only the balanced, full-size Dragonfly a = 2p = 2h, "
                          "g = a*h + 1")
        return NativeModel("dragonfly", {"topology": "dragonflynew", "k": p, "n": 1},
                           ("ugal", "min"),
                           f"BookSim's dragonflynew with a={a}, p={p}, h={h}, g={g} as the "
                           f"plan; its own global arrangement (the plan's is "
                           f"{params.get('arrangement', 'its own')}), local channels 10 "
                           "cycles and global 100 (DRAGON_LATENCY in "
                           "src/networks/dragonfly.cpp), not the plan's cables"), ""
    return None, (f"BookSim2 has no built-in model of {top.family}; the anynet netlist is "
                  "the simulation")


def native_config_name(model: NativeModel, routing: str) -> str:
    """``booksim.<model>.cfg`` for the main routing, ``booksim.<model>.<routing>.cfg`` else."""
    tail = "" if routing == model.routings[0] else f".{routing}"
    return f"booksim.{model.name}{tail}.cfg"


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
    model, reason = native_model(top)
    return {"booksim": {"routing": "min_anynet: one minimal-hop path per router pair "
                                   "(channel latencies include a per-hop delay chosen so)",
                        "warning": single_path_warning(top),
                        "deadlock": MIN_ANYNET_NOTE},
            "booksim_native": {"written": model is not None,
                               "configs": [] if model is None else
                               [native_config_name(model, r) for r in model.routings],
                               "note": model.note if model else reason},
            "merlin_anytopo": {"accepted": merlin_note(top) is None, "note": merlin_note(top)},
            "codes": {"written": top.family == "dragonfly" and top.groups is not None,
                      "model": "dragonfly-dally" if top.family == "dragonfly" else None}}
