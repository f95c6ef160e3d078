"""BookSim2 ``anynet`` netlist, its multiplicity side table and a ``booksim.cfg`` that runs it.

Grammar and reader quirks follow ``AnyNet::readFile()`` in booksim2 ``src/networks/anynet.cpp``
(ecosystem.md §1.2):

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

Channel latency in cycles = ceil(cable latency in ns x ``CYCLES_PER_NS``), at least 1.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from planner.exports._csv import write_csv
from planner.exports.graphml import edge_table

NETLIST = "netlist.anynet"
MULTIPLICITY = "netlist.multiplicity.csv"
CONFIG = "booksim.cfg"
CYCLES_PER_NS = 1.0
"""Router clock assumed for the cycle conversion: 1 cycle per ns (1 GHz)."""


def link_table(plan) -> pd.DataFrame:
    """Router-router cables merged per router pair (u < v), sorted by (u, v).

    ``graphml.edge_table`` (multiplicity, longest length, slowest latency, labels) plus
    ``cycles``, the BookSim channel latency of the pair.
    """
    table = edge_table(plan)
    table["cycles"] = latency_cycles(table["latency_ns"].to_numpy(float))
    return table


def latency_cycles(latency_ns: np.ndarray, cycles_per_ns: float = CYCLES_PER_NS) -> np.ndarray:
    """Channel latency in whole router cycles, rounded up (after rounding away float noise
    below 1e-6 cycle), never below 1."""
    cycles = np.ceil(np.round(np.asarray(latency_ns, float) * cycles_per_ns, 6))
    return np.maximum(cycles, 1).astype(np.int64)


def netlist_lines(endpoints: np.ndarray, u: np.ndarray, v: np.ndarray,
                  cycles: np.ndarray) -> list[str]:
    """One ``router R node .. router S LAT ..`` line per router, in router order.

    Endpoints of router r are nodes ``offset[r] .. offset[r]+endpoints[r]-1``; neighbours are
    listed in ascending id, each with the pair's latency (so both directions carry it).
    """
    num_routers = len(endpoints)
    src = np.concatenate([u, v])
    dst = np.concatenate([v, u])
    lat = np.concatenate([cycles, cycles])
    order = np.lexsort((dst, src))
    src, dst, lat = src[order], dst[order], lat[order]
    bounds = np.searchsorted(src, np.arange(num_routers + 1))
    offsets = np.concatenate([[0], np.cumsum(endpoints)])
    lines = []
    for r in range(num_routers):
        parts = [f"router {r}"]
        parts.extend(f"node {n}" for n in range(offsets[r], offsets[r + 1]))
        lo, hi = bounds[r], bounds[r + 1]
        parts.extend(f"router {d} {c}" for d, c in zip(dst[lo:hi].tolist(), lat[lo:hi].tolist()))
        lines.append(" ".join(parts))
    return lines


def millis_text(values: np.ndarray) -> np.ndarray:
    """Numbers to 3 decimals without trailing zeros (``5.25``, ``12``); empty if not finite
    (each distinct value formatted once)."""
    uniq, inverse = np.unique(np.asarray(values, dtype=float), return_inverse=True)
    text = np.array([f"{x:.3f}".rstrip("0").rstrip(".") if math.isfinite(x) else ""
                     for x in uniq.tolist()], dtype=object)
    return text[inverse.reshape(-1)]


def booksim_config(plan, table: pd.DataFrame) -> str:
    """A runnable BookSim2 config for the netlist (``//`` comments are valid: ``src/config.l``)."""
    top = plan.topology
    lo, hi = (int(table["cycles"].min()), int(table["cycles"].max())) if len(table) else (0, 0)
    return "\n".join([
        f"// BookSim2 run of the {top.family} plan: {top.num_routers} routers, "
        f"{top.num_endpoints} endpoints, {int(table['multiplicity'].sum())} router-router cables.",
        f"// Channel latency in {NETLIST} = ceil(cable latency ns x {CYCLES_PER_NS:g} cycles/ns), "
        f"i.e. a {1 / CYCLES_PER_NS:g} ns router cycle;",
        "// cable latency = installed length x 4.5 ns/m (copper) or 4.9 ns/m (fibre); "
        f"channels take {lo}..{hi} cycles.",
        "// Parallel cables between one router pair are one channel here; "
        f"counts in {MULTIPLICITY}.",
        "// anynet routes by shortest latency-weighted path only (min_anynet).",
        "",
        "topology = anynet;",
        f"network_file = {NETLIST};",
        "routing_function = min;",
        "",
        "traffic = uniform;",
        "injection_rate = 0.1;",
        "packet_size = 1;",
        "sim_type = latency;",
        "warmup_periods = 3;",
        "sample_period = 10000;",
        "use_read_write = 0;",
        "",
        "num_vcs = 4;",
        "vc_buf_size = 8;",
        "vc_allocator = separable_input_first;",
        "sw_allocator = separable_input_first;",
        "alloc_iters = 1;",
        "",
    ])


def write(plan, out_dir: Path) -> None:
    """Write ``netlist.anynet``, ``netlist.multiplicity.csv`` and ``booksim.cfg``."""
    out_dir = Path(out_dir)
    table = link_table(plan)
    lines = netlist_lines(np.asarray(plan.topology.endpoints, np.int64),
                          table["u"].to_numpy(np.int64), table["v"].to_numpy(np.int64),
                          table["cycles"].to_numpy(np.int64))
    with open(out_dir / NETLIST, "w", encoding="ascii", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")
    side = table[["u", "v", "multiplicity", "length_m", "latency_ns", "cycles", "labels"]].copy()
    for column in ("length_m", "latency_ns"):
        side[column] = millis_text(side[column].to_numpy(float))
    write_csv(side, out_dir / MULTIPLICITY)
    (out_dir / CONFIG).write_text(booksim_config(plan, table), encoding="ascii", newline="\n")
