"""One section per cabinet: its rack elevation (devices by rack unit, U1 at the bottom) with the
cabinet's facts beside it (the pieces and transceiver modules whose ends are in it), then its
cable schedule: one row per connector end of an installed piece in the cabinet
(``planner.cabling.pieces``; a multi-link assembly's twin-port end once, with all its ports),
``piece  device·port -> far end of that piece (with its cabinet and unit, or the panel), label,
part number, ordered m, transceiver, link to``. At a link through patch panels the piece is
the end's own patch cord, its far end the panel and front port it lands on, and ``link to``
the device at the link's other end; a cable between two devices is its own piece (``link to``
empty)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd
from reportlab.pdfgen.canvas import Canvas

from planner.cabling import unit_text
from planner.cabling.pieces import END_FIELDS
from planner.costing.fabric_devices import unit_span
from planner.exports._csv import column_text
from planner.exports.tuning import WIRING_CHUNK_SHEETS
from planner.exports.wiring_pdf.content_stream import fill_rects, text_at, text_column
from planner.exports.wiring_pdf.layout import DeferredTable, Figure, Section, Table
from planner.exports.wiring_pdf.style import FONT, SCHEDULE_LEADING, SCHEDULE_SIZE, SYMBOL

SCHEDULE_HEADERS = ["piece", "this port", "", "far end of the piece", "label", "part number",
                    "order m", "transceiver", "link to"]
SCHEDULE_ALIGN = ["l", "l", "l", "l", "l", "l", "r", "l", "l"]
SCHEDULE_FONTS = [FONT, FONT, SYMBOL, FONT, FONT, FONT, FONT, FONT, FONT]


def far_end(device, port, place, ru, at_panel) -> np.ndarray:
    """Where a piece's far end plugs in: ``r01\u00b75 H1-A02-39`` (a device port, its cabinet and
    unit; ``n0001\u00b71 H1-A02`` without a unit) or ``H1-A-P0-01\u00b737`` (a panel port: the
    panel's name is its patch rack and unit)."""
    unit = unit_text(np.asarray(ru, dtype=float), 1)
    ends = device_port(device, port)
    place = np.asarray(place, dtype=object)
    where = np.where(unit != "", ends + " " + place + "-" + unit, ends + " " + place)
    return np.where(np.asarray(at_panel, bool), ends, where).astype(object)


def device_port(device, port) -> np.ndarray:
    """``r00\u00b712``: a device (or panel) and its port, as every schedule names an end."""
    return np.array(list(map("{}\u00b7{}".format, device, port)), dtype=object)


def link_far_ends(plan, table: pd.DataFrame, rows=None) -> np.ndarray:
    """Per piece (the pieces at ``rows`` of ``table``, default all): for a patch cord, the device
    port at its link's other end with its cabinet (``r56\u00b77 H2-A01``); '' for a cable between
    two devices or a trunk."""
    rows = np.arange(len(table)) if rows is None else np.asarray(rows, dtype=np.int64)
    out = np.full(len(rows), "", dtype=object)
    cords = rows[table["role"].to_numpy()[rows] == "cord"]
    if not cords.size:
        return out
    c = plan.cables
    cable = table["cable"].to_numpy(np.int64)[cords]
    a_side = table["piece_id"].to_numpy(object)[cords].astype(str)
    far = np.where(np.char.endswith(a_side, ".A"), "b", "a")
    text = {e: device_port(c[f"{e}_device"].to_numpy(object)[cable],
                           c[f"{e}_port"].iloc[cable].astype(str).to_numpy(object))
            + " " + c[f"{e}_cabinet"].to_numpy(object)[cable] for e in "ab"}
    out[table["role"].to_numpy()[rows] == "cord"] = np.where(far == "b", text["b"], text["a"])
    return out


def cages(plan, device, port) -> np.ndarray:
    """Per device port: its cage (1-based) on a router whose cages are split (``breakout`` > 1,
    ``planner.inputs.catalog.cages``: port p in cage ``(p - 1) // breakout + 1``); 0 for any
    other device or port."""
    split = int(getattr(plan.router_model, "breakout", 1))
    out = np.zeros(len(device), dtype=np.int64)
    if split <= 1 or not len(device):
        return out
    routers = set(plan.devices.loc[plan.devices["kind"] == "router", "name"].astype(str))
    number = pd.to_numeric(pd.Series(np.asarray(port, dtype=object)), errors="coerce")
    number = number.to_numpy(float)
    ok = (pd.Series(np.asarray(device, dtype=object).astype(str)).isin(routers).to_numpy()
          & ~np.isnan(number))
    out[ok] = (number[ok].astype(np.int64) - 1) // split + 1
    return out


def module_keys(plan, device, port, transceiver) -> np.ndarray:
    """Per device port with a transceiver, the physical module in it: a twin-port module
    (``ports`` > 1 in the catalog) is one per cage, serving its ports (as ``planner.costing.bom``
    buys them); any other module one per port. '' where no transceiver."""
    twin = {m.sku for m in plan.catalog.cables if m.kind == "transceiver" and m.ports > 1}
    device = np.asarray(device, dtype=object).astype(str).astype(object)
    port = np.asarray(port, dtype=object).astype(str).astype(object)
    transceiver = np.asarray(transceiver, dtype=object).astype(str).astype(object)
    cage = cages(plan, device, port)
    shared = pd.Series(transceiver).isin(twin).to_numpy() & (cage > 0)
    where = np.where(shared, "cage " + cage.astype(str).astype(object), port)
    key = (device + "\u00b7" + where + " " + transceiver).astype(object)
    key[transceiver == ""] = ""
    return key


def _connectors(codes: np.ndarray, fields: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per connector (``codes``: 0.. in order of first appearance), each field's values of its
    legs joined by ``+`` in leg order (a twin-port end's ports ``17+18``), empty values left
    out."""
    n = int(codes.max()) + 1 if len(codes) else 0
    first = np.full(n, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    several = np.bincount(codes, minlength=n)[codes] > 1
    out = {}
    for name, values in fields.items():
        text = np.asarray(values, dtype=object)[first].copy()
        if several.any():      # each connector's legs in order: one sort, then a join per run
            legs = pd.Series(np.asarray(values, dtype=object)[several]).astype(str) \
                .to_numpy(object)
            of = codes[several]
            order = np.argsort(of, kind="stable")
            legs, of = legs[order].tolist(), of[order]
            starts = np.flatnonzero(np.r_[True, of[1:] != of[:-1]])
            stops = np.r_[starts[1:], len(of)]
            text[of[starts]] = np.array(["+".join(x for x in legs[a:b] if x)
                                         for a, b in zip(starts.tolist(), stops.tolist())],
                                        dtype=object)
        out[name] = text
    return out


class EndIndex:
    """The rows of ``Pieces.table`` by the place of one end (``a`` or ``b``): one hash of the
    column, then each set of places costs its own rows, not a test of every piece of the plan
    (a hall of a 1M-endpoint plan is 1/75 of it)."""

    def __init__(self, places: pd.Series):
        codes, uniques = pd.factorize(places, use_na_sentinel=True)
        self.names = pd.Index(uniques)
        self.order = np.argsort(codes, kind="stable")
        self.bounds = np.searchsorted(codes[self.order], np.arange(len(uniques) + 1))

    def rows(self, places) -> np.ndarray:
        """The rows whose place is one of ``places``, ascending."""
        codes = self.names.get_indexer(pd.Index(list(places)).unique())
        codes = codes[codes >= 0]
        parts = [self.order[self.bounds[c]:self.bounds[c + 1]] for c in codes.tolist()]
        return np.sort(np.concatenate(parts)) if parts else np.empty(0, dtype=np.int64)


def place_ends(plan, places=None) -> pd.DataFrame:
    """``plan.pieces.ends(places)``: the same frame, its rows found through an ``EndIndex``
    per end, made once per plan (kept in ``Pieces.memo``) instead of testing every piece for
    every chunk of places."""
    pieces = plan.pieces
    if places is None:
        return pieces.ends()
    t = pieces.table
    index = pieces.memo.get("exports:end_index")
    if index is None:
        index = pieces.memo["exports:end_index"] = {e: EndIndex(t[f"{e}_place"]) for e in "ab"}
    both = []
    for this, peer in (("a", "b"), ("b", "a")):
        rows = index[this].rows(places)
        frame = pd.DataFrame({"piece": rows, "end": this.upper()})
        for name in END_FIELDS:
            frame[f"this_{name}"] = t[f"{this}_{name}"].take(rows).to_numpy()
            frame[f"peer_{name}"] = t[f"{peer}_{name}"].take(rows).to_numpy()
        both.append(frame)
    return pd.concat(both, ignore_index=True)


def schedule_rows(plan, places=None, labels: pd.Series | None = None) -> dict[str, np.ndarray]:
    """One row per connector end of a piece at a device (``planner.cabling.pieces``
    ``connector_ends``: a twin-port end of a multi-link assembly once, naming all its ports and
    far ends (a twin-port far end as one device with its ports, ``r01·3+4 A02-39``); a piece with both ends in one cabinet once, from its A end), oriented from that
    end, sorted by cabinet, device, port; the cells as text (``cab_order``: the cabinet's
    position in ``plan.cabinets``). At a split router port ``this port`` names the cage; a
    twin-port transceiver is named on its cage's first row, the next says it is the same
    module. ``places``: the rows of these cabinets only (one hall's); ``labels``: the
    ``Pieces.assembly_labels`` (computed when not given)."""
    pieces = plan.pieces
    t = pieces.table
    ends = place_ends(plan, places)
    piece = ends["piece"].to_numpy(np.int64)
    at_device = ~ends["this_at_panel"].to_numpy(bool)
    same = ((ends["this_place"].to_numpy(object) == ends["peer_place"].to_numpy(object))
            & at_device & ~ends["peer_at_panel"].to_numpy(bool))
    keep = np.flatnonzero(at_device & ~(same & (ends["end"].to_numpy() == "B")))
    e = ends.iloc[keep]
    piece = piece[keep]
    text = {k: np.asarray(column_text(e[k]), dtype=object)
            for k in ("this_place", "this_device", "this_port", "peer_device", "peer_port",
                      "this_transceiver", "peer_place")}
    assembly = t["assembly"].to_numpy(object)[piece]
    side = e["end"].to_numpy(object)
    connector = np.where(e["this_joined"].to_numpy(bool), assembly + "|" + side,
                         t["piece_id"].to_numpy(object)[piece] + "|" + side)
    codes = pd.factorize(connector)[0]
    peer_ru, peer_at_panel = e["peer_ru"].to_numpy(float), e["peer_at_panel"].to_numpy(bool)
    legs = _connectors(codes, {
        "port_text": text["this_port"], "peer_port": text["peer_port"],
        "to": far_end(text["peer_device"], text["peer_port"], text["peer_place"], peer_ru,
                      peer_at_panel),
        "link": link_far_ends(plan, t, piece)})
    at = np.unique(codes, return_index=True)[1]
    one_far = e["peer_joined"].to_numpy(bool)[at]    # the far end is one twin-port connector
    legs["to"] = np.where(one_far, far_end(text["peer_device"][at], legs["peer_port"],
                                           text["peer_place"][at], peer_ru[at],
                                           peer_at_panel[at]), legs["to"]).astype(object)
    piece, device = piece[at], text["this_device"][at]
    label = t["label"].to_numpy(object)[piece]
    multi = assembly[at] != t["piece_id"].to_numpy(object)[piece]
    if multi.any():                    # an assembly's label names all its legs (its labels')
        labels = plan.pieces.assembly_labels() if labels is None else labels
        label[multi] = labels.loc[assembly[at][multi]].to_numpy(object)
    cage = cages(plan, device, text["this_port"][at])
    port = np.where(cage > 0, legs["port_text"] + " (cage " + cage.astype(str).astype(object)
                    + ")", legs["port_text"]).astype(object)
    rows = {"cabinet": text["this_place"][at], "device": device,
            "port_key": pd.to_numeric(pd.Series(text["this_port"][at]),
                                      errors="coerce").to_numpy(float),
            "port_text": legs["port_text"],
            "piece": assembly[at],
            "from": device_port(device, port),
            "to": legs["to"],
            "label": label,
            "media": t["media"].to_numpy(object)[piece],
            "sku": t["sku"].to_numpy(object)[piece],
            "order": unit_text(t["order_length_m"].to_numpy(float)[piece], 1),
            "transceiver": text["this_transceiver"][at],
            "module": module_keys(plan, device, text["this_port"][at],
                                  text["this_transceiver"][at]),
            "link": legs["link"]}
    index = {name: i for i, name in enumerate(plan.cabinets["name"].astype(str))}
    rows["cab_order"] = np.array([index.get(name, len(index)) for name in rows["cabinet"]],
                                 dtype=np.int64)
    codes = {k: pd.factorize(rows[k], sort=True)[0] for k in ("device", "port_text", "piece")}
    keys = (codes["piece"], codes["port_text"], rows["port_key"], codes["device"],
            rows["cab_order"])
    sort = np.lexsort(keys)
    rows = {k: v[sort] for k, v in rows.items()}
    module = rows["module"]
    again = np.r_[False, (module[1:] == module[:-1]) & (module[1:] != "")]
    first_port = np.r_[rows["port_text"][:1], rows["port_text"][:-1]]
    rows["transceiver"] = np.where(again, "same module as \u00b7" + first_port.astype(object),
                                   rows["transceiver"]).astype(object)
    return rows


@dataclass
class Rack:
    """What a cabinet page shows above the schedule (plain values, no pandas per cabinet)."""

    name: str
    info: list[str]
    devices: list[tuple[str, str, str, float, float]]   # name, kind, model, ru, height
    unplaced: list[str]
    by_sku: dict[tuple[str, str], int]
    transceivers: dict[str, int]
    ends: int
    fabric: list[str] = field(default_factory=list)     # the fabric's boxes, one line each


def rack_records(plan, ends: dict[int, int], by_sku: dict[int, dict],
                 transceivers: dict[int, dict]) -> list[Rack]:
    """One ``Rack`` per cabinet, in ``plan.cabinets`` order."""
    from planner.inputs.floor import row_letters

    cab = plan.cabinets.reset_index(drop=True)
    names = cab["name"].astype(str).tolist()
    index = {n: i for i, n in enumerate(names)}
    placed: list[list] = [[] for _ in names]
    unplaced: list[list] = [[] for _ in names]
    dev = plan.devices
    ru = pd.to_numeric(dev["ru"], errors="coerce").to_numpy(float)
    height = np.maximum(pd.to_numeric(dev["height_ru"], errors="coerce").fillna(1.0)
                        .to_numpy(float), 1.0)
    text = [column_text(dev[k]) for k in ("name", "kind", "model", "cabinet")]
    for name, kind, model, cabinet, u, h in zip(*text, ru.tolist(), height.tolist()):
        i = index.get(cabinet)
        if i is None:
            continue
        if u != u:                                   # NaN: no rack unit
            unplaced[i].append(name)
        else:
            placed[i].append((name, kind, model, u, h))
    fabric = _fabric_boxes(plan, index, placed)
    racks = []
    several_halls = "hall" in cab and len(cab) and int(cab["hall"].max()) > 0
    for i, rec in enumerate(cab.to_dict("records")):
        hall = f"hall H{int(rec['hall']) + 1}, " if several_halls else ""
        info = [f"{hall}row {row_letters(rec['row'])}, column {int(rec['col']) + 1}, "
                f"electrical group g{int(rec['group'])}",
                f"position x {float(rec['x_m']):.2f} m, y {float(rec['y_m']):.2f} m",
                f"{int(rec['routers'])} routers, {int(rec['endpoints'])} endpoints"
                + (f", {float(rec['kw']):.2f} kW" if "kw" in rec else ""),
                f"{ends.get(i, 0)} device ports cabled in this cabinet"]
        racks.append(Rack(names[i], info, placed[i], unplaced[i], by_sku.get(i, {}),
                          transceivers.get(i, {}), ends.get(i, 0), fabric[i]))
    return racks


def _fabric_boxes(plan, index: dict[str, int], placed: list[list]) -> list[list[str]]:
    """Per cabinet the lines of the fabric's boxes (``planner.costing.fabric_devices``): name,
    part number and rack unit (``0U`` and its feed for a PDU), top first; each box with a unit
    also drawn in the elevation (``placed``)."""
    lines: list[list[str]] = [[] for _ in index]
    boxes = getattr(plan, "fabric", None)
    if boxes is None:
        return lines
    ordered = boxes.ordered            # one pass over the boxes, cabinet by cabinet
    for cabinet, name, kind, sku, ru, height, feed in zip(
            *(ordered[k].tolist() for k in ("cabinet", "name", "kind", "sku", "ru",
                                            "height_ru", "feed"))):
        i = index.get(cabinet)
        if i is None:
            continue
        if ru == ru:
            units = unit_span(ru, height)
            placed[i].append((name, kind, sku, float(ru), float(height)))
        else:
            units = f"0U, feed {feed}" if feed else "0U"
        lines[i].append(f"{name}  {sku}  {units}")
    return lines


def elevation_figure(rack: Rack, cabinet_height_ru: int) -> Figure:
    """Rack elevation (U1 at the bottom) with the cabinet facts to its right."""
    top_used = max([int(math.ceil(u + h - 1)) for _, _, _, u, h in rack.devices], default=0)
    height_ru = max(int(cabinet_height_ru), top_used)
    unit = min(9.0, 380.0 / height_ru)
    fig_h = unit * height_ru + 24.0

    def draw(canvas: Canvas, x: float, y: float, width: float) -> None:
        rack_w = 150.0
        rx = x + 22.0
        bottom = y - 12.0 - unit * height_ru
        fill_rects(canvas, [(rx, bottom, rack_w, unit * height_ru)], (0.97, 0.97, 0.97), True)
        step = 1 if unit >= 7 else 5
        text_at(canvas, FONT, min(6.5, unit * 0.72),
                [(x + 2.0, bottom + (u - 1) * unit + unit * 0.25, f"U{u}")
                 for u in range(1, height_ru + 1) if u % step == 0 or u == 1])
        boxes: dict[str, list] = {"router": [], "endpoint": []}
        texts = []
        size = min(7.0, unit * 0.78)
        for name, kind, model, ru, h in rack.devices:
            yy = bottom + (ru - 1) * unit
            boxes["router" if kind == "router" else "endpoint"].append(
                (rx + 2, yy + 0.4, rack_w - 4, max(h * unit - 0.8, 0.5)))
            texts.append((rx + 5, yy + (h * unit - size) / 2 + 0.8,
                          f"{name}  {model}  U{ru:g}" + (f"-{ru + h - 1:g}" if h > 1 else "")))
        fill_rects(canvas, boxes["router"], (0.60, 0.75, 0.93), True)
        fill_rects(canvas, boxes["endpoint"], (0.86, 0.86, 0.86), True)
        text_at(canvas, FONT, size, texts)
        lines = list(rack.info)
        if height_ru > cabinet_height_ru:
            lines.append(f"abstract rack: devices up to U{height_ru} "
                         f"(cabinet height {cabinet_height_ru}U)")
        if rack.unplaced:
            lines.append(f"{len(rack.unplaced)} devices without rack unit: "
                         f"{rack.unplaced[0]} .. {rack.unplaced[-1]}")
        if rack.fabric:
            lines.append("fabric devices (management, subnet manager, power):")
        lines += [f"  {text}" for text in rack.fabric]
        if rack.by_sku:
            lines.append("pieces with an end here:")
        lines += [f"{k:>5} x {sku} ({media})" for (media, sku), k in sorted(rack.by_sku.items())]
        if rack.transceivers:
            lines.append("transceivers here:")
        lines += [f"{k:>5} x {sku}" for sku, k in sorted(rack.transceivers.items())]
        text_column(canvas, FONT, 8.0, rx + rack_w + 24.0, y - 14.0, 11.0, lines)
    return Figure(fig_h, draw)


def _counts(plan) -> tuple[dict[int, int], dict[int, dict], dict[int, dict]]:
    """Per cabinet (its position in ``plan.cabinets``): the device ports cabled in it, the
    pieces with at least one end in it by (media, part number), each piece once (a multi-link
    assembly once), and the transceiver modules at its device ports by part number (a
    twin-port module once per cage, ``module_keys``)."""
    t = plan.pieces.table
    index = pd.Series(np.arange(len(plan.cabinets)), index=plan.cabinets["name"].astype(str))
    ends = []
    for end in "ab":
        at = np.flatnonzero(~t[f"{end}_at_panel"].to_numpy(bool))
        ends.append(pd.DataFrame({
            "piece": t["assembly"].to_numpy(object)[at],
            "cab": t[f"{end}_place"].iloc[at].map(index).to_numpy(float),
            "media": t["media"].to_numpy(object)[at], "sku": t["sku"].to_numpy(object)[at],
            "optic": t[f"{end}_transceiver"].to_numpy(object)[at],
            "module": module_keys(plan, t[f"{end}_device"].to_numpy(object)[at],
                                  t[f"{end}_port"].to_numpy(object)[at],
                                  t[f"{end}_transceiver"].fillna("").to_numpy(object)[at])}))
    ends = pd.concat(ends, ignore_index=True).dropna(subset=["cab"])
    ends["cab"] = ends["cab"].astype(np.int64)
    ports = {int(i): int(k) for i, k in ends.groupby("cab").size().items()}
    by_sku: dict[int, dict] = {}
    for (i, media, sku), k in (ends.drop_duplicates(["piece", "cab"])
                               .groupby(["cab", "media", "sku"]).size().items()):
        by_sku.setdefault(int(i), {})[(media, sku)] = int(k)
    transceivers: dict[int, dict] = {}
    optics = ends[ends["optic"] != ""].drop_duplicates("module")
    for (i, optic), k in optics.groupby(["cab", "optic"]).size().items():
        transceivers.setdefault(int(i), {})[optic] = int(k)
    return ports, by_sku, transceivers


class ChunkedRows:
    """The rows of one table (a schedule), made a chunk of places (cabinets or patch racks) at a
    time: ``make(places)`` gives the unfitted table of those places' rows and each place's span
    ``(lo, hi)`` of it. ``survey`` reads every chunk once for the layout; ``cells`` hands a
    place's rows to the page drawing them, keeping only the chunk holding them."""

    def __init__(self, make, chunks: list[list[str]]):
        self.make, self.chunks = make, chunks
        self.chunk_of = {name: k for k, names in enumerate(chunks) for name in names}
        self.current, self.columns, self.spans = None, [], {}

    def survey(self) -> tuple[list[float] | None, dict[str, int]]:
        """The ``natural_widths`` of the whole table (its widest cells, over every chunk) and
        the rows of every place."""
        natural, rows = None, {}
        for k, names in enumerate(self.chunks):
            self.columns, self.spans = [], {}
            table, spans = self.make(names)
            widths = table.natural_widths()
            natural = widths if natural is None else list(map(max, natural, widths))
            rows.update({name: hi - lo for name, (lo, hi) in spans.items()})
            self.current, self.columns, self.spans = k, table.columns, spans
        return natural, rows            # the last chunk kept: a one-chunk table is made once

    def cells(self, name: str) -> list:
        """The columns of text of ``name``'s rows (its chunk made when another is held)."""
        k = self.chunk_of[name]
        if k != self.current:
            self.columns, self.spans = [], {}
            table, self.spans = self.make(self.chunks[k])
            self.columns, self.current = table.columns, k
        lo, hi = self.spans[name]
        return [col[lo:hi] for col in self.columns]


def chunks_of(names: list[str]) -> list[list[str]]:
    """``names`` in runs of ``tuning.WIRING_CHUNK_SHEETS``."""
    return [names[lo:lo + WIRING_CHUNK_SHEETS] for lo in range(0, len(names), WIRING_CHUNK_SHEETS)]


def schedule_table(plan, places=None, labels: pd.Series | None = None
                   ) -> tuple[Table, dict[str, tuple[int, int]]]:
    """The cable schedule of the cabinets ``places`` (default all; ``schedule_rows``) as one
    table, unfitted, and each cabinet's rows of it ``(lo, hi)``."""
    rows = schedule_rows(plan, places, labels)
    columns = [rows[k] for k in ["piece", "from", "to", "to", "label", "sku", "order",
                                 "transceiver", "link"]]
    columns[2] = np.full(len(rows["piece"]), "\u2192", dtype=object)
    names = plan.cabinets["name"].astype(str).tolist()
    bounds = np.searchsorted(rows["cab_order"], np.arange(len(names) + 1)).tolist()
    mine = names if places is None else set(places)
    spans = {name: (bounds[i], bounds[i + 1]) for i, name in enumerate(names) if name in mine}
    return (Table(SCHEDULE_HEADERS, columns, SCHEDULE_ALIGN, size=SCHEDULE_SIZE,
                  leading=SCHEDULE_LEADING, fonts=SCHEDULE_FONTS), spans)


def schedule_source(plan, places: list[str], labels: pd.Series | None = None) -> ChunkedRows:
    """The schedule of the cabinets ``places`` made ``tuning.WIRING_CHUNK_SHEETS`` at a time."""
    labels = plan.pieces.assembly_labels() if labels is None else labels
    return ChunkedRows(lambda names: schedule_table(plan, names, labels), chunks_of(places))


def cabinet_racks(plan) -> list[Rack]:
    """The ``Rack`` of every cabinet, in ``plan.cabinets`` order."""
    return rack_records(plan, *_counts(plan))


def cabinet_sections(plan, places: list[str] | None = None, layout=None,
                     racks: list[Rack] | None = None,
                     labels: pd.Series | None = None) -> list[Section]:
    """One section per cabinet (of ``places``, default all, in ``plan.cabinets`` order):
    elevation, then the cable schedule, whose rows are made a chunk of cabinets at a time as
    their pages are drawn. ``layout``: the whole plan's ``ChunkedRows.survey`` when ``places``
    are some of its cabinets (one hall's), so that every hall is laid out alike; ``racks``
    (``cabinet_racks``) and ``labels`` (``Pieces.assembly_labels``) are computed when not given."""
    names = plan.cabinets["name"].astype(str).tolist()
    mine = None if places is None else set(places)
    source = schedule_source(plan, [n for n in names if mine is None or n in mine], labels)
    natural, rows = source.survey() if layout is None else layout
    template = Table(SCHEDULE_HEADERS, [[] for _ in SCHEDULE_HEADERS], SCHEDULE_ALIGN,
                     size=SCHEDULE_SIZE, leading=SCHEDULE_LEADING, fonts=SCHEDULE_FONTS)
    template.fit(natural=natural)
    height = int(plan.floor.cabinet_height_ru)
    sections = []
    for rack in cabinet_racks(plan) if racks is None else racks:
        if mine is not None and rack.name not in mine:
            continue
        blocks: list = [elevation_figure(rack, height)]
        if rows.get(rack.name):
            blocks.append(DeferredTable(template, rows[rack.name],
                                        partial(source.cells, rack.name)))
        sections.append(Section(f"Cabinet {rack.name}", blocks, f"cab-{rack.name}", level=1))
    return sections
