"""Existing rooms (issue 25 item 1): positions a floor marks blocked, occupied or reserved
(``hall.positions``) hold no cabinet and no patch rack, every other position keeps its routes,
and cabinets.csv, the floor plan and the viewer show them."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
import yaml

from planner.exports import cabinets_csv, cables_csv
from planner.exports.viewer.geometry import floor_geometry
from planner.exports.wiring_pdf.floor_plans import floor_section
from planner.inputs.floor import load_floor, marked_positions, room_of, slot_layout
from planner.inputs.floor.routes import route_length_m
from planner.plan import plan
from planner.run.errors import InputError
from planner.topologies.slimfly import slimfly

HALL = {"rows": 4, "cabinets_per_row": 12, "end_aisle_m": 1.2, "cross_tray_every": 4,
        "count": 1, "link_m": 40, "links": "meet-me"}
"""A fixed hall of hot-aisle cabinets: 4 rows x 12, a cross tray every 4 cabinets (so with
structured cabling column c, from 0, stands at x = (c + c // 4) x 0.6 m; row r at y = r x
2.4 m)."""


def floor_file(tmp_path, positions=(), name="marked", **hall):
    """A hot-aisle floor of ``HALL`` (changed by ``hall``) with these marked positions."""
    data = {"extends": "hot-aisle", "name": name,
            "hall": dict(HALL, **hall, positions=list(positions))}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def cells(table) -> set[tuple[int, int, int]]:
    return set(zip(table["hall"].tolist(), table["row"].tolist(), table["col"].tolist()))


# ----------------------------------------------------------------------------- resolution

@pytest.mark.parametrize("mark, expected", [
    # by row and column, as cabinets.csv numbers them
    ({"row": "B", "column": 3}, {(0, 1, 2)}),
    ({"row": "D", "column": 12}, {(0, 3, 11)}),
    # a 1.0 x 1.0 m column centred between A01 (x 0) and A02 (x 0.6): both footprints
    ({"x_m": 0.3, "y_m": 0.0, "width_m": 1.0, "depth_m": 1.0}, {(0, 0, 0), (0, 0, 1)}),
    # a rectangle that only touches A02's footprint (from x 0.3) takes A01 alone
    ({"x_m": 0.0, "y_m": 0.0, "width_m": 0.6, "depth_m": 1.0}, {(0, 0, 0)}),
    # 2 m deep across the aisle between rows A (y 0) and B (y 2.4), at column 5 (x 3.0, past
    # the rack gap of the cross tray between columns 4 and 5)
    ({"x_m": 3.0, "y_m": 1.2, "width_m": 0.2, "depth_m": 2.0}, {(0, 0, 4), (0, 1, 4)}),
    # every hall when none is given, the named ones otherwise
    ({"row": "A", "column": 1, "count": 3}, {(0, 0, 0), (1, 0, 0), (2, 0, 0)}),
    ({"row": "A", "column": 1, "count": 3, "halls": [1, 3]}, {(0, 0, 0), (2, 0, 0)}),
])
def test_marks_resolve_to_the_positions_they_cover(tmp_path, mark, expected):
    mark = dict(mark)
    count = mark.pop("count", 1)
    floor = load_floor(floor_file(tmp_path, [dict(mark, kind="blocked")], count=count))
    assert cells(marked_positions(floor)) == expected


def test_the_builtin_existing_room(tmp_path):
    """hot-aisle-existing, by hand: cross trays every 8, so column c (from 1) at x = (c - 1 +
    (c - 1) // 8) x 0.6 m; the CRAH (x 14.1 +- 1.2) covers L21-L24 (x 13.2..15.0), the door
    (x 6.0 +- 0.9) L09-L11 (x 5.4..6.6), the cage (x 12.9 +- 2.4, y 1.2 +- 1.8) A17-B24."""
    table = marked_positions(load_floor("hot-aisle-existing"))
    hall1 = table[table["hall"] == 0]
    got = {(r, c + 1, k) for r, c, k in zip(hall1["row"], hall1["col"], hall1["kind"])}
    expected = ({(r, c, "occupied") for r in (0, 1) for c in range(17, 25)}
                | {(3, 6, "blocked"), (3, 19, "blocked"), (7, 6, "blocked"), (7, 19, "blocked")}
                | {(11, c, "blocked") for c in (9, 10, 11, 21, 22, 23, 24)})
    assert got == expected
    hall2 = table[table["hall"] == 1]
    assert len(hall2) == 4 + 3 + 1 and set(hall2["kind"]) == {"blocked", "reserved"}


# ----------------------------------------------------------------------------- placement

def test_slots_skip_marked_positions_and_keep_the_rest(tmp_path):
    """Group slots (2 cabinets) fill a compact block from A01 row by row (10 slots: 3 rows of 4
    slots, the 4 x 1.2 m wide by 3 rows deep block nearest to square); a mark takes its whole
    slot and the block's next free slots take its groups; a mark outside the block changes
    nothing."""
    plain = slot_layout(load_floor(floor_file(tmp_path, name="plain")), 10, 2)
    assert list(zip(plain.row.tolist(), plain.col.tolist())) == [
        (0, 0), (0, 2), (0, 4), (0, 6), (1, 0), (1, 2), (1, 4), (1, 6), (2, 0), (2, 2)]
    far = load_floor(floor_file(tmp_path, [{"row": "D", "column": 12, "kind": "reserved"}],
                                name="far"))
    same = slot_layout(far, 10, 2)
    assert (same.row == plain.row).all() and (same.col == plain.col).all()
    near = load_floor(floor_file(tmp_path, [{"row": "A", "column": 4, "kind": "blocked"},
                                            {"row": "B", "column": 1, "kind": "occupied"}],
                                 name="near"))
    got = slot_layout(near, 10, 2)
    assert list(zip(got.row.tolist(), got.col.tolist())) == [
        (0, 0), (0, 4), (0, 6), (1, 2), (1, 4), (1, 6), (2, 0), (2, 2), (2, 4), (2, 6)]


@pytest.fixture(scope="module")
def plans(tmp_path_factory):
    """slimfly(5) (50 routers, 25 cabinets) planned on the hall without marks, with marks
    where no cabinet stands anyway (row D) and with marks in the block it uses."""
    tmp = tmp_path_factory.mktemp("floors")
    far = [{"row": "D", "column": c, "kind": "reserved", "note": "spare"} for c in (9, 10)]
    near = [{"row": "A", "column": 3, "kind": "blocked", "note": "building column"},
            {"x_m": 6.9, "y_m": 2.4, "width_m": 0.8, "depth_m": 1.0, "kind": "occupied",
             "note": "tenant B"}]
    out = {}
    for name, marks in (("plain", []), ("far", far), ("near", near)):
        out[name] = plan(slimfly(5), "modern-100g", str(floor_file(tmp, marks, name=name)),
                         strategy="hint")
    return out


def positions_of(p) -> set[tuple[int, int, int]]:
    cab = p.cabinets
    return set(zip(cab["hall"].tolist(), cab["row"].tolist(), cab["col"].tolist()))


def test_no_cabinet_device_or_patch_rack_stands_on_a_mark(plans):
    for name in ("far", "near"):
        p = plans[name]
        marked = cells(marked_positions(p.floor))
        assert marked and not positions_of(p) & marked
        names = set(marked_positions(p.floor).pipe(
            lambda t: [f"{chr(65 + r)}{c + 1:02d}" for r, c in zip(t["row"], t["col"])]))
        assert not names & set(p.devices["cabinet"].astype(str))
        racks = p.structured.racks
        for mark in p.floor.hall.positions:
            if mark.row is None:        # a rack's footprint never overlaps a rectangle
                dx = np.abs(racks["x_m"].to_numpy(float) - mark.x_m)
                dy = np.abs(racks["y_m"].to_numpy(float) - mark.y_m)
                assert not ((dx < (0.6 + mark.width_m) / 2 - 1e-9)
                            & (dy < (1.2 + mark.depth_m) / 2 - 1e-9)).any()
    # the marks in the block moved cabinets: A03/A04 (one group slot) and B09-B11 are empty
    near = positions_of(plans["near"])
    assert not near & {(0, 0, 2), (0, 0, 3), (0, 1, 8), (0, 1, 9), (0, 1, 10), (0, 1, 11)}
    assert len(near) == len(positions_of(plans["plain"]))


def test_marks_where_nothing_stands_change_no_cable(plans):
    plain, far = plans["plain"], plans["far"]
    assert positions_of(plain) == positions_of(far)
    assert cables_csv.rows(plain).equals(cables_csv.rows(far))
    assert cabinets_csv.cabinet_rows(plain).equals(cabinets_csv.cabinet_rows(far))


def test_every_other_position_keeps_its_route(plans):
    """Marks leave gaps, they move no position: every cable of the plan with marks in its block
    is as long as the unmarked hall's route between its two cabinet positions."""
    p, plain = plans["near"], plans["plain"]
    cab = p.cabinets.set_index("name")
    room = room_of(plain.floor, cab["hall"], cab["row"], cab["col"])
    cables = cables_csv.rows(p)
    a, b = cab.loc[cables["a_cabinet"]], cab.loc[cables["b_cabinet"]]
    same = (cables["a_cabinet"] == cables["b_cabinet"]).to_numpy()
    structured = cables["a_cabinet"].isna() | cables["b_cabinet"].isna()
    assert not structured.any()
    expected = route_length_m(room, a["hall"].to_numpy(), a["row"].to_numpy(),
                              a["col"].to_numpy(), b["hall"].to_numpy(), b["row"].to_numpy(),
                              b["col"].to_numpy(), same)
    assert np.allclose(cables["length_m"].to_numpy(float), expected)


# ----------------------------------------------------------------------------- outputs

def test_cabinets_csv_lists_the_marks(plans):
    p = plans["near"]
    rows = list(csv.DictReader(io.StringIO(cabinets_csv.table(p).to_csv(index=False))))
    marked = [r for r in rows if r["kind"] in ("blocked", "occupied", "reserved")]
    assert [(r["name"], r["row"], r["column"], r["kind"], r["note"]) for r in marked] == [
        ("A03", "A", "3", "blocked", "building column"),
        ("B10", "B", "10", "occupied", "tenant B"),
        ("B11", "B", "11", "occupied", "tenant B")]
    # row B, column 10 (9 from 0, two rack gaps to its left): x = (9 + 2) x 0.6 m
    assert float(marked[1]["x_m"]) == pytest.approx(6.6) and float(marked[1]["y_m"]) == 2.4
    assert all(r["note"] == "" for r in rows if r["kind"] == "cabinet")
    assert "note" not in cabinets_csv.table(plans["plain"]).columns


def test_viewer_and_floor_plan_show_the_marks(plans):
    p = plans["near"]
    shown = floor_geometry(p)["marked"]
    assert [(m["name"], m["kind"]) for m in shown] == [("A03", "blocked"), ("B10", "occupied"),
                                                       ("B11", "occupied")]
    assert "marked" not in floor_geometry(plans["plain"])
    from planner.exports import viewer
    from tests.test_viewer import read_block

    meta, _ = read_block(viewer.page(p))          # what the page embeds and viewer.js draws
    assert [(m["name"], m["kind"], m["note"]) for m in meta["floor"]["marked"]] == [
        ("A03", "blocked", "building column"), ("B10", "occupied", "tenant B"),
        ("B11", "occupied", "tenant B")]
    assert "function drawMarked" in viewer.page(p)
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer)
    for block in floor_section(p).blocks:
        block.draw(canvas, 40.0, 800.0, 515.0)
        canvas.showPage()
    canvas.save()
    import pypdf

    text = " ".join(page.extract_text() for page in pypdf.PdfReader(buffer).pages)
    assert "blocked" in text and "occupied" in text and "hatched: marked" in text


# ----------------------------------------------------------------------------- bad floors

@pytest.mark.parametrize("marks, hall, words", [
    ([{"row": "E", "column": 1, "kind": "blocked"}], {},
     ("field 'hall.positions[0]'", "E01", "outside the hall of 4 rows")),
    ([{"row": "A", "column": 13, "kind": "blocked"}], {},
     ("field 'hall.positions[0]'", "A13", "12 cabinets")),
    ([{"row": "A", "column": 1, "kind": "blocked", "hall": 2}], {},
     ("field 'hall.positions[0]'", "hall 2", "'count' is 1")),
    ([{"row": "A", "column": 1, "kind": "blocked"},
      {"x_m": 0.0, "y_m": 0.0, "width_m": 0.2, "depth_m": 0.2, "kind": "reserved"}], {},
     ("A01", "blocked (field 'hall.positions[0]')", "reserved (field 'hall.positions[1]')",
      "one kind")),
    ([{"x_m": -30.0, "y_m": 0.0, "width_m": 1.0, "depth_m": 1.0, "kind": "blocked"}], {},
     ("field 'hall.positions[0]'", "overlaps no cabinet position", "move it")),
    ([{"row": "A", "column": 1, "x_m": 0.0, "y_m": 0.0, "width_m": 1.0, "depth_m": 1.0,
       "kind": "blocked"}], {}, ("field 'hall.positions[0]'", "not both")),
    ([{"row": "a", "column": 1, "kind": "blocked"}], {},
     ("field 'hall.positions[0].row'", "letters")),
    ([{"row": "A", "column": 1, "kind": "closed"}], {}, ("field 'hall.positions[0].kind'",)),
])
def test_bad_marks_are_refused_on_load(tmp_path, marks, hall, words):
    with pytest.raises(InputError) as err:
        load_floor(floor_file(tmp_path, marks, **hall))
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_too_little_free_room_is_refused_before_placement(tmp_path):
    """25 cabinets in a hall of 2 x 14 = 28 positions fit; with row A's first two group slots
    marked, 24 are left."""
    from planner.inputs.floor import check_capacity
    from planner.inputs.feasibility import Shape

    shape = Shape.of(slimfly(5))
    check_capacity(load_floor(floor_file(tmp_path, rows=2, cabinets_per_row=14, name="ok")),
                   shape)
    full = load_floor(floor_file(tmp_path, [{"row": "A", "column": 1, "kind": "blocked"},
                                            {"row": "A", "column": 4, "kind": "blocked"}],
                                 rows=2, cabinets_per_row=14))
    with pytest.raises(InputError, match="2 marked positions .* leave 24 free cabinet"):
        check_capacity(full, shape)


def test_a_patch_rack_on_a_mark_is_refused(tmp_path):
    """Row A's first patch rack stands one pitch left of A01 (x -0.6)."""
    mark = {"x_m": -0.6, "y_m": 0.0, "width_m": 1.0, "depth_m": 1.0, "kind": "blocked"}
    with pytest.raises(InputError, match=r"hall.positions\[0\].*patch rack"):
        plan(slimfly(5), "modern-100g", str(floor_file(tmp_path, [mark])), strategy="hint")


def test_a_mark_where_an_auto_hall_row_ends_is_refused(tmp_path):
    """On an "auto" hall the rows end one pitch past the last cabinet, where the row's patch
    rack stands: a marked cabinet position there is refused (the fix: a fixed hall size)."""
    auto = {"rows": "auto", "cabinets_per_row": "auto", "max_rows": 4,
            "max_cabinets_per_row": 12}
    plain = plan(slimfly(5), "modern-100g", str(floor_file(tmp_path, [], name="auto", **auto)),
                 strategy="hint")
    cab = plain.cabinets
    end = int(cab.loc[cab["row"] == 0, "col"].max()) + 1     # just past row A's last cabinet
    rack = plain.structured.racks
    # row A's end rack stands where column ``end`` (from 0) would: x = (end + end // 4) x 0.6
    assert ((rack["row"] == 0) & np.isclose(rack["x_m"], (end + end // 4) * 0.6)).any()
    mark = {"row": "A", "column": end + 1, "kind": "blocked", "note": "column"}
    with pytest.raises(InputError, match=r"hall.positions\[0\].*patch rack.*fixed size"):
        plan(slimfly(5), "modern-100g", str(floor_file(tmp_path, [mark], **auto)),
             strategy="hint")


def test_a_given_layout_on_a_mark_is_refused(tmp_path, plans):
    floor = load_floor(floor_file(tmp_path, [{"row": "A", "column": 1, "kind": "occupied"}]))
    cab = plans["plain"].cabinets
    with pytest.raises(InputError, match=r"A01 of hall 1.*hall.positions\[0\].*occupied"):
        room_of(floor, cab["hall"], cab["row"], cab["col"])
