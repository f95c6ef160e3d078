"""``planner compare --outputs summary``: each plan folder holds summary.json and bom.xlsx only,
the same bytes as in a sweep writing every output, and the table and reports are the same."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from planner import compare as cmp
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.run import output
from planner.run.errors import InputError
from test_compare import _run
from test_determinism import without_runtimes

DESIGNS = ["--topology", "dragonfly:h=2", "--topology", "slimfly:q=5"]
COMMON = ["--strategy", "hint", "--time-limit", "5", "--seed", "2", "--jobs", "1"]
FOLDERS = ["dragonfly-h2", "slimfly-q5"]


def _sheets(path: Path) -> dict[str, list[tuple]]:
    """Every cell of every sheet of a workbook, as openpyxl reads them."""
    book = openpyxl.load_workbook(path)
    return {ws.title: [tuple(r) for r in ws.iter_rows(values_only=True)] for ws in book}


def _printed_table(text: str) -> list[str]:
    """The title and table printed (not the progress lines with their times, nor the paths)."""
    return [ln for ln in text.splitlines() if not ln.startswith(("compare: ", "wrote "))]


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    """The same sweep with every output and with ``--outputs summary`` (fixed timestamps)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SOURCE_DATE_EPOCH", "1700000000")
    try:
        outs = {}
        for outputs in ("all", "summary"):
            out = tmp_path_factory.mktemp(outputs)
            code, text = _run(["compare", *DESIGNS, *COMMON, "--outputs", outputs, "--out",
                               str(out)])
            assert code == 0
            outs[outputs] = out, text
        yield outs
    finally:
        mp.undo()


def test_summary_folders_hold_summary_json_and_bom_xlsx_only(sweeps):
    out, _ = sweeps["summary"]
    assert sorted(p.name for p in out.iterdir()) == sorted(["compare.pdf", "compare.xlsx",
                                                            *FOLDERS])
    for folder in FOLDERS:
        names = sorted(p.name for p in (out / folder).iterdir())
        assert names == sorted([output.MANIFEST, "bom.xlsx", "summary.json"])
        assert (out / folder / output.MANIFEST).read_text() == "bom.xlsx\nsummary.json\n"


def test_summary_files_equal_those_of_a_sweep_writing_everything(sweeps):
    full, _ = sweeps["all"]
    short, _ = sweeps["summary"]
    for folder in FOLDERS:
        assert len(list((full / folder).iterdir())) > 10       # wiring.pdf, netlists, NetBox...
        boms = [(out / folder / "bom.xlsx").read_bytes() for out in (full, short)]
        assert boms[1] == boms[0]
        summaries = [json.loads((out / folder / "summary.json").read_text())
                     for out in (full, short)]
        assert without_runtimes(summaries[1]) == without_runtimes(summaries[0])


def test_the_table_is_the_same_cell_for_cell(sweeps):
    (full, text_full), (short, text_short) = sweeps["all"], sweeps["summary"]
    assert _sheets(short / "compare.xlsx") == _sheets(full / "compare.xlsx")
    assert _printed_table(text_short) == _printed_table(text_full)
    assert len(_sheets(full / "compare.xlsx")["Comparison"]) == 2 + len(FOLDERS)


def test_an_unknown_outputs_set_is_refused(tmp_path, capsys):
    code = None
    try:
        _run(["compare", *DESIGNS, *COMMON, "--outputs", "pdf", "--out", str(tmp_path / "o")])
    except SystemExit as stop:                       # argparse: one line, exit 2
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--outputs" in err and "'summary'" in err
    with pytest.raises(InputError, match=r"--outputs 'pdf' is not one of all, summary"):
        cmp.compare([cmp.Configuration.parse("slimfly:q=5")], load_catalog("modern-100g"),
                    load_floor("hot-aisle"), out_dir=tmp_path / "o", outputs="pdf")
    assert not (tmp_path / "o").exists()
