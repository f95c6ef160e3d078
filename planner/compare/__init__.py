"""Side-by-side plans of several topologies for one target size (the architects' question).

"Slim Fly vs OFT vs Dragonfly for 10K endpoints on 48-port routers: cost for the bandwidth and
latency they deliver?" Takes a target size (endpoints, the switch radix and the families to
try) and/or explicit configurations, a catalog and a floor; hands on one comparison row per
plan, compare.xlsx, compare.pdf and one plan folder per family (configuration) in the output
folder.

Sized comparisons are like for like (``planner.topologies.sizing.like_for_like``): every family
at its balanced endpoints per router for the chosen switch, near the same endpoint count;
families that cannot be sized sanely for that switch are listed with the reason and not
planned. Configurations can also be listed explicitly in a spec file. Every configuration is
planned in full and every number in the comparison is the number in that plan's folder.

Submodules: sizing (configurations) -> running (jobs, rows) -> table, xlsx, pdf (reports);
tuning (constants).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from planner.compare.pdf import length_histogram, write_pdf
from planner.compare.running import (OUTPUTS, Job, Outcome, check_outputs,
                                     check_scheduler_address, row_from_summary, run_job,
                                     run_jobs, write_plan_folder)
from planner.compare.sizing import (CompareSpec, Configuration, load_spec,
                                    nearest_configurations)
from planner.compare.table import COLUMNS, DETAIL_COLUMNS, format_table
from planner.compare.xlsx import write_xlsx
from planner.run.errors import InputError
from planner.run.output import replace_folder


def compare(configurations: Sequence[Configuration], catalog, floor, *,
            out_dir: Path | None = None, strategy: str = "optimize", time_limit_s: float = 60.0,
            seed: int = 0, group_endpoints: int | None = None, endpoint_cables: bool = True,
            workers: int | None = None, scheduler: str | None = None,
            title: str | None = None, progress: bool = False,
            excluded: Sequence[tuple[str, str]] = (), outputs: str = "all") -> list[Outcome]:
    """Plan every configuration and, with ``out_dir``, write the plan folders (every file, or
    the set ``outputs`` names: ``running.OUTPUTS``), compare.xlsx and compare.pdf there
    (``excluded``: (family, reason) of the families not sized, listed in the reports). Returns
    the outcomes in configuration order."""
    if not configurations:
        raise InputError("nothing to compare: give --endpoints N or configurations "
                         "(--topology FAMILY:k=v, or a spec file's 'configurations')")
    from planner.topologies import FAMILIES

    check_outputs(outputs)
    if scheduler:
        check_scheduler_address(scheduler)
    seen: dict[str, int] = {}
    unique = []
    for conf in configurations:
        if conf.family not in FAMILIES:
            raise InputError(f"configuration '{conf.spec}': unknown topology family "
                             f"'{conf.family}'; valid families: {', '.join(FAMILIES)}")
        if conf.slug in seen:
            raise InputError(f"configuration '{conf.spec}' is listed twice; list it once")
        seen[conf.slug] = 1
        unique.append(conf)
    jobs = [Job(c, catalog, floor, strategy, time_limit_s, seed, group_endpoints,
                endpoint_cables, outputs) for c in unique]
    if out_dir is None:
        return run_jobs(jobs, None, workers=workers, scheduler=scheduler, progress=progress)
    out_dir = Path(out_dir)
    created = not out_dir.exists()
    prepare_out_dir(out_dir)
    staging = Path(tempfile.mkdtemp(prefix=".compare-", dir=out_dir))
    try:
        outcomes = run_jobs(jobs, staging, workers=workers, scheduler=scheduler,
                            progress=progress)
        names = write_reports(outcomes, staging, title or default_title(catalog, floor),
                              excluded)
        kept = _move_into_place(staging, out_dir, [o.folder for o in outcomes] + names)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if created:
            try:
                out_dir.rmdir()     # only if nothing else was put there meanwhile
            except OSError:
                pass
        raise
    shutil.rmtree(staging, ignore_errors=True)
    for folder in kept:
        print(f"note: '{folder}' keeps what you had saved in the previous plan folder of that "
              "name; the new plan replaced it", file=sys.stderr)
    return outcomes


def _move_into_place(staging: Path, out_dir: Path, names: Sequence[str]) -> list[Path]:
    """Rename every finished item from the staging folder over its final name; a previous plan
    folder loses only the files its manifest lists (``replace_folder``). Returns the folders
    kept beside their name because they held something of the user's."""
    kept = []
    for name in names:
        left = replace_folder(staging / name, out_dir / name, staging / f".replaced-{name}")
        if left is not None:
            kept.append(left)
    return kept


def default_title(catalog, floor) -> str:
    return f"Topology comparison: catalog {catalog.name}, floor {floor.name}"


def write_reports(outcomes: Sequence[Outcome], out_dir: Path, title: str,
                  excluded: Sequence[tuple[str, str]] = ()) -> list[str]:
    """compare.xlsx and compare.pdf in ``out_dir``; returns their file names."""
    write_xlsx(outcomes, out_dir / "compare.xlsx", title, excluded)
    write_pdf(outcomes, out_dir / "compare.pdf", title, excluded)
    return ["compare.xlsx", "compare.pdf"]


def prepare_out_dir(out_dir: Path) -> Path:
    """Create the output folder. InputError if it is a file, or a non-empty folder that does
    not hold a previous comparison (no compare.xlsx), so nothing of the user's is replaced."""
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"--out '{out_dir}' is a file; give a folder path (new, empty, or a "
                         "previous comparison's folder)")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / "compare.xlsx").is_file():
        raise InputError(f"--out '{out_dir}' is a non-empty folder that does not hold a previous "
                         "comparison (no compare.xlsx); give a new or empty folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir


__all__ = ["COLUMNS", "CompareSpec", "Configuration", "Job", "OUTPUTS", "Outcome",
           "check_outputs", "check_scheduler_address",
           "compare", "format_table", "length_histogram", "load_spec",
           "nearest_configurations", "prepare_out_dir", "row_from_summary", "run_job",
           "run_jobs", "write_pdf", "write_reports", "write_xlsx",
           # used from planner.compare by benchmarks/bench.py and tests/test_compare.py
           "DETAIL_COLUMNS", "write_plan_folder"]
