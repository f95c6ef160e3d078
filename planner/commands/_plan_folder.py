"""Reading a finished plan folder back (``planner rfq``, ``planner reprice``): the BOM and the
long sheets of ``bom.xlsx`` (their cached values), ``cables.csv`` and ``summary.json``."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from planner.exports import bom_xlsx
from planner.run.errors import InputError


def require(folder: Path | str, *names: str) -> Path:
    """The plan folder, or InputError when it lacks one of ``names``."""
    folder = Path(folder)
    for name in names:
        if not (folder / name).is_file():
            raise InputError(f"--plan '{folder}': has no {name}; give a folder written by "
                             "'planner plan'")
    return folder


def _sheet(book, title: str) -> pd.DataFrame:
    rows = book[title].iter_rows(values_only=True)
    head = next(rows)
    return pd.DataFrame(list(rows), columns=list(head))


def read_bom(book) -> pd.DataFrame:
    """The BOM lines of the BOM sheet (up to the blank row before the subtotals)."""
    frame = _sheet(book, "BOM")
    keys = {c.header: c.key for c in bom_xlsx.BOM}
    frame = frame.rename(columns=keys)
    end = frame["item"].isna().to_numpy()
    frame = frame.iloc[: int(np.argmax(end)) if end.any() else len(frame)]
    bom = frame.drop(columns=["class"]).reset_index(drop=True)
    for col in ("quantity", "spares"):
        bom[col] = bom[col].astype(np.int64)
    for col in ("length_m", "unit_price", "extended_price"):
        bom[col] = bom[col].astype(float)
    for col in ("sku", "description", "vendor"):
        bom[col] = bom[col].fillna("").astype(str)
    return bom


def _keys_of(headers, known: dict[str, str]) -> dict[str, str]:
    names = {v: k for k, v in bom_xlsx._NAMES.items()}
    return {h: known.get(h) or names.get(h) or str(h).lower().replace(" ", "_") for h in headers}


def read_plan(folder: Path | str) -> SimpleNamespace:
    """What the ``bom.xlsx`` and ``summary.json`` writers read from a plan: cables (cables.csv
    plus the Cables sheet's unit price), cabinets, ports, bom, summary."""
    import openpyxl
    folder = require(folder, bom_xlsx.FILENAME, "summary.json", "cables.csv")
    try:
        book = openpyxl.load_workbook(folder / bom_xlsx.FILENAME, read_only=True,
                                      data_only=True)
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        cables = pd.read_csv(folder / "cables.csv", keep_default_na=False,
                             na_values=[""])
        cables = cables[cables["kind"] != "mgmt"].reset_index(drop=True)  # Cables sheet: fabric only
        prices = pd.concat([_sheet(book, t)["Unit price"] for t in book.sheetnames
                            if t == "Cables" or t.startswith("Cables (")], ignore_index=True)
        cabinets = _sheet(book, "Cabinets")
        cabinets = cabinets.rename(columns=_keys_of(cabinets.columns, {}))
        ports = _sheet(book, "Ports")
        ports = ports.rename(columns={c.header: c.key for c in bom_xlsx.PORTS})
        bom = read_bom(book)
    except (OSError, KeyError, ValueError) as err:
        raise InputError(f"--plan '{folder}': cannot read its bom.xlsx, cables.csv or "
                         f"summary.json ({err}); re-run 'planner plan'") from None
    if len(prices) != len(cables):
        raise InputError(f"--plan '{folder}': bom.xlsx has {len(prices)} cables, cables.csv "
                         f"{len(cables)}; re-run 'planner plan'")
    cables["unit_price"] = prices.astype(float).to_numpy()
    for col in ("used",):
        ports[col] = ports[col].astype(bool)
    return SimpleNamespace(cables=cables, cabinets=cabinets, ports=ports, bom=bom,
                           summary=summary)


def currency(summary: dict) -> str:
    """The plan's currency (the catalog's when it gives one, else US dollars)."""
    from planner.costing.quotes import DEFAULT_CURRENCY
    value = summary.get("catalog", {}).get("currency")
    return str(value) if isinstance(value, str) and value else DEFAULT_CURRENCY
