"""Text cells that no spreadsheet runs as a formula (OWASP "CSV injection").

A cell whose text begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is taken as
a formula by Excel and LibreOffice, in a CSV file as in a workbook. Text that comes from the
user's inputs (catalog descriptions, SKUs, floor and device names) goes through ``neutralise``
before any writer puts it in a cell: such text is prefixed with a single quote, which the
spreadsheet shows as plain text. Numbers are written as numbers and never pass through here.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """``text``, or ``'`` + ``text`` when it would start a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text
