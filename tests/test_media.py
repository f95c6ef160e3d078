"""Which parts carry a link: membership / reach, cheapest part whatever the catalog order,
transceivers + fibre, twin-port and splitter parts on breakout cages, paper mode, latency."""

import numpy as np
import pytest

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.floor import load_floor
from planner.inputs.parts.media import (choose_media, choose_parts, end_watts, latency_ns, media_of,
                                        part_numbers)
from planner.run.errors import InputError


def _pick(catalog_name, floor_name, lengths, same, **options):
    catalog = load_catalog(catalog_name)
    sku, order, price = choose_media(catalog, load_floor(floor_name), lengths, same, **options)
    return [catalog.cables[i].sku for i in sku], order, price


# (catalog, floor, length, same group, expected part, expected order length of the cable/fibre)
CASES = [
    # 100G passive DAC reaches exactly 5 m; just above goes optical (AOC, next stock 10 m).
    ("modern-100g", "hot-aisle", 5.0, True, "MCP1600", 5.0),
    ("modern-100g", "hot-aisle", 5.0001, True, "MFA1A00", 10.0),
    ("modern-100g", "hot-aisle", 2.6, True, "MCP1600", 3.0),
    # Reach floors: copper wherever it reaches, whatever the electrical groups; on a
    # membership floor (the papers' reading) a link between groups is optical however short.
    ("modern-100g", "hot-aisle", 0.3, False, "MCP1600", 0.5),
    ("modern-100g", "hot-aisle", 5.0, False, "MCP1600", 5.0),
    ("modern-100g", "pn-500", 0.3, False, "MFA1A00", 3.0),
    ("modern-100g", "pn-500", 0.3, True, "MCP1600", 0.5),
    # beyond the 100 m AOC: CWDM4 optics on a 150 m single-mode cord
    ("modern-100g", "hot-aisle", 120.0, False, "MMA1L30-CM", 150.0),
    # HDR DAC 2 m then active copper 3-4 m, then AOC.
    ("hdr-200g", "hot-aisle", 2.0, True, "MCP1650", 2.0),
    ("hdr-200g", "hot-aisle", 2.01, True, "MCA1J00", 3.0),
    ("hdr-200g", "hot-aisle", 4.0, True, "MCA1J00", 4.0),
    ("hdr-200g", "hot-aisle", 4.01, True, "MFS1S00", 5.0),
    ("hdr-200g", "hot-aisle", 1.0, False, "MCP1650", 1.0),
    ("hdr-200g", "pn-500", 1.0, False, "MFS1S00", 3.0),
    # NDR twin-port cages: twin DAC 2 m, twin ACC 3-5 m, then twin-port SR8 optics on OM4 (to
    # 50 m) and DR8 optics on single-mode (to 500 m); no AOC fits a twin-port cage.
    ("ndr-400g", "hot-aisle", 2.0, True, "MCP4Y10", 2.0),
    ("ndr-400g", "hot-aisle", 2.01, True, "MCA4J80", 3.0),
    ("ndr-400g", "hot-aisle", 5.0, True, "MCA4J80", 5.0),
    ("ndr-400g", "hot-aisle", 5.01, True, "MMA4Z00-NS", 7.0),
    ("ndr-400g", "hot-aisle", 30.0, False, "MMA4Z00-NS", 30.0),
    ("ndr-400g", "hot-aisle", 50.01, False, "MMS4X00-NM", 70.0),
    # Membership rule (papers): same group -> copper, cut to length, but never beyond 7 m reach.
    ("sc14-40g", "sc14", 7.0, True, "SC14-CU-40G", 7.0),
    ("sc14-40g", "sc14", 7.01, True, "SC14-OPT-40G", 7.01),
    ("sc14-40g", "sc14", 1.0, False, "SC14-OPT-40G", 1.0),
]


@pytest.mark.parametrize("cat,floor,length,same,sku,order", CASES)
def test_media_choice_at_reach_boundaries(cat, floor, length, same, sku, order):
    catalog = load_catalog(cat)
    skus, orders, _ = _pick(cat, floor, [length], [same], router=catalog.routers[0])
    assert skus == [sku]
    assert orders[0] == pytest.approx(order)


def test_vectorised_choice_matches_one_by_one():
    lengths = np.array([0.4, 1.7, 2.0, 2.2, 4.4, 6.0, 12.0, 45.0, 120.0])
    same = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0], dtype=bool)
    skus, orders, prices = _pick("ndr-400g", "hot-aisle", lengths, same)
    for i, (length, s) in enumerate(zip(lengths, same)):
        one = _pick("ndr-400g", "hot-aisle", [length], [s])
        assert (one[0][0], one[1][0], one[2][0]) == (skus[i], orders[i], prices[i])


