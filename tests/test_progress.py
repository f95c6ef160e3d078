"""Fast start and progress reports (issue 12, item 6).

``planner --help`` and ``planner topology`` must not import pandas, SciPy, numba or OR-Tools
(checked in a fresh interpreter). A plan whose stdout is a log prints one line per finished
stage with its counts and elapsed time, placement's own stages included; on a terminal (a
pseudo-terminal here) it draws a tqdm bar instead and prints no such lines.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from planner.exports import writers
from planner.run import progress

HEAVY = ("pandas", "scipy", "numba", "ortools")
LINE = re.compile(r"^(plan|exports): ([\w/]+) done(?:: (.*))? \((\d+\.\d) s\)$")


def _modules_after(argv: list[str]) -> set[str]:
    """The heavy top-level modules loaded after ``planner ARGV`` ran in a fresh interpreter."""
    script = ("import sys\nfrom planner.cli import main\ntry:\n    main(sys.argv[1:])\n"
              "except SystemExit:\n    pass\n"
              f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True,
                          timeout=300)
    return set(done.stderr.strip().splitlines()[-1].split()) if done.stderr.strip() else set()


@pytest.mark.parametrize("argv", [["--help"], ["plan", "--help"], ["verify", "--help"],
                                  ["compare", "--help"],
                                  ["topology", "slimfly", "q=5"],
                                  ["topology", "slimfly:q=7,p=4", "--json"],
                                  ["topology", "fattree", "k=8", "--json"]])
def test_light_commands_do_not_import_heavy_libraries(argv):
    assert _modules_after(argv) == set()


def test_the_check_sees_heavy_imports(tmp_path):
    """The probe above is not blind: a plan loads them."""
    assert {"pandas", "scipy"} <= _modules_after(
        ["plan", "--topology", "slimfly:q=3", "--strategy", "hint", "--out", str(tmp_path / "p")])


def _plan_log(tmp_path: Path, *extra: str) -> tuple[list[str], Path]:
    out = tmp_path / "plan"
    done = subprocess.run([sys.executable, "-m", "planner.cli", "plan", "--topology",
                           "slimfly:q=5", "--out", str(out), *extra], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout.splitlines(), out


def test_a_log_gets_one_line_per_stage_with_counts(tmp_path):
    lines, out = _plan_log(tmp_path, "--strategy", "partition")
    notes = [line for line in lines if line.startswith("note: ")]   # sizes chosen for the user
    lines = [line for line in lines if not line.startswith("note: ")]
    stages = [m.groups() for m in map(LINE.match, lines) if m]
    names = [(what, name) for what, name, _, _ in stages]
    placement = [name.split("/")[1] for what, name in names if name.startswith("placement/")]
    # a reach floor (hot-aisle) bounds the copper cables and dollars of the placed layout
    assert placement == ["hint", "partition", "cabinets", "floor", "bounds", "verify"]
    assert [name for what, name in names if what == "plan" and "/" not in name] == [
        "placement", "cabling", "performance", "costing", "summary"]
    assert sorted(name for what, name in names if what == "exports") == sorted(
        name for name, _ in writers())
    detail = {name: text for what, name, text, _ in stages if what == "plan"}
    with open(out / "cables.csv", newline="", encoding="utf-8") as fh:
        cables = sum(1 for r in csv.DictReader(fh) if r["kind"] != "mgmt")
    assert detail["cabling"] == f"{cables:,} cables"
    copper, most, dollars, cabinets = re.fullmatch(
        r"([\d,]+) copper links \(at most ([\d,]+)\), cables \$([\d,.]+); ([\d,]+) cabinets",
        detail["placement"]).groups()
    summary = json.loads((out / "summary.json").read_text())
    assert int(copper.replace(",", "")) == summary["placement"]["copper"]
    assert int(most.replace(",", "")) == summary["placement"]["copper_upper_bound"]
    assert float(dollars.replace(",", "")) == summary["placement"]["cable_cost"]
    assert int(cabinets.replace(",", "")) == summary["placement"]["cabinets"]
    theta = float(re.fullmatch(r"uniform throughput θ ([\d.e+-]+)", detail["performance"])[1])
    assert theta == pytest.approx(summary["performance"]["uniform"]["theta"], rel=1e-3)
    # the stage lines come first, then the summary table
    assert all(LINE.match(line) for line in lines[:len(stages)])
    assert lines[len(stages)].startswith("topology")


def test_optimize_reports_its_polish_stage(tmp_path):
    lines, _ = _plan_log(tmp_path, "--strategy", "optimize", "--time-limit", "2")
    assert any(line.startswith("plan: placement/polish done (") for line in lines)


def test_a_terminal_gets_a_bar_and_no_log_lines(tmp_path):
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "planner.cli", "plan", "--topology",
                             "slimfly:q=5", "--strategy", "hint", "--out",
                             str(tmp_path / "plan")], stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:                 # the terminal closed when the planner exited
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=600) == 0
    text = b"".join(chunks).decode("utf-8", "replace")
    assert "plan: placement" in text and "exports:" in text        # the bar's descriptions
    assert "\r" in text                                            # redrawn in place
    assert not any(LINE.match(line.strip()) for line in text.splitlines())
    assert "cost" in text                                          # the summary table


def test_stages_in_lines_mode(capsys):
    with progress.Stages("plan", ["a", "b"], progress.LINES) as stages:
        with stages.run("a", lambda: "3 things"):
            stages.note("inner", 0.04)
        stages.done("b", 1.25)
    assert capsys.readouterr().out.splitlines() == [
        "plan: a/inner done (0.0 s)", f"plan: a done: 3 things ({stages.seconds['a']:.1f} s)",
        "plan: b done (1.2 s)"]
    assert set(stages.seconds) == {"a", "b"}


def test_off_prints_nothing_and_still_times(capsys):
    with progress.Stages("plan", ["a"], None) as stages:
        with stages.run("a"):
            pass
    counter = progress.Counter("compare", "plans", 2, None)
    counter.update(1)
    counter.close()
    assert capsys.readouterr() == ("", "")
    assert "a" in stages.seconds


def test_counter_lines(capsys):
    counter = progress.Counter("compare", "plans", 3, progress.LINES)
    counter.update(1)
    counter.update(1)
    lines = capsys.readouterr().out.splitlines()
    assert [re.sub(r"\(\d+\.\d s\)", "(t)", line) for line in lines] == [
        "compare: 1/3 plans done (t)", "compare: 2/3 plans done (t)"]


def test_auto_follows_the_streams(monkeypatch):
    class Stream(io.StringIO):
        def __init__(self, tty):
            super().__init__()
            self.tty = tty

        def isatty(self):
            return self.tty

    for out_tty, err_tty, mode in [(False, True, progress.LINES), (False, False, progress.LINES),
                                   (True, True, progress.BAR), (True, False, None)]:
        monkeypatch.setattr(sys, "stdout", Stream(out_tty))
        monkeypatch.setattr(sys, "stderr", Stream(err_tty))
        assert progress.auto() == mode
