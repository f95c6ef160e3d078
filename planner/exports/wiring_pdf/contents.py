"""The table of contents: titles and page numbers in ``TOC_COLS`` columns of ``TOC_ROWS``
entries, each entry a link to its page; as many contents pages as the entries need."""

from __future__ import annotations

import math

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from planner.exports.wiring_pdf.content_stream import text_at
from planner.exports.wiring_pdf.layout import Figure, Section
from planner.exports.wiring_pdf.style import CONTENT_BOTTOM, CONTENT_TOP, FONT, TOC_COLS, TOC_ROWS


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
