"""Forked export writers bounded by memory (issue 24, item 2): how many writers the planner
forks at once for given memory figures, the same files whatever that count, ``--writers`` and
the memory refusal that names it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from planner import exports
from planner.cli import main
from planner.exports import tuning
from planner.plan import plan
from planner.run import guards, memory, output
from planner.run.errors import InputError
from planner.topologies import sizing
from test_plan_invariants import without_runtimes

MIB = 2 ** 20


# ----------------------------------------------------------------------------- the count

# (needs in MiB, available MiB or None, cap, expected): the most k <= cap whose k largest fit
COUNTS = [
    ([300, 100, 200], 10_000, 4, 3),      # all fit; cap above the writers' count
    ([300, 100, 200], 10_000, 2, 2),      # the cap (CPUs or --writers) binds
    ([300, 100, 200], 500, 4, 2),         # 300 + 200 fit, + 100 does not
    ([300, 100, 200], 499, 4, 1),         # only the largest fits
    ([300, 100, 200], 299, 4, 0),         # not even one fork: in this process
    ([300, 100, 200], None, 3, 3),        # check off / unknown: the cap
    ([300, 100, 200], 10_000, 0, 0),
    ([], 10_000, 4, 0),
]


@pytest.mark.parametrize("needs, available, cap, expected", COUNTS)
def test_writers_at_once(needs, available, cap, expected):
    given = None if available is None else available * MIB
    assert memory.writers_at_once([n * MIB for n in needs], given, cap) == expected


def test_fork_bytes_adds_the_copied_share_of_the_parent():
    assert memory.fork_bytes(100, 1000) == 100 + int(memory.FORK_COPY_SHARE * 1000)


def _needs(cables: int, parent: int) -> list[int]:
    """What each writer needs when forked, computed here from the tuning table."""
    return sorted((memory.fork_bytes(tuning.WRITER_BASE_BYTES + tuning.WRITER_BYTES_PER_CABLE
                                     .get(name, tuning.WRITER_OTHER_BYTES_PER_CABLE) * cables,
                                     parent)
                   for name, _ in exports.writers()), reverse=True)


CABLES, PARENT = 246_272, 741 * MIB   # the 100K plan of benchmarks/EXPORTS.md
TWO = sum(_needs(CABLES, PARENT)[:2])
THREE = sum(_needs(CABLES, PARENT)[:3])


@pytest.mark.parametrize("setting, cap, expected", [
    (str(THREE), 4, 3), (str(THREE - 1), 4, 2), (str(TWO), 4, 2), (str(TWO - 1), 4, 1),
    ("1M", 4, 0), ("off", 4, 4), (str(THREE), 2, 2), (str(THREE), 1, 1),
])
def test_writers_for_follows_the_memory_override(monkeypatch, setting, cap, expected):
    """``PLANNER_MEMORY_AVAILABLE`` stands for the memory measured once the plan is built."""
    monkeypatch.setenv(memory.ENV, setting)
    fake = SimpleNamespace(cables=range(CABLES))
    assert exports.writers_for(fake, cap, parent=PARENT) == expected


def test_the_largest_writers_go_first():
    order = [name for name, _ in exports.writers(by_cost=True)]
    per_cable = [tuning.WRITER_BYTES_PER_CABLE.get(n, tuning.WRITER_OTHER_BYTES_PER_CABLE)
                 for n in order]
    assert per_cable == sorted(per_cable, reverse=True)
    assert order[:3] == ["wiring_pdf", "labels", "fabric_checkers"]  # labels, bom_xlsx stream (24)


def test_process_bytes_sees_an_allocation():
    before = memory.process_bytes()
    block = bytearray(64 * MIB)
    block[::4096] = b"x" * len(block[::4096])       # touch every page
    after = memory.process_bytes()
    del block
    assert before is not None and after - before >= 60 * MIB


# ----------------------------------------------------------------------------- same files

def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_same_files_whatever_the_count(tmp_path, monkeypatch):
    """Four forked writers at once, and ``--writers 1`` (in this process), write the same
    bytes; the forked run did fork four at a time."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv(memory.ENV, "64G")
    result = plan("slimfly:q=5", "modern-100g", "hot-aisle", strategy="hint")
    seen = []
    forked = output._run_forked

    def spy(writers, folder, jobs, stages):
        seen.append(jobs)
        return forked(writers, folder, jobs, stages)

    monkeypatch.setattr(output, "_run_forked", spy)
    exports.write_plan(result, tmp_path / "forked", jobs=4)
    exports.write_plan(result, tmp_path / "one", jobs=4, max_writers=1)
    assert seen == [4]
    one, many = _files(tmp_path / "one"), _files(tmp_path / "forked")
    assert len(one) > 10 and one.keys() == many.keys()
    assert [name for name in one if one[name] != many[name]] == []


