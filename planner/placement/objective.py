"""What placement minimises: the dollars of the network cables and their optics.

A network link costs what ``planner.inputs.parts.media.choose_parts`` charges for it at its routed
length (``planner.inputs.floor.routes``: along the trays, through the hall links) under the floor's
media rule: the cheapest part that can serve it, shares of twin assemblies and transceivers
included. The cabling stage orders exactly those parts, so the placement's objective and the bill
agree. Endpoint cables stay inside their router's cabinet and cost the same in every placement.

* ``reach`` floors (real halls): a link is copper whenever a copper part reaches its route,
  whatever the electrical groups, so the price of a link depends only on the two cabinet
  positions of its routers. ``CabinetPrices`` holds that price for every pair of cabinet
  positions (and whether it is copper); the router -> cabinet search (``cabinet_anneal``) and
  the bounds (``copper_bounds``) read the same table, and ``network_link_media`` prices the
  final layout as the cabling stage does.
* ``membership`` floors (the papers' Slim Fly SC14 §6, Projective Networks §5.3 layouts): a link
  is copper only inside its electrical group, and every optical cable costs far more than any
  copper one (at one average length in the papers' tables), so the dollars are minimised by the
  fewest links leaving groups first (``OpticalLinks``) and the routed lengths of the optical
  ones second (``floor_assign``'s priced slot assignment). The optical count of the papers is
  this special case.

Stages compare groupings only through an objective's ``cost``; its lower bound and gap are in
the same unit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.inputs import floor as floors
from planner.inputs.floor.routes import millimetres, route_length_m
from planner.placement.graph import Graph

"""Largest cabinet-pair price table built (entries over all multiplicity classes and hall
links, 8 bytes each plus a copper flag: about 110 MB). A room with more cabinet positions per
hall keeps the grouping-level placement."""


class OpticalLinks:
    """Links leaving electrical groups (one optical cable each): the membership floors' cost."""

    unit = "optical links"

    def __init__(self, graph: Graph):
        self.graph = graph

    def cost(self, part: np.ndarray) -> int:
        return self.graph.cut(part)


@dataclass(frozen=True, eq=False)
class CabinetPrices:
    """Price of one network link between every two cabinet positions of a room.

    Positions are indexed per hall: ``local = row * room.cols + col``. ``price[m, x, a, b]`` is
    the price per link of a router pair with ``classes[m]`` parallel links between positions a
    and b, in one hall (x = 0) or in two halls joined by the ``x``-th distinct hall link
    (``hall_link[h1, h2]``); a = b is a link inside one cabinet. ``copper`` says whether that
    link is electrical (it does not depend on the parallel count).
    """

    room: floors.Room
    classes: np.ndarray       # (M,) distinct multiplicities
    hall_link: np.ndarray     # (H, H) int64 index into axis 1
    price: np.ndarray         # (M, X, P, P) float64
    copper: np.ndarray        # (X, P, P) bool

    @property
    def positions(self) -> int:
        return self.price.shape[2]

    def local(self, row, col) -> np.ndarray:
        return np.asarray(row, dtype=np.int64) * self.room.cols + np.asarray(col, dtype=np.int64)

    def class_of(self, weights) -> np.ndarray:
        return np.searchsorted(self.classes, np.asarray(weights, dtype=np.int64))

    def link_prices(self, weights, hall_a, local_a, hall_b, local_b) -> np.ndarray:
        """Price per cable of links with ``weights`` parallel cables between the positions."""
        x = self.hall_link[hall_a, hall_b]
        return self.price[self.class_of(weights), x, local_a, local_b]


def table_entries(room: floors.Room, halls: int, classes: int) -> int:
    """Entries of the ``CabinetPrices`` table of a room (see ``MAX_TABLE_ENTRIES``)."""
    links = 1 + (len(_distinct_links(room, halls)[0]) if halls > 1 else 0)
    return classes * links * (room.rows * room.cols) ** 2


