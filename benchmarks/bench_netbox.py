#!/usr/bin/env python3
"""Push plans into a real NetBox with ``planner netbox push`` and time it; writes
``benchmarks/NETBOX.md``. Not run by .ci/run: it needs a running NetBox.

For each ``--plan NAME=DIR`` (a folder written by ``planner plan``): the plan's site is emptied
(objects tagged ``planner`` in it), then

1. the first push, timed, with the time and rate of each kind of object (the push's log lines);
2. with ``--trace``, NetBox's own cable trace (``/api/dcim/interfaces/<id>/trace/``) from the
   A end of every link of ``cables.csv`` must end on the interface ``cables.csv`` names at the B
   end, through the panel ports its ``segments`` list;
3. a second push, which must write nothing;
4. with ``--replan NAME=DIR2`` (a re-plan of the same system: same topology and floor, another
   seed, so the same site), a push of DIR2: its created / updated / deleted counts must equal
   the differences of the two bundles computed here from their CSV files, every link of DIR2
   must trace, and one more push must write nothing.

Starting a NetBox to run this (how the figures were taken; NetBox is not part of this
repository): PostgreSQL and Redis from the distribution (``apt-get install postgresql
redis-server``, then start both), a database and user ``netbox``; NetBox's release source
(4.5 or later) with its ``requirements.txt`` installed in a virtual environment of its own;
``netbox/netbox/configuration.py`` with ``ALLOWED_HOSTS``, ``DATABASES``, ``REDIS``,
``SECRET_KEY`` and ``API_TOKEN_PEPPERS``; ``python manage.py migrate``; a superuser and an API
token (``manage.py createsuperuser``, then a token in the web UI or ``manage.py shell``);
``gunicorn -c contrib/gunicorn.py netbox.wsgi`` from ``netbox/`` (NetBox's own configuration:
workers, 120 s timeout).

    python benchmarks/bench_netbox.py --url http://127.0.0.1:8001 --token-file token.txt \\
        --plan two-halls=plans/two-halls --replan two-halls=plans/two-halls-seed1 --trace \\
        --plan default=plans/default
"""

from __future__ import annotations

import argparse
import os
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from planner.commands import netbox as command  # noqa: E402
from planner.commands._netbox_api import Client  # noqa: E402
from planner.exports import netbox as export  # noqa: E402

LINE = re.compile(r"netbox push: (\d+)/(\d+) ([a-z ]+) done \(([\d.]+) s\)")
SUMMARY = re.compile(r"created ([\d,]+), updated ([\d,]+), deleted ([\d,]+), unchanged ([\d,]+)")


LOAD_LINE = re.compile(r"netbox load: (\d+)/(\d+) ([a-z ]+) done \(([\d.]+) s\)")
SERVER = ("gunicorn", "postgres", "redis")


