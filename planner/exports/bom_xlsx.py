"""``bom.xlsx``: the procurement workbook.

Sheets:

- **Summary**: the totals as live formulas over the BOM sheet (``=SUMIF(BOM!$A$2:$A$9,"router",
  BOM!$H$2:$H$9)``, ``=SUM(BOM!$H$2:$H$9)``, cost per endpoint ``=B10/B6``), so editing a unit
  price or a quantity in Excel updates every total; counts, power and placement facts as values.
- **BOM**: one line per router model and per cable SKU × stock length: item, SKU, description,
  length, quantity, spares, unit price, extended price (``=(E2+F2)*G2``), and a total line.
- **Cables**: the port map (cables.csv columns plus the unit price).
- **Cabinets**: per cabinet its grid position, electrical group, routers, endpoints and rack
  units used / free.
- **Ports**: one row per router port 1..radix, used or free, with its peer and cable.

Header rows are bold and frozen, columns sized, numbers formatted (currency, metres, counts).
A table longer than Excel's 1,048,576 rows continues on ``Cables (2)``, ``Cables (3)``, ...

openpyxl lays out the workbook (styles, formulas, widths, panes) in ``write_only`` mode. openpyxl
writes about 10^5 cells per second, too slow for the ~6·10^6 cells of a 100K-endpoint plan, so
the rows of the long sheets (Cables, Ports) are generated as SpreadsheetML ``<row>`` elements
with array operations and spliced into openpyxl's sheet XML in place of a one-row placeholder
that carries the column styles (ECMA-376 Part 1 §18.3.1.73 ``row``, §18.3.1.4 ``c``; strings
inline, ``t="inlineStr"``, as openpyxl's own write-only sheets).
"""

from __future__ import annotations

import math
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from planner.exports._csv import column_text
from planner.exports.cells import neutralise, neutralise_all

FILENAME = "bom.xlsx"
MAX_ROWS = 1_048_576
"""Rows per sheet in Excel (header included); longer tables continue on a new sheet."""
CHUNK_ROWS = 50_000

CURRENCY = '"$"#,##0.00'
COUNT = "#,##0"
METRES = "0.000"
DECIMAL = "0.00"

_HEADER_FONT = Font(bold=True, color="FFFFFF")
_HEADER_FILL = PatternFill("solid", fgColor="305496")
_BOLD = Font(bold=True)
_TITLE = Font(bold=True, size=14)


@dataclass(frozen=True)
class Column:
    """One sheet column: header, source column, width, number format, cell type."""

    header: str
    key: str
    width: float
    fmt: str | None = None
    kind: str = "text"          # "text" | "number" | "bool"


CABLES = [
    Column("Cable ID", "cable_id", 10), Column("Label", "label", 26),
    Column("Kind", "kind", 9),
    Column("A device", "a_device", 9), Column("A port", "a_port", 7, COUNT, "number"),
    Column("A cabinet", "a_cabinet", 9), Column("A RU", "a_ru", 6, None, "number"),
    Column("B device", "b_device", 9), Column("B port", "b_port", 7, COUNT, "number"),
    Column("B cabinet", "b_cabinet", 9), Column("B RU", "b_ru", 6, None, "number"),
    Column("Media", "media", 10), Column("SKU", "sku", 16),
    Column("Length (m)", "length_m", 11, METRES, "number"),
    Column("Order length (m)", "order_length_m", 15, METRES, "number"),
    Column("Latency (ns)", "latency_ns", 12, DECIMAL, "number"),
    Column("Unit price", "unit_price", 12, CURRENCY, "number"),
]
PORTS = [
    Column("Device", "device", 9), Column("Port", "port", 6, COUNT, "number"),
    Column("Used", "used", 6, None, "bool"), Column("Peer device", "peer_device", 11),
    Column("Peer port", "peer_port", 9, COUNT, "number"), Column("Cable ID", "cable_id", 10),
    Column("Label", "label", 26),
]
CABINETS = [
    Column("Cabinet", "name", 9), Column("Row", "row_name", 5), Column("Column", "col_no", 7,
                                                                      COUNT, "number"),
    Column("Electrical group", "group", 15, COUNT, "number"),
    Column("x (m)", "x_m", 8, DECIMAL, "number"), Column("y (m)", "y_m", 8, DECIMAL, "number"),
    Column("Routers", "routers", 8, COUNT, "number"),
    Column("Endpoints", "endpoints", 10, COUNT, "number"),
    Column("RU used", "ru_used", 8, "0.#", "number"),
    Column("RU free", "ru_free", 8, "0.#", "number"),
]
BOM = [
    Column("Item", "item", 8), Column("SKU", "sku", 18), Column("Description", "description", 60),
    Column("Length (m)", "length_m", 11, METRES, "number"),
    Column("Quantity", "quantity", 10, COUNT, "number"),
    Column("Spares", "spares", 8, COUNT, "number"),
    Column("Unit price", "unit_price", 14, CURRENCY, "number"),
    Column("Extended price", "extended_price", 16, CURRENCY, "number"),
]


