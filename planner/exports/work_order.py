"""work_order.csv and bom_growth.csv of a grown plan (``planner expand``); nothing for a plan
that did not grow.

work_order.csv: one row per cable to add, move or remove (``planner.cabling.work_order``
columns), in walking order. bom_growth.csv: per BOM line of the grown plan, its quantity, the
reused quantity (standing parts that stay in use), the new quantity to order and its price.
"""

from __future__ import annotations

from pathlib import Path

FILENAME = "work_order.csv"
BOM_FILENAME = "bom_growth.csv"


def write(plan, out_dir: Path) -> None:
    order = getattr(plan, "work_order", None)
    if order is None:
        return
    order.to_csv(Path(out_dir) / FILENAME, index=False, lineterminator="\n")
    plan.bom_growth.to_csv(Path(out_dir) / BOM_FILENAME, index=False, lineterminator="\n")
