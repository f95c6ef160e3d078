"""One truth for every piece (``planner.cabling.pieces``): on a two-hall structured plan every
view of a link through patch panels names the same pieces as its ``segments`` in cables.csv:
the cabinet sheets and patch-rack sheets of wiring.pdf (read back row by row with pypdf),
labels.csv, the viewer's data and trunks.csv. The PDF's order list is bom.xlsx line by line;
every cost table (PDF cover, terminal) adds up to summary.json ``cost.total``; ``by_sku`` and
"m ordered" count each piece once. ``benchmarks/check_pieces.py`` runs the same walk on the
default 10K plan.
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest
import yaml
from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import stringWidth

from planner import exports
from planner.commands.plan import summary_table
from planner.costing.bom import COST_LINES
from planner.exports.wiring_pdf.style import MARGIN_X, MIN_TEXT_PT, PAGE_W
from planner.plan import plan
from planner.topologies.slimfly import slimfly
from test_exports_wiring_pdf import drawing, heading
from test_plan_invariants import segment_pieces
from test_viewer import read_block
from test_viewer_browser import (browser, errors, open_page, plan_folder,  # noqa: F401 (fixture)
                                 shown_cable)

TWO_HALLS = {"extends": "hot-aisle", "name": "two-small",
             "hall": {"rows": "auto", "cabinets_per_row": "auto", "max_rows": 2,
                      "max_cabinets_per_row": 10, "end_aisle_m": 1.2, "cross_tray_every": 10,
                      "count": 4, "link_m": 40, "links": "meet-me"}}
"""The hot-aisle hall cut to 2 rows of 10: a 25-cabinet Slim Fly fills two halls, so links run
inside a row, across rows (through row panels) and across halls (through entry panels)."""


@lru_cache(maxsize=None)
def two_hall_plan(folder: str):
    floor = Path(folder) / "two-small.yaml"
    floor.write_text(yaml.safe_dump(TWO_HALLS))
    return plan(slimfly(q=5), "modern-100g", str(floor), strategy="hint", time_limit_s=5,
                seed=0)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    base = tmp_path_factory.mktemp("pieces")
    p = two_hall_plan(str(base))
    out = base / "plan"
    exports.write_plan(p, out, jobs=1)
    return p, out


@pytest.fixture(scope="module")
def sheets(written):
    """wiring.pdf's rows by section (``pdf_rows``), read once."""
    return pdf_rows(written[1] / "wiring.pdf")


def pdf_rows(path: Path) -> dict[str, list[list[str]]]:
    """Every table row of wiring.pdf by section heading (``Cabinet H1-A01``, ``Patch rack
    H1-A-P0``; continued pages join their first): the texts of one baseline, left to right."""
    reader = PdfReader(path)
    rows: dict[str, list[list[str]]] = defaultdict(list)
    for page in reader.pages:
        title = heading(page.extract_text()).removesuffix(" (continued)")
        texts = sorted(drawing(reader, page)[0], key=lambda t: (-t[1], t[0]))
        line: list = []
        for x, y, _, text in texts:                  # one row: baselines within 1 pt
            if line and line[0][0] - y > 1.0:
                rows[title].append([t for _, _, t in sorted(line, key=lambda c: c[1])])
                line = []
            line.append((y, x, text))
        if line:
            rows[title].append([t for _, _, t in sorted(line, key=lambda c: c[1])])
    return rows


def csv_rows(path: Path) -> list[dict[str, str]]:
    """A CSV's rows; of cables.csv and labels.csv the fabric's (the management cords' rows,
    kind or piece ``mgmt``: tests/test_fabric_devices.py)."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        return [r for r in csv.DictReader(fh) if "mgmt" not in (r.get("kind"), r.get("piece"))]


def structured_links(out: Path) -> list[dict[str, str]]:
    return [r for r in csv_rows(out / "cables.csv") if r["segments"]]


def test_the_plan_has_links_through_row_and_entry_panels(written):
    p, out = written
    kinds = {r["route_kind"] for r in structured_links(out)}
    assert kinds == {"cross-row", "cross-hall"} and p.summary["floor"]["halls"] == 2


def test_pieces_are_the_segments(written):
    """Per link: a cable between devices is one piece, itself; a link through panels is cord A,
    its trunks in order, cord B, with the cords' part numbers and lengths the segments give."""
    p, out = written
    table, legs = p.pieces.table, p.pieces.legs
    by_cable = legs.groupby("cable", sort=True)["piece"].apply(list)
    for k, row in enumerate(csv_rows(out / "cables.csv")):
        pieces = table.iloc[by_cable[k]]
        if not row["segments"]:
            assert pieces["piece_id"].tolist() == [row["cable_id"]]
            assert pieces["sku"].tolist() == [row["sku"]]
            continue
        seg = segment_pieces(row["segments"])
        cords = [x for x in seg if x[0] == "cord"]
        trunks = [x[1] for x in seg if x[0] == "trunk"]
        assert pieces["piece_id"].tolist() == [row["cable_id"] + ".A", *trunks,
                                               row["cable_id"] + ".B"]
        assert pieces["sku"].tolist() == [cords[0][2], *[x[3] for x in seg if x[0] == "trunk"],
                                          cords[1][2]]
        assert pieces["length_m"].iloc[[0, -1]].tolist() == [cords[0][1], cords[1][1]]
        assert (row["a_sku"], row["b_sku"]) == (cords[0][2], cords[1][2])


