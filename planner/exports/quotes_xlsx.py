"""The procurement sheets of ``planner rfq`` and ``planner reprice``: ``rfq.csv``/``rfq.xlsx``
(the request for quote a buyer sends out) and ``delta.csv``/``delta.xlsx`` (what re-pricing
changed, line by line). Not plan writers (no ``write``): the two commands call them.

In ``delta.xlsx`` Δ is a live formula ``=(E2+F2)*(H2-G2)`` with its value cached (ECMA-376
Part 1 §18.3.1.40), and the last row totals it, as in ``bom.xlsx``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd
import xlsxwriter

from planner.exports.cells import neutralise, neutralise_all
from planner.run.output import created_time

RFQ_CSV, RFQ_XLSX = "rfq.csv", "rfq.xlsx"
DELTA_CSV, DELTA_XLSX = "delta.csv", "delta.xlsx"
_CURRENCY = "#,##0.00"


def _csv(frame: pd.DataFrame, path: Path) -> None:
    text = frame.copy()
    for col in text.columns:
        if text[col].dtype == object:
            text[col] = neutralise_all(text[col].fillna("").astype(str).tolist())
    text.to_csv(path, index=False, lineterminator="\n", float_format="%.10g")


def _cell(ws, r: int, c: int, value, fmt=None) -> None:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        ws.write_blank(r, c, None, fmt)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        ws.write_number(r, c, float(value), fmt)
    elif hasattr(value, "item"):
        _cell(ws, r, c, value.item(), fmt)
    else:
        ws.write_string(r, c, neutralise(str(value)), fmt)


def _book(path: Path, title: str):
    wb = xlsxwriter.Workbook(str(path), {"strings_to_formulas": False,
                                         "strings_to_urls": False})
    wb.set_properties({"title": title, "created": created_time()})
    return wb


def _atomic(folder: Path, name: str, make) -> None:
    """``make(tmp_path)`` then rename over ``folder/name`` (nothing half-written)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
    os.close(fd)
    try:
        make(Path(tmp))
        os.replace(tmp, folder / name)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_rfq(lines: pd.DataFrame, folder: Path) -> list[str]:
    """``rfq.csv`` and ``rfq.xlsx`` (one sheet, ``RFQ``) into ``folder``."""
    folder = Path(folder)

    def xlsx(path: Path) -> None:
        wb = _book(path, "Request for quote")
        head = wb.add_format({"bold": True, "bg_color": "#305496", "font_color": "#FFFFFF"})
        ws = wb.add_worksheet("RFQ")
        for c, name in enumerate(lines.columns):
            ws.write_string(0, c, name, head)
            ws.set_column(c, c, 50 if name in ("description", "specification") else 16)
        for r, rec in enumerate(lines.itertuples(index=False, name=None), start=1):
            for c, value in enumerate(rec):
                _cell(ws, r, c, None if value == "" else value)
        ws.freeze_panes(1, 0)
        wb.close()

    _atomic(folder, RFQ_CSV, lambda p: _csv(lines, p))
    _atomic(folder, RFQ_XLSX, xlsx)
    return [RFQ_CSV, RFQ_XLSX]


def write_delta(delta: pd.DataFrame, folder: Path) -> None:
    """``delta.csv`` and ``delta.xlsx`` (sheet ``Delta``) into ``folder``."""
    folder = Path(folder)
    _csv(delta, folder / DELTA_CSV)
    wb = _book(folder / DELTA_XLSX, "Re-pricing delta")
    head = wb.add_format({"bold": True})
    money = wb.add_format({"num_format": _CURRENCY})
    ws = wb.add_worksheet("Delta")
    cols = list(delta.columns)
    for c, name in enumerate(cols):
        ws.write_string(0, c, name, head)
    at = {name: chr(ord("A") + i) for i, name in enumerate(cols)}
    for r, rec in enumerate(delta.itertuples(index=False, name=None), start=1):
        for c, (name, value) in enumerate(zip(cols, rec)):
            if name == "delta":
                row = r + 1
                ws.write_formula(r, c, f"=({at['quantity']}{row}+{at['spares']}{row})*"
                                 f"({at['new_unit_price']}{row}-{at['old_unit_price']}{row})",
                                 money, float(value))
            else:
                _cell(ws, r, c, value, money if "price" in name else None)
    last = len(delta) + 1
    col = cols.index("delta")
    ws.write_string(last, 0, "Total", head)
    ws.write_formula(last, col, f"=SUM({at['delta']}2:{at['delta']}{last})", money,
                     float(delta["delta"].sum()))
    ws.freeze_panes(1, 0)
    wb.close()
