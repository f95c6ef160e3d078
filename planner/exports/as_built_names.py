"""as_built_names.csv of a plan grown from an as-built file alone (``planner expand
--as-built`` without ``--from``): the planner's name of every standing device and the name the
as-built gave it (``device,as_built_name``); nothing for any other plan."""

from __future__ import annotations

from pathlib import Path

FILENAME = "as_built_names.csv"


def write(plan, out_dir: Path) -> None:
    names = getattr(plan, "as_built_names", None)
    if names is None:
        return
    names.to_csv(Path(out_dir) / FILENAME, index=False, lineterminator="\n")
