"""Side-by-side plans of several topologies for one target size (the architects' question).

"Slim Fly vs OFT vs Dragonfly for 10K endpoints on 48-port routers: cost, power, cables?"
For each family the configuration nearest the target that fits the router radix is taken from
``planner.topologies.sizing`` (the ``planner size`` answer), or configurations are listed
explicitly in a spec file. Every configuration is planned in full (``planner.plan.plan``), its
output folder written with the same writer ``planner plan`` uses, and one table row is read
from the plan's ``summary.json`` values, so every number in the comparison is the number in
that plan's folder.

Plans run in parallel: in worker processes on this machine (``ProcessPoolExecutor``), or on an
existing Dask cluster (``dask.distributed``). Results are always in configuration order,
whatever order the plans finish in. Workers of a Dask cluster need not share a filesystem with
the client: each plan folder travels back as a tar archive and is unpacked by the client.
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
import re
import shutil
import tarfile
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd
from pydantic import (BaseModel, ConfigDict, Field, NonNegativeInt, PositiveFloat,
                      PositiveInt)

from planner.errors import InputError

#: Table columns: (key, header, format) in display order.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("family", "family", "{}"),
    ("params", "parameters", "{}"),
    ("endpoints", "endpoints", "{:,}"),
    ("routers", "routers", "{:,}"),
    ("radix", "radix", "{}"),
    ("electrical", "electrical", "{:,}"),
    ("optical", "optical", "{:,}"),
    ("cable_length_m", "cable m", "{:,.0f}"),
    ("cost_per_endpoint", "$/endpoint", "{:,.2f}"),
    ("power_per_endpoint_w", "W/endpoint", "{:.3f}"),
    ("diameter", "diameter", "{}"),
    ("avg_distance", "avg dist", "{:.4f}"),
)

#: Extra columns kept in compare.xlsx (not in the terminal table).
DETAIL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("network_electrical", "network electrical"),
    ("network_optical", "network optical"),
    ("endpoint_electrical", "endpoint electrical"),
    ("endpoint_optical", "endpoint optical"),
    ("links", "router links"),
    ("cabinets", "cabinets"),
    ("groups", "electrical groups"),
    ("strategy", "strategy"),
    ("method", "method"),
    ("optical_lower_bound", "optical lower bound"),
    ("cost_routers", "routers $"),
    ("cost_cables", "cables $"),
    ("cost_total", "total $"),
    ("power_total_w", "total W"),
    ("folder", "plan folder"),
)


# --------------------------------------------------------------------------- configurations

@dataclass(frozen=True)
class Configuration:
    """One topology to plan: a family and its builder parameters (``planner topology`` terms)."""

    family: str
    params: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, family: str, params: dict[str, Any]) -> "Configuration":
        return cls(family, tuple((str(k), tuple(v) if isinstance(v, list) else v)
                                 for k, v in params.items() if v is not None))

    @classmethod
    def parse(cls, spec: str, where: str = "configuration") -> "Configuration":
        """``"slimfly:q=19,p=13"`` -> Configuration (the ``planner plan --topology`` string)."""
        family, _, rest = spec.strip().partition(":")
        if not family or family == "file":
            raise InputError(f"{where}: expected FAMILY:k=v,k=v (e.g. 'slimfly:q=19,p=13'), "
                             f"got {spec!r}")
        params: list[tuple[str, Any]] = []
        for item in filter(None, (s.strip() for s in rest.split(","))):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise InputError(f"{where}: parameter {item!r} in {spec!r} must be k=v")
            params.append((key.strip(), _scalar(value.strip())))
        return cls(family.strip(), tuple(params))

    @property
    def params_text(self) -> str:
        """``q=19,p=13``: the parameters as written after ``FAMILY:``."""
        return ",".join(f"{k}={_text(v)}" for k, v in self.params)

    @property
    def spec(self) -> str:
        return f"{self.family}:{self.params_text}" if self.params else self.family

    @property
    def slug(self) -> str:
        """Folder name ``<family>-<params>`` (``slimfly-q19-p13``), filesystem-safe."""
        parts = [self.family] + [f"{k}{_text(v)}" for k, v in self.params]
        return re.sub(r"[^A-Za-z0-9._+-]", "_", "-".join(parts))


def _scalar(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "x".join(str(v) for v in value)
    return str(value)


def nearest_configurations(endpoints: int, max_radix: int,
                           families: Sequence[str] | None = None) -> list[Configuration]:
    """Per family, the feasible configuration nearest ``endpoints`` with radix <= ``max_radix``.

    This is the first answer ``planner size --endpoints N --max-radix R`` gives per family.
    Families with no feasible configuration under that radix are left out; if none is left,
    InputError names the radix.
    """
    from planner.topologies import sizing

    if endpoints <= 0:
        raise InputError(f"--endpoints must be a positive integer, got {endpoints}")
    found = sizing.nearest(endpoints, max_radix, families=list(families) if families else None,
                           count=1)
    configs = [Configuration.of(family, options[0].params)
               for family, options in found.items() if options]
    if not configs:
        raise InputError(f"--max-radix {max_radix}: no configuration of "
                         f"{', '.join(families or found) or 'any family'} fits; "
                         f"raise --max-radix or name other --families")
    return configs


class CompareSpec(BaseModel):
    """A ``planner compare`` spec file (YAML). Command-line options override its fields.

    Either ``endpoints`` (with optional ``families`` and ``max_radix``: the nearest
    configuration per family) or ``configurations`` (explicit ``FAMILY:k=v,...`` strings), or
    both (explicit ones first).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    title: str | None = None
    endpoints: PositiveInt | None = None
    families: list[str] | None = None
    max_radix: PositiveInt | None = None
    configurations: list[str] = Field(default_factory=list)
    catalog: str | None = None
    floor: str | None = None
    strategy: Literal["hint", "partition", "optimize"] | None = None
    time_limit: PositiveFloat | None = None
    seed: NonNegativeInt | None = None
    group_endpoints: PositiveInt | None = None
    endpoint_cables: bool | None = None


