"""Writers that stream (issue 24): the CSV files and the label sheets are made and written a chunk
at a time, and the bytes do not depend on the chunk size; on a plan past
``tuning.PER_HALL_MIN_CABINETS`` cabinets wiring.pdf and labels.pdf are split per hall, each
hall's file holding exactly that hall's sheets and labels."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest
from pypdf import PdfReader

from planner.exports import _csv, cables_csv, dot, fabric_checkers, graphml, labels
from planner.exports.wiring_pdf import document
from rich_plan import rich_plan
from test_exports_plans import get_plan


def test_csv_chunks_give_the_bytes_of_one_piece():
    """A table with a quoted field, a line break (the ``csv`` module's path) and a formula in
    different chunks: written 2 rows at a time it is the text of the whole table at once."""
    frame = pd.DataFrame({"a": ["x", "y,z", "p", "=1+2", "line\nbreak", "q", "r"],
                          "b": [1.5, 2.0, float("nan"), 4.25, 5.0, 6.0, 7.0],
                          "c": [1, 2, 3, 4, 5, 6, 7]})
    whole = _csv.csv_text(frame)
    for size in (1, 2, 3, 7, 50):
        buffer = io.StringIO()
        _csv.write_rows(buffer, frame, chunk_rows=size)
        assert buffer.getvalue() == whole, size
    buffer = io.StringIO()
    _csv.write_rows(buffer, frame.iloc[:0])
    assert buffer.getvalue() == "a,b,c\n"


@pytest.mark.parametrize("name", ["dragonfly-trunk", "slimfly-hot"])
def test_writers_same_bytes_in_small_chunks(tmp_path, monkeypatch, name):
    """cables.csv, topology.dot and .graphml, the UFM cabling plan and ibdiagnet.topo 7 rows
    at a time and the labels one sheet at a time: the files written in one chunk."""
    plan = get_plan(name)
    whole, chunked = tmp_path / "whole", tmp_path / "chunked"
    whole.mkdir()
    chunked.mkdir()
    writers = (cables_csv, dot, fabric_checkers, graphml, labels)
    for writer in writers:
        writer.write(plan, whole)
    for writer in (cables_csv, dot, fabric_checkers):
        monkeypatch.setattr(writer, "CSV_CHUNK_ROWS", 7)
    monkeypatch.setattr(graphml, "GRAPHML_CHUNK_EDGES", 7)
    monkeypatch.setattr(labels, "LABEL_CHUNK_PAGES", 1)
    for writer in writers:
        writer.write(plan, chunked)
    rows = len(pd.read_csv(whole / labels.CSV_NAME, encoding="utf-8-sig"))
    assert rows > 2 * 65       # more than one sheet of labels: several chunks
    checkers = [f"{fabric_checkers.NDT_FOLDER}/{n}" for n in fabric_checkers.NDT_FILES.values()]
    for name in (cables_csv.FILENAME, dot.FILENAME, graphml.FILENAME, labels.CSV_NAME,
                 labels.PDF_NAME, fabric_checkers.TOPO_FILE, *checkers):
        assert (chunked / name).read_bytes() == (whole / name).read_bytes(), name


def _text(path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def test_wiring_and_labels_split_per_hall(tmp_path, monkeypatch):
    """The rich plan (three halls, patch racks) with the split forced: wiring.pdf keeps the
    summary, floor and schedules but no cabinet sheet; each wiring-hall-NN.pdf has the sheets of
    exactly the cabinets and patch racks of its hall; the labels-hall-NN.pdf hold every label of
    labels.csv once, each in the hall of the end it goes on."""
    plan = rich_plan()
    from planner.exports import wiring_pdf
    halls = document.place_halls(plan)
    assert len(set(plan.cabinets["hall"])) == 3
    small = tmp_path / "whole"
    small.mkdir()
    labels.write(plan, small)
    assert document.hall_files(plan, "wiring") is None    # below the threshold: one file each
    monkeypatch.setattr(document, "PER_HALL_MIN_CABINETS", 0)
    wiring_pdf.write(plan, tmp_path)
    labels.write(plan, tmp_path)
    assert not (tmp_path / labels.PDF_NAME).exists()
    assert (tmp_path / labels.CSV_NAME).read_bytes() == (small / labels.CSV_NAME).read_bytes()
    overview = _text(tmp_path / "wiring.pdf")
    assert "wiring-hall-01.pdf to wiring-hall-03.pdf" in overview
    assert "Bill of materials" in overview
    assert not re.search(r"Cabinet \S+-A01", overview)
    sheet_titles = {}
    for hall in range(3):
        text = _text(tmp_path / f"wiring-hall-{hall + 1:02d}.pdf")
        sheet_titles[hall] = set(re.findall(r"(?:Cabinet|Patch rack) (\S+)", text))
        expected = {name for name, h in halls.items() if h == hall}
        assert expected <= sheet_titles[hall], hall
        assert {n for n in sheet_titles[hall] if n in halls} == expected, hall
    rows = pd.read_csv(tmp_path / labels.CSV_NAME, encoding="utf-8-sig", dtype=str,
                       keep_default_na=False)
    printed = 0
    for hall in range(3):
        reader = PdfReader(tmp_path / f"labels-hall-{hall + 1:02d}.pdf")
        text = "\n".join(page.extract_text() for page in reader.pages)
        ids = re.findall(r"#(\S+)  ", text)
        mine = rows[rows["this_cabinet"].map(halls) == hall]
        assert sorted(ids) == sorted(mine["cable_id"]), hall
        printed += len(ids)
    assert printed == len(rows)
