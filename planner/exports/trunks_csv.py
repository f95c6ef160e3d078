"""``trunks.csv``: the trunk schedule of a floor with structured cabling (none on other floors).

One row per trunk, the list installers pull trunks from (``planner.cabling.structured``): trunk_id
(the id the ``segments`` column of ``cables.csv`` names), label (both ends' panel and port, as
printed on its labels in ``labels.csv``/``labels.pdf``), kind (``row``: between the panels of two
rows, or a row and its hall's entry rack; ``hall``: between two halls' entry racks), sku (part
number at its stock length), length_m (computed, metres), order_length_m (stock length), links (the
links it carries), then for each end a_/b_: rack (the patch rack), panel (``<rack>-<RU>``), ru (the
panel's rack unit), port (``R3``: rear port 3; a row trunk ends at its hall's entry on an entry
panel's front port group, ``F3``, and a hall trunk, which carries the row trunks of many pairs
of row panels, on the rear port of the same adapters), then capacity (the links its fibres could carry; capacity - links are positions left
spare, for growth or by the trunk sizes, ``structured_spare_pct`` in docs/floors.md). Rows in
trunk-id order. UTF-8, LF line ends, text cells formula-safe.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from planner.exports._csv import write_csv

FILENAME = "trunks.csv"
COLUMNS = ["trunk_id", "label", "kind", "sku", "length_m", "order_length_m", "links",
           "a_rack", "a_panel", "a_ru", "a_port", "b_rack", "b_panel", "b_ru", "b_port",
           "capacity"]


def table(structured) -> pd.DataFrame:
    """The rows of trunks.csv, from ``StructuredPlan.trunks`` and ``.panels``."""
    trunks = structured.trunks.copy()
    where = structured.panels.set_index("name")[["rack", "ru"]]
    for end in ("a", "b"):
        at = where.loc[trunks[f"{end}_panel"].to_numpy()]
        trunks[f"{end}_rack"] = at["rack"].to_numpy()
        trunks[f"{end}_ru"] = at["ru"].to_numpy()
    return trunks[COLUMNS].reset_index(drop=True)


def write(plan, out_dir: Path) -> None:
    """Write ``trunks.csv`` when the plan has structured cabling."""
    if plan.structured is not None:
        write_csv(table(plan.structured), Path(out_dir) / FILENAME)
