"""Structured cabling: patch panels where rows meet cross trays and at hall entries, trunks
between them, patch cords at the ends.

On a floor with ``structured_cabling: true`` (halls only, ``planner.inputs.floor``) a link whose
route leaves its row (route kinds ``cross-row`` and ``cross-hall`` of
``planner.inputs.floor.routes``) is not one cable but a chain of parts along that same route:

- ``cross-row``: patch cord -> panel -> trunk -> panel -> patch cord. The panels sit where the
  two rows meet the cross tray the route takes (``routes.cross_tray``: a row end, or a cross tray
  between cabinets when the hall has them), the trunk runs in that cross tray;
- ``cross-hall``: patch cord -> panel -> trunk -> hall-entry panel -> hall trunk -> hall-entry
  panel -> trunk -> panel -> patch cord: the route leaves each row at its first cross tray (the
  row end at the hall entry), the trunks run along that cross tray to the entry, the hall trunk
  through the hall connection.

A cord runs from the device up to the tray and along the row to the panel; the pieces split the
route where it meets the panels, so cords + trunks = the route length of ``routes.route_length_m``
exactly (each piece carries its share of the slack; the per-cable overhead is split between the
two cords). A panel point is a patch rack at that place; its panels take rack units there, not
in the cabinets (``StructuredPlan.racks``; docs/floors.md "Structured cabling"). Each piece is
ordered for its length plus the drop from the tray into the patch rack at every panel it lands
on (``patch_drop_m``: a cord once, a trunk twice), so it reaches the panel's port.

Parts (``planner.inputs.catalog``): the link is two transceivers (copper and AOC assemblies cannot
pass a panel), two ``fibre`` parts as patch cords, ``trunk`` parts (``fibres`` fibres; a link takes
the ``fibres`` of its transceiver, so a trunk carries ``trunk.fibres / transceiver.fibres`` links,
``Catalog.links_per_trunk``) and ``panels`` (``ports`` front adapters; a trunk's links take
consecutive adapters, and trunks of any sizes share a panel). Every segment is a
Type-B (crossover) MPO cable and a link passes 3 or 5 of them, an odd number, so transmit meets
receive.

Cords land on the fibre type's row panels (``row_panels``: its cassette panels when it has
any); at a hall entry a trunk meets a trunk on a pass-through panel (``entry_panel``). A
cross-hall link whose cords land on LC cassettes skips the row panels: its cords run to LC
cassette panels in the two hall entries and one hall trunk joins them (``via_entry``), so the
hall trunks are shared link by link by all rows of two halls; it passes 2 panels, each a
cassette of 2 mated connections (``connections``).

Pricing (``choose``, called by ``planner.inputs.parts.media.choose_parts`` for the structured
links): among the ways whose transceiver lights the link over the fibre installed and the panels
passed (``planner.inputs.parts.budget``; a link crosses one mated connection at an adapter
panel and two at a cassette panel, ``connections``), per link
two transceivers (a twin-port module's share), the cheapest cord whose stock length
covers each cord, each trunk segment's price shared by the links of a full trunk, and each panel
passed shared by the adapters a panel holds; the cheapest way wins, as for any link: its trunk is
the largest size of its fibre (``priced_trunks``), a link's marginal share. Allocation
(``planner.cabling.structured.build``): the links between the same two row panels are packed
into the trunk sizes of their fibre type (``trunk_sizes``, ``pack``; a cross-hall pair of row
panels is packed for its two row trunks), with the floor's ``structured_spare_pct`` more
positions; the hall trunks between two halls carry the row trunks of every such pair; each
trunk end takes free adapters of its panel point's panels; panels fill the rack units of a
patch rack the drop reaches (``panel_band_ru``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from planner.inputs import floor as floors
from planner.inputs.catalog import Catalog, RouterModel
from planner.inputs.floor import routes
from planner.inputs.floor import Room
from planner.inputs.parts import budget
from planner.run.errors import InputError

STRUCTURED_KINDS = ("cross-row", "cross-hall")
"""Route kinds (``routes.KINDS``) that run through panels on a structured floor."""
ROW_PASSES, HALL_PASSES = 2, 4
"""Panels a cross-row / cross-hall link passes."""
ENTRY = "ENTRY"
"""Name of a hall's entry patch rack (``H2-ENTRY`` with several halls)."""


