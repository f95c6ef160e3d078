"""planner rfq / reprice / plan --prices on a real plan folder (issue 23, items 4 and 5).

Three quotes (quantity breaks; expired; EUR with a rate) checked line by line and in total by
hand; the rfq -> fill -> reprice round trip; bad quotes exit 2 and leave the plan folder as it
was; a quote making optics 3x cheaper: reprice reports the saving and plan --prices reaches it.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import zipfile

import openpyxl
import pandas as pd
import pytest

from planner.cli import main
from planner.commands._plan_folder import read_plan
from planner.costing.reprice import link_prices
from planner.inputs.catalog import load_catalog

PLAN = ["plan", "--topology", "slimfly:q=5,p=3", "--strategy", "hint", "--spares", "10",
        "--spares-optics", "5"]


@pytest.fixture(scope="module")
def plan_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("plan") / "p"
    assert main(PLAN + ["--out", str(out)]) == 0
    assert main(["rfq", "--plan", str(out)]) == 0
    return out


def bom_lines(folder) -> pd.DataFrame:
    frame = pd.read_excel(folder / "bom.xlsx", sheet_name="BOM")
    return frame.iloc[:frame["Item"].isna().to_numpy().argmax()]


def rfq(folder) -> pd.DataFrame:
    return pd.read_csv(folder / "rfq.csv", dtype=str, keep_default_na=False)


def digest(folder) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def line(frame, item, length=None):
    rows = frame[frame["item"] == item]
    if length is not None:
        rows = rows[rows["length_m"] == str(length)]
    return rows.index[0]


def test_plan_folder_records_its_catalog(plan_dir):
    recorded = load_catalog(plan_dir / "catalog.yaml")
    assert recorded.model_dump() == load_catalog("modern-100g").model_dump()


def test_rfq_lists_every_bom_line_with_spares(plan_dir):
    bom, sheet = bom_lines(plan_dir), rfq(plan_dir)
    assert len(sheet) == len(bom)
    assert sorted(sheet["part_number"]) == sorted(bom["Catalog SKU"])
    want = dict(zip(bom["Catalog SKU"], (bom["Quantity"] + bom["Spares"]).astype(int)))
    assert {k: int(v) for k, v in zip(sheet["part_number"], sheet["quantity"])} == want
    # grouped by manufacturer: each manufacturer's lines are contiguous
    makers = sheet["manufacturer"].tolist()
    assert makers == sorted(makers, key=makers.index)
    blank = ["supplier", "supplier_part_number", "unit_price", "currency", "quantity_breaks",
             "lead_time_days", "moq", "valid_until"]
    assert (sheet[blank] == "").all().all()
    assert openpyxl.load_workbook(plan_dir / "rfq.xlsx")["RFQ"].max_row == len(sheet) + 1


def test_rfq_says_what_to_order_and_what_a_generic_line_is_quoted_against(plan_dir):
    """Each rfq line carries the BOM sheet's Part number, Ordering number, Status and
    Specification of its line: a generic line asks for the supplier's number and gives the
    specification to quote against; a manufacturer's line gives its complete number."""
    bom, sheet = bom_lines(plan_dir), rfq(plan_dir)
    by_sku = bom.astype(object).fillna("").set_index("Catalog SKU")
    for rec in sheet.itertuples(index=False):
        line = by_sku.loc[rec.part_number]
        assert (rec.order_number, rec.ordering_number, rec.status, rec.specification) == (
            str(line["Part number"]), str(line["Ordering number"]), str(line["Status"]),
            str(line["Specification"]))
    generic = sheet[sheet["order_number"] == "generic: supplier part number"]
    assert len(generic) and (generic["specification"] != "").all()
    assert (sheet.loc[sheet.index.difference(generic.index), "order_number"]
            != "generic: supplier part number").all()


def three_quotes(plan_dir, where):
    sheet = rfq(plan_dir)
    sw, tr = line(sheet, "switch"), line(sheet, "transceiver")
    dac = line(sheet, "cable", 2)
    a = sheet.copy()
    a["supplier"] = "Acme"
    a.loc[sw, ["unit_price", "quantity_breaks"]] = ["15000", "40=14000; 100=13000"]
    a.loc[tr, "unit_price"] = "120"
    a.to_csv(where / "acme.csv", index=False)
    b = sheet.copy()
    b["supplier"] = "Bygone"
    b.loc[tr, ["unit_price", "valid_until"]] = ["50", "2020-01-31"]
    b.to_csv(where / "bygone.csv", index=False)
    c = sheet.copy()
    c["supplier"] = "Euro"
    c.loc[dac, ["unit_price", "currency"]] = ["70", "EUR"]
    c.loc[tr, ["unit_price", "currency"]] = ["110", "EUR"]
    c.to_excel(where / "euro.xlsx", index=False)
    return [where / "acme.csv", where / "bygone.csv", where / "euro.xlsx"]