def test_every_view_names_the_same_pieces(written, sheets):
    """For every link through panels, at each end: the cabinet sheet's row of the device port,
    the patch-rack sheet's row of the panel's front port, both labels of the cord, and the
    viewer's data name the cord, its part number, the panel port and the transceiver that the
    segments (and a_/b_transceiver) give; every trunk of the segments has a row at both of its
    panel ports on the patch-rack sheets."""
    p, out = written
    rows = sheets
    labels = {(r["cable_id"], r["end"]): r for r in csv_rows(out / "labels.csv")}
    trunks = {r["trunk_id"]: r for r in csv_rows(out / "trunks.csv")}
    _, tables = read_block((out / "index.html").read_text(encoding="utf-8"))
    page = pd.DataFrame(tables["cables"]).set_index("cable_id")
    cabinet_rows = {title: {tuple(r[:2]): r for r in body}
                    for title, body in rows.items() if title.startswith("Cabinet ")}
    rack_rows = {title: {tuple(r[:2]): r for r in body}
                 for title, body in rows.items() if title.startswith("Patch rack ")}
    links = structured_links(out)
    assert len(links) > 20
    for link in links:
        seg = segment_pieces(link["segments"])
        ports = [x for x in seg if x[0] == "port"]
        cords = [x for x in seg if x[0] == "cord"]
        for end, cord, (_, panel, port) in (("a", cords[0], ports[0]), ("b", cords[-1], ports[-1])):
            piece = f"{link['cable_id']}.{end.upper()}"
            device = f"{link[end + '_device']}\u00b7{link[end + '_port']}"
            rack = panel.rsplit("-", 1)[0]
            order = f"{labels[(piece, 'A')]['order_length_m']}".removesuffix(".0")
            sheet = cabinet_rows[f"Cabinet {link[end + '_cabinet']}"][(piece, device)]
            assert sheet[3] == f"{panel}\u00b7{port}" and sheet[5] == cord[2], sheet
            assert sheet[6] == order and link[end + "_transceiver"] in sheet, sheet
            front = rack_rows[f"Patch rack {rack}"][(panel, port)]
            assert front[2:6] == ["front", piece, cord[2], order], front
            assert front[6].startswith(device + " "), front
            trunk_id = [x[1] for x in seg if x[0] == "trunk"][0 if end == "a" else -1]
            assert front[7].startswith(trunk_id + " R") or front[7].startswith(trunk_id + " F")
            at_device, at_panel = labels[(piece, "A")], labels[(piece, "B")]
            assert (at_device["this_device"], at_device["this_port"]) == (
                link[end + "_device"], link[end + "_port"])
            assert (at_panel["this_device"], at_panel["this_port"]) == (panel, port)
            assert at_device["sku"] == cord[2] and float(at_device["length_m"]) == cord[1]
            assert at_device["transceiver"] == link[end + "_transceiver"]
            assert page.loc[link["cable_id"], f"{end}_sku"] == cord[2]
            assert page.loc[link["cable_id"], f"{end}_order_m"] == float(order)
        assert page.loc[link["cable_id"], "segments"] == link["segments"]
        for trunk_id in (x[1] for x in seg if x[0] == "trunk"):
            trunk = trunks[trunk_id]
            for e in "ab":
                row = rack_rows[f"Patch rack {trunk[e + '_rack']}"][(trunk[e + "_panel"],
                                                                     trunk[e + "_port"])]
                assert row[3:5] == [trunk_id, trunk["sku"]], row
                other = "b" if e == "a" else "a"
                assert row[6] == f"{trunk[other + '_panel']}\u00b7{trunk[other + '_port']}"


