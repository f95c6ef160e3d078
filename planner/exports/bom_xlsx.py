"""``bom.xlsx``: the procurement workbook.

Sheets:

- **Summary**: the totals as live formulas over the BOM sheet (``=SUMIF(BOM!$J$2:$J$9,
  "switches",BOM!$H$2:$H$9)``, ``=SUM(BOM!$H$2:$H$9)``, cost per endpoint ``=B12/B6``), so
  editing a unit price or a quantity updates every total; counts, power and placement facts as
  values.
- **BOM**: one line per orderable part (and stock length): item, part number (``generic:
  supplier part number`` on a generic line), description, length, quantity, spares, unit price,
  extended price (``=(E2+F2)*G2``), vendor, class, price basis, ordering number, status (an
  end-of-life part says ``eol``), specification, catalog SKU; then a
  subtotal per class (switches, NICs, licences, optics, cables, rack) and the total price. No
  total adds quantities of unlike parts.
- **Cables**: the port map (cables.csv columns plus the unit price per link).
- **Cabinets**: ``plan.cabinets``, one row per cabinet, every column it has; hall, row and
  column numbered as ``cabinets.csv`` prints them (``planner.inputs.floor.position_numbers``:
  hall 1, row E, column 6).
- **Ports**: one row per router port 1..radix, used or free, with its peer and cable.

Every formula carries its value as computed here (ECMA-376 Part 1 §18.3.1.40 ``f`` with a
cached ``v``), so a reader that does not recalculate (pandas, previewers, openpyxl with
``data_only=True``) sees the numbers; Excel and LibreOffice recalculate them on load.
Text from the user's inputs (SKUs, descriptions, names, labels) goes through
``planner.exports.cells.neutralise``.

XlsxWriter lays out the workbook (styles, formulas with values, widths, panes). It writes about
2·10^5 cells per second, too slow for the ~7·10^6 cells of a 100K-endpoint plan, so the rows of
the long sheets (Cables, Ports) are generated as SpreadsheetML ``<row>`` elements with array
operations and spliced into the sheet XML in place of a one-row placeholder that carries the
column styles (ECMA-376 Part 1 §18.3.1.73 ``row``, §18.3.1.4 ``c``), their texts appended to
the shared-string table (§18.4; LibreOffice loads shared strings several times faster than
inline ones). A table longer than Excel's 1,048,576 rows continues on ``Cables (2)``, ...
"""

from __future__ import annotations

import itertools
import math
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd
import xlsxwriter
from xlsxwriter.utility import xl_col_to_name

from planner.cabling import CSV_COLUMNS
from planner.costing.bom import CLASS_OF
from planner.exports._csv import column_text
from planner.exports.cells import neutralise, neutralise_all
from planner.exports.tuning import BOM_CHUNK_ROWS, BOM_TEXT_ROWS
from planner.inputs.floor import position_numbers
from planner.run.output import created_time

FILENAME = "bom.xlsx"
MAX_ROWS = 1_048_576
"""Rows per sheet in Excel (header included); longer tables continue on a new sheet."""

MONEY = "money"
"""Number format of a money cell: the plan's currency (``money_format``), set per workbook."""
COUNT = "#,##0"
METRES = "0.000"
DECIMAL = "0.00"
WATTS = "#,##0.0"


@dataclass(frozen=True)
class Column:
    """One sheet column: header, source column, width, number format, cell type."""

    header: str
    key: str
    width: float
    fmt: str | None = None
    kind: str = "text"          # "text" | "number" | "bool"


