"""Supplier quotes: the request-for-quote sheet, reading filled-in quotes, awarding lines.

One RFQ line per BOM line (``rfq_lines``), grouped by manufacturer (the BOM's vendor), with the
quantity to order (quantity + spares). A supplier fills in ``RFQ_BLANK`` and sends the sheet back
as CSV or XLSX; ``read_quote`` turns it into offers, ``award`` picks one offer per line.

A quote line is matched to a BOM line by ``line_key`` alone: the part number, description and
length exactly as the BOM gives them, so the match follows whatever the BOM lists.

Prices: ``unit_price`` in ``currency`` (the plan's currency when empty); a currency other than
the plan's needs a rate (``--rate EUR=1.08``: one EUR costs 1.08 of the plan's currency).
``quantity_breaks`` is ``QTY=PRICE`` pairs separated by ``;`` (``100=85; 500=80``): from QTY units
ordered on, the unit price is PRICE; below the first break, ``unit_price``. A line whose
``valid_until`` date is before the pricing date is refused (reported with its date). An offer
whose ``moq`` exceeds the quantity to order is not taken.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from planner.costing.awards import AWARDS
from planner.costing.bom import CLASS_OF
from planner.run.errors import InputError

RFQ_GIVEN = ["manufacturer", "item", "class", "part_number", "description", "length_m",
             "quantity", "order_number", "ordering_number", "status", "specification",
             "alternatives"]
"""Columns the planner fills in (``part_number``: the line's catalog SKU, which matches a quote
line back to the BOM; ``order_number``: the number to order, or ``generic: supplier part
number`` on a generic line, whose ``specification`` is what the supplier quotes against;
``ordering_number`` and ``status`` as the BOM sheet gives them; ``quantity`` includes spares;
``alternatives``: the catalog's equivalent offers of the line's part not bought,
``planner.inputs.catalog.offers``)."""
RFQ_BLANK = ["supplier", "supplier_part_number", "unit_price", "currency", "quantity_breaks",
             "lead_time_days", "moq", "valid_until"]
"""Columns the supplier fills in."""
RFQ_COLUMNS = RFQ_GIVEN + RFQ_BLANK
DEFAULT_CURRENCY = "USD"
FORMATS = (".csv", ".xlsx")


def line_key(sku, description, length_m) -> tuple[str, str, str]:
    """The key that matches a quote line to a BOM line: part number, description and length
    (``%g`` metres, '' for parts without a length) as the BOM gives them."""
    def text(value) -> str:
        return "" if value is None or (isinstance(value, float) and math.isnan(value)) \
            else str(value).strip()

    try:
        length = float(length_m)
    except (TypeError, ValueError):
        length = math.nan
    return text(sku), text(description), "" if math.isnan(length) else f"{length:g}"


def bom_keys(bom: pd.DataFrame) -> list[tuple[str, str, str]]:
    """``line_key`` of every BOM line, in BOM order."""
    return [line_key(s, d, n) for s, d, n in zip(bom["sku"], bom["description"], bom["length_m"])]


def _text(bom: pd.DataFrame, column: str, default=None) -> np.ndarray:
    """A text column of the BOM ('' where empty), or ``default`` (else '') when it has none."""
    if column not in bom:
        values = default if default is not None else pd.Series([""] * len(bom))
    else:
        values = bom[column]
    return values.fillna("").astype(str).to_numpy(object)


def rfq_lines(bom: pd.DataFrame, alternatives: dict[str, str] | None = None) -> pd.DataFrame:
    """The request for quote: one line per BOM line, grouped by manufacturer (first appearance
    order, BOM order within), supplier columns empty; ``alternatives`` maps a part number to
    the equivalents a supplier may offer instead (empty for the others)."""
    vendor = bom["vendor"].fillna("").astype(str).replace("", "unspecified")
    order = pd.Series(pd.factorize(vendor)[0]).sort_values(kind="stable").index
    out = pd.DataFrame({
        "manufacturer": vendor.to_numpy(), "item": bom["item"].to_numpy(),
        "class": bom["item"].map(CLASS_OF).to_numpy(), "part_number": bom["sku"].to_numpy(),
        "description": bom["description"].to_numpy(), "length_m": bom["length_m"].to_numpy(),
        "quantity": (bom["quantity"] + bom["spares"]).astype(np.int64).to_numpy(),
        "order_number": _text(bom, "part_number", bom["sku"]),
        "ordering_number": _text(bom, "ordering_number"),
        "status": _text(bom, "status"), "specification": _text(bom, "spec"),
        "alternatives": [(alternatives or {}).get(str(sku), "") for sku in bom["sku"]]})
    out = out.iloc[order].reset_index(drop=True)
    for col in RFQ_BLANK:
        out[col] = ""
    return out[RFQ_COLUMNS]


# ----------------------------------------------------------------------------- reading quotes

@dataclass(frozen=True)
class Offer:
    """One priced line of one quote, prices in the plan's currency."""

    key: tuple[str, str, str]
    supplier: str
    unit_price: float
    breaks: tuple[tuple[int, float], ...]   # (from quantity, unit price), ascending
    currency: str
    rate: float
    moq: int
    lead_time_days: float | None
    valid_until: datetime.date | None
    source: str                             # "file row N"
    quantity: int = 0                       # the quantity the quote line asks for

    def price_at(self, quantity: int) -> tuple[float, int]:
        """(unit price, break quantity applied; 0 for the base price) at ``quantity``."""
        price, applied = self.unit_price, 0
        for start, value in self.breaks:
            if quantity >= start:
                price, applied = value, start
        return price, applied


