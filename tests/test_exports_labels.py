"""labels.csv (two rows per cable, then two per trunk of structured cabling; UTF-8 with BOM) and
labels.pdf (one label per cable or trunk end)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import stringWidth

from planner.exports import labels, trunks_csv
from test_exports_plans import get_plan
from test_exports_wiring_pdf import drawing

PLANS = ["slimfly-hot", "slimfly-abstract"]


@pytest.fixture(scope="module", params=PLANS)
def written(request, tmp_path_factory):
    plan = get_plan(request.param)
    out = tmp_path_factory.mktemp(request.param)
    labels.write(plan, out)
    return plan, out


def test_csv_has_bom_and_two_rows_per_cable(written):
    plan, out = written
    raw = (out / labels.CSV_NAME).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and not raw[3:].startswith(b"\xef\xbb\xbf")
    rows = pd.read_csv(out / labels.CSV_NAME, encoding="utf-8-sig", dtype=str,
                       keep_default_na=False)
    assert list(rows.columns) == labels.CSV_COLUMNS
    cables = plan.cables
    assert len(rows) == 2 * len(cables) + 2 * trunk_count(plan)
    rows = rows.iloc[:2 * len(cables)]
    assert rows["end"].tolist() == ["A", "B"] * len(cables)
    a, b = rows.iloc[0::2].reset_index(drop=True), rows.iloc[1::2].reset_index(drop=True)
    assert a["cable_id"].tolist() == b["cable_id"].tolist() == cables["cable_id"].tolist()
    assert a["this_device"].tolist() == cables["a_device"].tolist()
    assert a["this_port"].tolist() == cables["a_port"].astype(str).tolist()
    assert b["this_device"].tolist() == cables["b_device"].tolist()
    # each end names its peer: the B row mirrors the A row
    for this, peer in (("this_device", "peer_device"), ("this_port", "peer_port"),
                       ("this_cabinet", "peer_cabinet"), ("this_ru", "peer_ru")):
        assert a[this].tolist() == b[peer].tolist() and a[peer].tolist() == b[this].tolist()
    assert a["label"].tolist() == b["label"].tolist() == cables["label"].tolist()
    assert a["order_length_m"].astype(float).tolist() == cables["order_length_m"].tolist()


def trunk_count(plan) -> int:
    return 0 if plan.structured is None else len(plan.structured.trunks)


def test_trunk_rows_name_both_panel_ports(written):
    """After the cables, each trunk's A and B ends: its panels' ports in their patch racks
    (a panel ``A-P1-01`` is U1 of rack ``A-P1``), as trunks.csv and the segments of the cables
    name them."""
    plan, out = written
    rows = pd.read_csv(out / labels.CSV_NAME, encoding="utf-8-sig", dtype=str,
                       keep_default_na=False).iloc[2 * len(plan.cables):]
    if plan.structured is None:
        assert rows.empty
        return
    trunks = trunks_csv.table(plan.structured)
    assert len(trunks) > 0 and rows["media"].eq("trunk").all()
    a, b = rows.iloc[0::2].reset_index(drop=True), rows.iloc[1::2].reset_index(drop=True)
    assert a["cable_id"].tolist() == b["cable_id"].tolist() == trunks["trunk_id"].tolist()
    assert a["label"].tolist() == (a["this_device"] + ":" + a["this_port"] + "/"
                                   + a["peer_device"] + ":" + a["peer_port"]).tolist()
    for end in (a, b):
        assert (end["this_cabinet"] + "-" + end["this_ru"].str.zfill(2)).tolist() == \
            end["this_device"].tolist()
    named = set(" ".join(plan.cables["segments"]).split())
    assert set(a["cable_id"]) <= named


def test_rack_units_are_text_without_decimals_or_nan(written):
    plan, out = written
    rows = pd.read_csv(out / labels.CSV_NAME, encoding="utf-8-sig", dtype=str,
                       keep_default_na=False).iloc[:2 * len(plan.cables)]
    expected = ["" if pd.isna(v) else str(int(v)) for v in plan.cables["b_ru"]]
    assert rows.iloc[1::2]["this_ru"].tolist() == expected


def test_pdf_has_one_label_per_cable_end(written):
    plan, out = written
    reader = PdfReader(out / labels.PDF_NAME)
    per_page = labels.SHEET["cols"] * labels.SHEET["rows"]
    assert len(reader.pages) == math.ceil(2 * (len(plan.cables) + trunk_count(plan)) / per_page)
    text = "\n".join(page.extract_text() for page in reader.pages)
    for label in plan.cables["label"]:
        assert text.count(label) >= 2, label
    assert text.count("#" + plan.cables["cable_id"].iloc[-1] + " ") == 2
    width_mm = float(reader.pages[0].mediabox.width) * 25.4 / 72
    assert width_mm == pytest.approx(210, abs=0.5)


def test_every_text_line_fits_its_label(written):
    """Each line lies inside one Avery L7651 label, measured in the wider bold face."""
    plan, out = written
    reader = PdfReader(out / labels.PDF_NAME)
    sheet = labels.SHEET
    height = float(reader.pages[0].mediabox.height)
    texts, _ = drawing(reader, reader.pages[-1])
    texts += drawing(reader, reader.pages[0])[0]
    for x, y, size, text in texts:
        col = int((x - sheet["left"]) // sheet["pitch_x"])
        row = int((height - sheet["top"] - y) // sheet["pitch_y"])
        assert 0 <= col < sheet["cols"] and 0 <= row < sheet["rows"], text
        left = sheet["left"] + col * sheet["pitch_x"]
        bottom = height - sheet["top"] - (row + 1) * sheet["pitch_y"]
        assert x + stringWidth(text, "Helvetica-Bold", size) <= left + sheet["width"], text
        assert y - 0.25 * size >= bottom and y + size <= bottom + sheet["height"], text
    assert len(texts) >= 4 * 2


def test_same_plan_gives_identical_files(tmp_path):
    plan = get_plan("slimfly-abstract")
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        labels.write(plan, tmp_path / run)
    for name in (labels.CSV_NAME, labels.PDF_NAME):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