_CABLE_COLUMNS = {
    "cable_id": Column("Cable ID", "cable_id", 10), "label": Column("Label", "label", 26),
    "kind": Column("Kind", "kind", 9),
    "a_device": Column("A device", "a_device", 9),
    "a_port": Column("A port", "a_port", 7, COUNT, "number"),
    "a_cabinet": Column("A cabinet", "a_cabinet", 9),
    "a_ru": Column("A RU", "a_ru", 6, None, "number"),
    "b_device": Column("B device", "b_device", 9),
    "b_port": Column("B port", "b_port", 7, COUNT, "number"),
    "b_cabinet": Column("B cabinet", "b_cabinet", 9),
    "b_ru": Column("B RU", "b_ru", 6, None, "number"),
    "media": Column("Media", "media", 10), "sku": Column("Part number", "sku", 20),
    "length_m": Column("Length (m)", "length_m", 11, METRES, "number"),
    "order_length_m": Column("Order length (m)", "order_length_m", 15, METRES, "number"),
    "latency_ns": Column("Latency (ns)", "latency_ns", 12, DECIMAL, "number"),
    "a_transceiver": Column("A transceiver", "a_transceiver", 16),
    "b_transceiver": Column("B transceiver", "b_transceiver", 16),
}


def cable_columns(cables: pd.DataFrame) -> list[Column]:
    """The Cables sheet: every cables.csv column (unknown ones as text, or numbers when the
    column is numeric), then the unit price per link."""
    out = []
    for key in CSV_COLUMNS + [k for k in cables.columns if k not in CSV_COLUMNS
                              and k in _CABLE_COLUMNS]:
        out.append(_CABLE_COLUMNS.get(key) or _generic(key, cables[key]))
    return out + [Column("Unit price", "unit_price", 12, MONEY, "number")]


PORTS = [
    Column("Device", "device", 9), Column("Port", "port", 6, COUNT, "number"),
    Column("Used", "used", 6, None, "bool"), Column("Peer device", "peer_device", 11),
    Column("Peer port", "peer_port", 9, COUNT, "number"), Column("Cable ID", "cable_id", 10),
    Column("Label", "label", 26),
]
BOM = [
    Column("Item", "item", 11), Column("Part number", "part_number", 26),
    Column("Description", "description", 60),
    Column("Length (m)", "length_m", 11, METRES, "number"),
    Column("Quantity", "quantity", 10, COUNT, "number"),
    Column("Spares", "spares", 8, COUNT, "number"),
    Column("Unit price", "unit_price", 14, MONEY, "number"),
    Column("Extended price", "extended_price", 16, MONEY, "number"),
    Column("Vendor", "vendor", 12), Column("Class", "class", 10),
    Column("Price basis", "basis", 11), Column("Price source", "price_source", 40),
    Column("Price date", "price_date", 11), Column("Currency", "currency", 9),
    Column("Ordering number", "ordering_number", 20), Column("Status", "status", 22),
    Column("Specification", "spec", 60), Column("Catalog SKU", "sku", 22),
]
"""The BOM sheet's columns. Part number: the number to order, or ``generic: supplier part
number`` on a generic line, whose Specification says what to quote against; Status: the
lifecycle (``eol`` flagged), ``generic``, or ``...; number unconfirmed``; Catalog SKU: the
catalog's name of the line, as cables.csv and the quotes give it."""
CLASSES = list(dict.fromkeys(CLASS_OF.values()))
"""BOM classes in subtotal order: switches, nics, licences, optics, cables, panels, rack."""

_HEADER = {"bold": True, "font_color": "#FFFFFF", "bg_color": "#305496", "align": "center"}
_NAMES = {"name": "Cabinet", "x_m": "x (m)", "y_m": "y (m)", "kw": "kW", "ru_used": "RU used",
          "ru_free": "RU free", "col": "Column"}


def cabinets_sheet(plan) -> pd.DataFrame:
    """The Cabinets sheet's rows: ``plan.cabinets`` with its 0-based hall, row and column
    indices in the one numbering every output prints (``position_numbers``)."""
    cab = plan.cabinets.copy()
    if all(k in cab and pd.api.types.is_integer_dtype(cab[k]) for k in ("hall", "row", "col")):
        cab["hall"], cab["row"], cab["col"] = position_numbers(cab["hall"], cab["row"],
                                                               cab["col"])
    return cab


