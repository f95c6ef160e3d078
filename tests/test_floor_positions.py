"""Every rack has a place: patch racks stand at floor positions of their own, never in an aisle,
and one numbering of halls, rows and columns runs through every output.

- The geometry of a structured hall, by hand: rack positions reserved at the row ends and in a
  gap at every cross tray between cabinets (the tray over it), an entry row along the front
  wall, the footprint around them.
- Where ``rack_positions`` puts racks, by hand: the first at its point, more at a row end
  outward, more at a cross tray between cabinets at the nearer row end, entry racks along the
  entry row; ``hall_bounds`` widens past them.
- A structured plan over several halls: no rack overlaps a cabinet, another rack or an aisle,
  all stand inside their hall's walls; ``cabinets.csv`` has a row per rack with its kind and
  position; hall, row and column of every cabinet are the same in ``cabinets.csv``,
  ``bom.xlsx`` (Cabinets), the viewer's data and, in headless Chromium, its cabinet panel.
"""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

from planner.exports import bom_xlsx, cabinets_csv, viewer
from planner.inputs.floor import cabinet_xy, hall_footprint_m, position_numbers, room_of
from planner.inputs.floor.rack_positions import hall_bounds, rack_positions
from tests.test_legibility import written
from tests.test_routes import hall_floor
from tests.test_viewer import read_block
from tests.test_viewer_browser import browser, find, open_page, wait_for  # noqa: F401

# the test hall of tests/test_routes.py: 0.6 m pitch, 1.2 m deep cabinets and aisles, 12
# cabinets per row, cross trays every 4, 1.2 m end aisles, 4 rows; structured
FLOOR = hall_floor(structured_cabling=True)


def test_a_structured_row_leaves_a_rack_position_at_each_cross_tray():
    """Cabinet c at (c + c // 4) x 0.6 m: a gap after every 4th; trays over the rack positions
    (one before the first cabinet, in each gap, one past the last); the footprint of 12
    cabinets + 4 rack positions + two end aisles by 4 rows, 5 aisles and the entry row."""
    x, y = cabinet_xy(FLOOR, [0, 0, 0, 1, 3], [0, 3, 4, 8, 11])
    assert x.tolist() == pytest.approx([0.0, 1.8, 3.0, 6.0, 7.8])
    assert y.tolist() == pytest.approx([0.0, 0.0, 0.0, 2.4, 7.2])
    room = room_of(FLOOR, [0, 0], [0, 3], [0, 11])
    assert room.cross_x.tolist() == pytest.approx([-0.6, 2.4, 5.4, 8.4])
    assert (room.width_m, room.depth_m) == pytest.approx((16 * 0.6 + 2.4, 4 * 1.2 + 5 * 1.2
                                                          + 1.2))
    assert hall_footprint_m(FLOOR, 4, 12) == pytest.approx((12.0, 12.0))
    assert room.row_x == pytest.approx((-0.9, 8.7))
    assert room.wall_xy == pytest.approx((-2.1, -3.0))
    assert room.entry_xy == pytest.approx((-0.6, -1.8))
    flat = room_of(hall_floor(), [0, 0], [0, 3], [0, 11])   # without structured cabling: as before
    assert flat.cross_x.tolist() == pytest.approx([-0.3, 2.1, 4.5, 6.9])
    assert (flat.width_m, flat.depth_m) == pytest.approx((12 * 0.6 + 2.4, 10.8))


def test_racks_stand_where_the_rules_put_them():
    room = room_of(FLOOR, [0, 0], [0, 3], [0, 11])
    racks = pd.DataFrame([
        ("row", 0, 1, 0, 0, -0.6, 2.4),      # B-P0: the row end under cross tray 0
        ("row", 0, 1, 2, 0, 5.4, 2.4),       # B-P2: the gap at cross tray 2
        ("row", 0, 1, 0, 1, -1.2, 2.4),      # B-P0.2: one further out
        ("row", 0, 1, 3, 1, 9.0, 2.4),       # B-P3.2: past the right end's own
        ("row", 0, 2, 0, 0, -0.6, 4.8),      # C-P0
        ("row", 0, 2, 1, 1, -1.2, 4.8),      # C-P1.2: no second gap, to the nearer (left) end
        ("entry", 0, -1, -1, 0, -0.6, -2.4),  # ENTRY: at the entry, in the entry row
        ("entry", 0, -1, -1, 2, 0.6, -2.4),   # ENTRY.3
        ("entry", 0, -1, -1, 16, -0.6, -4.8),  # ENTRY.17: a second entry row, an aisle out
    ], columns=["kind", "hall", "row", "tray", "index", "x", "y"])
    got = rack_positions(room, racks["kind"], racks["hall"], racks["row"], racks["tray"],
                         racks["index"])
    assert got["x_m"].tolist() == pytest.approx(racks["x"].tolist())
    assert got["y_m"].tolist() == pytest.approx(racks["y"].tolist())
    x0, y0, x1, y1 = hall_bounds(room, got)
    assert (x0, y0, x1, y1) == pytest.approx((-1.2 - 0.3 - 1.2, -5.4, 9.0 + 0.3 + 1.2, 9.0))
    assert hall_bounds(room) == pytest.approx((-2.1, -3.0, 9.9, 9.0))


def _boxes(plan, frame, x, y):
    w, d = plan.floor.cabinet_width_m / 2, plan.floor.cabinet_depth_m / 2
    return np.c_[frame[x] - w, frame[y] - d, frame[x] + w, frame[y] + d]