def netbox_cpu_by_pid() -> dict[int, tuple[str, float]]:
    """CPU seconds used so far by each process of NetBox's side of the machine: its gunicorn
    workers, PostgreSQL and Redis processes (user + system time, /proc/PID/stat fields 14 and
    15), by process id."""
    tick, out = os.sysconf("SC_CLK_TCK"), {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command_line = Path(f"/proc/{pid}/cmdline").read_bytes()
            name = next((n for n in SERVER if n.encode() in command_line), None)
            if name:
                stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                out[int(pid)] = (name, (int(stat[11]) + int(stat[12])) / tick)
        except OSError:  # the process ended meanwhile
            continue
    return out


def netbox_cpu_s() -> dict[str, float]:
    """CPU seconds used so far by NetBox's side of the machine, per program."""
    out = dict.fromkeys(SERVER, 0.0)
    for name, cpu in netbox_cpu_by_pid().values():
        out[name] += cpu
    return out


class CpuSampler:
    """NetBox's CPU seconds over a run, per program, counting processes that end during it (a
    PostgreSQL backend lives as long as its connection: the loader's ends with the loader):
    /proc read every half second, each process's last reading kept."""

    def __init__(self):
        import threading
        self.before = netbox_cpu_by_pid()
        self.seen = dict(self.before)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(0.5):
            self.seen.update(netbox_cpu_by_pid())

    def done(self) -> dict[str, float]:
        self.stop.set()
        self.thread.join()
        self.seen.update(netbox_cpu_by_pid())
        out = dict.fromkeys(SERVER, 0.0)
        for pid, (name, cpu) in self.seen.items():
            out[name] += cpu - self.before.get(pid, (name, 0.0))[1]
        return out


def push(url: str, token_file: str, plan_dir: Path, limit_s: float | None = None) -> dict:
    """One ``planner netbox push`` as a user runs it: wall time, counts, per kind the
    objects written and their seconds, NetBox's CPU seconds (gunicorn + PostgreSQL + Redis, so
    a reader can tell what a dedicated machine would do) and the load average meanwhile. With
    ``limit_s`` it is stopped by Ctrl-C (SIGINT) after that long, as a user stops it:
    ``stopped`` and, per kind, what it had done by then."""
    cpu = netbox_cpu_s()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "planner.cli", "netbox", "push", "--plan",
                             str(plan_dir), "--url", url, "--token-file", token_file],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        out, err = proc.communicate(timeout=limit_s)
        stopped = False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate()
        stopped = True
    seconds = time.perf_counter() - start
    after = netbox_cpu_s()
    split = {k: after[k] - cpu[k] for k in SERVER}
    cpu = sum(split.values())
    load = os.getloadavg()[1]
    if proc.returncode != 0 and not stopped:
        raise SystemExit(f"push of {plan_dir} failed ({proc.returncode}): {err.strip()}")
    kinds: dict[str, list] = {}
    last: dict[str, tuple[int, int, float]] = {}
    for done, total, kind, secs in LINE.findall(out):
        last[kind] = (int(done), int(total), float(secs))
        if done == total:
            n, s = kinds.get(kind, (0, 0.0))
            kinds[kind] = [n + int(total), s + float(secs)]
    found = SUMMARY.search(out)
    counts = [int(x.replace(",", "")) for x in found.groups()] if found else [0, 0, 0, 0]
    return {"seconds": seconds, "netbox_cpu_s": cpu, "netbox_cpu_split": split, "load": load,
            "kinds": kinds, "stopped": stopped, "last": last,
            "exit": proc.returncode, "stderr": err.strip()[-300:],
            **dict(zip(("created", "updated", "deleted", "unchanged"), counts))}


def load(netbox: str, python: str | None, plan_dir: Path) -> dict:
    """One ``planner netbox load`` as a user runs it on the NetBox host: wall time, counts, the
    seconds of each step, and NetBox's CPU seconds: the loader's own process (NetBox's Python
    and ORM, a child of this one) plus PostgreSQL, Redis and gunicorn from /proc."""
    import resource
    sampler = CpuSampler()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    argv = [sys.executable, "-m", "planner.cli", "netbox", "load", "--plan", str(plan_dir),
            "--netbox", netbox] + (["--python", python] if python else [])
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    split, done = sampler.done(), resource.getrusage(resource.RUSAGE_CHILDREN)
    split["loader"] = (done.ru_utime + done.ru_stime) - (children.ru_utime + children.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"load of {plan_dir} failed ({proc.returncode}): "
                         f"{proc.stderr.strip()[-2000:]}")
    found = SUMMARY.search(proc.stdout)
    counts = [int(x.replace(",", "")) for x in found.groups()] if found else [0, 0, 0, 0]
    return {"seconds": seconds, "netbox_cpu_s": sum(split.values()), "netbox_cpu_split": split,
            "load": os.getloadavg()[1], "max_rss_mb": done.ru_maxrss / 1024,
            "steps": {k: [int(n), float(t)] for n, _, k, t in LOAD_LINE.findall(proc.stdout)},
            **dict(zip(("created", "updated", "deleted", "unchanged"), counts))}


EMPTY_SITE = """
from django.db import transaction
from dcim.models import Cable, CablePath, Device, Interface, Location, Rack, Site
site = Site.objects.filter(slug=SLUG).first()
if site:
    with transaction.atomic():
        paths = Interface.objects.filter(device__site=site, _path__isnull=False)
        CablePath.objects.filter(pk__in=list(paths.values_list("_path", flat=True))).delete()
        Cable.objects.filter(terminations___site=site).delete()
        Device.objects.filter(site=site).delete()
        Rack.objects.filter(site=site).delete()
        for location in Location.objects.filter(site=site):
            location.delete()
        site.delete()
"""


CHECK_PATHS = """
import random
from dcim.models import CablePath, Interface, Site
site = Site.objects.get(slug=SLUG)
origins = list(Interface.objects.filter(device__site=site, cable__isnull=False).order_by("pk"))
random.Random(0).shuffle(origins)
checked = wrong = complete = 0
for iface in origins[:SAMPLE]:
    fresh = CablePath.from_origin([iface])
    held = iface._path
    checked += 1
    same = held is not None and (held.path, held.is_complete, held.is_active, held.is_split) == (
        fresh.path, fresh.is_complete, fresh.is_active, fresh.is_split)
    wrong += not same
    complete += bool(held and held.is_complete)
print("PATHS", len(origins), checked, wrong, complete)
"""


