"""The installed structured plant: which patch panel ports, trunks and patch racks the links
through panels take (``build``), for the cable sheets, labels, NetBox and the viewer.

The rule (where a route meets the panels, which parts carry it and what they cost) is the
inputs' (``planner.inputs.parts.structured``); this module allocates the parts the cabling
stage ordered: the links between the same two panels packed into trunk sizes at least cost
(``planner.inputs.parts.structured.pack``), the next rear port of each panel point, panels
filling the rack units of patch racks the cords' drop reaches; and reports how full the plant
is and what it costs against point to point (``engineering``).
"""
from __future__ import annotations
import itertools
from dataclasses import dataclass, field, replace
import numpy as np
import pandas as pd
from planner.cabling import shared_text
from planner.inputs import floor as floors
from planner.inputs.catalog import Catalog
from planner.inputs.floor import Room
from planner.inputs.floor.rack_positions import rack_positions
from planner.inputs.parts.structured import (ENTRY, HALL_PASSES, ROW_PASSES, Runs, entry_panel,
                                              entry_point,
                                              pack, panel_band_ru, panel_share,
                                              patch_drop_m,
                                              point_parts, priced_trunks,
                                              trunk_sizes)
from planner.inputs.parts.structured import row_panels as fibre_panels

@dataclass(frozen=True)
class StructuredPlan:
    """What structured cabling installs (module doc), as tables:

    links:  one row per cable through panels: ``cable`` (row of ``Plan.cables``), ``cable_id``,
            ``cord`` (index into ``catalog.cables``), ``cord_a_m`` / ``cord_b_m`` (computed) and
            ``cord_a_order_m`` / ``cord_b_order_m`` / ``cord_a_sku`` / ``cord_b_sku`` (ordered),
            ``a_panel`` / ``a_port`` and ``b_panel`` / ``b_port`` (the front ports of the two
            ends: row panels', or the entry LC cassette panels' of a link ``via_entry``),
            ``a_entry`` / ``a_entry_port`` / ``b_entry`` / ``b_entry_port`` (cross-hall through
            pass-through panels: the entry panels' front ports, with the link's position), the
            ``trunks`` (ids, A end first, joined by ``,``), ``position`` and ``via_entry``
            (a cross-hall link whose cords land on LC cassettes in the two hall entries, one
            hall trunk between them: ``planner.inputs.parts.structured.via_entry``);
    trunks: ``trunk_id``, ``kind`` (``row``: row panel to row panel or to the hall entry;
            ``hall``: between hall entries, rear port to rear port), ``part``, ``sku``, ``length_m``,
            ``order_length_m``, ``a_panel`` / ``a_port`` / ``a_port_kind`` (``rear`` or
            ``front``), the same for ``b``, ``links``, ``label`` and ``capacity`` (links its
            fibres could carry);
    panels: ``name`` (``<rack>-<RU>``), ``rack``, ``ru``, ``point``, ``kind`` (``row`` /
            ``entry``), ``part`` (index into ``catalog.panels``), ``sku``, ``model`` (its
            NetBox device type), ``rear_ports``, ``legs`` (the largest rear port), ``trunks``,
            ``links`` (used) and ``layout`` (its ports: ``2x12 1x4`` for a row panel's rear
            ports, ``R12F7F5`` for an entry panel's, ``_entry_panels``);
    racks:  ``name``, ``point``, ``kind``, ``hall``, ``row`` and ``tray`` (where it stands: the
            row's end or cross tray, numbered from 0 as ``point_parts`` gives them; an entry
            rack stands at its hall's entry, row and tray -1), ``panels``, ``ru_used``,
            ``height_ru``, ``x_m`` / ``y_m`` (its floor position in its hall,
            ``planner.inputs.floor.rack_positions``);
    segments: per cable of ``Plan.cables`` the text of its pieces ('' when not structured).
    """

    links: pd.DataFrame
    trunks: pd.DataFrame
    panels: pd.DataFrame
    racks: pd.DataFrame
    segments: np.ndarray
    figures: dict = field(default_factory=dict)
    spread: dict | None = None
    """Under ``--spread-risk``: how the links were dealt over the trunks (``deal_spread``)."""
    plain_trunk: np.ndarray | None = None
    """Under ``--spread-risk``: per cable of ``Plan.cables`` the row trunk the plain fill would
    have put it on (numbered over the plan's pairs of patch points; -1: none), for the
    comparison's trunk failures."""
    plain_hall_trunk: np.ndarray | None = None
    """Under ``--spread-risk``: per cable the hall trunk between pass-through entry panels the
    plain plan would have put it on (-1: none; ``deal_hall_spread``)."""

    def summary(self) -> dict:
        """The ``structured`` block of summary.json."""
        trunks = self.trunks
        return {"links": int(len(self.links)),
                "cross_hall_links": int(((self.links["a_entry"] != "")
                                         | self.links["via_entry"]).sum()),
                "trunks": int(len(trunks)),
                "trunk_order_length_m": round(float(trunks["order_length_m"].sum()), 3),
                "panels": int(len(self.panels)),
                "panel_ports_used": int(2 * len(self.links)
                                        + 2 * int((self.links["a_entry"] != "").sum())),
                "patch_racks": int(len(self.racks)),
                "patch_rack_ru_used": int(self.racks["ru_used"].sum()),
                **self.figures}


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
    """``A-P0`` (row A, cross tray 0), ``H2-C-P3`` with several halls; ``H2-ENTRY`` at a
    hall's entry (``planner.inputs.parts.structured.entry_point``)."""
    hall, row, tray = point_parts(room, codes)
    prefix = _hall_prefix(room, hall)
    letters = np.asarray([floors.row_letters(max(r, 0)) for r in row.tolist()], dtype=object)
    return prefix + np.where(row < 0, ENTRY, letters + "-P" + tray.astype(str).astype(object))


def _hall_prefix(room: Room, hall) -> np.ndarray:
    hall = np.asarray(hall, dtype=np.int64)
    if room.halls > 1:
        return "H" + (hall + 1).astype(str).astype(object) + "-"
    return np.full(hall.shape, "", dtype=object)


def _point_order(code) -> np.ndarray:
    """Panel points in order: the halls' entries first, by hall (``entry_point``: -2, -3 ..),
    then the row panel points by code."""
    code = np.asarray(code, dtype=np.int64)
    return np.where(code <= -2, -(1 << 40) - code, code)


def _slots(frame: pd.DataFrame, keys: list[str], order: list[str]) -> pd.DataFrame:
    """``frame`` sorted by ``order`` with ``slot``: its rank within equal ``keys``."""
    frame = frame.sort_values(order, kind="stable").reset_index(drop=True)
    frame["slot"] = frame.groupby(keys, sort=False).cumcount().to_numpy()
    return frame


_UNPLACED = ["uid", "point", "point_name", "panel_part", "kind", "legs", "rear_ports", "trunks",
             "links", "layout"]


def _allocate(ends: pd.DataFrame, catalog: Catalog):
    """The rear port of each trunk end and the panels the ends fill (``uid`` numbers them, for
    ``_place``). ``ends`` has one
    row per trunk end at a panel point: point (code), name (the point's), panel_part,
    trunk_part, legs (links per trunk), peer (the other end's point), chain, links. Per point
    and panel part the ends, largest first (then in (peer, chain) order), take the first panel
    with as many free adapters as the trunk has legs, first-fit decreasing, so trunks of every
    size share a panel: a rear port of ``legs`` positions on the next ``legs`` adapters
    (``start``, its first; the panel's ``layout`` lists its rear port sizes, ``4x12 2x8``).
    In a grown plan the standing trunks' ends (``pin``: their panel's patch rack, rack unit
    and rear port) come first at their point, in the standing order, so first fit gives them
    the panels and rear ports they had, and the new trunks the free adapters after them."""
    if ends.empty:
        return (ends.assign(uid=pd.Series(dtype=np.int64), rear=pd.Series(dtype=np.int64),
                            start=pd.Series(dtype=np.int64)),
                pd.DataFrame(columns=_UNPLACED))
    ends = ends.assign(neg=-ends["legs"].to_numpy(np.int64)).sort_values(
        ["point", "panel_part"] + (["pin"] if "pin" in ends else []) + ["neg", "peer", "chain"],
        kind="stable").reset_index(drop=True)
    panel_no, rear, start = (np.zeros(len(ends), np.int64) for _ in range(3))
    layout: dict[tuple, list] = {}
    point, part, legs = (ends[c].to_numpy(np.int64) for c in ("point", "panel_part", "legs"))
    free: list[int] = []
    for i in range(len(ends)):
        if i == 0 or point[i] != point[i - 1] or part[i] != part[i - 1]:
            free, ports = [], catalog.panels[int(part[i])].ports
        at = next((k for k, room in enumerate(free) if room >= legs[i]), len(free))
        if at == len(free):
            free.append(ports)
        sizes = layout.setdefault((int(point[i]), int(part[i]), at), [])
        sizes.append(int(legs[i]))
        panel_no[i], rear[i], start[i] = at, len(sizes), ports - free[at] + 1
        free[at] -= int(legs[i])
    ends["panel_no"], ends["rear"], ends["start"] = panel_no, rear, start
    keys = ["point", "panel_part", "panel_no"]
    panels = (ends.groupby(keys, sort=False)
              .agg(point_name=("name", "first"), legs=("legs", "max"),
                   rear_ports=("rear", "max"), trunks=("chain", "size"),
                   links=("links", "sum"))
              .reset_index())
    panels["layout"] = [" ".join(f"{len(list(run))}x{size}"
                                 for size, run in itertools.groupby(layout[key]))
                        for key in zip(*(panels[k].tolist() for k in keys))]
    panels["kind"] = "row"
    panels["uid"] = np.arange(len(panels), dtype=np.int64)
    ends = ends.merge(panels[keys + ["uid"]], on=keys, how="left")
    return ends, panels[_UNPLACED]


def _place(panels: pd.DataFrame, catalog: Catalog, height_ru: int, band_ru: int) -> pd.DataFrame:
    """``panels`` (``_UNPLACED``, in the order they fill) with the patch rack and rack unit each
    takes, its name, sku and NetBox model: a point's panels fill its patch racks (the floor's
    cabinet height) upward through the ``band_ru`` top rack units that the cords' drop reaches
    (``panel_band_ru``; all of them by default, from U1), then start the next rack; a hall
    entry's LC cassette panels (``via_entry``) and pass-through panels share its racks."""
    if panels.empty:
        return panels.assign(**{c: pd.Series(dtype=object) for c in ("rack", "name", "sku",
                                                                      "model")},
                             ru=pd.Series(dtype=np.int64), units=pd.Series(dtype=np.int64))
    units = np.array([p.rack_units for p in catalog.panels], dtype=np.int64)[
        panels["panel_part"].to_numpy(np.int64)]
    rack_no, ru = np.zeros(len(panels), np.int64), np.zeros(len(panels), np.int64)
    for rows in panels.groupby("point", sort=False).indices.values():
        rack, top = 0, 0
        for i in rows.tolist():
            if top + units[i] > band_ru:
                rack, top = rack + 1, 0
            rack_no[i], ru[i] = rack, height_ru - band_ru + top + 1
            top += units[i]
    more = "." + (rack_no + 1).astype(str).astype(object)
    panels["rack"] = panels["point_name"].to_numpy(object) + np.where(rack_no > 0, more, "")
    panels["ru"] = ru
    panels["units"] = units
    panels["name"] = panels["rack"] + "-" + floors.padded("", ru, max(2, len(str(height_ru))))
    panels["sku"] = [catalog.panels[i].sku for i in panels["panel_part"].tolist()]
    panels["model"] = (panels["sku"] + " " + panels["layout"]
                       + np.where(panels["kind"] == "entry", " pass-through", ""))
    return panels