def _generic(key: str, values: pd.Series) -> Column:
    """A column of a frame whose columns are not known in advance (Cabinets)."""
    header = _NAMES.get(key, key.replace("_", " ").capitalize())
    width = max(8, len(header) + 2)
    if pd.api.types.is_bool_dtype(values.dtype):
        return Column(header, key, width, None, "bool")
    if pd.api.types.is_integer_dtype(values.dtype):
        return Column(header, key, width, COUNT, "number")
    if pd.api.types.is_float_dtype(values.dtype):
        return Column(header, key, width, DECIMAL, "number")
    return Column(header, key, max(width, 10))


def money_format(currency: str) -> str:
    """Number format of money in ``currency`` (ISO 4217 code, the plan's price basis):
    ``"USD "#,##0.00``, the code as literal text, which Excel and LibreOffice both show."""
    return f'"{currency} "#,##0.00'


def plan_currency(plan) -> str:
    """The ISO 4217 code the plan's prices are in (``cost.price_basis.currency``; USD when a
    plan predates the price basis)."""
    block = plan.summary.get("cost", {}).get("price_basis", {})
    catalog = getattr(plan, "catalog", None)
    return str(block.get("currency") or getattr(catalog, "currency", None) or "USD")


class _Formats:
    """The workbook's cell formats, made once; ``MONEY`` cells in ``currency``."""

    def __init__(self, wb, currency: str = "USD"):
        self.money = money_format(currency)
        self.header = wb.add_format(_HEADER)
        self.bold = wb.add_format({"bold": True})
        self.title = wb.add_format({"bold": True, "font_size": 14})
        self._cache: dict[tuple[str | None, bool], object] = {}
        self._wb = wb

    def number(self, fmt: str | None, bold: bool = False):
        fmt = self.money if fmt == MONEY else fmt
        key = (fmt, bold)
        if key not in self._cache:
            spec = {"num_format": fmt} if fmt else {}
            if bold:
                spec["bold"] = True
            self._cache[key] = self._wb.add_format(spec) if spec else None
        return self._cache[key]


def _plain(value):
    """Python scalars (numpy types, NaN and pandas NA become plain / None)."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _text(value) -> str:
    return neutralise(str(value))


def _new_sheet(wb, fmt: _Formats, title: str, columns: list[Column]):
    ws = wb.add_worksheet(title)
    for i, col in enumerate(columns):
        ws.set_column(i, i, col.width)
        ws.write_string(0, i, col.header, fmt.header)
    ws.freeze_panes(1, 0)
    return ws


def _write_value(ws, row: int, col: int, value, fmt) -> None:
    value = _plain(value)
    if value is None:
        ws.write_blank(row, col, None, fmt)
    elif isinstance(value, bool):
        ws.write_boolean(row, col, value, fmt)
    elif isinstance(value, (int, float)):
        ws.write_number(row, col, value, fmt)
    else:
        ws.write_string(row, col, _text(value), fmt)


# ----------------------------------------------------------------------------- BOM + Summary

def bom_frame(bom: pd.DataFrame) -> pd.DataFrame:
    """The plan's BOM with its class column, in the sheet's column order (a BOM without
    price-basis or order columns, from an older plan, gets them empty and its SKU as the part
    number)."""
    missing = {c.key: "" for c in BOM if c.key not in bom and c.key != "class"}
    if "part_number" in missing:
        missing["part_number"] = bom["sku"]
    return bom.assign(**{"class": bom["item"].map(CLASS_OF)}, **missing)[[c.key for c in BOM]]


def _bom_sheet(wb, fmt: _Formats, bom: pd.DataFrame, not_included=None) -> int:
    """BOM lines with live extended prices, subtotals per class, the total price and what the
    bill leaves out (``not_included``); returns the last line's row number (1-based)."""
    frame = bom_frame(bom)
    ws = _new_sheet(wb, fmt, "BOM", BOM)
    last = len(frame) + 1
    for r, record in enumerate(frame.itertuples(index=False, name=None), start=2):
        for c, (value, col) in enumerate(zip(record, BOM)):
            if col.key == "extended_price":
                ws.write_formula(r - 1, c, f"=(E{r}+F{r})*G{r}", fmt.number(MONEY),
                                 float(value))
            else:
                _write_value(ws, r - 1, c, value, fmt.number(col.fmt))
    classes = frame["class"].to_numpy()
    row = last + 1                                  # one blank row after the lines
    for name in CLASSES:
        rows = classes == name
        if not rows.any():
            continue
        ws.write_string(row, 0, "Subtotal", fmt.bold)
        ws.write_string(row, 9, name, fmt.bold)
        for letter, col, value in (("E", 4, frame.loc[rows, "quantity"].sum()),
                                   ("F", 5, frame.loc[rows, "spares"].sum()),
                                   ("H", 7, frame.loc[rows, "extended_price"].sum())):
            ws.write_formula(row, col, f'=SUMIF($J$2:$J${last},"{name}",{letter}$2:{letter}${last})',
                             fmt.number(MONEY if letter == "H" else COUNT, True),
                             float(value))
        row += 1
    ws.write_string(row, 0, "Total", fmt.bold)
    ws.write_formula(row, 7, f"=SUM(H2:H{last})", fmt.number(MONEY, True),
                     float(frame["extended_price"].sum()))
    excluded = not_included or []
    if excluded:
        row += 2                                    # a blank row, then the list
        ws.write_string(row, 0, "Not included", fmt.bold)
        ws.write_string(row, 2, "left out of this bill; buy or quote them separately")
        for name in excluded:
            row += 1
            ws.write_string(row, 2, _text(name))
    ws.autofilter(0, 0, last - 1, len(BOM) - 1)
    return last


