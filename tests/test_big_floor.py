"""The built-in ``campus`` floor: hot-aisle halls, as many as the system needs, in a grid on the
storeys of a building (docs/floors.md "A campus of halls"), against hand-computed figures.

Hall h of ``campus`` (4 x 4 halls per storey) is on storey h // 16, row (h mod 16) // 4,
column h mod 4; entries are |dc| x 24 + |dr| x 45 + |ds| x 6 m apart. A hall holds at most
16 rows x 30 cabinets = 240 electrical groups of 2 cabinets.
"""

from __future__ import annotations

import numpy as np
import pytest
from pypdf import PdfReader

from planner.cli import main
from planner.exports import wiring_pdf
from planner.exports.viewer import geometry
from planner.inputs.floor import Floor, check_capacity, list_floors, load_floor, room_of
from planner.inputs.floor.halls import slot_layout
from planner.inputs.floor.routes import route_length_m
from planner.plan import plan
from planner.run.errors import InputError
from planner.topologies import parse_spec


def test_campus_loads_and_planner_floors_lists_it(capsys):
    floor = load_floor("campus")
    assert "campus" in list_floors()
    assert floor.hall.links == "grid" and floor.hall.count == 160
    assert main(["floors"]) == 0
    assert any(line.split()[:1] == ["campus"] for line in capsys.readouterr().out.splitlines())
    assert main(["floors", "show", "campus"]) == 0
    assert "24 m per hall along a corridor, 45 m per row of halls, 6 m per storey" in (
        capsys.readouterr().out)


def test_campus_is_hot_aisle_but_for_its_halls():
    campus, hot = load_floor("campus"), load_floor("hot-aisle")
    skip = {"name", "description", "hall"}
    assert campus.model_dump(exclude=skip) == hot.model_dump(exclude=skip)
    same = {"rows", "cabinets_per_row", "max_rows", "max_cabinets_per_row", "end_aisle_m",
            "cross_tray_every"}
    assert campus.hall.model_dump(include=same) == hot.hall.model_dump(include=same)


# (electrical groups of 2 cabinets, halls: ceil(groups / 240))
HALLS = [(1, 1), (240, 1), (241, 2), (1_568, 7), (15_631, 66), (17_864, 75), (38_400, 160)]


