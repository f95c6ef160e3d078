"""Writers of the ``planner plan`` output folder: the last stage.

Takes a finished ``Plan`` (and nothing upstream imports this package); hands on files:
summary.json, cables.csv, cabinets.csv, trunks.csv, bom.xlsx, labels, wiring.pdf, the
simulator netlists, topology.graphml and .dot, the NetBox bundle and index.html. Tuning:
``tuning``.

Every module in this package that defines ``write(plan, out_dir: pathlib.Path)`` is a writer;
``planner plan`` calls them all, in module-name order, into a temporary folder that replaces
``--out`` only when every writer succeeded (``planner/run/output.py``).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import pkgutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from planner.exports.tuning import PARALLEL_MIN_CABLES, SLOWEST
from planner.run.output import write_folder


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


def writers(by_cost: bool = False) -> list[tuple[str, Callable[[object, Path], None]]]:
    """(module name, write function) of every writer, in module-name order, or with
    ``by_cost`` the slowest first (so parallel writers finish at about the same time)."""
    found = [(m.__name__.rsplit(".", 1)[-1], m.write) for m in writer_modules()]
    if by_cost:
        rank = {name: i for i, name in enumerate(SLOWEST)}
        found.sort(key=lambda item: rank.get(item[0], len(rank)))
    return found


def export_jobs(plan) -> int:
    """Writer processes for ``plan``: up to 4 of the CPUs this process may use; 1 for small
    plans (forking costs more than it saves there) and inside worker processes (``planner
    compare`` already runs one plan per CPU)."""
    if len(plan.cables) < PARALLEL_MIN_CABLES or multiprocessing.parent_process() is not None:
        return 1
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


def write_plan(plan, out: Path | str, progress=False,
               jobs: int | None = None) -> list[str]:
    """Every export writer of ``planner.exports`` into ``out``, atomically; ``jobs`` writer
    processes (default ``export_jobs``), the slowest writers first when there are several."""
    jobs = export_jobs(plan) if jobs is None else jobs
    return write_folder(out, [(name, lambda d, fn=fn: fn(plan, d))
                              for name, fn in writers(by_cost=jobs > 1)],
                        progress=progress, jobs=jobs)
