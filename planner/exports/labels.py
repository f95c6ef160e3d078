"""Cable labels: ``labels.csv`` for label-printer software and ``labels.pdf`` label sheets.

Both ends of every cable get a label (ANSI/TIA-606), and on a floor with structured cabling
both ends of every trunk (after the cables: the panels' ports in their patch racks as device,
port and cabinet, media ``trunk``; ``exports.trunks_csv``). ``labels.csv`` has two rows per
cable or trunk, A end then B end (the label CSV of the shumoku diagram tool,
konoe-akitoshi/shumoku PR #202):
``cable_id, end,
this_device, this_port, this_cabinet, this_ru, peer_device, peer_port, peer_cabinet, peer_ru,
label, media, sku, length_m, order_length_m``; UTF-8 with a byte-order mark so spreadsheet and
label-printer software detect the encoding; text cells formula-safe (``exports.cells``).

``labels.pdf`` prints one label per cable end on A4 sheets of Avery L7651 geometry
(38.1 x 21.2 mm, 5 x 13 = 65 labels): the cable label in bold, this end's and the peer's
device·port, then cable id, ordered length and media.
"""

from __future__ import annotations

from itertools import chain
from pathlib import Path

import numpy as np
import pandas as pd
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from planner.cabling import unit_text
from planner.exports._csv import column_text, float_text, join_rows, write_text
from planner.exports import trunks_csv
from planner.exports.cells import neutralise_all
from planner.exports.wiring_pdf.content_stream import (binary_streams, font_ref, pdf_strings,
                                                       string_widths, text_at)

CSV_NAME = "labels.csv"
PDF_NAME = "labels.pdf"
CSV_COLUMNS = ["cable_id", "end", "this_device", "this_port", "this_cabinet", "this_ru",
               "peer_device", "peer_port", "peer_cabinet", "peer_ru", "label", "media", "sku",
               "length_m", "order_length_m"]
TEXT_COLUMNS = {"this_device", "this_cabinet", "peer_device", "peer_cabinet", "label", "media",
                "sku"}

# Avery L7651 (A4): 5 columns x 13 rows of 38.1 x 21.2 mm labels.
SHEET = dict(page=A4, cols=5, rows=13, width=38.1 * mm, height=21.2 * mm,
             left=4.67 * mm, top=10.7 * mm, pitch_x=40.64 * mm, pitch_y=21.2 * mm)
_PAD = 1.6 * mm
_BOLD, _REGULAR = "Helvetica-Bold", "Helvetica"


def label_rows(cables: pd.DataFrame) -> dict[str, np.ndarray]:
    """Two rows per cable (A end, then B end): the CSV_COLUMNS as text, as labels.csv holds
    them (rack units ``40`` / ``40.5`` / empty, lengths as pandas writes floats), plus
    ``order_g``, the ordered length as the printed label shows it (``5``, ``2.5``)."""
    n = len(cables)
    side = {s: dict(device=_text(cables[f"{s}_device"]), port=_text(cables[f"{s}_port"]),
                    cabinet=_text(cables[f"{s}_cabinet"]),
                    ru=unit_text(pd.to_numeric(cables[f"{s}_ru"], errors="coerce")
                                 .to_numpy(float), 1)) for s in ("a", "b")}

    def interleave(first, second):
        out = np.empty(2 * n, dtype=object)
        out[0::2], out[1::2] = first, second
        return out

    def twice(values):
        return np.repeat(np.asarray(values, dtype=object), 2)

    rows = {"cable_id": twice(_text(cables["cable_id"])),
            "end": np.tile(np.array(["A", "B"], object), n)}
    for field in ("device", "port", "cabinet", "ru"):
        rows[f"this_{field}"] = interleave(side["a"][field], side["b"][field])
        rows[f"peer_{field}"] = interleave(side["b"][field], side["a"][field])
    for column in ("label", "media", "sku"):
        rows[column] = twice(_text(cables[column]))
    for column in ("length_m", "order_length_m"):
        rows[column] = twice(float_text(cables[column].to_numpy(float)))
    rows["order_g"] = twice(unit_text(cables["order_length_m"].to_numpy(float), 1))
    return rows


def trunk_label_rows(trunks: pd.DataFrame) -> dict[str, np.ndarray]:
    """``label_rows`` for the trunks of structured cabling (``exports.trunks_csv.table``): an
    end is a panel's port in a patch rack (device = the panel, cabinet = its rack), media
    ``trunk``."""
    ends = pd.DataFrame({"cable_id": trunks["trunk_id"], "label": trunks["label"],
                         "media": "trunk", "sku": trunks["sku"],
                         "length_m": trunks["length_m"],
                         "order_length_m": trunks["order_length_m"]})
    for s in ("a", "b"):
        ends[f"{s}_device"], ends[f"{s}_port"] = trunks[f"{s}_panel"], trunks[f"{s}_port"]
        ends[f"{s}_cabinet"], ends[f"{s}_ru"] = trunks[f"{s}_rack"], trunks[f"{s}_ru"]
    return label_rows(ends)


