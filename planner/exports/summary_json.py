"""``summary.json``: the plan summary (``Plan.summary``, built by ``planner.plan``), UTF-8,
2-space indent, LF.

Keys keep the order ``planner.plan`` builds them in, so two runs with the same inputs and seed
give byte-identical files apart from the run times (``runtime``, ``placement.stage_seconds``,
``placement.runtime_s``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

FILENAME = "summary.json"


def _finite(value):
    """NaN/inf are not JSON: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def dumps(summary: dict) -> str:
    """The exact text written to summary.json."""
    return json.dumps(_finite(summary), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write(plan, out_dir: Path) -> None:
    """Write ``summary.json``."""
    (Path(out_dir) / FILENAME).write_text(dumps(plan.summary), encoding="utf-8", newline="\n")
