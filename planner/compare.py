"""Side-by-side plans of several topologies for one target size (the architects' question).

"Slim Fly vs OFT vs Dragonfly for 10K endpoints on 48-port routers: cost for the bandwidth and
latency they deliver?" Sized comparisons are like for like (``planner.topologies.sizing.
like_for_like``): every family at its balanced endpoints per router for the chosen switch, near
the same endpoint count; families that cannot be sized sanely for that switch are listed with
the reason and not planned. Configurations can also be listed explicitly in a spec file.
Every configuration is planned in full (``planner.plan.plan``), its output folder written with
the same writer ``planner plan`` uses, and one table row is read from the plan's
``summary.json`` values, so every number in the comparison is the number in that plan's folder.

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

from planner.run.errors import InputError

#: Table columns: (key, header, format) in display order.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("family", "family", "{}"),
    ("params", "parameters", "{}"),
    ("endpoints", "endpoints", "{:,}"),
    ("routers", "routers", "{:,}"),
    ("ports", "ports used", "{}"),
    ("cost_per_endpoint", "$/endpoint", "{:,.2f}"),
    ("power_per_endpoint_w", "W/endpoint", "{:.3f}"),
    ("theta_text", "uniform θ", "{}"),
    ("latency_ns", "latency ns", "{:,.0f}"),
    ("cost_per_tbps", "$ per Tb/s", "{:,.0f}"),
    ("electrical", "electrical", "{:,}"),
    ("optical", "optical", "{:,}"),
    ("cable_length_m", "cable m", "{:,.0f}"),
    ("diameter", "diameter", "{}"),
    ("avg_distance", "avg dist", "{:.4f}"),
)
"""``uniform θ``: saturation throughput under uniform traffic as a fraction of injection bandwidth
(``<= x`` when only an upper bound is known); ``latency ns``: average zero-load latency between
endpoints; ``$ per Tb/s``: total cost / (θ x endpoints x port rate), at least this when θ is a
bound. All from the plan's ``summary.json`` ``performance`` block."""