def check_paths(netbox: str, python: str | None, plan_dir: Path, sample: int) -> dict:
    """The stored path of ``sample`` cabled interfaces of the plan's site (all, when fewer;
    a seeded random sample otherwise) against NetBox's own ``CablePath.from_origin`` traced
    afresh: path, is_complete, is_active and is_split must be equal."""
    site = command.read_bundle(plan_dir).site
    netbox_dir = Path(netbox).resolve()
    interpreter = python or str(netbox_dir.parent / "venv" / "bin" / "python")
    code = CHECK_PATHS.replace("SLUG", repr(site["slug"])).replace("SAMPLE", str(sample))
    out = subprocess.run([interpreter, "manage.py", "shell", "-c", code], cwd=netbox_dir,
                         check=True, capture_output=True, text=True).stdout
    total, checked, wrong, complete = map(int, re.search(r"PATHS (\d+) (\d+) (\d+) (\d+)",
                                                         out).groups())
    return {"cabled": total, "checked": checked, "differ": wrong, "complete": complete}


def empty_site_orm(netbox: str, python: str | None, plan_dir: Path) -> None:
    """Delete the plan's site and everything in it with NetBox's ORM on the NetBox host (the
    REST API would take hours at the default plan's size)."""
    site = command.read_bundle(plan_dir).site
    netbox_dir = Path(netbox).resolve()
    interpreter = python or str(netbox_dir.parent / "venv" / "bin" / "python")
    code = EMPTY_SITE.replace("SLUG", repr(site["slug"]))
    subprocess.run([interpreter, "manage.py", "shell", "-c", code], cwd=netbox_dir, check=True,
                   capture_output=True)


def empty_site(client: Client, plan_dir: Path) -> None:
    """Delete what a push made in the plan's site (cables, devices, racks, locations, site)."""
    site = command.read_bundle(plan_dir).site
    found = client.read("dcim/sites/", slug=site["slug"])
    if not found:
        return
    sid = found[0]["id"]
    for path in ("dcim/cables/", "dcim/devices/", "dcim/racks/", "dcim/locations/"):
        for _ in range(10):  # until none is left (a device goes only once its cables are gone)
            ids = [o["id"] for o in client.read(path, site_id=sid, fields="id,tags")
                   if any(t.get("slug") == "planner" for t in o["tags"])]
            if not ids:
                break
            batches = [ids[i:i + 50] for i in range(0, len(ids), 50)]
            for _ in client.each(lambda batch: client.delete(path, batch), batches):
                pass
    client.delete("dcim/sites/", [sid])


def port_name(plan_dir: Path):
    """cables.csv port number -> NetBox interface name, per device (the router model's p-th
    interface; an endpoint's port by its number)."""
    folder = plan_dir / export.FOLDER
    devices = pd.read_csv(folder / "devices.csv", dtype=str, keep_default_na=False)
    types = {d["model"]: d for d in (yaml.safe_load(p.read_text())
                                     for p in folder.glob("device-types/*/*.yaml"))}
    model = dict(zip(devices["name"], devices["device_type"]))

    def name(device: str, port: str) -> str:
        if not port.isdigit():  # a named port (a management port: 'mgmt')
            return port
        interfaces = types[model[device]].get("interfaces", [])
        return interfaces[int(port) - 1]["name"] if len(interfaces) > 1 else str(port)
    return name


