"""wiring.pdf read back with pypdf: structure, floor plan, every cable label, page numbering."""

from __future__ import annotations

import re

import pytest
from pypdf import PdfReader

from planner.exports import wiring_pdf
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
def test_every_cable_label_and_end_appears(pdfs, name):
    plan, _, texts = pdfs[name]
    text = "\n".join(texts)
    missing = [label for label in plan.cables["label"] if label not in text]
    assert not missing, missing[:5]
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
def test_contents_point_at_the_right_pages(pdfs, name):
    plan, reader, texts = pdfs[name]
    entries = contents_entries(texts)
    links = [reader.get_page_number(annot.get_object()["/Dest"][0].get_object()) + 1
             for page, text in zip(reader.pages, texts) if heading(text).startswith("Contents")
             for annot in page.get("/Annots", [])]
    assert links == [number for _, number in entries]
    titles = [t for t, _ in entries]
    assert titles[:5] == ["Summary", "Floor plan", "Cables between electrical groups",
                          "Bill of materials", "Cabinets"]
    assert titles[5:] == [f"Cabinet {n}" for n in plan.cabinets["name"]]
    for title, page in entries:
        expected = {"Summary": "Summary", "Cabinets": titles[5]}.get(title, title)
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
    assert "Cabinets" in top
    nested = next(item for item in outline if isinstance(item, list))
    assert [i["/Title"] for i in nested] == [f"Cabinet {n}" for n in plan.cabinets["name"]]


def test_group_matrix_counts_every_network_cable_once():
    plan = get_plan("slimfly-hot")
    matrix = wiring_pdf.group_matrix(plan)
    upper = matrix.sum() - (matrix.sum() - matrix.trace()) / 2
    assert upper == (plan.cables["kind"] == "network").sum()
    assert (matrix == matrix.T).all()


def test_same_plan_gives_identical_bytes(tmp_path):
    plan = get_plan("dragonfly-hot")
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        wiring_pdf.write(plan, tmp_path / run)
    assert (tmp_path / "one" / wiring_pdf.FILENAME).read_bytes() == \
        (tmp_path / "two" / wiring_pdf.FILENAME).read_bytes()
