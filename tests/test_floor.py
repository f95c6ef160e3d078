"""Floor schema, built-ins, geometry, capacities and invalid floor files."""

from pathlib import Path

import numpy as np
import pytest

from planner.inputs.catalog import load_catalog
from planner.run.errors import InputError
from planner.inputs.floor import (cabinet_name, cabinet_positions, cabinet_xy, cable_length_m,
                           check_capacity, endpoint_ru_of, grid_shape, group_capacity,
                           list_floors, load_floor, mean_manhattan_m, router_ru)
from planner.topologies.base import Topology

BAD = Path(__file__).parent / "fixtures" / "bad_floors"


@pytest.mark.parametrize("name", ["sc14", "pn-500", "galaxyfly", "cascade", "hot-aisle"])
def test_builtin_floors_load(name):
    assert name in list_floors()
    floor = load_floor(name)
    assert floor.name == name
    assert (floor.group_cabinets is None) != (floor.group_endpoints is None)


def test_hot_aisle_dimensions():
    f = load_floor("hot-aisle")
    assert (f.cabinet_width_m, f.cabinet_depth_m, f.cabinet_height_ru) == (0.6, 1.2, 42)
    assert f.aisle_m == 1.2 and f.row_pitch_m == pytest.approx(2.4)
    assert f.media_rule == "reach"
    assert (f.hall.rows, f.hall.cabinets_per_row) == ("auto", "auto")
    assert (f.hall.max_rows, f.hall.max_cabinets_per_row, f.hall.count) == (16, 30, 16)
    assert f.cabinets_per_row is None and f.cabinet_kw_budget == 30


@pytest.mark.parametrize("name", ["sc14", "pn-500", "galaxyfly", "cascade"])
def test_paper_floors_stay_abstract_grids(name):
    assert load_floor(name).hall is None


@pytest.mark.parametrize("row,col,name", [(0, 0, "A01"), (1, 11, "B12"), (25, 0, "Z01"),
                                          (26, 0, "AA01"), (701, 8, "ZZ09"), (702, 0, "AAA01"),
                                          (0, 98, "A99"), (2, 99, "C100")])
def test_cabinet_name(row, col, name):
    assert cabinet_name(row, col) == name


def test_cabinet_name_vectorised():
    assert list(cabinet_name(np.array([0, 1]), np.array([4, 0]))) == ["A05", "B01"]


def grid_hall() -> "Floor":
    """The hot-aisle cabinets on a grid of rows of 12 (no hall block: Manhattan lengths)."""
    return load_floor("hot-aisle").model_copy(update={"hall": None, "cabinets_per_row": 12})


@pytest.mark.parametrize("floor,n,shape", [("sc14", 20, (4, 5)), ("sc14", 22, (5, 5)),
                                           ("sc14", 1, (1, 1)), ("grid-hall", 30, (3, 12)),
                                           ("cascade", 10, (3, 4)), ("cascade", 26, (5, 6)),
                                           ("cascade", 17, (3, 6)), ("sc14", 0, (0, 0)),
                                           ("galaxyfly", 22, (6, 4)), ("galaxyfly", 3, (3, 1))])
def test_grid_shape(floor, n, shape):
    f = grid_hall() if floor == "grid-hall" else load_floor(floor)
    assert grid_shape(f, n) == shape


# Published cabinet grids x*y+z (Lei et al., Galaxyfly, ICS'16 §6.2; docs/models.md "Cable
# length"): (cabinets, cabinets per structural block, x full rows, y cabinets per row, z in the
# last row).
GALAXYFLY_GRIDS = [(172, 1, 13, 13, 3), (162, 1, 13, 12, 6), (175, 7, 12, 14, 7),
                   (43, 1, 7, 6, 1), (27, 1, 5, 5, 2), (25, 1, 5, 5, 0)]


