"""Router ports on cages with breakout: the ports one part serves share a cage.

A router of ``cages`` cages split ``breakout`` ways has logical ports 1..cages·breakout, port p
in cage ``(p - 1) // breakout``. A part plugged into a cage serves all of its ports (a twin-port
transceiver, a splitter's head, a twin-port assembly), so one cage never mixes parts, and a
straight multi-link assembly (both ends on cages) carries links to one peer router only.

Per router the link ends are grouped by the part at that end (and, for a straight multi-link
assembly, by the peer), endpoint ends first; each group takes whole cages in turn and its ends
the consecutive ports of those cages, in the order ``cabling.assign_ports`` gave them. A group
of n ends takes ``ceil(n / breakout)`` cages; InputError when a router needs more cages than
its model has.
"""

from __future__ import annotations

import numpy as np

from planner.inputs.catalog.catalog import Catalog
from planner.inputs.catalog.routers import RouterModel
from planner.run.errors import InputError


def assign_ports(router_model: RouterModel, catalog: Catalog, a_router: np.ndarray,
                 b_router: np.ndarray, part: np.ndarray, a_port: np.ndarray,
                 b_port: np.ndarray, router_names) -> tuple[np.ndarray, np.ndarray]:
    """(a_port, b_port) of every cable with the ports of each part grouped into whole cages
    (``b_router`` < 0 marks an endpoint cable, whose B end is a NIC and keeps its port)."""
    split = router_model.breakout
    if split == 1:
        return a_port, b_port
    bonded = np.array([m.is_assembly and not m.split and m.links > 1 for m in catalog.cables])
    n = len(a_router)
    net = b_router >= 0
    cable = np.r_[np.arange(n), np.flatnonzero(net)]
    router = np.r_[a_router, b_router[net]]
    peer = np.r_[b_router, a_router[net]]
    is_net = np.r_[net, np.ones(int(net.sum()), dtype=bool)]
    parts = part[cable]
    key_peer = np.where(bonded[parts] & is_net, peer, -1)
    old = np.r_[a_port, b_port[net]]
    order = np.lexsort((old, key_peer, parts, is_net, router))
    keys = np.stack([router, is_net, parts, key_peer])[:, order]
    starts = np.r_[True, np.any(keys[:, 1:] != keys[:, :-1], axis=0)]
    run = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    rank = np.arange(len(order)) - first[run]
    run_len = np.diff(np.r_[first, len(order)])
    run_cages = -(-run_len // split)
    run_router = keys[0, first]
    router_start = np.r_[True, run_router[1:] != run_router[:-1]]
    cum = np.cumsum(run_cages)
    before = cum - run_cages
    base = before - before[np.flatnonzero(router_start)][np.cumsum(router_start) - 1]
    cage = base[run] + rank // split
    if cage.size and cage.max() >= router_model.cage_count:
        worst = int(np.argmax(cage))
        r = int(keys[0, worst])
        need = int(cage[keys[0] == r].max()) + 1
        raise InputError(f"router {router_names[r]} needs {need} cages of {split} ports "
                         f"(the ports of one cage share one part), but {router_model.sku} has "
                         f"{router_model.cage_count}; use fewer endpoints per router or a "
                         "larger router model")
    port = np.empty(len(order), dtype=np.int64)
    port[order] = cage * split + rank % split + 1
    new_a = port[:n].copy()
    new_b = b_port.copy()
    new_b[net] = port[n:]
    return new_a, new_b
