"""The export work as tasks (issue 24): forked writers start longest first, a writer that
writes one file per hall is split into one task per file, and none of it changes a byte: the
rich three-hall plan with the per-hall split forced is written the same by one writer in this
process and by several forked ones."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from planner import exports
from planner.exports import labels, tuning, wiring_pdf
from planner.exports.wiring_pdf import cabinets, document
from planner.run import memory, output
from rich_plan import rich_plan


@pytest.fixture(scope="module")
def plan():
    """The rich plan: three halls, patch racks and multi-link assemblies."""
    return rich_plan()


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_split_writers_write_the_same_bytes_in_any_number_of_processes(plan, tmp_path,
                                                                      monkeypatch):
    """Per-hall files forced: the writers whole in this process (``--writers 1``), and split
    in tasks on 2 and 3 forked processes, write the same files, byte for byte."""
    monkeypatch.setattr(document, "PER_HALL_MIN_CABINETS", 0)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setenv(memory.ENV, "off")
    written = {}
    for jobs in (1, 2, 3):
        exports.write_plan(plan, tmp_path / f"jobs{jobs}", jobs=jobs)
        written[jobs] = _files(tmp_path / f"jobs{jobs}")
    halls = sorted(set(plan.cabinets["hall"].astype(int)))
    names = set(written[1])
    assert {f"wiring-hall-{h + 1:02d}.pdf" for h in halls} <= names
    assert {f"labels-hall-{h + 1:02d}.pdf" for h in halls} <= names
    assert labels.PDF_NAME not in names
    for jobs in (2, 3):
        assert written[jobs].keys() == written[1].keys()
        for name in written[1]:
            assert written[jobs][name] == written[1][name], (jobs, name)


def test_parts_write_what_the_whole_writer_writes(plan, tmp_path, monkeypatch):
    """Each split writer's parts, run one by one in a fresh folder each, give the files its
    ``write`` gives, and every file once."""
    monkeypatch.setattr(document, "PER_HALL_MIN_CABINETS", 0)
    for module in (labels, wiring_pdf):
        whole = tmp_path / f"{module.__name__}-whole"
        whole.mkdir()
        module.write(plan, whole)
        files = _files(whole)
        parts = module.parts(plan)
        assert sorted(part.name for part in parts) == sorted(files)
        assert sum(part.weight for part in parts) == pytest.approx(1.0)
        for k, part in enumerate(parts):
            folder = tmp_path / f"{module.__name__}-{k}"
            folder.mkdir()
            part.write(folder)
            assert _files(folder) == {part.name: files[part.name]}


def test_not_split_below_the_threshold(plan):
    """Below ``tuning.PER_HALL_MIN_CABINETS`` cabinets a plan's writers stay whole."""
    assert len(plan.cabinets) <= tuning.PER_HALL_MIN_CABINETS
    assert labels.parts(plan) is None and wiring_pdf.parts(plan) is None
    tasks = exports.export_tasks(plan, exports.writers(), split=True)
    assert [t.writer for t in tasks] == [name for name, _ in exports.writers()]
    assert all(t.part == "" for t in tasks)


def test_tasks_are_estimated_from_the_tuning_table(plan, monkeypatch):
    """A whole writer is estimated at its seconds per cable times the cables; a split
    writer's parts add up to that, wiring.pdf and labels.csv at their shares and each hall at
    its share of the cabinets."""
    monkeypatch.setattr(document, "PER_HALL_MIN_CABINETS", 0)
    cables = len(plan.cables)
    tasks = exports.export_tasks(plan, exports.writers(), split=True)
    by_writer: dict[str, list] = {}
    for task in tasks:
        by_writer.setdefault(task.writer, []).append(task)
    assert set(by_writer) == {name for name, _ in exports.writers()}
    for name, mine in by_writer.items():
        per_cable = tuning.WRITER_SECONDS_PER_CABLE.get(
            name, tuning.WRITER_OTHER_SECONDS_PER_CABLE)
        assert sum(t.seconds for t in mine) == pytest.approx(per_cable * cables), name
    cabinets = np.bincount(plan.cabinets["hall"].astype(int))
    for name, first, share in (("wiring_pdf", "wiring.pdf", tuning.WIRING_OVERVIEW_SHARE),
                               ("labels", "labels.csv", tuning.LABELS_CSV_SHARE)):
        whole = tuning.WRITER_SECONDS_PER_CABLE[name] * cables
        parts = {t.part: t.seconds for t in by_writer[name]}
        assert parts.pop(first) == pytest.approx(share * whole)
        stem = first.split(".")[0]
        for hall, count in enumerate(cabinets):
            assert parts[f"{stem}-hall-{hall + 1:02d}.pdf"] == pytest.approx(
                (1 - share) * whole * count / cabinets.sum())


def test_forked_tasks_start_longest_first():
    """Longest processing time first; ties keep the given order."""
    tasks = [output.Task(name, print, seconds=s)
             for name, s in (("a", 1.0), ("b", 5.0), ("c", 1.0), ("d", 3.0), ("e", 0.0))]
    assert [t.writer for t in output.start_order(tasks)] == ["b", "d", "a", "c", "e"]


GIB = 2 ** 30


