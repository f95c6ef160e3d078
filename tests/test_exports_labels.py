"""labels.csv (two rows per installed piece: cables, each link's patch cords through panels,
trunks; UTF-8 with BOM) and labels.pdf (one label per piece end), checked against the links'
``segments`` in cables.csv and trunks.csv, read as an installer reads them."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import stringWidth

from planner.exports import labels, trunks_csv
from test_exports_plans import get_plan
from test_exports_wiring_pdf import drawing
from test_plan_invariants import segment_pieces

PLANS = ["slimfly-hot", "slimfly-abstract"]


@pytest.fixture(scope="module", params=PLANS)
def written(request, tmp_path_factory):
    plan = get_plan(request.param)
    out = tmp_path_factory.mktemp(request.param)
    labels.write(plan, out)
    return plan, out


def read_rows(out) -> pd.DataFrame:
    """labels.csv's rows of the fabric's pieces (the management cords' rows, piece ``mgmt``,
    after them: tests/test_fabric_devices.py)."""
    rows = pd.read_csv(out / labels.CSV_NAME, encoding="utf-8-sig", dtype=str,
                       keep_default_na=False)
    return rows[rows["piece"] != "mgmt"]


def trunk_count(plan) -> int:
    return 0 if plan.structured is None else len(plan.structured.trunks)


def test_csv_has_bom_and_two_rows_per_piece(written):
    """Pieces: a cable between devices is one; a link through panels (segments) two cords; and
    each trunk once. The A and B rows of a piece mirror each other."""
    plan, out = written
    raw = (out / labels.CSV_NAME).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and not raw[3:].startswith(b"\xef\xbb\xbf")
    rows = read_rows(out)
    assert list(rows.columns) == labels.CSV_COLUMNS
    cables = plan.cables
    through = int((cables["segments"] != "").sum())
    assert len(rows) == 2 * (len(cables) + through + trunk_count(plan))
    assert rows["end"].tolist() == ["A", "B"] * (len(rows) // 2)
    a, b = rows.iloc[0::2].reset_index(drop=True), rows.iloc[1::2].reset_index(drop=True)
    assert a["cable_id"].tolist() == b["cable_id"].tolist()
    assert a["cable_id"].is_unique
    for this, peer in (("this_device", "peer_device"), ("this_port", "peer_port"),
                       ("this_cabinet", "peer_cabinet"), ("this_ru", "peer_ru")):
        assert a[this].tolist() == b[peer].tolist() and a[peer].tolist() == b[this].tolist()
    assert a["label"].tolist() == b["label"].tolist()
    plain = cables[cables["segments"] == ""]
    got = a.set_index("cable_id").loc[plain["cable_id"]]
    assert got["this_device"].tolist() == plain["a_device"].tolist()
    assert got["this_port"].tolist() == plain["a_port"].astype(str).tolist()
    assert got["peer_device"].tolist() == plain["b_device"].tolist()
    assert got["label"].tolist() == plain["label"].tolist()
    assert got["order_length_m"].astype(float).tolist() == plain["order_length_m"].tolist()
    assert set(got["piece"]) <= {"cable"}


def test_a_link_through_panels_has_a_label_at_every_cord_end(written):
    """Each cord of a link through panels: its device end (the link's port, its transceiver)
    and its panel end (the front port the segments name), with the cord's own part, length and
    far end, never the link's."""
    plan, out = written
    rows = read_rows(out).set_index(["cable_id", "end"])
    links = plan.cables[plan.cables["segments"] != ""]
    if plan.structured is None:
        ids = rows.index.get_level_values(0)
        assert links.empty and not ids.str.contains(".", regex=False).any()
        return
    assert len(links) > 0
    for link in links.itertuples(index=False):
        pieces = segment_pieces(link.segments)
        ports = [x for x in pieces if x[0] == "port"]
        cords = [x for x in pieces if x[0] == "cord"]
        for end, cord, port, device, dev_port, cabinet, optic, label_end in (
                ("A", cords[0], ports[0], link.a_device, link.a_port, link.a_cabinet,
                 link.a_transceiver, link.label.split("/")[0]),
                ("B", cords[-1], ports[-1], link.b_device, link.b_port, link.b_cabinet,
                 link.b_transceiver, link.label.split("/")[1])):
            at_device = rows.loc[(f"{link.cable_id}.{end}", "A")]
            at_panel = rows.loc[(f"{link.cable_id}.{end}", "B")]
            assert (at_device["this_device"], at_device["this_port"],
                    at_device["this_cabinet"]) == (device, str(dev_port), cabinet)
            assert at_device["transceiver"] == optic and at_panel["transceiver"] == ""
            assert (at_panel["this_device"], at_panel["this_port"]) == port[1:]
            assert at_panel["this_cabinet"] == port[1].rsplit("-", 1)[0]     # its patch rack
            assert at_device["sku"] == cord[2] and float(at_device["length_m"]) == cord[1]
            assert float(at_device["order_length_m"]) < link.order_length_m
            assert at_device["label"] == f"{label_end}/{port[1]}:{port[2]}"
            assert at_device["piece"] == "cord"


def test_trunk_rows_name_both_panel_ports(written):
    """After the cables and cords, each trunk's A and B ends: its panels' ports in their patch
    racks (a panel ``A-P1-01`` is U1 of rack ``A-P1``), as trunks.csv and the segments of the
    cables name them."""
    plan, out = written
    rows = read_rows(out)
    rows = rows[rows["piece"] == "trunk"]
    if plan.structured is None:
        assert rows.empty
        return
    trunks = trunks_csv.table(plan.structured)
    assert len(trunks) > 0 and rows.index.min() == len(read_rows(out)) - 2 * len(trunks)
    a, b = rows.iloc[0::2].reset_index(drop=True), rows.iloc[1::2].reset_index(drop=True)
    assert a["cable_id"].tolist() == b["cable_id"].tolist() == trunks["trunk_id"].tolist()
    assert a["label"].tolist() == (a["this_device"] + ":" + a["this_port"] + "/"
                                   + a["peer_device"] + ":" + a["peer_port"]).tolist()
    assert a["order_length_m"].astype(float).tolist() == trunks["order_length_m"].tolist()
    for end in (a, b):
        assert (end["this_cabinet"] + "-" + end["this_ru"].str.zfill(2)).tolist() == \
            end["this_device"].tolist()
    named = set(" ".join(plan.cables["segments"]).split())
    assert set(a["cable_id"]) <= named


def test_rack_units_are_text_without_decimals_or_nan(written):
    plan, out = written
    rows = read_rows(out).set_index(["cable_id", "end"])
    plain = plan.cables[plan.cables["segments"] == ""]
    expected = ["" if pd.isna(v) else str(int(v)) for v in plain["b_ru"]]
    got = rows.loc[[(c, "B") for c in plain["cable_id"]], "this_ru"].tolist()
    assert got == expected


def test_pdf_has_one_label_per_piece_end(written):
    """One label per row of labels.csv: each prints its piece's label (over two lines, split
    after the ``/``) and its id twice, once per end."""
    plan, out = written
    rows = read_rows(out)
    reader = PdfReader(out / labels.PDF_NAME)
    per_page = labels.SHEET["cols"] * labels.SHEET["rows"]
    cords = 0 if plan.fabric is None else len(plan.fabric.cords)    # two labels each
    assert len(reader.pages) == math.ceil((len(rows) + 2 * cords) / per_page)
    texts = [t for page in reader.pages for _, _, _, t in drawing(reader, page)[0]]
    counts = pd.Series(texts).value_counts()
    halves = rows["label"].str.split("/", n=1)
    for first, second in set(zip(halves.str[0], halves.str[1])):
        assert counts.get(first + "/", 0) >= 2 and counts.get(second, 0) >= 2, (first, second)
    last = rows.iloc[-1]
    assert sum(t.startswith(f"#{last['cable_id']} ") for t in texts) == 2
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
        assert size >= labels.MIN_SIZE, text
    assert len(texts) >= 5 * 2


def test_same_plan_gives_identical_files(tmp_path):
    plan = get_plan("slimfly-abstract")
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        labels.write(plan, tmp_path / run)
    for name in (labels.CSV_NAME, labels.PDF_NAME):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
