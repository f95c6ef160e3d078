"""Input files of verification as text: the size limit and UTF-8 decoding shared by the plan
and the observed readers."""

from __future__ import annotations

from pathlib import Path

from planner.run import guards
from planner.run.errors import InputError

MAX_BYTES = 512 * 2 ** 20
"""Size of a plan's cables.csv or an observed file: a 1M-endpoint plan's cables.csv is about
250 MB (2.1 M cables, benchmarks/RESULTS.md)."""


def read_text(path: Path, what: str) -> str:
    raw = guards.read_input(path, f"{what} '{path}'", MAX_BYTES)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"{what} '{path}': not UTF-8 text ({err.reason} at byte "
                         f"{err.start})") from None