@pytest.mark.parametrize("groups,halls", HALLS)
def test_hall_count_grows_with_the_system(groups, halls):
    layout = slot_layout(load_floor("campus"), groups, 2)
    assert layout.room.halls == halls
    assert np.bincount(layout.hall).tolist() == [  # split evenly over the halls
        groups // halls + (h < groups % halls) for h in range(halls)]


def test_beyond_160_halls_is_refused_naming_the_count():
    with pytest.raises(InputError, match=r"hall\.count' allows 160 hall.*at least 161"):
        slot_layout(load_floor("campus"), 38_401, 2)


def test_the_million_endpoint_dragonfly_fits_campus_not_hot_aisle():
    """1,000,384 endpoints at 32 per cabinet: at least 31,262 cabinets, 66 halls of 480."""
    top = parse_spec("dragonfly:a=56,p=28,h=28,g=638")
    assert top.num_endpoints == 1_000_384
    check_capacity(load_floor("campus"), top)
    with pytest.raises(InputError, match="needs 31262 cabinets.*at least 66"):
        check_capacity(load_floor("hot-aisle"), top)


# (hall a, hall b, entry to entry in m by hand)
LINKS = [(0, 0, 0.0), (0, 1, 24.0), (0, 3, 72.0), (0, 4, 45.0), (0, 16, 6.0),
         (5, 18, 24.0 + 45.0 + 6.0),              # (s0, r1, c1) - (s1, r0, c2)
         (12, 67, 3 * 24.0 + 3 * 45.0 + 4 * 6.0)]  # (s0, r3, c0) - (s4, r0, c3): 231 m


@pytest.mark.parametrize("a,b,metres", LINKS)
def test_hall_links_follow_the_grid(a, b, metres):
    hall = load_floor("campus").hall
    assert float(hall.link_between(a, b)) == pytest.approx(metres)
    assert float(hall.link_between(b, a)) == pytest.approx(metres)


# (halls, farthest pair by hand as docs/floors.md states): 66 and 75 halls of the 1M plan
# (5 storeys), all 160 (10 storeys)
FARTHEST = [(66, 3 * 24 + 3 * 45 + 4 * 6), (75, 3 * 24 + 3 * 45 + 4 * 6),
            (160, 3 * 24 + 3 * 45 + 9 * 6)]


@pytest.mark.parametrize("halls,metres", FARTHEST)
def test_farthest_halls_are_as_documented(halls, metres):
    h = np.arange(halls)
    assert float(load_floor("campus").hall.link_between(h[:, None], h[None, :]).max()) == metres


def test_cable_between_far_halls_matches_the_hand_computed_route():
    """A01 of hall 5 to A01 of hall 18: from cabinet (0, 0) to the entry (-0.6, -1.8) is
    0.6 + 1.8 m in each hall, the link 75 m, 0.5 m up and down, +10 %:
    (2 x 2.4 + 75 + 1.0) x 1.1 = 88.88 m; neighbours 0 and 1: (4.8 + 24 + 1.0) x 1.1."""
    floor = load_floor("campus")
    room = room_of(floor, [0, 18], [0, 15], [0, 29])
    assert float(route_length_m(room, 5, 0, 0, 18, 0, 0, False)) == pytest.approx(88.88)
    assert float(route_length_m(room, 0, 0, 0, 1, 0, 0, False)) == pytest.approx(32.78)


@pytest.mark.parametrize("field,value", [("grid_columns", 4), ("row_link_m", 45.0)])
def test_grid_fields_need_links_grid(field, value):
    data = load_floor("hot-aisle").model_dump()
    data["hall"][field] = value
    with pytest.raises(ValueError, match=f"'{field}' belongs to links: grid"):
        Floor(**data)


def test_links_grid_needs_every_grid_field():
    data = load_floor("campus").model_dump()
    data["hall"]["storey_link_m"] = None
    with pytest.raises(ValueError, match="'storey_link_m' is missing"):
        Floor(**data)


def test_a_one_hall_plan_is_the_same_as_on_hot_aisle():
    """Below 240 groups the hall link is never used, so campus plans as hot-aisle does."""
    on_campus = plan("slimfly:q=3", "modern-100g", "campus", strategy="hint")
    on_hot = plan("slimfly:q=3", "modern-100g", "hot-aisle", strategy="hint")
    assert on_campus.summary["floor"]["halls"] == on_hot.summary["floor"]["halls"] == 1
    assert np.array_equal(on_campus.placement.router_cabinet, on_hot.placement.router_cabinet)
    assert on_campus.cables.equals(on_hot.cables)
    assert on_campus.bom.equals(on_hot.bom)
    assert len(on_campus.cables) > 0


MINI = """
extends: campus
name: mini-campus
structured_cabling: false
hall: {max_rows: 1, max_cabinets_per_row: 2, count: 160, links: grid, grid_columns: 2,
       grid_rows: 2, link_m: 24, row_link_m: 150, storey_link_m: 6}
"""


@pytest.fixture(scope="module")
def mini_plan(tmp_path_factory):
    path = tmp_path_factory.mktemp("campus") / "mini.yaml"
    path.write_text(MINI)
    return plan("slimfly:q=3", "modern-100g", str(path), strategy="hint")


def test_cables_between_far_halls_are_long_and_single_mode(mini_plan):
    """A campus of 2-cabinet halls, 2 x 2 per storey, rows of halls 150 m apart: the 9 cabinets
    of slimfly:q=3 fill 5 halls (hall 4 one storey up). Without structured cabling the trays
    reach the entry at (-0.3, -1.8): a cabinet at (x, 0) is x + 0.3 + 1.8 m from it. Each
    cable between halls is (both ways to the entries + the grid link + 2 x 0.5) x 1.1, and
    beyond the 50 m of the catalog's AOCs it runs on single-mode optics that reach it."""
    result = mini_plan
    assert result.summary["floor"]["halls"] == 5
    cabinets = result.cabinets.set_index("name")
    cross = result.cables[result.cables.route_kind == "cross-hall"]
    assert len(cross) > 0
    a, b = cabinets.loc[cross.a_cabinet], cabinets.loc[cross.b_cabinet]
    storey, row, col = ({h: v for h, v in zip(range(5), values)}
                        for values in ([0, 0, 0, 0, 1], [0, 0, 1, 1, 0], [0, 1, 0, 1, 0]))
    link = np.array([abs(col[p] - col[q]) * 24 + abs(row[p] - row[q]) * 150
                     + abs(storey[p] - storey[q]) * 6 for p, q in zip(a.hall, b.hall)])
    to_entry = (a.x_m.to_numpy() + 0.3 + a.y_m.to_numpy() + 1.8
                + b.x_m.to_numpy() + 0.3 + b.y_m.to_numpy() + 1.8)
    assert cross.length_m.to_numpy() == pytest.approx((to_entry + link + 1.0) * 1.1, abs=0.01)
    far = cross[cross.length_m > 150]
    assert len(far) > 0 and (far.a_transceiver != "").all()
    parts = {m.sku: m for m in result.catalog.cables}
    assert {parts[sku].fibre for sku in set(far.a_transceiver) | set(far.b_transceiver)} == {
        "os2-lc"}
    assert (far.reach_m >= far.length_m).all()


def test_the_viewer_draws_grid_links_hall_to_next_hall_with_their_lengths(mini_plan):
    """No meet-me room on a grid: hall h - 1 to hall h, each link as long as the grid says
    (halls 0-1: 24 m, 1-2: 24 + 150, 2-3: 24, 3-4: 24 + 150 + 6)."""
    shapes = geometry.floor_geometry(mini_plan)
    assert shapes["meet_me"] is None
    assert [(link["a"], link["b"], link["length_m"]) for link in shapes["links"]] == [
        (0, 1, 24.0), (1, 2, 174.0), (2, 3, 24.0), (3, 4, 180.0)]



def test_the_wiring_pdf_sends_grid_links_via_the_corridors(mini_plan, tmp_path):
    """The hall entry's label: no single hall-link length on a grid (it differs per pair)."""
    wiring_pdf.write(mini_plan, tmp_path)
    text = " ".join(p.extract_text() for p in PdfReader(tmp_path / wiring_pdf.FILENAME).pages)
    assert "entry (to the other halls via the corridors)" in text
    assert "(to the other halls, 24 m)" not in text

# (hall block of a floor extending campus, the one-line error it gets)
BAD_GRIDS = [
    ("{count: 20, link_m: 24, links: grid, grid_columns: 4}",
     "field 'hall.grid_rows' is missing; links: grid needs grid_columns, grid_rows, row_link_m "
     "and storey_link_m"),
    ("{count: 20, link_m: 24, row_link_m: 45}",
     "field 'hall.row_link_m' belongs to links: grid; set links: grid or remove it"),
    ("{count: 20, link_m: 24, links: grid, grid_columns: 4, grid_rows: 4, row_link_m: -1, "
     "storey_link_m: 6}",
     "field 'hall.row_link_m' must be a finite number of metres >= 0"),
]


@pytest.mark.parametrize("hall,message", BAD_GRIDS)
def test_bad_grid_fields_exit_2_with_one_line(hall, message, tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(f"extends: campus\nname: bad\nhall: {hall}\n")
    assert main(["floors", "show", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
