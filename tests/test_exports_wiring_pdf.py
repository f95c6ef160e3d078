"""wiring.pdf read back with pypdf: structure, floor plan, every cable label, page numbering."""

from __future__ import annotations

import re

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream
from reportlab.pdfgen.canvas import Canvas

from planner.exports import trunks_csv, wiring_pdf
from planner.exports.wiring_pdf.groups import GroupPairs, group_pairs
from planner.inputs.floor import cabinet_name
from test_exports_plans import get_plan

PLANS = ["slimfly-hot", "slimfly-abstract", "dragonfly-hot"]


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory):
    out = {}
    for name in PLANS:
        folder = tmp_path_factory.mktemp(name)
        wiring_pdf.write(get_plan(name), folder)
        reader = PdfReader(folder / wiring_pdf.FILENAME)
        out[name] = (get_plan(name), reader, [p.extract_text() for p in reader.pages])
    return out


def heading(text: str) -> str:
    """The section heading: the line after the running header and footer lines."""
    lines = text.splitlines()
    return next(line for line in lines if not line.startswith(("Wiring plan -", "planner -")))


@pytest.mark.parametrize("name", PLANS)
def test_every_piece_label_and_end_appears(pdfs, name):
    """The label of every piece at a device (a cable, or a link's patch cord) is on a cabinet
    sheet; a link through panels prints its cords' labels, not its own."""
    plan, _, texts = pdfs[name]
    text = "\n".join(t for t in texts if heading(t).startswith("Cabinet "))
    pieces = plan.pieces.table
    labels = pieces.loc[pieces["role"] != "trunk", "label"]
    missing = [label for label in labels if label not in text]
    assert not missing, missing[:5]
    through = plan.cables[plan.cables["segments"] != ""]
    assert not [label for label in through["label"] if label in text]
    first = plan.cables.iloc[0]
    assert f"{first.a_device}\u00b7{first.a_port}" in text
    assert f"{first.b_device}\u00b7{first.b_port}" in text


def test_page_count_grows_with_cabinets(pdfs):
    one_rack, _, one_texts = pdfs["slimfly-abstract"]
    many, _, many_texts = pdfs["slimfly-hot"]
    assert len(one_rack.cabinets) == 1 and len(many.cabinets) == 25
    assert len(many_texts) > len(one_texts)
    front = sum(1 for t in many_texts if not heading(t).startswith("Cabinet"))
    assert len(many_texts) >= front + len(many.cabinets)     # every cabinet starts a page
    cabinet_pages = [t for t in many_texts if heading(t).startswith("Cabinet ")]
    assert {heading(t) for t in cabinet_pages} == {f"Cabinet {n}" for n in many.cabinets["name"]}


@pytest.mark.parametrize("name", PLANS)
def test_floor_plan_page_shows_every_cabinet(pdfs, name):
    plan, _, texts = pdfs[name]
    floor = next(t for t in texts if heading(t) == "Floor plan")
    words = set(re.findall(r"[A-Z]+\d+", floor))
    assert set(plan.cabinets["name"]) <= words
    groups = set(re.findall(r"\bg(\d+)\b", floor))
    assert {str(g) for g in plan.cabinets["group"]} <= groups
    assert re.search(r"1 : [\d,]+ on A4", floor)


def drawing(reader: PdfReader, page) -> tuple[list, list]:
    """(texts, boxes) of a page read from its content stream with pypdf's parser: texts as
    (x, y, font size, text) at each ``Tj``/``'``, boxes as (x, y, w, h) of stroked rectangles."""
    texts, boxes, pending = [], [], []
    x = y = size = leading = 0.0
    for operands, op in ContentStream(page.get_contents(), reader).operations:
        if op == b"Tf":
            size = float(operands[1])
        elif op == b"TL":
            leading = float(operands[0])
        elif op == b"Tm":
            x, y = float(operands[4]), float(operands[5])
        elif op == b"Tj":
            texts.append((x, y, size, str(operands[0])))
        elif op == b"'":
            y -= leading
            texts.append((x, y, size, str(operands[0])))
        elif op == b"re":
            pending.append(tuple(float(v) for v in operands))
        elif op in (b"B", b"b", b"S", b"s"):
            boxes += pending
            pending = []
        elif op in (b"f", b"F", b"f*", b"n"):
            pending = []
    return texts, boxes


