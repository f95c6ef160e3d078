"""bom.xlsx details: formats, widths, frozen headers, sheet splitting, XML escaping, speed path.

Totals and Summary formulas are checked on every plan in test_plan_invariants.py.
"""

import dataclasses

import openpyxl
import pandas as pd
import pytest

from planner.exports import bom_xlsx
from planner.plan import plan
from planner.topologies.slimfly import slimfly
from test_cabling import make_catalog, make_floor, sf_rack_placement
from test_plan_invariants import check_workbook, evaluate


@pytest.fixture(scope="module")
def hand_plan():
    return plan(slimfly(5, p=3), make_catalog(), make_floor(), placement=sf_rack_placement())


@pytest.fixture(scope="module")
def book(hand_plan, tmp_path_factory):
    out = tmp_path_factory.mktemp("xlsx")
    bom_xlsx.write(hand_plan, out)
    assert [p.name for p in out.iterdir()] == ["bom.xlsx"]       # no scaffold left behind
    return openpyxl.load_workbook(out / "bom.xlsx")


def test_sheet_order(book):
    assert book.sheetnames == ["Summary", "BOM", "Cables", "Cabinets", "Ports"]


MONEY = bom_xlsx.money_format("USD")                 # the hand plan's catalog prices in USD


@pytest.mark.parametrize("sheet,header,row,fmt", [
    ("BOM", "Unit price", 2, MONEY), ("BOM", "Extended price", 2, MONEY),
    ("BOM", "Quantity", 2, bom_xlsx.COUNT), ("BOM", "Length (m)", 3, bom_xlsx.METRES),
    ("Cables", "Length (m)", 2, bom_xlsx.METRES), ("Cables", "Unit price", 2, MONEY),
    ("Cables", "Unit price", 326, MONEY),
    ("Cables", "Latency (ns)", 200, bom_xlsx.DECIMAL),
    ("Ports", "Port", 2, bom_xlsx.COUNT), ("Cabinets", "x (m)", 2, bom_xlsx.DECIMAL),
    ("Cabinets", "kW", 2, bom_xlsx.DECIMAL),
])
def test_number_formats(book, sheet, header, row, fmt):
    ws = book[sheet]
    column = [c.value for c in ws[1]].index(header) + 1
    assert ws.cell(row, column).number_format == fmt


def test_summary_count_format(book):
    assert book["Summary"]["B6"].number_format == bom_xlsx.COUNT


@pytest.mark.parametrize("sheet,column,width", [
    ("Cables", "B", 26), ("BOM", "C", 60), ("Ports", "G", 26), ("Summary", "A", 30)])
def test_widths(book, sheet, column, width):
    # XlsxWriter stores the width in characters plus its cell padding (< 1 character)
    assert width <= book[sheet].column_dimensions[column].width < width + 1


@pytest.mark.parametrize("sheet", ["BOM", "Cables", "Cabinets", "Ports"])
def test_frozen_bold_header(book, sheet):
    ws = book[sheet]
    assert ws.freeze_panes == "A2"
    assert ws["A1"].font.b
    assert ws.auto_filter.ref.startswith("A1:")


def test_cable_rows_read_back(book, hand_plan):
    ws = book["Cables"]
    rows = list(ws.iter_rows(min_row=2, values_only=True))
    keys = [c.key for c in bom_xlsx.cable_columns(hand_plan.cables)]
    frame = pd.DataFrame(rows, columns=keys)
    expect = hand_plan.cables[keys].astype(object)
    expect = expect.where(expect.notna() & (expect != ""), None)
    assert frame.to_dict("records") == expect.to_dict("records")


def test_ports_sheet_has_used_and_free_ports(book, hand_plan):
    rows = list(book["Ports"].iter_rows(min_row=2, values_only=True))
    assert len(rows) == 50 * 16
    assert rows[0] == ("r00", 1, True, "n000", 1, "C176", "A01-31:01/A01-01:01")
    assert rows[15] == ("r00", 16, False, None, None, None, None)


def test_bom_subtotals_and_total_line(book, hand_plan):
    """Lines, a blank row, a subtotal per class (its quantities are alike: switches, NICs,
    cables), then the total price with no quantity."""
    ws = book["BOM"]
    last = len(hand_plan.bom) + 1
    assert ws[f"A{last + 1}"].value is None
    below = [[c.value for c in row] for row in ws.iter_rows(min_row=last + 2)]
    below = below[:[r[0] for r in below].index("Total") + 1]   # the not-included list follows
    assert [r[0] for r in below] == ["Subtotal"] * 3 + ["Total"]
    assert [r[9] for r in below[:3]] == ["switches", "nics", "cables"]
    value = {r[9]: (evaluate(r[4], book, ws), evaluate(r[7], book, ws)) for r in below[:3]}
    assert value == {"switches": (50, 500_000), "nics": (150, 45_000),
                     "cables": (325, 31_500)}
    assert below[3][4] is None
    assert evaluate(below[3][7], book, ws) == pytest.approx(576_500)


