"""Cable routes along the trays of a hall, against lengths computed by hand.

Test hall: 0.6 m pitch, 1.2 m deep cabinets, 1.2 m aisles (row pitch 2.4 m), 4 rows of 12
cabinets, cross trays at both row ends and every 4 cabinets: x = -0.3, 2.1, 4.5, 6.9 m (the
cabinet in column c is centred at x = 0.6 c, row r at y = 2.4 r). Hall entry at the front end of
the first cross tray: (-0.3, -1.8) (half a cabinet depth + one aisle in front of row A). Per end
0.5 m up/down, 0.3 m per cable, 10 % slack, 1.5 m inside a cabinet; halls 30 m apart.

    case                     route (m)                                  length = (route + 1.3) x 1.1
    A03 = A03                inside one cabinet                          1.5 x 1.1        =  1.65
    A03 - A07 (same row)     2.4 along row A                             3.7 x 1.1        =  4.07
    A02 - B07 (tray between) 3.0 along + 2.4 across (tray 2.1)           6.7 x 1.1        =  7.37
    A07 - B08 (no tray       0.6 + 2 x 0.3 detour to 4.5 + 2.4 across    4.9 x 1.1        =  5.39
      between)
    A01 - D12 (corners)      6.6 along + 7.2 across                     15.1 x 1.1        = 16.61
    A01 - D01 (one column)   2 x 0.3 to the end tray + 7.2 across        9.1 x 1.1        = 10.01
    D12 - A12 (other end)    2 x 0.3 to the end tray 6.9 + 7.2           9.1 x 1.1        = 10.01
    H1-B03 - H2-C05          (1.5 + 4.2) to entry + 30 + (2.7 + 6.6)    46.3 x 1.1        = 50.93
    H1-A01 - H3-A01 corridor 2.1 + 2 x 30 + 2.1                         65.5 x 1.1        = 72.05
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.inputs.catalog import Catalog
from planner.inputs.floor import Floor, cabinet_names, room_of
from planner.inputs.floor.routes import KINDS, route_kind, route_length_m, route_segments
from planner.placement.result import Placement
from planner.plan import plan
from planner.topologies.base import Topology


def hall_floor(**changes) -> Floor:
    fields = dict(name="test-hall", cabinet_width_m=0.6, cabinet_depth_m=1.2,
                  cabinet_height_ru=42, pitch_m=0.6, aisle_m=1.2, router_slots=4,
                  endpoint_slots=16, group_cabinets=1, intra_cabinet_m=1.5,
                  overhead_per_cable_m=0.3, overhead_per_end_m=0.5, slack_pct=10,
                  first_router_ru=38, first_endpoint_ru=1, endpoint_ru=1, media_rule="reach",
                  hall=dict(rows=4, cabinets_per_row=12, cross_tray_every=4, end_aisle_m=1.2,
                            count=3, link_m=30))
    hall = changes.pop("hall", {})
    fields.update(changes, hall=None if hall is None else dict(fields["hall"], **hall))
    return Floor(**fields)


def make_catalog(**changes) -> Catalog:
    data = dict(
        name="test-cat", endpoint_watts=300,
        nic=dict(sku="NIC-100", vendor="Acme", description="100G NIC", price=300, watts=5),
        routers=[dict(sku="SW-16", vendor="Acme", description="16-port switch", rate_gbps=100,
                      lanes_per_port=4, radix=16, price={"fixed": 10000}, watts_per_lane=1.0,
                      base_watts=100, rack_units=1)],
        cables=[dict(sku="DAC", description="copper", media="electrical", kind="dac",
                     rate_gbps=100, max_reach_m=3, stock_lengths=[1, 2, 3],
                     price={"table": {1: 50, 2: 60, 3: 70}}, watts_per_end=0.1,
                     netbox_type="dac-passive", color="Black"),
                dict(sku="AOC", description="active optical", media="optical", kind="aoc",
                     rate_gbps=100, max_reach_m=30, stock_lengths=[5, 10, 20, 30],
                     price={"fixed": 200, "per_m": 10}, watts_per_end=1.5, netbox_type="aoc",
                     color="Aqua"),
                dict(sku="LR", description="long-reach transceiver", media="optical",
                     kind="transceiver", rate_gbps=100, max_reach_m=2000, loss_budget_db=5.0,
                     fibre="os2-lc",
                     price={"fixed": 700}, watts_per_end=3.5),
                dict(sku="OS2", description="single-mode patch cord, cut to length",
                     media="optical", kind="fibre", fibre="os2-lc", max_reach_m=2000,
                     stock_lengths=[], price={"per_m": 1}, netbox_type="smf-os2",
                     color="Yellow")])
    data.update(changes)
    return Catalog.model_validate(data)


# (name, a = (hall, row, col), b, same cabinet, route kind, hand-computed length)
ROUTES = [
    ("same cabinet", (0, 0, 2), (0, 0, 2), True, "cabinet", 1.65),
    ("same row", (0, 0, 2), (0, 0, 6), False, "row", 4.07),
    ("adjacent rows, tray between", (0, 0, 1), (0, 1, 6), False, "cross-row", 7.37),
    ("adjacent rows, detour", (0, 0, 6), (0, 1, 7), False, "cross-row", 5.39),
    ("opposite corners", (0, 0, 0), (0, 3, 11), False, "cross-row", 16.61),
    ("one column, start of rows", (0, 0, 0), (0, 3, 0), False, "cross-row", 10.01),
    ("one column, end of rows", (0, 3, 11), (0, 0, 11), False, "cross-row", 10.01),
    ("two halls", (0, 1, 2), (1, 2, 4), False, "cross-hall", 50.93),
]


@pytest.mark.parametrize("name,a,b,same,kind,length", ROUTES, ids=[r[0] for r in ROUTES])
def test_route_length_matches_the_hand_computed_one(name, a, b, same, kind, length):
    floor = hall_floor()
    room = room_of(floor, [0, 1], [0, 3], [0, 11])
    got = float(route_length_m(room, *a, *b, same))
    assert got == pytest.approx(length, abs=0.005)
    assert KINDS[int(route_kind(a[0], a[1], b[0], b[1], same))] == kind
    again = float(route_length_m(room, *b, *a, same))             # both directions agree
    assert again == pytest.approx(got, abs=1e-9)


def test_corridor_of_halls_adds_one_link_per_step():
    floor = hall_floor(hall=dict(links="corridor"))
    room = room_of(floor, [0, 2], [0, 3], [0, 11])
    assert float(route_length_m(room, 0, 0, 0, 2, 0, 0)) == pytest.approx(72.05, abs=0.005)
    assert float(route_length_m(room, 0, 0, 0, 1, 0, 0)) == pytest.approx(39.05, abs=0.005)


def hand_placement() -> tuple[Topology, Placement, list[tuple[str, str, str, float]]]:
    """One or two routers per cabinet of ROUTES, one link per case."""
    cabinets = [(0, 0, 2), (0, 0, 6), (0, 0, 1), (0, 1, 6), (0, 1, 7), (0, 0, 0), (0, 3, 11),
                (0, 3, 0), (0, 0, 11), (0, 1, 2), (1, 2, 4)]
    router_cabinet = np.array([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    edges = [(0, 1), (0, 2), (3, 4), (2, 5), (6, 7), (6, 8), (7, 9), (10, 11)]
    hall, row, col = (np.array(v) for v in zip(*cabinets))
    names = cabinet_names(hall, row, col)
    placement = Placement(router_cabinet=router_cabinet, cabinet_row=row, cabinet_col=col,
                          cabinet_group=np.arange(len(cabinets)), cabinet_names=names,
                          strategy="hint", method="hand", optical=0, lower_bound=0.0,
                          lower_bound_kind="hand", cabinet_hall=hall)
    joins = [(1, 3), (4, 6), (9, 10)]                        # so the network is connected
    top = Topology.from_edges("test", {}, len(router_cabinet), edges + joins, 0)
    expected = {(f"r{a:02d}", f"r{b:02d}"): (names[router_cabinet[a]], names[router_cabinet[b]],
                                           kind, length)
                for (a, b), (_, _, _, _, kind, length) in zip(edges, ROUTES)}
    return top, placement, expected


def test_cables_csv_lengths_equal_the_hand_computed_routes():
    top, placement, expected = hand_placement()
    cables = plan(top, make_catalog(), hall_floor(), placement=placement).cables
    by_pair = {(r.a_device, r.b_device): r for r in cables.itertuples()}
    for pair, (a, b, kind, length) in expected.items():
        row = by_pair[pair]
        assert (row.a_cabinet, row.b_cabinet, row.route_kind) == (a, b, kind)
        assert row.length_m == pytest.approx(length, abs=0.005), pair
    beyond_aoc = by_pair[("r10", "r11")]                       # 50.93 m: beyond the AOC reach
    assert (beyond_aoc.a_transceiver, beyond_aoc.sku, beyond_aoc.b_transceiver) == (
        "LR", "OS2", "LR")                                       # two optics and a patch cord


FLOORS = {
    "hall": hall_floor(),
    "hall-no-middle-trays": hall_floor(hall=dict(cross_tray_every=0)),
    "corridor": hall_floor(hall=dict(links="corridor", cross_tray_every=3)),
    "grid": hall_floor(hall=None, cabinets_per_row=12),
}


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_polyline_is_the_vectorised_length(name):
    """``route_segments`` (one cable, trays tried one by one) against ``route_length_m``
    (all cables at once): (sum of pieces + per cable) x slack, for 300 random pairs."""
    floor = FLOORS[name]
    rng = np.random.default_rng(1)
    n = 300
    hall = rng.integers(0, 3 if floor.hall else 1, (2, n))
    row, col = rng.integers(0, 4, (2, n)), rng.integers(0, 12, (2, n))
    same = (hall[0] == hall[1]) & (row[0] == row[1]) & (col[0] == col[1])
    room = room_of(floor, hall.ravel(), row.ravel(), col.ravel())
    lengths = route_length_m(room, hall[0], row[0], col[0], hall[1], row[1], col[1], same)
    for i in range(n):
        pieces = route_segments(room, (hall[0, i], row[0, i], col[0, i]),
                                (hall[1, i], row[1, i], col[1, i]), bool(same[i]))
        total = sum(p.length_m for p in pieces)
        if not same[i]:
            total += floor.overhead_per_cable_m
        assert total * 1.1 == pytest.approx(lengths[i], abs=1e-9), i
        _check_polyline(room, pieces, same[i])


def _check_polyline(room, pieces, same) -> None:
    """Pieces join end to start, run along one axis, and stay in the hall."""
    if same:
        assert [p.kind for p in pieces] == ["cabinet"]
        return
    assert pieces[0].kind == "rise" and pieces[-1].kind == "drop"
    for prev, nxt in zip(pieces, pieces[1:]):
        if nxt.kind == "hall link":
            assert np.allclose(prev.end, (*room.entry_xy, 0.0))   # leaves at the hall entry
        elif prev.kind == "hall link":
            assert np.allclose(nxt.start, (*room.entry_xy, 0.0))  # enters the other hall there
        else:
            assert np.allclose(prev.end, nxt.start)
    for p in pieces:
        moved = np.abs(np.subtract(p.end, p.start)) > 1e-12
        assert moved.sum() <= 1                                  # axis-aligned
        if room.is_hall and p.hall is not None:
            for x, y, _ in (p.start, p.end):
                assert room.entry_xy[0] - 1e-9 <= x <= room.cross_x[-1] + 1e-9
                assert room.entry_xy[1] - 1e-9 <= y <= (room.rows - 1) * 2.4 + 1e-9


def test_route_segments_of_a_cross_hall_cable():
    room = room_of(hall_floor(), [0, 1], [0, 3], [0, 11])
    pieces = route_segments(room, (0, 1, 2), (1, 2, 4))
    assert [(p.hall, p.kind) for p in pieces] == [
        (0, "rise"), (0, "row tray"), (0, "cross tray"), (None, "hall link"), (1, "cross tray"),
        (1, "row tray"), (1, "drop")]
    assert [round(p.length_m, 6) for p in pieces] == [0.5, 1.5, 4.2, 30.0, 6.6, 2.7, 0.5]


def test_abstract_grid_keeps_manhattan_lengths_and_gets_route_kinds():
    """The papers' floors: the published Manhattan + 2 m, and kinds row / cross-row."""
    from planner.inputs.floor import load_floor

    floor = load_floor("sc14")
    room = room_of(floor, [0, 0], [0, 2], [0, 3])
    assert float(route_length_m(room, 0, 0, 0, 0, 2, 3)) == pytest.approx(7.0)
    assert float(route_length_m(room, 0, 1, 1, 0, 1, 1, True)) == pytest.approx(1.0)
    kinds = route_kind([0, 0, 0], [0, 0, 1], [0, 0, 0], [0, 2, 1], [False, False, True])
    assert [KINDS[k] for k in kinds] == ["row", "cross-row", "cabinet"]


def test_routes_are_vectorised_over_many_cables():
    """200,000 cables in one call; a sample agrees with the polylines of single cables."""
    floor = hall_floor(hall=dict(rows=16, cabinets_per_row=30, cross_tray_every=7))
    rng = np.random.default_rng(0)
    n = 200_000
    a, b = rng.integers(0, 16 * 30, n), rng.integers(0, 16 * 30, n)
    room = room_of(floor, [0], [15], [29])
    lengths = route_length_m(room, 0, a // 30, a % 30, 0, b // 30, b % 30, a == b)
    assert lengths.shape == (n,) and np.isfinite(lengths).all()
    for i in rng.choice(n, 50, replace=False):
        pieces = route_segments(room, (0, a[i] // 30, a[i] % 30), (0, b[i] // 30, b[i] % 30),
                                bool(a[i] == b[i]))
        extra = 0.0 if a[i] == b[i] else floor.overhead_per_cable_m
        assert (sum(p.length_m for p in pieces) + extra) * 1.1 == pytest.approx(lengths[i])
