"""A ``planner compare`` sweep on a local Dask cluster started the usual way: one ``dask
scheduler`` and ``--workers`` ``dask worker`` processes (nanny, ``--threads`` threads each),
the client being the real command (``python -m planner.cli compare --dask-scheduler``).

The designs are ``dragonfly:a=26,p=13,h=13,g=G`` (338 endpoints per group) for ``--designs``
consecutive G centred on ``--endpoints``, on the default catalog and floor, so every plan is a
different ~100K-endpoint Dragonfly. Measured: wall time of the sweep, the client's peak RSS
(it holds at most one plan's archive at a time), the peak PSS of the whole cluster (schedulers,
nannies, workers and every plan process they start, sampled every ``--sample`` s), the
machine's load average before and after, and the archive size of each plan (its folder). Usage::

    python benchmarks/bench_dask.py --designs 50              # the 100K sweep of docs/
    python benchmarks/bench_dask.py --designs 4 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
PER_GROUP = 26 * 13


def designs(count: int, endpoints: int) -> list[str]:
    first = round(endpoints / PER_GROUP) - count // 2
    return [f"dragonfly:a=26,p=13,h=13,g={g}" for g in range(first, first + count)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree_pss(roots: list[psutil.Process]) -> int:
    """Summed PSS (RSS where PSS cannot be read) of ``roots`` and all their descendants."""
    total = 0
    for root in roots:
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        for p in procs:
            try:
                info = p.memory_full_info()
                total += getattr(info, "pss", info.rss)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
    return total


def run(count: int, endpoints: int, workers: int, threads: int, sample: float,
        time_limit: float) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    started: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
        try:
            address = f"tcp://127.0.0.1:{_free_port()}"
            started.append(subprocess.Popen(
                [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port",
                 address.rsplit(":", 1)[1], "--no-dashboard"], env=env, cwd=tmp,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
            for _ in range(workers):
                started.append(subprocess.Popen(
                    [sys.executable, "-m", "dask", "worker", address, "--nthreads",
                     str(threads), "--no-dashboard"], env=env, cwd=tmp,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True))
            cluster = [psutil.Process(p.pid) for p in started]
            argv = [sys.executable, "-m", "planner.cli", "compare", "--time-limit",
                    str(time_limit), "--out", f"{tmp}/out", "--dask-scheduler", address]
            for spec in designs(count, endpoints):
                argv += ["--topology", spec]
            load_before = os.getloadavg()
            t0 = time.perf_counter()
            client = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            watched = psutil.Process(client.pid)
            client_rss = cluster_pss = 0
            while client.poll() is None:
                try:
                    client_rss = max(client_rss, watched.memory_info().rss)
                except psutil.NoSuchProcess:
                    break
                cluster_pss = max(cluster_pss, _tree_pss(cluster))
                time.sleep(sample)
            out, err = client.communicate()
            wall = time.perf_counter() - t0
            load_after = os.getloadavg()
            if client.returncode != 0:
                raise SystemExit(f"compare exited {client.returncode}: {err.strip()}")
            folders = [p for p in Path(tmp, "out").iterdir() if p.is_dir()]
            sizes = [sum(f.stat().st_size for f in d.rglob("*") if f.is_file())
                     for d in folders]
        finally:
            for p in reversed(started):
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
    return {"designs": count, "endpoints_first": designs(count, endpoints)[0],
            "endpoints_last": designs(count, endpoints)[-1], "workers": workers,
            "threads_per_worker": threads, "cpus": os.cpu_count(), "wall_s": round(wall, 1),
            "per_plan_s": round(wall / count, 1),
            "client_peak_rss_mb": round(client_rss / 2**20),
            "cluster_peak_pss_mb": round(cluster_pss / 2**20),
            "plan_folder_mb_max": round(max(sizes) / 2**20, 1),
            "plan_folders_mb_total": round(sum(sizes) / 2**20),
            "load_before": [round(x, 1) for x in load_before],
            "load_after": [round(x, 1) for x in load_after], "table": out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", type=int, default=50)
    ap.add_argument("--endpoints", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--sample", type=float, default=0.5, help="memory sampling period (s)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = ap.parse_args()
    result = run(args.designs, args.endpoints, args.workers, args.threads, args.sample,
                 args.time_limit)
    print(result.pop("table"))
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
