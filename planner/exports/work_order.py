"""work_order.csv, bom_growth.csv and the drain steps' verification lists of a grown plan
(``planner expand``); nothing for a plan that did not grow.

work_order.csv: one row per cable to add, move or remove (``planner.cabling.work_order``
columns), in walking order, each with its drain step. bom_growth.csv: per BOM line of the grown
plan, its quantity, the reused quantity (standing parts that stay in use), the new quantity to
order and its price. ``drain_steps/step_NN_cables.csv``: per drain step, the fabric cables that
stand once it is done, in cables.csv's columns (``planner verify --plan`` reads it).
"""

from __future__ import annotations

from pathlib import Path

FILENAME = "work_order.csv"
BOM_FILENAME = "bom_growth.csv"
STEPS_DIR = "drain_steps"


def step_list_name(step: int) -> str:
    """Path (in the plan folder) of drain step ``step``'s verification list."""
    return f"{STEPS_DIR}/step_{step:02d}_cables.csv"


def write(plan, out_dir: Path) -> None:
    order = getattr(plan, "work_order", None)
    if order is None:
        return
    order.to_csv(Path(out_dir) / FILENAME, index=False, lineterminator="\n")
    plan.bom_growth.to_csv(Path(out_dir) / BOM_FILENAME, index=False, lineterminator="\n")
    lists = getattr(plan, "drain_lists", None)
    if lists is None:
        return
    count, after = lists
    (Path(out_dir) / STEPS_DIR).mkdir(exist_ok=True)
    for k in range(1, count + 1):
        after(k).to_csv(Path(out_dir) / step_list_name(k), index=False, lineterminator="\n")
