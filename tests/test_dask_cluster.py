"""``planner compare --dask-scheduler`` on a real cluster started the usual way: a ``dask
scheduler`` and a ``dask worker`` (nanny, two threads) as subprocesses on localhost. The plans
fork METIS (``--strategy partition``), which a daemonic worker process may not do unless each
plan runs in its own process; the table and plan folders equal a local run's; an unreachable
scheduler, a scheduler without workers and a plan process that dies are one-line refusals
(exit 2). A sweep with ``--outputs summary`` gives the same table."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

import openpyxl  # noqa: E402
import psutil  # noqa: E402 - a dependency of distributed

from planner.cli import main  # noqa: E402
from planner.compare import running  # noqa: E402
from test_compare import KEYS, _run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# Two small designs; --strategy partition calls METIS (16 runs each) in a forked child.
DESIGNS = ["--topology", "dragonfly:h=2", "--topology", "slimfly:q=5"]
COMMON = ["--strategy", "partition", "--time-limit", "60", "--seed", "1"]


def _table(out: Path) -> list[tuple]:
    ws = openpyxl.load_workbook(out / "compare.xlsx")["Comparison"]
    return [tuple(r) for r in ws.iter_rows(min_row=3, values_only=True)]


def _terminal_rows(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("---")) + 1
    return [ln for ln in lines[start:] if ln.strip() and not ln.startswith("wrote ")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))


@contextlib.contextmanager
def _dask(tmp: Path, workers: int):
    """(address, worker processes): ``dask scheduler`` and ``workers`` ``dask worker`` with
    their defaults (nanny) and two threads, each in its own session so that the finalizer stops
    its whole tree, even when the test failed."""
    started: list[subprocess.Popen] = []

    def start(*args: str, log: str) -> subprocess.Popen:
        with open(tmp / log, "wb") as err:
            process = subprocess.Popen([sys.executable, "-m", "dask", *args], cwd=tmp,
                                       env=_env(), stdout=subprocess.DEVNULL, stderr=err,
                                       start_new_session=True)
        started.append(process)
        return process

    try:
        address = f"tcp://127.0.0.1:{_free_port()}"
        start("scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
              "--no-dashboard", log="scheduler.log")
        yield address, [start("worker", address, "--nthreads", "2", "--no-dashboard",
                              log=f"worker{i}.log") for i in range(workers)]
    finally:
        for process in reversed(started):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(address, worker process) of a scheduler and one worker."""
    with _dask(tmp_path_factory.mktemp("dask"), 1) as (address, workers):
        yield address, workers[0]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    code, text = _run(["compare", *DESIGNS, *COMMON, "--jobs", "1", "--out", str(out)])
    assert code == 0
    return out, text


def test_real_cluster_gives_the_local_table_and_folders(cluster, local_run, tmp_path):
    address, _ = cluster
    out_local, text_local = local_run
    code, text = _run(["compare", *DESIGNS, *COMMON, "--out", str(tmp_path),
                       "--dask-scheduler", address])
    assert code == 0
    rows = _table(tmp_path)
    assert len(rows) == 2 and rows == _table(out_local)
    assert _terminal_rows(text) == _terminal_rows(text_local)
    for row in rows:
        folder = row[KEYS.index("folder")]
        local, remote = out_local / folder, tmp_path / folder
        assert sorted(p.name for p in remote.iterdir()) == sorted(p.name for p in local.iterdir())
        assert (remote / "cables.csv").read_bytes() == (local / "cables.csv").read_bytes()
        placement = json.loads((remote / "summary.json").read_text())["placement"]
        assert placement["strategy"] == "partition"


def _cells(path: Path) -> dict[str, list[tuple]]:
    """Every cell of every sheet of a workbook, as openpyxl reads them."""
    book = openpyxl.load_workbook(path)
    return {ws.title: [tuple(r) for r in ws.iter_rows(values_only=True)] for ws in book}