def load_spec(path: str | Path) -> CompareSpec:
    """Read and validate a compare spec file; InputError naming the file and field."""
    from planner import schema

    path = Path(path)
    if not path.is_file():
        raise InputError(f"compare spec '{path}' does not exist; give a YAML file")
    return schema.validate(CompareSpec, schema.read_yaml(path, "compare spec"), path,
                           "compare spec")


# --------------------------------------------------------------------------- jobs and results

@dataclass(frozen=True)
class Job:
    """Everything one worker needs to plan one configuration (picklable)."""

    configuration: Configuration
    catalog: Any                      # planner.catalog.Catalog
    floor: Any                        # planner.floor.Floor
    strategy: str = "optimize"
    time_limit_s: float = 60.0
    seed: int = 0
    group_endpoints: int | None = None
    endpoint_cables: bool = True


@dataclass(frozen=True)
class Outcome:
    """What comes back from one plan: the table row and what the reports need."""

    configuration: Configuration
    row: dict[str, Any]
    summary: dict[str, Any]
    bom: pd.DataFrame
    lengths_m: np.ndarray              # float32, one per cable
    optical: np.ndarray                # bool, one per cable
    folder: str | None = None          # plan folder name under the output directory
    archive: bytes | None = field(default=None, repr=False)


def row_from_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """One comparison row; every number is read from the plan's ``summary.json`` values."""
    top, cab, cost, power = (summary["topology"], summary["cables"], summary["cost"],
                             summary["power"])
    net, end = cab["network"], cab["endpoint"]
    place = summary.get("placement", {})
    return {
        "family": top["family"],
        "params": ",".join(f"{k}={_text(v)}" for k, v in top["params"].items()),
        "endpoints": int(top["endpoints"]),
        "routers": int(top["routers"]),
        "radix": int(top["radix"]),
        "electrical": int(net["electrical"] + end["electrical"]),
        "optical": int(net["optical"] + end["optical"]),
        "cable_length_m": float(net["length_m"] + end["length_m"]),
        "cost_per_endpoint": float(cost["per_endpoint"]),
        "power_per_endpoint_w": float(power["per_endpoint_w"]),
        "diameter": int(top["diameter"]),
        "avg_distance": float(top["avg_distance"]),
        "network_electrical": int(net["electrical"]),
        "network_optical": int(net["optical"]),
        "endpoint_electrical": int(end["electrical"]),
        "endpoint_optical": int(end["optical"]),
        "links": int(top["links"]),
        "cabinets": place.get("cabinets"),
        "groups": place.get("groups"),
        "strategy": place.get("strategy"),
        "method": place.get("method"),
        "optical_lower_bound": place.get("optical_lower_bound"),
        "cost_routers": float(cost["routers"]),
        "cost_cables": float(cost["cables"]),
        "cost_total": float(cost["total"]),
        "power_total_w": float(power["total_w"]),
    }


