"""Determinism (issue 8, part 3): same inputs and seed -> the same bytes.

``planner plan`` runs three times in fresh interpreters, two with ``PYTHONHASHSEED=0`` and one
with another hash seed, with strategy ``optimize`` (partitioners, annealing, CP-SAT LNS). The
placement budgets are counted in deterministic units (annealing steps, CP-SAT deterministic time)
and the wall-clock limit is only a safety net: the runs use a limit well above what they need and
check that it never fired (``placement.time_capped`` is false). ``cables.csv``,
``netlist.anynet``, every NetBox CSV and ``summary.json`` without its runtimes must then be
byte-identical. A tiny limit, on the other hand, must fire and say so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner.placement import place
from planner.plan import plan
from planner.topologies.slimfly import slimfly
from test_plan_invariants import without_runtimes

ARGS = ["plan", "--topology", "slimfly:q=5", "--catalog", "modern-100g", "--floor", "hot-aisle",
        "--strategy", "optimize", "--time-limit", "4", "--seed", "7"]
HASH_SEEDS = ("0", "0", "4242")


def run_plan(out: Path, hash_seed: str) -> None:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-m", "planner.cli", *ARGS, "--out", str(out)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def compared_files(out: Path) -> dict[str, bytes]:
    """The files that must not change between runs: cables.csv, netlist.anynet, NetBox CSVs,
    and summary.json without its wall-clock fields."""
    files = {name: (out / name).read_bytes() for name in ("cables.csv", "netlist.anynet")}
    files.update({str(p.relative_to(out)): p.read_bytes()
                  for p in sorted((out / "netbox").glob("*.csv"))})
    summary = json.loads((out / "summary.json").read_text())
    files["summary.json"] = json.dumps(without_runtimes(summary), sort_keys=True).encode()
    return files


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("determinism")
    outs = []
    for k, hash_seed in enumerate(HASH_SEEDS):
        out = base / f"run{k}"
        run_plan(out, hash_seed)
        outs.append(out)
    return outs


def test_the_wall_clock_limit_never_fired(runs):
    for out in runs:
        placement = json.loads((out / "summary.json").read_text())["placement"]
        assert placement["time_capped"] is False
        assert "polish" in placement["stage_seconds"]   # annealing + CP-SAT did run


def test_same_bytes_across_runs_and_hash_seeds(runs):
    first = compared_files(runs[0])
    assert len([n for n in first if n.startswith("netbox/")]) >= 5
    for out in runs[1:]:
        again = compared_files(out)
        assert sorted(again) == sorted(first)
        for name in first:
            assert again[name] == first[name], f"{name} differs in {out.name}"


def test_summary_reports_time_capped_when_the_limit_fires():
    """A limit far below what placement needs cuts it short, and the plan says so."""
    top = slimfly(5)
    placement = place(top, _floor(), strategy="optimize", time_limit_s=1e-4, seed=0)
    assert placement.time_capped is True
    capped = plan(top, "modern-100g", _floor(), placement=placement)
    assert capped.summary["placement"]["time_capped"] is True
    relaxed = plan(top, "modern-100g", _floor(), strategy="hint", time_limit_s=60)
    assert relaxed.summary["placement"]["time_capped"] is False


def _floor():
    from planner.floor import load_floor
    return load_floor("hot-aisle")