# ----------------------------------------------------------------------------- geometry

@dataclass(frozen=True)
class Runs:
    """The pieces of every link's route on a structured floor, arrays of one length (metres
    with their share of slack and overhead; 0 where a piece does not exist):
    ``cord_a`` + ``trunk_a`` + ``hall`` + ``trunk_b`` + ``cord_b`` = the route length.
    ``trunk_a`` is the A end's trunk (to the other row's panel, or to the hall entry), ``hall``
    the hall trunk and ``trunk_b`` the B hall's trunk (cross-hall only). ``point_a`` /
    ``point_b`` code the row panel points of the two ends (``point_code``), -1 when the link is
    not structured; ``hall_a`` / ``hall_b`` are the ends' halls; ``drop`` the drop from the tray
    down to a panel inside a patch rack (``patch_drop_m``), added to each piece at every panel it
    lands on before the piece is ordered at a stock length (0 where not structured)."""

    structured: np.ndarray
    cross_hall: np.ndarray
    cord_a: np.ndarray
    trunk_a: np.ndarray
    hall: np.ndarray
    trunk_b: np.ndarray
    cord_b: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    hall_a: np.ndarray
    hall_b: np.ndarray
    drop: np.ndarray

    def take(self, rows) -> "Runs":
        """The runs of the given links."""
        return Runs(*(getattr(self, f.name)[rows] for f in fields(self)))

    @property
    def passes(self) -> np.ndarray:
        """Panels each link passes (0 when not structured)."""
        return np.where(self.structured, np.where(self.cross_hall, HALL_PASSES, ROW_PASSES), 0)

    def in_millimetres(self, length_m) -> "Runs":
        """The pieces rounded to the millimetre so that they add up to ``length_m`` (the route
        lengths as ``cables.csv`` gives them, to the millimetre): ``cord_b`` takes the rest."""
        mm = {name: np.round(np.asarray(getattr(self, name), dtype=float) * 1000.0)
              for name in ("cord_a", "trunk_a", "hall", "trunk_b")}
        total = np.round(np.asarray(length_m, dtype=float) * 1000.0)
        rest = total - mm["cord_a"] - mm["trunk_a"] - mm["hall"] - mm["trunk_b"]
        cord_b = np.where(self.structured, rest, 0.0)
        return replace(self, **{k: v / 1000.0 for k, v in mm.items()}, cord_b=cord_b / 1000.0)


def point_code(room: Room, hall, row, tray) -> np.ndarray:
    """One integer per row panel point: (hall, row, cross tray index)."""
    trays = len(room.cross_x)
    return (np.asarray(hall, dtype=np.int64) * room.rows + np.asarray(row, dtype=np.int64)) \
        * trays + np.asarray(tray, dtype=np.int64)


def entry_point(hall) -> np.ndarray:
    """The point code of a hall's entry rack (``via_entry``): -2 for hall 0, -3 for hall 1 ..,
    apart from the row panel points (``point_code``, >= 0) and -1 (not structured)."""
    return -2 - np.asarray(hall, dtype=np.int64)


def point_parts(room: Room, code) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hall, row, tray) of point codes; row and tray -1 at a hall's entry (``entry_point``)."""
    code = np.asarray(code, dtype=np.int64)
    trays = len(room.cross_x)
    entry = code <= -2
    hall_row, tray = np.divmod(np.where(entry, 0, code), trays)
    hall, row = np.divmod(hall_row, room.rows)
    return (np.where(entry, -2 - code, hall), np.where(entry, -1, row),
            np.where(entry, -1, tray))


def via_entry(pieces: Runs, at) -> Runs:
    """``pieces`` with the cross-hall links ``at`` (a mask) cabled through their halls' entries
    only, as LC cassettes are (``cassette_hall``): each cord runs from its device along its row
    and the cross tray to an LC cassette panel in its hall's entry rack (``cord_a`` +
    ``trunk_a``, ``trunk_b`` + ``cord_b``), one MPO trunk between the two entries carries it
    (in ``trunk_a``; ``hall`` and ``trunk_b`` 0), so the link passes 2 panels like a cross-row
    link (``cross_hall`` False) and its points are the entries (``entry_point``)."""
    at = np.asarray(at, dtype=bool) & pieces.cross_hall
    if not at.any():
        return pieces
    return replace(
        pieces, cross_hall=pieces.cross_hall & ~at,
        cord_a=np.where(at, _mm(pieces.cord_a + pieces.trunk_a), pieces.cord_a),
        trunk_a=np.where(at, pieces.hall, pieces.trunk_a),
        hall=np.where(at, 0.0, pieces.hall), trunk_b=np.where(at, 0.0, pieces.trunk_b),
        cord_b=np.where(at, _mm(pieces.trunk_b + pieces.cord_b), pieces.cord_b),
        point_a=np.where(at, entry_point(pieces.hall_a), pieces.point_a),
        point_b=np.where(at, entry_point(pieces.hall_b), pieces.point_b))