@pytest.mark.parametrize("name", PLANS)
def test_floor_plan_draws_one_box_per_cabinet_to_scale(pdfs, name):
    plan, reader, texts = pdfs[name]
    page = reader.pages[next(i for i, t in enumerate(texts) if heading(t) == "Floor plan")]
    words, boxes = drawing(reader, page)
    cab = plan.cabinets
    found = {}
    for x, y, _, text in words:
        if text in set(cab["name"]):
            assert text not in found, f"cabinet {text} named twice on the overview"
            inside = [b for b in boxes if b[0] <= x <= b[0] + b[2] and b[1] <= y <= b[1] + b[3]]
            assert len(inside) == 1, (text, inside)
            found[text] = inside[0]
    assert set(found) == set(cab["name"])
    assert len(set(found.values())) == len(cab)
    sizes = {(round(w, 2), round(h, 2)) for _, _, w, h in found.values()}
    assert len(sizes) == 1
    ((w, h),) = sizes
    racks = 0 if plan.structured is None else len(plan.structured.racks)   # cabinets' size
    assert sum(1 for b in boxes if (round(b[2], 2), round(b[3], 2)) == (w, h)) == len(cab) + racks
    scale = w / plan.floor.cabinet_width_m                       # points per metre
    assert h / plan.floor.cabinet_depth_m == pytest.approx(scale, rel=1e-2)
    left = np.array([found[n][0] for n in cab["name"]]) - cab["x_m"].to_numpy() * scale
    top = np.array([found[n][1] + found[n][3] for n in cab["name"]]) + cab["y_m"].to_numpy() * scale
    assert np.ptp(left) < 0.05 and np.ptp(top) < 0.05          # every box where the floor puts it
    denominator = int(re.search(r"1 : ([\d,]+) on A4", texts[reader.get_page_number(page)])
                      .group(1).replace(",", ""))
    assert denominator == pytest.approx(1000 / (scale * 25.4 / 72), abs=1)


def test_tall_floor_overview_stays_clear_of_the_legend(tmp_path):
    """40 rows of 2 cabinets: the overview is height-bound and must end above the scale bar."""
    rows, cols = np.divmod(np.arange(80), 2)
    floor = SimpleNamespace(name="tall", cabinet_width_m=0.6, cabinet_depth_m=1.2, aisle_m=1.2,
                            pitch_m=0.6)
    plan = SimpleNamespace(floor=floor, cabinets=pd.DataFrame({
        "name": cabinet_name(rows, cols), "row": rows, "col": cols, "group": rows // 2,
        "x_m": cols * 0.6, "y_m": rows * 2.4}))
    overview = wiring_pdf.floor_section(plan).blocks[0]
    canvas = Canvas(str(tmp_path / "floor.pdf"))
    overview.draw(canvas, wiring_pdf.MARGIN_X, wiring_pdf.CONTENT_TOP - 22, wiring_pdf.CONTENT_W)
    canvas.save()
    reader = PdfReader(tmp_path / "floor.pdf")
    words, boxes = drawing(reader, reader.pages[0])
    cabinets = [b for b in boxes if (round(b[2], 3), round(b[3], 3)) != (8.0, 8.0)]
    assert len(cabinets) == 80
    legend_top = max(y + size for _, y, size, text in words if text.endswith(" m"))
    assert min(y for _, y, _, _ in cabinets) > legend_top