RUNTIME_FILES = ("summary.json", "index.html", "wiring.pdf")
"""Files that show the run's stage times, which differ between two runs."""


def test_writers_one_through_the_command_line(tmp_path, monkeypatch, capsys):
    """From the command line, four forked writers (the count given to small plans here) and
    ``--writers 1`` (in this process) write the same files, stage times aside."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv(memory.ENV, "64G")
    monkeypatch.setattr(exports, "export_jobs", lambda plan: 4)
    seen = []
    forked = output._run_forked
    monkeypatch.setattr(output, "_run_forked",
                        lambda w, f, jobs, s: seen.append(jobs) or forked(w, f, jobs, s))
    args = ["plan", "--topology", "slimfly:q=3", "--strategy", "hint", "--out", "plan"]
    for run, extra in (("default", []), ("one", ["--writers", "1"])):
        (tmp_path / run).mkdir()
        monkeypatch.chdir(tmp_path / run)        # the same --out: pages name the folder
        assert main([*args, *extra]) == 0
    capsys.readouterr()
    assert seen == [4]
    one, many = _files(tmp_path / "one" / "plan"), _files(tmp_path / "default" / "plan")
    assert one.keys() == many.keys()
    assert [n for n in one if one[n] != many[n] and n not in RUNTIME_FILES] == []
    summaries = [without_runtimes(json.loads(f["summary.json"])) for f in (one, many)]
    assert summaries[0] == summaries[1]


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("value, words", [
    ("0", "--writers must be greater than 0, got 0"),
    ("-2", "--writers must be greater than 0"),
    ("65", f"--writers must be less than or equal to {memory.MAX_WRITERS}"),
    ("two", "argument --writers: invalid int value: 'two'"),
])
def test_bad_writers_refused(tmp_path, monkeypatch, capsys, value, words):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(["plan", "--topology", "slimfly:q=3", "--out", "plan", "--writers", value])
    except SystemExit as usage:                  # argparse's own errors exit from parsing
        code = usage.code
    err = capsys.readouterr()
    assert code == 2
    assert words in err.err and err.err.count("\n") == 1 and err.out == ""
    assert list(tmp_path.iterdir()) == []


def test_bad_writers_in_a_spec_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("spec.yaml").write_text("topology: slimfly:q=3\nwriters: 0\n", encoding="utf-8")
    assert main(["plan", "spec.yaml"]) == 2
    err = capsys.readouterr().err
    assert "writers" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.yaml"]


# ----------------------------------------------------------------------------- refusal

SLIMFLY = "slimfly:q=19,p=15"


def _estimate() -> guards.Estimate:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(memory.ENV, "off")
        return sizing.check_topology_spec(SLIMFLY)


def test_estimate_grows_with_the_writers():
    one = _estimate()
    sizes = [dataclasses.replace(one, writers=n).memory_bytes for n in (1, 2, 3)]
    per_fork = memory.BYTES_PER_CABLE_PER_FORK * one.cables
    assert sizes[1] - sizes[0] == per_fork and sizes[2] - sizes[1] == per_fork
    assert memory.estimate_bytes(one.cables, one.ports, memory.MEASURED_WRITERS) == \
        memory.BASE_BYTES + memory.BYTES_PER_CABLE * one.cables + \
        memory.BYTES_PER_PORT * one.ports


@pytest.mark.parametrize("cables, ports, writers, peak_mib", memory.MEASURED_BY_WRITERS)
def test_estimate_covers_the_measured_writer_counts(cables, ports, writers, peak_mib):
    assert memory.estimate_bytes(cables, ports, writers) >= peak_mib * MIB


def test_refusal_names_fewer_writers_when_that_fits(monkeypatch):
    four = dataclasses.replace(_estimate(), writers=4)
    one = dataclasses.replace(four, writers=1)
    monkeypatch.setenv(memory.ENV, str(one.memory_bytes))
    with pytest.raises(InputError, match=r"fewer writers \(--writers 1\)"):
        guards.check(four, "t", True)
    assert guards.check(one, "t", True) is one
    monkeypatch.setenv(memory.ENV, str(one.memory_bytes - 1))
    with pytest.raises(InputError) as refused:
        guards.check(four, "t", True)
    assert "--writers" not in str(refused.value)


def test_command_line_refuses_too_many_writers_up_front(tmp_path, monkeypatch, capsys):
    one = _estimate()
    monkeypatch.setenv(memory.ENV, str(one.memory_bytes))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("planner.topologies.parse_spec", lambda *a: pytest.fail("built"))
    assert main(["plan", "--topology", SLIMFLY, "--writers", "4", "--out", "plan"]) == 2
    err = capsys.readouterr().err
    assert "fewer writers (--writers 1)" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
