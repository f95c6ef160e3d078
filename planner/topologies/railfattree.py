"""Rail-optimised fat trees: servers of N NICs in scalable units, NIC i to the unit's rail-i leaf.

The NVIDIA DGX SuperPOD compute fabric (reference architectures for DGX H100 and B200: scalable
units of 32 servers of 8 NICs on 64-port switches, "Larger DGX SuperPOD component counts").
Every unit has one leaf per rail; NIC i of each of the unit's S servers goes to its rail-i
leaf, which has S down ports and S/oversub up-links (a unit larger than a leaf's down ports D
takes S/D leaves per rail, ``leaves_per_rail``).

- Two tiers while the U·N leaves fit a spine's ports (U·N <= radix): every leaf joins every
  spine with m cables, m the largest divisor of the up-links with U·N·m <= radix; up/m spines
  (SuperPOD 4 units: 32 leaves, 2 cables to each of 16 spines).
- Three tiers beyond: the spines are partitioned into spine-leaf groups (SLG, NVIDIA's
  "InfiniBand Cluster Bring-up Procedure": every spine of a group joins every leaf of it): the
  rail-i leaves of a block of units with their own Q spines; spine q of every group joins core
  group q (CG). The units go in the fewest blocks a spine's radix/2 down ports allow,
  ⌈U/(radix/2)⌉, the last one part full (the reference designs build the fabric for whole
  units and leave the unused ports free); of the block sizes that take them, the one needing
  the fewest spines and cores (then the smallest). SuperPOD 16 units: 8 rail groups of 16
  leaves + 16 spines, 16 core groups of 4 cores, 128 leaves, 128 spines, 64 cores, 4,096
  cables per tier.

Counts in closed form (``shape``), shared with ``planner.topologies.sizing``;
docs/topologies.md "Rail-optimised fat tree".
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from planner.run.errors import InputError
from planner.topologies import servers as server_layout
from planner.topologies.base import Topology
from planner.topologies.checks import integer, size_limit
from planner.topologies.tuning import MAX_PER_ROUTER

FAMILY = "railfattree"


def largest_divisor(n: int, count: int, cap: int) -> int:
    """Largest m dividing n with count·m <= cap (0 if count > cap): cables per router pair when
    ``count`` routers share each upper router's ``cap`` ports and each lower one has n up-links."""
    best = 0
    for m in range(1, n + 1):
        if n % m == 0 and count * m <= cap:
            best = m
    return best


def complete_bipartite(lower: np.ndarray, upper: np.ndarray, multiplicity: int) -> np.ndarray:
    """(L, 2) edge rows joining every router of ``lower`` to every one of ``upper``, each pair
    repeated ``multiplicity`` times (``Topology.from_edges`` counts repeats as parallel cables)."""
    a, b = np.meshgrid(np.asarray(lower), np.asarray(upper), indexing="ij")
    pairs = np.stack([a.ravel(), b.ravel()], axis=1)
    return np.repeat(pairs, multiplicity, axis=0)


def ratio_of(value) -> Fraction:
    """``oversub``, leaf down ports : up-links: a positive number (2, 1.5, '3/2')."""
    text = str(value).strip()
    shown = text if len(text) <= 40 else text[:40] + "..."
    try:
        ratio = Fraction(text).limit_denominator(1000) if len(text) <= 40 else None
    except (ValueError, ZeroDivisionError):
        ratio = None
    if ratio is None:
        raise InputError(f"{FAMILY}: parameter 'oversub' must be a number such as 1, 2 or 1.5 "
                         f"(leaf down ports : up-links), got {shown!r}")
    if ratio <= 0:
        raise InputError(f"{FAMILY}: parameter 'oversub' must be > 0 (leaf down ports : "
                         f"up-links), got {shown!r}")
    return ratio


def oversubscription(ratio: Fraction, servers: int) -> int:
    """Up-links of a leaf of ``servers`` server ports: servers/oversub, a whole number."""
    up = Fraction(servers) / ratio
    if up.denominator != 1 or up < 1:
        valid = [str(Fraction(servers, d)) for d in range(servers, 0, -1) if servers % d == 0]
        shown = _ratio_text(ratio)
        raise InputError(f"{FAMILY}: oversub={shown} gives servers/oversub = {servers}/{shown} "
                         f"= {float(up):.3g} up-links per leaf, not a whole number >= 1; use an "
                         f"oversub that gives whole up-links for {servers} servers per leaf: "
                         f"{', '.join(valid[:8])}")
    return int(up)


def down_ports(radix: int, ratio: Fraction) -> int:
    """Most server ports a radix-port leaf has at this oversubscription: the largest d with
    d/oversub up-links whole and d + d/oversub <= radix (0: none)."""
    for d in range(radix - 1, 0, -1):
        up = Fraction(d) / ratio
        if up.denominator == 1 and up >= 1 and d + up <= radix:
            return d
    return 0