@dataclass
class Quote:
    """The offers of one quote file, and its lines refused as expired."""

    offers: list[Offer] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)


def read_table(path: Path | str) -> pd.DataFrame:
    """A quote file (CSV or the first sheet of an XLSX) as text cells; InputError otherwise."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"quote '{path}': is not a CSV or XLSX file; save the filled-in "
                         "rfq.csv or rfq.xlsx as .csv or .xlsx")
    if not path.is_file():
        raise InputError(f"quote '{path}': no such file; give the path of a filled-in rfq "
                         "sheet")
    try:
        if suffix == ".csv":
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
        else:
            frame = pd.read_excel(path, sheet_name=0, dtype=object)
            frame = frame.map(lambda v: "" if v is None or (isinstance(v, float) and
                                                            math.isnan(v)) else v)
    except Exception as err:  # noqa: BLE001 - any parser failure is a bad file
        kind = "CSV" if suffix == ".csv" else "XLSX"
        raise InputError(f"quote '{path}': cannot be read as {kind} ({err}); save the "
                         f"filled-in rfq sheet as {kind}") from None
    frame.columns = [str(c).strip().lower().replace(" ", "_") for c in frame.columns]
    missing = [c for c in ("part_number", "description", "length_m", "unit_price")
               if c not in frame.columns]
    if missing:
        raise InputError(f"quote '{path}': row 1: column '{missing[0]}' is missing; keep the "
                         "header of the rfq sheet")
    return frame


def _number(value, path, row: int, column: str) -> float | None:
    """A number of at least 0 from a cell (None when empty); InputError naming file, row and
    column otherwise."""
    if isinstance(value, str):
        text = value.strip().replace(",", "")
        if text == "":
            return None
        try:
            value = float(text)
        except ValueError:
            value = math.nan
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
            and value >= 0:
        return float(value)
    raise InputError(f"quote '{path}': row {row}: column '{column}' is {value!r}; give a "
                     "number of at least 0")


def _breaks(text, path, row: int) -> tuple[tuple[int, float], ...]:
    text = str(text).strip()
    if not text:
        return ()
    out = []
    for part in re.split(r"[;\n]", text):
        if not part.strip():
            continue
        found = re.fullmatch(r"\s*(\d+)\s*[=:]\s*([0-9.,]+)\s*", part)
        if not found:
            raise InputError(f"quote '{path}': row {row}: column 'quantity_breaks' has "
                             f"{part.strip()!r}; write QTY=PRICE pairs separated by ';', e.g. "
                             "100=85; 500=80")
        out.append((int(found.group(1)), _number(found.group(2), path, row, "quantity_breaks")))
    return tuple(sorted(out))


def _date(value, path, row: int) -> datetime.date | None:
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    text = str(value).strip()
    if not text:
        return None
    try:
        return datetime.date.fromisoformat(text[:10])
    except ValueError:
        raise InputError(f"quote '{path}': row {row}: column 'valid_until' is {text!r}; give "
                         "a date as YYYY-MM-DD") from None


def parse_rates(texts) -> dict[str, float]:
    """``CUR=RATE`` options (one CUR costs RATE of the plan's currency)."""
    rates = {}
    for text in texts or ():
        found = re.fullmatch(r"\s*([A-Za-z]{3})\s*=\s*([0-9.]+)\s*", str(text))
        rate = float(found.group(2)) if found else 0.0
        if not found or not rate > 0:
            raise InputError(f"--rate {text!r}: write CUR=RATE with a positive rate, e.g. "
                             "--rate EUR=1.08 (one EUR costs 1.08 of the plan's currency)")
        rates[found.group(1).upper()] = rate
    return rates


def read_quote(path: Path | str, known: set[tuple[str, str, str]] | None, *, currency: str,
               rates: dict[str, float], today: datetime.date) -> Quote:
    """The offers of one quote file against the plan's line keys ``known`` (None: any part,
    matched to a catalog later); lines without a
    unit price are skipped (not quoted). InputError (file, row, fix) for a bad price, an
    unknown part, a line repeated at another price or a currency without a rate."""
    frame = read_table(path)
    quote = Quote()
    seen: dict[tuple[str, str, str], tuple[int, Offer]] = {}
    for i, rec in enumerate(frame.to_dict("records")):
        row = i + 2                                     # the header is row 1
        price = _number(rec.get("unit_price", ""), path, row, "unit_price")
        if price is None:
            continue
        key = line_key(rec.get("part_number"), rec.get("description"), rec.get("length_m"))
        if known is not None and key not in known:
            raise InputError(f"quote '{path}': row {row}: part {key[0]!r} ({key[1][:40]!r}, "
                             f"length {key[2] or '-'}) is not a line of the plan's BOM; keep "
                             "part_number, description and length_m as the rfq sheet gives "
                             "them")
        cur = str(rec.get("currency", "") or "").strip().upper() or currency
        if cur != currency and cur not in rates:
            raise InputError(f"quote '{path}': row {row}: prices in {cur} need a rate to "
                             f"{currency}; add --rate {cur}=RATE (one {cur} in {currency})")
        rate = 1.0 if cur == currency else rates[cur]
        breaks = _breaks(rec.get("quantity_breaks", ""), path, row)
        moq = _number(rec.get("moq", ""), path, row, "moq")
        lead = _number(rec.get("lead_time_days", ""), path, row, "lead_time_days")
        valid = _date(rec.get("valid_until", ""), path, row)
        supplier = str(rec.get("supplier", "") or "").strip() or Path(path).stem
        offer = Offer(key=key, supplier=supplier, unit_price=price * rate,
                      breaks=tuple((q, p * rate) for q, p in breaks), currency=cur, rate=rate,
                      moq=int(moq or 0), lead_time_days=lead, valid_until=valid,
                      source=f"{path} row {row}",
                      quantity=int(_number(rec.get("quantity", ""), path, row, "quantity") or 0))
        if key in seen:
            first_row, first = seen[key]
            if (first.unit_price, first.breaks, first.supplier) != \
                    (offer.unit_price, offer.breaks, offer.supplier):
                raise InputError(f"quote '{path}': row {row}: part {key[0]!r} is also on row "
                                 f"{first_row} at another price; keep one line per part")
            continue
        seen[key] = (row, offer)
        if valid is not None and valid < today:
            quote.expired.append(f"{path} row {row}: {supplier} {key[0]} expired "
                                 f"{valid.isoformat()}")
            continue
        quote.offers.append(offer)
    return quote


# ----------------------------------------------------------------------------- awarding

@dataclass(frozen=True)
class Award:
    """The offer taken for one BOM line (None: unquoted, keeps its price)."""

    offer: Offer | None
    unit_price: float
    break_qty: int


def _best(offers: list[Offer], quantity: int) -> tuple[Offer, float, int] | None:
    """The cheapest offer at ``quantity`` (ties: supplier name, then source)."""
    priced = [(o.price_at(quantity), o) for o in offers if o.moq <= quantity]
    if not priced:
        return None
    (price, brk), offer = min(priced, key=lambda t: (t[0][0], t[1].supplier, t[1].source))
    return offer, price, brk


def award(bom: pd.DataFrame, quotes: list[Quote], how: str = "per-line") -> list[Award]:
    """One ``Award`` per BOM line. ``per-line``: the cheapest valid offer of each line;
    ``per-class``: per class (switches, optics, cables, ...) the one supplier whose offers
    make the class cheapest (its unquoted lines keep their price); ``single``: one supplier
    for every line, the same way."""
    if how not in AWARDS:
        raise InputError(f"--award must be one of {', '.join(AWARDS)}, got {how!r}")
    by_key: dict[tuple[str, str, str], list[Offer]] = {}
    for quote in quotes:
        for offer in quote.offers:
            by_key.setdefault(offer.key, []).append(offer)
    keys = bom_keys(bom)
    qty = (bom["quantity"] + bom["spares"]).astype(np.int64).tolist()
    old = bom["unit_price"].astype(float).tolist()

    def pick(i: int, supplier: str | None) -> Award:
        offers = [o for o in by_key.get(keys[i], []) if supplier in (None, o.supplier)]
        best = _best(offers, qty[i])
        if best is None:
            return Award(None, old[i], 0)
        return Award(best[0], best[1], best[2])

    if how == "per-line":
        return [pick(i, None) for i in range(len(bom))]
    groups = (bom["item"].map(CLASS_OF).tolist() if how == "per-class"
              else ["all"] * len(bom))
    suppliers = sorted({o.supplier for offers in by_key.values() for o in offers})
    out: list[Award | None] = [None] * len(bom)
    for group in dict.fromkeys(groups):
        rows = [i for i, g in enumerate(groups) if g == group]
        options = []
        for supplier in suppliers or [None]:
            awards = [pick(i, supplier) if supplier else Award(None, old[i], 0) for i in rows]
            cost = sum(a.unit_price * qty[i] for a, i in zip(awards, rows))
            options.append((cost, supplier or "", awards))
        _cost, _name, awards = min(options, key=lambda t: (t[0], t[1]))
        for i, a in zip(rows, awards):
            out[i] = a
    return out
