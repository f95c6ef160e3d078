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

from planner.exports.tuning import (FORK_BYTES_PER_CABLE, FORK_OTHER_BYTES_PER_CABLE,
                                    HALL_PART_FORK_BYTES_PER_CABLE, PARALLEL_MIN_CABLES, SLOWEST,
                                    WRITER_BASE_BYTES, WRITER_BYTES_PER_CABLE,
                                    WRITER_OTHER_BYTES_PER_CABLE, WRITER_OTHER_SECONDS_PER_CABLE,
                                    WRITER_SECONDS_PER_CABLE)
from planner.run import memory
from planner.run.output import Task, write_folder


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
    ``by_cost`` the ones that take the most memory first (``tuning.WRITER_BYTES_PER_CABLE``;
    ties: the slowest first), so the largest run while the fewest others do."""
    found = [(m.__name__.rsplit(".", 1)[-1], m.write) for m in writer_modules()]
    if by_cost:
        rank = {name: i for i, name in enumerate(SLOWEST)}
        found.sort(key=lambda item: (-WRITER_BYTES_PER_CABLE.get(
            item[0], WRITER_OTHER_BYTES_PER_CABLE), rank.get(item[0], len(rank)), item[0]))
    return found


def export_jobs(plan) -> int:
    """Writer processes for ``plan``: up to 4 of the CPUs this process may use; 1 for small
    plans (forking costs more than it saves there) and inside worker processes (``planner
    compare`` already runs one plan per CPU)."""
    if len(plan.cables) < PARALLEL_MIN_CABLES or multiprocessing.parent_process() is not None:
        return 1
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


def writer_growth(name: str, cables: int) -> int:
    """Bytes the writer ``name`` adds to the process holding a plan of ``cables`` cables
    (``tuning.WRITER_BYTES_PER_CABLE``)."""
    per_cable = WRITER_BYTES_PER_CABLE.get(name, WRITER_OTHER_BYTES_PER_CABLE)
    return WRITER_BASE_BYTES + per_cable * int(cables)


def writers_for(plan, cap: int, available: int | None = None,
                parent: int | None = None) -> int:
    """Writer processes to fork at once for ``plan``: at most ``cap``, and only as many as fit
    in ``available`` bytes (default: measured now, ``memory.available_bytes``) when each copies
    part of this process (``parent`` bytes, default its measured PSS) and adds its own growth
    (``memory.writers_at_once``). 1 or 0: the writers run in this process, one at a time."""
    if cap <= 1:
        return cap
    available = memory.available_bytes() if available is None else available
    parent = (memory.process_bytes() or 0) if parent is None else parent
    needs = [memory.fork_bytes(writer_growth(name, len(plan.cables)), parent)
             for name, _ in writers()]
    return memory.writers_at_once(needs, available, cap)


def writer_seconds(name: str, cables: int) -> float:
    """Estimated CPU seconds of the writer ``name`` on a plan of ``cables`` cables
    (``tuning.WRITER_SECONDS_PER_CABLE``): what orders the export tasks."""
    return WRITER_SECONDS_PER_CABLE.get(name, WRITER_OTHER_SECONDS_PER_CABLE) * int(cables)


def fork_memory(name: str, cables: int, per_hall: bool = False) -> int:
    """Estimated private bytes of a forked process writing ``name`` (or one hall's part of it,
    ``per_hall``) for a plan of ``cables`` cables (``tuning.FORK_BYTES_PER_CABLE``)."""
    table = HALL_PART_FORK_BYTES_PER_CABLE if per_hall else FORK_BYTES_PER_CABLE
    return table.get(name, FORK_OTHER_BYTES_PER_CABLE) * int(cables)


def export_tasks(plan, found: list[tuple[str, Callable[[object, Path], None]]],
                 split: bool = False) -> list[Task]:
    """The writers ``found`` (name, write(plan, folder)) as tasks for ``write_folder``, each
    with its estimated time (``writer_seconds``: forked tasks start longest first) and memory
    (``fork_memory``). With ``split``, a writer whose module has ``parts``
    (``planner.exports.split``) and splits this plan becomes one task per file, estimated at
    its weight of the writer's time."""
    cables = len(plan.cables)
    modules = {m.__name__.rsplit(".", 1)[-1]: m for m in writer_modules()} if split else {}
    tasks = []
    for name, fn in found:
        seconds = writer_seconds(name, cables)
        module = modules.get(name)
        own = module is not None and fn is getattr(module, "write", None)
        pieces = module.parts(plan) if own and hasattr(module, "parts") else None
        if not pieces:
            tasks.append(Task(name, lambda d, fn=fn: fn(plan, d), seconds=seconds,
                              memory=fork_memory(name, cables)))
            continue
        tasks += [Task(name, part.write, part.name, part.prepare, seconds * part.weight,
                       fork_memory(name, cables, part.per_hall))
                  for part in pieces]
    return tasks


def write_plan(plan, out: Path | str, progress=False, jobs: int | None = None,
               max_writers: int | None = None) -> list[str]:
    """Every export writer of ``planner.exports`` into ``out``, atomically. Up to ``jobs``
    writer processes (default ``export_jobs``; ``max_writers``, the user's ``--writers``,
    lowers it), as many as the memory measured now allows (``writers_for``: any that many
    writers fit at once); with several, the writers split per hall (``export_tasks``), the
    longest tasks first; with one, in this process one after the other. The files are
    the same whatever the count."""
    cap = export_jobs(plan) if jobs is None else jobs
    if max_writers is not None:
        cap = min(cap, max_writers)
    count = writers_for(plan, cap)
    return write_folder(out, export_tasks(plan, writers(by_cost=count > 1), split=count > 1),
                        progress=progress, jobs=count)
