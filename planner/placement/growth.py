"""Placement of a grown system: the standing routers stay in their cabinets and rack units, the
new ones go into free slots of standing cabinets and into free cabinet positions.

Takes the grown ``Topology`` (standing routers first, ``planner.placement.grown``), the
standing cabinets (position and electrical group) and the cabinet of every standing router;
hands on a ``Placement`` and how it was found (``GrowthPlacement``). Standing cabinets keep
their names and positions. New routers have higher ids than every standing one and
``planner.cabling.rack_units`` fills a cabinet in id order, so a new router in a standing
cabinet takes the slots after its standing routers (and its endpoints the endpoint slots after
theirs): standing routers keep their rack units. The slots a standing box takes
(``box_units``: a management switch or subnet-manager box above a cabinet's routers) and the
slots above it are not free.

1. Greedy start: new routers packed in id order (a new Dragonfly group, a new pod, stays
   together) into new cabinets of ``router_slots`` routers and ``endpoint_slots`` endpoints,
   each new cabinet at the free position (not standing, not marked: docs/floors.md "Existing
   rooms") with the fewest routed metres to the routers already placed that it links to.
2. Search (floors with a catalog): ``growth_search`` moves new routers between new
   cabinets, empty positions and the free router and endpoint slots of standing cabinets
   (within their electrical group's limits), swaps two, and moves whole new cabinets, for the
   dollars of the links with a new router at an end, priced by the placement stage's table
   (``objective.CabinetPrices``), a standing cable re-plugged to a new router (``moved_to_new``)
   at nothing where its part stays and at its new part elsewhere, within
   ``tuning.GROWTH_EVALUATIONS_PER_ROUTER`` evaluations.
   Both layouts are then priced as the cabling stage prices them
   (``objective.network_link_media``) and the cheaper kept. On ``membership`` floors (the
   papers' layouts) every position belongs to the electrical group of its slot
   (``group_cabinets`` adjacent cabinets of a row, ``planner.inputs.floor.slot_layout``): a
   standing group's where one of its cabinets stands in the slot, else a new group; a link
   between two groups is priced as optical (``cabinet_prices(same_group=False)``), the greedy
   start opens new cabinets only in new groups' slots, and every move keeps each group within
   its limits (``planner.inputs.floor.group_capacity``).
3. Lower bound on those dollars (halls of a given size, where the table's room is the
   layout's): each new link at its cheapest price from its standing end's cabinet to any
   position, or between any two positions (``growth_search.new_link_lower_bound``).

The standing cables a growth re-plugs or removes are fixed by the growth's ports
(``planner.placement.grown``), so their labour does not depend on where new routers stand; the
part of a re-plugged cable does, and the search prices it off structured floors
(``prices_moves``). On floors with structured cabling the grown plant may also re-patch a kept
cable (``planner.cabling.work_order.with_repatched``); the search does not see that."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from planner.inputs import floor as floors
from planner.inputs.floor import positions
from planner.inputs.floor.routes import route_length_m
from planner.placement.graph import Graph
from planner.placement.growth_search import (PART_KEPT, UNLIMITED, Moved, SearchResult, Sites,
                                             improve, new_link_lower_bound)
from planner.placement.objective import (CabinetPrices, cabinet_prices, network_link_media,
                                        table_entries)
from planner.placement.priced import Layout
from planner.placement.result import Placement
from planner.placement.tuning import (GROWTH_EVALUATIONS_PER_ROUTER, GROWTH_MAX_EVALUATIONS,
                                      MAX_TABLE_ENTRIES)
from planner.run.errors import InputError

BOUND_KIND = "cheapest position per new link (growth)"


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


def _new_cabinets(topology, first_new: int, floor, caps=None) -> np.ndarray:
    """Cabinet (0..) of every new router: in id order, a new cabinet when the router or
    endpoint slots of the current one (``caps``: (routers, endpoints) a cabinet may take, by
    default the floor's slots) are full."""
    n = topology.num_routers - first_new
    slots = floor.router_slots or n or 1
    ep_slots = floor.endpoint_slots
    if caps is not None:
        slots, ep_slots = caps
    cab = np.empty(n, dtype=np.int64)
    current, routers, endpoints = 0, 0, 0
    for i in range(n):
        e = int(topology.endpoints[first_new + i])
        if routers and (routers + 1 > slots or (ep_slots and endpoints + e > ep_slots)):
            current, routers, endpoints = current + 1, 0, 0
        cab[i], routers, endpoints = current, routers + 1, endpoints + e
    return cab


def moved_to_new(standing, topology, standing_cabinet, first_new: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(new router, standing router, standing cabinet the other end leaves) of every standing
    cable the growth re-plugs at one end to a new router: as the work order pairs them
    (``planner.cabling.work_order.pairs``), a standing cable not kept stays plugged at its
    lower router's port when a grown cable takes that port, else at its higher router's.
    ``standing``: ``grown.Standing`` (its routers keep their ids); ``topology``: the grown one,
    ports in ``extra["network_ports"]``; ``standing_cabinet``: the standing plan's cabinet of
    every standing router; ``first_new``: the first new router's id."""
    mult = topology.multiplicity
    a = np.repeat(topology.links[:, 0], mult)
    b = np.repeat(topology.links[:, 1], mult)
    a_port, b_port = topology.extra["network_ports"]
    by_end = {}
    for x, px, y, py in zip(a.tolist(), np.asarray(a_port).tolist(), b.tolist(),
                            np.asarray(b_port).tolist()):
        by_end[(x, px)] = (y, py)
        by_end[(y, py)] = (x, px)
    out = []
    for u, pu, w, pw in zip(standing.a_router.tolist(), standing.a_port.tolist(),
                            standing.b_router.tolist(), standing.b_port.tolist()):
        (lo, plo), (hi, phi) = sorted(((u, pu), (w, pw)))
        if by_end.get((lo, plo)) == (hi, phi):
            continue                                    # kept
        for stay, gone in (((lo, plo), hi), ((hi, phi), lo)):
            peer = by_end.get(stay) if stay[0] < topology.num_routers else None
            if peer is not None:
                if peer[0] >= first_new:
                    out.append((peer[0], stay[0], int(standing_cabinet[gone])))
                break
    rows = np.asarray(out, dtype=np.int64).reshape(-1, 3)
    return rows[:, 0], rows[:, 1], rows[:, 2]


@dataclass(frozen=True)
class GrowthPlacement:
    """Where the new routers went and what their links cost: the dollars of the new parts of
    the network cables with a new router at one end or both (``network_link_media``, as the
    cabling stage prices them, less the parts the moved cables keep) after the greedy start and
    after the search, a lower bound on them and its kind, the search's evaluations and moves,
    how many new routers fill standing cabinets, and how many moved cables keep their part and
    how many need a new one (None where moves are not priced: ``prices_moves``)."""

    placement: Placement
    method: str
    start_dollars: float | None
    dollars: float | None
    lower_bound: float | None
    bound_kind: str
    evaluations: int
    moves: dict
    in_standing_cabinets: int
    new_cabinets: int
    moved_parts_kept: int | None = None
    moved_parts_replaced: int | None = None


def _greedy_start(topology, first_new: int, floor, router_cab, halls, rows, cols, room,
                  fh, fr, fc, groups: "_Groups | None" = None) -> np.ndarray:
    """Free position (index into fh) of every new router: packed in id order into new cabinets
    (``_new_cabinets``), each new cabinet at the free position with the fewest routed metres to
    the routers already placed that it links to; on membership floors (``groups``) only in a
    new group's slot, a cabinet taking at most its share of the group's limits."""
    new_cab = _new_cabinets(topology, first_new, floor,
                            None if groups is None else groups.cabinet_caps)
    n_new = int(new_cab.max()) + 1 if len(new_cab) else 0
    usable = (np.ones(len(fh), dtype=bool) if groups is None
              else groups.new_slot[len(halls) - len(fh):])
    if n_new > int(usable.sum()):
        raise InputError(f"floor '{floor.source}': the grown system needs {n_new} new cabinets "
                         f"but the floor has {int(usable.sum())} free positions; give a floor "
                         "with more room (--floor)")
    router_cab = router_cab.copy()
    n_old = len(halls) - len(fh)
    taken = ~usable
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
    return router_cab[first_new:] - n_old


@dataclass(frozen=True, eq=False)
class _Groups:
    """Electrical groups of every position on a membership floor (standing cabinets first,
    then the free positions): ``of`` the group (a standing group's number where one of its
    cabinets stands in the position's slot, else a new number per slot), ``new_slot`` whether
    the position's slot holds no standing cabinet, ``cabinet_caps`` the routers and endpoints
    one new cabinet of the greedy start may take (its share of a group's limits)."""

    of: np.ndarray
    new_slot: np.ndarray
    cabinet_caps: tuple[int, int | None]


def _membership_groups(floor, topology, halls, rows, cols, group) -> _Groups:
    """The ``_Groups`` of the positions (``halls``, ``rows``, ``cols``: the standing cabinets,
    of electrical group ``group``, first): slots of ``group_cabinets`` adjacent cabinets of a
    row, the papers' layout (``planner.inputs.floor.slot_layout``; with ``group_endpoints``,
    the cabinets a group needs, ``planner.inputs.floor.group_capacity``)."""
    from planner.inputs.floor import group_capacity

    width, group_endpoints, group_routers = group_capacity(floor, topology.endpoints)
    width = max(1, int(width))
    n_old = len(group)
    key = np.stack([np.asarray(halls), np.asarray(rows), np.asarray(cols) // width], axis=1)
    slots, slot_of = np.unique(key, axis=0, return_inverse=True)
    slot_of = slot_of.ravel()
    owner = np.full(len(slots), -1, dtype=np.int64)
    held, first = np.unique(slot_of[:n_old], return_index=True)
    owner[held] = np.asarray(group, np.int64)[first]     # the group of its first cabinet
    fresh = np.flatnonzero(owner < 0)
    owner[fresh] = int(np.max(group, initial=-1)) + 1 + np.arange(len(fresh))
    slots_cap = floor.router_slots or group_routers
    caps = (max(1, min(slots_cap, group_routers // width)),
            None if floor.endpoint_slots is None and floor.group_endpoints is None
            else max(1, min(floor.endpoint_slots or group_endpoints, group_endpoints // width)))
    return _Groups(of=owner[slot_of], new_slot=np.isin(slot_of, fresh), cabinet_caps=caps)


def _slots_below_boxes(taken, used, lowest, height: float) -> np.ndarray:
    """Per standing cabinet, the slots after its ``used`` ones up to the first whose rack
    units (``lowest(slot)`` .. + ``height``) a standing box takes (``taken``: (cabinets, units)
    bool); ``UNLIMITED`` where no box is in the way."""
    out = np.full(len(used), UNLIMITED, dtype=np.int64)
    top, h = taken.shape[1], int(np.ceil(height))
    for c in np.flatnonzero(taken.any(axis=1)).tolist():
        s = int(used[c])
        while (lo := int(lowest(s))) < top:
            if taken[c, lo:lo + h].any():
                out[c] = s - int(used[c])
                break
            s += 1
    return out


def _sites(topology, floor, standing_cabinet, halls, rows, cols, group, prices,
           router=None, box_units=None, groups: _Groups | None = None) -> Sites:
    """The standing cabinets with what they may still take (router and endpoint slots below
    the standing boxes' units, ``box_units``; their electrical group's limits:
    ``planner.inputs.floor.group_capacity``), then the free positions (``halls``, ``rows``,
    ``cols``: standing cabinets first; of their slot's group on membership floors,
    ``groups``)."""
    from planner.inputs.floor import endpoint_ru_of, group_capacity, router_ru

    first_new, n_old = len(standing_cabinet), len(group)
    n_free = len(halls) - n_old
    ep = np.asarray(topology.endpoints, dtype=np.int64)
    slots = floor.router_slots or UNLIMITED
    ep_slots = floor.endpoint_slots if floor.endpoint_slots is not None else UNLIMITED
    routers = np.bincount(standing_cabinet, minlength=n_old)
    endpoints = np.bincount(standing_cabinet, weights=ep[:first_new],
                            minlength=n_old).astype(np.int64)
    router_room = np.maximum(slots - routers, 0)
    endpoint_room = np.maximum(ep_slots - endpoints, 0)
    if box_units is not None and not floor.abstract:
        height = float(router.rack_units)
        router_room = np.minimum(router_room, _slots_below_boxes(
            box_units, routers, lambda k: router_ru(floor, k, height), height))
        if floor.endpoint_ru > 0:
            endpoint_room = np.minimum(endpoint_room, _slots_below_boxes(
                box_units, endpoints, lambda k: endpoint_ru_of(floor, k), floor.endpoint_ru))
    _, group_endpoints, group_routers = group_capacity(floor, ep)
    g = np.asarray(group, np.int64)
    site_group = np.r_[g, np.full(n_free, -1, np.int64)] if groups is None else groups.of
    size = int(max(site_group.max(initial=-1), g.max(initial=-1))) + 1
    g_routers = np.bincount(g, weights=routers, minlength=size)
    g_endpoints = np.bincount(g, weights=endpoints, minlength=size)
    return Sites(
        hall=np.asarray(halls, np.int64), local=prices.local(rows, cols),
        router_room=np.r_[router_room, np.full(n_free, slots)],
        endpoint_room=np.r_[endpoint_room, np.full(n_free, ep_slots)],
        group=site_group,
        group_router_room=np.maximum(group_routers - g_routers, 0).astype(np.int64),
        group_endpoint_room=np.maximum(group_endpoints - g_endpoints, 0).astype(np.int64),
        standing=n_old)


def place_growth(topology, floor, catalog, router, standing_cabinet: np.ndarray,
                 hall: np.ndarray, row: np.ndarray, col: np.ndarray,
                 group: np.ndarray, moved=None, box_units=None) -> GrowthPlacement:
    """The placement of the grown system (module doc). ``standing_cabinet``: cabinet index
    (into hall/row/col/group) of every standing router that survives; ``moved``: the standing
    cables re-plugged to new routers, (new router, standing router, standing cabinet the other
    end leaves) per cable (``moved_to_new``; none by default); ``box_units``: (standing
    cabinets, units) bool, the rack units the standing fabric boxes take."""
    standing = np.asarray(standing_cabinet, dtype=np.int64)
    moved = (np.zeros(0, np.int64),) * 3 if moved is None or not prices_moves(floor) else tuple(
        np.asarray(x, np.int64) for x in moved)
    first_new, n_old = len(standing), len(hall)
    fh, fr, fc = free_positions(floor, hall, row, col)
    halls, rows, cols = np.r_[hall, fh], np.r_[row, fr], np.r_[col, fc]
    groups = (_membership_groups(floor, topology, halls, rows, cols, group)
              if floor.media_rule != "reach" else None)
    room = floors.room_of(floor, halls, rows, cols)
    routers = np.r_[standing, np.full(topology.num_routers - first_new, -1, np.int64)]
    start = n_old + _greedy_start(topology, first_new, floor, routers, halls, rows, cols, room,
                                  fh, fr, fc, groups)
    graph = Graph.from_topology(topology)
    new_links = graph.links[:, 1] >= first_new
    start_layout = _layout(topology, floor, standing, start, halls, rows, cols, group, groups)
    start_dollars = _dollars(graph, new_links, moved, start_layout, floor, catalog, router)
    # the search's room: the start's (an "auto" hall is the extent of its cabinets)
    room = floors.room_of(floor, start_layout.hall, start_layout.row, start_layout.col)
    prices, cross, why_not = _price_table(graph, floor, catalog, router, room,
                                          start_layout.hall)
    if prices is None or topology.num_routers == first_new:
        method = "standing+greedy" + (f" ({why_not})" if why_not else "")
        return _result(graph, first_new, n_old, start_layout, floor, catalog, router, method,
                       start_dollars, start_dollars, None, None, moved)
    # the search's sites: the standing cabinets, then the free positions of that room
    inside = (fh < room.halls) & (fr < room.rows) & (fc < room.cols)
    candidate = np.r_[np.arange(n_old), n_old + np.flatnonzero(inside)]
    sites = _sites(topology, floor, standing, halls[candidate], rows[candidate],
                   cols[candidate], group, prices, router, box_units,
                   None if groups is None else _Groups(groups.of[candidate],
                                                        groups.new_slot[candidate],
                                                        groups.cabinet_caps))
    site_of = np.full(len(halls), -1, np.int64)
    site_of[candidate] = np.arange(len(candidate))
    n_new = topology.num_routers - first_new
    budget = min(GROWTH_MAX_EVALUATIONS, GROWTH_EVALUATIONS_PER_ROUTER * n_new * len(candidate))
    search_moved = Moved(new=moved[0], standing=moved[1], old_site=site_of[moved[2]])
    found = improve(topology.adjacency, first_new, topology.endpoints, standing,
                    site_of[start], sites, prices, budget, search_moved, cross)
    layout = _layout(topology, floor, standing, candidate[found.site], halls, rows, cols, group,
                     groups)
    dollars = _dollars(graph, new_links, moved, layout, floor, catalog, router)
    method = "standing+greedy+search"
    if dollars > start_dollars:        # the table's room is larger than the layout's: keep
        layout, dollars = start_layout, start_dollars        # the start (never dearer)
        method = "standing+greedy (search kept the start)"
    bound = None
    if _fixed_halls(floor):
        cheapest = prices if cross is None else replace(
            prices, price=np.minimum(prices.price, cross.price))
        bound = new_link_lower_bound(topology.adjacency, first_new, site_of[standing],
                                     sites, cheapest, search_moved)
    return _result(graph, first_new, n_old, layout, floor, catalog, router, method,
                   start_dollars, dollars, bound, found, moved)


def _price_table(graph, floor, catalog, router, room, halls
                 ) -> tuple[CabinetPrices | None, CabinetPrices | None, str]:
    """(the cabinet-pair prices of the room, ``objective.cabinet_prices``; on membership
    floors those of links between two groups, else None; ""), or (None, None, why no search
    runs): no catalog, no link, or tables above ``tuning.MAX_TABLE_ENTRIES``."""
    if catalog is None:
        return None, None, "no catalog: not priced"
    if not len(graph.weights):
        return None, None, ""
    count = int(np.max(halls)) + 1
    tables = 1 if floor.media_rule == "reach" else 2
    if tables * table_entries(room, count, len(np.unique(graph.weights))) > MAX_TABLE_ENTRIES:
        return None, None, "price table too large: no search"
    inside = cabinet_prices(floor, catalog, router, room, count, graph.weights)
    if tables == 1:
        return inside, None, ""
    return inside, cabinet_prices(floor, catalog, router, room, count, graph.weights,
                                  same_group=False), ""


def _fixed_halls(floor) -> bool:
    """True when every hall has a given size, so the room of the grown layout is the room the
    price table was made for (an "auto" hall is the extent of its cabinets)."""
    hall = floor.hall
    return hall is not None and hall.rows != "auto" and hall.cabinets_per_row != "auto"


def _layout(topology, floor, standing, site, halls, rows, cols, group,
            groups: _Groups | None = None) -> Layout:
    """The standing cabinets (all, in their order) and the free positions new routers stand on
    (in hall, row, column order), each new cabinet's electrical group after the standing ones,
    ``group_cabinets`` new cabinets a group; on membership floors (``groups``) the group of its
    slot (new groups numbered after the standing ones in position order)."""
    n_old = len(group)
    where = np.r_[standing, np.asarray(site, np.int64)]
    used = np.r_[np.arange(n_old), np.unique(where[where >= n_old])]
    remap = np.full(len(halls), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    first = int(np.max(group, initial=-1)) + 1
    if groups is None:
        per_group = max(1, int(floor.group_cabinets or 1))
        new_group = first + np.arange(len(used) - n_old) // per_group
    else:
        of = groups.of[used[n_old:]]
        fresh = of >= first
        _, order = np.unique(of[fresh], return_inverse=True)
        new_group = of.copy()
        new_group[fresh] = first + order.ravel()
    return Layout(router_cabinet=remap[where], hall=halls[used], row=rows[used],
                  col=cols[used], group=np.r_[np.asarray(group, np.int64), new_group])


def prices_moves(floor) -> bool:
    """Whether the search prices moved cables by their part: off floors with structured
    cabling. Through panels a moved cable keeps its cords and takes another trunk seat, and the
    price table, which prices a link's whole channel (cords, trunk share and optics), says
    nothing about the cords: on the 100K Dragonfly growth on ``hot-aisle`` (docs/growth.md)
    pricing them so raised the new parts by $2.95M (5.7 %), more optical links."""
    return not floor.structured_cabling


def _dollars(graph, links, moved, layout: Layout, floor, catalog, router) -> float | None:
    """Dollars of the new parts of the chosen links of ``graph`` in the layout, as the cabling
    stage prices them, less the parts the moved cables keep (``kept_parts``); None without a
    catalog."""
    if catalog is None:
        return None
    part = Graph(n=graph.n, links=graph.links[links], weights=graph.weights[links],
                 endpoints=graph.endpoints)
    total = network_link_media(part, layout.router_cabinet, layout.hall, layout.row,
                               layout.col, layout.group, floor, catalog, router).dollars
    price, kept = kept_parts(graph, moved, layout, floor, catalog, router)
    return total - float(price[kept].sum())


def kept_parts(graph, moved, layout: Layout, floor, catalog, router
               ) -> tuple[np.ndarray, np.ndarray]:
    """(price per cable of every moved cable on its grown route, whether it keeps its part):
    the part stays where the grown route from its standing end prices as its standing route
    did (the same cheapest part of ``planner.inputs.parts.media.routed_parts``, ``PART_KEPT``),
    both routed in the grown layout's room (standing cabinets keep their index)."""
    from planner.inputs.parts.media import routed_parts

    new, stay, left = moved
    if not len(new):
        return np.zeros(0), np.zeros(0, dtype=bool)
    weight = {(int(u), int(v)): int(w) for (u, v), w in zip(graph.links.tolist(),
                                                            graph.weights.tolist())}
    parallel = np.asarray([weight.get((min(u, v), max(u, v)), 1)
                           for u, v in zip(stay.tolist(), new.tolist())], dtype=np.int64)
    cab = layout.router_cabinet
    room = floors.room_of(floor, layout.hall, layout.row, layout.col)
    group = np.asarray(layout.group, np.int64)

    def priced(a, b):
        return routed_parts(catalog, floor, room, layout.hall, layout.row, layout.col, a, b,
                            group[a] == group[b], router=router, parallel=parallel).parts.price

    after = priced(cab[stay], cab[new])
    before = priced(cab[stay], left)
    return after, np.isfinite(after) & (np.abs(after - before) <= PART_KEPT)


def _result(graph, first_new: int, n_old: int, layout: Layout, floor, catalog, router, method: str,
            start_dollars, dollars, bound, found: SearchResult | None,
            moved) -> GrowthPlacement:
    """The ``Placement`` of the layout (cable dollars and media as the cabling stage prices
    them; the cable-dollar bound: the standing routers' links as laid plus ``bound`` on the
    new ones) and the report of how it was found."""
    media = None if catalog is None else network_link_media(
        graph, layout.router_cabinet, layout.hall, layout.row, layout.col, layout.group, floor,
        catalog, router)
    priced = media is not None and prices_moves(floor)
    price, kept = (kept_parts(graph, moved, layout, floor, catalog, router) if priced
                   else (np.zeros(0), np.zeros(0, dtype=bool)))
    standing_links = (None if media is None                 # all cables less the new links'
                      else media.dollars - dollars - float(price[kept].sum()))
    placement = Placement(
        router_cabinet=layout.router_cabinet, cabinet_row=layout.row, cabinet_col=layout.col,
        cabinet_group=layout.group, cabinet_hall=layout.hall,
        cabinet_names=floors.cabinet_names(layout.hall, layout.row, layout.col),
        strategy="grow", method=method, optical=media.optical if media is not None else 0,
        lower_bound=0.0, lower_bound_kind="none (growth)",
        objective="cable dollars" if floor.media_rule == "reach" else "optical links",
        copper=None if media is None else media.copper,
        copper_upper_bound=int(graph.total_weight),
        copper_bound_kind="every network cable (no bound computed for a growth)",
        cable_cost=None if media is None else media.dollars,
        cable_cost_lower_bound=None if bound is None else standing_links + bound,
        cable_cost_bound_kind="none (growth)" if bound is None else BOUND_KIND)
    new_at = layout.router_cabinet[first_new:]
    return GrowthPlacement(
        placement=placement, method=method, start_dollars=start_dollars, dollars=dollars,
        lower_bound=bound, bound_kind="none (growth)" if bound is None else BOUND_KIND,
        evaluations=0 if found is None else found.evaluations,
        moves={} if found is None else dict(found.moves),
        in_standing_cabinets=int(np.sum(new_at < n_old)),
        new_cabinets=len(np.unique(new_at[new_at >= n_old])),
        moved_parts_kept=int(kept.sum()) if priced else None,
        moved_parts_replaced=int((~kept).sum()) if priced else None)
