"""BookSim2 ``anynet`` netlist, its multiplicity side table and a ``booksim.cfg`` that runs it.

Grammar and reader quirks follow ``AnyNet::readFile()`` in booksim2 ``src/networks/anynet.cpp``:

- only router-headed lines (``node`` heads create phantom routers), one per router ``0..R-1``;
- tokens separated by single spaces (the tokenizer splits on ``' '`` only), LF line endings,
  no comments (an unknown head token hits ``assert(false)``);
- endpoints are ``node`` entries numbered ``0..N-1`` in router order, never with a latency
  (a latency after ``node`` overwrites a router->router entry: PR booksim2#31);
- a router->router latency applies to one direction only, so every link is written on both
  routers' lines with the same latency;
- parallel links between one router pair collapse into one channel in the reader's
  ``map<int, map<int, ...>>``; they are merged here and the cable count is kept in
  ``netlist.multiplicity.csv``.

Routing: ``min_anynet`` follows one Dijkstra path over these latencies, so each channel carries
the slowest cable of its pair in cycles plus a per-hop delay H (the router delay, raised when
needed so that every route is minimal: ``planner.performance.simulators.booksim_channels``). When H
had to be raised above the router delay, ``netlist.physical.anynet`` and ``booksim.physical.cfg``
hold the unraised delays too (routes there follow latency and may take extra hops).

``booksim.cfg`` names its netlist by its bare file name. BookSim opens ``network_file``
relative to the folder it runs in (``AnyNet::readFile()``), so the cfg runs in the plan folder
wherever that folder was moved or copied, and the files of a plan are the same bytes in any
folder. ``booksim.sh``, a POSIX shell launcher beside it, changes to its own folder first, so
``sh PLAN/booksim.sh`` runs the plan from anywhere (README "BookSim").
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from planner.exports._csv import write_rows
from planner.exports.graphml import EdgeGroups
from planner.exports.tuning import ANYNET_BLOCK_ROUTERS, GRAPHML_CHUNK_EDGES
from planner.performance import simulators

NETLIST = "netlist.anynet"
PHYSICAL_NETLIST = "netlist.physical.anynet"
MULTIPLICITY = "netlist.multiplicity.csv"
CONFIG = "booksim.cfg"
PHYSICAL_CONFIG = "booksim.physical.cfg"
BOOKSIM_PIPELINE_CYCLES = 4
"""BookSim's input-queued router adds routing, VC and switch allocation and switch traversal
(``routing_delay`` 1 + ``vc_alloc_delay`` 1 + ``sw_alloc_delay`` 1 + ``st_final_delay`` 1 cycles,
booksim2 ``src/booksim_config.cpp`` defaults, written explicitly into the cfg)."""
LAUNCHER = "booksim.sh"
LAUNCHER_TEXT = """\
#!/bin/sh
# Runs BookSim2 on this plan from any folder:  sh PATH/TO/PLAN/booksim.sh [CFG] [key=value ...]
# CFG is booksim.cfg (default) or booksim.physical.cfg; key=value pairs override the cfg.
# BookSim opens network_file relative to the folder it runs in, so this changes to the plan's
# folder first. BookSim is $BOOKSIM when set, else 'booksim' on the PATH.
booksim=${BOOKSIM:-booksim}
case $booksim in
    */*) booksim=$(cd "$(dirname "$booksim")" && pwd)/$(basename "$booksim") || exit 1 ;;
esac
cd "$(dirname "$0")" || exit 1
cfg=booksim.cfg
case $1 in
    *.cfg) cfg=$(basename "$1"); shift ;;
esac
exec "$booksim" "$cfg" "$@"
"""
"""``booksim.sh``: BookSim on the plan's cfg from the plan's own folder."""


def booksim_setup(plan) -> tuple[dict, simulators.BooksimChannels]:
    """(validated BookSim options, channel cycles) of a plan."""
    options = simulators.check_booksim(plan.summary.get("options", {}).get("booksim"),
                                       plan.topology.num_endpoints)
    performance = plan.summary.get("performance", {})
    router_ns = performance.get("latency_ns", {}).get("router_ns")
    if router_ns is None:
        from planner.performance import router_latency
        router_ns = router_latency(plan.router_model, None)[0]
    channels = simulators.booksim_channels(plan.topology, plan.cables, router_ns,
                                           options["cycle_ns"],
                                           performance.get("hops", {}).get("diameter"))
    return options, channels


def link_table(plan, channels: simulators.BooksimChannels | None = None) -> pd.DataFrame:
    """Router-router cables merged per router pair (u < v), sorted by (u, v).

    ``graphml.EdgeGroups.numbers`` (multiplicity, longest length, slowest latency) plus
    ``cable_cycles`` (the slowest cable in cycles) and ``cycles``, the BookSim channel latency
    of the pair in ``netlist.anynet`` (cable + per-hop delay). The labels are made a chunk at
    a time as the side table is written (``write_side_table``).
    """
    if channels is None:
        channels = booksim_setup(plan)[1]
    table = EdgeGroups(plan).numbers()
    table["cable_cycles"] = channels.cable_cycles
    table["cycles"] = channels.cycles
    return table


def netlist_lines(endpoints: np.ndarray, u: np.ndarray, v: np.ndarray,
                  cycles: np.ndarray) -> Iterator[str]:
    """One ``router R node .. router S LAT ..`` line per router, in router order.

    Endpoints of router r are nodes ``offset[r] .. offset[r]+endpoints[r]-1``; neighbours are
    listed in ascending id, each with the pair's latency (so both directions carry it). Each
    token is formatted once and each line joined from slices: time linear in the netlist. The
    tokens are made ``tuning.ANYNET_BLOCK_ROUTERS`` routers at a time.
    """
    num_routers = len(endpoints)
    src = np.concatenate([u, v])
    dst = np.concatenate([v, u])
    lat = np.concatenate([cycles, cycles])
    order = np.lexsort((dst, src))
    src, dst, lat = src[order], dst[order], lat[order]
    bounds = np.searchsorted(src, np.arange(num_routers + 1)).tolist()
    offsets = np.concatenate([[0], np.cumsum(endpoints)]).tolist()
    for first in range(0, num_routers, ANYNET_BLOCK_ROUTERS):
        last = min(first + ANYNET_BLOCK_ROUTERS, num_routers)
        n0, l0 = offsets[first], bounds[first]
        nodes = [f"node {n}" for n in range(n0, offsets[last])]
        links = [f"router {d} {c}" for d, c in zip(dst[l0:bounds[last]].tolist(),
                                                   lat[l0:bounds[last]].tolist())]
        for r in range(first, last):
            yield " ".join([f"router {r}", *nodes[offsets[r] - n0:offsets[r + 1] - n0],
                            *links[bounds[r] - l0:bounds[r + 1] - l0]])


def write_side_table(plan, table: pd.DataFrame, path: Path) -> None:
    """``netlist.multiplicity.csv``: ``table``'s pairs, their lengths and latencies as
    ``millis_text`` and their cables' labels, ``tuning.GRAPHML_CHUNK_EDGES``
    pairs at a time (the labels made with each chunk)."""
    side = table[["u", "v", "multiplicity", "length_m", "latency_ns", "cable_cycles",
                  "cycles"]].copy()
    for column in ("length_m", "latency_ns"):
        side[column] = millis_text(side[column].to_numpy(float))
    groups = EdgeGroups(plan) if len(side) else None
    with open(path, "w", encoding="utf-8", newline="") as fh:
        for lo in range(0, max(len(side), 1), GRAPHML_CHUNK_EDGES):
            hi = min(lo + GRAPHML_CHUNK_EDGES, len(side))
            part = side.iloc[lo:hi].copy()
            part["labels"] = groups.labels(lo, hi) if hi > lo else np.empty(0, dtype=object)
            write_rows(fh, part, header=lo == 0)


def millis_text(values: np.ndarray) -> np.ndarray:
    """Numbers to 3 decimals without trailing zeros (``5.25``, ``12``); empty if not finite
    (each distinct value formatted once)."""
    uniq, inverse = np.unique(np.asarray(values, dtype=float), return_inverse=True)
    text = np.array([f"{x:.3f}".rstrip("0").rstrip(".") if math.isfinite(x) else ""
                     for x in uniq.tolist()], dtype=object)
    return text[inverse.reshape(-1)]


def booksim_config(plan, table: pd.DataFrame, options: dict,
                   channels: simulators.BooksimChannels, physical: bool = False,
                   loads: simulators.SinglePathLoads | None = None) -> str:
    """A runnable BookSim2 config for ``netlist.anynet`` (or the physical one); ``//`` comments
    are valid (booksim2 ``src/config.l``). ``loads``: of ``netlist.anynet``'s routes
    (``simulators.single_path_loads``), None when not computed."""
    top = plan.topology
    cycle = options["cycle_ns"]
    cycles = channels.physical_cycles if physical else channels.cycles
    longest = int(cycles.max()) if len(cycles) else 1
    lo, hi = ((int(channels.cable_cycles.min()), int(channels.cable_cycles.max()))
              if len(cycles) else (0, 0))
    netlist = PHYSICAL_NETLIST if physical else NETLIST
    hop = channels.router_cycles if physical else channels.per_hop
    lines = [
        f"// BookSim2 run of the {top.family} plan: {top.num_routers} routers, "
        f"{top.num_endpoints} endpoints, {int(table['multiplicity'].sum())} router-router cables.",
        f"// Router clock: {cycle:g} ns per cycle. Channel latency = slowest cable of the router "
        f"pair ({lo}..{hi} cycles:",
        "// installed length x 4.5 ns/m copper or 4.9 ns/m fibre) + a per-hop delay of "
        f"{hop} cycles.",
    ]
    if physical:
        lines += [
            f"// Per-hop delay = the router delay ({channels.router_cycles} cycles) only: "
            "min_anynet routes by latency,",
            "// so some packets take more than the minimal number of hops here; "
            f"{CONFIG} routes minimally.",
        ]
    elif channels.raised:
        lines += [
            f"// The router delay is {channels.router_cycles} cycles, but min_anynet routes by "
            "channel latency: a per-hop",
            f"// delay of at least {channels.minimal_per_hop} cycles makes every route "
            f"minimal ({channels.reach} hops at most, cables {lo}..{hi} cycles),",
            f"// so each hop here is {channels.per_hop - channels.router_cycles} cycles slower "
            f"than the real router; {PHYSICAL_CONFIG} has the real delays.",
        ]
    else:
        lines += [
            f"// Per-hop delay = the router delay ({channels.router_cycles} cycles), which "
            f"already exceeds the {channels.minimal_per_hop} cycles",
            "// that guarantee minimal routes: min_anynet's latency-weighted Dijkstra picks a "
            "minimal-hop path for every pair.",
        ]
    lines += [
        f"// BookSim's router pipeline adds about {BOOKSIM_PIPELINE_CYCLES} cycles per hop "
        "(the *_delay keys below).",
        f"// Parallel cables between one router pair are one channel here; counts in "
        f"{MULTIPLICITY}.",
        "// Credits travel back with the channel latency: vc_buf_size covers the round trip "
        "of the longest channel.",
    ]
    theta = plan.summary.get("performance", {}).get("uniform", {}).get("theta") or 1.0
    estimate = min(float(theta), loads.saturation) if loads else float(theta)
    warning = simulators.single_path_warning(top)
    if warning:
        lines.append(f"// WARNING: {warning}.")
    if loads:
        lines.append(f"// Single path on this plan{' (routes of ' + CONFIG + ')' if physical else ''}"
                     f": {loads.note()}; uniform traffic saturates "
                     f"the busiest channel at injection_rate {loads.saturation:.3g} "
                     f"(theta = {float(theta):g} with multipath).")
    else:
        lines.append(f"// Single-path channel loads not computed ({top.num_routers:,} routers, "
                     f"more than {simulators.ROUTE_LOAD_MAX_ROUTERS:,}): the estimate below is "
                     "theta, an upper bound on single-path saturation.")
    trusted = simulators.TRUSTED_LOAD_FRACTION * estimate
    lines.append(f"// DEADLOCK: {simulators.MIN_ANYNET_NOTE}; trust it below injection_rate "
                 f"{trusted:.3g} ({simulators.TRUSTED_LOAD_FRACTION:g} x this plan's saturation"
                 f" estimate {estimate:.3g}, measured: docs/performance.md).")
    rate = options["injection_rate"]
    if rate is None:
        rate = simulators.default_rate(estimate)
        lines.append(f"// injection_rate = {simulators.DEFAULT_LOAD_FRACTION:g} x that "
                     "estimate; override with injection_rate=R on the command line.")
    elif rate >= estimate:
        lines.append(f"// WARNING: injection_rate {rate:g} is at or above the saturation "
                     f"estimate {estimate:.3g}: the run measures a saturated (or deadlocked) "
                     "network.")
    buf = 2 * longest + 2 * BOOKSIM_PIPELINE_CYCLES
    zero_load = (channels.reach + 1) * (longest + BOOKSIM_PIPELINE_CYCLES)
    lines += [
        "",
        "topology = anynet;",
        f"network_file = {netlist};",
        "routing_function = min;",
        "",
        f"traffic = {options['traffic']};",
        f"injection_rate = {rate:g};",
        "packet_size = 1;",
        "sim_type = latency;",
        "warmup_periods = 3;",
        f"sample_period = {max(10000, 10 * zero_load)};",
        f"latency_thres = {float(max(500, 10 * zero_load)):.1f};",
        "use_read_write = 0;",
        "",
        *simulators.booksim_router_keys(4, buf),
    ]
    return "\n".join(lines)


def _first_plane(plan):
    """The plan as BookSim can run it: a multi-plane plan's first plane and its cables (its
    planes are identical and disconnected, and BookSim's anynet routing never ends on a
    disconnected netlist), with how many planes there are; any other plan as it is, 1."""
    import dataclasses

    from planner.performance.stage import plane_and_cables

    top, cables = plane_and_cables(plan.topology, plan.cables)
    if top is plan.topology:
        return plan, 1
    return dataclasses.replace(plan, topology=top, cables=cables), \
        int(plan.topology.params["planes"])


def write(plan, out_dir: Path) -> None:
    """Write ``netlist.anynet``, ``netlist.multiplicity.csv``, ``booksim.cfg`` (and the
    physical-delay pair when the per-hop delay had to be raised) and ``booksim.sh``; of a
    multi-plane plan, its first plane (the cfg says so)."""
    out_dir = Path(out_dir)
    plan, planes = _first_plane(plan)
    note = "" if planes == 1 else (f"// plane 0 of {planes} identical, disconnected planes (NIC i "
                                   f"of a server talks to NIC i of another): one plane is run\n")
    options, channels = booksim_setup(plan)
    table = link_table(plan, channels)
    endpoints = np.asarray(plan.topology.endpoints, np.int64)
    u, v = table["u"].to_numpy(np.int64), table["v"].to_numpy(np.int64)
    loads = simulators.single_path_loads(plan.topology, channels.cycles)
    variants = [(NETLIST, CONFIG, channels.cycles, False)]
    if channels.raised:
        variants.append((PHYSICAL_NETLIST, PHYSICAL_CONFIG, channels.physical_cycles, True))
    for netlist, cfg, cycles, physical in variants:
        with open(out_dir / netlist, "w", encoding="ascii", newline="\n") as fh:
            fh.writelines(line + "\n" for line in
                          netlist_lines(endpoints, u, v, np.asarray(cycles, np.int64)))
        (out_dir / cfg).write_text(note + booksim_config(plan, table, options, channels,
                                                         physical, loads),
                                   encoding="ascii", newline="\n")
    write_side_table(plan, table, out_dir / MULTIPLICITY)
    write_launcher(out_dir / LAUNCHER)


def write_launcher(path: Path) -> None:
    """``booksim.sh``, executable by whoever may read it (the umask decides who reads)."""
    path.write_text(LAUNCHER_TEXT, encoding="ascii", newline="\n")
    mode = path.stat().st_mode
    path.chmod(mode | (mode & 0o444) >> 2)
