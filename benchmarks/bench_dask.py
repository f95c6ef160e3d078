"""A ``planner compare`` sweep on a local Dask cluster started the usual way: one ``dask
scheduler`` and ``--workers`` ``dask worker`` processes (nanny, ``--threads`` threads each),
the client being the real command (``python -m planner.cli compare --dask-scheduler``).

The designs are ``dragonfly:a=26,p=13,h=13,g=G`` (338 endpoints per group) for ``--designs``
consecutive G centred on ``--endpoints``, on the default catalog and floor, so every plan is a
different ~100K-endpoint Dragonfly. ``--outputs`` is compare's: ``summary`` (the default here:
summary.json and bom.xlsx per design) or ``all`` (every file of ``planner plan``). Measured:
wall time of the sweep, the CPU time of the whole cluster (every process of it, sampled), the
client's peak RSS (it holds at most one plan's archive at a time), the peak PSS of the whole
cluster (scheduler, nannies, workers and every plan process they start, sampled every
``--sample`` s), the machine's load average before and after, and the size of the plan
folders.

When the sweep ends, its figures go into ``DASK.json`` (one run per designs x endpoints x
outputs x workers x threads, the latest kept) and the table of every recorded run is written
between the ``bench_dask`` markers of ``DASK.md`` and ``docs/compare.md`` (``--no-record``:
print only). A failed sweep records nothing. Unattended::

    flock /tmp/locks/big.lock python benchmarks/bench_dask.py --designs 50   # the 100K sweep
    python benchmarks/bench_dask.py --designs 2 --endpoints 2000 --no-record  # a quick check
"""

from __future__ import annotations

import argparse
import datetime
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

from planner.inputs.tuning import DEFAULT_TIME_LIMIT_S   # what a user's sweep runs with

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "benchmarks" / "DASK.json"
TABLES = (ROOT / "benchmarks" / "DASK.md", ROOT / "docs" / "compare.md")
BEGIN, END = "<!-- bench_dask.py: begin -->", "<!-- bench_dask.py: end -->"
PER_GROUP = 26 * 13