def _mm(metres) -> np.ndarray:
    """Metres to the millimetre (a sum of two pieces of ``Runs.in_millimetres``)."""
    return np.round(np.asarray(metres, dtype=float) * 1000.0) / 1000.0


def shaped(pieces: Runs, segments) -> Runs:
    """``pieces`` as the chosen parts ``segments`` (``SegmentParts``) cable them: through the
    hall entries only where ``segments.via_entry`` (``via_entry``)."""
    return via_entry(pieces, segments.structured & segments.via_entry)


def runs(room: Room, hall_a, row_a, col_a, hall_b, row_b, col_b, same_cabinet=False,
         tray=None) -> Runs:
    """The structured pieces of cables between cabinet positions (hall, row, column; columns
    may be fractional, as placement's slot centres), the same arguments as
    ``routes.route_length_m`` (module doc; ``tray``, per cable, the cross tray a cable
    between rows takes, -1: ``routes.cross_tray``'s). Nothing is structured on a floor
    without ``structured_cabling``."""
    floor = room.floor
    hall_a, row_a, hall_b, row_b = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.int64) for v in (hall_a, row_a, hall_b, row_b)))
    shape = np.broadcast(hall_a, np.asarray(col_a), np.asarray(col_b),
                         np.asarray(same_cabinet)).shape
    hall_a, row_a, hall_b, row_b = (np.broadcast_to(v, shape) for v in (hall_a, row_a, hall_b,
                                                                         row_b))
    same = np.broadcast_to(np.asarray(same_cabinet, dtype=bool), shape)
    zero = np.zeros(shape)
    if not (floor.structured_cabling and room.is_hall):
        none = np.full(shape, -1, dtype=np.int64)
        no = np.zeros(shape, dtype=bool)
        return Runs(no, no, zero, zero, zero, zero, zero, none, none, hall_a, hall_b, zero)
    xa, ya = floors.cabinet_xy(floor, row_a, np.broadcast_to(np.asarray(col_a, float), shape))
    xb, yb = floors.cabinet_xy(floor, row_b, np.broadcast_to(np.asarray(col_b, float), shape))
    same_hall = hall_a == hall_b
    structured = ~same & ~(same_hall & (row_a == row_b))
    cross_hall = structured & ~same_hall
    given = tray
    tray = np.where(cross_hall, 0, routes.cross_tray(room, xa, xb))
    if given is not None:
        given = np.broadcast_to(np.asarray(given, dtype=np.int64), shape)
        tray = np.where(cross_hall | (given < 0), tray, given)
    tray_x = room.cross_x[tray]
    rise, half = floor.overhead_per_end_m, floor.overhead_per_cable_m / 2.0
    scale = 1.0 + floor.slack_pct / 100.0
    ex, ey = room.entry_xy

    def piece(value):
        return np.where(structured, value, 0.0) * scale

    cord_a = piece(rise + np.abs(xa - tray_x) + half)
    cord_b = piece(np.abs(xb - tray_x) + rise + half)
    trunk_a = piece(np.where(cross_hall, ya - ey, np.abs(ya - yb)))
    trunk_b = piece(np.where(cross_hall, yb - ey, 0.0))
    hall = piece(np.where(cross_hall, room.link_m(hall_a, hall_b), 0.0))
    point_a = np.where(structured, point_code(room, hall_a, row_a, tray), -1)
    point_b = np.where(structured, point_code(room, hall_b, row_b, tray), -1)
    drop = np.where(structured, patch_drop_m(floor), 0.0)
    return Runs(structured, cross_hall, cord_a, trunk_a, hall, trunk_b, cord_b, point_a,
                point_b, hall_a, hall_b, drop)