GROWTH = [
    Column("Item", "item", 11), Column("Catalog SKU", "sku", 22),
    Column("Description", "description", 60),
    Column("Quantity", "quantity", 10, COUNT, "number"),
    Column("Reused", "reused", 10, COUNT, "number"), Column("New", "new", 10, COUNT, "number"),
    Column("Unit price", "unit_price", 14, MONEY, "number"),
    Column("New price", "new_price", 16, MONEY, "number"),
]
"""The "New and reused" sheet of a grown plan: per line of the grown system's bill, the
quantity in use, the standing parts reused and the new ones bought (the BOM sheet lists the
new ones)."""


def _growth_sheet(wb, fmt: _Formats, growth: pd.DataFrame) -> None:
    ws = _new_sheet(wb, fmt, "New and reused", GROWTH)
    for r, record in enumerate(growth[[c.key for c in GROWTH]].itertuples(index=False,
                                                                           name=None), start=2):
        for c, (value, col) in enumerate(zip(record, GROWTH)):
            if col.key == "new":
                ws.write_formula(r - 1, c, f"=D{r}-E{r}", fmt.number(COUNT), float(value))
            elif col.key == "new_price":
                ws.write_formula(r - 1, c, f"=F{r}*G{r}", fmt.number(MONEY), float(value))
            else:
                _write_value(ws, r - 1, c, value, fmt.number(col.fmt))