def trace_all(client: Client, plan_dir: Path) -> tuple[int, int]:
    """NetBox's trace of every link of cables.csv from its A end: (links traced, through
    panels); SystemExit naming the first link that ends elsewhere."""
    site = command.read_bundle(plan_dir).site
    sid = client.read("dcim/sites/", slug=site["slug"])[0]["id"]
    ids = {(o["device"]["name"], o["name"]): o["id"]
           for o in client.read("dcim/interfaces/", site_id=sid, fields="id,name,device")}
    name = port_name(plan_dir)
    cables = pd.read_csv(plan_dir / "cables.csv", dtype=str, keep_default_na=False)
    through = 0
    for row in cables.itertuples(index=False):
        start = ids[(row.a_device, name(row.a_device, row.a_port))]
        hops = client.request("GET", f"dcim/interfaces/{start}/trace/")
        far = hops[-1][2][0] if hops and hops[-1][2] else {}
        got = ((far.get("device") or {}).get("name"), far.get("name"))
        want = (row.b_device, name(row.b_device, row.b_port))
        if got != want:
            raise SystemExit(f"{plan_dir}: link {row.cable_id} traces to {got}, not {want}")
        panels = [p["device"]["name"] for hop in hops for p in (hop[0] + hop[2])
                  if p and "device" in p and p.get("device") and p["device"]["name"]
                  not in (row.a_device, row.b_device)]
        if row.segments:
            listed = [s.split(":")[0] for s in row.segments.split(" | ")
                      if not s.startswith(("cord", "trunk"))]
            if sorted(set(panels)) != sorted(set(listed)):
                raise SystemExit(f"{plan_dir}: link {row.cable_id} passes {panels}, "
                                 f"segments list {listed}")
            through += 1
        elif panels:
            raise SystemExit(f"{plan_dir}: link {row.cable_id} passes panels {panels}")
    return len(cables), through


def bundle_diff(old: Path, new: Path) -> dict[str, int]:
    """What a push of ``new`` over ``old`` must write, from the two bundles' CSV files:
    objects by name (cables by their two ends), fields as the push compares them."""
    def read(plan_dir: Path, name: str) -> pd.DataFrame:
        return pd.read_csv(plan_dir / export.FOLDER / name, dtype=str, keep_default_na=False)

    out = {"created": 0, "updated": 0, "deleted": 0}
    specs = {"locations.csv": (["name"], ["status", "description", "slug"]),
             "racks.csv": (["name"], ["location", "status", "width", "u_height", "description"]),
             "devices.csv": (["name"], ["role", "location", "rack", "position", "face",
                                        "status", "description"]),
             "cables.csv": (None, list(command.CABLE_FIELDS))}
    for name, (key, fields) in specs.items():
        a, b = read(old, name), read(new, name)
        if key is None:
            for frame in (a, b):
                ends = [tuple(sorted([(x, y, z), (u, v, w)])) for x, y, z, u, v, w in zip(
                    frame.side_a_type, frame.side_a_device, frame.side_a_name,
                    frame.side_b_type, frame.side_b_device, frame.side_b_name)]
                frame.index = pd.Index(ends)
        else:
            a, b = a.set_index(key[0]), b.set_index(key[0])
        both = a.index.intersection(b.index)
        out["created"] += len(b.index.difference(a.index))
        out["deleted"] += len(a.index.difference(b.index))
        if name == "devices.csv":  # a device whose type changed is made anew
            retyped = both[a.loc[both, "device_type"].to_numpy() != b.loc[both, "device_type"].to_numpy()]
            out["created"] += len(retyped)
            out["deleted"] += len(retyped)
            both = both.difference(retyped)
        norm = lambda f: f.apply(lambda c: c.map(_norm))  # noqa: E731
        changed = (norm(a.loc[both, fields]) != norm(b.loc[both, fields])).any(axis=1)
        out["updated"] += int(changed.sum())
    return out


def _norm(text: str) -> str:
    try:
        return f"{float(text):g}"
    except ValueError:
        return text


