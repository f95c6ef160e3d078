"""A hand-computed plan, checked cable by cable: Slim Fly q=5 on a 2x3 floor.

Topology: MMS(5) (Besta & Hoefler, Slim Fly, SC14 §3.1), 50 routers of network degree 7, p=3
endpoints each (radix 10), 175 router-router links. Hand-made placement, the Slim Fly rack layout
(docs/topologies.md "Slim Fly", grouping hint: racks): rack x holds routers (0,x,.) ∪ (1,x,.) =
ids {5x..5x+4} ∪ {25+5x..25+5x+4}; racks 0..4 go to cabinets A01 A02 A03 B01 B02 (row A =
electrical group 0, row B = group 1). Every rack has 15 internal links and every pair of racks
2q = 10 links (docs/topologies.md "Slim Fly").

Floor: pitch 0.6 m, row pitch 1.2 + 1.2 = 2.4 m, +0.5 m per end, +10 % slack, 1.5 m inside a
cabinet. Hand-computed lengths (m) and the media/stock length they get from the test catalog
(DAC 1/2/3 m at $50/60/70, reach 3 m; AOC 5/10/20 m at $200 + $10/m, 1.5 W per end):

    same cabinet        1.5 x 1.1             = 1.65  DAC 2 m   $60   75 cables + 150 endpoint
    A01-A02, A02-A03,   (0.6 + 1.0) x 1.1     = 1.76  DAC 2 m   $60   30 cables
    B01-B02
    A01-A03             (1.2 + 1.0) x 1.1     = 2.42  DAC 3 m   $70   10 cables
    A01-B01, A02-B02    (2.4 + 1.0) x 1.1     = 3.74  AOC 5 m   $250  20 cables
    A01-B02, A02-B01,   (3.0 + 1.0) x 1.1     = 4.40  AOC 5 m   $250  30 cables
    A03-B02
    A03-B01             (3.6 + 1.0) x 1.1     = 5.06  AOC 10 m  $300  10 cables

Totals: network cables 105·60 + 10·70 + 50·250 + 10·300 = $22,500, endpoint cables 150·60 =
$9,000, routers 50 × $10,000; total $531,500 = $3,543.33 per endpoint. Power: 50 routers × 10
ports × 4 lanes × 1 W = 2,000 W + 60 AOC × 2 × 1.5 W = 180 W + 150 NICs × 5 W = 750 W = 2,930 W.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from planner import cabling
from planner.inputs.catalog import Catalog
from planner.inputs.floor import Floor
from planner.placement.result import Placement
from planner.plan import plan
from planner.run.errors import InputError
from planner.topologies.slimfly import slimfly

CAB_NAMES = ("A01", "A02", "A03", "B01", "B02")
CAB_ROW = np.array([0, 0, 0, 1, 1])
CAB_COL = np.array([0, 1, 2, 0, 1])


def make_floor(**changes) -> Floor:
    fields = dict(name="test-2x3", cabinet_width_m=0.6, cabinet_depth_m=1.2,
                  cabinet_height_ru=42, pitch_m=0.6, aisle_m=1.2, cabinets_per_row=3,
                  max_cabinets=6, router_slots=10, endpoint_slots=30, group_cabinets=3,
                  intra_cabinet_m=1.5, overhead_per_end_m=0.5, slack_pct=10,
                  first_router_ru=31, first_endpoint_ru=1, endpoint_ru=1, media_rule="reach")
    fields.update(changes)
    return Floor(**fields)


def make_catalog(**changes) -> Catalog:
    data = dict(
        name="test-cat",
        nic=dict(sku="NIC-100", vendor="Acme", description="100G NIC", price=300, watts=5),
        routers=[dict(sku="SW-16", vendor="Acme", description="16-port switch", rate_gbps=100,
                      lanes_per_port=4, radix=16, price={"fixed": 10000}, watts_per_lane=1.0,
                      rack_units=1)],
        cables=[dict(sku="DAC", description="copper", media="electrical", kind="dac",
                     rate_gbps=100, max_reach_m=3, stock_lengths=[1, 2, 3],
                     price={"table": {1: 50, 2: 60, 3: 70}}, netbox_type="dac-passive",
                     color="Black"),
                dict(sku="AOC", description="active optical", media="optical", kind="aoc",
                     rate_gbps=100, max_reach_m=30, stock_lengths=[5, 10, 20],
                     price={"fixed": 200, "per_m": 10}, watts_per_end=1.5, netbox_type="aoc",
                     color="Aqua")])
    data.update(changes)
    return Catalog.model_validate(data)


def sf_rack_placement(q: int = 5) -> Placement:
    """Slim Fly racks (docs/topologies.md): router (s, x, y) (id s*q*q + x*q + y) goes to
    cabinet x."""
    routers = np.arange(2 * q * q)
    return Placement(router_cabinet=(routers % (q * q)) // q, cabinet_row=CAB_ROW,
                     cabinet_col=CAB_COL, cabinet_group=CAB_ROW.copy(), cabinet_names=CAB_NAMES,
                     strategy="hint", method="hand", optical=60, lower_bound=60.0,
                     lower_bound_kind="hand")


@pytest.fixture(scope="module")
def hand_plan():
    return plan(slimfly(5, p=3), make_catalog(), make_floor(), placement=sf_rack_placement())


# Hand-computed (length, media, sku, order length, price) per cabinet pair (see module doc).
PAIR_EXPECTED = {
    ("A01", "A01"): (1.65, "DAC", 2.0, 60.0), ("A01", "A02"): (1.76, "DAC", 2.0, 60.0),
    ("A02", "A03"): (1.76, "DAC", 2.0, 60.0), ("B01", "B02"): (1.76, "DAC", 2.0, 60.0),
    ("A01", "A03"): (2.42, "DAC", 3.0, 70.0), ("A01", "B01"): (3.74, "AOC", 5.0, 250.0),
    ("A02", "B02"): (3.74, "AOC", 5.0, 250.0), ("A01", "B02"): (4.40, "AOC", 5.0, 250.0),
    ("A02", "B01"): (4.40, "AOC", 5.0, 250.0), ("A03", "B02"): (4.40, "AOC", 5.0, 250.0),
    ("A03", "B01"): (5.06, "AOC", 10.0, 300.0),
}


def test_every_cable_matches_the_hand_computed_pair_values(hand_plan):
    cables = hand_plan.cables
    for row in cables.itertuples(index=False):
        a, b = sorted((row.a_cabinet, row.b_cabinet))
        key = ("A01", "A01") if a == b else (a, b)
        length, sku, order, price = PAIR_EXPECTED[key]
        assert (row.length_m, row.sku, row.order_length_m, row.unit_price) == \
            (pytest.approx(length), sku, order, price), row
        assert row.media == ("electrical" if sku == "DAC" else "optical")
        assert row.latency_ns == pytest.approx(order * (4.5 if sku == "DAC" else 4.9))


@pytest.mark.parametrize("pair,count", [
    (("A01", "A01"), 15), (("A01", "A02"), 10), (("A01", "A03"), 10), (("A01", "B01"), 10),
    (("A03", "B01"), 10), (("B01", "B02"), 10), (("B02", "B02"), 15)])
def test_sf_rack_layout_link_counts(hand_plan, pair, count):
    net = hand_plan.cables[hand_plan.cables["kind"] == "network"]
    ends = pd.Series([tuple(sorted(p)) for p in zip(net["a_cabinet"], net["b_cabinet"])])
    assert int((ends == pair).sum()) == count


@pytest.mark.parametrize("cable_id,label,a,b", [
    # r00 = (0,0,0): endpoints n000-n002 on ports 1-3; peers 1, 4, 25, 30, 35, 40, 45 on 4..10.
    ("C001", "A01-31:04/A01-32:04", ("r00", 4, "A01", 31), ("r01", 4, "A01", 32)),
    ("C003", "A01-31:06/A01-36:04", ("r00", 6, "A01", 31), ("r25", 4, "A01", 36)),
    ("C005", "A01-31:08/A03-36:04", ("r00", 8, "A01", 31), ("r35", 4, "A03", 36)),
    ("C007", "A01-31:10/B02-36:04", ("r00", 10, "A01", 31), ("r45", 4, "B02", 36)),
    # endpoint cables follow the 175 network cables; n000 is in A01 at U1, n075 (r25's
    # first endpoint) is the 16th endpoint of A01 -> U16.
    ("C176", "A01-31:01/A01-01:01", ("r00", 1, "A01", 31), ("n000", 1, "A01", 1)),
    ("C251", "A01-36:01/A01-16:01", ("r25", 1, "A01", 36), ("n075", 1, "A01", 16)),
    ("C325", "B02-40:03/B02-30:01", ("r49", 3, "B02", 40), ("n149", 1, "B02", 30)),
])
def test_hand_computed_cables(hand_plan, cable_id, label, a, b):
    row = hand_plan.cables.set_index("cable_id").loc[cable_id]
    assert row["label"] == label
    assert (row["a_device"], row["a_port"], row["a_cabinet"], row["a_ru"]) == a
    assert (row["b_device"], row["b_port"], row["b_cabinet"], row["b_ru"]) == b


def test_ports_follow_endpoints_then_peer_order(hand_plan):
    ports = hand_plan.ports[hand_plan.ports["device"] == "r00"]
    assert len(ports) == 16                                   # the model's radix
    assert ports["peer_device"].tolist()[:10] == ["n000", "n001", "n002", "r01", "r04", "r25",
                                                  "r30", "r35", "r40", "r45"]
    assert ports["used"].tolist() == [True] * 10 + [False] * 6


def test_hand_computed_totals(hand_plan):
    s = hand_plan.summary
    assert s["cables"]["network"] == dict(count=175, electrical=115, optical=60,
                                          length_m=pytest.approx(458.15),
                                          order_length_m=pytest.approx(590.0),
                                          max_length_m=5.06, costed=True)
    assert s["cables"]["endpoint"]["count"] == 150
    assert s["cables"]["endpoint"]["length_m"] == pytest.approx(247.5)
    assert s["cables"]["by_sku"] == {"AOC": 60, "DAC": 265}
    assert s["cost"]["routers"] == 500_000
    assert s["cost"]["cables"] == 31_500
    assert s["cost"]["nics"] == 150 * 300
    assert s["cost"]["total"] == 576_500
    assert s["cost"]["per_endpoint"] == pytest.approx(3843.33)
    assert s["power"]["routers_w"] == 2000
    assert s["power"]["cables_w"] == 180
    assert s["power"]["nics_w"] == 750
    assert s["power"]["total_w"] == 2930
    assert s["power"]["per_endpoint_w"] == pytest.approx(19.533)


def test_hand_computed_bom(hand_plan):
    bom = hand_plan.bom
    lines = [(r.item, r.sku, None if np.isnan(r.length_m) else r.length_m, r.quantity,
              r.unit_price) for r in bom.itertuples()]
    assert lines == [("switch", "SW-16", None, 50, 10000.0), ("nic", "NIC-100", None, 150, 300.0),
                     ("cable", "DAC", 2.0, 255, 60.0), ("cable", "DAC", 3.0, 10, 70.0),
                     ("cable", "AOC", 5.0, 50, 250.0), ("cable", "AOC", 10.0, 10, 300.0)]
    assert bom["extended_price"].sum() == 576_500


def test_spares_are_rounded_up_per_cable_line():
    result = plan(slimfly(5, p=3), make_catalog(), make_floor(), placement=sf_rack_placement(),
                  spares_pct=10)
    assert result.bom["spares"].tolist() == [0, 0, 26, 1, 5, 1]
    assert result.summary["cost"]["spares"] == 26 * 60 + 70 + 5 * 250 + 300
    assert result.summary["cost"]["total"] == 576_500 + 26 * 60 + 70 + 5 * 250 + 300


def test_devices_and_cabinets(hand_plan):
    dev = hand_plan.devices.set_index("name")
    assert dev.loc["r29", ["cabinet", "ru"]].tolist() == ["A01", 40]
    assert dev.loc["n089", ["cabinet", "ru"]].tolist() == ["A01", 30]
    cab = hand_plan.cabinets
    assert cab["routers"].tolist() == [10] * 5
    assert cab["endpoints"].tolist() == [30] * 5
    assert cab["ru_used"].tolist() == [40] * 5


def test_no_endpoint_cables():
    result = plan(slimfly(5, p=3), make_catalog(), make_floor(), placement=sf_rack_placement(),
                  endpoint_cables=False)
    assert set(result.cables["kind"]) == {"network"}
    assert result.summary["cost"]["total"] == 500_000 + 22_500 + 150 * 300


def test_endpoints_without_rack_units_are_labelled_by_name():
    result = plan(slimfly(5, p=3), make_catalog(), make_floor(endpoint_ru=0),
                  placement=sf_rack_placement())
    row = result.cables.set_index("cable_id").loc["C251"]
    assert row["label"] == "A01-36:01/A01-N075:01"
    assert pd.isna(row["b_ru"])


@pytest.mark.parametrize("change,message", [
    (dict(first_router_ru=20, endpoint_slots=None), "two devices in RU 20"),
    (dict(cabinet_height_ru=35, first_router_ru=26, endpoint_slots=None,
          first_endpoint_ru=1, endpoint_ru=1), "two devices"),
    (dict(router_slots=8, endpoint_slots=None, max_cabinets=None), "field 'router_slots' is 8"),
])
def test_rack_unit_conflicts_are_input_errors(change, message):
    fields = dict(change)
    with pytest.raises(InputError, match=message):
        plan(slimfly(5, p=3), make_catalog(), make_floor(**fields),
             placement=sf_rack_placement())


def test_radix_below_topology_is_an_input_error():
    small = make_catalog(routers=[dict(sku="SW-8", vendor="Acme", rate_gbps=100,
                                       lanes_per_port=4, radix=8, price={"fixed": 1},
                                       watts_per_lane=1, rack_units=1)])
    with pytest.raises(InputError, match="radix 8"):
        plan(slimfly(5, p=3), small, make_floor(), placement=sf_rack_placement())


@pytest.mark.parametrize("values,width,expected", [
    ([1, 5, 40], 2, ["01", "05", "40"]),
    ([7, 100], 3, ["007", "100"]),
    ([12.5, np.nan], 2, ["12.5", ""]),
])
def test_unit_text(values, width, expected):
    assert cabling.unit_text(np.array(values, float), width).tolist() == expected


def test_device_names_are_padded_to_the_largest_id():
    assert cabling.device_names("router", 722)[[0, 721]].tolist() == ["r000", "r721"]
    assert cabling.device_names("endpoint", 10).tolist()[-1] == "n9"