#: Extra columns kept in compare.xlsx (not in the terminal table).
DETAIL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("radix", "radix"),
    ("router_sku", "router"),
    ("router_radix", "router ports"),
    ("ports_free", "ports free"),
    ("theta", "uniform θ (number)"),
    ("theta_kind", "uniform θ kind"),
    ("theta_ecmp", "uniform θ, ECMP minimal routing"),
    ("worst_case_ecmp", "worst-case θ, ECMP minimal routing"),
    ("worst_case_optimal", "worst-case θ, optimal routing"),
    ("worst_case_pattern", "worst-case pattern"),
    ("latency_max_ns", "worst-pair latency ns"),
    ("router_latency_ns", "router delay ns"),
    ("bisection_links", "bisection cables"),
    ("bisection_kind", "bisection kind"),
    ("delivered_tbps", "delivered Tb/s"),
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
                           families: Sequence[str] | None = None
                           ) -> tuple[list[Configuration], list[tuple[str, str]]]:
    """Like-for-like configurations for ``endpoints`` on ``max_radix``-port routers (one per
    family that can be sized sanely, ``sizing.like_for_like``) and (family, reason) for the
    others. InputError when no family is left."""
    from planner.topologies import sizing

    if endpoints <= 0:
        raise InputError(f"--endpoints must be a positive integer, got {endpoints}")
    chosen, excluded = sizing.like_for_like(endpoints, max_radix,
                                            list(families) if families else None)
    if not chosen:
        reasons = "; ".join(f"{f}: {why}" for f, why in excluded)
        raise InputError(f"--endpoints {endpoints} on {max_radix}-port routers: no family can "
                         f"be sized like for like ({reasons}); change --max-radix, --endpoints "
                         "or --families")
    return [Configuration.of(o.family, o.params) for o in chosen], excluded


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
    from planner.inputs import schema

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
    catalog: Any                      # planner.inputs.catalog.Catalog
    floor: Any                        # planner.inputs.floor.Floor
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
    catalog = summary.get("catalog", {})
    perf = summary.get("performance") or {}
    uniform = perf.get("uniform", {})
    worst = perf.get("worst_case") or {}
    latency = perf.get("latency_ns", {})
    bis = perf.get("bisection", {})
    router_radix = catalog.get("router_radix")
    return {
        "family": top["family"],
        "params": ",".join(f"{k}={_text(v)}" for k, v in top["params"].items()),
        "endpoints": int(top["endpoints"]),
        "routers": int(top["routers"]),
        "ports": f"{top['radix']}/{router_radix}",
        "cost_per_endpoint": float(cost["per_endpoint"]),
        "power_per_endpoint_w": float(power["per_endpoint_w"]),
        "theta_text": _theta_text(uniform),
        "latency_ns": latency.get("average"),
        "cost_per_tbps": perf.get("cost_per_delivered_tbps"),
        "electrical": int(net["electrical"] + end["electrical"]),
        "optical": int(net["optical"] + end["optical"]),
        "cable_length_m": float(net["length_m"] + end["length_m"]),
        "diameter": int(top["diameter"]),
        "avg_distance": float(top["avg_distance"]),
        "radix": int(top["radix"]),
        "router_sku": catalog.get("router_sku"),
        "router_radix": router_radix,
        "ports_free": (router_radix - int(top["radix"])) if router_radix else None,
        "theta": uniform.get("theta"),
        "theta_kind": uniform.get("kind"),
        "theta_ecmp": uniform.get("ecmp_minimal"),
        "worst_case_ecmp": worst.get("ecmp_minimal"),
        "worst_case_optimal": worst.get("optimal"),
        "worst_case_pattern": worst.get("pattern"),
        "latency_max_ns": latency.get("max"),
        "router_latency_ns": latency.get("router_ns"),
        "bisection_links": bis.get("links"),
        "bisection_kind": bis.get("kind"),
        "delivered_tbps": uniform.get("delivered_tbps"),
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


def _theta_text(uniform: dict) -> str:
    from planner.performance import theta_text

    return theta_text(uniform) if uniform else "n/a"


def _cell(value: Any, fmt: str) -> str:
    """``fmt`` applied to a value, ``n/a`` for a missing one."""
    return "n/a" if value is None else fmt.format(value)


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
    from planner.exports import write_plan

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
    ``planner.run.progress`` mode counting finished plans (a bar, or one line per plan in a log).
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
    """Finished plans counted on a bar, or one line each in a log (``planner.run.progress``)."""
    from planner.run.progress import Counter

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
            title: str | None = None, progress: bool = False,
            excluded: Sequence[tuple[str, str]] = ()) -> list[Outcome]:
    """Plan every configuration and, with ``out_dir``, write the plan folders, compare.xlsx and
    compare.pdf there (``excluded``: (family, reason) of the families not sized, listed in the
    reports). Returns the outcomes in configuration order."""
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
        names = write_reports(outcomes, staging, title or default_title(catalog, floor),
                              excluded)
        _move_into_place(staging, out_dir, [o.folder for o in outcomes] + names)
    except BaseException:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return outcomes


def _move_into_place(staging: Path, out_dir: Path, names: Sequence[str]) -> None:
    """Rename every finished item from the staging folder over its final name; plan folders'
    BookSim configs then name their netlists at the new place."""
    from planner.exports.anynet import relocate

    for name in names:
        target = out_dir / name
        if target.is_dir() and not target.is_symlink():
            target.rename(staging / f".replaced-{name}")
        (staging / name).replace(target)
        if target.is_dir():
            relocate(target)


def default_title(catalog, floor) -> str:
    return f"Topology comparison: catalog {catalog.name}, floor {floor.name}"


# --------------------------------------------------------------------------- table

def format_table(outcomes: Sequence[Outcome],
                 excluded: Sequence[tuple[str, str]] = ()) -> str:
    """Fixed-width text table for the terminal; numbers right-aligned; then the families left
    out of a like-for-like comparison and why."""
    headers = [h for _, h, _ in COLUMNS]
    cells = [[_cell(o.row.get(k), fmt) for k, _, fmt in COLUMNS] for o in outcomes]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    left = {0, 1}

    def line(values):
        return "  ".join(v.ljust(w) if i in left else v.rjust(w)
                         for i, (v, w) in enumerate(zip(values, widths))).rstrip()

    text = [line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells]
    if excluded:
        text += ["", "not compared (cannot be sized like for like for this switch):"]
        text += [f"  {family}: {reason}" for family, reason in excluded]
    return "\n".join(text)


