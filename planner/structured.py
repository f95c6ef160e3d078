"""Structured cabling: patch panels where rows meet cross trays and at hall entries, trunks
between them, patch cords at the ends.

On a floor with ``structured_cabling: true`` (halls only, ``planner.floor``) a link whose route
leaves its row (route kinds ``cross-row`` and ``cross-hall`` of ``planner.routes``) is not one
cable but a chain of parts along that same route:

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
in the cabinets (``StructuredPlan.racks``; docs/floors.md "Structured cabling").

Parts (``planner.catalog``): the link is two transceivers (copper and AOC assemblies cannot pass
a panel), two ``fibre`` parts as patch cords, ``trunk`` parts (``fibres`` fibres; a link takes
the ``fibres`` of its transceiver, so a trunk carries ``trunk.fibres / transceiver.fibres``
links, ``Catalog.links_per_trunk``) and ``panels`` (``ports`` front adapters; a trunk's links
take consecutive adapters, so a panel holds ``ports // links_per_trunk`` trunks). Every
segment is a Type-B (crossover) MPO cable and a link passes 3 or 5 of them, an odd number, so
transmit meets receive.

Pricing (``choose``, called by ``planner.media.choose_parts`` for the structured links): per
link two transceivers (a twin-port module's share), the cheapest cord whose stock length covers
each cord, each trunk segment's price shared by the links of a full trunk, and each panel passed
shared by the adapters a panel holds; the cheapest way wins, as for any link. Allocation
(``build``): the links between the same two row panels with the same trunk part share trunks,
``links_per_trunk`` to a trunk in cable order (a cross-hall chain of three trunks counts as one);
each trunk end takes the next rear port of its panel point's panels; panels fill patch racks of
the floor's cabinet height from U1.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd

from planner import floor as floors
from planner import routes
from planner.catalog import Catalog, RouterModel
from planner.errors import InputError
from planner.floor import Room

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
    not structured; ``hall_a`` / ``hall_b`` are the ends' halls."""

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


