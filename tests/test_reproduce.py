"""examples/reproduce.py regenerates the published ~10K-node rows within tolerance."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "reproduce.py"


@pytest.fixture(scope="module")
def reproduce():
    spec = importlib.util.spec_from_file_location("reproduce", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["reproduce"] = module          # dataclasses resolve annotations through it
    saved = dict(os.environ)                   # the script pins BLAS threads for its own run
    spec.loader.exec_module(module)
    os.environ.clear()
    os.environ.update(saved)
    return module


@pytest.fixture(scope="module")
def run_10k():
    return subprocess.run([sys.executable, str(SCRIPT), "--rows", "10k", "--time-limit", "1"],
                          capture_output=True, text=True, timeout=600)


def _printed_lines(out: str, name: str) -> list[tuple[str, list[str]]]:
    """(row header, cells) of every printed ``name`` line: number, published, planner, diff,
    tol, status, optimised, saved."""
    found, head = [], ""
    for line in out.splitlines():
        if not line.startswith(" "):
            head = line
        elif line.strip().startswith(name + "  "):
            found.append((head, re.split(r"\s{2,}", line.strip())))
    return found


def _value(cell: str) -> float:
    return float(cell.replace(",", "").replace("+", ""))


def test_10k_rows_reproduce_within_tolerance(run_10k):
    proc = run_10k
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert "MISS" not in out
    summary = next(line for line in out.splitlines() if line.startswith("summary:"))
    assert " 0 missed" in summary
    # every Projective Networks Table 4 and ~10K Table 6 row, and the SF case study 10K table
    for label in ("Hamming K22^2", "demi-PN q=27", "Slim Fly MMS q=19", "PN q=23",
                  "Dragonfly h=7", "MLFM 22", "OFT 16", "Fat tree k=35", "Random"):
        assert f"| {label} (" in out
    # the regenerated hand layouts give the printed cable counts exactly
    assert "published hand layout" in out and "from the printed E/O counts" in out


def test_optimised_column_shows_what_it_saves(run_10k):
    out = run_10k.stdout
    optical = _printed_lines(out, "optical cables")
    cost = _printed_lines(out, "$/endpoint")
    assert len(optical) == len(cost) == 7          # PN Table 4 (5 rows) and Table 6 ~10K (2)
    for (head, cells), (_, money) in zip(optical, cost):
        published, planner, optimised, saved = (cells[1], cells[2], cells[-2], cells[-1])
        assert _value(saved) == _value(published) - _value(optimised), head
        assert _value(money[-1]) == pytest.approx(_value(money[1]) - _value(money[-2]),
                                                  abs=0.011), head
        if planner != "-":                          # a regenerated hand layout: never worse
            assert _value(optimised) <= _value(planner), head
    # Table 6 prices every cable optical; the optimised layout uses copper inside groups
    mlfm = next(cells for head, cells in optical if "MLFM 22" in head)
    assert _value(mlfm[-1]) > 0


def test_a_miss_makes_the_script_exit_non_zero(reproduce, capsys, monkeypatch):
    rows = [r for r in reproduce.ROWS if r.source == "Galaxyfly Table 3"][:2]
    monkeypatch.setattr(reproduce, "ROWS", tuple(rows))
    assert reproduce.main(["--rows", "30k", "--jobs", "1"]) == 0
    assert " 0 missed" in capsys.readouterr().out
    shifted = (rows[0], dataclasses.replace(rows[1], power=rows[1].power + 0.06))
    monkeypatch.setattr(reproduce, "ROWS", shifted)
    assert reproduce.main(["--rows", "30k", "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert " 1 missed" in out and f"MISS Galaxyfly Table 3 {rows[1].label}: W/endpoint" in out


def _row(module, source, label):
    return next(r for r in module.ROWS if r.source == source and r.label == label)


@pytest.mark.parametrize("field, delta, missed", [
    ("cost", 0.04, False),      # inside $0.05
    ("cost", 0.07, True),       # outside $0.05
    ("power", 0.02, True),      # outside 0.01 W
    ("routers", 1, True),       # counts are exact
])
def test_a_number_off_by_more_than_its_tolerance_is_a_miss(reproduce, field, delta, missed):
    row = _row(reproduce, "PN Table 4", "Slim Fly MMS q=19")
    shifted = dataclasses.replace(row, **{field: getattr(row, field) + delta})
    lines, _ = reproduce.evaluate(shifted, optimise=False, time_limit=5)
    statuses = {ln.name: ln.status for ln in lines}
    name = {"cost": "$/endpoint", "power": "W/endpoint", "routers": "routers"}[field]
    assert statuses[name] == ("MISS" if missed else "ok")
    assert sum(s == "MISS" for s in statuses.values()) == int(missed)


def test_published_inconsistencies_are_shown_not_counted(reproduce):
    row = _row(reproduce, "SF case study", "Slim Fly q=19")
    lines, _ = reproduce.evaluate(row, optimise=False, time_limit=5)
    by = {ln.name: ln for ln in lines}
    assert (by["radix"].published, by["radix"].planner, by["radix"].status) == (43, 44, "n/c")
    assert by["W/endpoint"].planner == pytest.approx(2.8 * 44 * 722 / 10830, abs=1e-3)
    assert by["endpoints"].status == by["routers"].status == "ok"
