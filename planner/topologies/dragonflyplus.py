"""Dragonfly+ (Megafly): groups that are two-level fat trees, the spines carrying global links.

Shpiner, Haramaty, Eliad, Zdornov, Gafni, Zahavi, "Dragonfly+: Low Cost Topology for Scaling
Datacenters", HiPINEB 2017; Flajslik, Borch, Parker, "Megafly: A Topology for Exascale
Systems", ISC 2018. On radix-R switches a group has a = ⌊R/2⌋ leaves of ⌈R/2⌉ endpoints and a
up-links (one to every spine of the group) and a spines of a down-links and h = ⌈R/2⌉ global
links. A group has a·h global ports, so at most a·h + 1 groups (one global cable per group
pair; R = 16: 8 leaves + 8 spines, 64 endpoints per group, 65 groups). Fewer groups use every
global port too, dealt as the Dragonfly's (``planner.topologies.dragonfly.global_links`` with
the spines as its routers): ⌊a·h/(g-1)⌋ or ⌈a·h/(g-1)⌉ cables per group pair.
Leaf-to-leaf diameter 3 (leaf, spine, spine, leaf) when every group pair is joined.
docs/topologies.md "Dragonfly+".
"""

from __future__ import annotations

import numpy as np

from planner.run.errors import InputError
from planner.topologies.base import Topology
from planner.topologies.checks import integer, size_limit
from planner.topologies.dragonfly import global_links
from planner.topologies.railfattree import complete_bipartite
from planner.topologies.tuning import MAX_PER_ROUTER

FAMILY = "dragonflyplus"


def resolve(radix, g=None) -> tuple[int, int, int, int]:
    """(a, h, g, radix): a leaves = a spines per group, h global links (and endpoints) per
    spine (leaf), g groups (default the most, a·h + 1)."""
    radix = integer(FAMILY, "radix", radix, minimum=2, maximum=MAX_PER_ROUTER)
    a, h = radix // 2, radix - radix // 2
    if g is None:
        return a, h, a * h + 1, radix
    g = integer(FAMILY, "g", g, minimum=1)
    if g > a * h + 1:
        raise InputError(f"{FAMILY}: g={g} groups need {g - 1} global links per group, more "
                         f"than the {a} spines x {h} global ports = {a * h} a group of "
                         f"radix-{radix} switches has; use g <= {a * h + 1} or a larger radix")
    return a, h, g, radix


def global_cables(a: int, h: int, g: int) -> int:
    """Global cables: every global port used, one left free when g·a·h is odd."""
    return g * a * h // 2 if g > 1 else 0


def dragonflyplus(radix, g=None) -> Topology:
    """Dragonfly+ of radix-R switches and g groups (module docstring).

    Router id = group·2a + i: leaves i < a, spines a <= i < 2a. Endpoints ⌈R/2⌉ per leaf;
    local links a² per group (every leaf to every spine); global links between spines, as
    ``dragonfly.global_links`` deals them (palm-tree arrangement). Roles leaf/spine; hint: the
    groups.
    """
    a, h, g, radix = resolve(radix, g)
    per_group = 2 * a
    size_limit(FAMILY, g * per_group, g * a * a + global_cables(a, h, g),
               f"radix={radix},g={g}")
    base = (np.arange(g) * per_group)[:, None]
    local = np.concatenate([complete_bipartite(b + np.arange(a), b + a + np.arange(a), 1)
                            for b in base[:, 0]])
    spine = global_links(a, h, g, "palmtree")          # ids group·a + spine index
    glob = (spine // a) * per_group + a + spine % a
    r = g * per_group
    endpoints = np.tile(np.concatenate([np.full(a, h), np.zeros(a, np.int64)]), g)
    roles = (["leaf"] * a + ["spine"] * a) * g
    return Topology.from_edges(FAMILY, {"radix": radix, "g": g}, r,
                               np.concatenate([local, glob]), endpoints, roles=roles,
                               groups=np.arange(r) // per_group, group_kind="group")