def test_no_rack_stands_on_a_cabinet_a_rack_or_in_an_aisle():
    """The several-hall structured plan: every rack box apart from every cabinet box and every
    other rack of its hall, within a row's depth or the entry row (so in no aisle), inside its
    hall's walls; a point's first rack under its cross tray."""
    plan, _ = written("halls")
    floor, cab, racks = plan.floor, plan.cabinets, plan.structured.racks
    room = room_of(floor, cab["hall"], cab["row"], cab["col"])
    rp, d = floor.row_pitch_m, floor.cabinet_depth_m
    assert (racks["kind"] == "entry").sum() >= 2 and (racks["kind"] == "row").any()
    for hall in range(room.halls):
        mine = racks[racks["hall"] == hall]
        things = np.r_[_boxes(plan, cab[cab["hall"] == hall], "x_m", "y_m"),
                       _boxes(plan, mine, "x_m", "y_m")]
        n_cab = int((cab["hall"] == hall).sum())
        for i, box in enumerate(things[n_cab:], start=n_cab):
            others = np.delete(things, i, axis=0)
            shared = (np.minimum(others[:, 2], box[2]) - np.maximum(others[:, 0], box[0]) > 1e-9) \
                & (np.minimum(others[:, 3], box[3]) - np.maximum(others[:, 1], box[1]) > 1e-9)
            assert not shared.any(), (hall, mine.iloc[i - n_cab]["name"])
        x0, y0, x1, y1 = hall_bounds(room, mine)
        boxes = _boxes(plan, mine, "x_m", "y_m")
        assert (boxes[:, 0] >= x0).all() and (boxes[:, 2] <= x1).all()
        assert (boxes[:, 1] >= y0).all() and (boxes[:, 3] <= y1).all()
        row = mine["kind"] == "row"
        centre = mine["y_m"].to_numpy() / rp
        assert np.allclose(centre[row], mine["row"][row])                # on its row's line
        entry_y = room.entry_xy[1] - d / 2
        assert np.allclose(mine["y_m"][~row], entry_y)                   # in the entry row
        first = row & ~mine["name"].str.contains(".", regex=False)
        assert np.allclose(mine["x_m"][first], room.cross_x[mine["tray"][first]])


def test_cabinets_csv_has_a_row_per_rack_and_one_numbering(tmp_path):
    """cabinets.csv read back: the cabinets, then a row per patch rack (kind, hall, row or
    ``entry``, position); each cabinet's hall, row and column spell its name, and bom.xlsx's
    Cabinets sheet and the viewer's data give the same three for it."""
    plan, _ = written("halls")
    for writer in (cabinets_csv, bom_xlsx, viewer):
        writer.write(plan, tmp_path)
    with open(tmp_path / "cabinets.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    cabinets = [r for r in rows if r["kind"] == "cabinet"]
    racks = [r for r in rows if r["kind"] != "cabinet"]
    assert [r["name"] for r in cabinets] == plan.cabinets["name"].tolist()
    for r in cabinets:
        assert r["name"] == f"H{r['hall']}-{r['row']}{int(r['column']):02d}"
    plant = plan.structured.racks
    assert [r["name"] for r in racks] == plant["name"].tolist()
    for r, want in zip(racks, plant.itertuples(index=False)):
        assert r["kind"] == {"row": "patch rack", "entry": "entry rack"}[want.kind]
        assert int(r["hall"]) == want.hall + 1 and r["column"] == ""
        assert r["row"] == ("entry" if want.kind == "entry" else r["name"].split("-")[1])
        assert (float(r["x_m"]), float(r["y_m"])) == pytest.approx((want.x_m, want.y_m))
    csv_numbers = [(int(r["hall"]), r["row"], int(r["column"])) for r in cabinets]
    sheet = pd.read_excel(tmp_path / "bom.xlsx", sheet_name="Cabinets")
    assert list(zip(sheet["Hall"], sheet["Row"], sheet["Column"])) == csv_numbers
    _, tables = read_block((tmp_path / "index.html").read_text(encoding="utf-8"))
    shown = tables["cabinets"]
    assert list(zip(shown["hall"], shown["row"], shown["column"])) == csv_numbers


def test_position_numbers_are_the_names_numbering():
    hall, row, column = position_numbers([0, 1, 8], [4, 0, 26], [5, 0, 99])
    assert hall.tolist() == [1, 2, 9] and row == ["E", "A", "AA"] and column.tolist() == [6, 1, 100]


def test_viewer_cabinet_panel_numbers_as_cabinets_csv(browser, tmp_path):  # noqa: F811
    """In headless Chromium: a cabinet of the second hall, found by name, shows the hall, row
    and column ``cabinets.csv`` gives it."""
    plan, _ = written("halls")
    for writer in (cabinets_csv, viewer):
        writer.write(plan, tmp_path)
    table = pd.read_csv(tmp_path / "cabinets.csv", dtype=str, keep_default_na=False)
    row = table[(table["kind"] == "cabinet") & (table["hall"] == "2")].iloc[-1]
    open_page(browser, tmp_path)
    find(browser, row["name"])
    wait_for(browser, "return document.querySelector('#panel-cabinet h2')?.textContent"
                      f" === 'Cabinet {row['name']}'")
    shown = dict(browser.execute_script("""
        return Array.from(document.querySelectorAll('#panel-cabinet table.kv tr'))
          .map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]);"""))
    assert (shown["hall"], shown["row"], shown["column"]) == (row["hall"], row["row"],
                                                              row["column"])