def leaves_per_rail(servers: int, radix: int, ratio: Fraction) -> int:
    """Leaves a unit's rail takes: 1 while the unit's servers fit a leaf's down ports, else
    servers / down ports (a unit larger than a leaf, as the SuperPOD B300 units of 64 servers on
    64-port switches take 2 leaves per rail); InputError when they do not divide evenly."""
    if servers + Fraction(servers) / ratio <= radix:
        return 1
    down = down_ports(radix, ratio)
    if down == 0:
        raise InputError(f"{FAMILY}: a radix-{radix} leaf at oversub={_ratio_text(ratio)} has no "
                         f"whole split into server ports and up-links; use oversub=1 or a "
                         f"larger radix")
    if servers % down:
        raise InputError(f"{FAMILY}: a unit of servers={servers} does not divide over rail "
                         f"leaves of {down} server ports (radix {radix}, oversub="
                         f"{_ratio_text(ratio)}): its rail would take {servers / down:.3g} "
                         f"leaves; use servers <= {down} (one leaf per rail) or a multiple of "
                         f"{down} ({2 * down}, {3 * down}: whole leaves per rail)")
    return servers // down


def _ratio_text(ratio: Fraction):
    return int(ratio) if ratio.denominator == 1 else float(ratio)


@dataclass(frozen=True)
class Shape:
    """The rail-optimised tree's counts, from its parameters alone (no graph)."""

    units: int
    servers: int
    nics: int
    radix: int
    oversub: Fraction
    up: int                 # up-links per leaf
    tiers: int
    leaf_spine: int         # cables per leaf-spine pair
    spines_per_group: int   # spines of a spine-leaf group (all spines with two tiers)
    blocks: int             # blocks of leaf columns per rail (1 with two tiers)
    block: int              # leaf columns (units, or their parts when split) per block
    spine_core: int = 0     # cables per spine-core pair
    cores_per_group: int = 0
    split: int = 1          # leaves per rail of a unit (a unit larger than a leaf's down ports)

    @property
    def columns(self) -> int:
        """Leaves per rail: a unit's rail is ``split`` leaves."""
        return self.units * self.split

    @property
    def per_leaf(self) -> int:
        """Servers (NICs of one rail) per leaf."""
        return self.servers // self.split

    @property
    def leaves(self) -> int:
        return self.columns * self.nics

    @property
    def spine_groups(self) -> int:
        return self.nics * self.blocks if self.tiers == 3 else 1

    @property
    def spines(self) -> int:
        return self.spine_groups * self.spines_per_group

    @property
    def spine_up(self) -> int:
        """Up-links per spine (three tiers): as many as its block's down-links."""
        return self.block * self.leaf_spine if self.tiers == 3 else 0

    @property
    def cores(self) -> int:
        return self.spines_per_group * self.cores_per_group if self.tiers == 3 else 0

    @property
    def routers(self) -> int:
        return self.leaves + self.spines + self.cores

    @property
    def endpoints(self) -> int:
        return self.units * self.servers * self.nics

    @property
    def links(self) -> int:
        return self.leaves * self.up + self.spines * self.spine_up

    @property
    def ports_used(self) -> int:
        """Most ports any router uses (``Topology.radix``)."""
        if self.tiers == 2:
            return max(self.per_leaf + self.up, self.leaves * self.leaf_spine)
        return max(self.per_leaf + self.up, 2 * self.block * self.leaf_spine,
                   self.spine_groups * self.spine_core)

    def params(self) -> dict:
        return {"units": self.units, "servers": self.servers, "nics": self.nics,
                "radix": self.radix, "oversub": _ratio_text(self.oversub)}


