"""``summary.json``: the plan summary (``Plan.summary``, built by ``planner.plan``), UTF-8,
2-space indent, LF.

Keys keep the order ``planner.plan`` builds them in, so two runs with the same inputs and seed
give byte-identical files apart from the run times (``runtime``, ``placement.stage_seconds``,
``placement.runtime_s``). The ``optics`` key (``planner.cabling.optics_summary``: links
through transceivers checked, the worst loss margin in dB and reach margin in metres and the
cables that have them) is added here from the cable table.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from planner.cabling import optics_summary

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
    summary = {**plan.summary, "optics": optics_summary(plan.cables)}
    (Path(out_dir) / FILENAME).write_text(dumps(summary), encoding="utf-8", newline="\n")