# --------------------------------------------------------------------------- reports

def write_reports(outcomes: Sequence[Outcome], out_dir: Path, title: str,
                  excluded: Sequence[tuple[str, str]] = ()) -> list[str]:
    """compare.xlsx and compare.pdf in ``out_dir``; returns their file names."""
    write_xlsx(outcomes, out_dir / "compare.xlsx", title, excluded)
    write_pdf(outcomes, out_dir / "compare.pdf", title, excluded)
    return ["compare.xlsx", "compare.pdf"]


LENGTH_EDGES_M = (0, 0.5, 1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500,
                  700, 1000, 1500, 2000, 3000, 5000, 10000)
"""Cable-length bin edges (m): fine where copper and short optics live, coarse beyond, so a few
long hall-to-hall runs do not squeeze every other cable into one bar."""


def length_histogram(outcomes: Sequence[Outcome]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Bin edges (m) from ``LENGTH_EDGES_M`` covering every cable of every plan, with empty bins
    at the short and long ends dropped, and the cable count per bin for each plan."""
    lengths = [o.lengths_m for o in outcomes]
    every = np.concatenate([x for x in lengths if len(x)]) if any(len(x) for x in lengths) \
        else np.zeros(0)
    ladder = np.asarray(LENGTH_EDGES_M, float)
    top = float(every.max()) if len(every) else 1.0
    if top >= ladder[-1]:
        ladder = np.append(ladder, 10 ** math.ceil(math.log10(top + 1)))
    counts = np.histogram(every, bins=ladder)[0] if len(every) else np.ones(len(ladder) - 1)
    used = np.flatnonzero(counts)
    lo, hi = (int(used[0]), int(used[-1]) + 1) if len(used) else (0, 1)
    edges = ladder[lo:hi + 1]
    return edges, [np.histogram(x, bins=edges)[0] for x in lengths]


def write_xlsx(outcomes: Sequence[Outcome], path: Path, title: str,
               excluded: Sequence[tuple[str, str]] = ()) -> None:
    """Sheet "Comparison" (every column, one row per plan), "Charts" (native Excel charts of
    cost and power per endpoint, cable mix and cost against θ, drawn from the Comparison
    cells), "Not compared" (families left out and why) and one BOM sheet per plan."""
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
        ws.append([_plain(o.row.get(k)) for k in keys])
    formats = {"cost_per_endpoint": "#,##0.00", "power_per_endpoint_w": "0.000",
               "avg_distance": "0.0000", "cable_length_m": "#,##0.0", "cost_routers": "#,##0.00",
               "cost_cables": "#,##0.00", "cost_total": "#,##0.00", "power_total_w": "#,##0.0",
               "latency_ns": "#,##0", "cost_per_tbps": "#,##0", "theta": "0.000",
               "latency_max_ns": "#,##0", "delivered_tbps": "#,##0.000"}
    for j, key in enumerate(keys, start=1):
        letter = get_column_letter(j)
        width = max(len(str(heads[j - 1])), *(len(str(o.row.get(key))) for o in outcomes)) + 2
        ws.column_dimensions[letter].width = min(width, 40)
        for r in range(3, 3 + len(outcomes)):
            ws[f"{letter}{r}"].number_format = formats.get(key, "#,##0" if key in
                                                           _INT_KEYS else "General")
    ws.freeze_panes = "C3"
    if outcomes:
        _xlsx_charts(wb, ws, keys, len(outcomes))
    if excluded:
        sheet = wb.create_sheet("Not compared")
        sheet.append(["family", "why it is not in the comparison"])
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for family, reason in excluded:
            sheet.append([family, reason])
        sheet.column_dimensions["A"].width = 14
        sheet.column_dimensions["B"].width = 120
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


XLSX_CHARTS = (("cost_per_endpoint", "Cost per endpoint ($)", "$"),
               ("power_per_endpoint_w", "Power per endpoint (W)", "W"))
"""Bar charts of the Charts sheet: (column key, title, axis title)."""


def _xlsx_charts(wb, ws, keys: list[str], rows: int) -> None:
    """Native charts on a "Charts" sheet, every series a reference into "Comparison" (so they
    follow edits to the cells): cost and power per endpoint, cables by media (stacked) and
    cost per endpoint against uniform θ (scatter)."""
    from openpyxl.chart import BarChart, Reference, ScatterChart, Series

    charts = wb.create_sheet("Charts", 1)
    col = {k: i + 1 for i, k in enumerate(keys)}
    first, last = 3, 2 + rows
    families = Reference(ws, min_col=col["family"], min_row=first, max_row=last)
    anchors = iter(("A1", "J1", "A20", "J20"))
    for key, title, axis in XLSX_CHARTS:
        chart = BarChart()
        chart.title, chart.y_axis.title = title, axis
        chart.add_data(Reference(ws, min_col=col[key], min_row=2, max_row=last),
                       titles_from_data=True)
        chart.set_categories(families)
        chart.legend = None
        chart.width, chart.height = 16, 8
        charts.add_chart(chart, next(anchors))
    mix = BarChart()
    mix.type, mix.grouping, mix.overlap = "col", "stacked", 100
    mix.title, mix.y_axis.title = "Cables by media", "cables"
    for key in ("electrical", "optical"):
        mix.add_data(Reference(ws, min_col=col[key], min_row=2, max_row=last),
                     titles_from_data=True)
    mix.set_categories(families)
    mix.width, mix.height = 16, 8
    charts.add_chart(mix, next(anchors))
    scatter = ScatterChart()
    scatter.title = "Cost per endpoint against uniform θ"
    scatter.style = 13
    scatter.x_axis.title, scatter.y_axis.title = "uniform θ (fraction of injection)", "$/endpoint"
    for r in range(first, last + 1):
        series = Series(Reference(ws, min_col=col["cost_per_endpoint"], min_row=r),
                        Reference(ws, min_col=col["theta"], min_row=r),
                        title_from_data=False, title=str(ws.cell(r, col["family"]).value))
        series.marker.symbol = "circle"
        series.marker.size = 8
        series.graphicalProperties.line.noFill = True
        scatter.series.append(series)
    scatter.width, scatter.height = 16, 8
    charts.add_chart(scatter, next(anchors))


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


def write_pdf(outcomes: Sequence[Outcome], path: Path, title: str,
              excluded: Sequence[tuple[str, str]] = ()) -> None:
    """The table, cost against uniform θ, cost and power per endpoint, cables by media, cable
    lengths, and the families left out with the reason."""
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
    data = [[h for _, h, _ in COLUMNS]] + [[_cell(o.row.get(k), fmt) for k, _, fmt in COLUMNS]
                                           for o in outcomes]
    table = Table(data, repeatRows=1)
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), "Helvetica", 6.5),
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 6.5),
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
    note = Paragraph(
        "Uniform θ: the fraction of its injection bandwidth every endpoint can send at once "
        "under all-to-all traffic (max concurrent flow; exact where marked, otherwise an upper "
        "bound, drawn hollow). $ per Tb/s = total cost / (θ x endpoints x port rate). Latency: "
        "average zero-load latency between endpoints (cables and router delays).",
        styles["BodyText"])
    story = [Paragraph(title, styles["Title"]), table, Spacer(1, 0.3 * cm), note,
             Spacer(1, 0.3 * cm), KeepTogether([_cost_theta_chart(outcomes, width)]),
             Table([[cost, power]], colWidths=[width / 2, width / 2]),
             KeepTogether([media]), KeepTogether([hist])]
    if excluded:
        story.append(Paragraph("Not compared: these families cannot be sized like for like "
                               "for this switch", styles["Heading3"]))
        story += [Paragraph(f"<b>{family}</b>: {_xml(reason)}", styles["BodyText"])
                  for family, reason in excluded]
    doc.build(story)


def _xml(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")


def _legend(names: Sequence[str], width: float, font_size: float = 7.0):
    """A reportlab Legend that wraps into as many rows as ``width`` needs; (legend, height)."""
    from reportlab.graphics.charts.legends import Legend
    from reportlab.lib import colors
    from reportlab.pdfbase.pdfmetrics import stringWidth

    item = max(stringWidth(str(n), "Helvetica", font_size) for n in names) + 22
    per_row = max(1, int((width - 60) // item))
    rows = math.ceil(len(names) / per_row)
    leg = Legend()
    leg.alignment = "right"
    leg.fontSize = font_size
    leg.dx = leg.dy = 7
    leg.deltay = font_size + 4
    leg.deltax = item
    leg.columnMaximum = rows
    leg.autoXPadding = 0
    leg.colorNamePairs = [(colors.HexColor(_PALETTE[i % len(_PALETTE)]), str(n))
                          for i, n in enumerate(names)]
    return leg, rows * (font_size + 4) + 6


def _bar_chart(title: str, categories: Sequence[str], series: Sequence[Sequence[float]],
               legend: Sequence[str] | None, width: float, label_fmt: str | None,
               stacked: bool = False):
    """A reportlab ``VerticalBarChart`` drawing with a title and an optional legend that wraps
    to fit the width."""
    from reportlab.graphics.charts.barcharts import VerticalBarChart
    from reportlab.graphics.shapes import Drawing, String
    from reportlab.lib import colors

    height = 200
    leg, leg_h = _legend(legend, width) if legend else (None, 0)
    d = Drawing(width, height + leg_h + (8 if legend else 0))
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
    if leg is not None:
        leg.x, leg.y = 50, d.height - 24
        d.add(leg)
    return d


def _cost_theta_chart(outcomes: Sequence[Outcome], width: float):
    """Scatter of cost per endpoint (y) against uniform θ (x), one labelled point per plan;
    filled for an exact θ, hollow for an upper bound."""
    from reportlab.graphics.shapes import Circle, Drawing, Line, String
    from reportlab.lib import colors

    height = 230
    d = Drawing(width, height)
    d.add(String(width / 2, height - 12, "Cost per endpoint against uniform throughput θ",
                 fontName="Helvetica-Bold", fontSize=10, textAnchor="middle"))
    left, bottom, right, top = 60, 35, width - 160, height - 30
    points = [(o.row.get("theta"), o.row["cost_per_endpoint"], o) for o in outcomes]
    points = [(x, y, o) for x, y, o in points if x is not None]
    xs = [x for x, _, _ in points] or [1.0]
    ys = [y for _, y, _ in points] or [1.0]
    x_lo = max(0.0, math.floor(10 * min(xs) - 1) / 10)
    x_hi = 1.0
    y_hi = max(ys) * 1.15 if max(ys) > 0 else 1.0

    def px(x):
        return left + (x - x_lo) / (x_hi - x_lo) * (right - left)

    def py(y):
        return bottom + y / y_hi * (top - bottom)

    grey = colors.HexColor("#999999")
    d.add(Line(left, bottom, right, bottom, strokeColor=colors.black, strokeWidth=0.6))
    d.add(Line(left, bottom, left, top, strokeColor=colors.black, strokeWidth=0.6))
    for i in range(6):
        x = x_lo + (x_hi - x_lo) * i / 5
        d.add(Line(px(x), bottom, px(x), bottom - 3, strokeColor=colors.black))
        d.add(String(px(x), bottom - 12, f"{x:.2f}", fontSize=7, textAnchor="middle"))
        y = y_hi * i / 5
        d.add(Line(left, py(y), left - 3, py(y), strokeColor=colors.black))
        d.add(Line(left, py(y), right, py(y), strokeColor=grey, strokeWidth=0.2))
        d.add(String(left - 5, py(y) - 2, f"{y:,.0f}", fontSize=7, textAnchor="end"))
    d.add(String((left + right) / 2, 6, "uniform θ (fraction of injection bandwidth)",
                 fontSize=8, textAnchor="middle"))
    d.add(String(12, (bottom + top) / 2, "$/endpoint", fontSize=8, textAnchor="middle"))
    for i, (x, y, o) in enumerate(points):
        colour = colors.HexColor(_PALETTE[i % len(_PALETTE)])
        exact = o.row.get("theta_kind") == "exact"
        d.add(Circle(px(x), py(y), 4, fillColor=colour if exact else colors.white,
                     strokeColor=colour, strokeWidth=1.2))
        d.add(String(px(x) + 6, py(y) + 3, o.configuration.slug, fontSize=6.5,
                     fillColor=colour))
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