def _text(values: pd.Series) -> np.ndarray:
    return np.asarray(column_text(values), dtype=object)


def write_csv(rows: dict[str, np.ndarray], path: Path) -> None:
    text = join_rows(CSV_COLUMNS, [neutralise_all(rows[c].tolist()) if c in TEXT_COLUMNS
                                   else rows[c].tolist() for c in CSV_COLUMNS], "\r\n")
    write_text(text, path, encoding="utf-8-sig")


def _slot_templates(y_offset: float) -> np.ndarray:
    """``1 0 0 1 x y Tm ({}) Tj`` of every label slot on a sheet, for the text line
    ``y_offset`` below the slot's top (the slot positions repeat on every page)."""
    sheet = SHEET
    slot = np.arange(sheet["cols"] * sheet["rows"])
    xs = sheet["left"] + (slot % sheet["cols"]) * sheet["pitch_x"] + _PAD
    tops = sheet["page"][1] - sheet["top"] - (slot // sheet["cols"]) * sheet["pitch_y"] - _PAD
    return np.array([f"1 0 0 1 {x:.2f} {y:.2f} Tm ({{}}) Tj"
                     for x, y in zip(xs, tops - y_offset)], dtype=object)


def _show(templates: np.ndarray, slot: np.ndarray, texts: list[str]) -> list[str]:
    """The ``Tm``/``Tj`` operators that show ``texts[i]`` in label slot ``slot[i]``."""
    return list(map(str.format, templates[slot].tolist(), pdf_strings(texts)))


def write_pdf(rows: dict[str, np.ndarray], path: Path, title: str) -> int:
    """Label sheets, one label per row of ``rows``; returns the number of pages.

    Each page is PDF text objects: the bold label lines (one object per font size) and the
    regular detail lines. Their operators are built for all labels at once (one ``str.format``
    per line, mapped in C) rather than per page, which keeps 400K-label sheets to seconds.
    """
    sheet = SHEET
    per_page = sheet["cols"] * sheet["rows"]
    inner = sheet["width"] - 2 * _PAD
    canvas = Canvas(str(path), pagesize=sheet["page"], pageCompression=1, invariant=1)
    canvas.setTitle(title)
    canvas.setAuthor("planner")
    n = len(rows["label"])
    slot = np.arange(n) % per_page
    label = rows["label"].tolist()
    this = list(map("{}: {}\u00b7{}".format, rows["end"], rows["this_device"],
                    rows["this_port"]))
    peer = list(map("to {}\u00b7{}".format, rows["peer_device"], rows["peer_port"]))
    info = list(map("#{}  {} m  {}".format, rows["cable_id"], rows["order_g"], rows["media"]))
    pages = max(1, -(-n // per_page))
    natural = string_widths(label, _BOLD, 7.5)
    sizes = np.round(np.where(natural <= inner, 7.5, np.maximum(4.0, 7.5 * inner /
                                                                np.maximum(natural, 1e-9))), 2)
    bold = np.array(_show(_slot_templates(6.5), slot, label), dtype=object)
    detail = list(chain.from_iterable(zip(_show(_slot_templates(14.5), slot, this),
                                          _show(_slot_templates(21.7), slot, peer),
                                          _show(_slot_templates(28.9), slot, info))))
    if n:
        bold_ref, regular_ref = font_ref(canvas, _BOLD), font_ref(canvas, _REGULAR)
    for page in range(pages):
        lo, hi = page * per_page, min(n, (page + 1) * per_page)
        page_sizes = sizes[lo:hi]
        for size in np.unique(page_sizes).tolist():
            ops = bold[lo:hi][page_sizes == size].tolist()
            canvas.addLiteral(f"BT {bold_ref} {size:.2f} Tf\n" + "\n".join(ops) + "\nET")
        if hi > lo:
            canvas.addLiteral(f"BT {regular_ref} 6.20 Tf\n" + "\n".join(detail[3 * lo:3 * hi]) +
                              "\nET")
        else:
            text_at(canvas, _REGULAR, 10, [(20 * mm, sheet["page"][1] - 20 * mm,
                                            "This plan has no cables.")])
        canvas.showPage()
    canvas.save()
    return pages


def write(plan, out_dir: Path) -> None:
    """Write ``labels.csv`` and ``labels.pdf``."""
    out_dir = Path(out_dir)
    rows = label_rows(plan.cables)
    if plan.structured is not None:
        trunk_rows = trunk_label_rows(trunks_csv.table(plan.structured))
        rows = {key: np.concatenate([rows[key], trunk_rows[key]]) for key in rows}
    write_csv(rows, out_dir / CSV_NAME)
    with binary_streams():
        write_pdf(rows, out_dir / PDF_NAME, f"Cable labels: {plan.topology.family} plan")
