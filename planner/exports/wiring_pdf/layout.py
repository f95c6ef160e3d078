"""The layout model: tables and drawings (``Table``, ``Figure``) in ``Section``s, laid out
top-down on ``Page``s by ``paginate``; ``draw_table`` draws the rows of a table that landed on
a page.

Pagination is computed up front (fixed row height), so the table of contents knows its page
numbers without a second pass; it needs only a table's row count, so a ``DeferredTable`` makes
its cells when its page is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from planner.exports.wiring_pdf.content_stream import (fill_rects, string_widths,
                                                       text_at, text_column)
from planner.exports.wiring_pdf.style import (BOLD, CONTENT_BOTTOM, CONTENT_TOP, CONTENT_W, FONT,
                                              MARGIN_X, MIN_TEXT_PT)


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

    @property
    def rows(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def natural_widths(self) -> list[float]:
        """Per column the width of its widest cell or header, plus padding, at ``size``."""
        natural = []
        for head, col in zip(self.headers, self.columns):
            distinct = [str(c) for c in pd.unique(np.asarray(col, dtype=object))]
            font = self.fonts[len(natural)] if self.fonts else FONT
            w = max(stringWidth(head, BOLD, self.size),
                    float(string_widths(distinct, font, self.size).max(initial=0.0)))
            natural.append(w + 5.0)
        return natural

    def fit(self, total: float = CONTENT_W, natural: list[float] | None = None) -> "Table":
        """Column widths from the widest cell; shrink the font if the table is too wide, never
        below ``MIN_TEXT_PT`` (a table that does not fit at that size runs past the margin: the
        sections keep their tables narrow enough, and the tests read the sizes back).
        ``natural``: the ``natural_widths`` of the whole table when this one holds part of its
        rows (one hall's), so that every part is laid out alike."""
        natural = self.natural_widths() if natural is None else natural
        scale = max(min(1.0, total / sum(natural)), min(1.0, MIN_TEXT_PT / self.size))
        if scale < 1.0:
            self.size *= scale
            self.leading = max(self.leading * scale, self.size * 1.2)
        stretch = max(1.0, total / (sum(natural) * scale))
        self.widths = [w * scale * stretch for w in natural]
        return self

    def cells(self) -> list:
        """The columns of text, when the table is drawn."""
        return self.columns

    def part(self, lo: int, hi: int) -> "Table":
        """Rows ``lo:hi`` with this table's layout. With numpy columns the part's columns are
        views: the many per-cabinet parts of one schedule hold no copies of its cells, which
        are escaped and measured only when their page is drawn (``draw_table``)."""
        return Table(self.headers, [col[lo:hi] for col in self.columns], self.align, self.size,
                     self.leading, self.widths, self.shade, self.fonts)


class DeferredTable(Table):
    """A table laid out (``rows``, the ``layout``'s fitted widths and type size) whose cells are
    made only when its page is drawn (``cells``): a document's pages are all laid out first
    (the contents list needs their numbers) without holding every schedule's text at once."""

    def __init__(self, layout: Table, rows: int, cells: Callable[[], list]):
        super().__init__(layout.headers, [], layout.align, layout.size, layout.leading,
                         layout.widths, layout.shade, layout.fonts)
        self._rows, self._cells = rows, cells

    @property
    def rows(self) -> int:
        return self._rows

    def cells(self) -> list:
        return self._cells()


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
    group: tuple[str, str] | None = None
    """(title, bookmark key) of the outline entry a level-1 section sits under."""


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
    for j, col in enumerate(table.cells()):
        font = table.fonts[j] if table.fonts else FONT
        text_column(canvas, font, table.size, xs[j] + 2.0, base, lead, col[rows],
                    table.align[j], table.widths[j] - 4.0)