def test_cheapest_copper_wins_over_optical_and_prices_follow_the_table():
    skus, orders, prices = _pick("modern-100g", "hot-aisle", [0.4, 1.2], [True, True])
    assert skus == ["MCP1600"] * 2
    np.testing.assert_allclose(orders, [0.5, 1.5])
    np.testing.assert_allclose(prices, [75.0, 85.0])


def _shuffled_catalog() -> Catalog:
    """Parts listed from the most to the least expensive: two AOCs, two transceivers, two fibre
    cords of one type. The cheapest way is the last AOC up to 20 m, then the last transceiver
    on the last (cheapest) fibre."""
    def aoc(sku, fixed, reach):
        return dict(sku=sku, media="optical", kind="aoc", rate_gbps=100, max_reach_m=reach,
                    stock_lengths=[5, 10, 20][: [5, 10, 20].index(reach) + 1],
                    part_numbers=sku + "-{m}M", price={"fixed": fixed, "per_m": 1},
                    netbox_type="aoc", color="Aqua")

    def fibre(sku, fixed):
        return dict(sku=sku, media="optical", kind="fibre", fibre="om4", max_reach_m=100,
                    stock_lengths=[10, 50, 100], part_numbers=sku + "-{m}M",
                    price={"fixed": fixed, "per_m": 1}, netbox_type="mmf-om4", color="Aqua")

    return Catalog.model_validate(dict(
        name="shuffled",
        routers=[dict(sku="SW", vendor="v", rate_gbps=100, lanes_per_port=4, radix=32,
                      price={"fixed": 1000}, watts_per_lane=1, rack_units=1)],
        cables=[aoc("AOC-DEAR", 500, 20), aoc("AOC-CHEAP", 100, 10),
                dict(sku="SR4-DEAR", media="optical", kind="transceiver", rate_gbps=100,
                     max_reach_m=100, loss_budget_db=1.9, fibre="om4", price={"fixed": 400},
                     watts_per_end=3),
                dict(sku="SR4-CHEAP", media="optical", kind="transceiver", rate_gbps=100,
                     max_reach_m=100, loss_budget_db=1.9, fibre="om4", price={"fixed": 100},
                     watts_per_end=2),
                fibre("FIB-DEAR", 90), fibre("FIB-CHEAP", 10)]))


# (length, AOC or transceiver, fibre, order length, price per link), computed by hand:
#   AOC-CHEAP to 10 m: 100 + L; AOC-DEAR to 20 m: 500 + L;
#   SR4-CHEAP pair + FIB-CHEAP: 2 x 100 + 10 + L  (the dear ones add 600 and 80)
SHUFFLED = [(3.0, "AOC-CHEAP", None, 5.0, 105.0), (10.0, "AOC-CHEAP", None, 10.0, 110.0),
            (12.0, "SR4-CHEAP", "FIB-CHEAP", 50.0, 260.0),
            (80.0, "SR4-CHEAP", "FIB-CHEAP", 100.0, 310.0)]


@pytest.mark.parametrize("length,part,fibre,order,price", SHUFFLED)
def test_cheapest_part_whatever_the_catalog_order(length, part, fibre, order, price):
    catalog = _shuffled_catalog()
    got = choose_parts(catalog, load_floor("hot-aisle"), [length], [False])
    assert catalog.cables[got.part[0]].sku == part
    assert (catalog.cables[got.fibre[0]].sku if got.fibre[0] >= 0 else None) == fibre
    assert got.order_length[0] == order and got.price[0] == pytest.approx(price)
    numbers = part_numbers(catalog, got)
    cut = fibre or part
    assert numbers["sku"][0] == f"{cut}-{order:g}M"
    assert numbers["a_transceiver"][0] == numbers["b_transceiver"][0] == \
        ("" if fibre is None else part)
    # the same choice when the catalog lists the parts the other way round
    reverse = catalog.model_copy(update={"cables": catalog.cables[::-1]})
    again = choose_parts(reverse, load_floor("hot-aisle"), [length], [False])
    assert reverse.cables[again.part[0]].sku == part and again.price[0] == got.price[0]


# NDR endpoint links (router end on a twin-port cage, NIC end single-port), by hand:
#   1.5 m in a cabinet: MCP7Y00 splitter, 270 $ for two NICs -> 135 $ per link;
#   4 m: no splitter reaches (3 m): half an MMA4Z00-NS (600) + MMA4Z00-NS400 (600) + 5 m fibre
#   (30 + 1.5 x 5) = 1237.50 $; the ends draw 17 / 2 = 8.5 W and 9 W.
ENDPOINT = [(1.5, "MCP7Y00", -1, 1.5, 135.0, 0.1, 0.1),
            (4.0, "MMA4Z00-NS", "MMA4Z00-NS400", 5.0, 1237.5, 8.5, 9.0)]