def test_three_quotes_by_hand(plan_dir, tmp_path, capsys):
    quotes = three_quotes(plan_dir, tmp_path)
    out = tmp_path / "new"
    args = ["reprice", "--plan", str(plan_dir), "--out", str(out), "--rate", "EUR=1.1",
            "--date", "2026-06-01", "--no-replan"]
    for q in quotes:
        args += ["--quote", str(q)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "2020-01-31" in printed and "Bygone" in printed            # expired, refused
    old, new = bom_lines(plan_dir), bom_lines(out)
    qty = dict(zip(old["Catalog SKU"], old["Quantity"] + old["Spares"]))
    price = dict(zip(old["Catalog SKU"], old["Unit price"]))
    # by hand: 50 switches reach the 40 break (not 100); optics 120 $ (Acme) beats 110 EUR x
    # 1.1 = 121 $ (Euro) and the expired 50 $; the 2 m DAC 70 EUR x 1.1 = 77 $
    expect = dict(price)
    expect["MSN3700C-CS2FC"], expect["MMA1B00-C100D"], expect["MCP1600-C002E30N"] = 14000, 120, 77
    assert qty["MSN3700C-CS2FC"] == 50
    assert dict(zip(new["Catalog SKU"], new["Unit price"])) == pytest.approx(expect)
    for _, r in new.iterrows():
        assert r["Extended price"] == pytest.approx((r["Quantity"] + r["Spares"])
                                                    * expect[r["Catalog SKU"]])
    total = sum(qty[k] * expect[k] for k in qty)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cost"]["total"] == pytest.approx(total)
    saved = (17000 - 14000) * 50 + (350 - 120) * qty["MMA1B00-C100D"] \
        + (90 - 77) * qty["MCP1600-C002E30N"]
    assert summary["reprice"]["total_before"] - total == pytest.approx(saved)
    delta = pd.read_csv(out / "delta.csv")
    assert delta["delta"].sum() == pytest.approx(-saved)
    row = delta[delta["sku"] == "MSN3700C-CS2FC"].iloc[0]
    assert (row["supplier"], row["break_qty"], row["new_unit_price"]) == ("Acme", 40, 14000)
    assert (delta["quote"] == "unquoted").sum() == len(delta) - 3
    # Summary formulas and the Cables sheet follow the new prices
    book = openpyxl.load_workbook(out / "bom.xlsx", data_only=True)
    cables = pd.read_excel(out / "bom.xlsx", sheet_name="Cables")
    before = pd.read_excel(plan_dir / "bom.xlsx", sheet_name="Cables")
    moved = (cables["Unit price"] - before["Unit price"]).sum()
    tr_change = (120 - 350) * old.loc[old["Catalog SKU"] == "MMA1B00-C100D", "Quantity"].sum()
    dac_change = (77 - 90) * old.loc[old["Catalog SKU"] == "MCP1600-C002E30N", "Quantity"].sum()
    assert moved == pytest.approx(tr_change + dac_change)
    totals = {r[0].value: r[1].value for r in book["Summary"].iter_rows(min_row=3)}
    assert totals["Total cost"] == pytest.approx(total)
    assert (out / "cables.csv").read_bytes() == (plan_dir / "cables.csv").read_bytes()


def _without_cached_values(src, dst) -> int:
    """Copy a workbook with the cached value of every formula removed (so LibreOffice, which
    keeps cached values of .xlsx files on load, must compute them); returns how many."""
    count = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.startswith("xl/worksheets/"):
                data, n = re.subn(rb"(<f>[^<]*</f>)<v>[^<]*</v>", rb"\1", data)
                count += n
            zout.writestr(info, data)
    return count


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_recalculates_to_cached_values(plan_dir, tmp_path):
    quotes = three_quotes(plan_dir, tmp_path)
    out = tmp_path / "new"
    args = ["reprice", "--plan", str(plan_dir), "--out", str(out), "--rate", "EUR=1.1",
            "--date", "2026-06-01", "--no-replan"] + sum([["--quote", str(q)] for q in quotes],
                                                         [])
    assert main(args) == 0
    for name in ("bom.xlsx", "delta.xlsx"):
        stripped = tmp_path / f"stripped-{name}"
        assert _without_cached_values(out / name, stripped) > 0
        conv = tmp_path / f"lo-{name}"
        subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{tmp_path}/lo",
                        "--convert-to", "xlsx", "--outdir", str(conv), str(stripped)],
                       check=True, capture_output=True, timeout=300)
        formulas = openpyxl.load_workbook(out / name)
        ours = openpyxl.load_workbook(out / name, data_only=True)
        theirs = openpyxl.load_workbook(conv / stripped.name, data_only=True)
        checked = 0
        for ws in formulas:
            if ws.title not in ("Summary", "BOM", "Delta"):
                continue
            for row in ws.iter_rows():
                for c in row:
                    if isinstance(c.value, str) and c.value.startswith("="):
                        mine = ours[ws.title][c.coordinate].value
                        assert theirs[ws.title][c.coordinate].value == pytest.approx(mine), \
                            (name, ws.title, c.coordinate, c.value)
                        checked += 1
        assert checked > 10