def designs(count: int, endpoints: int) -> list[str]:
    first = round(endpoints / PER_GROUP) - count // 2
    return [f"dragonfly:a=26,p=13,h=13,g={g}" for g in range(first, first + count)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ClusterSampler:
    """Peak summed PSS (RSS where PSS cannot be read) of ``roots`` and all their descendants,
    and their CPU time: the last CPU time seen of every process, summed (a plan process that
    ends between two samples loses at most one period)."""

    def __init__(self, roots: list[psutil.Process]):
        self.roots = roots
        self.peak_pss = 0
        self.cpu: dict[tuple[int, float], float] = {}   # (pid, start time) -> user + system

    def sample(self) -> None:
        total = 0
        for root in self.roots:
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
            for p in procs:
                try:
                    with p.oneshot():
                        info = p.memory_full_info()
                        times = p.cpu_times()
                        key = (p.pid, p.create_time())
                    total += getattr(info, "pss", info.rss)
                    self.cpu[key] = times.user + times.system
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    pass
        self.peak_pss = max(self.peak_pss, total)

    def cpu_seconds(self) -> float:
        return sum(self.cpu.values())


def run(count: int, endpoints: int, workers: int, threads: int, sample: float,
        time_limit: float, outputs: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    specs = designs(count, endpoints)
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
            cluster = ClusterSampler([psutil.Process(p.pid) for p in started])
            argv = [sys.executable, "-m", "planner.cli", "compare", "--outputs", outputs,
                    "--out", f"{tmp}/out", "--dask-scheduler", address]
            if time_limit is not None:
                argv += ["--time-limit", str(time_limit)]
            for spec in specs:
                argv += ["--topology", spec]
            load_before = os.getloadavg()
            t0 = time.perf_counter()
            with open(Path(tmp, "client.log"), "w+") as log, \
                    open(Path(tmp, "client.err"), "w+") as errors:
                client = subprocess.Popen(argv, env=env, stdout=log, stderr=errors)
                watched = psutil.Process(client.pid)
                client_rss = 0
                while client.poll() is None:
                    try:
                        client_rss = max(client_rss, watched.memory_info().rss)
                    except psutil.NoSuchProcess:
                        break
                    cluster.sample()
                    time.sleep(sample)
                client.wait()
                wall = time.perf_counter() - t0
                load_after = os.getloadavg()
                log.seek(0)
                out = log.read()
                errors.seek(0)
                err = errors.read()
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
    first, last = (_endpoints(s) for s in (specs[0], specs[-1]))
    return {"date": datetime.date.today().isoformat(), "designs": count,
            "endpoints_target": endpoints, "outputs": outputs,
            "first": specs[0], "last": specs[-1], "endpoints_first": first,
            "endpoints_last": last, "workers": workers, "threads_per_worker": threads,
            "cpus": os.cpu_count(), "time_limit_s": time_limit or DEFAULT_TIME_LIMIT_S,
            "wall_s": round(wall, 1),
            "per_plan_s": round(wall / count, 1),
            "cluster_cpu_s": round(cluster.cpu_seconds(), 1),
            "cpu_per_plan_s": round(cluster.cpu_seconds() / count, 1),
            "client_peak_rss_mb": round(client_rss / 2**20),
            "cluster_peak_pss_mb": round(cluster.peak_pss / 2**20),
            "plan_folder_mb_max": round(max(sizes) / 2**20, 1),
            "plan_folders_mb_total": round(sum(sizes) / 2**20),
            "load_before": [round(x, 1) for x in load_before],
            "load_after": [round(x, 1) for x in load_after], "table": out}


def _endpoints(spec: str) -> int:
    """Endpoints of ``dragonfly:a=26,p=13,h=13,g=G``: G groups of a x p."""
    return int(spec.rsplit("g=", 1)[1]) * PER_GROUP


def _key(run: dict) -> tuple:
    return (run["designs"], run["endpoints_target"], run["outputs"], run["workers"],
            run["threads_per_worker"])


def record(result: dict, path: Path = RECORD) -> list[dict]:
    """Add ``result`` to the runs in ``path`` (replacing an earlier run of the same key);
    returns every run, largest sweep first."""
    runs = json.loads(path.read_text()) if path.exists() else []
    runs = [r for r in runs if _key(r) != _key(result)] + [result]
    runs.sort(key=lambda r: (-r["designs"] * r["endpoints_target"], r["outputs"]))
    path.write_text(json.dumps(runs, indent=1) + "\n")
    return runs


def _load(values: list[float]) -> str:
    return ", ".join(f"{v:.1f}" for v in values)


def table(runs: list[dict]) -> str:
    """The Markdown table of ``runs``."""
    lines = ["| date | designs | endpoints each | outputs | workers x threads | wall | "
             "wall per plan | cluster CPU per plan | client peak RSS | cluster peak PSS | "
             "plan folders (largest / all) | load average before / after |",
             "|---|---:|---|---|---|---:|---:|---:|---:|---:|---|---|"]
    for r in runs:
        lines.append(
            f"| {r['date']} | {r['designs']} | {r['endpoints_first']:,} - "
            f"{r['endpoints_last']:,} | {r['outputs']} | {r['workers']} x "
            f"{r['threads_per_worker']} | {r['wall_s']:,.1f} s | {r['per_plan_s']:,.1f} s | "
            f"{r['cpu_per_plan_s']:,.1f} s | {r['client_peak_rss_mb']:,} MB | "
            f"{r['cluster_peak_pss_mb']:,} MB | {r['plan_folder_mb_max']:,} / "
            f"{r['plan_folders_mb_total']:,} MB | {_load(r['load_before'])} / "
            f"{_load(r['load_after'])} |")
    return "\n".join(lines)


def write_tables(runs: list[dict], paths=TABLES) -> None:
    """Replace the text between the ``BEGIN`` and ``END`` markers of each of ``paths`` with
    the table of ``runs``."""
    text = table(runs)
    for path in paths:
        doc = path.read_text()
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        path.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")


def outputs_saving(spec: str, time_limit: float) -> dict:
    """What ``--outputs summary`` saves on one design: the design planned once in this process,
    then its plan folder written and packed as a Dask task does (``running._packed_plan``, the
    writers one after the other) with each set of outputs. Wall and CPU time of this process,
    the archive's size and this process's peak PSS above what it held before (sampled every
    0.1 s)."""
    import resource
    import threading

    from planner import topologies
    from planner.compare import running
    from planner.compare.sizing import Configuration
    from planner.plan import plan

    conf = Configuration.parse(spec, "--saving")
    started = time.perf_counter()
    result = plan(topologies.build(conf.family, **dict(conf.params)), "modern-100g",
                  "hot-aisle", time_limit_s=time_limit or DEFAULT_TIME_LIMIT_S)
    figures = {"design": spec, "cables": len(result.cables),
               "plan_wall_s": round(time.perf_counter() - started, 1)}
    me = psutil.Process()
    for outputs in ("all", "summary"):
        base = me.memory_full_info().pss
        peak = [base]
        done = threading.Event()

        def watch() -> None:
            while not done.wait(0.1):
                peak[0] = max(peak[0], me.memory_full_info().pss)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        archive = running._packed_plan(result, conf.slug, 1, outputs)
        cpu1, wall1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        done.set()
        watcher.join()
        figures[outputs] = {
            "wall_s": round(wall1 - wall0, 1),
            "cpu_s": round(cpu1.ru_utime - cpu0.ru_utime + cpu1.ru_stime - cpu0.ru_stime, 1),
            "archive_mb": round(len(archive) / 2**20, 1),
            "peak_pss_above_plan_mb": round((peak[0] - base) / 2**20)}
        del archive
    figures["load_after"] = [round(x, 1) for x in os.getloadavg()]
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", type=int, default=50)
    ap.add_argument("--endpoints", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=None,
                    help="compare --time-limit (default: compare's own, "
                         f"{DEFAULT_TIME_LIMIT_S:g} s)")
    ap.add_argument("--outputs", choices=("summary", "all"), default="summary",
                    help="compare --outputs: what each plan folder holds (default summary)")
    ap.add_argument("--sample", type=float, default=2.0,
                    help="memory sampling period (s; reading every process's PSS costs CPU, "
                         "and a 100K plan lasts minutes)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    ap.add_argument("--no-record", dest="record", action="store_false",
                    help="print only; leave DASK.json, DASK.md and docs/compare.md as they are")
    ap.add_argument("--saving", metavar="DESIGN",
                    help="instead of a sweep: what --outputs summary saves on DESIGN (e.g. "
                         "dragonfly:a=26,p=13,h=13,g=296), planned once in this process")
    args = ap.parse_args()
    if args.saving:
        print(json.dumps(outputs_saving(args.saving, args.time_limit), indent=1))
        return
    for path in TABLES:        # checked before hours of planning, not after
        if args.record and (BEGIN not in path.read_text() or END not in path.read_text()):
            raise SystemExit(f"{path}: the {BEGIN} / {END} markers are missing")
    result = run(args.designs, args.endpoints, args.workers, args.threads, args.sample,
                 args.time_limit, args.outputs)
    print(result.pop("table"))
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    if args.record:
        write_tables(record(result))
        print(f"recorded in {RECORD.name}; tables in "
              f"{', '.join(str(p.relative_to(ROOT)) for p in TABLES)}")


if __name__ == "__main__":
    main()