def test_cabinet_headers_count_only_their_own_pieces(written, sheets):
    """A cabinet's header counts the pieces with an end in it: the number of distinct piece
    ids on its sheet, per part number (a cable inside the cabinet once)."""
    p, out = written
    rows = sheets
    for name in p.cabinets["name"]:
        body = rows[f"Cabinet {name}"]
        listed = defaultdict(set)
        for r in body:
            if len(r) == 9 and r[0] not in ("piece", "planner"):     # a schedule row
                listed[r[5]].add(r[0])
        header = {m.group(2): int(m.group(1)) for r in body for t in r
                  if (m := re.fullmatch(r"\s*(\d+) x (\S+) \((?:electrical|optical)\)", t))}
        assert header == {sku: len(ids) for sku, ids in listed.items()}, name


def test_order_list_is_the_bom_line_by_line(written, sheets):
    """The Bill of materials section of wiring.pdf, read back row by row, is bom.xlsx's BOM
    sheet: item, catalog SKU (the sheet's last column; its Part number asks a generic line's
    number of the supplier), quantity, spares and extended price of every line, in order."""
    p, out = written
    sheet = openpyxl.load_workbook(out / "bom.xlsx")["BOM"]
    want = [(r[0], r[-1], int(r[4]), int(r[5]), round((r[4] + r[5]) * r[6], 2))
            for r in sheet.iter_rows(min_row=2, values_only=True) if r[0] in p.bom["item"].values]
    body = sheets["Bill of materials"]
    got = [(r[0], r[1], int(r[-4].replace(",", "")), int(r[-3].replace(",", "")),
            float(r[-1].replace(",", ""))) for r in body if r[0] in set(p.bom["item"])]
    assert got == want and len(got) == len(p.bom)
    assert "Parts to order" in " ".join(" ".join(r) for r in sheets["Summary"])


def test_cost_tables_add_up_to_the_total(written, sheets):
    """The cover's cost lines and the terminal's cost line list every class of the BOM
    (``COST_LINES``) and add up to summary.json ``cost.total``, which is the BOM's sum."""
    p, out = written
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    total = summary["cost"]["total"]
    assert total == pytest.approx(float(p.bom["extended_price"].sum()), abs=0.01)
    cover = [" ".join(r) for r in sheets["Summary"]]
    words = {w for _, w in COST_LINES}
    lines = {}
    for text in cover:
        m = re.search(r"(?:^|\s)([A-Za-z/ ,]+?) USD ([\d,.]+) \([\d.]+ %\)$", text)
        if m and m.group(1).strip() in words:
            lines[m.group(1).strip()] = float(m.group(2).replace(",", ""))
    assert set(lines) == words
    assert sum(lines.values()) == pytest.approx(total, abs=0.05)
    terminal = next(line for line in summary_table(p, out, []).splitlines()
                    if line.startswith("cost "))
    classes = terminal.split(": ", 1)[1]
    shown = [float(v.replace(",", "")) for v in re.findall(r"\$([\d,]+\.\d\d)", classes)]
    assert sum(shown) == pytest.approx(total, abs=0.05)
    assert all(words in classes for _, words, value in
               ((k, w, summary["cost"][k]) for k, w in COST_LINES) if value)


def test_by_sku_and_metres_ordered_count_each_piece_once(written):
    """``by_sku`` counts the pieces the BOM buys (cords two per link through panels, each trunk
    once); network "m ordered" adds each piece's stock length once: the plain cables', both
    cords' and every trunk's of trunks.csv (not once per link it carries)."""
    p, out = written
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    bought = p.bom[p.bom["item"].isin(["cable", "fibre", "trunk"])]
    assert summary["cables"]["by_sku"] == bought.groupby("sku")["quantity"].sum().to_dict()
    rows = csv_rows(out / "cables.csv")
    net = [r for r in rows if r["kind"] == "network"]
    plain = sum(float(r["order_length_m"]) for r in net if not r["segments"])
    cords = sum(float(re.split(r"[-_]", x[-1])[-1].removesuffix("M").removesuffix("m"))
                for r in net if r["segments"]
                for x in segment_pieces(r["segments"]) if x[0] == "cord")
    trunks = sum(float(r["order_length_m"]) for r in csv_rows(out / "trunks.csv"))
    assert summary["cables"]["network"]["order_length_m"] == pytest.approx(
        plain + cords + trunks, abs=1e-6)
    per_link = sum(float(r["order_length_m"]) for r in net)
    assert per_link > plain + cords + trunks            # the old count: a trunk once per link


