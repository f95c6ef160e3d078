"""Router ports on cages with breakout: the ports one part serves share a cage.

A router of ``cages`` cages split ``breakout`` ways has logical ports 1..cages·breakout, port p
in cage ``(p - 1) // breakout`` (connector ``(p - 1) % breakout + 1`` of it). A part plugged into a
cage serves all of its ports (a twin-port transceiver, a splitter's head, a twin-port assembly),
so one cage never mixes parts. A twin-port transceiver with a connector per port (two MPO-12)
serves two different peers from one cage; a straight multi-link assembly (both ends on cages)
or a single-connector module (``connectors: 1``) carries the links of one peer router only
(``CableModel.one_peer_per_cage``).

Per router the link ends are grouped by the part at that end (and, for a part serving one peer
per cage, by the peer), endpoint ends first; each group takes whole cages in turn and its ends
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
    n = len(a_router)
    net = b_router >= 0
    order, keys, cage, rank = _cages(split, catalog, a_router, b_router, part,
                                     np.r_[a_port, b_port[net]])
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


def cages_used(router_model: RouterModel, catalog: Catalog, a_router: np.ndarray,
               b_router: np.ndarray, part: np.ndarray, num_routers: int) -> np.ndarray:
    """Cages each router's ends take when each part's ends fill whole cages (module doc); its
    used ports when the model has no breakout."""
    net = b_router >= 0
    ends = np.r_[a_router, b_router[net]]
    if router_model.breakout == 1:
        return np.bincount(ends, minlength=num_routers)
    _, keys, cage, _ = _cages(router_model.breakout, catalog, a_router, b_router, part,
                              np.zeros(ends.size, dtype=np.int64))
    out = np.zeros(num_routers, dtype=np.int64)
    np.maximum.at(out, keys[0], cage + 1)
    return out


def _cages(split: int, catalog: Catalog, a_router, b_router, part, old_port):
    """(order, keys, cage, rank) of every link end (the A ends, then the B ends of network
    cables): ``order`` sorts the ends by router, endpoint ends first, part, peer (for a part
    that serves one peer per cage) and ``old_port``; ``keys`` (router, is_net, part, peer)
    and ``cage`` (0-based, per router) and ``rank`` (within its group) follow that order."""
    one_peer = np.array([m.one_peer_per_cage for m in catalog.cables])
    n = len(a_router)
    net = b_router >= 0
    router = np.r_[a_router, b_router[net]]
    peer = np.r_[b_router, a_router[net]]
    is_net = np.r_[net, np.ones(int(net.sum()), dtype=bool)]
    parts = part[np.r_[np.arange(n), np.flatnonzero(net)]]
    key_peer = np.where(one_peer[parts] & is_net, peer, -1)
    order = np.lexsort((old_port, key_peer, parts, is_net, router))
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
    return order, keys, cage, rank


def odd_links(router_model: RouterModel, catalog: Catalog, a_router: np.ndarray,
              b_router: np.ndarray, part: np.ndarray, short: np.ndarray) -> np.ndarray:
    """The cables to move onto parts whose cages serve several peers so that no router is
    left short of cages (``short``, per router): of each router pair touching a short router
    whose m links share a one-peer part (``CableModel.one_peer_per_cage``) of k ports, the last
    m mod k cables, each of which would otherwise leave its cage part-filled at both ends."""
    k = router_model.breakout
    one_peer = np.array([m.one_peer_per_cage for m in catalog.cables])
    net = b_router >= 0
    candidate = np.flatnonzero(net & one_peer[np.where(part >= 0, part, 0)] & (part >= 0)
                               & (short[a_router] | short[np.where(net, b_router, 0)]))
    move = np.zeros(len(a_router), dtype=bool)
    if not candidate.size:
        return move
    keys = np.stack([a_router[candidate], b_router[candidate], part[candidate]])
    _, group, size = np.unique(keys, axis=1, return_inverse=True, return_counts=True)
    group = group.ravel()
    order = np.lexsort((candidate, group))
    first = np.r_[0, np.cumsum(size)[:-1]]
    rank = np.empty(candidate.size, dtype=np.int64)
    rank[order] = np.arange(candidate.size) - first[group[order]]
    m = size[group]
    move[candidate[rank >= m - m % k]] = True
    return move