def _distinct_links(room: floors.Room, halls: int) -> tuple[np.ndarray, np.ndarray]:
    """(one (h1, h2) pair per distinct hall link length, index of every hall pair's link)."""
    h = np.arange(halls)
    length = np.asarray(room.link_m(h[:, None], h[None, :]), dtype=float)
    values, index = np.unique(np.round(length[~np.eye(halls, dtype=bool)], 9), return_inverse=True)
    pairs = np.argwhere(~np.eye(halls, dtype=bool))
    first = np.array([pairs[np.flatnonzero(index == i)[0]] for i in range(len(values))],
                     dtype=np.int64).reshape(-1, 2)
    table = np.zeros((halls, halls), dtype=np.int64)
    table[~np.eye(halls, dtype=bool)] = 1 + index
    return first, table


def longest_link_m(catalog) -> float:
    """Longest link any part of the catalog builds (longer positions get an infinite price:
    the search never puts a link there, and the cabling stage names the length if a start
    layout does)."""
    return max([catalog.optical_longest_m(m) for m in catalog.cables
                if m.media == "optical" and m.kind != "fibre"]
               + [m.longest_m for m in catalog.cables if m.media == "electrical"] + [0.0])


def cabinet_prices(floor, catalog, router, room: floors.Room, halls: int,
                   multiplicities, same_group: bool = True) -> CabinetPrices:
    """The price table of every cabinet position pair of ``room`` (``halls`` halls used) for
    links of the given multiplicities, through ``planner.inputs.parts.media.choose_parts`` on the
    routed lengths (rounded to the millimetre, as the cabling stage does). InputError when no part
    that fits the router's cages reaches a length that some part of the catalog reaches.

    Without structured cabling a link's price depends only on its length, so each distinct
    length is priced once; with it, on where its route meets the panels too, so every position
    pair is priced with its structured pieces (``planner.inputs.parts.structured.runs``), as the
    cabling stage does. ``same_group`` False prices links between two electrical groups (on
    ``membership`` floors, optical: ``planner.placement.growth`` reads both tables)."""
    from planner.inputs.parts import structured

    classes = np.unique(np.asarray(multiplicities, dtype=np.int64))
    p = room.rows * room.cols
    idx = np.arange(p)
    row, col = idx // room.cols, idx % room.cols
    pairs, hall_link = _distinct_links(room, halls) if halls > 1 else (
        np.zeros((0, 2), np.int64), np.zeros((1, 1), np.int64))
    ends = [(0, 0)] + [tuple(pr) for pr in pairs.tolist()]
    eye = np.eye(p, dtype=bool)
    lengths = millimetres(np.stack([
        route_length_m(room, ha, row[:, None], col[:, None], hb, row[None, :], col[None, :],
                       (ha == hb) & eye)
        for ha, hb in ends]))
    if floor.structured_cabling:
        price = np.empty((len(classes),) + lengths.shape)
        copper = np.empty(lengths.shape, dtype=bool)
        a, b = np.divmod(np.arange(p * p), p)          # position pairs in the table's order
        for x, (ha, hb) in enumerate(ends):
            length = lengths[x].ravel()
            pieces = structured.runs(room, ha, row[a], col[a], hb, row[b], col[b],
                                     (ha == hb) & (a == b)).in_millimetres(length)
            by_pair, copper_pair = _link_prices(floor, catalog, router, length, classes, pieces,
                                                same_group)
            price[:, x] = by_pair.reshape((len(classes), p, p))
            copper[x] = copper_pair.reshape((p, p))
    else:
        distinct, inverse = np.unique(lengths, return_inverse=True)
        inverse = inverse.reshape(lengths.shape)
        by_length, copper_length = _link_prices(floor, catalog, router, distinct, classes,
                                                same_group=same_group)
        price, copper = by_length[:, inverse], copper_length[inverse]
    return CabinetPrices(room=room, classes=classes, hall_link=hall_link, price=price,
                         copper=copper)