def test_a_summary_sweep_on_the_cluster_gives_the_local_table(cluster, local_run, tmp_path):
    """``--outputs summary`` on the cluster: every sheet of compare.xlsx, cell for cell, and
    the printed table equal the local run's (every output); each plan folder holds
    summary.json and bom.xlsx, with the local folder's cells and plan."""
    address, _ = cluster
    out_local, text_local = local_run
    code, text = _run(["compare", *DESIGNS, *COMMON, "--outputs", "summary", "--out",
                       str(tmp_path), "--dask-scheduler", address])
    assert code == 0
    assert _cells(tmp_path / "compare.xlsx") == _cells(out_local / "compare.xlsx")
    assert _terminal_rows(text) == _terminal_rows(text_local)
    for row in _table(tmp_path):
        folder = row[KEYS.index("folder")]
        local, remote = out_local / folder, tmp_path / folder
        assert sorted(p.name for p in remote.iterdir()) == [".planner-manifest", "bom.xlsx",
                                                            "summary.json"]
        assert _cells(remote / "bom.xlsx") == _cells(local / "bom.xlsx")
        summaries = [json.loads((f / "summary.json").read_text()) for f in (local, remote)]
        assert summaries[1]["cost"] == summaries[0]["cost"]
        assert summaries[1]["cables"] == summaries[0]["cables"]


def test_unreachable_scheduler_exits_2_with_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(running, "DASK_CONNECT_TIMEOUT", "1s")
    address = f"tcp://127.0.0.1:{_free_port()}"          # nothing listens there
    code = main(["compare", *DESIGNS, *COMMON, "--out", str(tmp_path / "o"),
                 "--dask-scheduler", address])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert "\n" not in err and address in err and "dask scheduler" in err
    assert not (tmp_path / "o").exists()


def test_a_scheduler_without_workers_exits_2_with_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(running, "DASK_WORKER_TIMEOUT_S", 2.0)
    with _dask(tmp_path, 0) as (address, _):
        code = main(["compare", *DESIGNS, *COMMON, "--out", str(tmp_path / "o"),
                     "--dask-scheduler", address])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert "\n" not in err and "has no workers" in err and f"dask worker {address}" in err
    assert not (tmp_path / "o").exists()


def test_a_plan_process_killed_mid_run_exits_2_naming_the_design(cluster, tmp_path):
    """kill -9 of one plan's process on the worker: one line naming that design, exit 2."""
    address, worker = cluster
    out = tmp_path / "o"
    sweep = subprocess.Popen([sys.executable, "-m", "planner.cli", "compare", "--topology",
                              "slimfly:q=5", *COMMON, "--out", str(out), "--dask-scheduler",
                              address], env=_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and sweep.poll() is None:
            plans = [p for p in psutil.Process(worker.pid).children(recursive=True)
                     if "task_main" in " ".join(p.cmdline())]
            if plans:
                plans[0].kill()
                break
            time.sleep(0.1)
        else:
            pytest.fail("no plan process appeared on the worker")
        _, err = sweep.communicate(timeout=120)
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()
    assert sweep.returncode == 2
    err = err.strip()
    assert "\n" not in err and "configuration 'slimfly:q=5'" in err and "died" in err
    assert "SIGKILL" in err
    assert not out.exists()


def _in_daemon(send) -> None:
    """In a daemonic process (as a nanny's Dask worker): METIS's ``in_fork`` and the export
    writers must not try to fork."""
    from planner.run import interrupts, output

    send.send((interrupts.in_fork(os.getpid), os.getpid(), output.can_fork()))


def test_fork_points_run_in_process_inside_a_daemon():
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_in_daemon, args=(send,), daemon=True)
    child.start()
    send.close()
    try:
        forked_pid, own_pid, can_fork = receive.recv()
    finally:
        child.join()
    assert child.exitcode == 0
    assert forked_pid == own_pid and can_fork is False