# ----------------------------------------------------------------------------- openpyxl part

def _cell(ws, value, fmt=None, font=None):
    cell = WriteOnlyCell(ws, value=value)
    if fmt:
        cell.number_format = fmt
    if font:
        cell.font = font
    return cell


def _new_sheet(wb: Workbook, title: str, columns: list[Column]):
    ws = wb.create_sheet(title)
    for i, col in enumerate(columns, start=1):
        ws.column_dimensions[get_column_letter(i)].width = col.width
    ws.freeze_panes = "A2"
    header = []
    for col in columns:
        cell = _cell(ws, col.header, font=_HEADER_FONT)
        cell.fill = _HEADER_FILL
        cell.alignment = Alignment(horizontal="center")
        header.append(cell)
    ws.append(header)
    return ws


def _plain(value):
    """Python scalars for openpyxl (numpy types, NaN and pandas NA become plain / None)."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _text(value):
    """Text from the inputs (SKUs, descriptions) formula-safe; other values as they are."""
    return neutralise(value) if isinstance(value, str) else value


def _bom_sheet(wb: Workbook, bom: pd.DataFrame) -> int:
    """BOM lines with live extended prices and a total line; returns the last line's row."""
    ws = _new_sheet(wb, "BOM", BOM)
    last = len(bom) + 1
    for r, record in enumerate(bom[[c.key for c in BOM]].itertuples(index=False, name=None),
                               start=2):
        cells = [_cell(ws, _text(_plain(v)), c.fmt) for v, c in zip(record[:-1], BOM[:-1])]
        cells.append(_cell(ws, f"=(E{r}+F{r})*G{r}", CURRENCY))
        ws.append(cells)
    ws.append([])
    ws.append([_cell(ws, "Total", font=_BOLD), None, None, None,
               _cell(ws, f"=SUM(E2:E{last})", COUNT, _BOLD),
               _cell(ws, f"=SUM(F2:F{last})", COUNT, _BOLD), None,
               _cell(ws, f"=SUM(H2:H{last})", CURRENCY, _BOLD)])
    ws.auto_filter.ref = f"A1:H{last}"
    return last


def summary_rows(plan, last: int) -> list[tuple[str, object, str | None, str]]:
    """(label, value or formula, number format, note) of the Summary sheet, from row
    ``SUMMARY_FIRST_ROW`` on; ``{Label}`` in a formula is the B cell of the row so labelled."""
    s = plan.summary
    items = f"BOM!$A$2:$A${last}"

    def by_item(item, col):
        return f'=SUMIF({items},"{item}",BOM!${col}$2:${col}${last})'

    top, cab, cables = s["topology"], s["catalog"], s["cables"]
    params = ", ".join(f"{k}={v}" for k, v in top["params"].items())
    net, end = cables["network"], cables["endpoint"]
    place = s["placement"]
    return [
        ("Topology", neutralise(f"{top['family']} ({params})"), None, ""),
        ("Catalog / floor", neutralise(f"{cab['name']} / {s['floor']['name']}"), None, ""),
        ("Router model", neutralise(f"{cab['router_sku']} ({cab['router_radix']} ports)"), None,
         ""),
        ("Routers", by_item("router", "E"), COUNT, "from the BOM sheet"),
        ("Endpoints", top["endpoints"], COUNT, ""),
        ("Router cost", by_item("router", "H"), CURRENCY, "from the BOM sheet"),
        ("NIC cost", by_item("nic", "H"), CURRENCY, "from the BOM sheet"),
        ("Cable cost (incl. spares)", by_item("cable", "H"), CURRENCY, "from the BOM sheet"),
        ("Total cost", f"=SUM(BOM!$H$2:$H${last})", CURRENCY, "from the BOM sheet"),
        ("Cost per endpoint", "={Total cost}/{Endpoints}", CURRENCY, "total / endpoints"),
        ("Spare cables", f"=SUM(BOM!$F$2:$F${last})", COUNT, f"{s['bom']['spares_pct']:g} %"),
        ("Power (W)", s["power"]["total_w"], "#,##0.0", "router SerDes + active cables + NICs"),
        ("Power per endpoint (W)", "={Power (W)}/{Endpoints}", "0.000", "power / endpoints"),
        ("Network cables electrical", net["electrical"], COUNT, ""),
        ("Network cables optical", net["optical"], COUNT, ""),
        ("Endpoint cables electrical", end["electrical"], COUNT, ""),
        ("Endpoint cables optical", end["optical"], COUNT, ""),
        ("Cable length (m)", round(net["length_m"] + end["length_m"], 3), "#,##0.0",
         "computed, before rounding up to stock lengths"),
        ("Cabinets", place["cabinets"], COUNT, ""),
        ("Electrical groups", place["groups"], COUNT, ""),
        ("Placement", f"{place['strategy']} / {place['method']}", None, ""),
        ("Optical links (lower bound)",
         f"{place['optical']} ({place['optical_lower_bound']})", None,
         place["lower_bound_kind"]),
    ]