def shape(units, servers, nics, radix, oversub=1) -> Shape:
    """Check the parameters and size the tree (module docstring); InputError naming the
    numbers and the fix."""
    units = integer(FAMILY, "units", units, minimum=1)
    servers = integer(FAMILY, "servers", servers, minimum=1)
    nics = integer(FAMILY, "nics", nics, minimum=1)
    radix = integer(FAMILY, "radix", radix, minimum=2, maximum=MAX_PER_ROUTER)
    if nics > radix:
        raise InputError(f"{FAMILY}: a server of nics={nics} puts its NICs on {nics} rail leaves, "
                         f"more than the {radix} ports of a spine or core that joins the rails; "
                         f"use nics <= {radix} or a larger radix")
    ratio = ratio_of(oversub)
    split = leaves_per_rail(servers, radix, ratio)
    up = oversubscription(ratio, servers // split)
    columns = units * split
    leaves = columns * nics
    if leaves <= radix:
        m = largest_divisor(up, leaves, radix)
        return Shape(units, servers, nics, radix, ratio, up, 2, m, up // m, 1, columns,
                     split=split)
    half = radix // 2
    blocks = -(-columns // half)
    groups = nics * blocks
    if groups > radix:
        most = radix // nics * half // split
        raise InputError(f"{FAMILY}: units={units} x nics={nics} need {groups} spine-leaf "
                         f"groups, more than the {radix} ports of a core switch: beyond three "
                         f"tiers of radix-{radix} switches; use units <= {most} or a larger "
                         f"radix")
    options = [_three_tiers(units, servers, nics, radix, ratio, up, blocks, block, split)
               for block in range(-(-columns // blocks), half + 1)]
    return min(options, key=lambda o: (o.spines + o.cores, o.block))


def _three_tiers(units, servers, nics, radix, ratio, up, blocks, block, split) -> Shape:
    """Three tiers with ``blocks`` blocks of ``block`` leaf columns per rail (the last part
    full)."""
    m2 = largest_divisor(up, block, radix // 2)
    spine_up = block * m2
    m3 = largest_divisor(spine_up, nics * blocks, radix)
    return Shape(units, servers, nics, radix, ratio, up, 3, m2, up // m2, blocks, block, m3,
                 spine_up // m3, split)


def _two_tier_links(s: Shape) -> np.ndarray:
    return complete_bipartite(np.arange(s.leaves), s.leaves + np.arange(s.spines), s.leaf_spine)


def _three_tier_links(s: Shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edges, and the spine-leaf group of every spine and core group of every core."""
    q = s.spines_per_group
    parts = []
    for rail in range(s.nics):
        for b in range(s.blocks):
            columns = np.arange(b * s.block, min((b + 1) * s.block, s.columns))
            group = rail * s.blocks + b
            spines = s.leaves + group * q + np.arange(q)
            parts.append(complete_bipartite(columns * s.nics + rail, spines, s.leaf_spine))
    first_core = s.leaves + s.spines
    spine_group = np.repeat(np.arange(s.spine_groups), q)
    spine_index = np.tile(np.arange(q), s.spine_groups)
    for idx in range(q):
        spines = s.leaves + np.flatnonzero(spine_index == idx)
        cores = first_core + idx * s.cores_per_group + np.arange(s.cores_per_group)
        parts.append(complete_bipartite(spines, cores, s.spine_core))
    core_group = np.repeat(np.arange(q), s.cores_per_group)
    return np.concatenate(parts), spine_group, core_group


def railfattree(units, servers, nics, radix, oversub=1) -> Topology:
    """Rail-optimised fat tree (NVIDIA DGX SuperPOD; module docstring): ``units`` scalable
    units of ``servers`` servers with ``nics`` NICs, on ``radix``-port switches.

    Routers: leaves c·nics + i (leaf column c, rail i; column c = u·split + j is part j of unit
    u, split = 1 unless a unit has more servers than a leaf has down ports), then spines, then
    cores. Roles leaf / spine / core; hint: units (the leaves of a unit), then one group per
    spine-leaf group and per core group. ``extra["servers"]``: server c·(servers/split) + k is
    endpoint k of each of column c's leaves, its NIC i on the rail-i leaf
    (``planner.topologies.servers``).
    """
    s = shape(units, servers, nics, radix, oversub)
    size_limit(FAMILY, s.routers, s.links, ",".join(f"{k}={v}" for k, v in s.params().items()))
    leaf_column = np.repeat(np.arange(s.columns), s.nics)
    leaf_unit = leaf_column // s.split
    if s.tiers == 2:
        edges = _two_tier_links(s)
        groups = np.concatenate([leaf_unit, np.full(s.spines, s.units)])
    else:
        edges, spine_group, core_group = _three_tier_links(s)
        groups = np.concatenate([leaf_unit, s.units + spine_group,
                                 s.units + s.spine_groups + core_group])
    endpoints = np.zeros(s.routers, dtype=np.int64)
    endpoints[: s.leaves] = s.per_leaf
    first = np.full(s.routers, -1, dtype=np.int64)
    nic = np.full(s.routers, -1, dtype=np.int64)
    first[: s.leaves] = leaf_column * s.per_leaf
    nic[: s.leaves] = np.tile(np.arange(s.nics), s.columns)
    roles = ["leaf"] * s.leaves + ["spine"] * s.spines + ["core"] * s.cores
    extra = {"tiers": s.tiers,
             "servers": server_layout.layout(s.nics, s.units * s.servers, first, nic)}
    return Topology.from_edges(FAMILY, s.params(), s.routers, edges, endpoints, roles=roles,
                               groups=groups, group_kind="unit", extra=extra)
