"""The rich fixture set of ``tests/fixtures/rich/``, planned once per test session (no tests here).

- ``ring24.csv``: 24 routers in a ring whose links are 2 or 3 parallel cables, with one-cable
  chords i -- i+6 and 1 -- 9, 3 -- 17 (so the hall entries' rear ports of one hall trunk differ),
  4 endpoints per router (uniform θ below 1).
- ``floor.yaml``: halls of 2 rows x 4 cabinets, one router a cabinet (so three halls), 12U
  cabinets and patch racks, cross trays at the row ends and between cabinets 2/3 (patch-rack
  positions there), structured cabling, low-loss MPO connections (0.35 dB each).
- ``catalog.yaml``: a 16-port switch, 3 m copper, 100GBASE-SR4 optics (100 m, 1.9 dB), 48-fibre
  trunks (4 links a trunk) and 4U MPO panels of 8 adapters (2 trunks a panel, exactly 3 panels a
  patch rack; MPO front and rear, so also the hall entries' pass-through panel).

So the plan has patch racks holding several panels over several rack units, racks filled to the
last unit, hall entries whose panels fill a second patch rack, links that leave their row through
2 panels and links between halls through 4, and parallel cables. ``rich_plan()`` plans it (hint
placement: about a second) and ``rich_folder()`` writes the exports the read-back tests read into a
temporary folder.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

from planner.plan import plan
from planner.topologies import importers

RICH = Path(__file__).parent / "fixtures" / "rich"
TOPOLOGY, CATALOG, FLOOR = RICH / "ring24.csv", RICH / "catalog.yaml", RICH / "floor.yaml"


@lru_cache(maxsize=None)
def rich_plan():
    """The plan of the rich fixture set (module doc)."""
    return plan(importers.load(TOPOLOGY), str(CATALOG), str(FLOOR), strategy="hint",
                time_limit_s=5, seed=0)


@lru_cache(maxsize=None)
def rich_folder() -> Path:
    """A folder holding the rich plan's cables.csv, cabinets.csv, trunks.csv, summary.json,
    bom.xlsx and netbox/ bundle, written by their writers (removed when the session ends)."""
    from planner.exports import (bom_xlsx, cabinets_csv, cables_csv, netbox, summary_json,
                                 trunks_csv)

    out = Path(tempfile.mkdtemp(prefix="planner-rich-"))
    atexit.register(shutil.rmtree, out, True)
    p = rich_plan()
    for writer in (cables_csv, cabinets_csv, trunks_csv, summary_json, bom_xlsx, netbox):
        writer.write(p, out)
    return out