@dataclass(frozen=True)
class StandingSeats:
    """The seats the links of a standing plant take, for a grown plan (``planner expand``):
    ``seats`` maps a link's two router ends ``((router, port), (router, port))``, lower end
    first, to (trunk label, trunk part number, {panel: front port}) as the standing
    trunks.csv and cables.csv (``segments``) give them; ``trunks`` the (label, part number) of
    every standing trunk; ``row_trunks`` the standing trunks between two row panels' rear
    ports, trunks.csv's rows (``label``, ``sku``, ``a_rack`` / ``a_panel`` / ``a_ru`` /
    ``a_port``, the same for ``b``), which the grown plant keeps (``_standing_trunks``);
    ``chains`` the standing cross-hall chains through pass-through panels: per chain ``id``,
    its two row trunks ``a`` and ``b`` (``label``, ``sku``, the row panel's ``rack``, ``ru``
    and rear ``port``, the ``entry`` panel), ``size`` (positions of its entry front port),
    ``room`` (the positions that port may grow to: the spare positions after it on its hall
    trunk, up to its row trunks' legs, where no other front port is renumbered),
    ``fronts`` (that port's number per entry panel), ``hall`` (the hall trunk's label and
    part number) and ``hall_ends`` ((entry panel, rear port) at both ends); a cross-hall
    link's seat is then ``("chain", id, position)``. ``keep_dark``: a standing row trunk no
    grown link runs between its two panel points, or a standing cross-hall chain no grown
    link runs along, stays installed as dark spare (without ``--allow-remove``); else it is
    removed, its rear ports (and a chain's entry front ports, and its hall trunk where it
    carries no other chain) left empty (``_dark_chains``)."""

    seats: dict
    trunks: frozenset
    row_trunks: tuple = ()
    chains: tuple = ()
    keep_dark: bool = True

    def of(self, a_router, a_port, b_router, b_port, n: int) -> list:
        """Per cable row 0..n-1 its standing seat or None (rows past the network cables:
        None)."""
        out = [None] * n
        for i, end in enumerate(zip(np.asarray(a_router).tolist(), np.asarray(a_port).tolist(),
                                    np.asarray(b_router).tolist(),
                                    np.asarray(b_port).tolist())):
            x, y = (end[0], end[1]), (end[2], end[3])
            out[i] = self.seats.get((min(x, y), max(x, y)))
        return out

    def trays(self, room: Room, seat_of: list) -> np.ndarray:
        """Per cable (``seat_of``: ``of``'s) the cross tray of ``room`` its standing row trunk
        runs in (the tray of the panel points of its two panels: ``A-P1`` is tray 1), -1 where
        none: not through a standing row trunk, or its panel point is not in ``room`` (a
        tray gone with a shrunk hall). A kept cable is routed through that tray
        (``planner.inputs.floor.routes.tray_run_m``), so it stays on its standing panels
        even where another tray is now the nearer (the grown row's end moved)."""
        out = np.full(len(seat_of), -1, dtype=np.int64)
        codes = _point_codes(room)
        memo: dict = {}
        for i, pin in enumerate(seat_of):
            if pin is None or pin[0] == "chain":
                continue
            panels = tuple(pin[2])
            if panels not in memo:
                ends = {codes.get(str(p).rsplit("-", 1)[0].split(".")[0]) for p in panels}
                trays = (set(point_parts(room, sorted(ends))[2].tolist())
                         if len(ends) == 2 and None not in ends else set())
                memo[panels] = trays.pop() if len(trays) == 1 and min(trays) >= 0 else -1
            out[i] = memo[panels]
        return out


FIRST_PANEL = r"^cord [^|]*\| ([^|:]+)-\d+:"
"""The panel point of a cable's first panel in its ``segments`` (``H1-A-P1`` of
``cord 3.85 m OM4-MPO12_7m | H1-A-P1-01:001 | ...``)."""


def segment_trays(room: Room, segments) -> np.ndarray:
    """Per cable the cross tray of ``room`` its ``segments`` (``cables.csv``'s) run in: that
    of the panel point of its first panel (``A-P1-01``: tray 1), -1 where it runs through no
    row panel (no panels, a hall entry first). A kept cable of a grown plan runs in its
    standing tray (``StandingSeats.trays``) even where another is now the nearer; the failure
    groups and the viewer draw it there from this."""
    seg = pd.Series(segments, dtype=object).reset_index(drop=True)
    out = np.full(len(seg), -1, dtype=np.int64)
    through = np.flatnonzero(seg.str.startswith("cord ", na=False).to_numpy())
    if not through.size:
        return out
    point = seg.iloc[through].str.extract(FIRST_PANEL, expand=False)
    code = point.map(_point_codes(room)).to_numpy(dtype=float)
    known = ~np.isnan(code)
    tray = point_parts(room, code[known].astype(np.int64))[2]
    out[through[known]] = tray
    return out


def build(room: Room, catalog: Catalog, pieces: Runs, parts, cable_ids,
          spread: SpreadDealing | None = None, standing: tuple | None = None
          ) -> StructuredPlan:
    """The panels, trunks and racks of the structured links of a cable plan, and each cable's
    pieces (module doc). ``pieces`` are the cables' runs to the millimetre
    (``Runs.in_millimetres``), ``parts`` their ``planner.inputs.parts.media.LinkParts``;
    ``spread`` (``--spread-risk``) deals the links over the trunks (``deal_spread``);
    ``standing`` (a grown plan: (``StandingSeats``, its seat per cable row)) keeps the
    standing links on their seats (``_reseat``; the cabling stage routed them through their
    standing cross trays, ``StandingSeats.trays``)."""
    seg = parts.segments
    n = len(cable_ids)
    rows = np.flatnonzero(seg.structured) if seg is not None else np.zeros(0, np.int64)
    floor = room.floor
    height = int(floor.cabinet_height_ru)
    band = panel_band_ru(floor)
    pa, pb = pieces.point_a[rows], pieces.point_b[rows]
    flip = _point_order(pa) > _point_order(pb)         # the lower hall's entry is the A end
    link = pd.DataFrame({
        "cable": rows, "trunk_part": seg.trunk[rows] if rows.size else rows,
        "panel_part": seg.panel[rows] if rows.size else rows,
        "lo": np.where(flip, pb, pa), "hi": np.where(flip, pa, pb), "flip": flip,
        "cross_hall": pieces.cross_hall[rows]})
    keys = ["trunk_part", "panel_part", "lo", "hi"]
    link = _slots(link, keys, keys + ["cable"])
    link["group"] = link.groupby(keys, sort=False).ngroup()
    c = link["cable"].to_numpy()
    flip = link["flip"].to_numpy()
    row = ~link["cross_hall"].to_numpy()
    link = link.assign(
        lo_m=np.where(row | ~flip, pieces.trunk_a[c], pieces.trunk_b[c]),
        lo_order=np.where(row | ~flip, seg.trunk_a[c], seg.trunk_b[c]),
        hi_m=np.where(flip, pieces.trunk_a[c], pieces.trunk_b[c]),
        hi_order=np.where(flip, seg.trunk_a[c], seg.trunk_b[c]),
        hall_m=pieces.hall[c], hall_order=seg.hall[c], drop=pieces.drop[c])
    link["lo_hall"] = point_parts(room, link["lo"])[0]
    link["hi_hall"] = point_parts(room, link["hi"])[0]
    fixed, dark = (None, []) if standing is None else _standing_trunks(room, catalog, link,
                                                                        standing[0])
    chains, link, dealt = _pack(link, catalog, float(floor.structured_spare_pct), spread,
                                fixed)
    if dark:
        chains = _dark_chains(room, catalog, chains, dark)
    if standing is not None:
        link = _reseat_chains(link, chains, standing[1])
    codes = np.unique(np.r_[chains["lo"].to_numpy(), chains["hi"].to_numpy()])
    names = dict(zip(codes.tolist(), point_names(room, codes).tolist()))
    ends = pd.concat([chains.assign(point=chains["lo"], peer=chains["hi"], side="lo"),
                      chains.assign(point=chains["hi"], peer=chains["lo"], side="hi")],
                     ignore_index=True)
    ends["name"] = ends["point"].map(names)
    if fixed is not None:           # a standing trunk's ends first, in the standing order
        ends["pin"] = np.asarray([_pin_rank(*pin[0 if side == "lo" else 1])
                                  if pin is not None else 1 << 62
                                  for pin, side in zip(ends["standing"], ends["side"])],
                                 dtype=np.int64)
    row_ends, row_panels = _allocate(ends, catalog)
    if dark and not standing[0].keep_dark:      # --allow-remove: removed, rear ports left empty
        chains, row_ends, row_panels = _without_dark(chains, row_ends, row_panels)
    if dealt is None:
        shared = _hall_trunks(chains, catalog, float(floor.structured_spare_pct))
    else:                           # --spread-risk: the hall trunks held to the share too
        shared, dealt = deal_hall_spread(chains, link, dealt, spread, catalog,
                                         float(floor.structured_spare_pct))
    entry_panels, fronts, rears = _entry_panels(room, shared, catalog, len(row_panels))
    if dark and not standing[0].keep_dark:
        chains, shared, entry_panels = _without_dark_halls(chains, shared, entry_panels,
                                                           fronts, rears)
    placed = pd.concat([row_panels, entry_panels], ignore_index=True).astype(
        {c: np.int64 for c in _UNPLACED if c not in ("point_name", "kind", "layout")})
    placed = _place(placed, catalog, height, band)
    name_of = placed.set_index("uid")["name"]
    row_ends["panel"] = row_ends["uid"].map(name_of)
    for table in (fronts, rears):
        table["panel"] = table["uid"].map(name_of).astype(object)
    for side in ("lo", "hi"):
        at = row_ends[row_ends["side"] == side].set_index("chain")
        chains[f"{side}_panel"] = chains["chain"].map(at["panel"]).astype(object).fillna("")
        chains[f"{side}_rear"] = chains["chain"].map(at["rear"]).fillna(0).astype(np.int64)
        chains[f"{side}_start"] = chains["chain"].map(at["start"]).fillna(0).astype(np.int64)
    for side in ("lo", "hi"):
        at = fronts[fronts["side"] == side].set_index("chain")
        chains[f"{side}_entry_panel"] = (chains["chain"].map(at["panel"]).astype(object)
                                         .fillna(""))
        chains[f"{side}_entry_front"] = chains["chain"].map(at["port"]).fillna(0).astype(
            np.int64)
        at = rears[rears["side"] == side].set_index("hall")
        shared[f"{side}_panel"] = shared["hall"].map(at["panel"]).astype(object)
        shared[f"{side}_rear"] = shared["hall"].map(at["port"]).astype(np.int64)
    trunks = _trunks(chains, shared, catalog)
    if standing is not None:
        link = _reseat(link, chains, trunks, row_ends, placed, *standing)
    links, text = _links(link, chains, shared, trunks, pieces, parts, catalog, cable_ids)
    segments = np.full(n, "", dtype=object)
    segments[links["cable"].to_numpy()] = text
    panels = placed.sort_values("uid", kind="stable").reset_index(drop=True)
    racks = _racks(room, panels, height)
    panels = panels.drop(columns="point", errors="ignore").rename(columns={"panel_part": "part",
                                                          "point_name": "point"})[
        ["name", "rack", "ru", "point", "kind", "part", "sku", "model", "rear_ports", "legs",
         "trunks", "links", "units", "layout"]]
    plain_trunk = plain_hall = None
    if dealt is not None:
        plain_trunk, plain_hall = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
        plain_trunk[dealt["cables"]] = dealt.pop("plain_trunk")
        plain_hall[dealt.pop("cables")] = dealt.pop("plain_hall")
        for key in ("plain_chain", "plain_carried", "hall_added"):
            dealt.pop(key)
    plant = StructuredPlan(links=links, trunks=trunks, panels=panels, racks=racks,
                           segments=segments, spread=dealt, plain_trunk=plain_trunk,
                           plain_hall_trunk=plain_hall)
    return replace(plant, figures=engineering(plant, catalog, pieces))


def _pin_rank(rack: int, ru: int, rear: int) -> int:
    """A standing trunk end's order at its point: patch rack, rack unit, rear port."""
    return (rack << 40) | (ru << 20) | rear


