"""Values as table text: money, summary numbers, nested ``summary.json`` keys flattened."""

from __future__ import annotations

import math

import numpy as np
from reportlab.pdfbase.pdfmetrics import stringWidth


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


def wrap(text: str, width: float, font: str, size: float) -> list[str]:
    """``text`` broken at spaces (or, for a word wider than ``width``, anywhere) into lines
    at most ``width`` points wide in ``font`` at ``size``."""
    lines, line = [], ""
    for word in str(text).split(" "):
        candidate = f"{line} {word}" if line else word
        if stringWidth(candidate, font, size) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = word
        while stringWidth(line, font, size) > width and len(line) > 1:
            cut = len(line)
            while cut > 1 and stringWidth(line[:cut], font, size) > width:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
    lines.append(line)
    return lines