@pytest.mark.parametrize("n,block,x,y,z", GALAXYFLY_GRIDS)
def test_galaxyfly_floor_reproduces_the_published_xyz_grids(n, block, x, y, z):
    floor = load_floor("galaxyfly").model_copy(update={"group_cabinets": block})
    rows, cols = grid_shape(floor, n)
    assert (n // cols, cols, n - (n // cols) * cols) == (x, y, z)
    assert rows == x + (z > 0)
    assert grid_shape(load_floor("sc14"), n)[1] >= cols      # ceil rule: never narrower


def test_positions_are_row_major_and_xy_uses_pitches():
    f = grid_hall()
    rows, cols = cabinet_positions(f, 14)
    assert (rows[11], cols[11], rows[12], cols[12]) == (0, 11, 1, 0)
    x, y = cabinet_xy(f, rows[[0, 13]], cols[[0, 13]])
    np.testing.assert_allclose(x, [0.0, 0.6])
    np.testing.assert_allclose(y, [0.0, 2.4])


# (floor, row_a, col_a, row_b, col_b, same cabinet, hand-computed length)
LENGTHS = [
    ("sc14", 0, 0, 0, 0, True, 1.0),               # 1 m intra-rack (Projective Networks §5.3)
    ("sc14", 0, 0, 2, 3, False, 5.0 + 2.0),        # Manhattan 5 + 2 m per cable
    ("galaxyfly", 0, 0, 0, 0, True, 1.5),          # 1.5 m intra-cabinet (Galaxyfly §6.2)
    ("galaxyfly", 1, 1, 0, 3, False, 3.0 + 4.0),   # + 2 m per end
    ("grid-hall", 0, 0, 1, 2, False, (1.2 + 2.4 + 1.0) * 1.1),
    ("grid-hall", 0, 0, 0, 0, True, 1.5 * 1.1),
]


@pytest.mark.parametrize("floor,ra,ca,rb,cb,same,length", LENGTHS)
def test_cable_length(floor, ra, ca, rb, cb, same, length):
    f = grid_hall() if floor == "grid-hall" else load_floor(floor)
    got = cable_length_m(f, ra, ca, rb, cb, same)
    assert float(got) == pytest.approx(length)


@pytest.mark.parametrize("n,mean", [(20, 3.00), (22, 3.20), (54, 4.90), (58, 5.14)])
def test_mean_manhattan_matches_the_pn_average_lengths(n, mean):
    """Mean Manhattan distance on a 1 m grid of about 20-22 / 54-58 racks brackets 3.1 m / 5.0 m:
    Projective Networks §5.3's 5.1 m / 7.0 m minus 2 m overhead (docs/models.md "Cable length")."""
    assert mean_manhattan_m(load_floor("sc14"), n) == pytest.approx(mean, abs=0.005)


# (floor, endpoints per router, (cabinets per group, max endpoints, max routers))
CAPACITY = [
    ("pn-500", [13] * 722, (1, 500, 38)),     # SF q=19 p=13: one rack pair = 38 routers, 494 nodes
    ("pn-500", [14] * 757, (1, 504, 36)),     # demi-PN q=27: 504* = 36 routers (Table 4)
    ("pn-500", [7] * 1386, (1, 500, 71)),
    ("cascade", [4] * 960, (2, 384, 96)),     # Cray XC: 96 routers, 384 nodes per group
    ("hot-aisle", [13] * 100, (2, 64, 4)),
    ("sc14", [13] * 722, (1, 832, 64)),
]


@pytest.mark.parametrize("floor,ep,expected", CAPACITY)
def test_group_capacity(floor, ep, expected):
    assert group_capacity(load_floor(floor), np.array(ep)) == expected


def test_group_endpoints_override():
    f = load_floor("sc14").with_group_endpoints(300)
    assert (f.group_cabinets, f.group_endpoints) == (None, 300)
    assert group_capacity(f, np.full(100, 10)) == (1, 300, 30)
    with pytest.raises(InputError, match="--group-endpoints must be a positive integer"):
        load_floor("sc14").with_group_endpoints(0)


def test_rack_units():
    f = load_floor("hot-aisle")
    np.testing.assert_array_equal(router_ru(f, np.array([0, 1]), 2), [39, 41])
    np.testing.assert_array_equal(endpoint_ru_of(f, np.array([0, 31])), [1, 32])


def _topology(routers, endpoints):
    edges = [(i, i + 1) for i in range(routers - 1)]
    return Topology.from_edges("test", {}, routers, edges, endpoints)


def test_check_capacity_passes_and_fails_with_numbers():
    f = load_floor("hot-aisle")
    check_capacity(f, _topology(10, 13), load_catalog("modern-100g").router_for(44))
    with pytest.raises(InputError, match=r"a router has 40 endpoints but a cabinet holds 32"):
        check_capacity(f, _topology(4, 40))
    with pytest.raises(InputError, match=r"2 router slots × 29U \(MCS8500\).*does not fit"):
        check_capacity(f, _topology(4, 4), load_catalog("hdr-200g").router_for(44))
    two_u = f.model_copy(update={"first_router_ru": 40})
    with pytest.raises(InputError, match=r"× 2U \(7816-64X-O-AC-F\).*at most 1"):
        check_capacity(two_u, _topology(4, 4), load_catalog("modern-100g").router_for(44))
    small = f.model_copy(update={"max_cabinets": 3})
    with pytest.raises(InputError, match=r"10 routers with 130 endpoints need at least 5 "
                                         r"cabinets but field 'max_cabinets' is 3"):
        check_capacity(small, _topology(10, 13))


BAD_FLOORS = [
    ("negative_connection_loss", "field 'connection_loss_db' is -0.5, but a loss cannot be "
                                 "negative"),
    ("missing_pitch", "field 'pitch_m' is missing"),
    ("unknown_field", "unknown field 'aisle_width_m'; valid fields here: name,"),
    ("negative_slots", "field 'router_slots' must be greater than 0, got -3"),
    ("zero_width", "field 'cabinet_width_m' must be greater than 0, got 0"),
    ("both_group_rules", "fields 'group_cabinets' and 'group_endpoints': set exactly one"),
    ("no_group_rule", "fields 'group_cabinets' and 'group_endpoints': set exactly one"),
    ("pitch_below_width", "field 'pitch_m' 0.5 m is smaller than cabinet_width_m 0.6 m"),
    ("row_not_multiple_of_group", "field 'cabinets_per_row' must be a multiple of "
                                  "group_cabinets (2), got 7"),
    ("routers_above_top", "field 'router_slots' 2 from RU 42 ends at RU 43"),
    ("endpoints_overlap_routers", "field 'endpoint_slots' 40 × 1.0U from RU 1 ends at RU 40, "
                                  "which overlaps the router slots (RU 39-40) or the 42U cabinet "
                                  "top; lower endpoint_slots or move first_router_ru"),
    ("bad_media_rule", "field 'media_rule' must be 'membership' or 'reach', got 'price'"),
    ("negative_slack", "field 'slack_pct' must be greater than or equal to 0, got -10"),
    ("bad_row_rounding", "field 'row_rounding' must be 'ceil' or 'floor', got 'nearest'"),
    ("hall_zero_rows", "field 'hall.rows' must be a whole number of rows from 1 to 1000 or "
                       "'auto' (sized to the system), got 0"),
    ("hall_zero_cabinets", "field 'hall.cabinets_per_row' must be a whole number of cabinets "
                           "from 1 to 1000 or 'auto' (sized to the system), got 0"),
    ("hall_huge", "field 'hall.max_rows' must be less than or equal to 1000, got 100000"),
    ("hall_negative_link", "field 'hall.link_m' must be a finite number of metres >= 0 (the "
                           "cable path between the entry points of two halls), got -5"),
    # non-finite numbers are refused for every field by the schema's value check
    ("hall_infinite_link", "field 'hall.link_m' must be a finite number, got inf"),
    ("hall_nan_link", "field 'hall.link_m' must be a finite number, got nan"),
    ("hall_without_link", "field 'hall.link_m' is missing; with count > 1 give the cable path "
                          "between the entry points of two halls in metres"),
    ("hall_row_not_multiple_of_group", "field 'hall.cabinets_per_row' must be a multiple of "
                                       "group_cabinets (2), got 9"),
    ("hall_and_grid_row", "field 'cabinets_per_row' belongs to the abstract grid; with a 'hall' "
                          "block give hall.cabinets_per_row instead"),
    ("zero_kw_budget", "field 'cabinet_kw_budget' must be greater than 0, got 0"),
    ("unknown_hall_field", "unknown field 'hall.aisles'; valid fields here: rows,"),
]


@pytest.mark.parametrize("fixture,message", BAD_FLOORS, ids=[b[0] for b in BAD_FLOORS])
def test_bad_floor_files(fixture, message):
    path = BAD / f"{fixture}.yaml"
    with pytest.raises(InputError) as err:
        load_floor(str(path))
    text = str(err.value)
    assert text.startswith(f"floor '{path}': ") and "\n" not in text
    assert message in text


def test_every_bad_floor_fixture_is_covered():
    assert {p.stem for p in BAD.glob("*.yaml")} == {b[0] for b in BAD_FLOORS}


def test_capacity_errors_name_the_floor_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text("extends: hot-aisle\nname: tiny\nmax_cabinets: 3\n")
    with pytest.raises(InputError, match=f"^floor '{path}': 10 routers with 130 endpoints need "
                                         "at least 5 cabinets but field 'max_cabinets' is 3"):
        check_capacity(load_floor(str(path)), _topology(10, 13))


def test_unknown_floor_name():
    with pytest.raises(InputError, match=r"unknown floor 'hall9'; choose one of: campus, cascade,"):
        load_floor("hall9")


DOCS = Path(__file__).parents[1] / "docs" / "floors.md"


def test_docs_describe_every_floor_field():
    from planner.inputs.floor import Floor, Hall

    text = DOCS.read_text(encoding="utf-8")
    fields = [f"`{name}`" for name in Floor.model_fields if name != "hall"]
    fields += [f"`hall.{name}`" for name in Hall.model_fields]
    assert [f for f in fields if f not in text] == []


def test_docs_floor_examples_load(tmp_path):
    """The YAML examples of docs/floors.md are valid floors (the first and the existing room
    extend hot-aisle); a snippet of list items (one ``hall.positions`` entry) is valid YAML."""
    import re

    import yaml

    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    floors = [b for b in blocks if not b.lstrip().startswith("-")]
    assert len(floors) == 3
    for snippet in (b for b in blocks if b.lstrip().startswith("-")):
        assert isinstance(yaml.safe_load(snippet), list)
    for i, block in enumerate(floors):
        path = tmp_path / f"example{i}.yaml"
        path.write_text(block)
        floor = load_floor(str(path))
        assert floor.hall is not None and floor.cabinet_kw_budget is not None


@pytest.mark.parametrize("name,lines", [
    ("hot-aisle", ["halls                up to 16, meet-me link 40 m between hall entries",
                   "hall size            auto <= 16 rows x auto <= 30 cabinets; largest 22.8 x "
                   "40.8 m", "cross trays          at both row ends and every 10 cabinets",
                   "power budget         30 kW per cabinet"]),
    ("sc14", ["room                 abstract grid (no hall block): unbounded rows, Manhattan "
              "lengths", "power budget         none"]),
])
def test_floors_show_gives_the_hall_fields(name, lines, capsys):
    from planner.cli import main

    assert main(["floors", "show", name]) == 0
    out = capsys.readouterr().out
    for line in lines:
        assert line in out, line