def run_job(job: Job, out_dir: str | None = None, ship: bool = False) -> Outcome:
    """Plan one configuration; write its folder under ``out_dir`` (or pack it, ``ship``).

    Runs in a worker process (or on a Dask worker); top-level so it pickles.
    """
    from planner import topologies
    from planner.plan import plan

    conf = job.configuration
    try:
        topology = topologies.build(conf.family, **dict(conf.params))
        result = plan(topology, job.catalog, job.floor, strategy=job.strategy,
                      time_limit_s=job.time_limit_s, seed=job.seed,
                      group_endpoints=job.group_endpoints, endpoint_cables=job.endpoint_cables)
    except InputError as err:        # say which of the compared configurations failed
        raise InputError(f"configuration '{conf.spec}': {err}") from None
    summary = result.summary
    row = row_from_summary(summary)
    folder = archive = None
    if out_dir is not None or ship:
        folder = conf.slug
        if ship:
            archive = _packed_plan(result, folder)
        else:
            write_plan_folder(result, Path(out_dir) / folder)
    cables = result.cables
    return Outcome(configuration=conf, row=row | {"folder": folder}, summary=summary,
                   bom=result.bom.copy(),
                   lengths_m=cables["length_m"].to_numpy(dtype=np.float32),
                   optical=(cables["media"] == "optical").to_numpy(),
                   folder=folder, archive=archive)


def write_plan_folder(result, out: Path) -> None:
    """The ``planner plan`` writer: every exporter into a temporary folder, moved atomically."""
    from planner.output import write_plan

    write_plan(result, out)


def _packed_plan(result, folder: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="planner-compare-") as tmp:
        write_plan_folder(result, Path(tmp) / folder)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            tar.add(Path(tmp) / folder, arcname=folder)
        return buf.getvalue()


def _unpack(archive: bytes, out_dir: Path) -> None:
    """Unpack one shipped plan folder into ``out_dir`` (a fresh staging folder)."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(out_dir, filter="data")


def run_jobs(jobs: Sequence[Job], out_dir: Path | None = None, *, workers: int | None = None,
             scheduler: str | None = None, progress: bool = False) -> list[Outcome]:
    """Plan every job; results in job order, whatever order they finish in.

    ``scheduler``: address of a running Dask scheduler (``tcp://host:8786``); plans run on its
    workers and their folders come back packed. Otherwise ``workers`` processes on this machine
    (default: one per job up to the CPU count; 1 = in this process). ``progress``: a
    ``planner.progress`` mode counting finished plans (a bar, or one line per plan in a log).
    """
    out = str(out_dir) if out_dir is not None else None
    bar = _bar(len(jobs), progress)
    try:
        if scheduler:
            outcomes = _run_dask(jobs, scheduler, out is not None, bar)
            if out is not None:
                for o in outcomes:
                    _unpack(o.archive, Path(out))
            return [_without_archive(o) for o in outcomes]
        workers = workers or min(len(jobs), os.cpu_count() or 1)
        if workers <= 1 or len(jobs) <= 1:
            outcomes = []
            for job in jobs:
                outcomes.append(run_job(job, out))
                bar.update(1)
            return outcomes
        with _blas_threads(max(1, (os.cpu_count() or 1) // workers)):
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))
            try:
                futures = [pool.submit(run_job, j, out) for j in jobs]
                for done in as_completed(futures):
                    done.result()
                    bar.update(1)
                return [f.result() for f in futures]
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
    finally:
        bar.close()


def _bar(total: int, progress):
    """Finished plans counted on a bar, or one line each in a log (``planner.progress``)."""
    from planner.progress import Counter

    return Counter("compare", "plans", total, progress)


def _without_archive(o: Outcome) -> Outcome:
    return dataclasses.replace(o, archive=None)


_BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def _blas_threads(threads: int):
    """Share the cores between worker processes: each spawned worker's BLAS/OpenMP pools get
    ``threads`` threads (unless the user set the variables). Without this, J workers × all-core
    OpenBLAS pools oversubscribe the machine; measured here on 2 cores, 2 parallel plans took
    5x longer than with one BLAS thread each."""
    saved = {k: os.environ.get(k) for k in _BLAS_THREAD_VARS}
    for key in _BLAS_THREAD_VARS:
        os.environ.setdefault(key, str(threads))
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def check_scheduler_address(address: str) -> None:
    """InputError unless ``address`` parses as a Dask scheduler address (``tcp://HOST:PORT``);
    checked before anything is planned or written."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import backends

    try:
        scheme, location = parse_address(address)
        if scheme not in backends:
            raise ValueError(f"unknown scheme '{scheme}://'")
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as err:
        raise InputError(f"--dask-scheduler {address!r}: {err}; give the scheduler's address "
                         "as tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)") from None


def _run_dask(jobs: Sequence[Job], address: str, ship: bool, bar) -> list[Outcome]:
    from distributed import Client

    try:
        client = Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"--dask-scheduler: cannot reach a Dask scheduler at {address!r} "
                         f"({err})") from err
    with client:
        futures = [client.submit(run_job, j, None, ship, pure=False) for j in jobs]
        outcomes = []
        for future in futures:
            outcomes.append(future.result())
            bar.update(1)
        return outcomes


def compare(configurations: Sequence[Configuration], catalog, floor, *,
            out_dir: Path | None = None, strategy: str = "optimize", time_limit_s: float = 60.0,
            seed: int = 0, group_endpoints: int | None = None, endpoint_cables: bool = True,
            workers: int | None = None, scheduler: str | None = None,
            title: str | None = None, progress: bool = False) -> list[Outcome]:
    """Plan every configuration and, with ``out_dir``, write the plan folders, compare.xlsx and
    compare.pdf there. Returns the outcomes in configuration order."""
    if not configurations:
        raise InputError("nothing to compare: give --endpoints N or configurations "
                         "(--topology FAMILY:k=v, or a spec file's 'configurations')")
    from planner.topologies import FAMILIES

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
                endpoint_cables) for c in unique]
    if out_dir is None:
        return run_jobs(jobs, None, workers=workers, scheduler=scheduler, progress=progress)
    out_dir = Path(out_dir)
    created = not out_dir.exists()
    prepare_out_dir(out_dir)
    staging = Path(tempfile.mkdtemp(prefix=".compare-", dir=out_dir))
    try:
        outcomes = run_jobs(jobs, staging, workers=workers, scheduler=scheduler,
                            progress=progress)
        names = write_reports(outcomes, staging, title or default_title(catalog, floor))
        _move_into_place(staging, out_dir, [o.folder for o in outcomes] + names)
    except BaseException:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return outcomes


