"""The cable-dollar stages of placement: routers over the layout's cabinets on reach floors, the
bounds of the objective, and what the final layout pays (``objective``).

On a reach floor the grouping-level stages (groups -> cabinets -> floor slots) give the
cabinets and their positions; ``refine`` then moves routers between those cabinets for the
dollars of their links (``cabinet_anneal``, priced by ``objective.CabinetPrices``), and cabinets
left empty are dropped. ``reach_bounds`` proves how many cables could be copper in any
placement in the room the layout occupies and what the cables cost at least
(``copper_bounds``). On a membership floor the links leaving groups are optical in every
placement, so the optical-link bound of the grouping stage bounds the copper cables, and
every cable costs at least the cheapest price of its medium over the layout's routed lengths.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from planner.inputs import floor as floors
from planner.placement.budget import Budget, HardCap
from planner.placement.cabinet_anneal import anneal_cabinets
from planner.placement.capacity import Capacity
from planner.placement.copper_bounds import (copper_upper_bound, cost_lower_bound,
                                              router_spectrum, slot_stats)
from planner.placement.graph import Graph
from planner.placement.tuning import MAX_TABLE_ENTRIES
from planner.placement.objective import (CabinetPrices, cabinet_prices,
                                        cheapest_prices, table_entries)


@dataclass(frozen=True, eq=False)
class Layout:
    """Router -> cabinet and, per cabinet, its hall, row, column and electrical group."""

    router_cabinet: np.ndarray
    hall: np.ndarray
    row: np.ndarray
    col: np.ndarray
    group: np.ndarray


def price_table(graph: Graph, floor, catalog, router, layout: Layout) -> CabinetPrices | None:
    """The cabinet-pair prices of the room the layout occupies, or None when the table would
    exceed ``tuning.MAX_TABLE_ENTRIES``."""
    room = floors.room_of(floor, layout.hall, layout.row, layout.col)
    halls = int(layout.hall.max()) + 1
    classes = len(np.unique(graph.weights))
    if table_entries(room, halls, classes) > MAX_TABLE_ENTRIES:
        return None
    return cabinet_prices(floor, catalog, router, room, halls, graph.weights)


def refine(graph: Graph, layout: Layout, prices: CabinetPrices, capacity: Capacity,
           budget: Budget, seed: int, hard_cap: HardCap) -> Layout:
    """Routers moved between the layout's cabinets for the dollars of their links (never
    dearer), empty cabinets dropped."""
    moved = anneal_cabinets(graph, layout.router_cabinet, layout.hall,
                            prices.local(layout.row, layout.col), layout.group, prices,
                            capacity.cabinet_limits(graph.endpoints),
                            capacity.group_limits(graph.endpoints), steps=budget.cabinet_steps,
                            seed=seed, hard_cap=hard_cap)
    return drop_empty(replace(layout, router_cabinet=moved))


def drop_empty(layout: Layout) -> Layout:
    """The layout without cabinets that hold no router (cabinet and group ids kept in order)."""
    used = np.bincount(layout.router_cabinet, minlength=len(layout.hall)) > 0
    if used.all():
        return layout
    index = np.cumsum(used) - 1
    _, group = np.unique(layout.group[used], return_inverse=True)
    return Layout(router_cabinet=index[layout.router_cabinet], hall=layout.hall[used],
                  row=layout.row[used], col=layout.col[used], group=group.astype(np.int64))


@dataclass(frozen=True)
class Bounds:
    copper: int
    copper_kind: str
    cost: float | None
    cost_kind: str


def reach_bounds(graph: Graph, layout: Layout, prices: CabinetPrices, capacity: Capacity,
                 seconds: float) -> Bounds:
    """Most copper cables and least cable dollars of any placement of the routers in the room
    the layout occupies (every cabinet position of its halls, ``capacity.cabinet_routers``
    router slots each; ``copper_bounds``), the seconds shared between the two."""
    halls = int(layout.hall.max()) + 1
    hall = np.repeat(np.arange(halls, dtype=np.int64), prices.positions)
    local = np.tile(np.arange(prices.positions, dtype=np.int64), halls)
    slots = int(capacity.cabinet_routers)
    stats = slot_stats(prices, hall, local, slots)
    routers = router_spectrum(graph, len(hall) * slots, seconds / 2)
    copper, copper_kind = copper_upper_bound(graph, prices, hall, local, slots, seconds / 2, stats,
                                             routers)
    cost, cost_kind = cost_lower_bound(graph, prices, hall, local, slots, copper, seconds / 2,
                                       stats, routers)
    return Bounds(copper, copper_kind, cost, cost_kind)


def membership_bounds(graph: Graph, layout: Layout, floor, catalog, router,
                      optical_bound: int) -> Bounds:
    """On a membership floor: at least ``optical_bound`` cables leave groups (optical) in any
    placement, each at least the cheapest optical price of the layout's routed lengths, the
    others at least the cheapest price."""
    copper = graph.total_weight - int(optical_bound)
    if catalog is None or len(layout.hall) ** 2 > MAX_TABLE_ENTRIES:
        return Bounds(copper, "optical-link bound", None, "")
    low, low_optical = cheapest_prices(floor, catalog, router, layout.hall, layout.row,
                                       layout.col, graph.weights)
    cost = int(optical_bound) * low_optical + copper * min(low, low_optical)
    return Bounds(copper, "optical-link bound", cost, "counting")