def _link_prices(floor, catalog, router, lengths: np.ndarray, classes: np.ndarray, runs=None,
                 same_group: bool = True):
    """(price per link, shape (classes, links); copper flag per link) of links of the given
    lengths (and structured pieces) through ``planner.inputs.parts.media.choose_parts``; a length
    beyond every part (``longest_link_m``) gets an infinite price."""
    from planner.inputs.parts.media import choose_parts, media_of

    served = np.flatnonzero(lengths <= longest_link_m(catalog) + 1e-9)
    pieces = runs.take(served) if runs is not None else None
    price = np.full((len(classes), len(lengths)), np.inf)
    copper = np.zeros(len(lengths), dtype=bool)
    for m, mult in enumerate(classes.tolist()):
        parts = choose_parts(catalog, floor, lengths[served], same_group, router=router,
                             parallel=mult, runs=pieces)
        price[m, served] = parts.price
        if m == 0:
            copper[served] = media_of(catalog, parts.part) == "electrical"
    return price, copper


@dataclass(frozen=True)
class LinkMedia:
    """What the cabling stage will order for the network links of a layout."""

    dollars: float   # network cables and their optics
    copper: int      # copper cables (parallel cables counted each)
    optical: int


def network_link_media(graph: Graph, router_cabinet, cabinet_hall, cabinet_row, cabinet_col,
                       cabinet_group, floor, catalog, router) -> LinkMedia:
    """Dollars and media of the network cables of a placed layout, as the cabling stage
    orders them (``planner.inputs.parts.media.routed_parts``)."""
    from planner.inputs.parts.media import media_of, routed_parts

    cab = np.asarray(router_cabinet, dtype=np.int64)
    room = floors.room_of(floor, cabinet_hall, cabinet_row, cabinet_col)
    a, b = cab[graph.links[:, 0]], cab[graph.links[:, 1]]
    group = np.asarray(cabinet_group, dtype=np.int64)
    parts = routed_parts(catalog, floor, room, cabinet_hall, cabinet_row, cabinet_col, a, b,
                         group[a] == group[b], router=router, parallel=graph.weights,
                         names=lambda i: _link_between(graph, cab, cabinet_hall, cabinet_row,
                                                       cabinet_col, i)).parts
    copper = media_of(catalog, parts.part) == "electrical"
    return LinkMedia(dollars=float(np.sum(graph.weights * parts.price)),
                     copper=int(graph.weights[copper].sum()),
                     optical=int(graph.weights[~copper].sum()))


def _link_between(graph: Graph, router_cabinet, cabinet_hall, cabinet_row, cabinet_col,
                  i: int) -> str:
    """What a message about a link no part reaches calls link ``i`` of ``graph``: its two
    routers, named as the cabling stage names them (``planner.cabling.device_names``), and
    their cabinets."""
    pair = graph.links[i]
    routers = floors.padded("r", pair, width=len(str(len(router_cabinet) - 1)))
    cabinets = floors.cabinet_names(cabinet_hall, cabinet_row, cabinet_col)
    return (f"the link between routers {routers[0]} and {routers[1]} (cabinets "
            f"{cabinets[router_cabinet[pair[0]]]} and {cabinets[router_cabinet[pair[1]]]})")


def cheapest_prices(floor, catalog, router, cabinet_hall, cabinet_row, cabinet_col,
                    multiplicities) -> tuple[float, float]:
    """(cheapest cable, cheapest optical cable) per cable over the routed lengths between the
    given cabinets (a link inside one cabinet included) and the parallel-cable classes: what
    any network cable, and any optical one, costs at least in a layout on these cabinets."""
    from planner.inputs.parts.media import choose_parts

    hall, row, col = (np.asarray(v, dtype=np.int64) for v in (cabinet_hall, cabinet_row,
                                                               cabinet_col))
    room = floors.room_of(floor, hall, row, col)
    same = np.eye(len(hall), dtype=bool)
    lengths = route_length_m(room, hall[:, None], row[:, None], col[:, None], hall[None, :],
                             row[None, :], col[None, :], same)
    distinct = np.unique(millimetres(lengths))
    distinct = distinct[distinct <= longest_link_m(catalog) + 1e-9]
    low = low_optical = np.inf
    for mult in np.unique(np.asarray(multiplicities, dtype=np.int64)).tolist():
        for same_group in (True, False):
            parts = choose_parts(catalog, floor, distinct, same_group, router=router,
                                 parallel=mult)
            low = min(low, float(parts.price.min(initial=np.inf)))
        low_optical = min(low_optical, float(parts.price.min(initial=np.inf)))
    return low, low_optical
