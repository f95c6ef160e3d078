"""Throughput of the collectives GPU fabrics exist for, beside uniform traffic: a ring
all-reduce along the rails and a rail-aligned all-to-all.

Servers of N NICs (``planner.topologies.servers``): NIC i of every server is rail i. Both
patterns keep traffic on its rail, as NCCL does on rail-optimised fabrics (NVLink inside the
server carries what changes rail; NVIDIA, "Doubling all2all performance with NVIDIA Collective
Communication Library 2.12", PXN):

- ring all-reduce: on each rail the servers form one ring in server order; every NIC sends its
  whole injection to the same NIC of the next server (the bandwidth phase of the ring
  algorithm, Patarasuk & Yuan, JPDC 2009: each rank streams to its successor);
- all-to-all: every NIC sends 1/(S-1) of its injection to the same NIC of each of the other
  S-1 servers.

θ is the largest fraction of injection every NIC sustains at once, by the same max concurrent
flow as uniform traffic (``planner.performance.throughput``): the exact LP within
``tuning.LP_NONZEROS_MAX``, else per-hop ECMP minimal routing (a lower bound) within
``tuning.ECMP_WORK_MAX``, else not computed. Traffic between NICs on one router never
crosses a link.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from planner.performance import throughput as thr
from planner.performance import tuning
from planner.performance.rounding import rounded
from planner.topologies.base import Topology
from planner.topologies.servers import nic_endpoints


def _by_rail(top: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(router, server, nic) of every endpoint, sorted by rail then server."""
    router, server, nic = nic_endpoints(top)
    order = np.lexsort((server, nic))
    return router[order], server[order], nic[order]


def ring_demand(top: Topology) -> sp.csr_matrix:
    """Router-level demand of the ring all-reduce: NIC i of server k to NIC i of the next
    server on rail i (the last to the first), one unit each."""
    router, _, nic = _by_rail(top)
    starts = np.flatnonzero(np.r_[True, nic[1:] != nic[:-1]])
    ends = np.r_[starts[1:], len(nic)]
    nxt = np.arange(1, len(nic) + 1)
    nxt[ends - 1] = starts                                  # close each rail's ring
    return thr.permutation_demand(top.num_routers, router, router[nxt], np.ones(len(nic)))


def all_to_all_demand(top: Topology) -> sp.csr_matrix:
    """Router-level demand of the rail-aligned all-to-all: per rail, ``D[s, t] = e_s·e_t/(S-1)``
    with e the rail's NICs on each router and S the rail's NICs (servers)."""
    router, _, nic = _by_rail(top)
    r = top.num_routers
    demand = sp.csr_matrix((r, r))
    for rail in np.unique(nic):
        on = router[nic == rail]
        if len(on) < 2:
            continue
        count = np.bincount(on, minlength=r).astype(float)
        used = np.flatnonzero(count)
        block = np.outer(count[used], count[used]) / (len(on) - 1)
        np.fill_diagonal(block, 0.0)
        rows, cols = np.meshgrid(used, used, indexing="ij")
        demand = demand + sp.csr_matrix((block.ravel(), (rows.ravel(), cols.ravel())),
                                        shape=(r, r))
    return demand


def collective_theta(arcs: thr.Arcs, demand: sp.csr_matrix) -> dict:
    """{theta, kind} of one pattern: exact LP, ECMP lower bound, or not computed (why)."""
    size = thr.lp_size(arcs, demand)
    if size.nonzeros <= tuning.LP_NONZEROS_MAX:
        return {"theta": rounded(thr.exact_theta(arcs, demand)),
                "kind": "exact (LP: any routing)"}
    if thr.ecmp_work(arcs, demand) <= tuning.ECMP_WORK_MAX:
        return {"theta": rounded(thr.ecmp_theta(arcs, demand)),
                "kind": "ECMP minimal routing (a lower bound)"}
    return {"theta": None,
            "kind": f"not computed: LP of {size.nonzeros:,} nonzeros and ECMP work above the "
                    "budgets"}


def collectives(top: Topology, arcs: thr.Arcs) -> dict | None:
    """The ``collectives`` block of summary.json ``performance``, for servers of several NICs
    (None for a topology whose servers have one NIC)."""
    if "servers" not in top.extra:
        return None
    return {"ring_allreduce": collective_theta(arcs, ring_demand(top)),
            "all_to_all": collective_theta(arcs, all_to_all_demand(top)),
            "over": "per rail (NIC i of every server), NCCL's rail-local patterns"}