def _standing_trunks(room: Room, catalog: Catalog, link: pd.DataFrame,
                     plant: StandingSeats) -> tuple[dict, list]:
    """(kept, dark): per group of ``link`` (same panel points and parts, ``_pack``) the
    standing row trunks it keeps: [(part, links, (lo end, hi end))], an end being the standing
    panel's (patch rack number, rack unit, rear port) at that point; and the standing row
    trunks (``StandingSeats.row_trunks`` records) and cross-hall chains through pass-through
    panels (``StandingSeats.chains`` records) no group keeps (``_dark_chains``), the hall
    trunks of pass-through chains aside (they go with their chains). A standing trunk
    belongs to the first group between its two panel points whose trunk sizes
    (``trunk_sizes``) have its part number."""
    if not plant.row_trunks:
        return {}, []
    chained = {str(c["hall"][0]) for c in plant.chains}
    if link.empty:
        return {}, [t for t in plant.row_trunks if str(t["label"]) not in chained] + list(
            plant.chains)
    first = link.groupby("group", sort=True).first()
    codes = np.unique(np.r_[first["lo"].to_numpy(), first["hi"].to_numpy()])
    name = dict(zip(codes.tolist(), point_names(room, codes).tolist()))

    left = list(plant.row_trunks)
    chains = list(plant.chains)
    out: dict = {}
    for g, grp in enumerate(first.itertuples(index=False)):
        if bool(grp.cross_hall):
            kept = _standing_chains(catalog, grp, name[int(grp.lo)], name[int(grp.hi)], chains)
            if kept:
                out[g] = kept
            continue
        lo, hi = name[int(grp.lo)], name[int(grp.hi)]
        stock = float(grp.lo_m) + 2 * float(grp.drop)
        skus = {}
        for k in trunk_sizes(catalog, int(grp.trunk_part), {"lo": stock}):
            skus[str(catalog.cables[k].part_numbers_at(
                np.asarray([_stock(catalog, k, stock)]))[0])] = k
        for t in list(left):
            a, b = str(t["a_rack"]).split(".")[0], str(t["b_rack"]).split(".")[0]
            if t["sku"] not in skus or {a, b} != {lo, hi} or (lo == hi):
                continue
            ea = _rear_end(t["a_rack"], t["a_ru"], t["a_port"])
            eb = _rear_end(t["b_rack"], t["b_ru"], t["b_port"])
            k = skus[t["sku"]]
            out.setdefault(g, []).append((k, catalog.links_per_trunk(catalog.cables[k]),
                                          (ea, eb) if a == lo else (eb, ea)))
            left.remove(t)
    for kept in out.values():
        kept.sort(key=lambda item: (-item[1], item[2][:2]))
    return out, [t for t in left if str(t["label"]) not in chained] + chains


def _point_codes(room: Room) -> dict:
    """Panel point name -> code (``point_code``, ``entry_point``) of every point of ``room``."""
    trays = len(room.cross_x)
    codes = np.r_[np.arange(room.halls * room.rows * trays, dtype=np.int64),
                  entry_point(np.arange(room.halls))]
    return dict(zip(point_names(room, codes).tolist(), codes.tolist()))


def _dark_chains(room: Room, catalog: Catalog, chains: pd.DataFrame, dark: list
                 ) -> pd.DataFrame:
    """``chains`` with one chain per standing trunk no grown link runs along
    (``_standing_trunks``' dark ones), ``dark`` True: a row trunk between its two panel
    points, or a cross-hall chain through pass-through panels (``_dark_pass_through``). Each
    keeps its part (its part number at its order length), its panel points and its standing
    ends (``standing``, so ``_allocate`` gives it its rear ports again, and ``_pack_hall`` a
    chain its hall trunk and entry front port), and carries no link. It stays as dark spare,
    so the standing trunks after it on its panels keep their rear and front ports and labels
    (and their kept cables their seats). Its panels are the row panels of its fibre
    (``fibre_panels``), the one the grown chains of that fibre use where there are several."""
    code = _point_codes(room)
    trunk_parts = [k for k, m in enumerate(catalog.cables) if m.kind == "trunk"]
    rows = []
    for t in dark:
        if "fronts" in t:
            row = _dark_pass_through(room, catalog, chains, t, code)
            if row is not None:
                rows.append(row)
            continue
        a, b = (str(t[f"{s}_rack"]).split(".")[0] for s in ("a", "b"))
        order = float(t["order_length_m"])
        k = next((k for k in trunk_parts if str(catalog.cables[k].part_numbers_at(
            np.asarray([order]))[0]) == str(t["sku"])), None)
        if k is None or a not in code or b not in code or a == b:
            continue
        fibre = catalog.cables[k].fibre
        panel = _fibre_panel(catalog, chains, fibre)
        ea = _rear_end(t["a_rack"], t["a_ru"], t["a_port"])
        eb = _rear_end(t["b_rack"], t["b_ru"], t["b_port"])
        flip = _point_order(code[a]) > _point_order(code[b])
        lo, hi = (code[b], code[a]) if flip else (code[a], code[b])
        lo_hall, hi_hall = (int(h) for h in point_parts(room, [lo, hi])[0])
        rows.append(dict(trunk_part=k, priced=priced_trunks(catalog, fibre)[0],
                         panel_part=panel, entry_part=-1, lo=lo, hi=hi, lo_hall=lo_hall,
                         hi_hall=hi_hall, legs=catalog.links_per_trunk(catalog.cables[k]),
                         cross_hall=False, links=0, lo_m=float(t["length_m"]),
                         lo_order=order, hi_m=0.0, hi_order=0.0, hall_m=0.0, drop=0.0,
                         standing=(eb, ea) if flip else (ea, eb), dark=True))
    if not rows:
        return chains
    added = pd.DataFrame(rows).assign(chain=np.arange(len(chains), len(chains) + len(rows)))
    if "standing" not in chains:
        chains = chains.assign(standing=None)
    return pd.concat([chains.assign(dark=False), added[list(chains.columns) + ["dark"]]],
                     ignore_index=True)


def _fibre_panel(catalog: Catalog, chains: pd.DataFrame, fibre: str) -> int:
    """The row panel part of ``fibre`` the grown chains use (the first), else its first."""
    used = [int(p) for p in chains["panel_part"].tolist()
            if catalog.panels[int(p)].fibre == fibre]
    return used[0] if used else fibre_panels(catalog, fibre)[0]


def _trunk_stock(catalog: Catalog, sku: str) -> tuple[int, float] | None:
    """(trunk part, stock length) whose part number is ``sku``, None if no trunk has it."""
    for k, model in enumerate(catalog.cables):
        if model.kind != "trunk" or not model.stock_lengths:
            continue
        stock = np.asarray(model.stock_lengths, dtype=float)
        numbers = [str(n) for n in model.part_numbers_at(stock)]
        if str(sku) in numbers:
            return k, float(stock[numbers.index(str(sku))])
    return None


def _dark_pass_through(room: Room, catalog: Catalog, chains: pd.DataFrame, chain: dict,
                       code: dict) -> dict | None:
    """The ``chains`` row of a standing cross-hall chain through pass-through panels
    (``StandingSeats.chains`` record) no grown link runs along, as ``_pack`` makes one, with
    ``standing`` as ``_standing_chains`` gives it (so ``_pack_hall`` puts it back on its hall
    trunk, on its entry front port) and no link; None where its parts or panel points are not
    in the catalog or the room (then it is left out, as before). Its row trunks keep their
    part numbers (order lengths); their lengths are those of ``runs`` in ``room`` (to the
    millimetre), the priced trunk and panels those of the grown cross-hall chains of its
    halls and fibre where there are any."""
    sides = []
    for side in ("a", "b"):
        piece = chain[side]
        point = str(piece["rack"]).split(".")[0]
        found = _trunk_stock(catalog, piece["sku"])
        if found is None or point not in code or code[point] < 0:
            return None
        sides.append((code[point], found, piece))
    if sides[0][1][0] != sides[1][1][0] or len({s[0] for s in sides}) != 2:
        return None
    if _point_order(sides[0][0]) > _point_order(sides[1][0]):
        sides.reverse()
    (lo, (k, lo_order), low), (hi, (_, hi_order), high) = sides
    halls, rows, _ = point_parts(room, [lo, hi])
    lo_hall, hi_hall = int(halls[0]), int(halls[1])
    fibre = catalog.cables[k].fibre
    same = chains[chains["cross_hall"].astype(bool).to_numpy()
                  & (chains["lo_hall"].to_numpy() == lo_hall)
                  & (chains["hi_hall"].to_numpy() == hi_hall)] if len(chains) else chains
    same = same[[catalog.cables[int(t)].fibre == fibre for t in same["trunk_part"].tolist()]]
    if len(same):
        priced, panel = int(same["priced"].iloc[0]), int(same["panel_part"].iloc[0])
    else:
        priced, panel = priced_trunks(catalog, fibre)[0], _fibre_panel(catalog, chains, fibre)
    floor = room.floor
    scale = 1.0 + floor.slack_pct / 100.0
    entry_y = room.entry_xy[1]

    def metres(value) -> float:
        return float(np.round(float(value) * scale * 1000.0) / 1000.0)

    y = floors.cabinet_xy(floor, rows, np.zeros(2))[1]
    pin = dict(chain, lo_front=int(chain["fronts"].get(low["entry"], 0)))
    return dict(trunk_part=k, priced=priced, panel_part=panel,
                entry_part=entry_panel(catalog, panel), lo=lo, hi=hi, lo_hall=lo_hall,
                hi_hall=hi_hall, legs=catalog.links_per_trunk(catalog.cables[k]),
                cross_hall=True, links=0, lo_m=metres(y[0] - entry_y), lo_order=lo_order,
                hi_m=metres(y[1] - entry_y), hi_order=hi_order,
                hall_m=metres(room.link_m(lo_hall, hi_hall)), drop=patch_drop_m(floor),
                standing=(_rear_end(low["rack"], low["ru"], low["port"]),
                          _rear_end(high["rack"], high["ru"], high["port"]), pin), dark=True)


def _without_dark(chains: pd.DataFrame, row_ends: pd.DataFrame, panels: pd.DataFrame):
    """(chains, row_ends, panels) without the dark chains (``--allow-remove``: those
    standing trunks are removed), their adapters and rear ports left empty on their panels,
    so the trunks after them keep theirs; a panel no more counts their trunks, and the panels
    left with no trunk after the last one that has any at their point are removed too (the
    panels before it keep their rack units). A dark cross-hall chain stays in ``chains``
    until its hall trunk and entry front port are laid out (``_without_dark_halls``)."""
    gone = set(chains.loc[chains["dark"].astype(bool), "chain"].tolist())
    mine = row_ends["chain"].isin(gone)
    panels = _without_empty(panels, row_ends[mine].groupby("uid").size())
    uid = dict(zip(panels["uid"].tolist(), range(len(panels))))
    panels["uid"] = np.arange(len(panels), dtype=np.int64)
    row_ends = row_ends[~mine].reset_index(drop=True)
    row_ends["uid"] = row_ends["uid"].map(uid).astype(np.int64)
    keep = ~chains["chain"].isin(gone) | chains["cross_hall"].astype(bool)
    return chains[keep].reset_index(drop=True), row_ends, panels


def _without_empty(panels: pd.DataFrame, removed: pd.Series) -> pd.DataFrame:
    """``panels`` (``_UNPLACED``) with ``removed`` trunks (per uid) no more counted, and
    without the panels left with no trunk after the last one that has any at their point
    (the panels before it keep their rack units)."""
    panels = panels.copy()
    panels["trunks"] = (panels["trunks"] - panels["uid"].map(removed).fillna(0)).astype(
        np.int64)
    used = panels["trunks"].to_numpy() > 0
    later = panels.assign(used=used)[::-1].groupby("point", sort=False)["used"].cummax()
    return panels[later.sort_index().to_numpy()].reset_index(drop=True)


