"""The ``Topology`` value: what every later stage (placement, cabling, costing, exports) reads.

Routers are ``0..R-1``. Links are stored once per router pair as an ``(L, 2)`` array with
``u < v``, sorted, plus a multiplicity per pair (trunked links, several Dragonfly global links
between one router pair). Endpoints are counted per router. Indirect networks (fat tree, OFT,
MLFM) carry a role per router; endpoints sit on leaf routers only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import networkx as nx
    import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class Topology:
    """An interconnect: routers, router-router links with multiplicity, endpoints per router.

    family:     registry name of the builder ("slimfly", "dragonfly", ... or "import").
    params:     the builder's parameters with defaults resolved (JSON-serialisable scalars).
    links:      int64 array (L, 2), u < v, rows unique and sorted lexicographically.
    multiplicity: int64 array (L,), >= 1, parallel cables between the pair.
    endpoints:  int64 array (R,), endpoints (compute nodes) attached to each router.
    roles:      per-router role ("leaf", "spine", "edge", "aggregation", "core", ...) for
                indirect networks, or None for direct networks (every router is a leaf).
    groups:     natural grouping hint, int64 array (R,) of group ids 0..G-1, or None.
    group_kind: what a hint group is ("rack", "group", "pod", "row", ...), or None.
    symmetries: router permutations the builder claims are automorphisms (``perm[v]`` is the
                image of router v; each maps the links with their multiplicities onto
                themselves and keeps the endpoints per router), or None. A claim only:
                ``planner.topologies.metrics`` checks each before it uses it.
    """

    family: str
    params: dict[str, Any]
    num_routers: int
    links: np.ndarray
    multiplicity: np.ndarray
    endpoints: np.ndarray
    roles: tuple[str, ...] | None = None
    groups: np.ndarray | None = None
    group_kind: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    symmetries: tuple[np.ndarray, ...] | None = None

    @classmethod
    def from_edges(cls, family: str, params: dict[str, Any], num_routers: int, edges,
                   endpoints, **kwargs) -> "Topology":
        """Build from an iterable/array of (u, v) pairs; repeated pairs add multiplicity."""
        arr = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        if len(arr) and (arr.min() < 0 or arr.max() >= num_routers):
            raise ValueError("edge endpoint outside 0..R-1")
        if np.any(arr[:, 0] == arr[:, 1]):
            raise ValueError("self-loop")
        lo = np.minimum(arr[:, 0], arr[:, 1])
        hi = np.maximum(arr[:, 0], arr[:, 1])
        keys, counts = np.unique(lo * np.int64(max(num_routers, 1)) + hi, return_counts=True)
        pairs = np.stack([keys // max(num_routers, 1), keys % max(num_routers, 1)], axis=1)
        ep = np.broadcast_to(np.asarray(endpoints, dtype=np.int64), (num_routers,)).copy()
        groups = kwargs.pop("groups", None)
        if groups is not None:
            groups = np.asarray(groups, dtype=np.int64)
        roles = kwargs.pop("roles", None)
        if roles is not None:
            roles = tuple(roles)
        return cls(family=family, params=dict(params), num_routers=int(num_routers),
                   links=pairs.reshape(-1, 2).astype(np.int64),
                   multiplicity=counts.astype(np.int64), endpoints=ep,
                   roles=roles, groups=groups, **kwargs)

    @cached_property
    def degree(self) -> np.ndarray:
        """Network (router-router) ports used on each router, counting multiplicity."""
        deg = np.zeros(self.num_routers, dtype=np.int64)
        np.add.at(deg, self.links[:, 0], self.multiplicity)
        np.add.at(deg, self.links[:, 1], self.multiplicity)
        return deg

    @cached_property
    def ports(self) -> np.ndarray:
        """All ports used on each router: network ports + endpoint ports."""
        return self.degree + self.endpoints

    @property
    def radix(self) -> int:
        """Maximum ports used on any router (network + endpoint), the radix a router must have."""
        return int(self.ports.max()) if self.num_routers else 0

    @property
    def num_endpoints(self) -> int:
        return int(self.endpoints.sum())

    @property
    def num_links(self) -> int:
        """Router-router cables, counting multiplicity."""
        return int(self.multiplicity.sum())

    @cached_property
    def adjacency(self) -> sp.csr_matrix:
        """Symmetric R x R sparse matrix, entry = multiplicity of the router pair."""
        import scipy.sparse as sp  # imported here: SciPy costs ~0.3 s at start-up

        r = self.num_routers
        u, v = self.links[:, 0], self.links[:, 1]
        m = sp.coo_matrix((np.concatenate([self.multiplicity, self.multiplicity]),
                           (np.concatenate([u, v]), np.concatenate([v, u]))), shape=(r, r))
        return m.tocsr()

    def leaves(self) -> np.ndarray:
        """Ids of routers that carry endpoints (all routers for a direct network)."""
        return np.flatnonzero(self.endpoints > 0)

    def to_networkx(self) -> nx.Graph:
        """Simple graph with node attribute ``endpoints`` and edge attribute ``multiplicity``."""
        import networkx as nx  # imported here: it costs ~0.3 s at start-up

        g = nx.Graph()
        g.add_nodes_from((i, {"endpoints": int(e)}) for i, e in enumerate(self.endpoints))
        g.add_edges_from((int(u), int(v), {"multiplicity": int(m)})
                         for (u, v), m in zip(self.links, self.multiplicity))
        return g
