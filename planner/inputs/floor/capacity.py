"""Capacities: what an electrical group and a cabinet hold, and whether a floor holds a
topology's routers (``check_capacity``).

Electrical groups (how capacities are defined; ``group_capacity``):
- ``group_cabinets = k``: a group is k adjacent cabinets of one row. It holds at most
  ``k * router_slots`` routers and ``k * endpoint_slots`` endpoints (no endpoint limit when
  ``endpoint_slots`` is None).
- ``group_endpoints = N`` ("about N endpoints per group", Projective Networks §5.3): with
  ``e`` = mean endpoints per router over all routers (spines count, so indirect networks give
  spines their share), a group holds at most ``max(1, round(N / e))`` routers and at most
  ``max(N, ceil(routers * e), largest endpoints on one router)`` endpoints (so 36 routers × 14 =
  504 fits "about 500", as in Table 4). It spans ``ceil(max_routers / router_slots)`` cabinets
  (also enough ``endpoint_slots`` when those are limited): one abstract cabinet on ``pn-500``.
Placement packs routers into groups under these limits and into cabinets under
``router_slots`` / ``endpoint_slots`` (and ``cabinet_kw_budget``, ``planner.costing.power``). On a
floor with marked positions (``hall.positions``) the halls hold their free positions only
(``planner.inputs.floor.positions.free_slots``)."""

from __future__ import annotations

import math

import numpy as np

from planner.inputs.floor import positions
from planner.inputs.floor.halls import hall_capacity, hall_overflow, marked_overflow
from planner.inputs.floor.schema import Floor
from planner.run.errors import InputError


def group_capacity(floor: Floor, endpoints_per_router) -> tuple[int, int, int]:
    """(cabinets_per_group, max_endpoints_per_group, max_routers_per_group); see module doc."""
    ep = np.asarray(endpoints_per_router, dtype=np.int64)
    largest = int(ep.max()) if ep.size else 0
    if floor.group_cabinets is not None:
        k = floor.group_cabinets
        routers = k * floor.router_slots
        if floor.endpoint_slots is not None:
            endpoints = k * floor.endpoint_slots
        else:
            endpoints = int(np.sort(ep)[::-1][:routers].sum())
        return k, endpoints, routers
    target = floor.group_endpoints
    mean = float(ep.mean()) if ep.size else 0.0
    routers = max(1, math.floor(target / mean + 0.5)) if mean > 0 else max(1, ep.size)
    endpoints = max(target, math.ceil(routers * mean - 1e-9), largest)
    cabinets = math.ceil(routers / floor.router_slots)
    if floor.endpoint_slots is not None:
        cabinets = max(cabinets, math.ceil(endpoints / floor.endpoint_slots))
    return cabinets, endpoints, routers


def cabinets_needed(floor: Floor, endpoints_per_router) -> int:
    """Fewest cabinets that can hold the routers and their endpoints by slot counts alone."""
    ep = np.asarray(endpoints_per_router, dtype=np.int64)
    need = math.ceil(ep.size / floor.router_slots)
    if floor.endpoint_slots is not None:
        need = max(need, math.ceil(int(ep.sum()) / floor.endpoint_slots))
    return need


def check_capacity(floor: Floor, topology, router_model=None) -> None:
    """InputError (with the numbers) when the floor cannot hold the topology's routers."""
    ep = np.asarray(topology.endpoints, dtype=np.int64)
    largest = int(ep.max()) if ep.size else 0
    if floor.endpoint_slots is not None and largest > floor.endpoint_slots:
        raise InputError(f"floor '{floor.source}': a router has {largest} endpoints but a "
                         f"cabinet holds {floor.endpoint_slots} (field 'endpoint_slots'); "
                         f"raise endpoint_slots to at least {largest}")
    if router_model is not None and not floor.abstract:
        top = floor.first_router_ru - 1 + floor.router_slots * router_model.rack_units
        if top > floor.cabinet_height_ru:
            fit = int((floor.cabinet_height_ru - floor.first_router_ru + 1)
                      // router_model.rack_units)
            fix = (f"set router_slots to at most {fit}" if fit else
                   f"a {router_model.rack_units:g}U router does not fit above RU "
                   f"{floor.first_router_ru}; use a floor with lower first_router_ru or a "
                   "smaller router model")
            raise InputError(f"floor '{floor.source}': {floor.router_slots} router slots × "
                             f"{router_model.rack_units:g}U ({router_model.sku}) from RU "
                             f"{floor.first_router_ru} exceed the {floor.cabinet_height_ru}U "
                             f"cabinet; {fix}")
    need = cabinets_needed(floor, ep)
    if floor.max_cabinets is not None and need > floor.max_cabinets:
        raise InputError(f"floor '{floor.source}': {ep.size} routers with {int(ep.sum())} "
                         f"endpoints need at least {need} cabinets but field 'max_cabinets' "
                         f"is {floor.max_cabinets}; raise max_cabinets or the slots per cabinet")
    if floor.hall is not None:
        width = group_capacity(floor, ep)[0]
        rows, per_row = hall_capacity(floor, width)
        if positions.has_marks(floor):
            if need > int(positions.free_slots(floor, width).sum()) * width:
                raise InputError(marked_overflow(floor, need, width))
        elif need > floor.hall.count * rows * per_row * width:
            raise InputError(hall_overflow(floor, need, width))