def _move_into_place(staging: Path, out_dir: Path, names: Sequence[str]) -> None:
    """Rename every finished item from the staging folder over its final name."""
    for name in names:
        target = out_dir / name
        if target.is_dir() and not target.is_symlink():
            target.rename(staging / f".replaced-{name}")
        (staging / name).replace(target)


def default_title(catalog, floor) -> str:
    return f"Topology comparison: catalog {catalog.name}, floor {floor.name}"


# --------------------------------------------------------------------------- table

def format_table(outcomes: Sequence[Outcome]) -> str:
    """Fixed-width text table for the terminal; numbers right-aligned."""
    headers = [h for _, h, _ in COLUMNS]
    cells = [[fmt.format(o.row[k]) for k, _, fmt in COLUMNS] for o in outcomes]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    left = {0, 1}

    def line(values):
        return "  ".join(v.ljust(w) if i in left else v.rjust(w)
                         for i, (v, w) in enumerate(zip(values, widths))).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells])


# --------------------------------------------------------------------------- reports

def write_reports(outcomes: Sequence[Outcome], out_dir: Path, title: str) -> list[str]:
    """compare.xlsx and compare.pdf in ``out_dir``; returns their file names."""
    write_xlsx(outcomes, out_dir / "compare.xlsx", title)
    write_pdf(outcomes, out_dir / "compare.pdf", title)
    return ["compare.xlsx", "compare.pdf"]


