"""Placement of a grown system: the standing routers stay in their cabinets, the new ones go
into free cabinet positions.

Takes the grown ``Topology`` (standing routers first, ``planner.placement.grown``), the
standing cabinets (position and electrical group) and the cabinet of every standing router;
hands on a ``Placement``. Standing cabinets keep their names and positions, and since new
routers have higher ids than every standing one they never take a standing router's slot
(``planner.cabling.rack_units`` fills a cabinet in id order), so standing routers keep their
rack units. New routers are packed in id order (a new Dragonfly group, a new pod, stays
together) into new cabinets of ``router_slots`` routers and ``endpoint_slots`` endpoints;
each new cabinet takes, greedily, the free position (not standing, not marked: docs/floors.md
"Existing rooms") whose routed metres to the routers already placed that it links to are
fewest: a heuristic for the new cable dollars. The labour on standing cables does not depend
on where new routers stand (the standing routers do not move), so it is fixed by the growth.
"""

from __future__ import annotations

import numpy as np

from planner.inputs import floor as floors
from planner.inputs.floor import positions
from planner.inputs.floor.routes import route_length_m
from planner.placement.graph import Graph
from planner.placement.objective import network_link_media
from planner.placement.result import Placement
from planner.run.errors import InputError


def free_positions(floor, hall, row, col) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hall, row, col) of every position a new cabinet may take, in hall, row, column order:
    the floor's positions less the standing cabinets' and the marked ones. InputError when a
    standing cabinet stands on a marked position."""
    if floor.hall is not None:
        rows, cols = positions.hall_limits(floor)
        halls = floor.hall.count
    else:
        cols = floor.cabinets_per_row or int(np.max(col, initial=0)) + 1
        rows, halls = int(np.max(row, initial=0)) + 1 + 64, 1
    h, r, c = (x.ravel() for x in np.meshgrid(np.arange(halls), np.arange(rows),
                                               np.arange(cols), indexing="ij"))
    key = (h * rows + r) * cols + c
    standing = (np.asarray(hall) * rows + np.asarray(row)) * cols + np.asarray(col)
    marked = positions.marked_positions(floor)
    marked_key = ((marked["hall"].to_numpy() * rows + marked["row"].to_numpy()) * cols
                  + marked["col"].to_numpy())
    clash = np.flatnonzero(np.isin(standing, marked_key))
    if clash.size:
        i = int(clash[0])
        m = marked.iloc[int(np.flatnonzero(marked_key == standing[i])[0])]
        name = floors.cabinet_name(int(row[i]), int(col[i]))
        raise InputError(f"floor '{floor.source}': position {name} of hall {int(hall[i]) + 1} "
                         f"is marked {m['kind']} (field 'hall.positions[{int(m['entry'])}]') "
                         "but a standing cabinet of --from stands there; unmark it or give the "
                         "floor the plan was made on")
    free = ~np.isin(key, np.r_[standing, marked_key])
    return h[free], r[free], c[free]


def _new_cabinets(topology, first_new: int, floor) -> np.ndarray:
    """Cabinet (0..) of every new router: in id order, a new cabinet when the router or
    endpoint slots of the current one are full."""
    n = topology.num_routers - first_new
    slots = floor.router_slots or n or 1
    ep_slots = floor.endpoint_slots
    cab = np.empty(n, dtype=np.int64)
    current, routers, endpoints = 0, 0, 0
    for i in range(n):
        e = int(topology.endpoints[first_new + i])
        if routers and (routers + 1 > slots or (ep_slots and endpoints + e > ep_slots)):
            current, routers, endpoints = current + 1, 0, 0
        cab[i], routers, endpoints = current, routers + 1, endpoints + e
    return cab


def place_growth(topology, floor, catalog, router, standing_cabinet: np.ndarray,
                 hall: np.ndarray, row: np.ndarray, col: np.ndarray,
                 group: np.ndarray) -> Placement:
    """The ``Placement`` of the grown system (module doc). ``standing_cabinet``: cabinet index
    (into hall/row/col/group) of every standing router that survives."""
    first_new = len(standing_cabinet)
    new_cab = _new_cabinets(topology, first_new, floor)
    n_new = int(new_cab.max()) + 1 if len(new_cab) else 0
    fh, fr, fc = free_positions(floor, hall, row, col)
    if n_new > len(fh):
        raise InputError(f"floor '{floor.source}': the grown system needs {n_new} new cabinets "
                         f"but the floor has {len(fh)} free positions; give a floor with more "
                         "room (--floor)")
    halls = np.r_[hall, fh]
    rows, cols = np.r_[row, fr], np.r_[col, fc]
    room = floors.room_of(floor, halls, rows, cols)
    taken = np.zeros(len(fh), dtype=bool)
    router_cab = np.r_[np.asarray(standing_cabinet, np.int64),
                       np.full(len(new_cab), -1, np.int64)]
    n_old = len(hall)
    adjacency = topology.adjacency
    for c in range(n_new):
        members = first_new + np.flatnonzero(new_cab == c)
        peers = adjacency[members].tocoo()
        placed = router_cab[peers.col] >= 0
        at = router_cab[peers.col[placed]]
        weight = peers.data[placed]
        if at.size:
            length = route_length_m(room, fh[:, None], fr[:, None], fc[:, None],
                                    halls[at][None, :], rows[at][None, :], cols[at][None, :])
            cost = (np.broadcast_to(length, (len(fh), at.size)) * weight).sum(axis=1)
        else:
            cost = np.zeros(len(fh))
        cost = np.where(taken, np.inf, cost)
        best = int(np.argmin(cost))
        taken[best] = True
        router_cab[members] = n_old + best
    used = np.r_[np.arange(n_old), n_old + np.flatnonzero(taken)]
    remap = np.full(len(halls), -1, dtype=np.int64)
    order = used                     # standing cabinets first, in their order
    remap[order] = np.arange(len(order))
    router_cab = remap[router_cab]
    per_group = max(1, int(floor.group_cabinets or 1))
    new_group = int(np.max(group, initial=-1)) + 1 + np.arange(len(order) - n_old) // per_group
    cab_hall, cab_row, cab_col = halls[order], rows[order], cols[order]
    cab_group = np.r_[np.asarray(group, np.int64), new_group]
    graph = Graph.from_topology(topology)
    media = None if catalog is None else network_link_media(
        graph, router_cab, cab_hall, cab_row, cab_col, cab_group, floor, catalog, router)
    optical = media.optical if media is not None else 0
    return Placement(router_cabinet=router_cab, cabinet_row=cab_row, cabinet_col=cab_col,
                     cabinet_group=cab_group, cabinet_hall=cab_hall,
                     cabinet_names=floors.cabinet_names(cab_hall, cab_row, cab_col),
                     strategy="grow", method="standing+greedy", optical=optical,
                     lower_bound=0.0, lower_bound_kind="none (growth)",
                     objective="cable dollars" if floor.media_rule == "reach" else
                     "optical links",
                     copper=None if media is None else media.copper,
                     copper_upper_bound=int(graph.total_weight),
                     copper_bound_kind="every network cable (no bound computed for a growth)",
                     cable_cost=None if media is None else media.dollars)
