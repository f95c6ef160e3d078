"""``index.html``: the plan viewer, one self-contained page (``planner.viewer``, docs/viewer.md).

Opens from disk in a current browser (no server, no network access): the floor with every
hall, row, aisle, tray and cabinet; each cabinet's elevation and cables; search and trace of
any cable; filters; the summary and the bill of materials.
"""

from __future__ import annotations

from pathlib import Path

from planner.viewer import page

FILENAME = "index.html"


def write(plan, out_dir: Path) -> None:
    """Write ``index.html``."""
    (Path(out_dir) / FILENAME).write_text(page(plan), encoding="utf-8", newline="\n")
