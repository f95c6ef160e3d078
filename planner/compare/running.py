"""Jobs and results: every configuration planned in full, in worker processes or on Dask.

Every configuration is planned in full (``planner.plan.plan``), its output folder written with
the same writer ``planner plan`` uses, and one table row is read from the plan's
``summary.json`` values, so every number in the comparison is the number in that plan's folder.

Plans run in parallel: in worker processes on this machine (``ProcessPoolExecutor``), or on an
existing Dask cluster (``dask.distributed``), one task per configuration, each task planning in
a fresh Python process of its own (``plan_in_subprocess``: a standard ``dask worker`` runs tasks
in a daemon process that may not fork, and its threads share one GIL). Results are always in
configuration order, whatever order the plans finish in. Workers of a Dask cluster need not
share a filesystem with the client: each plan folder travels back as a tar archive, unpacked
by the client as soon as that plan completes. Worker processes are spawned and import
``run_job`` from this module by its path.
"""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import subprocess
import sys
import tarfile
import tempfile
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from planner.compare.sizing import Configuration, param_text
from planner.compare.tuning import (DASK_CONNECT_TIMEOUT, DASK_POLL_S,
                                    DASK_WORKER_TIMEOUT_S)
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
    outputs: str = "all"              # a key of OUTPUTS: the files each plan folder gets
    resilience: str = "cabinet"       # RESILIENCE: the failure groups each plan measures


RESILIENCE = "cabinet"
"""The failure groups every compared plan measures (``planner plan --resilience``): each single
cabinet, whatever the design's size (``--resilience all`` leaves a kind out above its budget),
for the columns after the worst cabinet; with the labelled bound where the LPs are above their
budget. Plan the chosen design with ``planner plan`` for trunks, panels, trays and rows."""

OUTPUTS = {"all": None, "summary": ("summary_json", "bom_xlsx")}
"""What each plan folder of a sweep holds (``--outputs``): every file of ``planner plan``, or
only the writers named (summary.json and bom.xlsx, what a sweep's reader compares and
prices; the table and the reports need nothing else). Plan the design chosen with ``planner
plan`` for its wiring, labels, netlists and NetBox files."""


