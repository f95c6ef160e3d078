"""``wiring.pdf``'s floor plans at A4, read back from the PDF the way a reader meets them: every
text's size and box, every filled rectangle and its colour, from the page content streams
(pypdf's parser; widths from the standard fonts' metrics).

On the ~10K-endpoint default-size plan and on a structured plan over several halls (with entry
racks): no text on a floor-plan page is below 6 pt; a text that touches a cabinet or patch-rack
box lies inside that one box (its own name) and touches no other; no patch rack overlaps a
cabinet position, an aisle or another rack; every cabinet and rack is named exactly once over
the hall's pages (the tiles cover the hall, nothing twice). ``benchmarks/bench_legibility.py``
runs the same reader on the 100K plan.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader
from pypdf.generic import ContentStream
from reportlab.pdfbase.pdfmetrics import stringWidth

from planner.exports import wiring_pdf
from planner.exports.wiring_pdf import style

MIN_PT = 6.0
"""The least type size the issue "legible at A4" allows on a floor-plan page."""


def _rgb(colour) -> tuple[float, float, float]:
    return tuple(round(float(c), 3) for c in colour)


CABINET_FILLS = {_rgb(c) for c in style.GROUP_COLOURS} | {_rgb(style.EMPTY_POSITION)}
RACK_FILL = _rgb(style.PATCH_RACK_FILL)
AISLE_FILLS = {_rgb(style.COLD_AISLE), _rgb(style.HOT_AISLE), _rgb(style.END_AISLE)}


# ----------------------------------------------------------------------------- the reader

def floor_page_numbers(reader: PdfReader) -> list[int]:
    """Pages of the "Floor plan" section: from its outline entry to the next one."""
    starts = [(o.title, reader.get_destination_page_number(o)) for o in reader.outline
              if not isinstance(o, list)]
    for (title, first), (_, after) in zip(starts, starts[1:]):
        if title == "Floor plan":
            return list(range(first, after))
    raise AssertionError("no Floor plan section in the outline")


def page_objects(reader: PdfReader, page) -> tuple[list[tuple], list[tuple]]:
    """(texts, rects) of one page from its content stream: texts as (x0, y0, x1, y1, size,
    text) boxes (baseline - 0.21 em to + 0.72 em: Helvetica's descender and cap height), rects
    as (x0, y0, x1, y1, fill colour) of every filled rectangle."""
    fonts = {name: str(font.get_object()["/BaseFont"])[1:]
             for name, font in page["/Resources"]["/Font"].items()}
    texts, rects, pending = [], [], []
    fill, stack = (0.0, 0.0, 0.0), []
    font, size, leading = "Helvetica", 0.0, 0.0
    tm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    line = list(tm)

    def show(text: str) -> None:
        a, b = tm[0], tm[1]
        assert abs(b) < 1e-9 and abs(tm[2]) < 1e-9, "rotated text"
        scaled = size * a
        width = stringWidth(text, font, scaled)
        x, y = tm[4], tm[5]
        texts.append((x, y - 0.21 * scaled, x + width, y + 0.72 * scaled, scaled, text))

    for operands, op in ContentStream(page.get_contents(), reader).operations:
        if op == b"q":
            stack.append(fill)
        elif op == b"Q":
            fill = stack.pop()
        elif op == b"rg":
            fill = _rgb(operands)
        elif op == b"re":
            x, y, w, h = (float(v) for v in operands)
            pending.append((min(x, x + w), min(y, y + h), max(x, x + w), max(y, y + h)))
        elif op in (b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"):
            rects += [r + (fill,) for r in pending]
            pending = []
        elif op in (b"S", b"s", b"n"):
            pending = []
        elif op == b"BT":
            tm, line = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        elif op == b"Tf":
            font, size = fonts[str(operands[0])], float(operands[1])
        elif op == b"TL":
            leading = float(operands[0])
        elif op == b"Tm":
            tm = [float(v) for v in operands]
            line = list(tm)
        elif op in (b"Td", b"TD"):
            line[4] += float(operands[0]) * line[0]
            line[5] += float(operands[1]) * line[3]
            tm = list(line)
            if op == b"TD":
                leading = -float(operands[1])
        elif op in (b"T*", b"'"):
            line[5] -= leading * line[3]
            tm = list(line)
            if op == b"'":
                show(str(operands[0]))
        elif op == b"Tj":
            show(str(operands[0]))
        elif op == b"TJ":
            show("".join(str(p) for p in operands[0] if not isinstance(p, (int, float))
                         and not hasattr(p, "as_numeric")))
    return texts, rects


TOUCH_PT = 0.05
"""Boxes side by side share an edge; coordinates are written to 0.01 pt, so a strip thinner than
this is a shared edge, not an overlap."""


def overlap(a, b) -> float:
    """Area shared by two (x0, y0, x1, y1, ...) boxes (0 when they only touch)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > TOUCH_PT and h > TOUCH_PT else 0.0


def inside(a, b, tol: float = 0.3) -> bool:
    return (a[0] >= b[0] - tol and a[1] >= b[1] - tol and a[2] <= b[2] + tol
            and a[3] <= b[3] + tol)


def floor_problems(reader: PdfReader) -> dict:
    """What the floor-plan pages break: the smallest text, texts over a box not their own,
    patch racks over a cabinet position, an aisle or another rack; and what they name: the
    texts that sit inside a cabinet or rack box, per hall (``Hall H2`` captions; 1 without)."""
    smallest, crossing, racks_over, named, boxes_seen = float("inf"), [], [], {}, 0
    for number in floor_page_numbers(reader):
        texts, rects = page_objects(reader, reader.pages[number])
        boxes = [r for r in rects if r[4] in CABINET_FILLS or r[4] == RACK_FILL]
        boxes_seen += len(boxes)
        racks = [r for r in rects if r[4] == RACK_FILL and r[2] - r[0] > 9]   # not the legend's
        others = [r for r in rects if r[4] in CABINET_FILLS | AISLE_FILLS]
        caption = next((t[5] for t in texts if t[5].startswith("Hall")), "")
        hall = int(re.match(r"Hall H(\d+)", caption).group(1)) if caption.startswith(
            "Hall H") else 1
        for text in texts:
            smallest = min(smallest, text[4])
            hit = [b for b in boxes if overlap(text, b) > 0.01]
            if not hit:
                continue
            if len(hit) == 1 and inside(text, hit[0]):
                named.setdefault(hall, []).append(text[5])
            else:
                crossing.append((number + 1, text[5]))
        for i, rack in enumerate(racks):
            for other in others + racks[i + 1:]:
                if overlap(rack, other) > 0.01:
                    racks_over.append((number + 1, rack, other))
    return {"smallest_pt": smallest, "crossing": crossing, "racks_over": racks_over,
            "named": named, "boxes": boxes_seen}


# ----------------------------------------------------------------------------- the plans

def structured_halls_floor(tmp: Path) -> str:
    """``hot-aisle`` with halls of at most 3 rows x 8 cabinets: a small system fills several,
    so links cross halls through entry racks."""
    from planner.inputs.schema import builtin_dir

    data = yaml.safe_load((builtin_dir("layouts") / "hot-aisle.yaml").read_text())
    data["name"] = "small-halls"
    data["hall"].update(max_rows=3, max_cabinets_per_row=8, cross_tray_every=4)
    path = tmp / "small-halls.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


@lru_cache(maxsize=None)
def written(name: str):
    """(plan, wiring.pdf reader) of the ~10K-endpoint Slim Fly on hot-aisle, or of Slim Fly
    q=7 over several small structured halls."""
    import tempfile

    from planner.plan import plan
    tmp = Path(tempfile.mkdtemp(prefix=f"legibility-{name}-"))
    if name == "10k":
        built = plan("slimfly:q=19,p=15", "modern-100g", "hot-aisle", strategy="hint",
                     time_limit_s=5, seed=0)
    else:
        built = plan("slimfly:q=7", "modern-100g", structured_halls_floor(tmp), strategy="hint",
                     time_limit_s=5, seed=0)
    wiring_pdf.write(built, tmp)
    return built, PdfReader(str(tmp / "wiring.pdf"))


PLANS = ["10k", "halls"]


@pytest.mark.parametrize("name", PLANS)
def test_no_floor_plan_text_below_6_pt(name):
    plan, reader = written(name)
    found = floor_problems(reader)
    assert found["boxes"] > len(plan.cabinets)            # the reader saw the drawing
    assert found["smallest_pt"] >= MIN_PT - 1e-6


@pytest.mark.parametrize("name", PLANS)
def test_no_text_crosses_a_box_and_no_rack_stands_on_anything(name):
    _, reader = written(name)
    found = floor_problems(reader)
    assert found["crossing"] == []
    assert found["racks_over"] == []


@pytest.mark.parametrize("name", PLANS)
def test_every_cabinet_and_rack_is_named_once_in_its_box(name):
    """Over a hall's pages (a key page names nothing, its tiles name each thing once) every
    cabinet's name and group and every patch rack's name appear once, in their own box."""
    plan, reader = written(name)
    named = floor_problems(reader)["named"]
    cab = plan.cabinets
    several = int(cab["hall"].max()) > 0
    racks = plan.structured.racks
    assert len(racks) and (not several or (racks["kind"] == "entry").any())
    for hall in range(int(cab["hall"].max()) + 1):
        mine = cab[cab["hall"] == hall]
        want = [n.split("-", 1)[1] if several else n for n in mine["name"]]
        want += [f"g{g}" for g in mine["group"]]
        for rack in racks[racks["hall"] == hall].itertuples(index=False):
            short = rack.name.split("-", 1)[1] if several else rack.name
            want.append(("E" + (short.split(".")[1] if "." in short else "1"))
                        if rack.kind == "entry" else short)
        assert sorted(named[hall + 1]) == sorted(want), hall


def test_a_wide_hall_is_tiled_with_a_key_page():
    """The 10K hall does not fit one page at a legible scale: its first floor page is the key
    (no names, the tiles' column ranges above the hall), the tiles follow."""
    plan, reader = written("10k")
    pages = floor_page_numbers(reader)
    assert len(pages) >= 3
    key_text = reader.pages[pages[0]].extract_text()
    assert "key to the" in key_text and re.search(r"columns 1-\d+", key_text)
    first = plan.cabinets["name"].iloc[0]
    assert first not in re.findall(r"[A-Z]+\d+", key_text)
