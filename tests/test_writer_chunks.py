"""bom.xlsx and the BookSim netlist stream (issue 24): bom.xlsx's row XML a few rows at a
time within a chunk, netlist.anynet's tokens a few routers at a time and its side table's
labels a few router pairs at a time give the bytes of the files made in one piece."""

from __future__ import annotations

import zipfile

import pytest

from planner.exports import anynet, bom_xlsx
from test_exports_plans import get_plan


@pytest.mark.parametrize("name", ["dragonfly-trunk", "slimfly-hot"])
def test_bom_and_anynet_same_bytes_in_small_pieces(tmp_path, monkeypatch, name):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    plan = get_plan(name)
    whole, pieces = tmp_path / "whole", tmp_path / "pieces"
    whole.mkdir()
    pieces.mkdir()
    for writer in (bom_xlsx, anynet):
        writer.write(plan, whole)
    monkeypatch.setattr(bom_xlsx, "BOM_TEXT_ROWS", 3)
    monkeypatch.setattr(anynet, "GRAPHML_CHUNK_EDGES", 5)
    monkeypatch.setattr(anynet, "ANYNET_BLOCK_ROUTERS", 2)
    for writer in (bom_xlsx, anynet):
        writer.write(plan, pieces)
    pairs = len((whole / anynet.MULTIPLICITY).read_text().splitlines()) - 1
    assert pairs > 2 * 5 and plan.topology.num_routers > 2 * 2   # several pieces of each
    assert len(plan.cables) > 2 * 3
    for name in (bom_xlsx.FILENAME, anynet.NETLIST, anynet.MULTIPLICITY):
        assert (pieces / name).read_bytes() == (whole / name).read_bytes(), name
    with zipfile.ZipFile(pieces / bom_xlsx.FILENAME) as book:   # a readable package
        assert book.testzip() is None