def length_histogram(outcomes: Sequence[Outcome],
                     bins: int = 12) -> tuple[np.ndarray, list[np.ndarray]]:
    """Common bin edges (m) over all plans and the cable count per bin for each plan."""
    lengths = [o.lengths_m for o in outcomes]
    top = max((float(x.max()) for x in lengths if len(x)), default=1.0)
    step = _nice_step(top / bins)
    edges = np.arange(0.0, step * (math.ceil(top / step) + 1) - step / 2, step)
    if len(edges) < 2:
        edges = np.array([0.0, step])
    return edges, [np.histogram(x, bins=edges)[0] for x in lengths]


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``raw``."""
    if raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def write_xlsx(outcomes: Sequence[Outcome], path: Path, title: str) -> None:
    """Sheet "Comparison" (every column, one row per plan) and one BOM sheet per plan."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    wb = Workbook()
    ws = wb.active
    ws.title = "Comparison"
    ws.append([title])
    ws["A1"].font = Font(bold=True, size=12)
    heads = [h for _, h, _ in COLUMNS] + [h for _, h in DETAIL_COLUMNS]
    keys = [k for k, _, _ in COLUMNS] + [k for k, _ in DETAIL_COLUMNS]
    ws.append(heads)
    for cell in ws[2]:
        cell.font = Font(bold=True)
    for o in outcomes:
        ws.append([o.row.get(k) for k in keys])
    formats = {"cost_per_endpoint": "#,##0.00", "power_per_endpoint_w": "0.000",
               "avg_distance": "0.0000", "cable_length_m": "#,##0.0", "cost_routers": "#,##0.00",
               "cost_cables": "#,##0.00", "cost_total": "#,##0.00", "power_total_w": "#,##0.0"}
    for j, key in enumerate(keys, start=1):
        letter = get_column_letter(j)
        width = max(len(str(heads[j - 1])), *(len(str(o.row.get(key))) for o in outcomes)) + 2
        ws.column_dimensions[letter].width = min(width, 40)
        for r in range(3, 3 + len(outcomes)):
            ws[f"{letter}{r}"].number_format = formats.get(key, "#,##0" if key in
                                                           _INT_KEYS else "General")
    ws.freeze_panes = "C3"
    used: set[str] = set()
    for n, o in enumerate(outcomes, start=1):
        name = _sheet_name(f"BOM {n} {o.configuration.slug}", used)
        sheet = wb.create_sheet(name)
        sheet.append([f"{o.configuration.spec}: bill of materials"])
        sheet["A1"].font = Font(bold=True)
        bom = o.bom
        sheet.append(list(bom.columns))
        for cell in sheet[2]:
            cell.font = Font(bold=True)
        for rec in bom.itertuples(index=False):
            sheet.append([_plain(v) for v in rec])
        if "extended_price" in bom.columns and len(bom):
            col = get_column_letter(list(bom.columns).index("extended_price") + 1)
            total = [None] * len(bom.columns)
            total[0] = "total"
            total[list(bom.columns).index("extended_price")] = f"=SUM({col}3:{col}{2 + len(bom)})"
            sheet.append(total)
            sheet.cell(sheet.max_row, 1).font = Font(bold=True)
        for j, col in enumerate(bom.columns, start=1):
            letter = get_column_letter(j)
            sheet.column_dimensions[letter].width = min(
                max(len(str(col)), *(len(str(v)) for v in bom[col].tolist()), 8) + 2, 60)
            if col in ("unit_price", "extended_price"):
                for r in range(3, 4 + len(bom)):
                    sheet[f"{letter}{r}"].number_format = "#,##0.00"
        sheet.freeze_panes = "A3"
    wb.save(path)


_INT_KEYS = {"endpoints", "routers", "electrical", "optical", "network_electrical",
             "network_optical", "endpoint_electrical", "endpoint_optical", "links"}


def _sheet_name(name: str, used: set[str]) -> str:
    base = re.sub(r"[\\/*?:\[\]]", "_", name)[:31]
    out, n = base, 2
    while out in used:
        out = f"{base[:28]}~{n}"
        n += 1
    used.add(out)
    return out


def _plain(v: Any) -> Any:
    """A cell value openpyxl writes as Excel expects (numpy scalars unwrapped, NaN empty)."""
    if isinstance(v, np.generic):
        v = v.item()
    return None if isinstance(v, float) and math.isnan(v) else v