def test_cover_gives_the_totals(pdfs):
    """The cover's cost lines are every class of the BOM and add up to cost.total; its order
    list is the BOM's lines."""
    plan, _, texts = pdfs["slimfly-hot"]
    cover = texts[0]
    assert "Totals" in cover
    assert f"{len(plan.cabinets):,} in {plan.cabinets['row'].nunique()} rows" in cover
    code = plan.summary["cost"]["price_basis"]["currency"]       # ISO 4217, not a $ sign
    assert code == "USD" and f"USD {plan.summary['cost']['total']:,.2f} total" in cover
    assert f"{len(plan.bom):,} lines, {int(plan.bom['quantity'].sum()):,} parts" in cover
    from planner.costing.bom import COST_LINES
    words = "|".join(re.escape(w) for _, w in COST_LINES)
    dollars = [float(m.replace(",", "")) for m in re.findall(
        rf"^(?:{words}) USD ([\d,.]+) \(", cover, re.M)]
    assert len(dollars) == len(COST_LINES)
    assert sum(dollars) == pytest.approx(plan.summary["cost"]["total"], abs=0.05)
    assert sum(dollars) == pytest.approx(float(plan.bom["extended_price"].sum()), abs=0.05)


@pytest.mark.parametrize("name", PLANS)
def test_schedule_type_is_readable(pdfs, name):
    plan, reader, texts = pdfs[name]
    pieces = plan.pieces.table
    labels = set(pieces.loc[pieces["role"] != "trunk", "label"])
    sizes = [size for i, t in enumerate(texts) if heading(t).startswith("Cabinet ")
             for _, _, size, text in drawing(reader, reader.pages[i])[0] if text in labels]
    assert len(sizes) >= len(labels)
    assert min(sizes) >= 7.5                  # >= 7 pt even when A4 is shrunk onto Letter


def test_many_groups_list_pairs_row_by_row():
    pairs = GroupPairs(3, np.array([0, 0, 1, 1]), np.array([0, 1, 1, 2]), np.array([4, 9, 1, 2]))
    table = wiring_pdf.pair_table(pairs)
    cells = [c for row in zip(*table.columns) for c in row if c]
    assert cells == ["g0 inside: 4", "g0 \u2013 g1: 9", "g1 inside: 1", "g1 \u2013 g2: 2"]
    assert len(table.columns) == wiring_pdf.PAIRS_PER_ROW


def contents_entries(texts: list[str]) -> list[tuple[str, int]]:
    """(title, page) pairs of the contents pages: titles are drawn first, then page numbers."""
    entries = []
    for text in texts:
        if not heading(text).startswith("Contents"):
            continue
        body = text.splitlines()
        body = body[body.index(heading(text)) + 1:]
        titles = [line for line in body if not line.isdigit() and not line.startswith(
            ("planner -", "Wiring plan -"))]
        numbers = [int(line) for line in body if line.isdigit()]
        assert len(titles) == len(numbers)
        entries += list(zip(titles, numbers))
    return entries


@pytest.mark.parametrize("name", PLANS)
def test_floor_plan_marks_every_patch_rack(pdfs, name):
    """Structured cabling: the floor plan names every patch rack where it stands (``A-P0``)
    and its legend has the patch-rack symbol; floors without structured cabling draw none."""
    plan, reader, texts = pdfs[name]
    floor_text = "\n".join(t for t in texts if heading(t).startswith("Floor plan"))
    assert floor_text
    if plan.structured is None:
        assert "patch rack" not in floor_text
        return
    racks = plan.structured.racks["name"]
    assert len(racks) > 0 and "patch rack" in floor_text
    for rack in racks:
        assert rack in floor_text, rack


@pytest.mark.parametrize("name", PLANS)
def test_trunk_schedule_lists_every_trunk(pdfs, name):
    """Structured cabling: the Trunks section lists every trunk of trunks.csv with both panel
    ports and its label."""
    plan, reader, texts = pdfs[name]
    section = "\n".join(t for t in texts if heading(t) == "Trunks")
    if plan.structured is None:
        assert section == ""
        return
    table = trunks_csv.table(plan.structured)
    assert len(table) > 0
    for row in table.itertuples(index=False):
        assert row.trunk_id in section and row.label in section, row.trunk_id
        assert f"{row.a_panel}:{row.a_port}" in section and f"{row.b_panel}:{row.b_port}" in section


