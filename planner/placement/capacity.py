"""Capacity rules of a floor, as the separate limits every placement algorithm checks.

A cabinet holds at most ``router_slots`` routers and ``endpoint_slots`` endpoints (None = no
limit); endpoints sit in their router's cabinet. Group limits come from
``planner.inputs.floor.group_capacity`` (``group_cabinets`` adjacent cabinets, or "about N
endpoints" per group), so placement and the floor agree on one definition.

The limits are never folded into one weight. ``Limits`` holds one column per resource (routers,
endpoints; a cabinet kW budget would be a third column of watts per router): ``demand[v, j]``
is what router v takes of resource j and ``limit[j]`` what one block (group or cabinet) holds. A
block is feasible when every column's sum stays within its limit. The partitioners, the local
search, the annealing, the CP-SAT models and the cabinet split all test every column. Only the
single-weight partitioners (KaMinPar, METIS) see a scalarisation (``Limits.scalar``), and their
answers are repaired to the real limits before anything else uses them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from planner.run.errors import InputError
from planner.placement.tuning import SCALAR_RESOLUTION


@dataclass(frozen=True, eq=False)
class Limits:
    """Resources per router and per block: ``demand`` (n, r) int64, ``limit`` (r,) int64.

    ``names`` says what each column is ("routers", "endpoints", ...)."""

    demand: np.ndarray
    limit: np.ndarray
    names: tuple[str, ...]

    @classmethod
    def of(cls, columns: dict[str, tuple[np.ndarray, int | None]], n: int) -> "Limits":
        """Limits from named (demand per router, limit) pairs. A column whose limit is None, or
        that no block can exceed (its ``max_count`` largest demands fit, ``max_count`` being the
        router limit), is left out; the router column is always kept."""
        routers = columns.get("routers", (None, None))[1]
        demand, limit, names = [], [], []
        for name, (d, cap) in columns.items():
            if cap is None:
                continue
            d = np.broadcast_to(np.asarray(d, dtype=np.int64), (n,))
            if name != "routers" and routers is not None:
                if int(np.sort(d)[::-1][:int(routers)].sum()) <= int(cap):
                    continue
            demand.append(d)
            limit.append(int(cap))
            names.append(name)
        return cls(demand=np.stack(demand, axis=1) if demand else np.zeros((n, 0), dtype=np.int64),
                   limit=np.asarray(limit, dtype=np.int64), names=tuple(names))

    @classmethod
    def single(cls, weights, cap: int) -> "Limits":
        """One resource: ``weights`` per router, ``cap`` per block."""
        w = np.asarray(weights, dtype=np.int64)
        return cls(demand=w.reshape(-1, 1), limit=np.array([int(cap)], dtype=np.int64), names=("weight",))

    @property
    def n(self) -> int:
        return len(self.demand)

    def loads(self, part: np.ndarray, k: int) -> np.ndarray:
        """(k, r) load of every block."""
        out = np.zeros((int(k), len(self.limit)), dtype=np.int64)
        np.add.at(out, np.asarray(part, dtype=np.int64), self.demand)
        return out

    def excess(self, part: np.ndarray, k: int) -> int:
        """Total amount by which blocks exceed their limits (0 = feasible)."""
        return int(np.maximum(self.loads(part, k) - self.limit, 0).sum())

    def fits(self, part: np.ndarray, k: int | None = None) -> bool:
        part = np.asarray(part, dtype=np.int64)
        k = int(part.max()) + 1 if k is None and len(part) else int(k or 0)
        return self.excess(part, k) == 0

    def room(self, loads: np.ndarray, v: int) -> np.ndarray:
        """Blocks (rows of ``loads``) that can take router v."""
        return np.all(loads + self.demand[v] <= self.limit, axis=1)

    def min_blocks(self) -> int:
        """No partition has fewer blocks than the fullest resource needs."""
        total = self.demand.sum(axis=0)
        return max([1] + [math.ceil(int(t) / int(c)) for t, c in zip(total, self.limit)])

    def max_count(self) -> int:
        """Most routers one block can hold (those with the smallest demands first)."""
        most = self.n
        for col, cap in zip(self.demand.T, self.limit.tolist()):
            most = min(most, int(np.searchsorted(np.cumsum(np.sort(col)), cap, side="right")))
        return max(1, most)

    def block_size(self) -> int | None:
        """Routers per block when every router takes the same room in every resource, else None."""
        if len(self.limit) and np.any(self.demand != self.demand[0]):
            return None
        return self.max_count()

    def subset(self, nodes: np.ndarray) -> "Limits":
        return Limits(demand=self.demand[np.asarray(nodes, dtype=np.int64)], limit=self.limit, names=self.names)

    def scalar(self) -> tuple[np.ndarray, int]:
        """One weight per router and one block capacity for single-weight partitioners: each
        resource in units of ``SCALAR_RESOLUTION`` per block limit, summed; the capacity is a
        block at every limit. A block within all limits is within the capacity, not conversely:
        the partitioners' answers go through ``partition.repair``."""
        if len(self.limit) == 0:
            return np.ones(self.n, dtype=np.int64), max(self.n, 1)
        scaled = np.ceil(self.demand * (SCALAR_RESOLUTION / self.limit.astype(float)) - 1e-9)
        w = np.maximum(scaled.sum(axis=1).astype(np.int64), 1)
        return w, SCALAR_RESOLUTION * len(self.limit)

    def describe(self, loads: np.ndarray) -> str:
        """'routers 40/36, endpoints 520/504' for one block's loads."""
        return ", ".join(f"{name} {int(x)}/{int(c)}" for name, x, c in zip(self.names, loads, self.limit))