@pytest.mark.parametrize("pending, running, budget, chosen", [
    ([("big", 3), ("small", 1)], [], 2.5, "big"),            # nothing running: the first
    ([("big", 3), ("small", 1)], [("other", 1)], 2.5, "small"),  # the first that fits
    ([("big", 2), ("mid", 1.5)], [("other", 1)], 2.5, "mid"),
    ([("big", 2), ("mid", 1.5)], [("other", 1.5)], 2.5, None),   # none fits: wait
    ([("a", 1), ("b", 1)], [("c", 0.5), ("d", 0.5)], 2.0, "a"),  # every running one counts
    ([], [], 2.5, None),
])
def test_the_next_task_is_the_first_that_fits_beside_the_running(pending, running, budget,
                                                                 chosen):
    def tasks(pairs):
        return [output.Task(name, print, memory=int(gib * GIB)) for name, gib in pairs]
    task = output.next_task(tasks(pending), tasks(running), budget * GIB)
    assert (task.writer if task else None) == chosen


def test_large_forked_tasks_never_run_together(tmp_path):
    """Two tasks estimated at 2 GiB each (the budget: 1.25 x 2 = 2.5 GiB) run one after the
    other, each beside the small ones; small ones run two at a time. Every task notes when it
    ran (``time.monotonic`` is system-wide, so forked processes' times compare)."""
    import time

    def note(d, name):
        start = time.monotonic()
        time.sleep(0.3)
        (Path(d) / f"{name}.txt").write_text(f"{start} {time.monotonic()}")

    sizes = {"big1": 2 * GIB, "big2": 2 * GIB, "s1": GIB // 4, "s2": GIB // 4,
             "s3": GIB // 4, "s4": GIB // 4}
    tasks = [output.Task(name, lambda d, name=name: note(d, name), seconds=size, memory=size)
             for name, size in sizes.items()]
    output.write_folder(tmp_path / "out", tasks, jobs=2)
    spans = {name: tuple(map(float, (tmp_path / "out" / f"{name}.txt").read_text().split()))
             for name in sizes}

    def overlap(a, b):
        return spans[a][0] < spans[b][1] and spans[b][0] < spans[a][1]
    assert not overlap("big1", "big2")
    beside_big = [s for s in ("s1", "s2", "s3", "s4") if overlap(s, "big1") or overlap(s, "big2")]
    assert beside_big, "small tasks ran beside the large ones"


def test_each_task_carries_its_estimated_memory(plan, monkeypatch):
    """Whole writers at ``tuning.FORK_BYTES_PER_CABLE``, a hall's part at
    ``HALL_PART_FORK_BYTES_PER_CABLE``, the whole-plan part (wiring.pdf, labels.csv) at its
    writer's."""
    monkeypatch.setattr(document, "PER_HALL_MIN_CABINETS", 0)
    cables = len(plan.cables)
    tasks = exports.export_tasks(plan, exports.writers(), split=True)
    for task in tasks:
        if task.part and "-hall-" in task.part:
            want = tuning.HALL_PART_FORK_BYTES_PER_CABLE[task.writer] * cables
        else:
            want = tuning.FORK_BYTES_PER_CABLE.get(task.writer,
                                                   tuning.FORK_OTHER_BYTES_PER_CABLE) * cables
        assert task.memory == want, task
    assert {t.writer for t in tasks if "-hall-" in t.part} == {"wiring_pdf", "labels"}


def _parts_sharing(prepared: list):
    """Writer ``w`` in three parts sharing one ``prepare`` (it records the process that made
    it); writer ``x`` whole. Each part writes the process its shared value came from."""
    def prepare():
        if not prepared:
            prepared.append(os.getpid())
        return prepared[0]

    def part(folder: Path, k: int) -> None:
        (Path(folder) / f"w{k}.txt").write_text(str(prepare()))

    return [output.Task("w", lambda d, k=k: part(d, k), f"w{k}", prepare, seconds=k)
            for k in range(3)] + [
        output.Task("x", lambda d: (Path(d) / "x.txt").write_text("x"), seconds=10)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_parts_share_what_this_process_prepared_and_report_once(tmp_path, capsys, jobs):
    """``prepare`` runs once, in the planner's process (forked parts inherit its result);
    the split writer gets one progress line, like a whole one."""
    prepared: list = []
    files = output.write_folder(tmp_path / "out", _parts_sharing(prepared), progress="lines",
                                jobs=jobs)
    assert files == ["w0.txt", "w1.txt", "w2.txt", "x.txt"]
    assert prepared == [os.getpid()]
    for k in range(3):
        assert (tmp_path / "out" / f"w{k}.txt").read_text() == str(os.getpid())
    lines = [line for line in capsys.readouterr().out.splitlines() if " done" in line]
    assert sorted(line.split(" done")[0] for line in lines) == ["exports: w", "exports: x"]


def test_a_part_that_dies_is_named_with_its_writer(tmp_path):
    """A forked part that ends without a word is reported with its writer and part, and
    nothing is written."""
    tasks = [output.Task("w", lambda d: (Path(d) / "a.txt").write_text("a"), "a.txt"),
             output.Task("w", lambda d: os._exit(3), "hall-02.pdf")]
    with pytest.raises(RuntimeError, match=r"export writer 'w' \(hall-02.pdf\) died "
                                           r"\(exit code 3\)"):
        output.write_folder(tmp_path / "out", tasks, jobs=2)
    assert list(tmp_path.iterdir()) == []


def test_ends_of_some_places_through_the_index_are_the_pieces_own(plan):
    """``cabinets.place_ends``: the frame ``Pieces.ends(places)`` gives, for one hall's
    cabinets with two patch racks, for a place that has no ends, and for none."""
    hall = set(plan.cabinets.loc[plan.cabinets["hall"] == 1, "name"].astype(str))
    racks = set(plan.structured.racks["name"].astype(str)[:2])
    for places in (hall | racks, {"no-such-cabinet"}, hall, set()):
        pd.testing.assert_frame_equal(cabinets.place_ends(plan, places),
                                      plan.pieces.ends(places))
    assert len(cabinets.place_ends(plan, hall | racks)) > 0
