"""Determinism (issues 8 and 16): same inputs and seed -> the same bytes, on a quiet or busy machine.

``planner plan`` runs three times in fresh interpreters with strategy ``optimize`` (partitioners,
annealing, CP-SAT LNS): with ``PYTHONHASHSEED=0``, with another hash seed, and with
``PYTHONHASHSEED=0`` again while two busy loops (``python -c 'while True: pass'``) compete for
the CPU. Placement counts its work in deterministic units sized from the time limit
(``planner.placement.budget``), never by the clock, so ``cables.csv``, ``netlist.anynet``, every
NetBox CSV and ``summary.json`` without its runtimes must be byte-identical across all three. (A
plain quiet repeat adds nothing: the busy run repeats it with the same hash seed, in another
process with other addresses, and under load.) The hard cap (``planner.placement.budget.HardCap``,
in the planner's own CPU time) is a safety net only: a cap far below what placement needs makes
it fire, and the plan says so in ``summary.json`` and on stdout.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from planner.commands.plan import summary_table
from planner.placement import place
from planner.plan import plan
from planner.topologies.slimfly import slimfly
from test_plan_invariants import without_runtimes

ARGS = ["plan", "--topology", "slimfly:q=5", "--catalog", "modern-100g", "--floor", "hot-aisle",
        "--strategy", "optimize", "--time-limit", "4", "--seed", "7"]
RUNS = (("0", 0), ("4242", 0), ("0", 2))  # (PYTHONHASHSEED, busy loops running)
SOURCE_DATE_EPOCH = 1_700_000_000  # the creation time bom.xlsx carries: 2023-11-14 22:13:20 UTC


def run_plan(out: Path, hash_seed: str, busy_loops: int) -> None:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, SOURCE_DATE_EPOCH=str(SOURCE_DATE_EPOCH))
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy_loops)]
    try:
        done = subprocess.run([sys.executable, "-m", "planner.cli", *ARGS, "--out", str(out)],
                              env=env, capture_output=True, text=True, timeout=600)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert done.returncode == 0, done.stderr


def compared_files(out: Path) -> dict[str, bytes]:
    """The files that must not change between runs: cables.csv, netlist.anynet, bom.xlsx (with
    ``SOURCE_DATE_EPOCH`` set), NetBox CSVs, and summary.json without its wall-clock fields."""
    files = {name: (out / name).read_bytes() for name in ("cables.csv", "netlist.anynet", "bom.xlsx")}
    files.update({str(p.relative_to(out)): p.read_bytes()
                  for p in sorted((out / "netbox").glob("*.csv"))})
    summary = json.loads((out / "summary.json").read_text())
    files["summary.json"] = json.dumps(without_runtimes(summary), sort_keys=True).encode()
    return files


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("determinism")
    outs = []
    for k, (hash_seed, busy) in enumerate(RUNS):
        out = base / f"run{k}"
        run_plan(out, hash_seed, busy)
        outs.append(out)
    return outs


def test_every_placement_stage_ran(runs):
    """The compared runs exercise the whole placement: partitioners, then (a reach floor) the
    router annealing priced by the cable dollars."""
    placement = json.loads((runs[0] / "summary.json").read_text())["placement"]
    assert "polish" in placement["stage_seconds"] and placement["method"].endswith("+price")
    assert any(name.startswith("kaminpar") for name in placement["candidates"])


def test_same_bytes_across_runs_hash_seeds_and_load(runs):
    first = compared_files(runs[0])
    assert len([n for n in first if n.startswith("netbox/")]) >= 5
    for out in runs[1:]:
        again = compared_files(out)
        assert sorted(again) == sorted(first)
        for name in first:
            assert again[name] == first[name], f"{name} differs in {out.name}"


def test_bom_carries_the_source_date_epoch(runs):
    stamp = datetime.datetime.fromtimestamp(SOURCE_DATE_EPOCH, datetime.timezone.utc)
    with zipfile.ZipFile(runs[0] / "bom.xlsx") as book:
        core = book.read("docProps/core.xml").decode()
    assert f">{stamp:%Y-%m-%dT%H:%M:%SZ}</dcterms:created>" in core


def test_a_capped_plan_says_so(monkeypatch):
    """A cap far below what placement needs (as on a machine a million times slower than the
    reference one) fires; summary.json and the table ``planner plan`` prints say so, and a
    plan whose cap did not fire does not."""
    from planner.placement import tuning

    top = slimfly(5)
    monkeypatch.setattr(tuning, "HARD_CAP_FACTOR", 1e-6)
    placement = place(top, _floor(), strategy="optimize", time_limit_s=1e-4, seed=0)
    assert placement.time_capped is True
    capped = plan(top, "modern-100g", _floor(), placement=placement)
    assert capped.summary["placement"]["time_capped"] is True
    assert "time-capped" in summary_table(capped, Path("out"), [])
    monkeypatch.undo()
    relaxed = plan(top, "modern-100g", _floor(), strategy="hint", time_limit_s=60)
    assert relaxed.summary["placement"]["time_capped"] is False
    assert "time-capped" not in summary_table(relaxed, Path("out"), [])


def _floor():
    from planner.inputs.floor import load_floor
    return load_floor("hot-aisle")
