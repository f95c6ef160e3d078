"""Text from the inputs is never a formula in any CSV file or workbook cell (OWASP CSV injection).

A catalog and a floor whose names, SKUs, vendors and descriptions begin with each character a
spreadsheet takes as the start of a formula (``=``, ``+``, ``-``, ``@``, tab, carriage return)
are planned and written; every CSV file is read back with the ``csv`` module and ``bom.xlsx``
with openpyxl, as a spreadsheet reads them. No text cell may begin with such a character and no
workbook cell holding that text may be a formula, while the text itself is still there (behind
the quote a spreadsheet shows as plain text).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from openpyxl import load_workbook

from planner import exports
from planner.exports.cells import FORMULA_STARTS, neutralise, neutralise_all
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.plan import plan
from planner.topologies.slimfly import slimfly

PAYLOADS = {
    "router_sku": '=HYPERLINK("http://example.invalid/x","click")',
    "router_vendor": "+cmd|' /C calc'!A0",
    "router_description": "-2+3",
    "cable_sku": "@SUM(1+1)",
    "cable_description": "\t=1+1",
    "catalog_name": "\r=2+2",
    "floor_name": "=floor()",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    base = load_catalog("modern-100g")
    routers = [base.routers[0].model_copy(update={"sku": PAYLOADS["router_sku"],
                                                  "vendor": PAYLOADS["router_vendor"],
                                                  "description": PAYLOADS["router_description"]})]
    # the first cable model (the DAC) is named and numbered by the payload: its orderable
    # part numbers are the payload + the length ("@SUM(1+1)-2M")
    cables = [m.model_copy(update={"sku": PAYLOADS["cable_sku"],
                                   "part_numbers": PAYLOADS["cable_sku"] + "-{m}M",
                                   "description": PAYLOADS["cable_description"]})
              if i == 0 else m for i, m in enumerate(base.cables)]
    catalog = base.model_copy(update={"name": PAYLOADS["catalog_name"], "routers": routers,
                                      "cables": cables})
    floor = load_floor("hot-aisle").model_copy(update={"name": PAYLOADS["floor_name"]})
    result = plan(slimfly(5), catalog, floor, strategy="hint")
    assert any(s.startswith(PAYLOADS["cable_sku"]) for s in result.cables["sku"])  # it is used
    out = tmp_path_factory.mktemp("injection") / "plan"
    exports.write_plan(result, out)
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _csv_cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return [cell for row in csv.reader(fh) for cell in row]


def test_no_csv_cell_starts_a_formula(folder):
    files = sorted(folder.rglob("*.csv"))
    assert {"cables.csv", "labels.csv"} <= {p.name for p in files}
    assert any(p.parent.name == "netbox" for p in files)
    seen = set()
    for path in files:
        for cell in _csv_cells(path):
            assert not (cell.startswith(FORMULA_STARTS) and not _is_number(cell)), (path, cell)
            seen.update(k for k, v in PAYLOADS.items() if "'" + v in cell)
    # each payload reached some CSV cell, neutralised (the catalog name is only in bom.xlsx)
    assert seen >= {"router_sku", "router_vendor", "cable_sku", "floor_name"}


def test_cables_and_labels_keep_the_text_behind_a_quote(folder):
    with open(folder / "cables.csv", newline="", encoding="utf-8") as fh:
        skus = {row["sku"] for row in csv.DictReader(fh)}
    assert any(s.startswith("'" + PAYLOADS["cable_sku"]) for s in skus)
    with open(folder / "labels.csv", newline="", encoding="utf-8-sig") as fh:
        assert any(row["sku"].startswith("'" + PAYLOADS["cable_sku"])
                   for row in csv.DictReader(fh))
    with open(folder / "netbox" / "devices.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert "'" + PAYLOADS["router_sku"] in {row["device_type"] for row in rows}
    assert "'" + PAYLOADS["router_vendor"] in {row["manufacturer"] for row in rows}


def test_no_workbook_cell_runs_input_text(folder):
    book = load_workbook(folder / "bom.xlsx")
    found = set()
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                value = cell.value
                if not isinstance(value, str):
                    continue
                hits = {k for k, v in PAYLOADS.items() if v.strip() in value}
                if cell.data_type == "f":
                    assert not hits, (sheet.title, cell.coordinate, value)
                    continue
                assert not value.startswith(FORMULA_STARTS), (sheet.title, cell.coordinate)
                found |= hits
    assert found >= {"router_sku", "router_description", "cable_sku", "cable_description",
                     "catalog_name", "floor_name"}
    bom = book["BOM"]
    assert "'" + PAYLOADS["cable_description"] in {c.value for c in bom["C"]}
    assert any(c.data_type == "f" and c.value.startswith("=(E") for c in bom["H"])  # ours live


@pytest.mark.parametrize("text, safe", [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"), ("@A1", "'@A1"), ("\t=1", "'\t=1"),
    ("\r=1", "'\r=1"), ("A01", "A01"), ("1-2", "1-2"), ("", ""), (" =1", " =1"),
])
def test_neutralise(text, safe):
    assert neutralise(text) == safe
    assert neutralise_all(["x", text]) == ["x", safe]