def _without_dark_halls(chains: pd.DataFrame, shared: pd.DataFrame, panels: pd.DataFrame,
                        fronts: pd.DataFrame, rears: pd.DataFrame):
    """(chains, shared, panels) without the dark cross-hall chains (``--allow-remove``: their
    row trunks are removed) and without the hall trunks that carry only such chains, once
    ``_entry_panels`` has laid out the entry panels with them: their front and rear ports
    stay empty, so the chains and hall trunks after them keep their ports and labels; an
    entry panel no more counts them among its trunks, and the entry panels left with none
    after the last one that has any go (``_without_empty``)."""
    dark = chains["dark"].astype(bool).to_numpy() & chains["cross_hall"].astype(bool).to_numpy()
    gone = set(chains.loc[dark, "chain"].tolist())
    if not gone:
        return chains, shared, panels
    empty = [all(chain in gone for chain, _, _ in members) for members in shared["members"]]
    halls = set(shared.loc[empty, "hall"].tolist())
    spare = {h for h, legs, members, e in zip(shared["hall"], shared["legs"], shared["members"],
                                             empty)
             if e and int(legs) > sum(int(size) for _, _, size in members)}
    per = pd.concat([fronts.loc[fronts["chain"].isin(gone), "uid"],       # its front port,
                     rears.loc[rears["hall"].isin(halls), "uid"],         # rear port and
                     rears.loc[rears["hall"].isin(spare), "uid"]]).value_counts()  # free one
    panels = _without_empty(panels, per)
    return (chains[~dark].reset_index(drop=True),
            shared[~np.asarray(empty, dtype=bool)].reset_index(drop=True), panels)


def _rear_end(rack, ru, port) -> tuple[int, int, int]:
    """A standing panel's (patch rack number at its point, rack unit, rear port)."""
    more = str(rack).rpartition(".")[2] if "." in str(rack) else "1"
    return (int(more), int(ru), int(str(port)[1:]))


def _standing_chains(catalog: Catalog, grp, lo: str, hi: str, left: list) -> list:
    """The standing cross-hall chains through pass-through panels (``StandingSeats.chains``)
    a group of links between the row panel points ``lo`` and ``hi`` keeps (removed from
    ``left``): [(part, legs, (lo end, hi end, chain))] as ``_standing_trunks``, ``chain`` the
    standing record with ``lo_front`` (its entry front port number in the lower hall). Both
    row trunks must be the one part that stands in for the group's priced trunk
    (``trunk_sizes``) at their stock lengths."""
    want = {"lo": float(grp.lo_m) + 2 * float(grp.drop),
            "hi": float(grp.hi_m) + 2 * float(grp.drop)}
    sku = {side: {} for side in want}
    for k in trunk_sizes(catalog, int(grp.trunk_part), want):
        for side, metres in want.items():
            sku[side][str(catalog.cables[k].part_numbers_at(
                np.asarray([_stock(catalog, k, metres)]))[0])] = k
    kept = []
    for c in list(left):
        a, b = (str(c[s]["rack"]).split(".")[0] for s in ("a", "b"))
        if {a, b} != {lo, hi} or lo == hi:
            continue
        low, high = (c["a"], c["b"]) if a == lo else (c["b"], c["a"])
        k = sku["lo"].get(low["sku"])
        if k is None or sku["hi"].get(high["sku"]) != k:
            continue
        chain = dict(c, lo_front=int(c["fronts"].get(low["entry"], 0)))
        kept.append((k, catalog.links_per_trunk(catalog.cables[k]),
                     (_rear_end(low["rack"], low["ru"], low["port"]),
                      _rear_end(high["rack"], high["ru"], high["port"]), chain)))
        left.remove(c)
    return kept


def _room(kept: tuple) -> int:
    """Positions a kept standing trunk offers the links (``_standing_trunks``): its legs, or
    for a cross-hall chain the positions its entry front port may grow to (``room``,
    ``StandingSeats``: its own, and the hall trunk's spare after it where that renumbers no
    front port; its other legs still count as the group's spare, ``_pack``)."""
    pin = kept[2]
    return int(pin[2]["room"]) if len(pin) > 2 else int(kept[1])


def _dark_flags(chains: pd.DataFrame) -> list:
    """Per chain whether it is a dark standing one (``_dark_chains``): no link goes on it."""
    if "dark" not in chains:
        return [False] * len(chains)
    return [bool(d) for d in chains["dark"].tolist()]


def _reseat_chains(link: pd.DataFrame, chains: pd.DataFrame, seat_of: list) -> pd.DataFrame:
    """``link`` with each standing cross-hall link (``seat_of[cable]``: ``("chain", id,
    position)``) back on its position of its standing chain where the grown plan keeps that
    chain for its group; the other cross-hall links of the group then take the free
    positions, the standing chains' first, in cable order: their entry front ports' positions,
    then those the ports may grow into (``_room``). ``chains``' ``links`` are updated in
    place, and a standing chain's ``size`` (in ``standing``) to the last position it carries
    where that is past its standing front port (``_standing_bins`` lays it out so)."""
    if "standing" not in chains or not chains["cross_hall"].astype(bool).any():
        return link
    key = ["priced", "panel_part", "lo", "hi"]
    room, size, standing, group_chains = {}, {}, {}, {}
    dark = _dark_flags(chains)
    for c, hall, pin, legs, off, *k in zip(chains["chain"].tolist(),
                                           chains["cross_hall"].tolist(),
                                           chains["standing"].tolist(), chains["legs"].tolist(),
                                           dark, *(chains[x].tolist() for x in key)):
        if not bool(hall) or off:
            continue
        group_chains.setdefault(tuple(k), []).append(int(c))
        room[int(c)] = size[int(c)] = int(legs)
        if pin is not None and len(pin) > 2:
            room[int(c)], size[int(c)] = int(pin[2]["room"]), int(pin[2]["size"])
            standing[pin[2]["id"]] = int(c)
    link = link.copy()
    seat, taken, groups = {}, set(), {}
    for i, (cable, hall, *k) in enumerate(zip(link["cable"].tolist(), link["cross_hall"].tolist(),
                                              *(link[x].tolist() for x in (
                                                  "trunk_part", "panel_part", "lo", "hi")))):
        if not bool(hall):
            continue
        groups.setdefault(tuple(k), []).append(i)
        pin = seat_of[int(cable)] if int(cable) < len(seat_of) else None
        if pin is None or pin[0] != "chain":
            continue
        c = standing.get(pin[1])
        if (c is None or c not in group_chains.get(tuple(k), []) or not 1 <= pin[2] <= size[c]
                or (c, pin[2]) in taken):
            continue
        seat[i] = (c, int(pin[2]))
        taken.add(seat[i])
    kept = set(standing.values())
    for k, rows in groups.items():
        free = iter(sorted((c not in kept, p > size[c], c, p) for c in group_chains.get(k, [])
                           for p in range(1, room[c] + 1) if (c, p) not in taken))
        for i in sorted(rows, key=lambda i: int(link.at[i, "cable"])):
            if i not in seat:
                *_, c, p = next(free)
                seat[i] = (c, p)
    _grow_fronts(chains, seat.values(), size)
    legs = chains.set_index("chain")["legs"]
    for i, (c, p) in seat.items():
        link.at[i, "chain"], link.at[i, "position"] = c, p
        link.at[i, "legs"] = int(legs.at[c])
    count = link["chain"].value_counts()
    cross = chains["cross_hall"].astype(bool).to_numpy()
    chains.loc[cross, "links"] = chains.loc[cross, "chain"].map(count).fillna(0).astype(np.int64)
    return link


def _grow_fronts(chains: pd.DataFrame, seats, size: dict) -> None:
    """A standing chain's entry front port (``size`` in ``chains``' ``standing``) grown in
    place to the last position of ``seats`` ((chain, position) pairs) it carries, where that
    is past its standing ``size``."""
    last: dict = {}
    for c, p in seats:
        last[c] = max(last.get(c, 0), p)
    for at, c, pin in zip(chains.index, chains["chain"].tolist(), chains["standing"].tolist()):
        if pin is not None and len(pin) > 2 and int(c) in last and last[int(c)] > size[int(c)]:
            chains.at[at, "standing"] = (*pin[:2], dict(pin[2], size=last[int(c)]))


def _reseat(link: pd.DataFrame, chains: pd.DataFrame, trunks: pd.DataFrame,
            row_ends: pd.DataFrame, placed: pd.DataFrame, plant: StandingSeats,
            seat_of: list) -> pd.DataFrame:
    """``link`` with each standing link (``seat_of[cable]``) back on its standing seat where the
    grown plan has its trunk (same label, so the same two panels' rear ports, and the same part)
    between the same panel points and the same front ports give one position in it; the
    other links of the group (same panel points and parts) then take the free positions, those
    of standing trunks first (their spare positions), in cable order. ``chains``, ``trunks``
    and ``placed`` (the links each row trunk and panel carries) are updated in place.
    Cross-hall links are seated before (``_reseat_chains``)."""
    link = link.sort_values("cable", kind="stable").reset_index(drop=True)
    row = trunks[trunks["piece"] == "row"]
    chain_of = {(str(lab), str(sku)): int(ch)
                for ch, lab, sku in zip(row["chain"], row["label"], row["sku"])}
    ch = chains.set_index("chain")
    key = ["priced", "panel_part", "lo", "hi"]
    group_chains: dict = {}
    for c, off, *k in zip(chains["chain"].tolist(), _dark_flags(chains),
                          *(chains[x].tolist() for x in key)):
        if not bool(ch.at[c, "cross_hall"]) and not off:
            group_chains.setdefault(tuple(k), []).append(int(c))
    standing_chain = {c for (lab, sku), c in chain_of.items() if (lab, sku) in plant.trunks}
    seat = [None] * len(link)
    taken: set = set()
    groups: dict = {}
    for i, r in enumerate(link.itertuples(index=False)):
        if bool(r.cross_hall):
            continue
        k = (int(r.trunk_part), int(r.panel_part), int(r.lo), int(r.hi))
        groups.setdefault(k, []).append(i)
        pin = seat_of[int(r.cable)] if int(r.cable) < len(seat_of) else None
        c = None if pin is None else chain_of.get((pin[0], pin[1]))
        if c is None or c not in group_chains.get(k, []):
            continue
        at = [int(pin[2].get(ch.at[c, f"{s}_panel"], -1)) - int(ch.at[c, f"{s}_start"]) + 1
              for s in ("lo", "hi")]
        if at[0] == at[1] and 1 <= at[0] <= int(ch.at[c, "legs"]) and (c, at[0]) not in taken:
            seat[i] = (c, at[0])
            taken.add(seat[i])
    for k, rows in groups.items():
        free = sorted(((c not in standing_chain, c, p) for c in group_chains[k]
                       for p in range(1, int(ch.at[c, "legs"]) + 1) if (c, p) not in taken))
        free_iter = iter(free)
        for i in rows:
            if seat[i] is None:
                _, c, p = next(free_iter)
                seat[i] = (c, p)
    for i, s in enumerate(seat):
        if s is not None:
            link.at[i, "chain"], link.at[i, "position"] = s
            link.at[i, "legs"] = int(ch.at[s[0], "legs"])
    count = link["chain"].value_counts()
    chains["links"] = chains["chain"].map(count).fillna(0).astype(np.int64)
    at = trunks["chain"] >= 0
    trunks.loc[at, "links"] = trunks.loc[at, "chain"].map(count).fillna(0).astype(np.int64)
    per = row_ends.assign(n=row_ends["chain"].map(count).fillna(0)).groupby("uid")["n"].sum()
    rows = placed["uid"].isin(per.index)
    placed.loc[rows, "links"] = placed.loc[rows, "uid"].map(per).astype(np.int64)
    return link