def summary_rows(plan, last: int) -> list[tuple[str, object, str | None, str]]:
    """(label, value or formula, number format, note) of the Summary sheet, from row
    ``SUMMARY_FIRST_ROW`` on; ``{Label}`` in a formula is the B cell of the row so labelled."""
    s = plan.summary
    items, classes = f"BOM!$A$2:$A${last}", f"BOM!$J$2:$J${last}"

    def sum_if(where, what, col):
        return f'=SUMIF({where},"{what}",BOM!${col}$2:${col}${last})'

    top, cab, cables = s["topology"], s["catalog"], s["cables"]
    params = ", ".join(f"{k}={v}" for k, v in top["params"].items())
    net, end = cables["network"], cables["endpoint"]
    place = s["placement"]
    spares = s["bom"]["spares"]
    # text from the inputs is neutralised here, before a leading "=" could mark it a formula
    rows = [
        ("Topology", neutralise(f"{top['family']} ({params})"), None, ""),
        ("Catalog / floor", neutralise(f"{cab['name']} / {s['floor']['name']}"), None, ""),
        ("Router model", neutralise(f"{cab['router_sku']} ({cab['router_radix']} ports)"), None,
         ""),
        ("Switches", sum_if(items, "switch", "E"), COUNT, "from the BOM sheet"),
        ("Endpoints", top["endpoints"], COUNT, ""),
    ]
    for item, label in (("transceiver", "Transceivers"), ("cable", "Cable assemblies"),
                        ("fibre", "Fibre cords"), ("trunk", "Trunks"),
                        ("panel", "Patch panels")):
        if (plan.bom["item"] == item).any():
            rows.append((label, sum_if(items, item, "E"), COUNT, "from the BOM sheet, "
                         "without spares"))
    for name, label in (("switches", "Switch cost"), ("nics", "NIC cost"),
                        ("licences", "Licence cost"), ("optics", "Optics cost"),
                        ("cables", "Cable and fibre cost"), ("panels", "Patch panel cost"),
                        ("rack", "Rack hardware cost"),
                        ("management", "Fabric management cost"), ("power", "PDU and cord cost"),
                        ("support", "Support and subscription cost")):
        if name in ("panels", "management", "power", "support") and \
                not (plan.bom["item"].map(CLASS_OF) == name).any():
            continue
        rows.append((label, sum_if(classes, name, "H"), MONEY, "incl. spares"
                     if name in spares else "from the BOM sheet"))
    rows += [
        ("Total cost", f"=SUM(BOM!$H$2:$H${last})", MONEY, "from the BOM sheet"),
        ("Cost per endpoint", "={Total cost}/{Endpoints}", MONEY, "total / endpoints"),
        ("Estimated cost", f'=SUMIF(BOM!$K$2:$K${last},"estimate",BOM!$H$2:$H${last})',
         MONEY, "lines whose price basis is an estimate, not a list price or a quote"),
        ("Estimated share", "={Estimated cost}/{Total cost}", "0.0%",
         neutralise(_basis_note(s))),
        ("Spares cost", f"=SUMPRODUCT(BOM!$F$2:$F${last},BOM!$G$2:$G${last})", MONEY,
         ", ".join(f"{k} {v:g} %" for k, v in spares.items())),
        ("Power (W)", s["power"]["total_w"], WATTS, "routers (base + SerDes) + link ends + servers + NICs"),
        ("Power per endpoint (W)", "={Power (W)}/{Endpoints}", "0.000", "power / endpoints"),
        ("Network cables electrical", net["electrical"], COUNT, ""),
        ("Network cables optical", net["optical"], COUNT, ""),
        ("Endpoint cables electrical", end["electrical"], COUNT, ""),
        ("Endpoint cables optical", end["optical"], COUNT, ""),
        ("Cable length (m)", round(net["length_m"] + end["length_m"], 3), WATTS,
         "computed, before rounding up to stock lengths"),
        ("Cabinets", place["cabinets"], COUNT, ""),
        ("Electrical groups", place["groups"], COUNT, ""),
        ("Placement", f"{place['strategy']} / {place['method']}", None, ""),
        ("Optical links (lower bound)",
         f"{place['optical']} ({place['optical_lower_bound']})", None,
         place["lower_bound_kind"]),
    ]
    return rows


SUMMARY_FIRST_ROW = 3


def _basis_note(summary: dict) -> str:
    """Who made the catalog's prices and when, and the currency, for the Summary sheet."""
    from planner.costing.basis import sentence
    return sentence(summary.get("cost", {}).get("price_basis", {}))


