"""Writers of the ``planner plan`` output folder.

Every module in this package that defines ``write(plan, out_dir: pathlib.Path)`` is a writer;
``planner plan`` calls them all, in module-name order, into a temporary folder that replaces
``--out`` only when every writer succeeded (``planner/output.py``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def writer_modules() -> list[ModuleType]:
    """The export modules that define a callable ``write``, sorted by module name."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if callable(getattr(module, "write", None)):
            found.append(module)
    return found


SLOWEST = ("labels", "wiring_pdf", "bom_xlsx", "netbox")
"""Writers by decreasing run time on large plans (benchmarks/bench_plan.py); the others are
several times faster."""


def writers(by_cost: bool = False) -> list[tuple[str, Callable[[object, Path], None]]]:
    """(module name, write function) of every writer, in module-name order, or with
    ``by_cost`` the slowest first (so parallel writers finish at about the same time)."""
    found = [(m.__name__.rsplit(".", 1)[-1], m.write) for m in writer_modules()]
    if by_cost:
        rank = {name: i for i, name in enumerate(SLOWEST)}
        found.sort(key=lambda item: rank.get(item[0], len(rank)))
    return found
