"""Media choice (membership / reach), stock-length rounding, paper mode, latency."""

import numpy as np
import pytest

from planner.catalog import load_catalog
from planner.errors import InputError
from planner.floor import load_floor
from planner.media import choose_media, latency_ns, media_of


def _pick(catalog_name, floor_name, lengths, same):
    catalog = load_catalog(catalog_name)
    sku, order, price = choose_media(catalog, load_floor(floor_name), lengths, same)
    return [catalog.cables[i].sku for i in sku], order, price


# (catalog, floor, length, same group, expected SKU, expected order length)
CASES = [
    # 100G passive DAC reaches exactly 5 m; just above goes optical (AOC, next stock 10 m).
    ("modern-100g", "hot-aisle", 5.0, True, "MCP1600-C0XX", 5.0),
    ("modern-100g", "hot-aisle", 5.0001, True, "MFA1A00-C0XX", 10.0),
    ("modern-100g", "hot-aisle", 2.6, True, "MCP1600-C0XX", 3.0),
    ("modern-100g", "hot-aisle", 0.3, False, "MFA1A00-C0XX", 3.0),
    # HDR DAC 2 m then active copper 3-4 m; NDR DAC 2 m then active copper 3-5 m, then AOC,
    # MM optics, SM optics. Outside one electrical group copper is never used.
    ("hdr-200g", "hot-aisle", 2.0, True, "MCP1650-H0XX", 2.0),
    ("hdr-200g", "hot-aisle", 2.01, True, "MCA1J00-H0XX", 3.0),
    ("hdr-200g", "hot-aisle", 4.0, True, "MCA1J00-H0XX", 4.0),
    ("hdr-200g", "hot-aisle", 4.01, True, "MFS1S00-H0XX", 5.0),
    ("hdr-200g", "hot-aisle", 1.0, False, "MFS1S00-H0XX", 3.0),
    ("ndr-400g", "hot-aisle", 2.0, True, "MCP4Y10-N0XX", 2.0),
    ("ndr-400g", "hot-aisle", 2.01, True, "MCA4J80-N0XX", 3.0),
    ("ndr-400g", "hot-aisle", 5.0, True, "MCA4J80-N0XX", 5.0),
    ("ndr-400g", "hot-aisle", 5.01, True, "AOC-400G-OSFP", 10.0),
    ("ndr-400g", "hot-aisle", 30.0, False, "AOC-400G-OSFP", 30.0),
    ("ndr-400g", "hot-aisle", 30.01, False, "SR4-400G-OM4-MPO", 50.0),
    ("ndr-400g", "hot-aisle", 50.01, False, "DR4-400G-OS2-MPO", 50.01),
    # Membership rule (papers): same group -> copper, cut to length, but never beyond 7 m reach.
    ("sc14-40g", "sc14", 7.0, True, "SC14-CU-40G", 7.0),
    ("sc14-40g", "sc14", 7.01, True, "SC14-OPT-40G", 7.01),
    ("sc14-40g", "sc14", 1.0, False, "SC14-OPT-40G", 1.0),
]


@pytest.mark.parametrize("cat,floor,length,same,sku,order", CASES)
def test_media_choice_at_reach_boundaries(cat, floor, length, same, sku, order):
    skus, orders, _ = _pick(cat, floor, [length], [same])
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
    assert skus == ["MCP1600-C0XX"] * 2
    np.testing.assert_allclose(orders, [0.5, 1.5])
    np.testing.assert_allclose(prices, [75.0, 85.0])


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


def test_paper_mode_skips_models_that_cannot_be_ordered_at_the_average_length():
    """At 40 m the 30 m AOC cannot be priced; the 10 m link takes the cheapest model that can
    (SR4 at its 50 m stock length: 1230 + 1.5 x 50 $), not an error."""
    catalog = load_catalog("ndr-400g").with_optical_average(40.0)
    sku, order, price = choose_media(catalog, load_floor("hot-aisle"), [10.0], [False])
    assert catalog.cables[sku[0]].sku == "SR4-400G-OM4-MPO"
    assert (order[0], price[0]) == (10.0, pytest.approx(1230 + 1.5 * 50))
    with pytest.raises(InputError, match=r"optical average length is 600 m but the longest "
                                         r"optical cable is 500 m"):
        load_catalog("ndr-400g").with_optical_average(600.0)


# stock-length rounding: (catalog, sku, raw length, ordered length; nan = cannot serve)
ROUNDING = [
    ("modern-100g", "MCP1600-C0XX", 0.2, 0.5), ("modern-100g", "MCP1600-C0XX", 0.5, 0.5),
    ("modern-100g", "MCP1600-C0XX", 0.51, 1.0), ("modern-100g", "MCP1600-C0XX", 2.6, 3.0),
    ("modern-100g", "MCP1600-C0XX", 3.2, 5.0), ("modern-100g", "MCP1600-C0XX", 5.1, np.nan),
    ("ndr-400g", "AOC-400G-OSFP", 10.0, 10.0), ("ndr-400g", "AOC-400G-OSFP", 10.2, 15.0),
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