def test_no_text_below_six_points(written):
    """Every text drawn on the cover, contents, BOM, trunk, patch-rack and cabinet pages is at
    least ``MIN_TEXT_PT`` (6 pt), read back from the PDF's text operators, and ends inside the
    page's right margin (a table too wide at 6 pt would run past it)."""
    _, out = written
    reader = PdfReader(out / "wiring.pdf")
    smallest: dict[str, float] = {}
    for page in reader.pages:
        title = heading(page.extract_text())
        kind = next((k for k in ("Summary", "Contents", "Bill of materials", "Trunks",
                                 "Patch rack ", "Cabinet ") if title.startswith(k)), None)
        if kind:
            texts = drawing(reader, page)[0]
            smallest[kind] = min([smallest.get(kind, 99.0)] + [t[2] for t in texts])
            right = [t for t in texts if t[0] + stringWidth(t[3], "Helvetica", t[2])
                     > PAGE_W - MARGIN_X + 1.0 and t[3] != "\u2192"]
            assert not right, (title, right[:3])
    assert len(smallest) == 6 and min(smallest.values()) >= MIN_TEXT_PT, smallest


def test_labels_pdf_has_no_text_below_six_points(written):
    _, out = written
    reader = PdfReader(out / "labels.pdf")
    sizes = [size for page in list(reader.pages)
             for _, _, size, _ in drawing(reader, page)[0]]
    assert sizes and min(sizes) >= MIN_TEXT_PT


def test_panel_ports_on_the_sheets_are_each_used_once(written, sheets):
    """Every used panel port (each end of a cord or trunk at a panel) appears on exactly one
    patch-rack sheet row, and the sheets list as many ports as the summary counts."""
    p, out = written
    rows = sheets
    ports = [(r[0], r[1]) for title, body in rows.items() if title.startswith("Patch rack ")
             for r in body if r[0] in set(p.structured.panels["name"])]
    assert len(ports) == len(set(ports))
    cords = 2 * len(p.structured.links)
    trunk_ends = 2 * len(p.structured.trunks)
    assert len(ports) == cords + trunk_ends
    assert np.all(p.pieces.table["links"] >= 1)


def cost_rows(driver) -> dict[str, float]:
    """The class rows of the viewer's Cost table (without total and per endpoint), in the
    plan's currency (``USD 1,234.00``)."""
    rows = driver.execute_script("""
        return [...document.querySelectorAll('table[data-table="cost"] tr')]
          .map((tr) => [...tr.children].map((td) => td.textContent));""")
    return {k: float(v.replace(",", "").split()[-1]) for k, v in rows
            if k not in ("total", "per endpoint")}


@pytest.mark.parametrize("name", ["slimfly-hot", "10k"])
def test_viewer_cost_table_adds_up_to_the_total(browser, name):
    """In headless Chromium, on a small plan and the ~10K Slim Fly of the viewer's browser
    tests: one row per class of the BOM, adding up to summary.json cost.total."""
    _, folder = plan_folder(name)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    open_page(browser, folder)
    classes = cost_rows(browser)
    assert set(classes) == {w for _, w in COST_LINES}
    assert sum(classes.values()) == pytest.approx(summary["cost"]["total"], abs=0.05)


def test_viewer_cost_table_and_cable_panel(written, browser):
    """In headless Chromium: the Cost table's class rows add up to summary.json cost.total, and
    the cable panel of a cross-hall link shows at each end the part, transceiver and panel port
    that cables.csv gives (a_/b_sku, a_/b_transceiver, the segments' first and last port)."""
    p, out = written
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    open_page(browser, out)
    classes = cost_rows(browser)
    assert set(classes) == {w for _, w in COST_LINES}
    assert sum(classes.values()) == pytest.approx(summary["cost"]["total"], abs=0.05)
    link = next(r for r in structured_links(out) if r["route_kind"] == "cross-hall")
    open_page(browser, out, f"#cable={link['cable_id']}")
    shown = shown_cable(browser)
    ports = [x for x in segment_pieces(link["segments"]) if x[0] == "port"]
    for end, (_, panel, port) in (("a", ports[0]), ("b", ports[-1])):
        assert shown[f"{end}_part"] == link[f"{end}_sku"]
        assert shown[f"{end}_transceiver"] == link[f"{end}_transceiver"]
        assert shown[f"{end}_lands-on"] == f"{panel}:{port}"
    open_page(browser, out, f"#cable={link['cable_id']}.B")      # a cord's id finds its link
    assert shown_cable(browser)["cable_id"] == link["cable_id"]
    assert errors(browser) == []
