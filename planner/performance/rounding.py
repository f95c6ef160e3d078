"""How the performance block's numbers are rounded for ``summary.json``: to ``digits`` decimal
places (6 unless said), None for a missing or infinite value."""

from __future__ import annotations

import math


def rounded(x: float | None, digits: int = 6):
    if x is None or not math.isfinite(x):
        return None
    return round(float(x), digits)