RACK_UNIT_M = 0.04445
"""One rack unit, 1.75 in (EIA-310)."""


def patch_drop_m(floor) -> float:
    """The drop from the tray down to a panel in a patch rack: the floor's ``patch_drop_m``, by
    default the patch rack's full height (``cabinet_height_ru`` rack units: down to U1)."""
    if floor.patch_drop_m is not None:
        return float(floor.patch_drop_m)
    return floor.cabinet_height_ru * RACK_UNIT_M


def panel_band_ru(floor) -> int:
    """Rack units at the top of a patch rack that the drop reaches: panels fill only these."""
    reach = int(np.floor(patch_drop_m(floor) / RACK_UNIT_M + 1e-9))
    return min(int(floor.cabinet_height_ru), reach)


PIECE_ENDS = {"cord_a": 1, "trunk_a": 2, "hall": 2, "trunk_b": 2, "cord_b": 1}
"""Panels each piece lands on: a cord at one end, a trunk at both; each takes one drop."""


# ----------------------------------------------------------------------------- parts and prices

@dataclass(frozen=True)
class Way:
    """One way to build a structured link: indices of the transceiver, the cord and the trunk
    in ``catalog.cables`` and of the panel in ``catalog.panels``."""

    transceiver: int
    cord: int
    trunk: int
    panel: int


def ways(catalog: Catalog, router: RouterModel | None) -> list[Way]:
    """Every way the catalog builds a structured link on ``router``'s cages (a transceiver
    fits a router whose breakout equals its ports, as for any link), with the trunk parts of
    the largest size of their fibre (``priced_trunks``)."""
    breakouts = ({router.breakout} if router is not None
                 else {r.breakout for r in catalog.routers})
    usable = set(catalog.structured_fibres())
    cables = catalog.cables
    out = []
    for t, model in enumerate(cables):
        if model.kind != "transceiver" or model.ports not in breakouts or model.fibre not in usable:
            continue
        for c, cord in enumerate(cables):
            if cord.kind != "fibre" or cord.fibre != model.fibre:
                continue
            for k in priced_trunks(catalog, model.fibre):
                out += [Way(t, c, k, p) for p in row_panels(catalog, model.fibre)]
    return out


def priced_trunks(catalog: Catalog, fibre: str) -> list[int]:
    """The trunk parts a link of ``fibre`` is priced with: those carrying the most links, the
    size whose full trunk is a link's marginal share (the smaller sizes cost more per link;
    ``planner.cabling.structured`` packs the links into all sizes)."""
    trunks = [k for k, m in enumerate(catalog.cables) if m.kind == "trunk" and m.fibre == fibre]
    most = max((catalog.links_per_trunk(catalog.cables[k]) for k in trunks), default=0)
    return [k for k in trunks if catalog.links_per_trunk(catalog.cables[k]) == most]


def _cassette(panel) -> bool:
    """A panel whose front differs from its rear (LC adapters on MPO cassettes)."""
    return panel.rear_type != panel.connector


def row_panels(catalog: Catalog, fibre: str) -> list[int]:
    """Panels of ``fibre`` that cords land on: its cassette panels when it has any (its trunks
    then break out to another connector, the cords'), else all its panels."""
    own = [p for p, panel in enumerate(catalog.panels) if panel.fibre == fibre]
    cassettes = [p for p in own if _cassette(catalog.panels[p])]
    return cassettes or own


def entry_panel(catalog: Catalog, panel: int) -> int:
    """The hall-entry (pass-through) panel for trunks that leave row panel ``panel``: the
    cheapest panel of its fibre whose front and rear both take the trunks' connector (its
    ``rear_type``); -1 when the catalog has none."""
    row = catalog.panels[panel]
    fits = [p for p, other in enumerate(catalog.panels)
            if other.fibre == row.fibre and not _cassette(other)
            and other.connector == row.rear_type]
    return min(fits, key=lambda p: (catalog.panels[p].price / catalog.panels[p].ports, p),
               default=-1)


def panel_connections(catalog: Catalog, panel: int) -> int:
    """Mated connections a link crosses at ``panel``: one at an adapter panel (cord meets trunk
    leg in the adapter), two at a cassette panel (the cord in the front LC adapter, the
    cassette's MPO tail in the rear adapter); ANSI/TIA-568.3-D counts every mated pair, so
    a cassette is two (its loss is specified as the pair's)."""
    return 2 if _cassette(catalog.panels[panel]) else 1