SUMMARY_FIRST_ROW = 3


def _summary_sheet(wb: Workbook, plan, last: int) -> None:
    ws = wb.create_sheet("Summary")
    for letter, width in zip("ABC", (30, 34, 44)):
        ws.column_dimensions[letter].width = width
    ws.freeze_panes = "A3"
    ws.append([_cell(ws, "Plan summary", font=_TITLE)])
    ws.append([_cell(ws, h, font=_BOLD) for h in ("Item", "Value", "Note")])
    rows = summary_rows(plan, last)
    where = {label: f"B{SUMMARY_FIRST_ROW + i}" for i, (label, *_rest) in enumerate(rows)}
    for label, value, fmt, note in rows:
        if isinstance(value, str) and value.startswith("="):
            value = re.sub(r"\{([^}]+)\}", lambda m: where[m.group(1)], value)
        ws.append([_cell(ws, label), _cell(ws, _plain(value), fmt), _cell(ws, note)])


# ----------------------------------------------------------------------------- bulk rows

_SPECIAL = re.compile(r"[&<>\x00-\x08\x0b\x0c\x0e-\x1f]")


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _escape(texts: list[str]) -> list[str]:
    """XML-escape ``&<>`` and drop control characters XML 1.0 cannot hold."""
    if not _SPECIAL.search("".join(texts)):
        return texts
    return [_CONTROL.sub("", t).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            for t in texts]


def _numbers(values: pd.Series) -> tuple[list, np.ndarray]:
    """(Python ints/floats, missing mask) of a numeric column; missing entries are 0."""
    missing = values.isna().to_numpy()
    if pd.api.types.is_integer_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        return values.fillna(0).astype(np.int64).tolist(), missing
    return values.astype(float).fillna(0.0).tolist(), missing


def _column_field(values: pd.Series, col: Column, letter: str, style: str) -> tuple[str, list]:
    """One column: its ``<c>`` template (``{0}`` = row number, ``{}`` = the field) and the
    field's values. Cells with a missing value stay in place, empty (``<c r="K5" s="3"></c>``)."""
    head = f'<c r="{letter}{{0}}"' + (f' s="{style}"' if style else "")
    missing = values.isna().to_numpy()
    if col.kind == "bool":
        return head + ' t="b"><v>{}</v></c>', values.fillna(False).astype(bool).astype(
            np.int64).tolist()
    if col.kind == "text":
        text = column_text(values) if isinstance(values.dtype, pd.StringDtype) else \
            values.astype(object).where(~missing, "").astype(str).tolist()
        text = np.asarray(_escape(neutralise_all(text)), dtype=object)
        missing = missing | (text == "")
        if not missing.any():
            return head + ' t="inlineStr"><is><t>{}</t></is></c>', text.tolist()
        inner = ' t="inlineStr"><is><t>' + text + "</t></is>"
        inner[missing] = ">"
        return head + "{}</c>", inner.tolist()
    numbers, missing = _numbers(values)
    uniq, inverse = np.unique(np.asarray(numbers), return_inverse=True)
    text = np.array([repr(x) for x in uniq.tolist()], dtype=object)[inverse.reshape(-1)]
    if not missing.any():
        return head + "><v>{}</v></c>", text.tolist()
    inner = "<v>" + text + "</v>"
    inner[missing] = ""
    return head + ">{}</c>", inner.tolist()


def rows_xml(frame: pd.DataFrame, columns: list[Column], styles: list[str],
             first_row: int) -> str:
    """SpreadsheetML ``<row>`` elements for ``frame``, the first one numbered ``first_row``.

    One ``str.format`` template per row (row number + one field per column), mapped over the
    column lists: the per-row work happens inside ``str.format``, not in Python code."""
    templates, fields = [], []
    for i, col in enumerate(columns):
        template, values = _column_field(frame[col.key], col, get_column_letter(i + 1),
                                         styles[i])
        templates.append(template.replace("{}", f"{{{i + 1}}}").replace("{!r}",
                                                                            f"{{{i + 1}!r}}"))
        fields.append(values)
    row = '<row r="{0}">' + "".join(templates) + "</row>"
    refs = range(first_row, first_row + len(frame))
    return "".join(map(row.format, refs, *fields))


_PROBE = {"text": "x", "number": 0, "bool": True}