def write_pdf(outcomes: Sequence[Outcome], path: Path, title: str) -> None:
    """Charts (cost and power per endpoint, cables by media, cable lengths) and the table."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import cm
    from reportlab.platypus import (KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table,
                                    TableStyle)

    styles = getSampleStyleSheet()
    doc = SimpleDocTemplate(str(path), pagesize=landscape(A4), title=title,
                            leftMargin=1.2 * cm, rightMargin=1.2 * cm,
                            topMargin=1.2 * cm, bottomMargin=1.2 * cm)
    names = [o.configuration.slug for o in outcomes]
    data = [[h for _, h, _ in COLUMNS]] + [[fmt.format(o.row[k]) for k, _, fmt in COLUMNS]
                                           for o in outcomes]
    table = Table(data, repeatRows=1)
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), "Helvetica", 7.5),
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 7.5),
        ("ALIGN", (2, 0), (-1, -1), "RIGHT"),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#eef2f7")]),
    ]))
    width = landscape(A4)[0] - 2.4 * cm
    edges, counts = length_histogram(outcomes)
    half = width / 2 - 6
    cost = _bar_chart("Cost per endpoint ($)", names,
                      [[o.row["cost_per_endpoint"] for o in outcomes]], None, half, "%.0f")
    power = _bar_chart("Power per endpoint (W)", names,
                       [[o.row["power_per_endpoint_w"] for o in outcomes]], None, half, "%.2f")
    media = _bar_chart("Cables by media", names,
                       [[o.row["electrical"] for o in outcomes],
                        [o.row["optical"] for o in outcomes]],
                       ["electrical", "optical"], width, None, stacked=True)
    hist = _bar_chart("Cable length distribution (cables per length bin, m)",
                      [f"{a:g}-{b:g}" for a, b in zip(edges[:-1], edges[1:])],
                      [c.tolist() for c in counts], names, width, None)
    pair = Table([[cost, power]], colWidths=[width / 2, width / 2])
    doc.build([Paragraph(title, styles["Title"]), table, Spacer(1, 0.4 * cm), pair,
               KeepTogether([media]), KeepTogether([hist])])


_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")


def _bar_chart(title: str, categories: Sequence[str], series: Sequence[Sequence[float]],
               legend: Sequence[str] | None, width: float, label_fmt: str | None,
               stacked: bool = False):
    """A reportlab ``VerticalBarChart`` drawing with a title and an optional legend."""
    from reportlab.graphics.charts.barcharts import VerticalBarChart
    from reportlab.graphics.charts.legends import Legend
    from reportlab.graphics.shapes import Drawing, String
    from reportlab.lib import colors

    height = 200
    d = Drawing(width, height + (30 if legend else 0))
    d.add(String(width / 2, d.height - 12, title, fontName="Helvetica-Bold", fontSize=10,
                 textAnchor="middle"))
    chart = VerticalBarChart()
    chart.x, chart.y = 50, 55
    chart.width, chart.height = width - 70, height - 90
    chart.data = [list(map(float, s)) for s in series]
    chart.categoryAxis.categoryNames = list(categories)
    chart.categoryAxis.labels.fontSize = 6.5
    chart.categoryAxis.labels.angle = 30 if len(categories) > 4 else 0
    chart.categoryAxis.labels.boxAnchor = "ne" if len(categories) > 4 else "n"
    chart.valueAxis.valueMin = 0
    peak = max((sum(col) for col in zip(*chart.data)) if stacked else
               (v for s in chart.data for v in s), default=0.0)
    chart.valueAxis.valueMax = peak * 1.12 if peak > 0 else 1.0
    chart.valueAxis.labels.fontSize = 7
    chart.valueAxis.forceZero = 1
    if stacked:
        chart.categoryAxis.style = "stacked"
    for i in range(len(series)):
        chart.bars[i].fillColor = colors.HexColor(_PALETTE[i % len(_PALETTE)])
        chart.bars[i].strokeColor = None
    if label_fmt and not stacked:
        chart.barLabelFormat = label_fmt
        chart.barLabels.fontSize = 6.5
        chart.barLabels.nudge = 6
    d.add(chart)
    if legend:
        leg = Legend()
        leg.x, leg.y = 50, d.height - 24
        leg.alignment = "right"
        leg.columnMaximum = 1
        leg.fontSize = 7
        leg.dx = leg.dy = 7
        leg.deltax = max(60, 5.5 * max(len(s) for s in legend) + 20)
        leg.colorNamePairs = [(colors.HexColor(_PALETTE[i % len(_PALETTE)]), n)
                              for i, n in enumerate(legend)]
        d.add(leg)
    return d


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


__all__ = ["COLUMNS", "CompareSpec", "Configuration", "Job", "Outcome", "check_scheduler_address",
           "compare", "format_table", "length_histogram", "load_spec",
           "nearest_configurations", "prepare_out_dir", "row_from_summary", "run_job",
           "run_jobs", "write_pdf", "write_reports", "write_xlsx"]