def connections(catalog: Catalog, panel, cross_hall) -> np.ndarray:
    """Mated connections of structured links (``panel_connections``): the two row panels
    ``panel`` (index into ``catalog.panels``, -1 where not structured: 0) and, across halls, the
    two hall-entry panels (``entry_panel``)."""
    panel = np.asarray(panel, dtype=np.int64)
    row = np.array([panel_connections(catalog, p) for p in range(len(catalog.panels))] + [0],
                   dtype=np.int64)
    entry = np.array([panel_connections(catalog, e) if e >= 0 else 0
                      for e in (entry_panel(catalog, p) for p in range(len(catalog.panels)))]
                     + [0], dtype=np.int64)
    at = np.where(panel >= 0, panel, len(catalog.panels))
    return (ROW_PASSES * row[at]
            + np.where(np.asarray(cross_hall, dtype=bool), (HALL_PASSES - ROW_PASSES)
                       * entry[at], 0))


def panel_share(catalog: Catalog, panel: int, trunk: int) -> float:
    """Price of one panel passage: the panel's price over the adapters its trunks use."""
    model = catalog.panels[panel]
    legs = catalog.links_per_trunk(catalog.cables[trunk])
    return model.price / ((model.ports // legs) * legs)


@dataclass(frozen=True)
class SegmentParts:
    """The parts of every link that runs through panels (arrays over all links of a
    ``planner.inputs.parts.media.LinkParts``; -1 / 0 elsewhere): ``structured`` marks them,
    ``trunk`` indexes ``catalog.cables``, ``panel`` ``catalog.panels``; the ordered (stock) length
    of each cord and trunk piece, of the shape ``via_entry`` gives (the cross-hall links cabled
    through the hall entries only, ``via_entry``)."""

    structured: np.ndarray
    trunk: np.ndarray
    panel: np.ndarray
    cord_a: np.ndarray
    trunk_a: np.ndarray
    hall: np.ndarray
    trunk_b: np.ndarray
    cord_b: np.ndarray
    via_entry: np.ndarray

    @classmethod
    def empty(cls, n: int) -> "SegmentParts":
        none = np.full(n, -1, dtype=np.int64)
        return cls(np.zeros(n, dtype=bool), none, none.copy(),
                   *(np.zeros(n) for _ in range(5)), np.zeros(n, dtype=bool))


def missing_parts(catalog: Catalog, router: RouterModel | None) -> str:
    """Why the catalog cannot build a structured link on ``router`` ('' when it can)."""
    if ways(catalog, router):
        return ""
    optics = sorted({m.fibre for m in catalog.cables if m.kind == "transceiver"})
    if not optics:
        return ("has no transceivers; a link through patch panels needs one at each end "
                "(copper and AOC assemblies cannot pass a panel)")
    return ("has no patch-panel parts for the fibre types of its transceivers "
            f"({', '.join(optics)}): add a kind: trunk part (cables) and a panel (panels) of "
            "one of them (docs/catalogs.md \"Structured cabling\")")


def check_catalog(catalog: Catalog, floor, router: RouterModel | None) -> None:
    """InputError when the floor wants structured cabling and the catalog cannot build it."""
    if not floor.structured_cabling:
        return
    problem = missing_parts(catalog, router)
    if problem:
        raise InputError(f"catalog '{catalog.source}' {problem}, but floor '{floor.source}' has "
                         "field 'structured_cabling' true; add them or set "
                         "structured_cabling: false in the floor")
    for i, panel in enumerate(catalog.panels):
        if panel.rack_units > floor.cabinet_height_ru:
            raise InputError(f"catalog '{catalog.source}': field 'panels[{i}].rack_units' (sku "
                             f"'{panel.sku}') {panel.rack_units} does not fit the "
                             f"{floor.cabinet_height_ru}U patch racks of floor "
                             f"'{floor.source}'; give at most {floor.cabinet_height_ru}")
    tallest = max((p.rack_units for p in catalog.panels), default=1)
    least = np.ceil(tallest * RACK_UNIT_M * 1000) / 1000
    if panel_band_ru(floor) < tallest:
        raise InputError(f"floor '{floor.source}': field 'patch_drop_m' {floor.patch_drop_m:g} m "
                         f"does not reach a {tallest}U panel below the tray (one rack unit is "
                         f"{RACK_UNIT_M} m); give at least {least:g} or leave "
                         "it out (the patch rack's height)")


def _order(model, length: np.ndarray) -> np.ndarray:
    """Stock length of each piece (NaN where the part cannot serve it)."""
    order = np.asarray(model.order_length(length), dtype=float)
    return np.where(length <= model.max_reach_m + 1e-9, order, np.nan)


def choose(catalog: Catalog, floor, pieces: Runs, lengths: np.ndarray,
           router: RouterModel | None, names=None):
    """(transceiver, cord, order length, price per link, lit, SegmentParts) of the structured
    links ``pieces`` whose route lengths are ``lengths``: the cheapest way whose transceiver
    lights the link over the fibre installed (the sum of its pieces' stock lengths, the link's
    order length) and the panels it passes (``planner.inputs.parts.budget``; ties: the earlier
    way); where none lights it, the cheapest that reaches along the route, not lit, at an
    infinite price (``budget.pick``). InputError when the catalog has no structured parts or
    none reaches, naming the longest link none reaches (``names(i)``, when given, names link
    ``i``)."""
    n = lengths.size
    options = ways(catalog, router)
    if not options:
        raise InputError(f"catalog '{catalog.source}' {missing_parts(catalog, router)}, but "
                         f"{n} links leave their row on a floor with structured_cabling; add "
                         "them or set structured_cabling: false in the floor")
    prices, orders, lit, vias = [], [], [], []
    entries = via_entry(pieces, np.ones(n, dtype=bool))
    for way in options:
        price, got, ok, bright = _priced(catalog, floor, way, pieces, lengths)
        via = np.zeros(n, dtype=bool)
        if _cassette(catalog.panels[way.panel]):
            shaped_way = _priced(catalog, floor, way, entries, lengths)
            via = pieces.cross_hall & shaped_way[3]
            price = np.where(via, shaped_way[0], price)
            got = {k: np.where(via, shaped_way[1][k], v) for k, v in got.items()}
            ok, bright = ok | via, bright | via
        prices.append(np.where(ok, price, np.inf))
        orders.append(got)
        lit.append(bright)
        vias.append(via)
    cables = catalog.cables
    hall = pieces.cross_hall
    fibre = lengths + pieces.passes * 2.0 * pieces.drop      # the drops at every panel passed
    table = np.vstack(prices)
    best, chosen, bright = budget.pick(table, np.vstack(lit))
    cols = np.arange(n)
    reached = np.isfinite(table[best, cols])
    if n and not reached.all():
        lost = ~reached
        if (hall[lost].any() and not any(entry_panel(catalog, w.panel) >= 0 for w in options)):
            fibres = ", ".join(sorted({catalog.panels[w.panel].fibre for w in options}))
            raise InputError(f"catalog '{catalog.source}': field 'panels' has no hall-entry "
                             f"panel for {fibres} (front and rear both the trunks' connector) "
                             f"for {int(hall[lost].sum())} links between halls; add one "
                             "(docs/catalogs.md \"Structured cabling\")")
        at = np.flatnonzero(lost)
        worst = int(at[np.argmax(fibre[at])])
        reach = max(cables[w.transceiver].max_reach_m for w in options)
        raise InputError(f"catalog '{catalog.source}': no link through patch panels reaches "
                         f"{fibre[worst]:.2f} m"
                         f"{budget.route_of(names, worst, 'route through panels (drops included)')}"
                         f" (longest transceiver reach {reach:g} m, or a cord or trunk piece "
                         f"longer than its longest stock length){budget.more_links(at.size)}; "
                         "add longer parts or use a smaller floor")
    pick = [options[b] for b in best.tolist()]
    seg = {name: np.vstack([o[name] for o in orders])[best, cols]
           for name in ("cord_a", "trunk_a", "hall", "trunk_b", "cord_b")}
    parts = SegmentParts(np.ones(n, dtype=bool),
                         np.array([w.trunk for w in pick], dtype=np.int64),
                         np.array([w.panel for w in pick], dtype=np.int64),
                         seg["cord_a"], seg["trunk_a"], seg["hall"], seg["trunk_b"],
                         seg["cord_b"], np.vstack(vias)[best, cols])
    total = sum(seg.values())
    return (np.array([w.transceiver for w in pick], dtype=np.int64),
            np.array([w.cord for w in pick], dtype=np.int64), total, chosen, bright, parts)


def _priced(catalog: Catalog, floor, way: Way, pieces: Runs, lengths: np.ndarray):
    """(price per link, stock length of each piece, reached, lit) of the links ``pieces`` built
    the way ``way`` (``choose``)."""
    n = lengths.size
    hall = pieces.cross_hall
    present = {"cord_a": pieces.structured, "cord_b": pieces.structured,
               "trunk_a": pieces.structured, "hall": hall, "trunk_b": hall}
    fibre = lengths + pieces.passes * 2.0 * pieces.drop      # the drops at every panel passed
    cables = catalog.cables
    t, cord, trunk = cables[way.transceiver], cables[way.cord], cables[way.trunk]
    legs = catalog.links_per_trunk(trunk)
    entry = entry_panel(catalog, way.panel)
    at_entry = panel_share(catalog, entry, way.trunk) if entry >= 0 else np.inf
    got = {}
    price = (2.0 * t.price(0.0) / t.ports + ROW_PASSES * panel_share(catalog, way.panel,
                                                                     way.trunk)
             + np.where(hall, (HALL_PASSES - ROW_PASSES) * at_entry, 0.0))
    for name, mask in present.items():
        model = cord if name.startswith("cord") else trunk
        need = getattr(pieces, name) + PIECE_ENDS[name] * pieces.drop
        order = np.where(mask, _order(model, need), 0.0)
        share = 1.0 if model is cord else 1.0 / legs
        price = price + np.where(mask, model.price(np.nan_to_num(order)) * share, 0.0)
        got[name] = order
    ok = (fibre <= t.max_reach_m + 1e-9) & np.all([np.isfinite(v) for v in got.values()],
                                                  axis=0)
    crossed = connections(catalog, np.full(n, way.panel), hall)
    return price, got, ok, ok & budget.lights(floor, [t], sum(got.values()), crossed)


# ----------------------------------------------------------------------------- trunk sizes

def trunk_sizes(catalog: Catalog, trunk: int, pieces: dict[str, float]) -> list[int]:
    """Trunk parts that can stand in for ``trunk`` on one chain: the same fibre, and the same
    stock length for each of its ``pieces`` (name -> metres to order, drops included), so the
    chain's links keep the lengths and part lengths they were priced and ordered at."""
    cables = catalog.cables
    priced = cables[trunk]
    want = {name: float(_order(priced, np.asarray(m, dtype=float))) for name, m in pieces.items()}
    out = []
    for k, model in enumerate(cables):
        if model.kind != "trunk" or model.fibre != priced.fibre:
            continue
        got = {name: float(_order(model, np.asarray(m, dtype=float)))
               for name, m in pieces.items()}
        if all(np.isfinite(got[n]) and abs(got[n] - want[n]) < 1e-9 for n in pieces):
            out.append(k)
    return out


def pack(need: int, sizes: list[tuple[int, float]]) -> list[int]:
    """The trunks that carry ``need`` links between two panels at least cost: indices into
    ``sizes`` (links a trunk carries, price of one trunk with its panel adapters), largest
    first. An unbounded knapsack by dynamic programming over capacities ``need`` ..
    ``need + largest - 1`` (Martello & Toth, "Knapsack Problems", 1990, ch. 3); ties go to
    fewer trunks, then fewer links of capacity (fewer panel ports), then the earlier size."""
    if need <= 0:
        return []
    top = need + max(legs for legs, _ in sizes)
    best: list[tuple | None] = [None] * top
    best[0] = (0.0, 0, 0, ())
    for cap in range(1, top):
        for k, (legs, cost) in enumerate(sizes):
            prev = best[cap - legs] if cap >= legs else None
            if prev is None:
                continue
            cand = (round(prev[0] + cost, 6), prev[1] + 1, cap, prev[3] + (k,))
            if best[cap] is None or cand[:3] < best[cap][:3]:
                best[cap] = cand
    done = min((b for b in best[need:] if b is not None), key=lambda b: b[:3])
    return sorted(done[3], key=lambda k: (-sizes[k][0], k))