def bundle_rows(plan_dir: Path) -> dict[str, int]:
    folder = plan_dir / export.FOLDER
    return {n.removesuffix(".csv"): len(pd.read_csv(folder / n, dtype=str))
            for n in ("racks.csv", "devices.csv", "cables.csv")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--plan", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--replan", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--limit", action="append", default=[], metavar="NAME=SECONDS",
                    help="stop the first push of NAME after SECONDS (Ctrl-C), measure its "
                         "rates, then check that a second push resumes where it stopped")
    ap.add_argument("--estimate", action="append", default=[], metavar="NAME=DIR",
                    help="no push: extrapolate NAME's push time from its bundle's row counts "
                         "and the rates measured (for a plan too large to push here)")
    ap.add_argument("--trace", action="store_true", help="trace every link (small plans)")
    ap.add_argument("--load", action="append", default=[], metavar="NAME=DIR",
                    help="bulk: 'planner netbox load' NAME into the NetBox at --netbox (its "
                         "site emptied first), then check its paths and load it again")
    ap.add_argument("--reload", action="append", default=[], metavar="NAME=DIR",
                    help="bulk: after NAME's loads, load this re-plan of it and check the "
                         "differences, its paths, and one more load")
    ap.add_argument("--netbox", help="bulk: NetBox's netbox/ folder (manage.py)")
    ap.add_argument("--python", help="bulk: NetBox's Python")
    ap.add_argument("--paths", type=int, default=3000,
                    help="bulk: paths checked against NetBox's own trace (a seeded sample)")
    ap.add_argument("--out", default=str(HERE / "NETBOX.md"))
    ap.add_argument("--merge", nargs="*", default=[], metavar="JSON",
                    help="only write the report, from these results files and --out's")
    args = ap.parse_args()
    store = Path(args.out).with_suffix(".json")
    if args.merge or args.estimate:
        results = json.loads(store.read_text()) if store.exists() else {}
        for other in args.merge:
            results.update(json.loads(Path(other).read_text()))
        for name, folder in (x.split("=", 1) for x in args.estimate):
            results[name] = {"size": bundle_rows(Path(folder)), "estimate": True}
        store.write_text(json.dumps(results, indent=1) + "\n")
        write_report(Path(args.out), results)
        return
    token = Path(args.token_file).read_text().strip()
    client = Client(args.url, token)
    version = client.version()
    if args.load:
        bulk_loads(args, client, version, store)
        return
    replans = dict(x.split("=", 1) for x in args.replan)
    limits = {k: float(v) for k, v in (x.split("=", 1) for x in args.limit)}
    results = json.loads(store.read_text()) if store.exists() else {}
    for name, folder in (x.split("=", 1) for x in args.plan):
        plan_dir = Path(folder)
        empty_site(client, plan_dir)
        row = {"size": bundle_rows(plan_dir), "version": version, "load": os.getloadavg()[1],
               "commit": commit()}
        if name in limits:
            row["first"] = push(args.url, args.token_file, plan_dir, limits[name])
            print(name, "stopped push", row["first"], flush=True)
            row["resumed"] = push(args.url, args.token_file, plan_dir, 240)
            print(name, "resumed push", row["resumed"], flush=True)
            results[name] = row
            continue
        row["first"] = push(args.url, args.token_file, plan_dir)
        print(name, "first push", row["first"], flush=True)
        row["traced"] = trace_all(client, plan_dir) if args.trace else None
        again = push(args.url, args.token_file, plan_dir)
        print(name, "second push", again, flush=True)
        assert again["created"] == again["updated"] == again["deleted"] == 0, again
        row["again"] = again
        if name in replans:
            new = Path(replans[name])
            want = bundle_diff(plan_dir, new)
            third = push(args.url, args.token_file, new)
            print(name, "re-plan push", third, "expected", want, flush=True)
            got = {k: third[k] for k in want}
            assert got == want, (got, want)
            row["replan"] = [third, want, trace_all(client, new) if args.trace else None]
            last = push(args.url, args.token_file, new)
            assert last["created"] == last["updated"] == last["deleted"] == 0, last
        results[name] = row
    store.write_text(json.dumps(results, indent=1) + "\n")
    write_report(Path(args.out), results)


def bulk_loads(args, client: Client, version: str, store: Path) -> None:
    """The ``--load`` plans: empty the site, load (timed), NetBox's trace checked (every link
    through the REST trace with ``--trace``; a sample of stored paths against NetBox's own
    ``CablePath.from_origin``), a second load that must write nothing, then the re-plan."""
    results = json.loads(store.read_text()) if store.exists() else {}
    bulk = results.setdefault("bulk", {})
    reloads = dict(x.split("=", 1) for x in args.reload)
    for name, folder in (x.split("=", 1) for x in args.load):
        plan_dir = Path(folder)
        empty_site_orm(args.netbox, args.python, plan_dir)
        row = {"size": bundle_rows(plan_dir), "version": version, "commit": commit(),
               "load_before": os.getloadavg()[1]}
        row["first"] = load(args.netbox, args.python, plan_dir)
        print(name, "first load", row["first"], flush=True)
        row["paths"] = check_paths(args.netbox, args.python, plan_dir, args.paths)
        print(name, "paths", row["paths"], flush=True)
        assert row["paths"]["differ"] == 0, row["paths"]
        row["traced"] = trace_all(client, plan_dir) if args.trace else None
        again = load(args.netbox, args.python, plan_dir)
        print(name, "second load", again, flush=True)
        assert again["created"] == again["updated"] == again["deleted"] == 0, again
        row["again"] = again
        if name in reloads:
            new = Path(reloads[name])
            want = bundle_diff(plan_dir, new)
            third = load(args.netbox, args.python, new)
            print(name, "re-plan load", third, "expected", want, flush=True)
            got = {k: third[k] for k in want}
            assert got == want, (got, want)
            paths = check_paths(args.netbox, args.python, new, args.paths)
            assert paths["differ"] == 0, paths
            traced = trace_all(client, new) if args.trace else None
            last = load(args.netbox, args.python, new)
            assert last["created"] == last["updated"] == last["deleted"] == 0, last
            row["replan"] = [third, want, traced, paths, last]
        bulk[name] = row
        store.write_text(json.dumps(results, indent=1) + "\n")
    write_report(Path(args.out), results)