def _pack(link: pd.DataFrame, catalog: Catalog, spare_pct: float,
          spread: SpreadDealing | None = None, fixed: dict | None = None):
    """(chains, link, dealt): the trunks each group of links between the same two panels (same priced
    trunk and panel parts) is packed into, one row per chain (a row trunk, or a cross-hall chain
    of three trunks of one part), and each link's ``chain``, ``legs`` and ``position`` in it (the
    group's links fill its trunks largest first, in cable order).

    A group needs its links plus ``spare_pct`` % (rounded up) of positions. Its candidates are
    the least-cost packings (``planner.inputs.parts.structured.pack``) of each subset of the
    trunk sizes that can stand in for its priced trunk (``_candidates``), the packing of all
    sizes first. Two ways to choose, the cheaper plan (trunks and panels) wins, ties to the
    first: each group its packing of all sizes (panel adapters priced by the port); or the
    groups, largest first, each the candidate that costs least with the panels it makes its
    panel points buy: trunks of every size share a point's panels, so trunks that fit its
    free adapters cost no new panel (``_Slots``). Then ``_improve`` revisits the groups
    with every other group's trunks in place. With ``spread`` the links are dealt over the
    group's trunks instead (``deal_spread``; ``dealt`` its figures, else None). ``fixed`` (a
    grown plan, ``_standing_trunks``): per group the standing trunks it keeps, first; only the
    positions they lack are packed into new trunks (chains' ``standing``: the standing
    trunk's ends, ``_allocate``'s ``pin``; new trunks take what the standing ones lack of
    the spare positions or of the links' positions, ``_room``)."""
    columns = ["chain", "trunk_part", "priced", "panel_part", "entry_part", "lo", "hi",
               "lo_hall", "hi_hall", "legs", "cross_hall", "links", "lo_m", "lo_order", "hi_m",
               "hi_order", "hall_m", "drop"]
    if link.empty:
        return (pd.DataFrame(columns=columns),
                link.assign(chain=np.zeros(0, np.int64), legs=np.zeros(0, np.int64),
                            position=np.zeros(0, np.int64)), None)
    first = link.groupby("group", sort=True).first()
    count = link.groupby("group", sort=True).size().to_numpy()
    need = np.maximum(count, np.ceil(np.round(count * (1.0 + spare_pct / 100.0), 9))
                      ).astype(np.int64)
    memo: dict = {}
    groups = list(first.itertuples(index=False))
    options, ends = [], []
    for g, grp in enumerate(groups):
        hall = bool(grp.cross_hall)
        want = {"lo": grp.lo_m + 2 * grp.drop}
        if hall:
            want.update(hi=grp.hi_m + 2 * grp.drop)
        panel = int(grp.panel_part)
        entry = entry_panel(catalog, panel) if hall else -1
        key = (int(grp.trunk_part), panel, tuple(sorted(
            (k, _stock(catalog, int(grp.trunk_part), v)) for k, v in want.items())),
            int(need[g]))
        kept = [] if fixed is None else fixed.get(g, [])
        if kept:
            key = key[:-1] + (max(0, int(need[g]) - sum(legs for _, legs, _ in kept),
                                  int(count[g]) - sum(_room(item) for item in kept)),)
        if key not in memo:
            memo[key] = (_candidates(catalog, int(grp.trunk_part), panel, entry,
                                     {k: float(v) for k, v in want.items()}, key[-1])
                         if key[-1] > 0 else [(0.0, ())])
        mine = tuple((part, legs) for part, legs, _ in kept)
        options.append([(dollars, mine + trunks) for dollars, trunks in memo[key]]
                       if kept else memo[key])
        ends.append([("row", int(grp.lo), panel), ("row", int(grp.hi), panel)])
    order = sorted(range(len(groups)), key=lambda i: (-need[i], i))
    plans = []
    for aware in (False, True):
        slots, picked, dollars = _Slots(catalog), {}, 0.0
        for g in order:
            best = (min(options[g], key=lambda cand: (cand[0] + slots.cost(ends[g], cand[1]),
                                                      len(cand[1]),
                                                      sum(l for _, l in cand[1]), cand[1]))
                    if aware else options[g][0])
            dollars += best[0] + slots.take(ends[g], best[1])
            picked[g] = best[1]
        plans.append((round(dollars, 6), picked))
    picked = _improve(dict(min(plans, key=lambda plan: plan[0])[1]), options, ends, order,
                      catalog)
    link = link.sort_values(["group", "slot"], kind="stable").reset_index(drop=True)
    within, dealt = None, None
    if spread is not None:
        picked, within, dealt = deal_spread(link, picked, spread, catalog, groups)
    rows, chain_of, legs_of, pos_of = [], [], [], []
    first_chain = np.zeros(len(groups), np.int64)
    for g, grp in enumerate(groups):
        hall, n, start = bool(grp.cross_hall), int(count[g]), 0
        first_chain[g] = len(rows)
        for t, (part, legs) in enumerate(picked[g]):
            carried = (max(0, min(legs, n - start)) if within is None
                       else int(dealt["carried"][g][t]))
            rows.append(dict(chain=len(rows), trunk_part=part, priced=int(grp.trunk_part),
                             panel_part=int(grp.panel_part),
                             entry_part=entry_panel(catalog, int(grp.panel_part)) if hall
                             else -1, lo=grp.lo, hi=grp.hi, lo_hall=int(grp.lo_hall),
                             hi_hall=int(grp.hi_hall), legs=legs, cross_hall=hall,
                             links=carried, lo_m=grp.lo_m,
                             lo_order=_stock(catalog, part, grp.lo_m + 2 * grp.drop),
                             hi_m=grp.hi_m,
                             hi_order=_stock(catalog, part, grp.hi_m + 2 * grp.drop)
                             if hall else 0.0,
                             hall_m=grp.hall_m, drop=float(grp.drop)))
            if fixed is not None:
                kept = fixed.get(g, [])
                rows[-1]["standing"] = kept[t][2] if t < len(kept) else None
            if within is None:
                chain_of += [rows[-1]["chain"]] * carried
                legs_of += [legs] * carried
                pos_of += list(range(1, carried + 1))
            start += carried
    chains = pd.DataFrame(rows, columns=columns + (["standing"] if fixed is not None else []))
    if within is not None:          # dealt: each link's chain, positions in cable order
        chain_of = first_chain[link["group"].to_numpy(np.int64)] + within
        legs_of = chains["legs"].to_numpy(np.int64)[chain_of]
        pos_of = pd.Series(chain_of).groupby(chain_of).cumcount().to_numpy() + 1
        dealt = {k: v for k, v in dealt.items() if k != "carried"}
    link = link.assign(chain=np.asarray(chain_of, np.int64), legs=np.asarray(legs_of, np.int64),
                       position=np.asarray(pos_of, np.int64))
    return chains, link, dealt


