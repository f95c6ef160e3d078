"""Capacity rules of a floor, reduced to the numbers the placement algorithms use.

A cabinet holds at most ``router_slots`` routers and ``endpoint_slots`` endpoints (None = no
limit); endpoints sit in their router's cabinet. Group limits come from
``planner.floor.group_capacity`` (``group_cabinets`` adjacent cabinets, or "about N endpoints"
per group), so placement and the floor agree on one definition.

Partitioners take one vertex weight and one block capacity. Both resources are folded into
one exact-or-safe weight: with router capacity R and endpoint capacity E per group,
w_v = max(E, R * e_v) and capacity R * E. A block of total weight <= R * E satisfies both
limits (a sum of maxima bounds the maximum of the sums); when every router carries the same
number of endpoints the fold is exact. Every later step keeps this folded weight within
capacity, and the final check in the full CP-SAT model verifies the real limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

import numpy as np

from planner.errors import InputError


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

    def folded_weights(self, endpoints: np.ndarray) -> tuple[np.ndarray, int]:
        """One integer weight per router and one block capacity (see module docstring)."""
        e = np.asarray(endpoints, dtype=np.int64)
        r_cap, e_cap = self.group_routers, max(self.group_endpoints, 1)
        w, cap = np.maximum(e_cap, r_cap * e), r_cap * e_cap
        g = gcd(int(cap), *(int(x) for x in np.unique(w)))
        return w // g, int(cap) // g

    def cabinet_folded_weights(self, endpoints: np.ndarray) -> tuple[np.ndarray, int]:
        """The same fold for one cabinet's limits."""
        e = np.asarray(endpoints, dtype=np.int64)
        e_cap = self.cabinet_endpoints if self.cabinet_endpoints is not None else max(int(e.max(initial=0)), 1) * self.cabinet_routers
        w, cap = np.maximum(e_cap, self.cabinet_routers * e), self.cabinet_routers * max(e_cap, 1)
        g = gcd(int(cap), *(int(x) for x in np.unique(w)))
        return w // g, int(cap) // g

    def max_group_routers(self, endpoints: np.ndarray) -> int:
        """Most routers one group can hold (routers with fewest endpoints first)."""
        cum = np.cumsum(np.sort(np.asarray(endpoints, dtype=np.int64)))
        by_endpoints = int(np.searchsorted(cum, self.group_endpoints, side="right"))
        return max(1, min(len(cum), self.group_routers, by_endpoints))


def split_cabinets_ffd(endpoints: np.ndarray, router_slots: int, endpoint_slots: int | None) -> list[list[int]]:
    """First-fit-decreasing bin packing of routers (index lists) into cabinets."""
    order = np.argsort(-np.asarray(endpoints), kind="stable")
    bins: list[list[int]] = []
    load_e: list[int] = []
    for v in order.tolist():
        e = int(endpoints[v])
        for b in range(len(bins)):
            if len(bins[b]) < router_slots and (endpoint_slots is None or load_e[b] + e <= endpoint_slots):
                bins[b].append(v)
                load_e[b] += e
                break
        else:
            bins.append([v])
            load_e.append(e)
    return bins


def capacity_from_floor(floor, endpoints: np.ndarray, group_endpoints: int | None = None) -> Capacity:
    """Read the floor's limits; ``group_endpoints`` is the ``--group-endpoints`` override."""
    from planner.floor import check_capacity, group_capacity

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
    """The one field ``planner.floor.check_capacity`` reads from a topology."""

    endpoints: np.ndarray
