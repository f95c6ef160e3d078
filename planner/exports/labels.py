"""Cable labels: ``labels.csv`` for label-printer software and ``labels.pdf`` label sheets.

One label per end of every installed piece (ANSI/TIA-606; the pieces of
``planner.cabling.pieces``): both ends of a cable between two devices; on a floor with
structured cabling both ends of each patch cord (its device port, and the row panel's front
port it lands on) and both ends of every trunk (the panels' rear ports, or an entry panel's
front port); a multi-link assembly (twin-port DAC/ACC, splitter) one per connector
(``Pieces.connector_ends``: one at a twin-port end, port ``1+2``; one per splitter tail). Each
label gives that piece's own label, part number, length (an assembly's longest leg) and far end,
not the link's. ``labels.csv`` has one row per connector end, a piece's A ends then its B ends,
pieces in the order of ``Pieces.table`` (cables and their cords in cable order, then trunks),
with the columns of the
label CSV of the shumoku diagram tool (konoe-akitoshi/shumoku PR #202) plus the piece kind:
``cable_id, end,
this_device, this_port, this_cabinet, this_ru, peer_device, peer_port, peer_cabinet, peer_ru,
label, media, sku, length_m, order_length_m, piece, transceiver``. ``cable_id`` is the piece's
id (``C0001``; a link's cords ``C0006.A`` and ``C0006.B``; a trunk ``T0004``; an assembly
``C0091+C0092``), a ``cabinet``
is the cabinet or patch rack the end is in, a panel end's device is the panel (``H1-A-P0-01``,
U1 of rack ``H1-A-P0``), ``piece`` is cable | cord | trunk and ``transceiver`` the module at a
device end ('' elsewhere). After the pieces, both ends of every out-of-band management cord
(``planner.costing.fabric_devices``; its id ``M01``, piece ``mgmt``, the device's port ``mgmt``,
a zero-U PDU's rack unit empty), A then B end of each. A server of a catalog server model
(``gpu-0123``) names its port by its NIC, ``nic1`` .. ``nicN`` (``nic_ports``). UTF-8 with a byte-order mark so spreadsheet and label-printer
software detect the encoding; text cells formula-safe (``exports.cells``).

``labels.pdf`` prints one label per connector end on A4 sheets of Avery L7651 geometry
(38.1 x 21.2 mm, 5 x 13 = 65 labels): the piece's label in bold on two lines (its A end, then
its B end), this end's and the far end's device·port, the piece id, its ordered length and
kind, then its part number. No text is set below 6 pt.

Both files are written as the rows are made, ``tuning.LABEL_CHUNK_PAGES`` sheets of labels at
a time (``label_chunks``): no list of every label's text is held at once, and the PDF's pages
are compressed as each is drawn.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from planner.cabling import unit_text
from planner.cabling.pieces import CONNECTOR_COLUMNS, Pieces
from planner.exports._csv import column_text, float_text, join_rows
from planner.exports.cells import neutralise_all
from planner.exports.split import Part, hall_weights
from planner.exports.tuning import LABEL_CHUNK_PAGES, LABELS_CSV_SHARE
from planner.exports.wiring_pdf.content_stream import (binary_streams, font_ref, pdf_strings,
                                                       seal_page, string_widths, text_at)
from planner.exports.wiring_pdf.document import hall_files, place_halls

CSV_NAME = "labels.csv"
PDF_NAME = "labels.pdf"
CSV_COLUMNS = ["cable_id", "end", "this_device", "this_port", "this_cabinet", "this_ru",
               "peer_device", "peer_port", "peer_cabinet", "peer_ru", "label", "media", "sku",
               "length_m", "order_length_m", "piece", "transceiver"]
TEXT_COLUMNS = {"this_device", "this_cabinet", "peer_device", "peer_cabinet", "label", "media",
                "sku", "transceiver"}

# Avery L7651 (A4): 5 columns x 13 rows of 38.1 x 21.2 mm labels.
SHEET = dict(page=A4, cols=5, rows=13, width=38.1 * mm, height=21.2 * mm,
             left=4.67 * mm, top=10.7 * mm, pitch_x=40.64 * mm, pitch_y=21.2 * mm)
_PAD = 1.6 * mm
_BOLD, _REGULAR = "Helvetica-Bold", "Helvetica"
MIN_SIZE = 6.0
"""Smallest type on a label (pt): the legibility floor of every printed page of the planner."""
BOLD_SIZE, DETAIL_SIZE = 7.5, 6.2
"""The label lines in bold, the detail lines regular; a line too wide for the label shrinks,
never below ``MIN_SIZE``."""
LINE_OFFSETS = (6.5, 14.0, 21.5, 28.7, 35.9, 43.1)
"""Baselines (pt below the label's top inside the padding): two bold label lines, then this
end, the far end, the piece's id, ordered length and kind, and its part number; the last
baseline with its descent stays 6 pt above the label's bottom padding (the 51 pt inside)."""


LABEL_END_COLUMNS = [c for c in CONNECTOR_COLUMNS if c != "peer_transceiver"]
"""The columns of ``Pieces.connector_ends`` a label prints."""


def label_rows(pieces: Pieces, ends: pd.DataFrame | None = None) -> dict[str, np.ndarray]:
    """One row per connector end of every piece (``Pieces.connector_ends``: A ends, then B
    ends; or of the rows ``ends`` of it): the CSV_COLUMNS as text, as labels.csv holds them
    (rack units ``40`` / ``40.5`` / empty, lengths as pandas writes floats), plus ``order_g``,
    the ordered length as the printed label shows it (``5``, ``2.5``)."""
    t = pieces.table
    ends = pieces.connector_ends(LABEL_END_COLUMNS) if ends is None else ends
    if not len(ends):
        return {c: np.empty(0, dtype=object) for c in CSV_COLUMNS + ["order_g"]}
    # only the table's columns a label prints: taking whole rows would touch (and so copy, in
    # a forked writer) every text of every column
    at = t[["media", "sku", "order_length_m", "role"]].iloc[ends["row"].to_numpy(np.int64)]
    rows = {"cable_id": ends["assembly"].to_numpy(object), "end": ends["end"].to_numpy(object)}
    for field, source in (("device", "device"), ("port", "port"), ("cabinet", "place"),
                          ("ru", "ru")):
        rows[f"this_{field}"] = ends[f"this_{source}"].to_numpy(object)
        rows[f"peer_{field}"] = ends[f"peer_{source}"].to_numpy(object)
    rows["label"] = ends["label"].to_numpy(object)
    for column in ("media", "sku"):
        rows[column] = _text(at[column])
    rows["length_m"] = np.asarray(float_text(ends["length_m"].to_numpy(float)), dtype=object)
    rows["order_length_m"] = np.asarray(float_text(at["order_length_m"].to_numpy(float)),
                                        dtype=object)
    rows["piece"] = _text(at["role"])
    rows["transceiver"] = ends["this_transceiver"].to_numpy(object)
    rows["order_g"] = unit_text(at["order_length_m"].to_numpy(float), 1)
    return rows


def mgmt_label_rows(plan) -> dict[str, np.ndarray]:
    """The label rows of the management cords, each cord's A end (the managed device) then its
    B end (the management switch port), as ``label_rows``."""
    boxes = getattr(plan, "fabric", None)
    cords = boxes.cords if boxes is not None else pd.DataFrame()
    if not len(cords):
        return {c: np.empty(0, dtype=object) for c in CSV_COLUMNS + ["order_g"]}
    n = len(cords)
    order = np.column_stack([np.arange(n), np.arange(n) + n]).ravel()   # A, B of each cord
    out: dict[str, np.ndarray] = {
        "cable_id": np.r_[cords["cable_id"], cords["cable_id"]].astype(object)[order],
        "end": np.r_[["A"] * n, ["B"] * n].astype(object)[order]}
    for field in ("device", "port", "cabinet", "ru"):
        a = column_text(cords[f"a_{field}"].astype(object))
        b = column_text(cords[f"b_{field}"].astype(object))
        out[f"this_{field}"] = np.asarray(a + b, dtype=object)[order]
        out[f"peer_{field}"] = np.asarray(b + a, dtype=object)[order]
    both = pd.concat([cords, cords], ignore_index=True).iloc[order]
    for column in ("label", "media", "sku"):
        out[column] = both[column].to_numpy(object)
    out["length_m"] = np.asarray(float_text(both["length_m"].to_numpy(float)), dtype=object)
    ordered = both["order_length_m"].to_numpy(float)
    out["order_length_m"] = np.asarray(float_text(ordered), dtype=object)
    out["piece"] = np.full(2 * n, "mgmt", dtype=object)
    out["transceiver"] = np.full(2 * n, "", dtype=object)
    out["order_g"] = unit_text(ordered, 1)
    return out


def _text(values: pd.Series) -> np.ndarray:
    return np.asarray(column_text(values), dtype=object)


@dataclass
class Shared:
    """What every chunk of a plan's labels reads, made once per plan (not per chunk: the
    server names alone are a set of every endpoint's name): the servers (``server_names``),
    the management cords' rows (``mgmt_label_rows``) and, on a plan split per hall, the hall
    of every end (``end_halls``)."""

    servers: frozenset
    mgmt: dict[str, np.ndarray]
    halls: dict[str, np.ndarray] | None = None


def shared(plan, per_hall: bool = False) -> Shared:
    """The ``Shared`` of ``plan``; with ``per_hall`` the halls of the ends too."""
    mgmt = mgmt_label_rows(plan)
    return Shared(server_names(plan), mgmt, end_halls(plan, mgmt) if per_hall else None)


def label_chunks(plan, per_chunk: int, hall: int | None = None,
                 common: Shared | None = None) -> Iterator[dict[str, np.ndarray]]:
    """The label rows of ``plan`` (``label_rows`` of every piece, then ``mgmt_label_rows``) in
    chunks of ``per_chunk`` rows; the management cords' rows join the last chunk. With
    ``hall``: only the ends in that hall (``common``, then made with ``per_hall``)."""
    common = shared(plan, hall is not None) if common is None else common
    pieces = plan.pieces
    # positions of the connector ends: their texts are made a chunk at a time
    ends = np.arange(pieces.connector_count())
    mgmt = common.mgmt
    if hall is not None:
        ends = np.flatnonzero(common.halls["ends"] == hall)
        mgmt = {k: np.asarray(v, dtype=object)[common.halls["mgmt"] == hall]
                for k, v in mgmt.items()}
    starts = range(0, len(ends), per_chunk)
    if not len(starts):
        yield mgmt
    for lo in starts:
        chunk = pieces.connector_ends(LABEL_END_COLUMNS, at=ends[lo:lo + per_chunk])
        rows = nic_ports(label_rows(pieces, chunk), common.servers)
        if lo + per_chunk >= len(ends):
            rows = {k: np.concatenate([np.asarray(v, dtype=object),
                                       np.asarray(mgmt[k], dtype=object)])
                    for k, v in rows.items()}
        yield rows


def server_names(plan) -> frozenset:
    """The devices that are servers of a catalog server model (``Placement.server_cabinet``;
    ``planner.cabling.Servers``), whose ports are NICs; empty for any other plan."""
    if getattr(plan.placement, "server_cabinet", None) is None:
        return frozenset()
    devices = plan.devices
    return frozenset(devices.loc[devices["kind"] == "endpoint", "name"].astype(str))


def nic_ports(rows: dict[str, np.ndarray], servers: frozenset) -> dict[str, np.ndarray]:
    """``rows`` with a server's port written as its NIC, ``nic1`` .. ``nicN`` (the cable's
    label prints it ``NIC1``), at this end and at the peer end."""
    if not servers:
        return rows
    for side in ("this", "peer"):
        device = np.asarray(rows[f"{side}_device"], dtype=object)
        at = np.fromiter((d in servers for d in device.tolist()), dtype=bool,
                         count=len(device))
        if at.any():
            port = np.asarray(rows[f"{side}_port"], dtype=object).copy()
            port[at] = ["nic" + str(p) for p in port[at].tolist()]
            rows[f"{side}_port"] = port
    return rows


def end_halls(plan, mgmt: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """The hall of every connector end (``ends``) and management cord end (``mgmt``), in
    ``label_chunks``' order (-1: a place in no hall), found once for all halls; ``mgmt``:
    the ``mgmt_label_rows``, made when not given."""
    halls = place_halls(plan)

    def of(places) -> np.ndarray:
        # hashed, not sorted: no fixed-width copy of every end's place name
        codes, names = pd.factorize(np.asarray(places, dtype=object), use_na_sentinel=False)
        return np.array([halls.get(str(n), -1) for n in names.tolist()],
                        dtype=np.int64)[codes]

    return {"ends": of(plan.pieces.connector_ends(["this_place"])["this_place"]
                       .to_numpy(object)),
            "mgmt": of((mgmt_label_rows(plan) if mgmt is None else mgmt)["this_cabinet"])}


def csv_lines(rows: dict[str, np.ndarray]) -> str:
    """labels.csv's lines of ``rows``, without the header."""
    text = join_rows(CSV_COLUMNS, [neutralise_all(rows[c].tolist()) if c in TEXT_COLUMNS
                                   else rows[c].tolist() for c in CSV_COLUMNS], "\r\n")
    return text.split("\r\n", 1)[1]


def _slot_templates(y_offset: float) -> np.ndarray:
    """``1 0 0 1 x y Tm ({}) Tj`` of every label slot on a sheet, for the text line
    ``y_offset`` below the slot's top (the slot positions repeat on every page)."""
    sheet = SHEET
    slot = np.arange(sheet["cols"] * sheet["rows"])
    xs = sheet["left"] + (slot % sheet["cols"]) * sheet["pitch_x"] + _PAD
    tops = sheet["page"][1] - sheet["top"] - (slot // sheet["cols"]) * sheet["pitch_y"] - _PAD
    return np.array([f"1 0 0 1 {x:.2f} {y:.2f} Tm ({{}}) Tj"
                     for x, y in zip(xs, tops - y_offset)], dtype=object)


def _sized(ops: list[str], texts: list[str], font: str, size: float,
           inner: float) -> tuple[np.ndarray, np.ndarray]:
    """The operators of one label line and each one's type size: ``size``, or smaller where the
    text would not fit the label's ``inner`` width, never below ``MIN_SIZE``."""
    natural = string_widths(texts, font, size)
    sizes = np.round(np.clip(size * inner / np.maximum(natural, 1e-9), MIN_SIZE, size), 2)
    return np.asarray(ops, dtype=object), sizes


def _show(templates: np.ndarray, slot: np.ndarray, texts: list[str]) -> list[str]:
    """The ``Tm``/``Tj`` operators that show ``texts[i]`` in label slot ``slot[i]``."""
    return list(map(str.format, templates[slot].tolist(), pdf_strings(texts)))


def _text_objects(objects: list[list[str]], ref: str, ops: np.ndarray, sizes: np.ndarray,
                  per_page: int) -> None:
    """Append to each page's ``objects`` the PDF text objects of one label line: one per type
    size on that page, smallest first, each showing its labels in label order. One stable sort
    by (page, size) for all pages, not a search per page."""
    page = np.arange(len(ops)) // per_page
    order = np.lexsort((sizes, page))
    page, size, ops = page[order], sizes[order], ops[order].tolist()
    cut = np.flatnonzero((page[1:] != page[:-1]) | (size[1:] != size[:-1])) + 1
    starts, ends = np.r_[0, cut].tolist(), np.r_[cut, len(ops)].tolist()
    for lo, hi, at, pt in zip(starts, ends, page[starts].tolist(), size[starts].tolist()):
        objects[at].append(f"BT {ref} {pt:.2f} Tf\n" + "\n".join(ops[lo:hi]) + "\nET")


class LabelSheets:
    """``labels.pdf`` drawn a chunk of labels at a time (``add``: chunks of whole sheets but
    the last), then ``close``. Each sheet is PDF text objects: the bold label lines (one object
    per font size) and the regular detail lines, their operators built for a chunk's labels at
    once (one ``str.format`` per line, mapped in C) rather than per label."""

    def __init__(self, path: Path, title: str):
        self.canvas = Canvas(str(path), pagesize=SHEET["page"], pageCompression=1, invariant=1)
        self.canvas.setTitle(title)
        self.canvas.setAuthor("planner")
        self.pages = 0

    def add(self, rows: dict[str, np.ndarray]) -> None:
        """Draw the sheets of ``rows`` (a whole number of sheets unless it is the last)."""
        n = len(rows["label"])
        if not n:
            return
        sheet = SHEET
        per_page = sheet["cols"] * sheet["rows"]
        inner = sheet["width"] - 2 * _PAD
        slot = np.arange(n) % per_page
        halves = [text.partition("/") for text in rows["label"].tolist()]
        first = [a + s for a, s, _ in halves]
        second = [b for _, _, b in halves]
        this = list(map("{}: {}\u00b7{}".format, rows["end"], rows["this_device"],
                        rows["this_port"]))
        peer = list(map("to {}\u00b7{}".format, rows["peer_device"], rows["peer_port"]))
        info = list(map("#{}  {} m  {}".format, rows["cable_id"], rows["order_g"],
                        rows["piece"]))
        part = rows["sku"].tolist()
        bold = [_sized(_show(_slot_templates(LINE_OFFSETS[k]), slot, texts), texts, _BOLD,
                       BOLD_SIZE, inner) for k, texts in enumerate((first, second))]
        detail = [_sized(_show(_slot_templates(LINE_OFFSETS[k + 2]), slot, texts), texts,
                         _REGULAR, DETAIL_SIZE, inner)
                  for k, texts in enumerate((this, peer, info, part))]
        objects = [[] for _ in range(-(-n // per_page))]
        bold_ref, regular_ref = font_ref(self.canvas, _BOLD), font_ref(self.canvas, _REGULAR)
        for ref, lines in ((bold_ref, bold), (regular_ref, detail)):
            for ops, sizes in lines:
                _text_objects(objects, ref, ops, sizes, per_page)
        for page in objects:
            for literal in page:
                self.canvas.addLiteral(literal)
            self.canvas.showPage()
            seal_page(self.canvas)
        self.pages += len(objects)

    def close(self) -> int:
        """Finish the file (a page saying so when there were no labels); the page count."""
        if not self.pages:
            text_at(self.canvas, _REGULAR, 10, [(20 * mm, SHEET["page"][1] - 20 * mm,
                                                 "This plan has no cables.")])
            self.canvas.showPage()
            self.pages = 1
        self.canvas.save()
        return self.pages


def write_pdf(rows: dict[str, np.ndarray], path: Path, title: str) -> int:
    """Label sheets, one label per row of ``rows``; returns the number of pages."""
    sheets = LabelSheets(path, title)
    sheets.add(rows)
    return sheets.close()


def _title(plan) -> str:
    return f"Cable labels: {plan.topology.family} plan"


def _write_csv(plan, out_dir: Path, sheets: LabelSheets | None = None) -> None:
    """labels.csv, ``tuning.LABEL_CHUNK_PAGES`` sheets of labels at a time; with ``sheets``
    (labels.pdf) each chunk drawn there too."""
    per_chunk = LABEL_CHUNK_PAGES * SHEET["cols"] * SHEET["rows"]
    with open(Path(out_dir) / CSV_NAME, "w", encoding="utf-8-sig", newline="") as csv_file:
        csv_file.write(",".join(CSV_COLUMNS) + "\r\n")
        for rows in label_chunks(plan, per_chunk):
            csv_file.write(csv_lines(rows))
            if sheets is not None:
                sheets.add(rows)


def _write_hall(plan, path: Path, hall: int, halls: int, common: Shared) -> None:
    """The label sheets of the ends in ``hall`` (0-based, of ``halls``; ``common``: ``shared``
    with ``per_hall``)."""
    per_chunk = LABEL_CHUNK_PAGES * SHEET["cols"] * SHEET["rows"]
    sheets = LabelSheets(path, f"{_title(plan)}, hall {hall + 1} of {halls}")
    for rows in label_chunks(plan, per_chunk, hall, common):
        sheets.add(rows)
    sheets.close()


def parts(plan) -> list[Part] | None:
    """On a plan that ``wiring_pdf.document.hall_files`` splits: labels.csv, then one part
    per ``labels-hall-NN.pdf``, each hall weighted by its cabinets and all sharing one
    ``shared`` (made once, by the first hall part's ``prepare``); None for a plan with one
    labels.pdf. The files are ``write``'s."""
    files = hall_files(plan, Path(PDF_NAME).stem)
    if files is None:
        return None
    common = cache(lambda: shared(plan, per_hall=True))

    def hall(folder: Path, h: int, file: str) -> None:
        with binary_streams():
            _write_hall(plan, Path(folder) / file, h, len(files), common())

    weights = hall_weights(plan, [h for h, _ in files], 1.0 - LABELS_CSV_SHARE)
    return [Part(CSV_NAME, LABELS_CSV_SHARE, lambda folder: _write_csv(plan, folder))] + [
        Part(file, weight, lambda folder, h=h, file=file: hall(folder, h, file), common,
             per_hall=True)
        for (h, file), weight in zip(files, weights)]


def write(plan, out_dir: Path) -> None:
    """Write ``labels.csv`` and ``labels.pdf``, ``tuning.LABEL_CHUNK_PAGES`` sheets of labels
    at a time; on a plan that ``wiring_pdf.document.hall_files`` splits, one label PDF per
    hall (``labels-hall-01.pdf``...: the labels of the ends in that hall) for labels.pdf
    (``parts``, one after the other)."""
    split = parts(plan)
    if split is not None:
        for part in split:
            part.write(out_dir)
        return
    with binary_streams():
        sheets = LabelSheets(Path(out_dir) / PDF_NAME, _title(plan))
        _write_csv(plan, out_dir, sheets)
        sheets.close()