def check_outputs(outputs: str) -> None:
    """InputError unless ``outputs`` names a set of ``OUTPUTS``."""
    if outputs not in OUTPUTS:
        raise InputError(f"--outputs {outputs!r} is not one of {', '.join(OUTPUTS)}; give "
                         "'all' (every file of planner plan) or 'summary' (summary.json and "
                         "bom.xlsx per design)")


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
    return _after_worst_cabinet(summary) | {
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


def _after_worst_cabinet(summary: dict[str, Any]) -> dict[str, Any]:
    """The columns after the worst single-cabinet failure, from summary.json ``resilience``:
    θ among the surviving endpoints and $ per delivered Tb/s = total cost / (that θ x surviving
    endpoints x port rate), the intact column's definition (None when not measured, or when
    the failure cuts endpoints off: nothing all-to-all is delivered)."""
    kind = ((summary.get("resilience") or {}).get("kinds") or {}).get("cabinet")
    if kind is None:
        return {"theta_after_cabinet_text": "n/a", "cost_per_tbps_after_cabinet": None,
                "theta_after_cabinet": None, "theta_ratio_after_cabinet": None,
                "theta_after_cabinet_kind": None, "worst_cabinet": None,
                "delivered_tbps_after_cabinet": None}
    worst = kind["worst"]
    text = (f"0 ({worst['pairs_cut']:,} pairs cut off)" if worst["pairs_cut"] else
            f"{worst['theta']:.3f}" if kind["theta_kind"] == "exact" else
            f"<= {worst['theta']:.3f}")
    return {"theta_after_cabinet_text": text,
            "cost_per_tbps_after_cabinet": worst.get("cost_per_delivered_tbps"),
            "theta_after_cabinet": worst["theta"],
            "theta_ratio_after_cabinet": worst["theta_ratio"],
            "theta_after_cabinet_kind": kind["theta_kind"], "worst_cabinet": worst["name"],
            "delivered_tbps_after_cabinet": worst["delivered_tbps"]}


def _theta_text(uniform: dict) -> str:
    from planner.performance import theta_text

    return theta_text(uniform) if uniform else "n/a"


def run_job(job: Job, out_dir: str | None = None, ship: bool = False,
            export_jobs: int | None = None) -> Outcome:
    """Plan one configuration; write its folder under ``out_dir`` (or pack it, ``ship``) with
    ``export_jobs`` writer processes (default: ``planner.exports.export_jobs``).

    Runs in a worker process (or a Dask task's plan process); top-level so it pickles.
    """
    from planner import topologies
    from planner.plan import plan

    conf = job.configuration
    try:
        topology = topologies.build(conf.family, **dict(conf.params))
        result = plan(topology, job.catalog, job.floor, strategy=job.strategy,
                      time_limit_s=job.time_limit_s, seed=job.seed,
                      group_endpoints=job.group_endpoints, endpoint_cables=job.endpoint_cables,
                      resilience=job.resilience)
    except InputError as err:        # say which of the compared configurations failed
        raise InputError(f"configuration '{conf.spec}': {err}") from None
    summary = result.summary
    row = row_from_summary(summary)
    folder = archive = None
    if out_dir is not None or ship:
        folder = conf.slug
        if ship:
            archive = _packed_plan(result, folder, export_jobs, job.outputs)
        else:
            write_plan_folder(result, Path(out_dir) / folder, export_jobs, job.outputs)
    cables = result.cables
    return Outcome(configuration=conf, row=row | {"folder": folder}, summary=summary,
                   bom=result.bom.copy(),
                   lengths_m=cables["length_m"].to_numpy(dtype=np.float32),
                   optical=(cables["media"] == "optical").to_numpy(),
                   folder=folder, archive=archive)


def write_plan_folder(result, out: Path, jobs: int | None = None, outputs: str = "all") -> None:
    """The ``planner plan`` writer into a temporary folder, moved atomically: every exporter, or
    only those of ``OUTPUTS[outputs]`` (one after the other, in this process)."""
    from planner.exports import write_plan, writers
    from planner.run.output import write_folder

    kept = OUTPUTS[outputs]
    if kept is None:
        write_plan(result, out, jobs=jobs)
        return
    write_folder(out, [(name, lambda d, fn=fn: fn(result, d))
                       for name, fn in writers() if name in kept])


def _packed_plan(result, folder: str, jobs: int | None = None, outputs: str = "all") -> bytes:
    with tempfile.TemporaryDirectory(prefix="planner-compare-") as tmp:
        write_plan_folder(result, Path(tmp) / folder, jobs, outputs)
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
            return _run_dask(jobs, scheduler, None if out is None else Path(out), bar)
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


def _run_dask(jobs: Sequence[Job], address: str, out: Path | None, bar) -> list[Outcome]:
    """Every job as one Dask task (``plan_in_subprocess``), streamed: each plan's folder is
    unpacked into ``out`` as it completes and its future released, so this process holds at
    most one plan's archive at a time. Results in job order."""
    from distributed import as_completed

    client = _connect(address)
    with client:
        _wait_for_workers(client, address)
        futures = [client.submit(plan_in_subprocess, j, out is not None, key=_task_key(i, j),
                                 pure=False) for i, j in enumerate(jobs)]
        index = {f.key: i for i, f in enumerate(futures)}
        outcomes: list[Outcome | None] = [None] * len(jobs)
        finished = as_completed(futures, loop=client.loop)
        futures.clear()
        without_workers = 0.0
        while not finished.is_empty():
            if not finished.has_ready():
                without_workers = _watch_workers(client, address, without_workers, jobs,
                                                 outcomes)
                continue
            future = next(finished)
            i = index[future.key]
            outcome = _result(future, jobs[i], address)
            future.release()
            if out is not None:
                _unpack(outcome.archive, out)
            outcomes[i] = _without_archive(outcome)
            del future, outcome          # the archive is freed before the next one arrives
            bar.update(1)
        return outcomes


def _connect(address: str):
    """A Dask client of the scheduler at ``address``; an InputError naming the address and the
    fix when it does not answer within ``DASK_CONNECT_TIMEOUT``."""
    from distributed import Client

    try:
        return Client(address, timeout=DASK_CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"--dask-scheduler: no Dask scheduler answered at {address!r} within "
                         f"{DASK_CONNECT_TIMEOUT} ({_reason(err)}); start one with 'dask "
                         f"scheduler' and its workers with 'dask worker {address}', or give "
                         "the address it prints") from None


def _wait_for_workers(client, address: str) -> None:
    """An InputError when the scheduler has no worker within ``DASK_WORKER_TIMEOUT_S``."""
    try:
        client.wait_for_workers(1, timeout=DASK_WORKER_TIMEOUT_S)
    except (TimeoutError, OSError) as err:
        raise InputError(f"--dask-scheduler: the Dask scheduler at {address!r} has no workers "
                         f"after {DASK_WORKER_TIMEOUT_S:g} s ({_reason(err)}); start them with "
                         f"'dask worker {address}'") from None


def _watch_workers(client, address: str, since: float, jobs, outcomes) -> float:
    """Sleep one poll; returns when the cluster was first seen without workers (0: it has
    some). An InputError naming the unfinished designs when it has had none for
    ``DASK_WORKER_TIMEOUT_S`` (every worker died or left: the tasks would wait for ever)."""
    import time

    time.sleep(DASK_POLL_S)
    try:
        workers = len(client.nthreads())
    except OSError as err:
        raise _lost(address, err, jobs, outcomes) from None
    if workers:
        return 0.0
    now = time.monotonic()
    if since and now - since > DASK_WORKER_TIMEOUT_S:
        left = [j.configuration.spec for j, o in zip(jobs, outcomes) if o is None]
        raise InputError(f"--dask-scheduler {address!r}: every worker died or left, "
                         f"'{left[0]}' and {len(left) - 1} other design(s) were not planned; "
                         f"restart the workers ('dask worker {address}') and run again")
    return since or now


def _result(future, job: Job, address: str) -> Outcome:
    """The outcome of one finished task; a dead worker or a lost scheduler is an InputError
    naming the design. The plan's own InputError (bad input) is raised as it is."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    spec = job.configuration.spec
    try:
        return future.result()
    except KilledWorker as err:
        raise InputError(f"configuration '{spec}': the Dask workers that ran it died "
                         f"({_reason(err)}); check the workers' logs (memory limit, "
                         "out-of-memory killer) and run again") from None
    except PlanProcessDied as err:
        raise InputError(str(err)) from None
    except (OSError, CancelledError) as err:   # CommClosedError, or the scheduler restarted
        raise _lost(address, err, [job], [None]) from None


def _lost(address: str, err: BaseException, jobs, outcomes) -> InputError:
    left = [j.configuration.spec for j, o in zip(jobs, outcomes) if o is None]
    return InputError(f"--dask-scheduler {address!r}: lost the scheduler while planning "
                      f"'{left[0]}' ({_reason(err)}); restart it and run again")


def _reason(err: BaseException) -> str:
    """The first line of an exception's text (or its type), for a one-line message."""
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def _task_key(i: int, job: Job) -> str:
    """A task key naming the design (readable on the Dask dashboard), unique per sweep."""
    import uuid

    return f"plan-{i}-{job.configuration.slug}-{uuid.uuid4().hex[:8]}"


class PlanProcessDied(RuntimeError):
    """A plan's own process ended without an answer (killed, out of memory)."""


def plan_in_subprocess(job: Job, ship: bool) -> Outcome:
    """The Dask task: plan one configuration in a fresh Python process, not in the worker.

    A standard ``dask worker`` (with its nanny) runs tasks in a daemon process, which
    ``multiprocessing`` forbids children, and its threads share one GIL. In its own process the
    plan forks METIS and the export writers as ``planner plan`` does, and the plans of a
    worker's threads run on separate cores. Its BLAS/OpenMP pools get the worker's cores
    divided by its threads; its writers run one at a time (the worker's threads are the
    parallelism). The process ends when the worker does (it watches its stdin).
    """
    conf = job.configuration
    threads = _blas_threads_per_task()
    env = dict(os.environ)
    for key in _BLAS_THREAD_VARS:
        env.setdefault(key, str(threads))
    import planner

    root = str(Path(planner.__file__).resolve().parents[1])   # the worker's planner
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory(prefix="planner-task-") as tmp:
        request, answer = Path(tmp) / "job.pickle", Path(tmp) / "outcome.pickle"
        request.write_bytes(pickle.dumps((job, ship)))
        with open(Path(tmp) / "stderr.txt", "w+b") as err_file:
            child = subprocess.Popen(
                [sys.executable, "-c",
                 "from planner.compare.running import task_main; task_main()",
                 str(request), str(answer)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err_file, env=env)
            try:
                child.wait()             # stdin stays open: it closes if this worker dies
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
                child.stdin.close()
            err_file.seek(0)
            err = err_file.read()
        if not answer.exists():
            raise PlanProcessDied(f"configuration '{conf.spec}': its plan process died "
                                  f"({_exit_text(child.returncode)}) on a Dask worker"
                                  f"{_last_line(err)}; give the workers more memory or fewer "
                                  "threads ('dask worker --nthreads') and run again")
        ok, value = pickle.loads(answer.read_bytes())
    if not ok:
        raise value
    return value


def _exit_text(code: int) -> str:
    if code is not None and code < 0:
        import signal

        return f"signal {signal.Signals(-code).name}"
    return f"exit code {code}"


def _last_line(err: bytes) -> str:
    lines = err.decode(errors="replace").strip().splitlines()
    return f": {lines[-1].strip()}" if lines else ""


def _blas_threads_per_task() -> int:
    """The cores of this machine divided by the Dask worker's threads (1 outside a worker)."""
    try:
        from distributed import get_worker

        nthreads = get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) // max(1, nthreads))


def task_main() -> None:
    """The plan process of ``plan_in_subprocess``: reads (job, ship) from the file named by
    argv[1], writes (True, outcome) or (False, exception) to argv[2]. Exits at once when its
    stdin closes (the worker that started it died), removing the task's folder the worker can
    no longer remove."""
    import shutil
    import threading

    request, answer = Path(sys.argv[1]), Path(sys.argv[2])

    def parent_gone() -> None:
        while os.read(0, 65536):     # the raw fd: a lock held in sys.stdin would deadlock
            pass                     # the fork children (multiprocessing closes their stdin)
        shutil.rmtree(request.parent, ignore_errors=True)
        os._exit(1)

    threading.Thread(target=parent_gone, daemon=True).start()
    job, ship = pickle.loads(request.read_bytes())
    try:
        result = (True, run_job(job, None, ship, export_jobs=1))
    except Exception as err:         # noqa: BLE001 - handed to the Dask task
        if not isinstance(err, InputError):
            err.add_note("in the plan process:\n" + traceback.format_exc())
        result = (False, err)
    partial = answer.with_suffix(".partial")
    partial.write_bytes(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    partial.rename(answer)