def summary_values(plan, rows) -> dict[str, float]:
    """The value of every Summary row, as a spreadsheet computes its formula from the BOM."""
    bom = bom_frame(plan.bom)
    out: dict[str, float] = {}
    for label, value, _fmt, _note in rows:
        if not (isinstance(value, str) and value.startswith("=")):
            out[label] = value
            continue
        found = re.fullmatch(r'=SUMIF\(BOM!\$([AJK])\$2:\$[AJK]\$\d+,"([^"]+)",BOM!\$([A-Z])'
                             r'\$2:\$[A-Z]\$\d+\)', value)
        column = {"E": "quantity", "F": "spares", "H": "extended_price"}
        if found:
            key = {"A": "item", "J": "class", "K": "basis"}[found.group(1)]
            rows_ = bom[key] == found.group(2)
            out[label] = float(bom.loc[rows_, column[found.group(3)]].sum())
        elif value.startswith("=SUM(BOM!$H$2"):
            out[label] = float(bom["extended_price"].sum())
        elif value.startswith("=SUMPRODUCT"):
            out[label] = float((bom["spares"] * bom["unit_price"]).sum())
        else:
            num, den = re.fullmatch(r"=\{([^}]+)\}/\{([^}]+)\}", value).groups()
            out[label] = float(out[num]) / float(out[den]) if out[den] else 0.0
    return out


def _summary_sheet(wb, fmt: _Formats, plan, last: int) -> None:
    ws = wb.add_worksheet("Summary")
    for i, width in enumerate((30, 34, 44)):
        ws.set_column(i, i, width)
    ws.freeze_panes(2, 0)
    ws.write_string(0, 0, "Plan summary", fmt.title)
    for i, head in enumerate(("Item", "Value", "Note")):
        ws.write_string(1, i, head, fmt.bold)
    rows = summary_rows(plan, last)
    values = summary_values(plan, rows)
    where = {label: f"B{SUMMARY_FIRST_ROW + i}" for i, (label, *_rest) in enumerate(rows)}
    for i, (label, value, num_fmt, note) in enumerate(rows):
        r = SUMMARY_FIRST_ROW - 1 + i
        ws.write_string(r, 0, label)
        if isinstance(value, str) and value.startswith("="):
            formula = re.sub(r"\{([^}]+)\}", lambda m: where[m.group(1)], value)
            ws.write_formula(r, 1, formula, fmt.number(num_fmt), values[label])
        else:
            _write_value(ws, r, 1, value, fmt.number(num_fmt))
        if note:
            ws.write_string(r, 2, _text(note))


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


class SharedStrings:
    """The shared-string table (ECMA-376 Part 1 §18.4) of the bulk sheets: the index of every
    distinct text, after the ``start`` strings the scaffold already holds. LibreOffice loads
    shared strings several times faster than inline ones."""

    def __init__(self, start: int):
        self.start = start
        self.index: dict[str, int] = {}
        self.refs = 0

    def codes(self, texts: np.ndarray) -> np.ndarray:
        """The table index of every text (one dictionary look-up per distinct text)."""
        local, uniques = pd.factorize(texts)
        ids = np.fromiter((self.index.setdefault(u, self.start + len(self.index))
                           for u in uniques.tolist()), dtype=np.int64, count=len(uniques))
        self.refs += len(texts)
        return ids[local]

    def write_merged(self, scaffold_xml: bytes, out) -> None:
        """Write to ``out`` the scaffold's ``sharedStrings.xml`` with these strings appended,
        ``tuning.BOM_CHUNK_ROWS`` strings at a time (not the whole table as one text)."""
        text = scaffold_xml.decode("utf-8")
        head, _, tail = text.rpartition("</sst>")
        count = int(re.search(r'\bcount="(\d+)"', head).group(1)) + self.refs
        unique = self.start + len(self.index)
        head = re.sub(r'\bcount="\d+"', f'count="{count}"', head, count=1)
        head = re.sub(r'\buniqueCount="\d+"', f'uniqueCount="{unique}"', head, count=1)
        out.write(head.encode("utf-8"))
        texts = iter(self.index)
        while chunk := list(itertools.islice(texts, BOM_CHUNK_ROWS)):
            out.write("".join(f'<si><t xml:space="preserve">{t}</t></si>'
                              for t in _escape(chunk)).encode("utf-8"))
        out.write(("</sst>" + tail).encode("utf-8"))


