"""Multi-plane fat trees: P independent two-tier planes, NIC i of every server in plane i.

NVIDIA Spectrum-X multiplane (the DGX SuperPOD B300 reference architecture's "multi-planar"
compute fabric: each GPU's NICs in different planes, a switch failure halves one GPU's
bandwidth instead of stopping the job) and Alibaba HPN (Qian et al., "Alibaba HPN: A Data
Center Network for Large Language Model Training", SIGCOMM'24, its dual-plane design). Every
plane is the same two-tier fat tree of radix-R switches: leaves of ⌈R/2⌉ server ports and
⌊R/2⌋ up-links, every leaf joined to every spine by m cables (m the largest divisor of the
up-links with leaves·m <= R), so a full plane has R leaves, ⌊R/2⌋ spines and R·⌈R/2⌉ servers.
Server s stands on the same leaf index in every plane. docs/topologies.md "Multi-plane fat
tree".
"""

from __future__ import annotations

import numpy as np

from planner.run.errors import InputError
from planner.topologies import servers as server_layout
from planner.topologies.base import Topology
from planner.topologies.checks import integer, size_limit
from planner.topologies.railfattree import complete_bipartite, largest_divisor
from planner.topologies.tuning import MAX_PER_ROUTER

FAMILY = "multiplane"


def plane_shape(radix: int, endpoints: int) -> tuple[int, int, int, int]:
    """(down ports per leaf, leaves, cables per leaf-spine pair, spines) of one plane."""
    down, up = radix - radix // 2, radix // 2
    leaves = -(-endpoints // down)
    m = largest_divisor(up, leaves, radix)
    return down, leaves, m, up // m


def resolve(planes, radix, endpoints=None) -> tuple[int, int, int]:
    """(planes, radix, servers) checked; servers default to a full plane, R·⌈R/2⌉."""
    planes = integer(FAMILY, "planes", planes, minimum=1)
    radix = integer(FAMILY, "radix", radix, minimum=2, maximum=MAX_PER_ROUTER)
    full = radix * (radix - radix // 2)
    if endpoints is None:
        return planes, radix, full
    endpoints = integer(FAMILY, "endpoints", endpoints, minimum=1)
    if endpoints > full:
        raise InputError(f"{FAMILY}: endpoints={endpoints} servers need {endpoints} NICs in "
                         f"each plane, more than a two-tier plane of radix-{radix} switches "
                         f"holds ({radix} leaves x {radix - radix // 2} down ports = {full}); "
                         f"use endpoints <= {full}, a larger radix, or railfattree for three "
                         f"tiers")
    return planes, radix, endpoints


def counts(planes: int, radix: int, endpoints: int) -> tuple[int, int, int, int]:
    """(routers, NIC endpoints, links, most ports used) in closed form."""
    down, leaves, m, spines = plane_shape(radix, endpoints)
    up = radix // 2
    ports = max(-(-endpoints // leaves) + up, leaves * m)
    return planes * (leaves + spines), planes * endpoints, planes * leaves * up, ports


def multiplane(planes, radix, endpoints=None) -> Topology:
    """P planes of the same two-tier fat tree (module docstring); ``endpoints`` = servers, each
    with one NIC per plane (default: a full plane).

    Routers plane by plane: its leaves, then its spines. Servers are spread over a plane's
    leaves ⌊E/L⌋ or ⌈E/L⌉ each, the same in every plane. Roles leaf/spine; hint: leaf j of
    every plane together (they serve the same servers), then one group per plane's spines.
    ``extra["servers"]`` (``planner.topologies.servers``): NIC i of a server is in plane i.
    """
    planes, radix, servers = resolve(planes, radix, endpoints)
    down, leaves, m, spines = plane_shape(radix, servers)
    per_plane = leaves + spines
    routers, nics, links, _ = counts(planes, radix, servers)
    size_limit(FAMILY, routers, links, f"planes={planes},radix={radix},endpoints={servers}")
    on_leaf = np.full(leaves, servers // leaves, dtype=np.int64)
    on_leaf[: servers % leaves] += 1
    plane = complete_bipartite(np.arange(leaves), leaves + np.arange(spines), m)
    edges = np.concatenate([plane + i * per_plane for i in range(planes)])
    endpoints_per_router = np.tile(np.concatenate([on_leaf, np.zeros(spines, np.int64)]), planes)
    first_leaf = np.concatenate([[0], np.cumsum(on_leaf)[:-1]])
    first = np.tile(np.concatenate([first_leaf, np.full(spines, -1)]), planes)
    nic = np.repeat(np.arange(planes), per_plane)
    nic[endpoints_per_router == 0] = -1
    groups = np.tile(np.concatenate([np.arange(leaves), np.full(spines, leaves)]), planes)
    groups[groups == leaves] += np.repeat(np.arange(planes), spines)
    roles = (["leaf"] * leaves + ["spine"] * spines) * planes
    extra = {"planes": planes,
             "servers": server_layout.layout(planes, servers, first, nic)}
    return Topology.from_edges(FAMILY, {"planes": planes, "radix": radix,
                                        "endpoints": servers},
                               routers, edges, endpoints_per_router, roles=roles, groups=groups,
                               group_kind="unit", extra=extra)


def one_plane(top: Topology) -> Topology:
    """Plane 0 of a multi-plane topology (routers 0.. of the first plane, the same ids): every
    plane is this one, and traffic between NIC i of two servers stays in plane i, so hops,
    distances and throughput per NIC are those of one plane. Other topologies are returned as
    they are."""
    if top.family != FAMILY or top.params["planes"] == 1:
        return top
    return multiplane(1, top.params["radix"], top.params["endpoints"])
