"""Jobs and results: every configuration planned in full, in worker processes or on Dask.

Every configuration is planned in full (``planner.plan.plan``), its output folder written with
the same writer ``planner plan`` uses, and one table row is read from the plan's
``summary.json`` values, so every number in the comparison is the number in that plan's folder.

Plans run in parallel: in worker processes on this machine (``ProcessPoolExecutor``), or on an
existing Dask cluster (``dask.distributed``). Results are always in configuration order,
whatever order the plans finish in. Workers of a Dask cluster need not share a filesystem with
the client: each plan folder travels back as a tar archive and is unpacked by the client.
Worker processes are spawned and import ``run_job`` from this module by its path.
"""

from __future__ import annotations

import dataclasses
import io
import os
import tarfile
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from planner.compare.sizing import Configuration, param_text
from planner.compare.tuning import DASK_CONNECT_TIMEOUT
from planner.run.errors import InputError


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
        "params": ",".join(f"{k}={param_text(v)}" for k, v in top["params"].items()),
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
        client = Client(address, timeout=DASK_CONNECT_TIMEOUT, set_as_default=False)
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