@pytest.mark.parametrize("length,part,nic,order,price,a_w,b_w", ENDPOINT)
def test_ndr_endpoint_links_use_splitters_or_single_port_nic_optics(length, part, nic, order,
                                                                     price, a_w, b_w):
    catalog = load_catalog("ndr-400g")
    got = choose_parts(catalog, load_floor("hot-aisle"), [length], [True],
                       router=catalog.routers[0], endpoint=True)
    assert catalog.cables[got.part[0]].sku == part
    assert (catalog.cables[got.nic_part[0]].sku if got.nic_part[0] >= 0 else -1) == nic
    assert got.order_length[0] == order and got.price[0] == pytest.approx(price)
    a, b = end_watts(catalog, got)
    assert (a[0], b[0]) == (pytest.approx(a_w), pytest.approx(b_w))


@pytest.mark.parametrize("parallel,price", [(1, 300.0), (2, 150.0), (3, 200.0), (4, 150.0)])
def test_twin_port_copper_costs_whole_cables_per_router_pair(parallel, price):
    """A 2 m MCP4Y10 (300 $) carries 2 links between one switch pair: ceil(m / 2) cables for m
    parallel links, so 300 $ per link for a single link and 200 $ per link for three."""
    catalog = load_catalog("ndr-400g")
    sku, _, got = choose_media(catalog, load_floor("hot-aisle"), [1.8], [True],
                               router=catalog.routers[0], parallel=parallel)
    assert catalog.cables[sku[0]].sku == "MCP4Y10" and got[0] == pytest.approx(price)


def test_no_optical_reaches_names_the_length():
    with pytest.raises(InputError, match=r"no optical cable reaches 600\.00 m.*500"):
        _pick("ndr-400g", "hot-aisle", [3.0, 600.0], [False, False])


def test_paper_mode_prices_optical_at_average_but_orders_real_length():
    catalog = load_catalog("sc14-40g").with_optical_average(5.1)
    sku, order, price = choose_media(catalog, load_floor("sc14"), [1.0, 3.0, 20.0],
                                     [True, False, False])
    assert list(media_of(catalog, sku)) == ["electrical", "optical", "optical"]
    np.testing.assert_allclose(order, [1.0, 3.0, 20.0])
    np.testing.assert_allclose(price, [39.40, 309.7276, 309.7276], atol=1e-6)


def test_paper_mode_skips_parts_that_cannot_be_ordered_at_the_average_length():
    """At 60 m the 50 m multimode fibre cannot be priced; the 10 m link takes the single-mode
    optics with the fibre priced at its 70 m stock length: 1800 + 30 + 70 $, not an error."""
    catalog = load_catalog("ndr-400g").with_optical_average(60.0)
    sku, order, price = choose_media(catalog, load_floor("hot-aisle"), [10.0], [False])
    assert catalog.cables[sku[0]].sku == "MMS4X00-NM"
    assert (order[0], price[0]) == (10.0, pytest.approx(1800 + 30 + 70))
    with pytest.raises(InputError, match=r"optical average length is 600 m but the longest "
                                         r"optical cable is 500 m"):
        load_catalog("ndr-400g").with_optical_average(600.0)


# stock-length rounding: (catalog, sku, raw length, ordered length; nan = cannot serve)
ROUNDING = [
    ("modern-100g", "MCP1600", 0.2, 0.5), ("modern-100g", "MCP1600", 0.5, 0.5),
    ("modern-100g", "MCP1600", 0.51, 1.0), ("modern-100g", "MCP1600", 2.6, 3.0),
    ("modern-100g", "MCP1600", 3.2, 5.0), ("modern-100g", "MCP1600", 5.1, np.nan),
    ("ndr-400g", "MFP7E10", 10.0, 10.0), ("ndr-400g", "MFP7E10", 10.2, 15.0),
    ("sc14-40g", "SC14-CU-40G", 3.37, 3.37), ("sc14-40g", "SC14-CU-40G", 7.5, np.nan),
]


@pytest.mark.parametrize("cat,sku,length,expected", ROUNDING)
def test_stock_length_rounding(cat, sku, length, expected):
    model = load_catalog(cat).cable(sku)
    got = model.order_length(length)
    assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected)
    arr = model.order_length(np.array([length, length]))
    np.testing.assert_allclose(arr, [expected, expected])


@pytest.mark.parametrize("media,length,ns", [("electrical", 2.0, 9.0), ("optical", 10.0, 49.0),
                                             ("electrical", 0.0, 0.0)])
def test_latency(media, length, ns):
    assert latency_ns(media, length) == pytest.approx(ns)


def test_latency_vectorised_and_rejects_unknown_media():
    np.testing.assert_allclose(latency_ns(np.array(["electrical", "optical"]), [1.0, 1.0]),
                               [4.5, 4.9])
    with pytest.raises(ValueError):
        latency_ns("copper", 1.0)
