"""Raw PDF content-stream operators, written with ``Canvas.addLiteral``.

The per-cabinet pages (elevations, schedules: tens of thousands of rows) are drawn through
these: one text object per table column per page instead of one reportlab call per cell. Texts
are escaped for the standard fonts (``pdf_strings``) and measured with their metrics
(``string_widths``), many at once. ``labels.pdf`` (``planner/exports/labels.py``) uses them too.
"""

from __future__ import annotations

import re
import zlib
from contextlib import contextmanager

import numpy as np
from reportlab import rl_config
from reportlab.pdfbase.pdfdoc import PDFStream
from reportlab.pdfbase.pdfmetrics import getFont, stringWidth
from reportlab.pdfgen.canvas import Canvas

from planner.exports.wiring_pdf.style import FONT, SYMBOL

_SYMBOL = {"\u2192": "\\256", " ": " "}
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


class _Deflated:
    """A page stream's Flate filter when the stream is compressed already (``seal_page``): the
    same ``/FlateDecode`` entry as reportlab's own filter, the content left as it is."""

    pdfname = "FlateDecode"

    @staticmethod
    def encode(content: bytes) -> bytes:
        return content


def seal_page(canvas: Canvas) -> None:
    """Compress the page ``canvas.showPage`` just closed, now instead of at ``save``.

    reportlab keeps every page's operators as text until the file is saved (hundreds of MB
    for a plan's cabinet sheets); this keeps them as the Flate bytes ``save`` would write, the
    same ``zlib.compress`` of the same text, so the file is byte for byte the same. Only for
    streams without the ASCII85 layer (``binary_streams``)."""
    page = canvas._doc.Pages.pages[-1]
    if page.stream and page.compression and not rl_config.useA85:
        stream = PDFStream(content=zlib.compress(page.stream.encode("utf8")),
                           filters=[_Deflated])
        stream.__Comment__ = "page stream"
        page.Contents, page.stream = stream, None


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
                lines, align: str = "l", width: float = 0.0) -> None:
    """Draw ``lines`` top-down from baseline ``y`` in one PDF text object.

    ``align="r"`` right-aligns each line in a column of ``width`` points starting at ``x``.
    """
    lines = list(lines)
    if not lines:
        return
    ref = font_ref(canvas, font)
    escaped = pdf_strings(lines, font)
    if align == "l":
        ops = [f"BT {ref} {size:.2f} Tf {leading:.2f} TL 1 0 0 1 {x:.2f} {y:.2f} Tm "
               f"({escaped[0]}) Tj"]
        if len(escaped) > 1:
            ops.append("(" + ") ' (".join(escaped[1:]) + ") '")
        ops.append("ET")
    else:
        widths = string_widths(lines, font, size)
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