@pytest.mark.parametrize("name", PLANS)
def test_contents_point_at_the_right_pages(pdfs, name):
    plan, reader, texts = pdfs[name]
    entries = contents_entries(texts)
    links = [reader.get_page_number(annot.get_object()["/Dest"][0].get_object()) + 1
             for page, text in zip(reader.pages, texts) if heading(text).startswith("Contents")
             for annot in page.get("/Annots", [])]
    assert links == [number for _, number in entries]
    titles = [t for t, _ in entries]
    front = ["Summary", "Floor plan", "Cables between electrical groups", "Bill of materials"]
    racks = []
    if plan.structured is not None:                                 # structured cabling only
        front += ["Trunks"]
        racks = ["Patch racks"] + [f"Patch rack {n}" for n in plan.structured.racks["name"]]
    assert titles[:len(front)] == front
    assert titles[len(front):len(front) + len(racks)] == racks
    cabinets = titles[len(front) + len(racks):]
    assert cabinets == ["Cabinets"] + [f"Cabinet {n}" for n in plan.cabinets["name"]]
    groups = {"Cabinets": cabinets[1], "Patch racks": racks[1] if racks else ""}
    for title, page in entries:
        expected = {"Summary": "Summary", **groups}.get(title, title)
        assert heading(texts[page - 1]) == expected, (title, page)


@pytest.mark.parametrize("name", PLANS)
def test_pages_are_numbered_and_a4(pdfs, name):
    _, reader, texts = pdfs[name]
    total = len(texts)
    for number, text in enumerate(texts, start=1):
        assert f"page {number} of {total}" in text
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)
    # the printed area fits US Letter (612 x 792 pt) when centred
    assert wiring_pdf.CONTENT_W <= 612 - 2 * 18
    assert (wiring_pdf.HEADER_Y + 8) - (wiring_pdf.FOOTER_Y - 2) + 2 * 18 <= 792


def test_outline_lists_sections_and_cabinets(pdfs):
    plan, reader, _ = pdfs["dragonfly-hot"]
    outline = reader.outline
    top = [item["/Title"] for item in outline if not isinstance(item, list)]
    assert top[:5] == ["Summary", "Contents", "Floor plan", "Cables between electrical groups",
                       "Bill of materials"]
    assert "Cabinets" in top and "Patch racks" in top
    nested = [item for item in outline if isinstance(item, list)]
    assert [i["/Title"] for i in nested[0]] == [f"Patch rack {n}"
                                                for n in plan.structured.racks["name"]]
    assert [i["/Title"] for i in nested[1]] == [f"Cabinet {n}" for n in plan.cabinets["name"]]


def test_group_matrix_counts_every_network_cable_once():
    plan = get_plan("slimfly-hot")
    matrix = wiring_pdf.group_matrix(plan)
    upper = matrix.sum() - (matrix.sum() - matrix.trace()) / 2
    assert upper == (plan.cables["kind"] == "network").sum()
    assert (matrix == matrix.T).all()
    net = plan.cables[plan.cables["kind"] == "network"]     # the pairs, counted by pandas
    counted = (net.assign(lo=np.minimum(net["group_a"], net["group_b"]),
                          hi=np.maximum(net["group_a"], net["group_b"]))
               .groupby(["lo", "hi"]).size())
    pairs = group_pairs(plan)
    assert list(zip(pairs.lo.tolist(), pairs.hi.tolist())) == counted.index.tolist()
    assert pairs.cables.tolist() == counted.tolist()


def test_same_plan_gives_identical_bytes(tmp_path):
    plan = get_plan("dragonfly-hot")
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        wiring_pdf.write(plan, tmp_path / run)
    assert (tmp_path / "one" / wiring_pdf.FILENAME).read_bytes() == \
        (tmp_path / "two" / wiring_pdf.FILENAME).read_bytes()
