"""What the growth tests share: the planner's command line run in this process, and a plan
folder's CSV files read as text, every cell as the file spells it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from planner.cli import main


def cli(*argv) -> int:
    """``planner ARGV`` (paths given as text); its exit code."""
    return main([str(a) for a in argv])


def read_csv(folder: Path, name: str) -> pd.DataFrame:
    """``folder/name`` with every cell as text ('' for an empty cell)."""
    return pd.read_csv(folder / name, keep_default_na=False, dtype=str)