def point_parts(room: Room, code) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hall, row, tray) of point codes."""
    code = np.asarray(code, dtype=np.int64)
    trays = len(room.cross_x)
    hall_row, tray = np.divmod(code, trays)
    hall, row = np.divmod(hall_row, room.rows)
    return hall, row, tray


def runs(room: Room, hall_a, row_a, col_a, hall_b, row_b, col_b, same_cabinet=False) -> Runs:
    """The structured pieces of cables between cabinet positions (hall, row, column; columns
    may be fractional, as placement's slot centres), the same arguments as
    ``routes.route_length_m`` (module doc). Nothing is structured on a floor without
    ``structured_cabling``."""
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
        return Runs(no, no, zero, zero, zero, zero, zero, none, none, hall_a, hall_b)
    xa, ya = floors.cabinet_xy(floor, row_a, np.broadcast_to(np.asarray(col_a, float), shape))
    xb, yb = floors.cabinet_xy(floor, row_b, np.broadcast_to(np.asarray(col_b, float), shape))
    same_hall = hall_a == hall_b
    structured = ~same & ~(same_hall & (row_a == row_b))
    cross_hall = structured & ~same_hall
    tray = np.where(cross_hall, 0, routes.cross_tray(room, xa, xb))
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
    return Runs(structured, cross_hall, cord_a, trunk_a, hall, trunk_b, cord_b, point_a,
                point_b, hall_a, hall_b)


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
    fits a router whose breakout equals its ports, as for any link)."""
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
            for k, trunk in enumerate(cables):
                if trunk.kind != "trunk" or trunk.fibre != model.fibre:
                    continue
                out += [Way(t, c, k, p) for p, panel in enumerate(catalog.panels)
                        if panel.fibre == model.fibre]
    return out


def panel_share(catalog: Catalog, way: Way) -> float:
    """Price of one panel passage: the panel's price over the adapters its trunks use."""
    panel = catalog.panels[way.panel]
    legs = catalog.links_per_trunk(catalog.cables[way.trunk])
    return panel.price / ((panel.ports // legs) * legs)


@dataclass(frozen=True)
class SegmentParts:
    """The parts of every link that runs through panels (arrays over all links of a
    ``planner.media.LinkParts``; -1 / 0 elsewhere): ``structured`` marks them, ``trunk``
    indexes ``catalog.cables``, ``panel`` ``catalog.panels``; the ordered (stock) length of
    each cord and trunk piece."""

    structured: np.ndarray
    trunk: np.ndarray
    panel: np.ndarray
    cord_a: np.ndarray
    trunk_a: np.ndarray
    hall: np.ndarray
    trunk_b: np.ndarray
    cord_b: np.ndarray

    @classmethod
    def empty(cls, n: int) -> "SegmentParts":
        none = np.full(n, -1, dtype=np.int64)
        return cls(np.zeros(n, dtype=bool), none, none.copy(),
                   *(np.zeros(n) for _ in range(5)))


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


def _order(model, length: np.ndarray) -> np.ndarray:
    """Stock length of each piece (NaN where the part cannot serve it)."""
    order = np.asarray(model.order_length(length), dtype=float)
    return np.where(length <= model.max_reach_m + 1e-9, order, np.nan)


def choose(catalog: Catalog, pieces: Runs, lengths: np.ndarray, router: RouterModel | None):
    """(transceiver, cord, order length, price per link, SegmentParts) of the structured
    links ``pieces`` whose route lengths are ``lengths``: the cheapest way that reaches
    (module doc; ties: the earlier way). The order length of a link is the sum of its pieces'
    stock lengths. InputError when the catalog has no structured parts or none reaches."""
    n = lengths.size
    options = ways(catalog, router)
    if not options:
        raise InputError(f"catalog '{catalog.source}' {missing_parts(catalog, router)}, but "
                         f"{n} links leave their row on a floor with structured_cabling; add "
                         "them or set structured_cabling: false in the floor")
    cables = catalog.cables
    prices, orders = [], []
    passes = pieces.passes.astype(float)
    present = {"cord_a": pieces.structured, "cord_b": pieces.structured,
               "trunk_a": pieces.structured, "hall": pieces.cross_hall,
               "trunk_b": pieces.cross_hall}
    for way in options:
        t, cord, trunk = cables[way.transceiver], cables[way.cord], cables[way.trunk]
        legs = catalog.links_per_trunk(trunk)
        got, price = {}, 2.0 * t.price(0.0) / t.ports + passes * panel_share(catalog, way)
        for name, mask in present.items():
            model = cord if name.startswith("cord") else trunk
            order = np.where(mask, _order(model, getattr(pieces, name)), 0.0)
            share = 1.0 if model is cord else 1.0 / legs
            price = price + np.where(mask, model.price(np.nan_to_num(order)) * share, 0.0)
            got[name] = order
        ok = (lengths <= t.max_reach_m + 1e-9) & np.all([np.isfinite(v) for v in got.values()],
                                                        axis=0)
        prices.append(np.where(ok, price, np.inf))
        orders.append(got)
    table = np.vstack(prices)
    best = np.argmin(table, axis=0)
    chosen = table[best, np.arange(n)]
    if n and not np.isfinite(chosen).all():
        worst = float(lengths[~np.isfinite(chosen)].max())
        reach = max(cables[w.transceiver].max_reach_m for w in options)
        raise InputError(f"catalog '{catalog.source}': no link through patch panels reaches "
                         f"{worst:.2f} m (longest transceiver reach {reach:g} m, or a cord or "
                         "trunk piece longer than its longest stock length); add longer parts "
                         "or use a smaller floor")
    pick = [options[b] for b in best.tolist()]
    cols = np.arange(n)
    seg = {name: np.vstack([o[name] for o in orders])[best, cols]
           for name in ("cord_a", "trunk_a", "hall", "trunk_b", "cord_b")}
    parts = SegmentParts(np.ones(n, dtype=bool),
                         np.array([w.trunk for w in pick], dtype=np.int64),
                         np.array([w.panel for w in pick], dtype=np.int64),
                         seg["cord_a"], seg["trunk_a"], seg["hall"], seg["trunk_b"],
                         seg["cord_b"])
    total = sum(seg.values())
    return (np.array([w.transceiver for w in pick], dtype=np.int64),
            np.array([w.cord for w in pick], dtype=np.int64), total, chosen, parts)


# ----------------------------------------------------------------------------- the installed plant

@dataclass(frozen=True)
class StructuredPlan:
    """What structured cabling installs (module doc), as tables:

    links:  one row per cable through panels: ``cable`` (row of ``Plan.cables``), ``cable_id``,
            ``cord`` (index into ``catalog.cables``), ``cord_a_m`` / ``cord_b_m`` (computed) and
            ``cord_a_order_m`` / ``cord_b_order_m`` / ``cord_a_sku`` / ``cord_b_sku`` (ordered),
            ``a_panel`` / ``a_port`` and ``b_panel`` / ``b_port`` (the row panels' front ports
            of the two ends), ``a_entry`` / ``a_entry_port`` / ``b_entry`` / ``b_entry_port``
            (cross-hall: the entry panels' front ports, with the link's position) and the
            ``trunks`` (ids, A end first, joined by ``,``);
    trunks: ``trunk_id``, ``kind`` (``row``: row panel to row panel or to the hall entry;
            ``hall``: between hall entries), ``part``, ``sku``, ``length_m``,
            ``order_length_m``, ``a_panel`` / ``a_port`` / ``a_port_kind`` (``rear`` or
            ``front``), the same for ``b``, ``links`` and ``label``;
    panels: ``name`` (``<rack>-<RU>``), ``rack``, ``ru``, ``point``, ``kind`` (``row`` /
            ``entry``), ``part`` (index into ``catalog.panels``), ``sku``, ``model`` (its
            NetBox device type), ``rear_ports``, ``legs`` (links per rear port), ``trunks``
            and ``links`` (used);
    racks:  ``name``, ``point``, ``kind``, ``hall``, ``row`` and ``tray`` (where it stands: the
            row's end or cross tray, numbered from 0 as ``point_parts`` gives them; an entry
            rack stands at its hall's entry, row and tray -1), ``panels``, ``ru_used``,
            ``height_ru``;
    segments: per cable of ``Plan.cables`` the text of its pieces ('' when not structured).
    """

    links: pd.DataFrame
    trunks: pd.DataFrame
    panels: pd.DataFrame
    racks: pd.DataFrame
    segments: np.ndarray

    def summary(self) -> dict:
        """The ``structured`` block of summary.json."""
        trunks = self.trunks
        return {"links": int(len(self.links)),
                "cross_hall_links": int((self.links["a_entry"] != "").sum()),
                "trunks": int(len(trunks)),
                "trunk_order_length_m": round(float(trunks["order_length_m"].sum()), 3),
                "panels": int(len(self.panels)),
                "panel_ports_used": int(2 * len(self.links)
                                        + 2 * int((self.links["a_entry"] != "").sum())),
                "patch_racks": int(len(self.racks)),
                "patch_rack_ru_used": int(self.racks["ru_used"].sum())}


def _metres(values) -> np.ndarray:
    """Lengths as text (``2.64``, ``12``), one format per distinct value."""
    values = np.asarray(values, dtype=float)
    uniq, inverse = np.unique(values, return_inverse=True)
    return np.asarray([f"{v:g}" for v in uniq.tolist()], dtype=object)[inverse.reshape(-1)]


def port_width(catalog: Catalog) -> int:
    """Digits of a panel's front port names (``05``): at least 2, as labels zero-pad."""
    return max([2] + [len(str(p.ports)) for p in catalog.panels])


def front_port_names(catalog: Catalog, ports: int) -> list[str]:
    """Names of a row panel's front ports 1..ports (``01`` ..)."""
    return [str(k).zfill(port_width(catalog)) for k in range(1, ports + 1)]


def point_names(room: Room, codes) -> np.ndarray:
    """``A-P0`` (row A, cross tray 0), ``H2-C-P3`` with several halls."""
    hall, row, tray = point_parts(room, codes)
    prefix = _hall_prefix(room, hall)
    letters = np.asarray([floors.row_letters(r) for r in row.tolist()], dtype=object)
    return prefix + letters + "-P" + tray.astype(str).astype(object)


def _hall_prefix(room: Room, hall) -> np.ndarray:
    hall = np.asarray(hall, dtype=np.int64)
    if room.halls > 1:
        return "H" + (hall + 1).astype(str).astype(object) + "-"
    return np.full(hall.shape, "", dtype=object)


def _slots(frame: pd.DataFrame, keys: list[str], order: list[str]) -> pd.DataFrame:
    """``frame`` sorted by ``order`` with ``slot``: its rank within equal ``keys``."""
    frame = frame.sort_values(order, kind="stable").reset_index(drop=True)
    frame["slot"] = frame.groupby(keys, sort=False).cumcount().to_numpy()
    return frame


_PANEL_COLUMNS = ["name", "rack", "ru", "kind", "panel_part", "sku", "model", "rear_ports",
                  "legs", "trunks", "links", "units"]


def _allocate(ends: pd.DataFrame, catalog: Catalog, height_ru: int, kind: str):
    """The rear port of each trunk end and the panels and racks the ends fill. ``ends`` has one
    row per trunk end at a panel point: point (code), name (the point's), panel_part,
    trunk_part, legs (links per trunk), peer (the other end's point), chain, links. Per point
    and parts the ends take rear ports in (peer, chain) order, ``ports // legs`` to a panel;
    a point's panels fill its patch racks (the floor's cabinet height) from U1."""
    if ends.empty:
        return (ends.assign(panel=pd.Series(dtype=object), rear=pd.Series(dtype=np.int64)),
                pd.DataFrame(columns=_PANEL_COLUMNS + ["point_name"]))
    ports = np.array([p.ports for p in catalog.panels], dtype=np.int64)
    ends = ends.assign(per_panel=ports[ends["panel_part"].to_numpy(np.int64)]
                       // ends["legs"].to_numpy(np.int64))
    ends = _slots(ends, ["point", "panel_part", "trunk_part"],
                  ["point", "panel_part", "trunk_part", "peer", "chain"])
    ends["panel_no"] = ends["slot"] // ends["per_panel"]
    ends["rear"] = ends["slot"] % ends["per_panel"] + 1
    keys = ["point", "panel_part", "trunk_part", "panel_no"]
    panels = (ends.groupby(keys, sort=False)
              .agg(point_name=("name", "first"), legs=("legs", "first"),
                   rear_ports=("per_panel", "first"), trunks=("chain", "size"),
                   links=("links", "sum"))
              .reset_index())
    units = np.array([p.rack_units for p in catalog.panels], dtype=np.int64)[
        panels["panel_part"].to_numpy(np.int64)]
    rack_no, ru = np.zeros(len(panels), np.int64), np.zeros(len(panels), np.int64)
    for rows in panels.groupby("point", sort=False).indices.values():
        rack, top = 0, 0
        for i in rows.tolist():
            if top + units[i] > height_ru:
                rack, top = rack + 1, 0
            rack_no[i], ru[i] = rack, top + 1
            top += units[i]
    more = "." + (rack_no + 1).astype(str).astype(object)
    panels["rack"] = panels["point_name"].to_numpy(object) + np.where(rack_no > 0, more, "")
    panels["ru"] = ru
    panels["units"] = units
    panels["name"] = panels["rack"] + "-" + floors.padded("", ru, max(2, len(str(height_ru))))
    panels["kind"] = kind
    panels["sku"] = [catalog.panels[i].sku for i in panels["panel_part"].tolist()]
    tail = " pass-through" if kind == "entry" else ""
    panels["model"] = (panels["sku"] + " " + panels["rear_ports"].astype(str) + "x"
                       + panels["legs"].astype(str) + tail)
    ends = ends.merge(panels[keys + ["name"]].rename(columns={"name": "panel"}), on=keys,
                      how="left")
    return ends, panels


def build(room: Room, catalog: Catalog, pieces: Runs, parts, cable_ids) -> StructuredPlan:
    """The panels, trunks and racks of the structured links of a cable plan, and each cable's
    pieces (module doc). ``pieces`` are the cables' runs to the millimetre
    (``Runs.in_millimetres``), ``parts`` their ``planner.media.LinkParts``."""
    seg = parts.segments
    n = len(cable_ids)
    rows = np.flatnonzero(seg.structured) if seg is not None else np.zeros(0, np.int64)
    height = int(room.floor.cabinet_height_ru)
    legs_of = np.array([catalog.links_per_trunk(m) if m.kind == "trunk" else 1
                        for m in catalog.cables])
    pa, pb = pieces.point_a[rows], pieces.point_b[rows]
    link = pd.DataFrame({
        "cable": rows, "trunk_part": seg.trunk[rows] if rows.size else rows,
        "panel_part": seg.panel[rows] if rows.size else rows,
        "lo": np.minimum(pa, pb), "hi": np.maximum(pa, pb), "flip": pa > pb,
        "cross_hall": pieces.cross_hall[rows]})
    link["legs"] = legs_of[link["trunk_part"].to_numpy()]
    link = _slots(link, ["trunk_part", "lo", "hi"], ["trunk_part", "lo", "hi", "cable"])
    link["position"] = link["slot"] % link["legs"] + 1
    link["chain"] = link.groupby(["trunk_part", "lo", "hi", link["slot"] // link["legs"]],
                                 sort=False).ngroup()
    c = link["cable"].to_numpy()
    flip = link["flip"].to_numpy()
    row = ~link["cross_hall"].to_numpy()
    link = link.assign(
        lo_m=np.where(row | ~flip, pieces.trunk_a[c], pieces.trunk_b[c]),
        lo_order=np.where(row | ~flip, seg.trunk_a[c], seg.trunk_b[c]),
        hi_m=np.where(flip, pieces.trunk_a[c], pieces.trunk_b[c]),
        hi_order=np.where(flip, seg.trunk_a[c], seg.trunk_b[c]),
        hall_m=pieces.hall[c], hall_order=seg.hall[c])
    chains = link.groupby("chain", sort=True).agg(
        trunk_part=("trunk_part", "first"), panel_part=("panel_part", "first"),
        lo=("lo", "first"), hi=("hi", "first"), legs=("legs", "first"),
        cross_hall=("cross_hall", "first"), links=("cable", "size"),
        **{k: (k, "first") for k in ("lo_m", "lo_order", "hi_m", "hi_order", "hall_m",
                                     "hall_order")}).reset_index()
    codes = np.unique(np.r_[chains["lo"].to_numpy(), chains["hi"].to_numpy()])
    names = dict(zip(codes.tolist(), point_names(room, codes).tolist()))
    ends = pd.concat([chains.assign(point=chains["lo"], peer=chains["hi"], side="lo"),
                      chains.assign(point=chains["hi"], peer=chains["lo"], side="hi")],
                     ignore_index=True)
    ends["name"] = ends["point"].map(names)
    row_ends, row_panels = _allocate(ends, catalog, height, "row")
    hall_chains = chains[chains["cross_hall"].to_numpy(bool)]
    lo_hall = point_parts(room, hall_chains["lo"])[0]
    hi_hall = point_parts(room, hall_chains["hi"])[0]
    ends = pd.concat([hall_chains.assign(point=lo_hall, peer=hi_hall, side="lo"),
                      hall_chains.assign(point=hi_hall, peer=lo_hall, side="hi")],
                     ignore_index=True)
    ends["name"] = _hall_prefix(room, ends["point"].to_numpy()) + ENTRY
    entry_ends, entry_panels = _allocate(ends, catalog, height, "entry")
    for side in ("lo", "hi"):
        for label, frame in (("", row_ends), ("entry_", entry_ends)):
            at = frame[frame["side"] == side].set_index("chain")
            chains[f"{side}_{label}panel"] = (chains["chain"].map(at["panel"]).astype(object)
                                               .fillna(""))
            chains[f"{side}_{label}rear"] = chains["chain"].map(at["rear"]).fillna(0).astype(
                np.int64)
    trunks = _trunks(chains, catalog)
    links, text = _links(link, chains, trunks, pieces, parts, catalog, cable_ids)
    segments = np.full(n, "", dtype=object)
    segments[links["cable"].to_numpy()] = text
    panels = pd.concat([row_panels, entry_panels], ignore_index=True)
    racks = _racks(room, panels, height)
    panels = panels.drop(columns="point", errors="ignore").rename(columns={"panel_part": "part",
                                                          "point_name": "point"})[
        ["name", "rack", "ru", "point", "kind", "part", "sku", "model", "rear_ports", "legs",
         "trunks", "links", "units"]]
    return StructuredPlan(links=links, trunks=trunks, panels=panels, racks=racks,
                          segments=segments)


def _racks(room: Room, panels: pd.DataFrame, height: int) -> pd.DataFrame:
    """One row per patch rack (``StructuredPlan.racks``) from its panels, whose ``point`` is
    the row panel point's code, or the hall of an entry rack."""
    columns = ["name", "point", "kind", "hall", "row", "tray", "panels", "ru_used", "height_ru"]
    if panels.empty:
        return pd.DataFrame(columns=columns)
    racks = (panels.groupby("rack", sort=False)
             .agg(point=("point_name", "first"), kind=("kind", "first"), code=("point", "first"),
                  panels=("name", "size"), ru_used=("units", "sum"))
             .reset_index().rename(columns={"rack": "name"}))
    entry = (racks["kind"] == "entry").to_numpy()
    code = racks["code"].to_numpy(np.int64)
    hall, row, tray = point_parts(room, np.where(entry, 0, code))
    racks["hall"] = np.where(entry, code, hall)
    racks["row"], racks["tray"] = np.where(entry, -1, row), np.where(entry, -1, tray)
    racks["height_ru"] = height
    return racks[columns]


def _trunks(chains: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """One row per trunk: a cross-row chain's one trunk, a cross-hall chain's three (the lo
    end's row trunk, the hall trunk, the hi end's row trunk), in chain order."""
    rows = []
    for ch in chains.itertuples(index=False):
        base = dict(chain=ch.chain, part=ch.trunk_part, links=ch.links)
        if not ch.cross_hall:
            rows.append(dict(base, piece="row", kind="row", length_m=ch.lo_m,
                             order_length_m=ch.lo_order, a_panel=ch.lo_panel,
                             a_port=f"R{ch.lo_rear}", a_port_kind="rear", b_panel=ch.hi_panel,
                             b_port=f"R{ch.hi_rear}", b_port_kind="rear"))
            continue
        rows += [dict(base, piece="lo", kind="row", length_m=ch.lo_m,
                      order_length_m=ch.lo_order, a_panel=ch.lo_panel, a_port=f"R{ch.lo_rear}",
                      a_port_kind="rear", b_panel=ch.lo_entry_panel,
                      b_port=f"R{ch.lo_entry_rear}", b_port_kind="rear"),
                 dict(base, piece="hall", kind="hall", length_m=ch.hall_m,
                      order_length_m=ch.hall_order, a_panel=ch.lo_entry_panel,
                      a_port=f"F{ch.lo_entry_rear}", a_port_kind="front",
                      b_panel=ch.hi_entry_panel, b_port=f"F{ch.hi_entry_rear}",
                      b_port_kind="front"),
                 dict(base, piece="hi", kind="row", length_m=ch.hi_m,
                      order_length_m=ch.hi_order, a_panel=ch.hi_entry_panel,
                      a_port=f"R{ch.hi_entry_rear}", a_port_kind="rear", b_panel=ch.hi_panel,
                      b_port=f"R{ch.hi_rear}", b_port_kind="rear")]
    columns = ["chain", "piece", "part", "links", "kind", "length_m", "order_length_m",
               "a_panel", "a_port", "a_port_kind", "b_panel", "b_port", "b_port_kind"]
    trunks = pd.DataFrame(rows, columns=columns)
    width = max(4, len(str(len(trunks))))
    trunks.insert(0, "trunk_id", floors.padded("T", np.arange(1, len(trunks) + 1), width))
    trunks["sku"] = ""
    for i in pd.unique(trunks["part"]).tolist():
        at = (trunks["part"] == i).to_numpy()
        trunks.loc[at, "sku"] = catalog.cables[i].part_numbers_at(
            trunks.loc[at, "order_length_m"].to_numpy(float))
    trunks["label"] = (trunks["a_panel"] + ":" + trunks["a_port"] + "/" + trunks["b_panel"]
                       + ":" + trunks["b_port"])
    return trunks


def _links(link: pd.DataFrame, chains: pd.DataFrame, trunks: pd.DataFrame, pieces: Runs,
           parts, catalog: Catalog, cable_ids) -> tuple[pd.DataFrame, np.ndarray]:
    """The links table and each link's pieces as text, from its A end to its B end:
    ``cord 2.64 m <part> | <panel>:<port> | trunk <id> 2.64 m <part> | <panel>:<port> |
    cord 1.87 m <part>`` (cross-hall adds the entry panels' ports ``<panel>:F<n>.<position>``
    and the hall trunk). Lengths are the computed ones (they add up to ``length_m``); the part
    numbers give the stock lengths ordered."""
    seg = parts.segments
    ch = chains.set_index("chain").loc[link["chain"].to_numpy()].reset_index()
    c = link["cable"].to_numpy()
    flip = link["flip"].to_numpy()
    hall = link["cross_hall"].to_numpy()
    pos = link["position"].to_numpy()
    legs = link["legs"].to_numpy()
    width = port_width(catalog)

    def side(lo, hi):
        lo, hi = np.asarray(lo, dtype=object), np.asarray(hi, dtype=object)
        return np.where(flip, hi, lo), np.where(flip, lo, hi)

    front = {s: floors.padded("", (ch[f"{s}_rear"].to_numpy() - 1) * legs + pos, width)
             for s in ("lo", "hi")}
    entry = {s: np.where(hall, "F" + ch[f"{s}_entry_rear"].astype(str).to_numpy(object) + "."
                         + pos.astype(str).astype(object), "") for s in ("lo", "hi")}
    a_panel, b_panel = side(ch["lo_panel"], ch["hi_panel"])
    a_port, b_port = side(front["lo"], front["hi"])
    a_entry, b_entry = side(ch["lo_entry_panel"], ch["hi_entry_panel"])
    a_entry_port, b_entry_port = side(entry["lo"], entry["hi"])
    ids = trunks.set_index(["chain", "piece"])["trunk_id"]

    def trunk_id(piece):
        keys = pd.MultiIndex.from_arrays([link["chain"].to_numpy(), np.full(len(link), piece)])
        return ids.reindex(keys).fillna("").to_numpy(object)

    row, lo, mid, hi = (trunk_id(p) for p in ("row", "lo", "hall", "hi"))
    t_a = np.where(hall, np.where(flip, hi, lo), row)
    t_b = np.where(hall, np.where(flip, lo, hi), "")
    by_id = trunks.set_index("trunk_id")
    trunk_text = pd.Series("trunk " + by_id.index.to_numpy(object) + " "
                           + _metres(by_id["length_m"]) + " m " + by_id["sku"].to_numpy(object),
                           index=by_id.index)

    def trunk(tid):
        return trunk_text.reindex(tid).fillna("").to_numpy(object)

    cord = parts.fibre[c]
    skus = {}
    for end in ("a", "b"):
        order = getattr(seg, f"cord_{end}")[c]
        skus[end] = np.empty(len(c), dtype=object)
        for i in np.unique(cord).tolist():
            at = cord == i
            skus[end][at] = catalog.cables[i].part_numbers_at(order[at])
    cord_a, cord_b = pieces.cord_a[c], pieces.cord_b[c]
    text = ("cord " + _metres(cord_a) + " m " + skus["a"] + " | " + a_panel + ":" + a_port
            + " | " + trunk(t_a))
    via = (" | " + a_entry + ":" + a_entry_port + " | " + trunk(mid) + " | " + b_entry + ":"
           + b_entry_port + " | " + trunk(t_b))
    text = np.where(hall, text + via, text) + (" | " + b_panel + ":" + b_port + " | cord "
                                               + _metres(cord_b) + " m " + skus["b"])
    table = pd.DataFrame({
        "cable": c, "cable_id": np.asarray(cable_ids, dtype=object)[c], "cord": cord,
        "cord_a_m": cord_a, "cord_a_order_m": seg.cord_a[c], "cord_a_sku": skus["a"],
        "cord_b_m": cord_b, "cord_b_order_m": seg.cord_b[c], "cord_b_sku": skus["b"],
        "a_panel": a_panel, "a_port": a_port, "a_entry": a_entry, "a_entry_port": a_entry_port,
        "b_entry": b_entry, "b_entry_port": b_entry_port, "b_panel": b_panel, "b_port": b_port,
        "trunks": np.where(hall, t_a + "," + mid + "," + t_b, t_a),
        "position": pos})
    order = np.argsort(c, kind="stable")
    return table.iloc[order].reset_index(drop=True), np.asarray(text, dtype=object)[order]
