"""Servers of several NICs: which NIC of which server each endpoint of a topology is.

An endpoint is one port on one router (``Topology.endpoints`` counts them per router). In the
GPU fabrics (rail-optimised and multi-plane fat trees) a server has N NICs, each an endpoint on
a different router. The builders of those families record the grouping in
``Topology.extra["servers"]`` in a closed form, the dict ``layout`` returns:

- ``nics``: NICs per server (N);
- ``count``: servers;
- ``first``: int64 (R,), the server of the first endpoint of each router (-1: no endpoints);
- ``nic``: int64 (R,), which NIC (0..N-1) of its servers every endpoint of the router is
  (-1: no endpoints).

Endpoint k (0 <= k < endpoints[r]) of router r is NIC ``nic[r]`` of server ``first[r] + k``.
A topology without ``extra["servers"]`` has servers of one NIC: each endpoint is a server.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def layout(nics: int, count: int, first: np.ndarray, nic: np.ndarray) -> dict[str, Any]:
    """The ``extra["servers"]`` record (see the module docstring)."""
    return {"nics": int(nics), "count": int(count),
            "first": np.asarray(first, dtype=np.int64), "nic": np.asarray(nic, dtype=np.int64)}


def nic_endpoints(top) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(router, server, nic) of every endpoint, in router order: one row per NIC. A topology
    without a server layout gives one NIC (0) per server, servers numbered in router order."""
    router = np.repeat(np.arange(top.num_routers), top.endpoints)
    rank = np.arange(len(router)) - np.repeat(np.cumsum(top.endpoints) - top.endpoints,
                                              top.endpoints)
    record = top.extra.get("servers")
    if record is None:
        return router, np.arange(len(router)), np.zeros(len(router), dtype=np.int64)
    return router, record["first"][router] + rank, record["nic"][router]