def test_editing_a_unit_price_updates_the_totals(book, hand_plan):
    """Change the router unit price in the BOM sheet; the Summary formulas follow it."""
    book["BOM"]["G2"].value = 11_000
    summary = book["Summary"]
    labels = {summary[f"A{r}"].value: summary[f"B{r}"].value for r in range(1, 40)}
    assert evaluate(labels["Total cost"], book, summary) == pytest.approx(576_500 + 50 * 1000)
    assert evaluate(labels["Cost per endpoint"], book, summary) == \
        pytest.approx((576_500 + 50_000) / 150)
    book["BOM"]["G2"].value = 10_000


def test_long_sheets_are_split(hand_plan, tmp_path, monkeypatch):
    monkeypatch.setattr(bom_xlsx, "MAX_ROWS", 100)
    bom_xlsx.write(hand_plan, tmp_path)
    wb = openpyxl.load_workbook(tmp_path / "bom.xlsx", read_only=True)
    cable_sheets = [n for n in wb.sheetnames if n.startswith("Cables")]
    assert cable_sheets == ["Cables", "Cables (2)", "Cables (3)", "Cables (4)"]
    labels = []
    for name in cable_sheets:
        rows = list(wb[name].iter_rows(values_only=True))
        assert rows[0][1] == "Label" and len(rows) <= 100
        labels += [r[1] for r in rows[1:]]
    assert labels == hand_plan.cables["label"].tolist()
    assert sum(n.startswith("Ports") for n in wb.sheetnames) == 9     # 800 ports / 99


def test_text_is_xml_escaped(tmp_path):
    catalog = make_catalog()
    cables = [c.model_dump(by_alias=True) for c in catalog.cables]
    cables[0]["sku"] = "DAC <2m> & co"
    odd = make_catalog(cables=cables)
    result = plan(slimfly(5, p=3), odd, make_floor(), placement=sf_rack_placement())
    bom_xlsx.write(result, tmp_path)
    check_workbook(result, tmp_path)
    wb = openpyxl.load_workbook(tmp_path / "bom.xlsx", read_only=True)
    skus = {r[12] for r in wb["Cables"].iter_rows(min_row=2, values_only=True)}
    assert skus == {"DAC <2m> & co", "AOC"}


@pytest.mark.parametrize("text,shown", [("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
                                        ("+1", "'+1"), ("@SUM(A1)", "'@SUM(A1)"),
                                        ("-DAC", "'-DAC"), ("DAC", "DAC")])
def test_input_text_is_neutralised(text, shown, tmp_path):
    """A SKU and a description that would start a formula land as plain text, in the bulk
    sheets (Cables) and the small ones (BOM) alike."""
    catalog = make_catalog()
    cables = [c.model_dump(by_alias=True) for c in catalog.cables]
    cables[0].update(sku=text, description=text)
    result = plan(slimfly(5, p=3), make_catalog(cables=cables), make_floor(),
                  placement=sf_rack_placement())
    bom_xlsx.write(result, tmp_path)
    wb = openpyxl.load_workbook(tmp_path / "bom.xlsx")
    cells = {r[12] for r in wb["Cables"].iter_rows(min_row=2, values_only=True)}
    assert cells == {shown, "AOC"}
    bom = {(r[1], r[2]) for r in wb["BOM"].iter_rows(min_row=2, max_row=len(result.bom) + 1,
                                                     values_only=True)}
    assert (shown, shown) in bom


def test_cached_values_are_what_pandas_reads(book, hand_plan, tmp_path):
    """pandas sees the totals without a spreadsheet recalculating them."""
    bom_xlsx.write(hand_plan, tmp_path)
    frame = pd.read_excel(tmp_path / "bom.xlsx", sheet_name="BOM")
    lines = frame.iloc[:len(hand_plan.bom)]
    assert lines["Extended price"].tolist() == hand_plan.bom["extended_price"].tolist()
    summary = pd.read_excel(tmp_path / "bom.xlsx", sheet_name="Summary", header=1)
    value = dict(zip(summary["Item"], summary["Value"]))
    assert value["Total cost"] == 576_500 and value["Switches"] == 50
    assert value["Cost per endpoint"] == pytest.approx(576_500 / 150)


def test_cabinets_sheet_has_every_column_of_plan_cabinets(hand_plan, tmp_path):
    extra = hand_plan.cabinets.assign(kw=[1.5, 2.0, 2.5, 3.0, 3.5], hall="H1")
    changed = dataclasses.replace(hand_plan, cabinets=extra)
    bom_xlsx.write(changed, tmp_path)
    sheet = pd.read_excel(tmp_path / "bom.xlsx", sheet_name="Cabinets")
    assert len(sheet.columns) == len(extra.columns)
    assert sheet["kW"].tolist() == [1.5, 2.0, 2.5, 3.0, 3.5]
    assert sheet["Hall"].tolist() == ["H1"] * 5
