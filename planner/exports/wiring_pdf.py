"""``wiring.pdf``: the installer's document (reportlab).

Contents, in order: a cover page with the totals in plain language (routers, cabinets, cables by
kind and media, cables to order by SKU and stock length, cost, power), then every
``summary.json`` value; a table of contents; the floor plan drawn to scale (rows, aisles,
cabinets named ``A01``..., electrical groups coloured, trays, patch racks of structured cabling
where the viewer marks them (``viewer.geometry.patch_rack_marks``), a scale bar); the matrix of
cables between electrical groups (group pairs, five per row, when there are too many groups for
a readable matrix); the bill of materials; on a floor with structured cabling the trunk schedule
(panel port to panel port, part, ordered length, links, label); then one section per cabinet:
its rack elevation (devices by rack unit, U1 at the bottom) and its cable schedule
``device·port → device·port, label, media, SKU, ordered length`` with peer cabinet and unit.
Every page has a running header and ``page i of N``; the PDF outline mirrors the contents.

Pages are A4 portrait with margins chosen so that everything printed (header to footer,
523 x 737 pt) also fits US Letter centred, at least 0.37 in from every Letter edge.

Speed: pagination is computed up front (fixed row height), so the table of contents knows its
page numbers without a second pass; the per-cabinet pages (elevations, schedules: tens of
thousands of rows) are emitted as raw PDF text operators (``Canvas.addLiteral``), one text
object per table column per page, instead of one reportlab call per cell. The canvas runs
in reportlab's invariant mode (no timestamps or random ids): the same plan gives the same bytes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
from reportlab import rl_config
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import getFont, stringWidth
from reportlab.pdfgen.canvas import Canvas

from planner.cabling import unit_text
from planner.exports import trunks_csv
from planner.exports._csv import column_text
from planner.exports.viewer.geometry import patch_rack_marks

FILENAME = "wiring.pdf"
PAGE_W, PAGE_H = A4
MARGIN_X = 36.0
CONTENT_TOP = PAGE_H - 72.0
CONTENT_BOTTOM = 72.0
CONTENT_W = PAGE_W - 2 * MARGIN_X
HEADER_Y = PAGE_H - 58.0
FOOTER_Y = 56.0
FONT, BOLD, SYMBOL = "Helvetica", "Helvetica-Bold", "Symbol"
_SYMBOL = {"\u2192": "\\256", " ": " "}

# ColorBrewer Set3 (12 classes): light fills on which black text stays readable.
GROUP_COLOURS = [(0.553, 0.827, 0.780), (1.0, 1.0, 0.702), (0.745, 0.729, 0.855),
                 (0.984, 0.502, 0.447), (0.502, 0.694, 0.827), (0.992, 0.706, 0.384),
                 (0.702, 0.871, 0.412), (0.988, 0.804, 0.898), (0.851, 0.851, 0.851),
                 (0.737, 0.502, 0.741), (0.800, 0.922, 0.773), (1.0, 0.929, 0.435)]
MATRIX_MAX_GROUPS = 40

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_HIGH = {bytes([b]).decode("cp1252"): f"\\{b:03o}"
         for b in range(128, 256) if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)}


@contextmanager
def binary_streams():
    """Write page streams as plain Flate (no ASCII85 layer: reportlab's pure-Python encoder
    dominates the run time without ``rl_accel``); restores the global setting afterwards."""
    saved = rl_config.useA85
    rl_config.useA85 = 0
    try:
        yield
    finally:
        rl_config.useA85 = saved


# ----------------------------------------------------------------------------- raw PDF text

def pdf_string(text: str, font: str = FONT) -> str:
    """``text`` as the body of a PDF literal string for a standard font.

    Helvetica uses WinAnsi (cp1252): cp1252 characters outside ASCII become octal escapes so
    the content stream stays 7-bit; characters that cp1252 lacks become ``?``. The Symbol font
    (built-in encoding) is used for arrows only: U+2192 is its code 0o256 (``arrowright``).
    """
    return pdf_strings([text], font)[0]


def pdf_strings(texts, font: str = FONT) -> list[str]:
    """``pdf_string`` of many texts at once (string replacements over the joined text)."""
    texts = list(texts)
    if font == SYMBOL:
        table = {t: "".join(_SYMBOL.get(ch, "?") for ch in str(t)) for t in set(texts)}
        return [table[t] for t in texts]
    try:
        joined = "\x00".join(texts)
    except TypeError:
        joined = "\x00".join(map(str, texts))
    joined = (joined.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
              .replace("\r", " ").replace("\n", " "))
    if not joined.isascii():
        for ch in set(_NON_ASCII.findall(joined)):
            joined = joined.replace(ch, _HIGH.get(ch, "?"))
    return joined.split("\x00")


def string_widths(texts, font: str, size: float) -> np.ndarray:
    """Widths in points of many texts in a standard font (vectorised ``stringWidth``)."""
    texts = list(texts)
    if not texts:
        return np.zeros(0)
    if font == SYMBOL:
        return np.array([stringWidth(str(t), font, size) for t in texts])
    table = np.asarray(getFont(font).widths, dtype=float)
    try:
        joined = "\x00".join(texts)
    except TypeError:
        texts = [str(t) for t in texts]
        joined = "\x00".join(texts)
    # every text is followed by a NUL (width 0), so no segment is empty for reduceat
    data = np.frombuffer((joined + "\x00").encode("cp1252", errors="replace"), np.uint8)
    ends = np.flatnonzero(data == 0)
    if len(ends) != len(texts):                   # a text holds a NUL itself
        ends = np.cumsum([len(t) + 1 for t in texts]) - 1
    per_char = table[data]
    per_char[data == 0] = 0.0
    starts = np.concatenate([[0], ends[:-1] + 1])
    totals = np.add.reduceat(per_char, starts)
    return totals[:len(texts)] * size / 1000.0


def font_ref(canvas: Canvas, font: str) -> str:
    """The page-resource name (``/F1``) of a standard font, registering it with the document."""
    return canvas._doc.getInternalFontName(font)


def text_column(canvas: Canvas, font: str, size: float, x: float, y: float, leading: float,
                lines, align: str = "l", width: float = 0.0, escaped=None,
                widths=None) -> None:
    """Draw ``lines`` top-down from baseline ``y`` in one PDF text object.

    ``align="r"`` right-aligns each line in a column of ``width`` points starting at ``x``.
    ``escaped`` / ``widths``: the lines already through ``pdf_strings`` / ``string_widths``.
    """
    lines = list(lines)
    if not lines:
        return
    ref = font_ref(canvas, font)
    escaped = pdf_strings(lines, font) if escaped is None else list(escaped)
    if align == "l":
        ops = [f"BT {ref} {size:.2f} Tf {leading:.2f} TL 1 0 0 1 {x:.2f} {y:.2f} Tm "
               f"({escaped[0]}) Tj"]
        if len(escaped) > 1:
            ops.append("(" + ") ' (".join(escaped[1:]) + ") '")
        ops.append("ET")
    else:
        widths = string_widths(lines, font, size) if widths is None else np.asarray(widths)
        xs = map("{:.2f}".format, ((x + width) - widths).tolist())
        ys = map("{:.2f}".format, (y - np.arange(len(lines)) * leading).tolist())
        ops = [f"BT {ref} {size:.2f} Tf", *map("1 0 0 1 {} {} Tm ({}) Tj".format, xs, ys,
                                               escaped), "ET"]
    canvas.addLiteral("\n".join(ops))


def text_at(canvas: Canvas, font: str, size: float, items) -> None:
    """Draw ``(x, y, text)`` items in one text object."""
    items = list(items)
    if not items:
        return
    ref = font_ref(canvas, font)
    escaped = pdf_strings([t for _, _, t in items], font)
    coords: dict[float, str] = {}
    for x, y, _ in items:
        if x not in coords:
            coords[x] = f"{x:.2f}"
        if y not in coords:
            coords[y] = f"{y:.2f}"
    ops = [f"BT {ref} {size:.2f} Tf"]
    ops.extend(f"1 0 0 1 {coords[x]} {coords[y]} Tm ({t}) Tj"
               for (x, y, _), t in zip(items, escaped))
    ops.append("ET")
    canvas.addLiteral("\n".join(ops))


def fill_rects(canvas: Canvas, rects, rgb, stroke: bool = False) -> None:
    """Fill (and optionally stroke, 0.3 pt dark grey) axis-aligned ``(x, y, w, h)`` rectangles."""
    rects = list(rects)
    if not rects:
        return
    paint = "B" if stroke else "f"
    ops = ["q", f"{rgb[0]:.3f} {rgb[1]:.3f} {rgb[2]:.3f} rg 0.3 w 0.25 0.25 0.25 RG"]
    ops.extend(f"{x:.2f} {y:.2f} {w:.2f} {h:.2f} re {paint}" for x, y, w, h in rects)
    ops.append("Q")
    canvas.addLiteral("\n".join(ops))


# ----------------------------------------------------------------------------- layout model

@dataclass
class Table:
    """A table with one header row, fixed row height, columns of preformatted text."""

    headers: list[str]
    columns: list[list[str]]
    align: list[str]
    size: float = 6.6
    leading: float = 8.4
    widths: list[float] = field(default_factory=list)
    shade: bool = True
    fonts: list[str] = field(default_factory=list)
    escaped: list[list[str]] = field(default_factory=list)
    text_widths: list = field(default_factory=list)

    @property
    def rows(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def fit(self, total: float = CONTENT_W) -> "Table":
        """Column widths from the widest cell; shrink the font if the table is too wide."""
        natural = []
        for head, col in zip(self.headers, self.columns):
            distinct = [str(c) for c in pd.unique(np.asarray(col, dtype=object))]
            font = self.fonts[len(natural)] if self.fonts else FONT
            w = max(stringWidth(head, BOLD, self.size),
                    float(string_widths(distinct, font, self.size).max(initial=0.0)))
            natural.append(w + 5.0)
        scale = min(1.0, total / sum(natural))
        if scale < 1.0:
            self.size *= scale
            self.leading = max(self.leading * scale, self.size * 1.2)
        stretch = total / (sum(natural) * scale)
        self.widths = [w * scale * stretch for w in natural]
        return self

    def prepare(self) -> "Table":
        """Escape every cell for PDF and measure the right-aligned ones, once (``part`` tables
        share the work); call after ``fit``, which may change the font size."""
        fonts = self.fonts or [FONT] * len(self.columns)
        self.escaped = [pdf_strings(col, font) for col, font in zip(self.columns, fonts)]
        self.text_widths = [string_widths(col, font, self.size) if align == "r" else None
                            for col, font, align in zip(self.columns, fonts, self.align)]
        return self

    def part(self, lo: int, hi: int) -> "Table":
        """Rows ``lo:hi`` with this table's layout (and prepared cells, if any)."""
        return Table(self.headers, [col[lo:hi] for col in self.columns], self.align, self.size,
                     self.leading, self.widths, self.shade, self.fonts,
                     [col[lo:hi] for col in self.escaped],
                     [None if w is None else w[lo:hi] for w in self.text_widths])