def fill_xlsx(plan_dir, path, prices) -> None:
    """Fill rfq.xlsx's unit_price cells in a spreadsheet program's way (numbers in cells)."""
    book = openpyxl.load_workbook(plan_dir / "rfq.xlsx")
    ws = book["RFQ"]
    head = [c.value for c in ws[1]]
    part, price = head.index("part_number") + 1, head.index("unit_price") + 1
    for r in range(2, ws.max_row + 1):
        ws.cell(r, price).value = prices[ws.cell(r, part).value]
    book.save(path)


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_round_trip_rfq_fill_reprice(plan_dir, tmp_path, kind):
    sheet = rfq(plan_dir)
    old = bom_lines(plan_dir)
    halves = dict(zip(old["Catalog SKU"], (old["Unit price"] / 2).round(2)))
    quote = tmp_path / f"q.{kind}"
    if kind == "csv":
        sheet["unit_price"] = [f"{halves[p]:.2f}" for p in sheet["part_number"]]
        sheet.to_csv(quote, index=False)
    else:
        fill_xlsx(plan_dir, quote, halves)
    out = tmp_path / "new"
    assert main(["reprice", "--plan", str(plan_dir), "--quote", str(quote),
                 "--out", str(out), "--no-replan"]) == 0
    hand = sum(int(q) * halves[p] for p, q in zip(sheet["part_number"], sheet["quantity"]))
    assert json.loads((out / "summary.json").read_text())["cost"]["total"] == \
        pytest.approx(hand)
    assert (out / "cables.csv").read_bytes() == (plan_dir / "cables.csv").read_bytes()
    assert (out / "labels.csv").read_bytes() == (plan_dir / "labels.csv").read_bytes()
    assert not (out / "wiring.pdf").exists() and not (out / "index.html").exists()


def test_plan_prices_refuses_a_part_the_catalog_lacks(tmp_path, capsys):
    path = tmp_path / "q.csv"
    pd.DataFrame({"part_number": ["NO-SUCH-PART"], "description": ["x"], "length_m": [""],
                  "unit_price": ["10"]}).to_csv(path, index=False)
    out = tmp_path / "p"
    assert main(PLAN + ["--out", str(out), "--prices", str(path)]) == 2
    err = capsys.readouterr().err
    assert "q.csv" in err and "row 2" in err and "NO-SUCH-PART" in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def _bad(kind, plan_dir, tmp_path):
    sheet = rfq(plan_dir)
    tr = line(sheet, "transceiver")
    path = tmp_path / "q.csv"
    if kind == "negative":
        sheet.loc[tr, "unit_price"] = "-5"
    elif kind == "text":
        sheet.loc[tr, "unit_price"] = "cheap"
    elif kind == "unknown":
        sheet.loc[tr, ["part_number", "unit_price"]] = ["NO-SUCH-PART", "10"]
    elif kind == "duplicate":
        sheet.loc[tr, "unit_price"] = "10"
        sheet = pd.concat([sheet, sheet.loc[[tr]].assign(unit_price="12")])
    elif kind == "currency":
        sheet.loc[tr, ["unit_price", "currency"]] = ["10", "GBP"]
    elif kind == "format":
        path = tmp_path / "q.txt"
    sheet.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("kind,words", [
    ("negative", ["row {row}", "unit_price", "at least 0"]),
    ("text", ["row {row}", "unit_price", "number"]),
    ("unknown", ["row {row}", "NO-SUCH-PART", "keep part_number"]),
    ("duplicate", ["row {last}", "also on row {row}", "one line per part"]),
    ("currency", ["row {row}", "GBP", "--rate GBP="]),
    ("format", ["q.txt", "CSV or XLSX"]),
])
def test_bad_quote_exits_2_and_writes_nothing(plan_dir, tmp_path, capsys, kind, words):
    quote = _bad(kind, plan_dir, tmp_path)
    before = digest(plan_dir)
    out = tmp_path / "new"
    code = main(["reprice", "--plan", str(plan_dir), "--quote", str(quote), "--out", str(out),
                 "--no-replan"])
    printed, err = capsys.readouterr()
    assert code == 2 and printed == ""
    assert len(err.strip().splitlines()) == 1
    sheet = rfq(plan_dir)
    rows = {"row": line(sheet, "transceiver") + 2, "last": len(sheet) + 2}
    assert str(quote.name) in err and all(w.format(**rows) in err for w in words), err
    assert not out.exists()
    assert digest(plan_dir) == before