def scaffold_string_count(archive: zipfile.ZipFile) -> int:
    """Distinct strings in the scaffold's shared-string table (0 without one)."""
    if "xl/sharedStrings.xml" not in archive.namelist():
        return 0
    head = archive.read("xl/sharedStrings.xml")[:500].decode("utf-8", "replace")
    found = re.search(r'uniqueCount="(\d+)"', head)
    return int(found.group(1)) if found else 0


def _column_field(values: pd.Series, col: Column, letter: str, style: str,
                  strings: SharedStrings) -> tuple[str, np.ndarray]:
    """One column: its ``<c>`` template (``{0}`` = row number, ``{}`` = the field) and the
    field's values (an array: made into Python objects a piece of rows at a time). Cells with a missing value stay in place, empty (``<c r="K5" s="3"></c>``)."""
    head = f'<c r="{letter}{{0}}"' + (f' s="{style}"' if style else "")
    missing = values.isna().to_numpy()
    if col.kind == "bool":
        return head + ' t="b"><v>{}</v></c>', values.fillna(False).astype(bool).to_numpy(
            np.int64)
    if col.kind == "text":
        text = column_text(values) if isinstance(values.dtype, pd.StringDtype) else \
            values.astype(object).where(~missing, "").astype(str).tolist()
        text = np.asarray(neutralise_all(text), dtype=object)
        if _CONTROL.search("".join(set(text.tolist()))):
            text = np.asarray([_CONTROL.sub("", t) for t in text.tolist()], dtype=object)
        missing = missing | (text == "")
        codes = np.zeros(len(text), dtype=np.int64)
        codes[~missing] = strings.codes(text[~missing])
        if not missing.any():
            return head + ' t="s"><v>{}</v></c>', codes
        inner = np.asarray([f' t="s"><v>{c}</v>' for c in codes.tolist()], dtype=object)
        inner[missing] = ">"
        return head + "{}</c>", inner
    numbers, missing = _numbers(values)
    uniq, inverse = np.unique(np.asarray(numbers), return_inverse=True)
    text = np.array([repr(x) for x in uniq.tolist()], dtype=object)[inverse.reshape(-1)]
    if not missing.any():
        return head + "><v>{}</v></c>", text
    inner = "<v>" + text + "</v>"
    inner[missing] = ""
    return head + ">{}</c>", inner


def rows_xml(frame: pd.DataFrame, columns: list[Column], styles: list[str],
             first_row: int, strings: SharedStrings) -> Iterator[str]:
    """SpreadsheetML ``<row>`` elements for ``frame``, the first one numbered ``first_row``,
    ``tuning.BOM_TEXT_ROWS`` rows' text at a time (every column's shared-string codes are
    found for the whole frame first, in column order, so the table is the same for any piece
    size).

    One ``str.format`` template per row (row number + one field per column), mapped over the
    column lists: the per-row work happens inside ``str.format``, not in Python code."""
    templates, fields = [], []
    for i, col in enumerate(columns):
        template, values = _column_field(frame[col.key], col, xl_col_to_name(i), styles[i],
                                         strings)
        templates.append(template.replace("{}", f"{{{i + 1}}}"))
        fields.append(values)
    row = '<row r="{0}">' + "".join(templates) + "</row>"
    for lo in range(0, len(frame), BOM_TEXT_ROWS):
        hi = min(lo + BOM_TEXT_ROWS, len(frame))
        yield "".join(map(row.format, range(first_row + lo, first_row + hi),
                          *(f[lo:hi].tolist() for f in fields)))


_PROBE = {"text": "x", "number": 0, "bool": True}


