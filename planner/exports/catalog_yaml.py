"""``catalog.yaml``: the catalog the plan was priced with, as a catalog file.

Every model and price, so ``planner reprice`` can re-plan the same design with quoted prices
even when the catalog file has changed or is gone since. ``planner plan --catalog
DIR/catalog.yaml`` loads it as any catalog.
"""

from __future__ import annotations

from pathlib import Path

import yaml

FILENAME = "catalog.yaml"


def text(catalog) -> str:
    """The catalog as YAML (fields at their default values left out)."""
    data = catalog.model_dump(by_alias=True, exclude_defaults=True)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def write(plan, out_dir: Path) -> None:
    """Write ``catalog.yaml``."""
    (Path(out_dir) / FILENAME).write_text(text(plan.catalog), encoding="utf-8", newline="\n")