def test_cheaper_optics_saving_reached_by_plan_prices(plan_dir, tmp_path):
    sheet = rfq(plan_dir)
    old = bom_lines(plan_dir)
    price = dict(zip(old["Catalog SKU"], old["Unit price"]))
    optics = sheet["class"] == "optics"
    sheet.loc[optics, "unit_price"] = [f"{price[p] / 3:.4f}" for p in
                                       sheet.loc[optics, "part_number"]]
    sheet.to_csv(tmp_path / "q.csv", index=False)
    out = tmp_path / "new"
    assert main(["reprice", "--plan", str(plan_dir), "--quote", str(tmp_path / "q.csv"),
                 "--out", str(out)]) == 0
    note = json.loads((out / "summary.json").read_text())["reprice"]
    repriced = json.loads((out / "summary.json").read_text())["cost"]["total"]
    replan = note["replan"]
    assert replan["available"]
    assert replan["saving"] == pytest.approx(repriced - replan["total"])
    assert replan["saving"] >= 0
    again = tmp_path / "replanned"
    assert main(PLAN + ["--out", str(again), "--prices", str(tmp_path / "q.csv")]) == 0
    replanned = json.loads((again / "summary.json").read_text())
    total = replanned["cost"]["total"]
    assert replanned["prices"]["quotes"] == [str(tmp_path / "q.csv")]
    assert total == pytest.approx(replan["total"])
    assert total <= repriced


def test_link_prices_spread_every_link_part_change(plan_dir):
    """Halving one line of each link-part item moves the links' prices by exactly what those
    lines' quantities save, only on links that use them (structured cords and trunks
    included)."""
    plan = read_plan(plan_dir)
    old = plan.bom
    new = old.copy()
    changed = [old.index[old["item"] == item][0] for item in
               ("transceiver", "cable", "fibre", "trunk") if (old["item"] == item).any()]
    assert len(changed) == 4                                # the plan has structured cabling
    new.loc[changed, "unit_price"] = old.loc[changed, "unit_price"] / 2
    moved = link_prices(plan.cables, old, new) - plan.cables["unit_price"].to_numpy()
    saved = (old.loc[changed, "unit_price"] / 2 * old.loc[changed, "quantity"]).sum()
    assert moved.sum() == pytest.approx(-saved)
    skus = set(old.loc[changed, "sku"])
    segments = plan.cables["segments"].fillna("").astype(str)
    uses = (plan.cables["sku"].isin(skus) | plan.cables["a_transceiver"].isin(skus)
            | plan.cables["b_transceiver"].isin(skus)
            | segments.map(lambda t: any(s in t for s in skus)))
    assert (moved[~uses.to_numpy()] == 0).all() and (moved[uses.to_numpy()] < 0).all()


def test_rfq_keeps_a_filled_in_sheet(plan_dir, capsys):
    filled = plan_dir / "rfq.csv"
    original = filled.read_bytes()
    sheet = rfq(plan_dir)
    sheet.loc[0, "unit_price"] = "1"
    try:
        sheet.to_csv(filled, index=False)
        before = digest(plan_dir)
        assert main(["rfq", "--plan", str(plan_dir)]) == 2
        assert "rfq.csv" in capsys.readouterr().err
        assert digest(plan_dir) == before
    finally:
        filled.write_bytes(original)
    assert main(["rfq", "--plan", str(plan_dir)]) == 0        # an unfilled sheet is rewritten
    assert filled.read_bytes() == original
