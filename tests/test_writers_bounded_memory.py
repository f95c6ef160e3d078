"""Writers whose memory stays bounded on large plans (issue 24): wiring.pdf compresses each page
as it is drawn and builds a split plan's sheets one hall at a time, laid out as the whole plan's;
the NetBox bundle writes devices.csv and cables.csv a chunk at a time. None of it may change a
byte or a cell."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from planner.exports import netbox
from planner.exports.wiring_pdf import cabinets, document, patch_racks
from rich_plan import rich_plan
from test_exports_plans import get_plan


@pytest.fixture(scope="module")
def plan():
    """The rich plan: three halls, patch racks and multi-link assemblies."""
    return rich_plan()


def _halls(plan):
    return document.hall_sheets(plan, sorted(int(h) for h in plan.cabinets["hall"].unique()))


def test_piece_ends_of_some_places_are_those_rows_of_all_ends(plan):
    """``Pieces.ends(places)``: the rows of ``ends()`` whose end is in those places, in order."""
    every = plan.pieces.ends()
    places = set(plan.cabinets.loc[plan.cabinets["hall"] == 1, "name"].astype(str))
    places |= set(plan.structured.racks["name"].astype(str)[:2])
    some = plan.pieces.ends(places)
    expected = every[every["this_place"].isin(places)].reset_index(drop=True)
    assert 0 < len(some) < len(every)
    pd.testing.assert_frame_equal(some, expected)


def test_hall_sheets_hold_the_whole_plans_cells_and_layout(plan):
    """Each hall's cabinet and patch-rack sheets, built from that hall's ends alone, have the
    sections, table cells, column widths and type size of the whole plan's sheets of the same
    cabinets and racks."""
    whole = {s.key: s for s in cabinets.cabinet_sections(plan)
             + patch_racks.patch_rack_sections(plan)}
    seen = set()
    assert any(len(whole[k].blocks) > 2 for k in whole if k.startswith("rack-"))
    for hall in _halls(plan):
        for _, sections in document.sheet_groups(plan, hall):
            for section in sections:
                mine, theirs = section.blocks[1:], whole[section.key].blocks[1:]
                assert len(mine) == len(theirs), section.key
                for a, b in zip(mine, theirs):
                    assert (a.rows, a.widths, a.size, a.leading) == (b.rows, b.widths, b.size,
                                                                     b.leading)
                    for x, y in zip(a.cells(), b.cells()):
                        assert list(x) == list(y), section.key
                seen.add(section.key)
    assert seen == set(whole)


def test_layout_made_chunk_by_chunk_is_the_whole_tables(plan, monkeypatch):
    """The survey made 2 cabinets (racks) at a time gives the natural widths of the whole
    plan's table at once and every cabinet's (rack's) rows."""
    monkeypatch.setattr(cabinets, "WIRING_CHUNK_SHEETS", 2)
    layout = _halls(plan)[0].layout
    for (natural, rows), (table, spans) in ((layout.schedule, cabinets.schedule_table(plan)),
                                            (layout.ports, patch_racks.port_table(plan))):
        assert natural == table.natural_widths()
        assert {k: v for k, v in rows.items() if v} == {
            k: hi - lo for k, (lo, hi) in spans.items() if hi > lo}
        assert sum(rows.values()) == table.rows > 0


def test_small_chunks_give_the_same_file(plan, tmp_path, monkeypatch):
    """wiring.pdf with its schedules made 2 cabinets (racks) at a time is the file made with
    them all at once."""
    from planner.exports import wiring_pdf

    one, small = tmp_path / "one", tmp_path / "small"
    one.mkdir()
    small.mkdir()
    monkeypatch.setattr(cabinets, "WIRING_CHUNK_SHEETS", 10 ** 9)
    wiring_pdf.write(plan, one)
    monkeypatch.setattr(cabinets, "WIRING_CHUNK_SHEETS", 2)
    wiring_pdf.write(plan, small)
    assert (small / "wiring.pdf").read_bytes() == (one / "wiring.pdf").read_bytes()


def test_pages_compressed_as_drawn_give_the_same_file(plan, tmp_path, monkeypatch):
    """wiring.pdf with every page compressed when it is closed (``seal_page``) is the file
    reportlab writes when it compresses them all at ``save``."""
    from planner.exports import wiring_pdf

    sealed, plain = tmp_path / "sealed", tmp_path / "plain"
    sealed.mkdir()
    plain.mkdir()
    wiring_pdf.write(plan, sealed)
    monkeypatch.setattr(document, "seal_page", lambda canvas: None)
    wiring_pdf.write(plan, plain)
    assert (sealed / "wiring.pdf").read_bytes() == (plain / "wiring.pdf").read_bytes()


@pytest.mark.parametrize("name", ["dragonfly-trunk", "slimfly-hot"])
def test_netbox_csvs_same_bytes_in_small_chunks(tmp_path, monkeypatch, name):
    """devices.csv and cables.csv written 7 rows at a time are the files written in one chunk,
    and cables.csv has a row per cable not through panels, two cords per link through panels,
    a row per trunk and per management cord."""
    plan = get_plan(name)
    whole, chunked = tmp_path / "whole", tmp_path / "chunked"
    whole.mkdir()
    chunked.mkdir()
    monkeypatch.setattr(netbox, "CSV_CHUNK_ROWS", 10 ** 9)
    netbox.write(plan, whole)
    monkeypatch.setattr(netbox, "CSV_CHUNK_ROWS", 7)
    netbox.write(plan, chunked)
    for file in ("devices.csv", "cables.csv"):
        assert ((chunked / netbox.FOLDER / file).read_bytes()
                == (whole / netbox.FOLDER / file).read_bytes()), file
    rows = pd.read_csv(whole / netbox.FOLDER / "cables.csv", keep_default_na=False)
    links = 0 if plan.structured is None else len(plan.structured.links)
    trunks = 0 if plan.structured is None else len(plan.structured.trunks)
    cords = 0 if getattr(plan, "fabric", None) is None else len(plan.fabric.cords)
    assert len(rows) == len(plan.cables) - links + 2 * links + trunks + cords
    devices = pd.read_csv(whole / netbox.FOLDER / "devices.csv", keep_default_na=False)
    assert np.array_equal(devices["name"].to_numpy(object)[:len(plan.devices)],
                          plan.devices["name"].astype(str).to_numpy(object))