@dataclass
class Figure:
    """A drawing of fixed height; ``draw(canvas, x, y_top, width)``."""

    height: float
    draw: Callable[[Canvas, float, float, float], None]


@dataclass
class Section:
    title: str
    blocks: list
    key: str
    toc: bool = True
    level: int = 0


@dataclass
class Placed:
    block: object
    y_top: float
    start: int = 0
    stop: int = 0


@dataclass
class Page:
    section: Section
    items: list[Placed]


def paginate(sections: list[Section]) -> list[Page]:
    """Lay blocks out top-down; every section starts a page; tables split with header repeat."""
    pages: list[Page] = []
    for section in sections:
        page = Page(section, [])
        pages.append(page)
        y = CONTENT_TOP - 22.0
        for block in section.blocks:
            if isinstance(block, Figure):
                if y - block.height < CONTENT_BOTTOM and page.items:
                    page = Page(section, [])
                    pages.append(page)
                    y = CONTENT_TOP - 22.0
                page.items.append(Placed(block, y))
                y -= block.height + 10.0
                continue
            start = 0
            while True:
                room = int((y - CONTENT_BOTTOM - block.leading * 1.6) // block.leading)
                if room < 3 and page.items:
                    page = Page(section, [])
                    pages.append(page)
                    y = CONTENT_TOP - 22.0
                    continue
                stop = min(block.rows, start + max(room, 1))
                page.items.append(Placed(block, y, start, stop))
                y -= (stop - start + 1.6) * block.leading + 8.0
                start = stop
                if start >= block.rows:
                    break
    return pages


def draw_table(canvas: Canvas, placed: Placed) -> None:
    table: Table = placed.block
    n = placed.stop - placed.start
    lead = table.leading
    y0 = placed.y_top
    xs = np.concatenate([[MARGIN_X], MARGIN_X + np.cumsum(table.widths)])
    head_h = lead * 1.3
    fill_rects(canvas, [(MARGIN_X, y0 - head_h, CONTENT_W, head_h)], (0.82, 0.85, 0.90))
    if table.shade:
        fill_rects(canvas, [(MARGIN_X, y0 - head_h - (i + 1) * lead, CONTENT_W, lead)
                            for i in range(1, n, 2)], (0.94, 0.95, 0.97))
    text_at(canvas, BOLD, table.size,
            [(xs[j] + 2.0, y0 - head_h + 0.3 * head_h, h) for j, h in enumerate(table.headers)])
    base = y0 - head_h - lead + 0.28 * lead
    rows = slice(placed.start, placed.stop)
    for j, col in enumerate(table.columns):
        font = table.fonts[j] if table.fonts else FONT
        escaped = table.escaped[j][rows] if table.escaped else None
        widths = table.text_widths[j] if table.text_widths else None
        text_column(canvas, font, table.size, xs[j] + 2.0, base, lead, col[rows],
                    table.align[j], table.widths[j] - 4.0, escaped,
                    None if widths is None else widths[rows])


# ----------------------------------------------------------------------------- formatting

def money(x: float) -> str:
    return f"{x:,.2f}"


def num(x) -> str:
    """Compact text for summary values: thousands separators, at most 4 decimals."""
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    if isinstance(x, (float, np.floating)):
        if not math.isfinite(x):
            return str(x)
        return f"{x:,.0f}" if x == int(x) and abs(x) < 1e15 else f"{x:,.4g}" if abs(x) < 1 \
            else f"{x:,.2f}"
    return str(x)


def flatten(prefix: str, value, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, (list, tuple)):
        out.append((prefix, ", ".join(num(v) for v in value)))
    else:
        out.append((prefix, num(value)))


# ----------------------------------------------------------------------------- sections

def totals_rows(plan) -> list[tuple[str, str]]:
    """The cover's plain-language totals (from ``plan.summary`` and the cable table)."""
    s = plan.summary
    top, cab, model = plan.topology, plan.cabinets, plan.router_model
    dev = s.get("devices", {})
    rows = [("System", f"{top.family} ({', '.join(f'{k}={v}' for k, v in top.params.items())})"),
            ("Routers", f"{top.num_routers:,} x {model.sku} ({int(model.radix)} ports; "
                        f"{num(dev.get('router_ports_used', 0))} of "
                        f"{num(dev.get('router_ports', 0))} ports cabled)"),
            ("Endpoints", f"{top.num_endpoints:,}"),
            ("Cabinets", f"{len(cab):,} in {cab['row'].nunique():,} rows, "
                         f"{cab['group'].nunique():,} electrical groups (floor {plan.floor.name})")]
    for kind in ("network", "endpoint"):
        c = s["cables"].get(kind, {})
        if c.get("count"):
            rows.append((f"{kind.capitalize()} cables",
                         f"{num(c['count'])}: {num(c['electrical'])} electrical, "
                         f"{num(c['optical'])} optical; {num(c['length_m'])} m estimated, "
                         f"{num(c['order_length_m'])} m ordered, "
                         f"longest {num(c['max_length_m'])} m"))
    order = plan.cables.groupby(["sku", "order_length_m"], sort=True).size()
    rows += [("Cables to order" if i == 0 else "", f"{k:,} x {sku}, {length:g} m")
             for i, ((sku, length), k) in enumerate(order.items())]
    cost, power = s.get("cost", {}), s.get("power", {})
    if cost:
        rows.append(("Cost", f"${money(cost['total'])} total, ${money(cost['per_endpoint'])} per "
                             f"endpoint (routers ${money(cost['routers'])}, cables "
                             f"${money(cost['cables'])})"))
    if power:
        rows.append(("Power", f"{num(power['total_w'])} W total, "
                              f"{num(power['per_endpoint_w'])} W per endpoint"))
    if s.get("performance"):
        from planner.performance import summary_lines
        rows += [(name[:1].upper() + name[1:], text)
                 for name, text in summary_lines(s["performance"])]
    return rows


def cover_section(plan) -> Section:
    """Title, the totals in plain language, then every ``summary.json`` value."""
    top = plan.topology
    params = ", ".join(f"{k}={v}" for k, v in top.params.items())
    lines: list[tuple[str, str]] = []
    flatten("", plan.summary, lines)

    def draw(canvas: Canvas, x: float, y: float, width: float) -> None:
        canvas.setFont(BOLD, 22)
        canvas.drawString(x, y - 22, "Wiring plan")
        canvas.setFont(FONT, 12)
        canvas.drawString(x, y - 44, f"{top.family} ({params})"[:90])
        canvas.drawString(x, y - 62, f"{top.num_routers:,} routers, {top.num_endpoints:,} "
                                     f"endpoints, {len(plan.cabinets):,} cabinets, "
                                     f"{len(plan.cables):,} cables")
        canvas.setFont(FONT, 9)
        canvas.drawString(x, y - 80, f"catalog {plan.catalog.name}, floor {plan.floor.name}, "
                                     f"router {plan.router_model.sku}")

    totals = totals_rows(plan)
    blocks = [Figure(92.0, draw),
              Table(["Totals", ""], [[k for k, _ in totals], [v for _, v in totals]], ["l", "l"],
                    size=9.0, leading=12.0, shade=False).fit(),
              Table(["summary.json", "value"], [[k for k, _ in lines], [v for _, v in lines]],
                    ["l", "l"], size=8.0, leading=10.5).fit()]
    return Section("Summary", blocks, "summary")


TOC_ROWS = int((CONTENT_TOP - CONTENT_BOTTOM - 40.0) // 9.6)
TOC_COLS = 3


def toc_page_count(n_entries: int) -> int:
    return max(1, math.ceil(n_entries / (TOC_ROWS * TOC_COLS)))


def _toc_drawer(entries):
    def draw(canvas: Canvas, x: float, y: float, width: float) -> None:
        col_w = width / TOC_COLS
        items, pages, links = [], [], []
        for i, (title, level, page, key) in enumerate(entries):
            col, row = divmod(i, TOC_ROWS)
            tx = x + col * col_w + (10.0 if level else 0.0)
            ty = y - 12.0 - row * 9.6
            items.append((tx, ty, title))
            pw = stringWidth(str(page), FONT, 7.5)
            pages.append((x + (col + 1) * col_w - 12.0 - pw, ty, str(page)))
            links.append((tx, ty - 2, x + (col + 1) * col_w - 12.0, ty + 7, key))
        text_at(canvas, FONT, 7.5, items)
        text_at(canvas, FONT, 7.5, pages)
        for x1, y1, x2, y2, key in links:
            canvas.linkAbsolute("", key, (x1, y1, x2, y2))
    return draw


def toc_chunks(entries: list[tuple[str, int, int, str]]) -> list[Section]:
    """Contents pages; ``entries`` = (title, outline level, page number, bookmark key)."""
    per = TOC_ROWS * TOC_COLS
    chunks = [entries[i:i + per] for i in range(0, max(len(entries), 1), per)] or [[]]
    return [Section("Contents" + (" (continued)" if i else ""),
                    [Figure(CONTENT_TOP - CONTENT_BOTTOM - 30.0, _toc_drawer(c))],
                    "contents", toc=(i == 0)) for i, c in enumerate(chunks)]


FLOOR_HEIGHT = CONTENT_TOP - CONTENT_BOTTOM - 40.0
LEGEND_H = 74.0
"""Height kept free under the overview drawing for the scale bar and the group legend."""
DETAIL_MAX_PT_PER_M = 40.0
"""Detail floor pages are drawn at most at this scale (a 0.6 m cabinet = 24 pt wide)."""


def floor_section(plan) -> Section:
    """Overview of the whole floor to scale, then row bands at a readable scale if needed;
    on a floor with halls, that for every hall (``hall_section``)."""
    if getattr(plan.floor, "hall", None) is not None:
        return hall_section(plan)
    cab = plan.cabinets.reset_index(drop=True)
    floor = plan.floor
    cw, cd = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    x = cab["x_m"].to_numpy(float)
    y = cab["y_m"].to_numpy(float)
    rows = cab["row"].to_numpy(int)
    margin_m = 1.0
    span_w = (x.max() - x.min() + cw) + 2 * margin_m
    avail_w = CONTENT_W - 18.0
    overview = _floor_scale(x, y, cw, cd, margin_m, avail_w, FLOOR_HEIGHT - 16.0 - LEGEND_H)
    blocks = [Figure(FLOOR_HEIGHT, _floor_drawer(plan, np.ones(len(cab), bool), overview,
                                                 legend=True))]
    detail = min(avail_w / span_w, DETAIL_MAX_PT_PER_M)
    if detail > 1.5 * overview:
        row_pitch = cd + float(floor.aisle_m)
        per_page = max(1, int((FLOOR_HEIGHT - 30.0) // (row_pitch * detail)))
        distinct = np.unique(rows)
        for k in range(0, len(distinct), per_page):
            mask = np.isin(rows, distinct[k:k + per_page])
            blocks.append(Figure(FLOOR_HEIGHT, _floor_drawer(plan, mask, detail, legend=False)))
    return Section("Floor plan", blocks, "floor")


def _floor_scale(x, y, cw, cd, margin_m, avail_w, avail_h) -> float:
    span_w = (x.max() - x.min() + cw) + 2 * margin_m
    span_h = (y.max() - y.min() + cd) + 2 * margin_m
    return min(avail_w / span_w, avail_h / span_h)


def _floor_drawer(plan, mask: np.ndarray, scale: float, legend: bool):
    """Draw the cabinets selected by ``mask`` at ``scale`` points per metre."""
    cab = plan.cabinets.reset_index(drop=True)
    floor = plan.floor
    cw, cd = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    margin_m = 1.0
    all_x = cab["x_m"].to_numpy(float)
    x = all_x[mask]
    y = cab["y_m"].to_numpy(float)[mask]
    rows = cab["row"].to_numpy(int)[mask]
    groups = cab["group"].to_numpy(int)[mask]
    names = cab["name"].astype(str).to_numpy()[mask]
    x0 = all_x.min() - cw / 2
    y0 = y.min() - cd / 2
    n_groups = int(cab["group"].max()) + 1 if len(cab) else 0

    def draw(canvas: Canvas, left: float, top: float, width: float) -> None:
        label_w = 18.0
        span_w = (all_x.max() - all_x.min() + cw) + 2 * margin_m
        ox = left + label_w + (width - label_w - span_w * scale) / 2 + margin_m * scale
        oy_top = top - 16.0 - margin_m * scale

        def px(xm):
            return ox + (xm - x0) * scale

        def py(ym):
            return oy_top - (ym - y0) * scale

        row_ids = np.unique(rows)
        row_y = {r: float(y[rows == r].mean()) for r in row_ids}
        letters = {r: str(names[rows == r][0]).rstrip("0123456789") for r in row_ids}
        if not legend:
            canvas.setFont(BOLD, 9)
            canvas.drawString(left, top - 8.0, f"rows {letters[row_ids[0]]}-"
                                               f"{letters[row_ids[-1]]}, "
                                               f"1 : {_paper_scale(scale):,}")
        aisles = []
        for ra, rb in zip(row_ids[:-1], row_ids[1:]):
            ya, yb = row_y[ra] + cd / 2, row_y[rb] - cd / 2
            if yb > ya:
                aisles.append((px(x0 - margin_m / 2), py(yb), (span_w - margin_m) * scale,
                               (yb - ya) * scale))
        fill_rects(canvas, aisles, (0.95, 0.95, 0.95))
        if aisles and aisles[0][3] >= 6.0:
            size = min(6.0, aisles[0][3] * 0.7)
            text_at(canvas, FONT, size, [(a[0] + 2, a[1] + a[3] / 2 - size / 3, "aisle")
                                         for a in aisles])
        bw, bh = cw * scale, cd * scale
        for colour in range(len(GROUP_COLOURS)):
            sel = np.flatnonzero(groups % len(GROUP_COLOURS) == colour)
            fill_rects(canvas, [(px(x[i] - cw / 2), py(y[i] + cd / 2), bw, bh) for i in sel],
                       GROUP_COLOURS[colour], stroke=True)
        widths = string_widths(names, FONT, 1.0)
        size = max(1.5, min(7.0, 0.85 * bw / max(float(widths.max(initial=0.0)), 1e-9),
                            bh * 0.42))
        two_lines = bh >= 2.6 * size
        name_y = [py(v) + (size * 0.25 if two_lines else -size * 0.35) for v in y]
        text_at(canvas, FONT, size, [(px(x[i]) - widths[i] * size / 2, name_y[i], names[i])
                                     for i in range(len(names))])
        if two_lines:
            gsize = size * 0.8
            tags = [f"g{g}" for g in groups]
            gw = string_widths(tags, FONT, gsize)
            text_at(canvas, FONT, gsize, [(px(x[i]) - gw[i] / 2, py(y[i]) - gsize * 1.2, tags[i])
                                          for i in range(len(names))])
        text_at(canvas, BOLD, 7.0, [(left, py(row_y[r]) - 2.5, letters[r]) for r in row_ids])
        if legend:
            _legend(canvas, left + label_w, top - FLOOR_HEIGHT + 48.0, width - label_w, scale,
                    span_w, floor, n_groups)
    return draw


def _legend(canvas: Canvas, left: float, by: float, width: float, scale: float, span_w: float,
            floor, n_groups: int, hall: bool = False) -> None:
    """Scale bar and paper scale at height ``by``, then the group colours (and on halls the
    aisle, tray, front and entry symbols) below it."""
    cw, cd = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    bar_m = _nice_length(span_w / 4)
    fill_rects(canvas, [(left, by, bar_m * scale, 3.0)], (0.1, 0.1, 0.1))
    text_at(canvas, FONT, 7.0, [
        (left, by + 6.0, f"{bar_m:g} m"),
        (left + bar_m * scale + 8.0, by,
         f"1 : {_paper_scale(scale):,} on A4 - cabinet {cw:g} x {cd:g} m, "
         f"pitch {float(floor.pitch_m):g} m, aisle {float(floor.aisle_m):g} m; "
         f"colour = electrical group (g<id>)")])
    shown = min(n_groups, 24)
    sw = width / max(shown, 1)
    for g in range(shown):
        fill_rects(canvas, [(left + g * sw, by - 22.0, 8.0, 8.0)],
                   GROUP_COLOURS[g % len(GROUP_COLOURS)], stroke=True)
    text_at(canvas, FONT, 6.0, [(left + g * sw + 10.0, by - 20.5, f"g{g}")
                                for g in range(shown)])
    if shown < n_groups:
        text_at(canvas, FONT, 6.0, [(left, by - 32.0, f"... {n_groups} groups; colours "
                                     f"repeat every {len(GROUP_COLOURS)} groups")])
    if not hall:
        return
    ky = by - 44.0
    fill_rects(canvas, [(left, ky, 14.0, 7.0)], COLD_AISLE)
    fill_rects(canvas, [(left + 90.0, ky, 14.0, 7.0)], HOT_AISLE)
    fill_rects(canvas, [(left + 170.0, ky + 5.5, 14.0, 1.5)], FRONT_MARK)
    _lines(canvas, [(left + 260.0, ky + 3.5, left + 274.0, ky + 3.5)], TRAY_COLOUR, 1.2)
    fill_rects(canvas, [(left + 380.0, ky, 7.0, 7.0)], ENTRY_COLOUR)
    if floor.structured_cabling:
        fill_rects(canvas, [(left + 440.0, ky, 7.0, 7.0)], PATCH_RACK_FILL, stroke=True)
        text_at(canvas, FONT, 6.5, [(left + 450.0, ky + 1.0, "patch rack")])
    text_at(canvas, FONT, 6.5, [(left + 17.0, ky + 1.0, "cold aisle"),
                                (left + 107.0, ky + 1.0, "hot aisle"),
                                (left + 187.0, ky + 1.0, "cabinet front"),
                                (left + 277.0, ky + 1.0, "overhead cable tray"),
                                (left + 390.0, ky + 1.0, "hall entry")])


COLD_AISLE, HOT_AISLE = (0.84, 0.91, 0.99), (0.99, 0.86, 0.82)
END_AISLE, EMPTY_POSITION = (0.93, 0.93, 0.93), (0.975, 0.975, 0.975)
FRONT_MARK, TRAY_COLOUR, ENTRY_COLOUR = (0.1, 0.1, 0.1), (0.85, 0.45, 0.05), (0.2, 0.55, 0.2)
PATCH_RACK_FILL = (0.93, 0.91, 1.0)   # the viewer's patch-rack violet (#ede9fe)


def _lines(canvas: Canvas, segments, rgb, width: float, dash: str = "") -> None:
    """Stroke straight ``(x0, y0, x1, y1)`` lines in one path (``dash``: a PDF dash array)."""
    segments = list(segments)
    if not segments:
        return
    ops = ["q", f"{rgb[0]:.3f} {rgb[1]:.3f} {rgb[2]:.3f} RG {width:.2f} w"
           + (f" [{dash}] 0 d" if dash else "")]
    ops.extend(f"{a:.2f} {b:.2f} m {c:.2f} {d:.2f} l" for a, b, c, d in segments)
    ops += ["S", "Q"]
    canvas.addLiteral("\n".join(ops))


def hall_section(plan) -> Section:
    """Every hall to scale (hot and cold aisles, cabinets with their fronts and groups, row and
    cross trays, the hall's walls and entry), then bands of rows at a readable scale."""
    from planner.inputs.floor import room_of

    cab = plan.cabinets
    floor = plan.floor
    room = room_of(floor, cab["hall"], cab["row"], cab["col"])
    pitch, ends = float(floor.pitch_m), float(floor.hall.end_aisle_m)
    span_w = room.cols * pitch + 2 * ends
    avail_w = CONTENT_W - 18.0
    overview = min(avail_w / span_w, (FLOOR_HEIGHT - 16.0 - LEGEND_H - 14.0) / room.depth_m)
    detail = min(avail_w / span_w, DETAIL_MAX_PT_PER_M)
    row_pitch = float(floor.row_pitch_m)
    per_page = max(1, int((FLOOR_HEIGHT - 30.0 - float(floor.aisle_m) * detail)
                          // (row_pitch * detail)))
    marks = patch_rack_marks(plan, room)
    blocks = []
    for hall in range(room.halls):
        blocks.append(Figure(FLOOR_HEIGHT, _hall_drawer(plan, room, marks, hall, 0,
                                                        room.rows - 1, overview, legend=True)))
        if detail > 1.5 * overview:
            for lo in range(0, room.rows, per_page):
                hi = min(room.rows, lo + per_page) - 1
                blocks.append(Figure(FLOOR_HEIGHT, _hall_drawer(plan, room, marks, hall, lo, hi,
                                                                detail, legend=False)))
    return Section("Floor plan", blocks, "floor")


def _hall_drawer(plan, room, marks, hall: int, lo: int, hi: int, scale: float, legend: bool):
    """Draw rows ``lo..hi`` of one hall at ``scale`` points per metre (y grows down the page),
    with the patch racks of ``marks`` (``patch_rack_marks``) that stand there."""
    from planner.inputs.floor import aisle_is_cold, front_aisle, row_letters

    floor = plan.floor
    cab = plan.cabinets.reset_index(drop=True)
    pitch, cw, cd = float(floor.pitch_m), float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    aisle, rp, ends = float(floor.aisle_m), float(floor.row_pitch_m), float(floor.hall.end_aisle_m)
    sel = ((cab["hall"].to_numpy() == hall) & (cab["row"].to_numpy() >= lo)
           & (cab["row"].to_numpy() <= hi))
    x, y = cab["x_m"].to_numpy(float)[sel], cab["y_m"].to_numpy(float)[sel]
    rows, cols = cab["row"].to_numpy(int)[sel], cab["col"].to_numpy(int)[sel]
    groups, names = cab["group"].to_numpy(int)[sel], cab["name"].astype(str).to_numpy()[sel]
    n_groups = int(cab["group"].max()) + 1 if len(cab) else 0
    x_left, x_right = -pitch / 2 - ends, (room.cols - 0.5) * pitch + ends
    row_x0, row_x1 = -pitch / 2, (room.cols - 0.5) * pitch
    y_top, y_bottom = lo * rp - cd / 2 - aisle, hi * rp + cd / 2 + aisle
    marks = marks[(marks["hall"] == hall) & (((marks["row"] >= lo) & (marks["row"] <= hi))
                                             | ((marks["row"] < 0) & (lo == 0)))]
    tag = f"Hall H{hall + 1}" if room.halls > 1 else "Hall"
    caption = (f"{tag}, rows {row_letters(lo)}-{row_letters(hi)}" if (lo, hi) != (0, room.rows - 1)
               else f"{tag}: {room.rows} rows x {room.cols} cabinets, "
                    f"{room.width_m:.1f} x {room.depth_m:.1f} m")

    def draw(canvas: Canvas, left: float, top: float, width: float) -> None:
        label_w = 18.0
        ox = left + label_w + (width - label_w - (x_right - x_left) * scale) / 2

        def px(xm):
            return ox + (np.asarray(xm, dtype=float) - x_left) * scale

        def py(ym):
            return top - 16.0 - (np.asarray(ym, dtype=float) - y_top) * scale

        canvas.setFont(BOLD, 9)
        canvas.drawString(left, top - 8.0, f"{caption}, 1 : {_paper_scale(scale):,}")
        width_pt = (row_x1 - row_x0) * scale
        for cold in (True, False):
            aisles = [a for a in range(lo, hi + 2) if bool(aisle_is_cold(a)) == cold]
            rects = []
            for a in aisles:
                ya = (a - 1) * rp + cd / 2 if a > 0 else -(cd / 2 + aisle)
                yb = a * rp - cd / 2
                rects.append((float(px(row_x0)), float(py(yb)), width_pt, (yb - ya) * scale))
            fill_rects(canvas, rects, COLD_AISLE if cold else HOT_AISLE)
        fill_rects(canvas, [(float(px(x_left)), float(py(y_bottom)), ends * scale,
                             (y_bottom - y_top) * scale),
                            (float(px(row_x1)), float(py(y_bottom)), ends * scale,
                             (y_bottom - y_top) * scale)], END_AISLE)
        if aisle * scale >= 7.0:
            size = min(6.0, aisle * scale * 0.5)
            clear = float(marks["size_m"].iloc[0]) * scale / 2 if len(marks) else 0.0  # of racks
            text_at(canvas, FONT, size, [
                (float(px(row_x0)) + 2.0 + clear, float(py(a * rp - cd / 2 - aisle / 2)) - size / 3,
                 "cold aisle" if aisle_is_cold(a) else "hot aisle") for a in range(lo, hi + 2)])
        bw, bh = cw * scale, cd * scale
        used = set(zip(rows.tolist(), cols.tolist()))
        empty = [(r, c) for r in range(lo, hi + 1) for c in range(room.cols) if (r, c) not in used]
        fill_rects(canvas, [(float(px(c * pitch - cw / 2)), float(py(r * rp + cd / 2)), bw, bh)
                            for r, c in empty], EMPTY_POSITION)
        for colour in range(len(GROUP_COLOURS)):
            pick = np.flatnonzero(groups % len(GROUP_COLOURS) == colour)
            fill_rects(canvas, [(float(px(x[i] - cw / 2)), float(py(y[i] + cd / 2)), bw, bh)
                                for i in pick], GROUP_COLOURS[colour], stroke=True)
        mark = max(0.8, min(2.0, 0.1 * bh))
        front_up = front_aisle(rows) == rows          # faces the aisle before its row
        fill_rects(canvas, [(float(px(x[i] - cw / 2)) + 0.3,
                             float(py(y[i] - cd / 2)) - mark if front_up[i]
                             else float(py(y[i] + cd / 2)), bw - 0.6, mark)
                            for i in range(len(x))], FRONT_MARK)
        row_ids = range(lo, hi + 1)
        trays = room.cross_x
        _lines(canvas, [(float(px(trays[0])), float(py(r * rp)), float(px(trays[-1])),
                         float(py(r * rp))) for r in row_ids], TRAY_COLOUR, 0.8, "3 2")
        y_from = room.entry_xy[1] if lo == 0 else y_top
        _lines(canvas, [(float(px(t)), float(py(y_from if t == trays[0] else lo * rp)),
                         float(px(t)), float(py(hi * rp))) for t in trays], TRAY_COLOUR, 1.4)
        walls = [(x_left, y_top, x_left, y_bottom), (x_right, y_top, x_right, y_bottom)]
        if lo == 0:
            walls.append((x_left, y_top, x_right, y_top))
        if hi == room.rows - 1:
            walls.append((x_left, y_bottom, x_right, y_bottom))
        _lines(canvas, [(float(px(a)), float(py(b)), float(px(c)), float(py(d)))
                        for a, b, c, d in walls], (0.2, 0.2, 0.2), 1.6)
        if len(marks):
            side = float(marks["size_m"].iloc[0]) * scale
            fill_rects(canvas, [(float(px(m.x_m)) - side / 2, float(py(m.y_m)) - side / 2, side,
                                 side) for m in marks.itertuples(index=False)],
                       PATCH_RACK_FILL, stroke=True)
            first = marks[marks["first"]]
            tags = [n + (f" +{h - 1}" if h > 1 else "")
                    for n, h in zip(first["name"], first["here"])]
            tsize = max(2.0, min(5.5, side * 0.8))
            tw = string_widths(tags, FONT, tsize)
            text_at(canvas, FONT, tsize, [
                (float(px(m.x_m)) + (side / 2 + 1.5 if m.inward < 0 else -side / 2 - 1.5 - w),
                 float(py(m.y_m)) - tsize / 3, tag)
                for m, tag, w in zip(first.itertuples(index=False), tags, tw)])
        if lo == 0:
            ex, ey = room.entry_xy
            fill_rects(canvas, [(float(px(ex)) - 3.5, float(py(ey)) - 3.5, 7.0, 7.0)],
                       ENTRY_COLOUR)
            link = "" if room.halls == 1 else f" (to the other halls, {floor.hall.link_m:g} m)"
            text_at(canvas, FONT, 6.0, [(float(px(ex)) + 5.0, float(py(ey)) + 2.0,
                                         "entry" + link)])
        widths = string_widths(names, FONT, 1.0)
        size = max(1.5, min(7.0, 0.85 * bw / max(float(widths.max(initial=0.0)), 1e-9),
                            bh * 0.42))
        two_lines = bh >= 2.6 * size
        name_y = [float(py(v)) + (size * 0.25 if two_lines else -size * 0.35) for v in y]
        text_at(canvas, FONT, size, [(float(px(x[i])) - widths[i] * size / 2, name_y[i], names[i])
                                     for i in range(len(names))])
        if two_lines:
            gsize = size * 0.8
            tags = [f"g{g}" for g in groups]
            gw = string_widths(tags, FONT, gsize)
            text_at(canvas, FONT, gsize, [(float(px(x[i])) - gw[i] / 2,
                                           float(py(y[i])) - gsize * 1.2, tags[i])
                                          for i in range(len(names))])
        text_at(canvas, BOLD, 7.0, [(left, float(py(r * rp)) - 2.5, row_letters(r))
                                    for r in row_ids])
        if legend:
            _legend(canvas, left + label_w, top - FLOOR_HEIGHT + 62.0, width - label_w, scale,
                    x_right - x_left, floor, n_groups, hall=True)
    return draw


def _nice_length(target: float) -> float:
    """The largest 1-2-5 x 10^k length not above ``target`` (at least 0.5)."""
    if target <= 0.5:
        return 0.5
    exp = 10 ** math.floor(math.log10(target))
    return max(m * exp for m in (1, 2, 5) if m * exp <= target)


def _paper_scale(points_per_m: float) -> int:
    """Map scale denominator: 1 m drawn as ``points_per_m`` points (1 pt = 0.3528 mm)."""
    return int(round(1000.0 / (points_per_m * 25.4 / 72.0)))


def group_matrix(plan) -> np.ndarray:
    """Symmetric G x G counts of router-router cables between electrical groups."""
    net = plan.cables[plan.cables["kind"] == "network"]
    g = int(plan.cabinets["group"].max()) + 1 if len(plan.cabinets) else 0
    m = np.zeros((g, g), dtype=np.int64)
    a = net["group_a"].to_numpy(np.int64)
    b = net["group_b"].to_numpy(np.int64)
    np.add.at(m, (a, b), 1)
    off = m + m.T
    np.fill_diagonal(off, np.diag(m))
    return off


PAIRS_PER_ROW = 5


def pair_table(m: np.ndarray) -> Table:
    """Group pairs with cables, ``PAIRS_PER_ROW`` per row (read left to right), for floors with
    too many groups for a matrix: cells ``g3 \u2013 g17: 2`` and ``g3 inside: 4``."""
    iu, ju = np.nonzero(np.triu(m))
    names = np.array([f"g{i}" for i in range(len(m))], dtype=object)
    pairs = np.where(iu == ju, names[iu] + " inside", names[iu] + " \u2013 " + names[ju])
    counts = np.array([f": {k:,}" for k in m[iu, ju].tolist()], dtype=object)
    cells = (pairs + counts).tolist()
    rows = -(-len(cells) // PAIRS_PER_ROW)
    cells += [""] * (rows * PAIRS_PER_ROW - len(cells))
    columns = [cells[k::PAIRS_PER_ROW] for k in range(PAIRS_PER_ROW)]
    return Table(["groups: cables"] * PAIRS_PER_ROW, columns, ["l"] * PAIRS_PER_ROW,
                 size=8.0, leading=10.0).fit()


def groups_section(plan) -> Section:
    m = group_matrix(plan)
    g = len(m)
    optical = int(plan.cables[(plan.cables["kind"] == "network") &
                              (plan.cables["media"] == "optical")].shape[0])
    inter = int(np.triu(m, 1).sum())
    intro = (f"{g} electrical groups; {inter:,} router-router cables run between groups, "
             f"{int(np.trace(m)):,} inside groups; {optical:,} network cables are optical.")

    def draw_intro(canvas: Canvas, x: float, y: float, width: float) -> None:
        canvas.setFont(FONT, 8.5)
        canvas.drawString(x, y - 10, intro)

    blocks: list = [Figure(18.0, draw_intro)]
    if 0 < g <= MATRIX_MAX_GROUPS:
        cell = min(24.0, (CONTENT_W - 20.0) / (g + 1))
        size = min(7.0, cell * 0.9 / max(stringWidth(str(m.max()), FONT, 1.0), 1.0), cell * 0.6)

        def draw_matrix(canvas: Canvas, x: float, y: float, width: float) -> None:
            heads = [(x + (j + 1) * cell + 1, y - cell * 0.7, f"g{j}") for j in range(g)]
            heads += [(x + 1, y - (i + 1) * cell - cell * 0.7, f"g{i}") for i in range(g)]
            fill_rects(canvas, [(x + (i + 1) * cell, y - (i + 2) * cell, cell, cell)
                                for i in range(g)], (0.85, 0.93, 0.85))
            fill_rects(canvas, [(x + (j + 1) * cell, y - (i + 2) * cell, cell, cell)
                                for i in range(g) for j in range(g) if i != j and m[i, j]],
                       (0.99, 0.90, 0.80))
            text_at(canvas, BOLD, size, heads)
            text_at(canvas, FONT, size, [(x + (j + 1) * cell + 1, y - (i + 1) * cell - cell * 0.7,
                                          str(m[i, j])) for i in range(g) for j in range(g)
                                         if m[i, j]])
            canvas.setFont(FONT, 7)
            canvas.drawString(x, y - (g + 1) * cell - 12, "Cells: router-router cables between "
                              "the two groups (diagonal: inside the group).")
        blocks.append(Figure((g + 1) * cell + 16.0, draw_matrix))
    else:
        blocks.append(pair_table(m))
    return Section("Cables between electrical groups", blocks, "groups")


def bom_section(plan) -> Section:
    bom = plan.bom
    cols = [c for c in ["item", "sku", "description", "length_m", "quantity", "spares",
                        "unit_price", "extended_price"] if c in bom.columns]
    heads = {"length_m": "length (m)", "unit_price": "unit price",
             "extended_price": "extended price"}
    data = []
    for c in cols:
        series = bom[c]
        if c in ("unit_price", "extended_price"):
            data.append([money(v) for v in series])
        elif c == "length_m":
            data.append(["" if pd.isna(v) else f"{v:g}" for v in series])
        elif c in ("quantity", "spares"):
            data.append([f"{int(v):,}" for v in series])
        else:
            data.append(["" if pd.isna(v) else str(v) for v in series])
    if "extended_price" in cols:
        for j, c in enumerate(cols):
            data[j].append("TOTAL" if j == 0 else
                           money(float(bom["extended_price"].sum())) if c == "extended_price"
                           else "")
    align = ["r" if c in ("length_m", "quantity", "spares", "unit_price", "extended_price")
             else "l" for c in cols]
    return Section("Bill of materials",
                   [Table([heads.get(c, c) for c in cols], data, align, size=7.0,
                          leading=9.0).fit()], "bom")


def trunks_section(plan) -> Section | None:
    """Structured cabling: the trunk schedule (``exports.trunks_csv``), one row per trunk from
    panel port to panel port with its part, ordered length, links and label."""
    if plan.structured is None:
        return None
    trunks = trunks_csv.table(plan.structured)
    ends = {end: (trunks[f"{end}_panel"] + ":" + trunks[f"{end}_port"]).tolist() for end in "ab"}
    data = [trunks["trunk_id"].tolist(), trunks["kind"].tolist(), ends["a"], ends["b"],
            trunks["sku"].tolist(), [f"{v:g}" for v in trunks["order_length_m"]],
            [f"{int(v):,}" for v in trunks["links"]], trunks["label"].tolist()]
    heads = ["trunk", "kind", "from (panel:port)", "to (panel:port)", "SKU", "order m", "links",
             "label"]
    align = ["l", "l", "l", "l", "l", "r", "r", "l"]
    return Section("Trunks", [Table(heads, data, align, size=7.0, leading=9.0).fit()], "trunks")


# ----------------------------------------------------------------------------- cabinets

SCHEDULE_HEADERS = ["cable", "from (this cabinet)", "", "to", "peer cab-U", "label", "media",
                    "SKU", "order m"]
SCHEDULE_ALIGN = ["l", "l", "l", "l", "l", "l", "l", "l", "r"]
SCHEDULE_FONTS = [FONT, FONT, SYMBOL, FONT, FONT, FONT, FONT, FONT, FONT]
SCHEDULE_SIZE, SCHEDULE_LEADING = 8.0, 10.0
"""Schedule type: 8 pt (7.5 pt when an A4 page is printed on Letter), smaller only when the
widest cells would not fit the page width (``Table.fit``)."""


def schedule_rows(plan) -> dict[str, np.ndarray]:
    """One row per cable end inside a cabinet (a cable inside one cabinet is listed once),
    oriented from that cabinet, sorted by cabinet, local device, local port; the cells as text
    (``cab_order``: the cabinet's position in ``plan.cabinets``)."""
    c = plan.cables
    text = {k: np.asarray(column_text(c[k]), dtype=object)
            for k in ("a_cabinet", "b_cabinet", "a_device", "b_device", "a_port", "b_port",
                      "cable_id", "label", "media", "sku")}
    ru = {k: unit_text(pd.to_numeric(c[f"{k}_ru"], errors="coerce").to_numpy(float), 1)
          for k in "ab"}
    port = {k: pd.to_numeric(c[f"{k}_port"], errors="coerce").to_numpy(float) for k in "ab"}
    order = unit_text(c["order_length_m"].to_numpy(float), 1)
    ends = {k: np.array(list(map("{}\u00b7{}".format, text[f"{k}_device"], text[f"{k}_port"])),
                        dtype=object) for k in "ab"}
    both = np.flatnonzero(text["a_cabinet"] != text["b_cabinet"])

    def stack(a_side, b_side=None):
        """Rows of the A ends (every cable), then of the B ends in another cabinet."""
        return np.concatenate([a_side, (a_side if b_side is None else b_side)[both]])

    def this(field):
        return stack(text[f"a_{field}"], text[f"b_{field}"])

    def peer(values):
        return stack(values["b"], values["a"])

    peer_at = zip(peer({k: text[f"{k}_cabinet"] for k in "ab"}).tolist(), peer(ru).tolist())
    rows = {"cabinet": this("cabinet"), "device": this("device"),
            "port_key": stack(port["a"], port["b"]), "port_text": this("port"),
            "cable": stack(text["cable_id"]), "from": stack(ends["a"], ends["b"]),
            "to": peer(ends),
            "peer": np.array([f"{cab}-{unit}".rstrip("-") for cab, unit in peer_at], object),
            "label": stack(text["label"]), "media": stack(text["media"]),
            "sku": stack(text["sku"]), "order": stack(order)}
    index = {name: i for i, name in enumerate(plan.cabinets["name"].astype(str))}
    rows["cab_order"] = np.array([index.get(name, len(index)) for name in rows["cabinet"]],
                                 dtype=np.int64)
    codes = {k: pd.factorize(rows[k], sort=True)[0] for k in ("device", "port_text", "cable")}
    keys = (codes["cable"], codes["port_text"], rows["port_key"], codes["device"],
            rows["cab_order"])
    sort = np.lexsort(keys)
    return {k: v[sort] for k, v in rows.items()}


@dataclass
class Rack:
    """What a cabinet page shows above the schedule (plain values, no pandas per cabinet)."""

    name: str
    info: list[str]
    devices: list[tuple[str, str, str, float, float]]   # name, kind, model, ru, height
    unplaced: list[str]
    by_sku: dict[tuple[str, str], int]
    ends: int


def rack_records(plan, ends: dict[int, int], by_sku: dict[int, dict]) -> list[Rack]:
    """One ``Rack`` per cabinet, in ``plan.cabinets`` order."""
    from planner.inputs.floor import row_letters

    cab = plan.cabinets.reset_index(drop=True)
    names = cab["name"].astype(str).tolist()
    index = {n: i for i, n in enumerate(names)}
    placed: list[list] = [[] for _ in names]
    unplaced: list[list] = [[] for _ in names]
    dev = plan.devices
    ru = pd.to_numeric(dev["ru"], errors="coerce").to_numpy(float)
    height = np.maximum(pd.to_numeric(dev["height_ru"], errors="coerce").fillna(1.0)
                        .to_numpy(float), 1.0)
    text = [column_text(dev[k]) for k in ("name", "kind", "model", "cabinet")]
    for name, kind, model, cabinet, u, h in zip(*text, ru.tolist(), height.tolist()):
        i = index.get(cabinet)
        if i is None:
            continue
        if u != u:                                   # NaN: no rack unit
            unplaced[i].append(name)
        else:
            placed[i].append((name, kind, model, u, h))
    racks = []
    several_halls = "hall" in cab and len(cab) and int(cab["hall"].max()) > 0
    for i, rec in enumerate(cab.to_dict("records")):
        hall = f"hall H{int(rec['hall']) + 1}, " if several_halls else ""
        info = [f"{hall}row {row_letters(rec['row'])}, column {int(rec['col']) + 1}, "
                f"electrical group g{int(rec['group'])}",
                f"position x {float(rec['x_m']):.2f} m, y {float(rec['y_m']):.2f} m",
                f"{int(rec['routers'])} routers, {int(rec['endpoints'])} endpoints"
                + (f", {float(rec['kw']):.2f} kW" if "kw" in rec else ""),
                f"{ends.get(i, 0)} cable ends in this cabinet"]
        racks.append(Rack(names[i], info, placed[i], unplaced[i], by_sku.get(i, {}),
                          ends.get(i, 0)))
    return racks


def elevation_figure(rack: Rack, cabinet_height_ru: int) -> Figure:
    """Rack elevation (U1 at the bottom) with the cabinet facts to its right."""
    top_used = max([int(math.ceil(u + h - 1)) for _, _, _, u, h in rack.devices], default=0)
    height_ru = max(int(cabinet_height_ru), top_used)
    unit = min(9.0, 380.0 / height_ru)
    fig_h = unit * height_ru + 24.0

    def draw(canvas: Canvas, x: float, y: float, width: float) -> None:
        rack_w = 150.0
        rx = x + 22.0
        bottom = y - 12.0 - unit * height_ru
        fill_rects(canvas, [(rx, bottom, rack_w, unit * height_ru)], (0.97, 0.97, 0.97), True)
        step = 1 if unit >= 7 else 5
        text_at(canvas, FONT, min(6.5, unit * 0.72),
                [(x + 2.0, bottom + (u - 1) * unit + unit * 0.25, f"U{u}")
                 for u in range(1, height_ru + 1) if u % step == 0 or u == 1])
        boxes: dict[str, list] = {"router": [], "endpoint": []}
        texts = []
        size = min(7.0, unit * 0.78)
        for name, kind, model, ru, h in rack.devices:
            yy = bottom + (ru - 1) * unit
            boxes["router" if kind == "router" else "endpoint"].append(
                (rx + 2, yy + 0.4, rack_w - 4, max(h * unit - 0.8, 0.5)))
            texts.append((rx + 5, yy + (h * unit - size) / 2 + 0.8,
                          f"{name}  {model}  U{ru:g}" + (f"-{ru + h - 1:g}" if h > 1 else "")))
        fill_rects(canvas, boxes["router"], (0.60, 0.75, 0.93), True)
        fill_rects(canvas, boxes["endpoint"], (0.86, 0.86, 0.86), True)
        text_at(canvas, FONT, size, texts)
        lines = list(rack.info)
        if height_ru > cabinet_height_ru:
            lines.append(f"abstract rack: devices up to U{height_ru} "
                         f"(cabinet height {cabinet_height_ru}U)")
        if rack.unplaced:
            lines.append(f"{len(rack.unplaced)} devices without rack unit: "
                         f"{rack.unplaced[0]} .. {rack.unplaced[-1]}")
        lines += [f"{k:>5} x {sku} ({media})" for (media, sku), k in sorted(rack.by_sku.items())]
        text_column(canvas, FONT, 8.0, rx + rack_w + 24.0, y - 14.0, 11.0, lines)
    return Figure(fig_h, draw)


def cabinet_sections(plan) -> list[Section]:
    """One section per cabinet: elevation, then the cable schedule."""
    rows = schedule_rows(plan)
    n_cab = len(plan.cabinets)
    bounds = np.searchsorted(rows["cab_order"], np.arange(n_cab + 1))
    columns = [rows[k].tolist() for k in ["cable", "from", "to", "to", "peer", "label", "media",
                                           "sku", "order"]]
    columns[2] = ["\u2192"] * len(rows["cable"])
    template = Table(SCHEDULE_HEADERS, columns, SCHEDULE_ALIGN, size=SCHEDULE_SIZE,
                     leading=SCHEDULE_LEADING, fonts=SCHEDULE_FONTS).fit()
    template.prepare()
    by_sku: dict[int, dict] = {}
    for (i, media, sku), k in Counter(zip(rows["cab_order"].tolist(), rows["media"].tolist(),
                                          rows["sku"].tolist())).items():
        by_sku.setdefault(i, {})[(media, sku)] = k
    ends = {i: int(bounds[i + 1] - bounds[i]) for i in range(n_cab)}
    height = int(plan.floor.cabinet_height_ru)
    sections = []
    for i, rack in enumerate(rack_records(plan, ends, by_sku)):
        lo, hi = bounds[i], bounds[i + 1]
        blocks: list = [elevation_figure(rack, height)]
        if hi > lo:
            blocks.append(template.part(lo, hi))
        sections.append(Section(f"Cabinet {rack.name}", blocks, f"cab-{rack.name}", level=1))
    return sections


# ----------------------------------------------------------------------------- document

def build_pages(plan) -> list[Page]:
    """All pages in order: summary, contents, floor plan, group cables, BOM, trunks (structured
    cabling), cabinets."""
    front_pages = paginate([cover_section(plan)])
    body = [floor_section(plan), groups_section(plan), bom_section(plan), trunks_section(plan)]
    body = [section for section in body if section is not None]
    cabinets = cabinet_sections(plan)
    body_pages = paginate(body + cabinets)
    n_entries = 1 + len(body) + (1 if cabinets else 0) + len(cabinets)
    first_body = len(front_pages) + toc_page_count(n_entries) + 1
    start_page: dict[str, int] = {}
    for k, page in enumerate(body_pages):
        start_page.setdefault(page.section.key, first_body + k)
    entries = [("Summary", 0, 1, "summary")]
    entries += [(s.title, 0, start_page[s.key], s.key) for s in body]
    if cabinets:
        entries.append(("Cabinets", 0, start_page[cabinets[0].key], "cabinets"))
        entries += [(s.title, 1, start_page[s.key], s.key) for s in cabinets]
    return front_pages + paginate(toc_chunks(entries)) + body_pages


def draw_document(plan, path: Path) -> int:
    """Render the PDF; returns the page count."""
    pages = build_pages(plan)
    total = len(pages)
    top = plan.topology
    title = (f"Wiring plan - {top.family} - {top.num_routers:,} routers, "
             f"{top.num_endpoints:,} endpoints, {len(plan.cabinets):,} cabinets")
    canvas = Canvas(str(path), pagesize=A4, pageCompression=1, invariant=1)
    canvas.setTitle(title)
    canvas.setAuthor("planner")
    canvas.setSubject("floor plan, cabinet elevations and cable schedules")
    previous, cabinets_started = None, False
    for number, page in enumerate(pages, start=1):
        section = page.section
        first = section is not previous
        previous = section
        if first and section.toc:
            canvas.bookmarkPage(section.key)
            if section.level == 1 and not cabinets_started:
                canvas.bookmarkPage("cabinets")
                canvas.addOutlineEntry("Cabinets", "cabinets", level=0)
                cabinets_started = True
            canvas.addOutlineEntry(section.title, section.key, level=section.level)
        label = f"page {number} of {total}"
        text_at(canvas, FONT, 7.0, [
            (MARGIN_X, HEADER_Y, title),
            (MARGIN_X, FOOTER_Y, f"planner - catalog {plan.catalog.name}, floor {plan.floor.name}"),
            (PAGE_W - MARGIN_X - stringWidth(label, FONT, 7.0), FOOTER_Y, label)])
        canvas.setFont(BOLD, 13)
        canvas.drawString(MARGIN_X, CONTENT_TOP - 10.0,
                          section.title + ("" if first else " (continued)"))
        for placed in page.items:
            if isinstance(placed.block, Figure):
                placed.block.draw(canvas, MARGIN_X, placed.y_top, CONTENT_W)
            else:
                draw_table(canvas, placed)
        canvas.showPage()
    canvas.save()
    return total


def write(plan, out_dir: Path) -> None:
    """Write ``wiring.pdf``."""
    with binary_streams():
        draw_document(plan, Path(out_dir) / FILENAME)