def _bulk_sheet(wb: Workbook, title: str, columns: list[Column], n_rows: int) -> None:
    """Header + one placeholder row carrying each column's style; rows are spliced in later."""
    ws = _new_sheet(wb, title, columns)
    ws.append([_cell(ws, _PROBE[c.kind], c.fmt) for c in columns])
    if n_rows:
        ws.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{n_rows + 1}"


def _parts(frame: pd.DataFrame, title: str) -> list[tuple[str, pd.DataFrame]]:
    per_sheet = MAX_ROWS - 1
    count = max(1, math.ceil(len(frame) / per_sheet))
    return [(title if i == 0 else f"{title} ({i + 1})",
             frame.iloc[i * per_sheet:(i + 1) * per_sheet]) for i in range(count)]


_NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
       "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
       "p": "http://schemas.openxmlformats.org/package/2006/relationships"}


def _sheet_paths(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet title -> path of its XML part inside the package."""
    book = ET.fromstring(archive.read("xl/workbook.xml"))
    rels = ET.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {rel.get("Id"): rel.get("Target") for rel in rels.findall("p:Relationship", _NS)}
    out = {}
    for sheet in book.find("m:sheets", _NS).findall("m:sheet", _NS):
        target = targets[sheet.get(f"{{{_NS['r']}}}id")]
        path = target.lstrip("/") if target.startswith("/") else str(PurePosixPath("xl") / target)
        out[sheet.get("name")] = path
    return out


_PROBE_ROW = re.compile(r'<row r="2"[^>]*>(.*?)</row>', re.S)
_STYLE = re.compile(r'<c r="([A-Z]+)2"(?: s="(\d+)")?')


def _splice(src: Path, dst: Path, bulk: dict[str, tuple[list[Column], pd.DataFrame]]) -> None:
    """Copy the package, replacing each bulk sheet's placeholder row by the real rows."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED,
                                                      compresslevel=1) as zout:
        paths = _sheet_paths(zin)
        bulk_paths = {paths[title]: title for title in bulk}
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename not in bulk_paths:
                zout.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=6)
                continue
            columns, frame = bulk[bulk_paths[info.filename]]
            text = data.decode("utf-8")
            probe = _PROBE_ROW.search(text)
            styles = dict((m.group(1), m.group(2) or "") for m in _STYLE.finditer(probe.group(1)))
            style_list = [styles.get(get_column_letter(i + 1), "") for i in range(len(columns))]
            # opened by name: the archive's deflate level 1 (fast), fixed 1980 timestamp
            with zout.open(info.filename, "w", force_zip64=True) as fh:
                fh.write(text[:probe.start()].encode("utf-8"))
                for start in range(0, len(frame), CHUNK_ROWS):
                    chunk = frame.iloc[start:start + CHUNK_ROWS]
                    fh.write(rows_xml(chunk, columns, style_list, start + 2).encode("utf-8"))
                fh.write(text[probe.end():].encode("utf-8"))


# ----------------------------------------------------------------------------- entry point

def cabinet_table(plan) -> pd.DataFrame:
    """The Cabinets sheet's columns, from ``plan.cabinets``."""
    from planner.floor import cabinet_name
    cab = plan.cabinets.copy()
    cab["row_name"] = [cabinet_name(r, 0)[:-2] for r in cab["row"]]
    cab["col_no"] = cab["col"] + 1
    height = np.nan if plan.floor.abstract else float(plan.floor.cabinet_height_ru)
    cab["ru_free"] = height - cab["ru_used"]
    return cab


def write(plan, out_dir: Path) -> None:
    """Write ``bom.xlsx`` into ``out_dir``."""
    out_dir = Path(out_dir)
    wb = Workbook(write_only=True)
    last = len(plan.bom) + 1
    _summary_sheet(wb, plan, last)
    _bom_sheet(wb, plan.bom)
    bulk: dict[str, tuple[list[Column], pd.DataFrame]] = {}
    for title, columns, frame in (("Cables", CABLES, plan.cables),):
        for part_title, part in _parts(frame, title):
            _bulk_sheet(wb, part_title, columns, len(part))
            bulk[part_title] = (columns, part)
    for part_title, part in _parts(cabinet_table(plan), "Cabinets"):
        _bulk_sheet(wb, part_title, CABINETS, len(part))
        bulk[part_title] = (CABINETS, part)
    for part_title, part in _parts(plan.ports, "Ports"):
        _bulk_sheet(wb, part_title, PORTS, len(part))
        bulk[part_title] = (PORTS, part)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".bom-") as tmp:
        scaffold = Path(tmp) / "scaffold.xlsx"
        wb.save(scaffold)
        final = Path(tmp) / FILENAME
        _splice(scaffold, final, bulk)
        shutil.move(final, out_dir / FILENAME)