def _bulk_sheet(wb, fmt: _Formats, title: str, columns: list[Column], n_rows: int) -> None:
    """Header + one placeholder row carrying each column's style; rows are spliced in later."""
    ws = _new_sheet(wb, fmt, title, columns)
    for i, col in enumerate(columns):
        _write_value(ws, 1, i, _PROBE[col.kind], fmt.number(col.fmt))
    if n_rows:
        ws.autofilter(0, 0, n_rows, len(columns) - 1)


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
_DIMENSION = re.compile(r'<dimension ref="[^"]*"/>')


def _splice(src: Path, dst: Path, bulk: dict[str, tuple[list[Column], pd.DataFrame]]) -> None:
    """Copy the package, replacing each bulk sheet's placeholder row by the real rows and
    adding their texts to the shared-string table (written last)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED,
                                                      compresslevel=1) as zout:
        paths = _sheet_paths(zin)
        bulk_paths = {paths[title]: title for title in bulk}
        strings = SharedStrings(scaffold_string_count(zin))
        sst = None
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/sharedStrings.xml":
                sst = info, data
                continue
            if info.filename not in bulk_paths:
                zout.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=6)
                continue
            columns, frame = bulk[bulk_paths[info.filename]]
            text = data.decode("utf-8")
            last = f"{xl_col_to_name(len(columns) - 1)}{max(len(frame), 1) + 1}"
            text = _DIMENSION.sub(f'<dimension ref="A1:{last}"/>', text, count=1)
            probe = _PROBE_ROW.search(text)
            styles = dict((m.group(1), m.group(2) or "") for m in _STYLE.finditer(probe.group(1)))
            style_list = [styles.get(xl_col_to_name(i), "") for i in range(len(columns))]
            # opened by name: the archive's deflate level 1 (fast), fixed 1980 timestamp
            with zout.open(info.filename, "w", force_zip64=True) as fh:
                fh.write(text[:probe.start()].encode("utf-8"))
                for start in range(0, len(frame), BOM_CHUNK_ROWS):
                    chunk = frame.iloc[start:start + BOM_CHUNK_ROWS]
                    for rows in rows_xml(chunk, columns, style_list, start + 2, strings):
                        fh.write(rows.encode("utf-8"))
                fh.write(text[probe.end():].encode("utf-8"))
        info, data = sst
        info.compress_type, info._compresslevel = zipfile.ZIP_DEFLATED, 6   # as writestr sets
        with zout.open(info, "w") as fh:
            strings.write_merged(data, fh)


# ----------------------------------------------------------------------------- entry point

def write(plan, out_dir: Path) -> None:
    """Write ``bom.xlsx`` into ``out_dir``."""
    out_dir = Path(out_dir)
    cables = cable_columns(plan.cables)
    cabinet_frame = cabinets_sheet(plan)
    cabinets = [_generic(key, cabinet_frame[key]) for key in cabinet_frame.columns]
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".bom-") as tmp:
        scaffold = Path(tmp) / "scaffold.xlsx"
        wb = xlsxwriter.Workbook(str(scaffold), {"strings_to_formulas": False,
                                                 "strings_to_urls": False})
        wb.set_properties({"title": "Bill of materials", "comments": "planner plan",
                           "created": created_time()})
        fmt = _Formats(wb, plan_currency(plan))
        last = len(plan.bom) + 1
        _summary_sheet(wb, fmt, plan, last)
        _bom_sheet(wb, fmt, plan.bom, plan.summary.get("bom", {}).get("not_included"))
        if getattr(plan, "bom_growth", None) is not None:     # a grown plan (planner expand)
            _growth_sheet(wb, fmt, plan.bom_growth)
        bulk: dict[str, tuple[list[Column], pd.DataFrame]] = {}
        for title, columns, frame in (("Cables", cables, plan.cables),
                                      ("Cabinets", cabinets, cabinet_frame),
                                      ("Ports", PORTS, plan.ports)):
            for part_title, part in _parts(frame, title):
                _bulk_sheet(wb, fmt, part_title, columns, len(part))
                bulk[part_title] = (columns, part)
        wb.close()
        final = Path(tmp) / FILENAME
        _splice(scaffold, final, bulk)
        shutil.move(final, out_dir / FILENAME)
