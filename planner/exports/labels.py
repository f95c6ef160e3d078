"""Cable labels: ``labels.csv`` for label-printer software and ``labels.pdf`` label sheets.

Both ends of every cable get a label (ANSI/TIA-606, ecosystem.md §7). ``labels.csv`` has two
rows per cable, A end then B end (the shumoku PR #202 layout, §6): ``cable_id, end,
this_device, this_port, this_cabinet, this_ru, peer_device, peer_port, peer_cabinet, peer_ru,
label, media, sku, length_m, order_length_m``; UTF-8 with a byte-order mark so spreadsheet and
label-printer software detect the encoding.

``labels.pdf`` prints one label per cable end on A4 sheets of Avery L7651 geometry
(38.1 x 21.2 mm, 5 x 13 = 65 labels): the cable label in bold, this end's and the peer's
device·port, then cable id, ordered length and media.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from planner.exports.wiring_pdf import binary_streams, string_widths, text_at

CSV_NAME = "labels.csv"
PDF_NAME = "labels.pdf"
CSV_COLUMNS = ["cable_id", "end", "this_device", "this_port", "this_cabinet", "this_ru",
               "peer_device", "peer_port", "peer_cabinet", "peer_ru", "label", "media", "sku",
               "length_m", "order_length_m"]

# Avery L7651 (A4): 5 columns x 13 rows of 38.1 x 21.2 mm labels.
SHEET = dict(page=A4, cols=5, rows=13, width=38.1 * mm, height=21.2 * mm,
             left=4.67 * mm, top=10.7 * mm, pitch_x=40.64 * mm, pitch_y=21.2 * mm)
_PAD = 1.6 * mm
_BOLD, _REGULAR = "Helvetica-Bold", "Helvetica"


def rack_unit_text(values: pd.Series) -> np.ndarray:
    """Rack units as text: ``40``, ``40.5``, or empty where the device has no rack unit."""
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(float)
    return np.array(["" if np.isnan(x) else f"{x:g}" for x in numbers], dtype=object)


def label_rows(cables: pd.DataFrame) -> pd.DataFrame:
    """Two rows per cable (A end, then B end), in cable order, with the CSV_COLUMNS."""
    n = len(cables)
    side = {s: dict(device=cables[f"{s}_device"].astype(str).to_numpy(),
                    port=cables[f"{s}_port"].astype(str).to_numpy(),
                    cabinet=cables[f"{s}_cabinet"].astype(str).to_numpy(),
                    ru=rack_unit_text(cables[f"{s}_ru"])) for s in ("a", "b")}

    def interleave(first, second):
        out = np.empty(2 * n, dtype=object)
        out[0::2], out[1::2] = first, second
        return out

    def twice(column):
        return np.repeat(cables[column].to_numpy(), 2)

    frame = {"cable_id": twice("cable_id"), "end": np.tile(np.array(["A", "B"], object), n)}
    for field in ("device", "port", "cabinet", "ru"):
        frame[f"this_{field}"] = interleave(side["a"][field], side["b"][field])
        frame[f"peer_{field}"] = interleave(side["b"][field], side["a"][field])
    for column in ("label", "media", "sku", "length_m", "order_length_m"):
        frame[column] = twice(column)
    return pd.DataFrame(frame)[CSV_COLUMNS]


def write_csv(rows: pd.DataFrame, path: Path) -> None:
    rows.to_csv(path, index=False, encoding="utf-8-sig", lineterminator="\r\n")


def write_pdf(rows: pd.DataFrame, path: Path, title: str) -> int:
    """Label sheets, one label per row of ``rows``; returns the number of pages.

    Each page is emitted as two PDF text objects (bold label lines, regular detail lines)
    through ``wiring_pdf.text_at``, which keeps 100K-label sheets to a few seconds.
    """
    sheet = SHEET
    per_page = sheet["cols"] * sheet["rows"]
    page_h = sheet["page"][1]
    inner = sheet["width"] - 2 * _PAD
    canvas = Canvas(str(path), pagesize=sheet["page"], pageCompression=1, invariant=1)
    canvas.setTitle(title)
    canvas.setAuthor("planner")
    n = len(rows)
    slot = np.arange(n) % per_page
    xs = sheet["left"] + (slot % sheet["cols"]) * sheet["pitch_x"] + _PAD
    tops = page_h - sheet["top"] - (slot // sheet["cols"]) * sheet["pitch_y"] - _PAD
    label = rows["label"].astype(str).tolist()
    this = (rows["end"] + ": " + rows["this_device"].astype(str) + "\u00b7" +
            rows["this_port"].astype(str)).tolist()
    peer = ("to " + rows["peer_device"].astype(str) + "\u00b7" +
            rows["peer_port"].astype(str)).tolist()
    info = ("#" + rows["cable_id"].astype(str) + "  " +
            rows["order_length_m"].map(lambda v: f"{v:g}") + " m  " +
            rows["media"].astype(str)).tolist()
    pages = max(1, -(-n // per_page))
    natural = string_widths(label, _BOLD, 7.5)
    sizes = np.round(np.where(natural <= inner, 7.5, np.maximum(4.0, 7.5 * inner /
                                                                np.maximum(natural, 1e-9))), 2)
    for page in range(pages):
        lo, hi = page * per_page, min(n, (page + 1) * per_page)
        for size in sorted(set(sizes[lo:hi].tolist())):
            text_at(canvas, _BOLD, size, [(xs[i], tops[i] - 6.5, label[i])
                                          for i in range(lo, hi) if sizes[i] == size])
        detail = []
        for i in range(lo, hi):
            detail += [(xs[i], tops[i] - 14.5, this[i]), (xs[i], tops[i] - 21.7, peer[i]),
                       (xs[i], tops[i] - 28.9, info[i])]
        text_at(canvas, _REGULAR, 6.2, detail)
        if n == 0:
            text_at(canvas, _REGULAR, 10, [(20 * mm, page_h - 20 * mm, "This plan has no cables.")])
        canvas.showPage()
    canvas.save()
    return pages


def write(plan, out_dir: Path) -> None:
    """Write ``labels.csv`` and ``labels.pdf``."""
    out_dir = Path(out_dir)
    rows = label_rows(plan.cables)
    write_csv(rows, out_dir / CSV_NAME)
    with binary_streams():
        write_pdf(rows, out_dir / PDF_NAME, f"Cable labels: {plan.topology.family} plan")