@dataclass(frozen=True)
class SpreadDealing:
    """What ``--spread-risk`` asks of the trunks (``deal_spread``): ``share`` of a router's
    network cables or of a group pair's cables at most on one trunk. ``a_router`` /
    ``b_router``: the two routers of every network cable (``Plan.cables`` rows 0..); ``group``:
    each router's topology group (Dragonfly-like families), or None."""

    share: float
    a_router: np.ndarray
    b_router: np.ndarray
    group: np.ndarray | None = None

    def limits(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(cables of each router, most of them on one trunk, group pair of each network
        cable (-1: inside a group), cables of each pair, most of them on one trunk). A limit
        is at least 1: one cable is on some trunk whatever its share."""
        a, b = np.asarray(self.a_router, np.int64), np.asarray(self.b_router, np.int64)
        n = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
        degree = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
        pair = np.full(len(a), -1, np.int64)
        if self.group is not None and len(a):
            grp = np.asarray(self.group, np.int64)
            ga, gb = grp[a], grp[b]
            key = np.minimum(ga, gb) * (int(grp.max()) + 1) + np.maximum(ga, gb)
            between = ga != gb
            _, pair[between] = np.unique(key[between], return_inverse=True)
        total = np.bincount(pair[pair >= 0], minlength=int(pair.max(initial=-1)) + 1)
        return (degree, self._most(degree), pair, total, self._most(total))

    def owners(self, cable: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(A router, B router, group pair) of each of ``cable`` (rows of ``Plan.cables``);
        -1 past the network cables and for a pair inside a group."""
        pair = self.limits()[2]
        n_net = len(pair)
        cable = np.asarray(cable, np.int64)
        net = cable < n_net
        if not n_net:
            return (np.full(len(cable), -1, np.int64),) * 3
        at = np.minimum(cable, max(n_net - 1, 0))
        return (np.where(net, np.asarray(self.a_router, np.int64)[at], -1),
                np.where(net, np.asarray(self.b_router, np.int64)[at], -1),
                np.where(net, pair[at], -1))

    def _most(self, cables: np.ndarray) -> np.ndarray:
        return np.maximum(np.floor(self.share * cables + 1e-9), 1).astype(np.int64)


def _share_figures(trunk: np.ndarray, owners: tuple, spread: SpreadDealing) -> dict:
    """``router`` and (with topology groups) ``group_pair``: the largest share on one trunk
    and the cables over the limits (``_trunk_loads``) of links on ``trunk`` (-1: none) whose
    ``owners`` are (A router, B router, group pair) (``SpreadDealing.owners``)."""
    degree, r_most, _, total, p_most = spread.limits()
    ra, rb, rp = owners
    at = np.asarray(trunk) >= 0
    fig = {}
    for name, mine, cables, most in (("router", (ra, rb), degree, r_most),
                                     ("group_pair", (rp,), total, p_most)):
        if name == "group_pair" and spread.group is None:
            continue
        t = np.concatenate([np.asarray(trunk)[at]] * len(mine))
        o = np.concatenate([x[at] for x in mine])
        largest, over = _trunk_loads(t, o, cables, most)
        fig[name] = {"largest": round(largest, 6), "cables_over": over}
    return fig


def _trunk_loads(trunk: np.ndarray, owner: np.ndarray, cables: np.ndarray, most: np.ndarray
                 ) -> tuple[float, int]:
    """(largest share of an owner's cables on one trunk, cables over the owner's limit
    summed over trunks) for links on ``trunk`` (global trunk numbers) owned by ``owner``
    (-1: none)."""
    at = owner >= 0
    if not at.any():
        return 0.0, 0
    key, count = np.unique(np.c_[trunk[at], owner[at]], axis=0, return_counts=True)
    o = key[:, 1]
    return (float((count / cables[o]).max()), int(np.maximum(count - most[o], 0).sum()))


def deal_spread(link: pd.DataFrame, picked: dict, spread: SpreadDealing, catalog: Catalog,
                groups: list) -> tuple[dict, np.ndarray, dict]:
    """Deal each group's links (``link`` sorted by group and slot) over its trunks so that no
    trunk carries more than ``spread.share`` of a router's network cables or of a group pair's
    cables (``SpreadDealing.limits``): link by link in cable order, onto the trunk with room
    where the link's routers and pair have the smallest share after it, the first on ties;
    where no trunk with room keeps them within their limits, the group takes one more trunk of
    its smallest picked size (priced at its stock lengths, the panels follow in ``build``).

    Returns (the trunks of each group, each link's trunk within its group, figures): the
    largest router and group-pair share on one trunk and the cables over the limits, dealt and
    as the plain fill would have put them on the same trunks (``without``), the trunks and
    positions added and their dollars; for ``build``: ``carried`` (links per trunk of each
    group), ``cables``, ``plain_trunk`` (each link's trunk in the plain fill), ``plain_chain``
    and ``plain_carried`` (the plain path's chains: each link's, and links per trunk of each
    group) and ``hall_added`` (the trunks, positions and dollars added between two hall
    entries' LC cassettes, ``via_entry``: those hall trunks are dealt here link by link).
    A cross-hall chain's two row trunks carry the same links; the hall trunks between
    pass-through entry panels carry whole chains (``deal_hall_spread``)."""
    _, r_most, _, _, p_most = spread.limits()
    cable = link["cable"].to_numpy(np.int64)
    ra, rb, rp = spread.owners(cable)
    bounds = np.r_[0, np.cumsum(np.bincount(link["group"].to_numpy(np.int64),
                                            minlength=len(groups)))]
    out, within, plain = {}, np.zeros(len(link), np.int64), np.zeros(len(link), np.int64)
    carried, added, positions, dollars = [], 0, 0, 0.0
    plain_carried, hall = [], [0, 0, 0.0]       # hall: trunks, positions, dollars added
    for g, grp in enumerate(groups):
        trunks = list(picked[g])
        lo, hi = int(bounds[g]), int(bounds[g + 1])
        ends = np.cumsum([legs for _, legs in trunks])
        plain[lo:hi] = np.searchsorted(ends, np.arange(hi - lo), side="right")
        plain_carried.append(np.bincount(plain[lo:hi], minlength=len(trunks)).tolist())
        load = [0] * len(trunks)
        count: dict = {}
        for i in range(lo, hi):
            owners = [(("r", int(r)), int(r_most[r])) for r in (ra[i], rb[i]) if r >= 0]
            if rp[i] >= 0:
                owners.append((("p", int(rp[i])), int(p_most[rp[i]])))
            best, best_key = -1, None
            for t, (_, legs) in enumerate(trunks):
                if load[t] >= legs:
                    continue
                fill = [(count.get((t, o), 0) + 1) / most for o, most in owners]
                if any(f > 1 + 1e-12 for f in fill):
                    continue
                key = max(fill, default=0.0)
                if best < 0 or key < best_key - 1e-12:
                    best, best_key = t, key
            if best < 0:                      # one more trunk of the group's smallest size
                part, legs = min(trunks, key=lambda tr: (tr[1], tr[0]))
                trunks.append((part, legs))
                load.append(0)
                best = len(trunks) - 1
                added += 1
                positions += legs
                dollars += float(catalog.cables[part].price(
                    _stock(catalog, part, grp.lo_m + 2 * grp.drop)))
                if bool(grp.cross_hall):
                    dollars += float(catalog.cables[part].price(
                        _stock(catalog, part, grp.hi_m + 2 * grp.drop)))
                if int(grp.lo) <= -2:           # via_entry: a hall trunk between entries
                    hall[0] += 1
                    hall[1] += legs
                    hall[2] += float(catalog.cables[part].price(
                        _stock(catalog, part, grp.lo_m + 2 * grp.drop)))
            load[best] += 1
            for o, _ in owners:
                count[(best, o)] = count.get((best, o), 0) + 1
            within[i] = best
        out[g] = tuple(trunks)
        carried.append(load)
    base = np.r_[0, np.cumsum([len(out[g]) for g in range(len(groups))])][:-1]
    gid = link["group"].to_numpy(np.int64)

    def figures(local):
        return _share_figures(base[gid] + local, (ra, rb, rp), spread)

    dealt = {"share": float(spread.share), "with": figures(within), "without": figures(plain),
             "trunks_added": added, "positions_added": positions,
             "trunk_dollars_added": round(dollars, 2), "carried": carried,
             "cables": cable, "plain_trunk": base[gid] + plain,
             "plain_chain": np.r_[0, np.cumsum([len(c) for c in plain_carried])][:-1][gid]
             + plain, "plain_carried": plain_carried, "hall_added": tuple(hall)}
    return out, within, dealt


def deal_hall_spread(chains: pd.DataFrame, link: pd.DataFrame, dealt: dict,
                     spread: SpreadDealing, catalog: Catalog, spare_pct: float
                     ) -> tuple[pd.DataFrame, dict]:
    """The hall trunks under ``--spread-risk`` (``_hall_trunks``' table) and ``dealt`` with
    their figures (``hall``; ``plain_hall``: per link of ``dealt["cables"]`` its hall trunk in
    the plain plan, -1: none).

    Between pass-through entry panels a hall trunk carries whole row trunks (chains), already
    dealt (``deal_spread``), so no chain alone is over a limit. Per pair of halls (entry panel,
    priced part) the chains, largest first as ``_hall_trunks`` takes them, each go to the hall
    trunk with room where the chain's routers and group pairs have the smallest share after it
    (``SpreadDealing.limits``), the first on ties, or to a new hall trunk where none keeps them
    within their limits; each trunk is then sized as ``_hall_trunks`` sizes it (``_pack_hall``
    packs both). Hall trunks between LC cassette entries (``via_entry``) are dealt link by
    link in ``deal_spread``. ``hall`` gives, over both kinds, the largest router and
    group-pair share on one hall trunk and the cables over the limits, ``with`` and
    ``without`` (the plain plan: the plain fill's row trunks packed first-fit decreasing), and
    the hall trunks, positions and dollars added (``trunks_added``, ``positions_added``,
    ``trunk_dollars_added``)."""
    _, r_most, _, _, p_most = spread.limits()
    cable = link["cable"].to_numpy(np.int64)
    ra, rb, rp = spread.owners(cable)
    chain = link["chain"].to_numpy(np.int64)
    counts: dict = {}
    cross = link["cross_hall"].to_numpy(bool)
    for c, owners in zip(chain[cross].tolist(), zip(ra[cross].tolist(), rb[cross].tolist(),
                                                    rp[cross].tolist())):
        mine = counts.setdefault(c, {})
        for kind, o in zip("rrp", owners):
            if o >= 0:
                mine[(kind, o)] = mine.get((kind, o), 0) + 1
    most = {("r", r): int(m) for r, m in enumerate(r_most.tolist())}
    most.update({("p", q): int(m) for q, m in enumerate(p_most.tolist())})
    shared, hall_of = _pack_hall(chains, catalog, spare_pct, counts, most)
    plain_chains = _plain_chains(link, dealt["plain_carried"], catalog)
    plain_shared, plain_hall_of = _pack_hall(plain_chains, catalog, spare_pct)
    plain_chain = pd.Series(dealt["plain_chain"], index=dealt["cables"]).reindex(cable)
    plain_chain = plain_chain.to_numpy(np.int64)
    via = (link["lo"].to_numpy(np.int64) <= -2)                 # LC cassettes: dealt links

    def trunk_of_link(chain_of: np.ndarray, hall_of: dict, n_chains: int):
        """(per link its hall trunk, -1: none; its trunk among the chains' trunks then the
        hall trunks, numbered after the ``n_chains`` chains)."""
        through = np.array([hall_of.get(c, -1) for c in chain_of.tolist()], np.int64)
        return through, np.where(via, chain_of, np.where(through >= 0, n_chains + through, -1))

    _, on = trunk_of_link(chain, hall_of, len(chains))
    plain_through, plain_on = trunk_of_link(plain_chain, plain_hall_of, len(plain_chains))
    dealt = dict(dealt)
    dealt["plain_hall"] = pd.Series(plain_through, index=cable).reindex(
        dealt["cables"]).to_numpy(np.int64)
    if not (on >= 0).any():
        return shared, dealt

    def plant(table):
        return (len(table), int(table["legs"].sum()) if len(table) else 0,
                sum(float(catalog.cables[int(k)].price(m))
                    for k, m in zip(table["part"], table["hall_order"])))
    lc = dealt.get("hall_added", (0, 0, 0.0))
    mine, theirs = plant(shared), plant(plain_shared)
    dealt["hall"] = {"with": _share_figures(on, (ra, rb, rp), spread),
                     "without": _share_figures(plain_on, (ra, rb, rp), spread),
                     "trunks_added": int(lc[0] + mine[0] - theirs[0]),
                     "positions_added": int(lc[1] + mine[1] - theirs[1]),
                     "trunk_dollars_added": round(float(lc[2] + mine[2] - theirs[2]), 2)}
    return shared, dealt


def _plain_chains(link: pd.DataFrame, plain_carried: list, catalog: Catalog) -> pd.DataFrame:
    """The chains of the plain path (``deal_spread``'s ``plain_carried``: links per trunk of
    each group), with the columns ``_pack_hall`` reads, numbered as ``plain_chain``."""
    first = link.groupby("group", sort=True).first()
    rows = []
    for grp, carried in zip(first.itertuples(index=False), plain_carried):
        hall = bool(grp.cross_hall)
        for links in carried:
            rows.append(dict(chain=len(rows), cross_hall=hall, lo_hall=int(grp.lo_hall),
                             hi_hall=int(grp.hi_hall), priced=int(grp.trunk_part),
                             panel_part=int(grp.panel_part),
                             entry_part=entry_panel(catalog, int(grp.panel_part)) if hall
                             else -1, hall_m=float(grp.hall_m), drop=float(grp.drop),
                             links=int(links)))
    return pd.DataFrame(rows, columns=["chain", "cross_hall", "lo_hall", "hi_hall", "priced",
                                       "panel_part", "entry_part", "hall_m", "drop", "links"])


def _improve(picked: dict, options: list, ends: list, order: list, catalog: Catalog,
             passes: int = 3) -> dict:
    """Local search on a choice of trunks per group (``_pack``): each group in turn takes
    the candidate that costs least given every other group's trunks (its trunk dollars and
    the change in the panels at its panel points, ``_Panels``), keeping its own on a tie, until
    a pass changes nothing (at most ``passes``). Each step lowers the plan's trunk and panel
    dollars or keeps them."""
    panels = _Panels(catalog)
    for g in order:
        panels.add(ends[g], picked[g], 1)
    for _ in range(passes):
        changed = False
        for g in order:
            mine = picked[g]
            panels.add(ends[g], mine, -1)
            best = min(options[g], key=lambda cand: (
                round(cand[0] + panels.delta(ends[g], cand[1]), 6), cand[1] != mine,
                len(cand[1]), cand[1]))[1]
            panels.add(ends[g], best, 1)
            changed |= best != mine
            picked[g] = best
        if not changed:
            break
    return picked


class _Panels:
    """Adapters the trunks take at each panel point (``_improve``): trunks of every size share
    a point's panels, so it buys ``ceil(adapters / ports)`` of them."""

    def __init__(self, catalog: Catalog):
        self.ports = [p.ports for p in catalog.panels]
        self.price = [p.price for p in catalog.panels]
        self.count: dict[tuple, int] = {}

    def add(self, ends: list[tuple], trunks: tuple, sign: int) -> None:
        legs = sum(size for _, size in trunks)
        for end in ends:
            self.count[end] = self.count.get(end, 0) + sign * legs

    def delta(self, ends: list[tuple], trunks: tuple) -> float:
        """Dollars of the panels that adding ``trunks`` at ``ends`` buys."""
        legs = sum(size for _, size in trunks)
        total = 0.0
        for end in ends:
            per, have = self.ports[end[2]], self.count.get(end, 0)
            total += (-(-(have + legs) // per) - -(-have // per)) * self.price[end[2]]
        return total


class _Slots:
    """Free adapters of the last panel at each panel point, as groups take trunks
    (``_pack``); ``cost`` prices the new panels a choice of trunks would buy."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.free: dict[tuple, int] = {}

    def _new(self, end: tuple, legs: int) -> tuple[int, int]:
        """(panels bought, adapters then free) for trunks of ``legs`` legs in all at ``end``."""
        per = self.catalog.panels[end[2]].ports
        free = self.free.get(end, 0)
        if legs <= free:
            return 0, free - legs
        bought = -(-(legs - free) // per)
        return bought, bought * per - (legs - free)

    def cost(self, ends: list[tuple], trunks: tuple) -> float:
        legs = sum(size for _, size in trunks)
        return sum(self._new(end, legs)[0] * self.catalog.panels[end[2]].price for end in ends)

    def take(self, ends: list[tuple], trunks: tuple) -> float:
        """Install ``trunks`` at ``ends``: the dollars of the panels bought."""
        legs = sum(size for _, size in trunks)
        spent = 0.0
        for end in ends:
            bought, self.free[end] = self._new(end, legs)
            spent += bought * self.catalog.panels[end[2]].price
        return spent


def engineering(plant: StructuredPlan, catalog: Catalog, pieces: Runs) -> dict:
    """How well the plant is used and what it costs, for summary.json: ``trunk_fill`` (links
    carried over the links the trunks could carry), ``trunk_spare_share`` (the rest: spare for
    growth and the rounding up to trunk sizes), ``panel_ports`` installed and
    ``panel_port_use`` (front ports carrying a link over those installed), and ``dollars``: the
    cords, trunks, panels and patch racks of structured cabling against ``point_to_point``, the
    same links each on one patch cord of its fibre along the same route (the cheapest that
    reaches, at its stock length; the transceivers are the same both ways and left out)."""
    trunks, links = plant.trunks, plant.links
    capacity = int(trunks["capacity"].sum()) if len(trunks) else 0
    carried = int(trunks["links"].sum()) if len(trunks) else 0
    ports = np.array([p.ports for p in catalog.panels], dtype=np.int64)
    installed = int(ports[plant.panels["part"].to_numpy(np.int64)].sum()) if len(
        plant.panels) else 0
    used = 2 * len(links) + 2 * int((links["a_entry"] != "").sum()) if len(links) else 0
    cords = trunk_cost = 0.0
    for end in ("a", "b"):
        for i, rows in links.groupby("cord", sort=True).indices.items():
            order = links[f"cord_{end}_order_m"].to_numpy(float)[rows]
            cords += float(np.sum(catalog.cables[int(i)].price(order)))
    for i, rows in trunks.groupby("part", sort=True).indices.items():
        order = trunks["order_length_m"].to_numpy(float)[rows]
        trunk_cost += float(np.sum(catalog.cables[int(i)].price(order)))
    panel_cost = float(sum(catalog.panels[int(i)].price for i in plant.panels["part"]))
    rack_cost = len(plant.racks) * sum(h.price for h in catalog.rack_hardware
                                       if h.per == "patch_rack")
    direct, unreached = _point_to_point(catalog, links, pieces)
    total = cords + trunk_cost + panel_cost + rack_cost
    return {"trunk_fill": round(carried / capacity, 4) if capacity else None,
            "trunk_link_capacity": capacity,
            "trunk_spare_share": round(1 - carried / capacity, 4) if capacity else None,
            "hall_trunks": int((trunks["kind"] == "hall").sum()) if len(trunks) else 0,
            "panel_ports": installed,
            "panel_port_use": round(used / installed, 4) if installed else None,
            "dollars": {"cords": round(cords, 2), "trunks": round(trunk_cost, 2),
                        "panels": round(panel_cost, 2), "patch_racks": round(rack_cost, 2),
                        "structured": round(total, 2), "point_to_point": round(direct, 2),
                        "point_to_point_unreached": unreached,
                        "saved": round(direct - total, 2)}}


def _point_to_point(catalog: Catalog, links: pd.DataFrame, pieces: Runs) -> tuple[float, int]:
    """(dollars, links no cord reaches) of the structured links cabled point to point: each on
    the cheapest ``fibre`` part of its cord's fibre whose stock covers its route."""
    if links.empty:
        return 0.0, 0
    c = links["cable"].to_numpy(np.int64)
    route = (pieces.cord_a[c] + pieces.trunk_a[c] + pieces.hall[c] + pieces.trunk_b[c]
             + pieces.cord_b[c])
    fibre = np.array([catalog.cables[int(i)].fibre for i in links["cord"]], dtype=object)
    best = np.full(len(c), np.inf)
    for model in catalog.cables:
        if model.kind != "fibre":
            continue
        at = fibre == model.fibre
        if not at.any():
            continue
        order = np.asarray(model.order_length(route[at]), dtype=float)
        fits = np.isfinite(order) & (route[at] <= model.max_reach_m + 1e-9)
        price = np.where(fits, model.price(np.nan_to_num(order)), np.inf)
        best[at] = np.minimum(best[at], price)
    found = np.isfinite(best)
    return float(best[found].sum()), int((~found).sum())


def _stock(catalog: Catalog, part: int, metres: float) -> float:
    """Stock length a trunk part orders for ``metres``."""
    return catalog.cables[part].order_length(float(metres))


def _candidates(catalog: Catalog, trunk: int, panel: int, entry: int,
                pieces: dict[str, float], need: int) -> list[tuple[float, tuple]]:
    """(trunk dollars, ((part, links), ...) largest first) of the least-cost packing of
    ``need`` positions with each non-empty subset of the trunk sizes that stand in for
    ``trunk``, all sizes first (``trunk_sizes``; a size must fit the row and entry panels):
    each size priced at its pieces' stock lengths plus the panel adapters it takes at the
    panels it passes, so the subset's packing (``pack``) is its cheapest; ``_pack`` adds the
    panels it buys."""
    options = []
    for k in trunk_sizes(catalog, trunk, pieces):
        legs = catalog.links_per_trunk(catalog.cables[k])
        if any(catalog.panels[p].ports < legs for p in (panel, entry) if p >= 0):
            continue
        model = catalog.cables[k]
        price = sum(float(model.price(_stock(catalog, k, m))) for m in pieces.values())
        adapters = ROW_PASSES * panel_share(catalog, panel, k)
        if entry >= 0:
            adapters += (HALL_PASSES - ROW_PASSES) * panel_share(catalog, entry, k)
        options.append((k, legs, price, adapters))
    out = {}
    for size in range(len(options), 0, -1):
        for subset in itertools.combinations(options, size):
            picked = pack(need, [(legs, price + legs * adapters)
                                 for _, legs, price, adapters in subset])
            trunks = tuple((subset[i][0], subset[i][1]) for i in picked)
            out.setdefault(trunks, sum(subset[i][2] for i in picked))
    return [(dollars, trunks) for trunks, dollars in out.items()]


def _racks(room: Room, panels: pd.DataFrame, height: int) -> pd.DataFrame:
    """One row per patch rack (``StructuredPlan.racks``) from its panels, whose ``point`` is
    the code of the panel point (a row's, or a hall's entry: an entry rack)."""
    columns = ["name", "point", "kind", "hall", "row", "tray", "panels", "ru_used", "height_ru",
               "x_m", "y_m"]
    if panels.empty:
        return pd.DataFrame(columns=columns)
    racks = (panels.groupby("rack", sort=False)
             .agg(point=("point_name", "first"), code=("point", "first"),
                  panels=("name", "size"), ru_used=("units", "sum"))
             .reset_index().rename(columns={"rack": "name"}))
    racks["hall"], racks["row"], racks["tray"] = point_parts(room, racks["code"].to_numpy(
        np.int64))
    racks["kind"] = np.where(racks["row"] < 0, "entry", "row").astype(object)
    racks["height_ru"] = height
    at = rack_positions(room, racks["kind"], racks["hall"], racks["row"], racks["tray"],
                        racks.groupby(["kind", "code"], sort=False).cumcount())
    racks["x_m"], racks["y_m"] = at["x_m"].to_numpy(), at["y_m"].to_numpy()
    return racks[columns]


def leg_links(catalog: Catalog, panel_part: int, trunk_part: int) -> int:
    """Links one trunk leg carries, the unit a hall-entry panel passes: 1 where cords land on
    MPO panels (an MPO-12 leg per link); on a cassette fibre (LC front, MPO rear), the links of
    its smallest trunk, which is one leg (an MPO-24 leg of 12 duplex links)."""
    panel = catalog.panels[panel_part]
    if panel.rear_type == panel.connector:
        return 1
    fibre = catalog.cables[trunk_part].fibre
    return min(catalog.links_per_trunk(m) for m in catalog.cables
               if m.kind == "trunk" and m.fibre == fibre)


_SHARED = ["hall", "part", "legs", "links", "lo_hall", "hi_hall", "entry_part", "hall_m",
           "hall_order", "members", "kept"]


def _hall_trunks(chains: pd.DataFrame, catalog: Catalog, spare_pct: float) -> pd.DataFrame:
    """The hall trunks without ``--spread-risk``: ``_pack_hall``'s table, each row trunk on
    the first hall trunk with room."""
    return _pack_hall(chains, catalog, spare_pct)[0]


def _pack_hall(chains: pd.DataFrame, catalog: Catalog, spare_pct: float,
               counts: dict | None = None, most: dict | None = None
               ) -> tuple[pd.DataFrame, dict]:
    """(the hall trunks between each two halls' entry racks, the hall trunk of each cross-hall
    chain), shared by every pair of row panels between them: one row per trunk (``hall`` its
    number, ``part``, ``legs``, ``links``, the halls, the entry panel part, lengths,
    ``members``: (chain, first position, positions) of the row trunks whose legs it carries,
    at both entries alike, and ``kept``: a standing hall trunk of a grown plan).

    At an entry a row trunk's legs land on the front of a pass-through panel and the hall
    trunk's legs leave from the rear of the same adapters (``_entry_panels``), so a hall trunk
    carries the links of whole row trunks of any pairs of panels of its two halls. Per pair of
    halls (and entry panel and priced trunk part) the row trunks, each taking its links
    rounded up to whole legs (``leg_links``), are bin-packed first-fit decreasing into trunks
    of the largest size that stands in for the priced trunk at the hall length
    (``trunk_sizes``; Johnson et al., "Worst-case performance bounds for simple
    one-dimensional packing algorithms", SIAM J. Comput. 3(4), 1974: at most 11/9 OPT + 4
    trunks); each trunk is then the cheapest size holding its positions plus the floor's
    ``structured_spare_pct`` (rounded up, within the largest size).

    With ``counts`` (per chain, its cables of each owner) and ``most`` (per owner, its limit;
    ``deal_hall_spread``) each row trunk goes to the trunk with room where its owners have the
    smallest share after it, the first on ties, or to a new trunk where none keeps them within
    ``most``; without, every share is 0 and that is first fit.

    In a grown plan the standing hall trunks (``_standing_bins``) come first, each with its
    standing chains on their standing positions (``kept``); the other row trunks fill their
    spare positions first, where that renumbers no standing front port."""
    counts = counts or {}
    hall = chains[chains["cross_hall"].to_numpy(bool)]
    rows, hall_of = [], {}
    last = _last_hall_trunks(hall)
    for _, block in hall.groupby(["lo_hall", "hi_hall", "entry_part", "priced"], sort=True):
        first = block.iloc[0]
        metres = float(first["hall_m"]) + 2.0 * float(first["drop"])
        entry = int(first.entry_part)
        unit = leg_links(catalog, int(first.panel_part), int(first.priced))
        sizes = sorted((catalog.links_per_trunk(catalog.cables[k]),
                        float(catalog.cables[k].price(_stock(catalog, k, metres))), k)
                       for k in trunk_sizes(catalog, int(first.priced), {"hall": metres})
                       if catalog.links_per_trunk(catalog.cables[k])
                       <= catalog.panels[entry].ports)
        top = sizes[-1][0]
        standing, placed = _standing_bins(block, catalog, sizes, metres, last)
        bins = [b + [_owned(counts, [chain for chain, _, _ in b[1]])] for b in standing]
        items = [(-(-max(int(c.links), 1) // unit) * unit, int(c.chain), int(c.links))
                 for c in block.itertuples(index=False) if int(c.chain) not in placed]
        for size, chain, links in sorted(items, key=lambda it: (-it[0], it[1])):
            mine = counts.get(chain, {})
            home = _hall_bin(bins, size, top, mine, most)
            if home is None:
                home = [0, [], 0, None, {}]     # [fill, members, links, fixed, owned]
                bins.append(home)
            home[1].append((chain, home[0] + 1, size))
            home[0] += size
            home[2] += links
            for o, k in mine.items():
                home[4][o] = home[4].get(o, 0) + k
        for fill, members, links, fixed, _ in bins:
            if fixed is None:
                want = min(top, max(fill, int(np.ceil(np.round(fill * (1 + spare_pct / 100),
                                                               9)))))
                legs, _, part = min((sz for sz in sizes if sz[0] >= want),
                                    key=lambda sz: (sz[1], sz[0], sz[2]))
            else:
                part, legs, _ = fixed
            hall_of.update({chain: len(rows) for chain, _, _ in members})
            rows.append(dict(hall=len(rows), part=part, legs=legs, links=links,
                             lo_hall=int(first.lo_hall), hi_hall=int(first.hi_hall),
                             entry_part=entry, hall_m=float(first.hall_m),
                             hall_order=_stock(catalog, part, metres), members=members,
                             kept=fixed is not None))
    return pd.DataFrame(rows, columns=_SHARED), hall_of


def _owned(counts: dict, members: list) -> dict:
    """Per owner, the cables of ``members`` (chains) it has (``counts``: per chain, per owner)."""
    owned: dict = {}
    for chain in members:
        for o, k in counts.get(chain, {}).items():
            owned[o] = owned.get(o, 0) + k
    return owned


def _hall_bin(bins: list, size: int, top: int, mine: dict, most: dict | None) -> list | None:
    """The hall trunk of ``bins`` (``_pack_hall``) a row trunk of ``size`` positions and
    ``mine`` cables per owner goes on, None: a new one. A new hall trunk holds ``top``
    positions; a standing one (``fixed``: part, legs, last) its legs, and only where it is the
    last at its entry panels or the row trunk fills its spare exactly, so no standing front
    port is renumbered. Of those with room, the one where ``mine`` has the smallest share of
    ``most`` after it, none over 1, the first on ties."""
    home, home_key = None, None
    for b in bins:
        fill, fixed = b[0], b[3]
        if not (fill + size <= (top if fixed is None else fixed[1])
                and (fixed is None or fixed[2] or fill < fixed[1] == fill + size)):
            continue
        after = [(b[4].get(o, 0) + k) / most[o] for o, k in mine.items()]
        if any(f > 1 + 1e-12 for f in after):
            continue
        key = max(after, default=0.0)
        if home is None or key < home_key - 1e-12:
            home, home_key = b, key
    return home


def _last_hall_trunks(chains: pd.DataFrame) -> set:
    """The standing hall trunks (label, part number) that are the last rear port of their
    entry panel at both ends (``StandingSeats.chains``' ``hall_ends``): a new front port on
    their spare positions renumbers no standing front port after them."""
    if "standing" not in chains:
        return set()
    ends = {}
    for pin in chains["standing"].tolist():
        if pin is not None and len(pin) > 2:
            ends[pin[2]["hall"]] = pin[2]["hall_ends"]
    top: dict = {}
    for pair in ends.values():
        for panel, rear in pair:
            top[panel] = max(top.get(panel, 0), rear)
    return {hall for hall, pair in ends.items() if all(top[p] == r for p, r in pair)}


def _standing_bins(block: pd.DataFrame, catalog: Catalog, sizes: list, metres: float,
                   last: set) -> tuple[list, set]:
    """(bins, chains placed) for ``_pack_hall``: each standing hall trunk of the standing
    chains of ``block`` (``_standing_chains``) that a size of the block still is (same part
    number at the hall stock length), in the standing order of its entry rear ports, with
    those chains on it in their standing front port order: ``[fill, members, links, (part,
    legs, last)]``, ``last`` when it may take new front ports on its spare positions
    (``_last_hall_trunks``; else only one that fills the spare exactly, so no standing front
    port is renumbered)."""
    if "standing" not in block:
        return [], set()
    part_of = {}
    for legs, _, k in sizes:
        part_of[str(catalog.cables[k].part_numbers_at(
            np.asarray([_stock(catalog, k, metres)]))[0])] = (k, legs)
    halls: dict = {}
    for c in block.itertuples(index=False):
        pin = c.standing
        if pin is None or len(pin) <= 2 or pin[2]["hall"][1] not in part_of:
            continue
        halls.setdefault(pin[2]["hall"], (pin[2]["hall_ends"], []))[1].append(
            (pin[2]["lo_front"], int(c.chain), int(pin[2]["size"]), int(c.links)))
    bins, placed = [], set()
    for hall, (ends, members) in sorted(halls.items(), key=lambda h: h[1][0]):
        part, legs = part_of[hall[1]]
        fill, on, links = 0, [], 0
        for _, chain, size, carried in sorted(members):
            on.append((chain, fill + 1, size))
            fill, links = fill + size, links + carried
            placed.add(chain)
        if fill > legs:                      # no longer fits: laid out afresh
            placed -= {chain for chain, _, _ in on}
            continue
        bins.append([fill, on, links, (part, legs, hall in last)])
    return bins, placed


def _entry_panels(room: Room, shared: pd.DataFrame, catalog: Catalog,
                  first_uid: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(panels, fronts, rears) at the hall entries (``_UNPLACED``, numbered from ``first_uid``):
    per hall and entry panel part, its hall trunks (a grown plan's standing ones, ``kept``,
    first) in order of the far hall, each on the rear of consecutive adapters of one panel
    (rear port ``R<n>``, one position per link it could carry; a new panel where it would not
    fit), the row trunks it carries on the front of the same adapters (front port ``F<n>``,
    one position per link position the row trunk takes), then a free front port on its spare
    positions, if any, for growth. ``fronts`` gives each row trunk end
    (chain, side, panel, port), ``rears`` each hall trunk end (hall, side, panel, port); a
    panel's ``layout`` (``R12F5F7 R12F12``) gives per rear port its positions and the positions
    of the front ports on its first adapters, in port order."""
    layouts, front_rows, rear_rows = [], [], []
    work: dict = {}
    for t, standing in zip(shared.itertuples(index=False), shared["kept"].tolist()):
        for side, here, there in (("lo", t.lo_hall, t.hi_hall), ("hi", t.hi_hall, t.lo_hall)):
            work.setdefault((int(here), int(t.entry_part)), []).append(
                (not standing, int(there), t, side))
    for (here, part), trunks in sorted(work.items()):
        ports = catalog.panels[part].ports
        used, rears, fronts, links = ports, [], [], 0
        for *_, t, side in sorted(trunks, key=lambda w: (w[0], w[1], w[2].hall)):
            if used + t.legs > ports:
                if rears:
                    layouts.append((here, part, rears, fronts, links))
                used, rears, fronts, links = 0, [], [], 0
            sizes = [int(size) for _, _, size in t.members]
            free = int(t.legs) - sum(sizes)
            rears.append((int(t.legs), sizes + ([free] if free else [])))
            at = len(layouts)
            rear_rows.append((int(t.hall), side, at, len(rears)))
            for chain, _, _ in t.members:
                fronts.append(chain)
                front_rows.append((chain, side, at, len(fronts)))
            if free:
                fronts.append(-1)
            used += int(t.legs)
            links += int(t.links)
        if rears:
            layouts.append((here, part, rears, fronts, links))
    panels = pd.DataFrame({
        "uid": first_uid + np.arange(len(layouts), dtype=np.int64),
        "point": entry_point([h for h, *_ in layouts]).astype(np.int64),
        "panel_part": [p for _, p, *_ in layouts], "kind": "entry",
        "rear_ports": [len(r) for _, _, r, _, _ in layouts],
        "legs": np.zeros(len(layouts), np.int64),
        "trunks": [len(r) + len(f) for _, _, r, f, _ in layouts],
        "links": [k for *_, k in layouts],
        "layout": [" ".join(f"R{legs}" + "".join(f"F{k}" for k in sizes) for legs, sizes in r)
                   for _, _, r, _, _ in layouts]})
    panels["point_name"] = point_names(room, panels["point"].to_numpy(np.int64))
    fronts = pd.DataFrame(front_rows, columns=["chain", "side", "at", "port"])
    rears = pd.DataFrame(rear_rows, columns=["hall", "side", "at", "port"])
    fronts["uid"] = first_uid + fronts["at"].to_numpy(np.int64)
    rears["uid"] = first_uid + rears["at"].to_numpy(np.int64)
    return panels[_UNPLACED], fronts, rears


def _trunks(chains: pd.DataFrame, shared: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """One row per trunk: the trunks of the chains in chain order (a cross-row chain's one
    trunk, a ``via_entry`` chain's hall trunk between two entries' cassette panels, a
    cross-hall chain's two: the lo end's, row panel rear to entry panel front, and the hi
    end's, entry panel front to row panel rear), then the shared hall trunks
    (``_hall_trunks``, entry panel rear to rear)."""
    rows = []
    for ch in chains.itertuples(index=False):
        base = dict(chain=ch.chain, hall=-1, part=ch.trunk_part, links=ch.links)
        if not ch.cross_hall:
            rows.append(dict(base, piece="row", kind="hall" if ch.lo <= -2 else "row",
                             length_m=ch.lo_m,
                             order_length_m=ch.lo_order, a_panel=ch.lo_panel,
                             a_port=f"R{ch.lo_rear}", a_port_kind="rear", b_panel=ch.hi_panel,
                             b_port=f"R{ch.hi_rear}", b_port_kind="rear"))
            continue
        rows += [dict(base, piece="lo", kind="row", length_m=ch.lo_m,
                      order_length_m=ch.lo_order, a_panel=ch.lo_panel, a_port=f"R{ch.lo_rear}",
                      a_port_kind="rear", b_panel=ch.lo_entry_panel,
                      b_port=f"F{ch.lo_entry_front}", b_port_kind="front"),
                 dict(base, piece="hi", kind="row", length_m=ch.hi_m,
                      order_length_m=ch.hi_order, a_panel=ch.hi_entry_panel,
                      a_port=f"F{ch.hi_entry_front}", a_port_kind="front", b_panel=ch.hi_panel,
                      b_port=f"R{ch.hi_rear}", b_port_kind="rear")]
    for t in shared.itertuples(index=False):
        rows.append(dict(chain=-1, hall=t.hall, part=t.part, links=t.links, piece="hall",
                         kind="hall", length_m=t.hall_m, order_length_m=t.hall_order,
                         a_panel=t.lo_panel, a_port=f"R{t.lo_rear}", a_port_kind="rear",
                         b_panel=t.hi_panel, b_port=f"R{t.hi_rear}", b_port_kind="rear"))
    columns = ["chain", "hall", "piece", "part", "links", "kind", "length_m",
               "order_length_m", "a_panel", "a_port", "a_port_kind", "b_panel", "b_port", "b_port_kind"]
    trunks = pd.DataFrame(rows, columns=columns)
    for name in ("a_port", "b_port"):
        trunks[name] = shared_text.shared(trunks[name])
    width = max(4, len(str(len(trunks))))
    trunks.insert(0, "trunk_id", floors.padded("T", np.arange(1, len(trunks) + 1), width))
    trunks["sku"] = ""
    for i in pd.unique(trunks["part"]).tolist():
        at = (trunks["part"] == i).to_numpy()
        trunks.loc[at, "sku"] = catalog.cables[i].part_numbers_at(
            trunks.loc[at, "order_length_m"].to_numpy(float))
    trunks["label"] = (trunks["a_panel"] + ":" + trunks["a_port"] + "/" + trunks["b_panel"]
                       + ":" + trunks["b_port"])
    trunks["capacity"] = [catalog.links_per_trunk(catalog.cables[i]) for i in trunks["part"]]
    return trunks


def _links(link: pd.DataFrame, chains: pd.DataFrame, shared: pd.DataFrame, trunks: pd.DataFrame,
           pieces: Runs, parts, catalog: Catalog, cable_ids) -> tuple[pd.DataFrame, np.ndarray]:
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
    width = port_width(catalog)

    def side(lo, hi):
        lo, hi = np.asarray(lo, dtype=object), np.asarray(hi, dtype=object)
        return np.where(flip, hi, lo), np.where(flip, lo, hi)

    front = {s: shared_text.shared(floors.padded("", ch[f"{s}_start"].to_numpy() + pos - 1,
                                                 width)) for s in ("lo", "hi")}
    entry = {s: shared_text.shared(np.where(
        hall, "F" + ch[f"{s}_entry_front"].astype(str).to_numpy(object) + "."
        + pos.astype(str).astype(object), "")) for s in ("lo", "hi")}
    a_panel, b_panel = side(ch["lo_panel"], ch["hi_panel"])
    a_port, b_port = side(front["lo"], front["hi"])
    a_entry, b_entry = side(ch["lo_entry_panel"], ch["hi_entry_panel"])
    a_entry_port, b_entry_port = side(entry["lo"], entry["hi"])
    ids = trunks[trunks["chain"] >= 0].set_index(["chain", "piece"])["trunk_id"]

    def trunk_id(piece):
        keys = pd.MultiIndex.from_arrays([link["chain"].to_numpy(), np.full(len(link), piece)])
        return ids.reindex(keys).fillna("").to_numpy(object)

    row, lo, hi = (trunk_id(p) for p in ("row", "lo", "hi"))
    carrier = {chain: h for h, members in zip(shared["hall"], shared["members"])
               for chain, _, _ in members}
    by_hall = trunks[trunks["chain"] < 0].set_index("hall")["trunk_id"]
    mid = by_hall.reindex(link["chain"].map(carrier).to_numpy()).fillna("").to_numpy(object)
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
        "trunks": shared_text.shared(np.where(hall, t_a + "," + mid + "," + t_b, t_a)),
        "position": pos, "via_entry": link["lo"].to_numpy(np.int64) <= -2})
    order = np.argsort(c, kind="stable")
    return table.iloc[order].reset_index(drop=True), np.asarray(text, dtype=object)[order]