def bulk_lines(bulk: dict) -> list[str]:
    """The bulk loads: wall time, NetBox's CPU (the loader's process, PostgreSQL; gunicorn and
    Redis are idle), the steps, the checks."""
    if not bulk:
        return []
    lines = ["", "## Bulk load (`planner netbox load`, on the NetBox host)", "",
             "Each plan's site emptied first; `planner netbox load` in a new process, so the "
             "times include reading the bundle and starting Django. NetBox CPU is the loader's "
             "process (NetBox's Python and ORM) plus PostgreSQL, Redis and gunicorn from /proc; "
             "the load average (5 min) of the shared machine before and after each load is "
             "beside it.", "",
             "| plan | racks | devices | cables | objects written | first load | NetBox CPU s "
             "(loader / PostgreSQL) | load avg before / after | second load | its writes |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, r in bulk.items():
        s, f, a = r["size"], r["first"], r.get("again")
        split = f["netbox_cpu_split"]
        lines.append(
            f"| {name} | {s['racks']:,} | {s['devices']:,} | {s['cables']:,} | "
            f"{f['created'] + f['updated'] + f['deleted']:,} | {_duration(f['seconds'])} | "
            f"{f['netbox_cpu_s']:.0f} ({split['loader']:.0f} / {split['postgres']:.0f}) | "
            f"{r['load_before']:.1f} / {f['load']:.1f} | "
            + (f"{_duration(a['seconds'])} | {a['created'] + a['updated'] + a['deleted']} |"
               if a else "not run | - |"))
    lines += ["", "Seconds of each step of the first load:", "",
              "| plan | " + " | ".join(STEPS) + " |",
              "| --- |" + " ---: |" * len(STEPS)]
    for name, r in bulk.items():
        steps = r["first"]["steps"]
        lines.append(f"| {name} | " + " | ".join(
            f"{steps[k][1]:.0f} s ({steps[k][0]:,})" if k in steps else "-" for k in STEPS)
            + " |")
    for name, r in bulk.items():
        p = r.get("paths")
        if not p:
            continue
        lines += ["", f"**{name}**: {p['cabled']:,} cabled interfaces; the stored path of "
                      + ("every one" if p["checked"] == p["cabled"] else
                         f"{p['checked']:,} of them (a seeded random sample)")
                      + f" equals NetBox's own `CablePath.from_origin` traced afresh "
                        f"({p['differ']} differ; {p['complete']:,} complete)."
                      + (f" NetBox's REST trace from the A end of each of the "
                         f"{r['traced'][0]:,} links of `cables.csv` ends on the interface it "
                         f"names at the B end; the {r['traced'][1]:,} links through panels pass "
                         "the panels their `segments` list." if r.get("traced") else "")]
        if r.get("replan"):
            third, want, traced, paths, last = r["replan"]
            lines += ["", f"**{name}, re-plan**: the load wrote {third['created']:,} created, "
                          f"{third['updated']:,} updated, {third['deleted']:,} deleted in "
                          f"{_duration(third['seconds'])}: exactly the differences of the two "
                          f"bundles ({want}); its paths equal NetBox's own trace "
                          f"({paths['checked']:,} checked, {paths['differ']} differ)"
                          + (f", all {traced[0]:,} links trace to their far interface"
                             if traced else "") + "; one more load wrote nothing."]
    return lines


STEPS = ("device types and port templates", "racks", "devices", "cables removed", "cables",
         "paths traced", "search entries")


def rate(row: dict, kind: str) -> float | None:
    """Objects of ``kind`` written per second by the first push (a stopped push: up to its
    last finished batch)."""
    first = row["first"]
    if kind in first["kinds"] and first["kinds"][kind][1]:
        n, s = first["kinds"][kind]
        return n / s
    if kind in first.get("last", {}):
        done, _, s = first["last"][kind]
        return done / s if s else None
    return None


def commit() -> str:
    """The planner commit measured (short hash, ``+`` when the work tree differs)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                          capture_output=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "planner"], cwd=ROOT, text=True,
                           capture_output=True).stdout.strip()
    return head + ("+" if dirty else "")


def cpu_lines(results: dict) -> list[str]:
    """Per push: objects written per second of wall time, and NetBox's own CPU seconds per
    object written (gunicorn + PostgreSQL + Redis), which is what a dedicated machine's cores
    would have to supply; the load average beside each."""
    lines = ["", "NetBox's side of each push that wrote (CPU seconds of its gunicorn, PostgreSQL "
             "and Redis processes from /proc; on 2 dedicated cores a push would take about its "
             "CPU seconds / 2):", "",
             "| plan | push | commit | wall | objects written | per second | NetBox CPU s "
             "(gunicorn / PostgreSQL) | CPU s per object | on 2 dedicated cores | "
             "load (5 min) at the end |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, r in results.items():
        pushes = [("first", r.get("first")), ("resumed", r.get("resumed"))]
        if r.get("replan"):
            pushes.append(("re-plan", r["replan"][0]))
        for label, f in pushes:
            if not f or "netbox_cpu_s" not in f:
                continue
            n = f["created"] + f["updated"] + f["deleted"]
            if f.get("stopped"):
                n = sum(v[0] for v in f["last"].values())
            if not n:
                continue
            split = f.get("netbox_cpu_split", {})
            lines.append(f"| {name} | {label}{' (stopped)' if f.get('stopped') else ''} | "
                         f"{r.get('commit', '-')} | {f['seconds']:.0f} s | {n:,} | "
                         f"{n / f['seconds']:.2f} | {f['netbox_cpu_s']:.0f}"
                         + (f" ({split['gunicorn']:.0f} / {split['postgres']:.0f})" if split
                            else "") + " | "
                         f"{f['netbox_cpu_s'] / n:.3f} | {_duration(f['netbox_cpu_s'] / 2)} | "
                         f"{f['load']:.1f} |")
    return lines


def write_report(path: Path, results: dict) -> None:
    """NETBOX.md from every plan measured so far (NETBOX.json)."""
    bulk = results.get("bulk", {})
    estimates = {k: r for k, r in results.items() if k != "bulk" and r.get("estimate")}
    results = {k: r for k, r in results.items() if k != "bulk" and not r.get("estimate")}
    versions = sorted({r["version"] for r in results.values()})
    lines = [
        "# NetBox push: measured against a real NetBox",
        "",
        f"Written by `benchmarks/bench_netbox.py` (results kept in `NETBOX.json`) against NetBox "
        f"{', '.join(versions)}: PostgreSQL 15 and Redis 7 from Debian 12, NetBox from its "
        "release source under gunicorn with NetBox's contrib configuration (5 workers x 3 "
        "threads, 120 s timeout), on the shared 2-core development machine with other work "
        "running beside it (the load average over 5 minutes is in the table). Each plan's site "
        "was emptied first; every push is `planner netbox push` in a new process, so the times "
        "include reading the bundle and every read of NetBox.",
        "",
        "| plan | racks | devices | cables | load | first push | written | second push | "
        "its writes |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, r in results.items():
        s, f = r["size"], r["first"]
        again = r.get("again")
        first = (f"stopped after {f['seconds']:.0f} s" if f.get("stopped")
                 else f"{f['seconds']:.0f} s")
        lines.append(
            f"| {name} | {s['racks']:,} | {s['devices']:,} | {s['cables']:,} | {r['load']:.1f} | "
            f"{first} | {f['created']:,} | "
            + (f"{again['seconds']:.0f} s | "
               f"{again['created'] + again['updated'] + again['deleted']} |" if again
               else "- | - |"))
    lines += ["", "Rates of the first push (objects written per second; a stopped push up to "
                  "its last finished batch):", "",
              "| plan | devices | cables | racks |", "| --- | ---: | ---: | ---: |"]
    for name, r in results.items():
        cells = []
        for kind in ("devices", "cables", "racks"):
            v = rate(r, kind)
            cells.append("-" if v is None else f"{v:.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += cpu_lines(results)
    for name, r in results.items():
        if r.get("traced"):
            n, through = r["traced"]
            lines += ["", f"**{name}**: NetBox's own cable trace from the A end of each of the "
                          f"{n:,} links ends on the interface `cables.csv` names at the B end; "
                          f"the {through:,} links through panels pass the panels their "
                          "`segments` list."]
        if r.get("replan"):
            third, want, traced = r["replan"]
            lines += ["", f"**{name}, re-plan** (same system and floor, another seed, so the "
                          f"same site): the push wrote {third['created']:,} created, "
                          f"{third['updated']:,} updated, {third['deleted']:,} deleted "
                          f"({third['unchanged']:,} unchanged) in {third['seconds']:.0f} s: "
                          "exactly the differences of the two bundles computed from their CSV "
                          f"files ({want}); "
                          + (f"all {traced[0]:,} links of the re-plan trace to their far "
                             "interface; " if traced else "")
                          + "one more push wrote nothing."]
        if r.get("resumed"):
            f, again = r["first"], r["resumed"]
            done = {k: v[0] for k, v in f["last"].items()}
            left = {k: v[1] for k, v in again["last"].items()}
            lines += ["", f"**{name}, stopped and resumed**: the first push was stopped with "
                          f"Ctrl-C after {f['seconds']:.0f} s (exit {f['exit']}), having written "
                          + ", ".join(f"{n:,} {k}" for k, n in done.items())
                          + "; the next push (run for up to 240 s) read what NetBox held and "
                          "went on with what was left: "
                          + ", ".join(f"{n:,} {k}" for k, n in left.items()) + "."]
    lines += _extrapolation(results, estimates)
    lines += bulk_lines(bulk)
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


def pooled_rates(results: dict) -> dict[str, float]:
    """Objects per second of each kind over every push measured (objects / seconds summed)."""
    out = {}
    for kind in ("devices", "cables", "racks"):
        n = s = 0.0
        for r in results.values():
            first = r["first"]
            if kind in first["kinds"]:
                n += first["kinds"][kind][0]
                s += first["kinds"][kind][1]
            elif kind in first.get("last", {}):
                n += first["last"][kind][0]
                s += first["last"][kind][2]
        if s:
            out[kind] = n / s
    return out


def _extrapolation(results: dict, estimates: dict) -> list[str]:
    """Every plan's first-push time at the pooled rates: measured plans as a check of the
    model, the others (too large to push here) as an estimate."""
    rates = pooled_rates(results)
    if not {"devices", "cables"} <= rates.keys():
        return []
    cpu_per = pooled_cpu_per_object(results)
    lines = ["", "## Time at the measured rates", "",
             "Rates pooled over every push above: "
             + ", ".join(f"{k} {v:.2f}/s" for k, v in rates.items())
             + ". A push's time is about its devices, cables and racks at these rates (reads "
               "and the shared objects add seconds). Plans marked *estimate* were not pushed "
               "here; their time is extrapolated from their bundle's row counts, not measured.",
             "", f"NetBox's CPU per object written, over the first pushes that ran to the end: "
                 f"{cpu_per:.3f} s. "
                 "The last two columns divide a plan's objects times that by the cores of a "
                 "dedicated machine (NetBox's workers and PostgreSQL kept busy by the batches "
                 "in flight): the time NetBox itself needs, whatever the client does.",
             "", "| plan | devices | cables | racks | at the pooled rates | measured | "
                 "NetBox CPU on 2 cores | on 16 cores |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    rows = [(k, r, False) for k, r in results.items()] + [(k, r, True) for k, r in
                                                          estimates.items()]
    for name, r, guessed in rows:
        s = r["size"]
        secs = sum(s[k] / rates[k] for k in ("devices", "cables", "racks") if k in rates)
        measured = ("estimate" if guessed else
                    f"stopped at {r['first']['seconds']:.0f} s" if r["first"].get("stopped")
                    else f"{r['first']['seconds']:.0f} s")
        cpu = (s["devices"] + s["cables"] + s["racks"]) * cpu_per
        lines.append(f"| {name} | {s['devices']:,} | {s['cables']:,} | {s['racks']:,} | "
                     f"{_duration(secs)} | {measured} | {_duration(cpu / 2)} | "
                     f"{_duration(cpu / 16)} |")
    return lines


def pooled_cpu_per_object(results: dict) -> float:
    """NetBox CPU seconds per object written, over every first push that ran to the end (a
    stopped one wrote the cheap shared objects and port templates, not a plan's mix)."""
    cpu = n = 0.0
    for r in results.values():
        f = r["first"]
        if "netbox_cpu_s" in f and not f.get("stopped"):
            cpu += f["netbox_cpu_s"]
            n += (sum(v[0] for v in f["last"].values()) if f.get("stopped")
                  else f["created"] + f["updated"] + f["deleted"])
    return cpu / n if n else float("nan")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


if __name__ == "__main__":
    main()