@dataclass(frozen=True)
class Capacity:
    """Per-cabinet and per-group limits (cabinet_endpoints None = unlimited)."""

    cabinet_routers: int
    cabinet_endpoints: int | None
    group_cabinets: int
    group_routers: int
    group_endpoints: int
    max_cabinets: int | None = None
    fixed_group_cabinets: bool = True

    def group_limits(self, endpoints: np.ndarray) -> Limits:
        """Limits of one electrical group: routers and endpoints, kept apart."""
        e = np.asarray(endpoints, dtype=np.int64)
        return Limits.of({"routers": (1, self.group_routers), "endpoints": (e, self.group_endpoints)}, len(e))

    def cabinet_limits(self, endpoints: np.ndarray) -> Limits:
        """Limits of one cabinet: router slots and endpoint slots."""
        e = np.asarray(endpoints, dtype=np.int64)
        return Limits.of({"routers": (1, self.cabinet_routers), "endpoints": (e, self.cabinet_endpoints)}, len(e))


def pack_first_fit(limits: Limits, order: np.ndarray | None = None) -> np.ndarray:
    """Block of each router: routers in ``order`` (default: largest demand first, first-fit
    decreasing) each go to the first block with room for every resource."""
    n = limits.n
    if order is None:
        key = (limits.demand / np.maximum(limits.limit, 1)).sum(axis=1) if len(limits.limit) else np.zeros(n)
        order = np.argsort(-key, kind="stable")
    part = np.empty(n, dtype=np.int64)
    loads = np.zeros((0, len(limits.limit)), dtype=np.int64)
    for v in np.asarray(order, dtype=np.int64).tolist():
        fit = np.flatnonzero(limits.room(loads, v))
        if len(fit):
            b = int(fit[0])
        else:
            b = len(loads)
            loads = np.vstack([loads, np.zeros((1, len(limits.limit)), dtype=np.int64)])
        part[v] = b
        loads[b] += limits.demand[v]
    return part


def capacity_from_floor(floor, endpoints: np.ndarray, group_endpoints: int | None = None) -> Capacity:
    """Read the floor's limits; ``group_endpoints`` is the ``--group-endpoints`` override."""
    from planner.inputs.floor import check_capacity, group_capacity

    ep = np.asarray(endpoints, dtype=np.int64)
    largest = int(ep.max()) if ep.size else 0
    if group_endpoints is not None:
        if isinstance(group_endpoints, bool) or int(group_endpoints) < max(largest, 1):
            raise InputError(f"--group-endpoints {group_endpoints} is below one router's {largest} "
                             f"endpoints; use --group-endpoints >= {max(largest, 1)}")
        floor = floor.with_group_endpoints(int(group_endpoints))
    if floor.group_endpoints is not None and floor.group_endpoints < largest:
        raise InputError(f"floor '{floor.source}': field 'group_endpoints' is {floor.group_endpoints}, "
                         f"below one router's {largest} endpoints; set it (or --group-endpoints) "
                         f">= {largest}")
    check_capacity(floor, _Routers(ep))
    cabinets, max_endpoints, max_routers = group_capacity(floor, ep)
    endpoint_slots = floor.endpoint_slots
    leaf_counts = np.unique(ep[ep > 0])
    if endpoint_slots is not None and len(leaf_counts) == 1:
        # whole routers only: a cabinet really holds floor(slots / p) routers of p endpoints
        endpoint_slots = int(leaf_counts[0]) * (endpoint_slots // int(leaf_counts[0]))
        if floor.group_cabinets is not None:
            max_endpoints = min(max_endpoints, cabinets * endpoint_slots)
    return Capacity(cabinet_routers=int(floor.router_slots), cabinet_endpoints=endpoint_slots,
                    group_cabinets=int(cabinets), group_routers=int(max_routers),
                    group_endpoints=int(max_endpoints), max_cabinets=floor.max_cabinets,
                    fixed_group_cabinets=floor.group_cabinets is not None)


@dataclass(frozen=True)
class _Routers:
    """The one field ``planner.inputs.floor.check_capacity`` reads from a topology."""

    endpoints: np.ndarray
