"""Cost and power model against Projective Networks Tables 4-6 and Galaxyfly Table 3.

The cable counts (T, R, N_r, E, O) are the published ones, copied from Projective Networks §5.3
Tables 4-5 and §6 Table 6 and Galaxyfly §6.3 Table 3 (where each is printed: docs/topologies.md
"Published tables the tests reproduce"); this checks the cost model, not topologies.
"""

import numpy as np
import pytest

from planner import costing
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import cable_length_m, load_floor
from planner.inputs.parts.media import choose_media

# (row, catalog, T endpoints, R radix, N_r routers, E electrical, O optical, $/node, W/node)
PN_TABLES = [
    ("T4 Hamming K22^2", "sc14-40g-pn10k", 10648, 64, 484, 5082, 5082, 1145.41, 8.15),
    ("T4 demi-PN q=27", "sc14-40g-pn10k", 10598, 42, 757, 556, 10028, 1282.59, 8.40),
    ("T4 SF MMS q=19", "sc14-40g-pn10k", 9386, 42, 722, 3971, 6498, 1294.51, 9.05),
    ("T4 PN q=23", "sc14-40g-pn10k", 9954, 33, 1106, 1907, 11365, 1546.83, 10.27),
    ("T4 Dragonfly h=7", "sc14-40g-pn10k", 9702, 27, 1386, 8926, 4514, 1404.42, 10.80),
    ("T5 Hamming K29^2", "sc14-40g-pn25k", 24389, 85, 841, 5684, 17864, 1237.43, 8.21),
    ("T5 demi-PN q=37", "sc14-40g-pn25k", 26733, 57, 1407, 620, 26094, 1314.29, 8.40),
    ("T5 SF MMS q=27", "sc14-40g-pn25k", 26244, 59, 1458, 10935, 18954, 1344.11, 9.18),
    ("T5 PN q=31", "sc14-40g-pn25k", 25818, 45, 1986, 3381, 28395, 1497.77, 9.70),
    ("T5 Dragonfly h=9", "sc14-40g-pn25k", 26406, 35, 2934, 25101, 13041, 1457.39, 10.89),
    ("T6 MLFM 22", "sc14-40g-pn10k", 9702, 42, 693, 0, 9702, 1297.18, 8.4),
    ("T6 MLFM 30", "sc14-40g-pn25k", 25230, 58, 1305, 0, 25230, 1321.76, 8.4),
    ("T6 OFT 16", "sc14-40g-pn10k", 9282, 34, 819, 0, 9282, 1282.19, 8.4),
    ("T6 OFT 23", "sc14-40g-pn25k", 26544, 48, 1659, 0, 26544, 1312.14, 8.4),
]


def _cables(floor, n_electrical, n_optical, seed=0):
    """Intra-group cables (same cabinet) and inter-group cables at assorted real lengths."""
    rng = np.random.default_rng(seed)
    rows_b, cols_b = rng.integers(0, 5, n_optical), rng.integers(1, 5, n_optical)
    same = np.r_[np.ones(n_electrical, bool), np.zeros(n_optical, bool)]
    zeros = np.zeros(n_electrical + n_optical, dtype=np.int64)
    rb = np.r_[np.zeros(n_electrical, np.int64), rows_b]
    cb = np.r_[np.zeros(n_electrical, np.int64), cols_b]
    return cable_length_m(floor, zeros, zeros, rb, cb, same), same


@pytest.mark.parametrize("row,cat,T,R,Nr,E,O,dollars,watts", PN_TABLES,
                         ids=[r[0] for r in PN_TABLES])
def test_projective_networks_tables(row, cat, T, R, Nr, E, O, dollars, watts):
    catalog = load_catalog(cat)
    floor = load_floor("pn-500")
    lengths, same = _cables(floor, E, O)
    sku, order, price = choose_media(catalog, floor, lengths, same)
    media = np.array([catalog.cables[i].media for i in sku])
    assert (media == "electrical").sum() == E and (media == "optical").sum() == O
    router = catalog.router_for(R)
    result = costing.totals(catalog, router, R, T, price, sku, num_routers=Nr)
    assert result.per_endpoint == pytest.approx(dollars, abs=0.05)
    assert result.per_endpoint_w == pytest.approx(watts, abs=0.01)


@pytest.mark.parametrize("length,per_gbps", [(5.1, 7.7432), (7.0, 7.9178)])
def test_with_optical_average_matches_published_unit_price(length, per_gbps):
    catalog = load_catalog("sc14-40g").with_optical_average(length)
    floor = load_floor("sc14")
    _, _, price = choose_media(catalog, floor, [0.5, 30.0, 80.0], [False, False, False])
    np.testing.assert_allclose(price, 40 * per_gbps, atol=0.01)


def test_per_cable_lengths_with_mean_equal_to_average_give_the_paper_total():
    """docs/models.md "Cost": c_o is linear, so Σ c_o(x_i) = n·c_o(mean x)."""
    plain, paper = load_catalog("sc14-40g"), load_catalog("sc14-40g-pn10k")
    floor = load_floor("sc14")
    lengths = np.array([3.0, 4.1, 5.1, 6.1, 7.2])
    _, _, real = choose_media(plain, floor, lengths, False)
    _, _, avg = choose_media(paper, floor, lengths, False)
    assert real.sum() == pytest.approx(avg.sum(), abs=1e-9)
    assert not np.allclose(real, avg)


# Galaxyfly Table 3 (Lei et al., Galaxyfly, ICS'16 §6.3; docs/topologies.md "gf-t3"): W/terminal = 2.8·k·N_r/N + 10; published to 0.1 W.
GALAXYFLY = [("DF", 29412, 3268, 36, 21.2), ("FB-3", 28561, 2197, 49, 20.6),
             ("FT-3", 31250, 3125, 50, 24.0), ("SF", 29160, 1458, 61, 18.5),
             ("GF k=26", 29400, 3675, 26, 19.1), ("GF k=27", 31725, 3525, 27, 18.4),
             ("GF k=40", 31080, 1554, 40, 15.6)]


@pytest.mark.parametrize("row,N,Nr,k,watts", GALAXYFLY, ids=[r[0] for r in GALAXYFLY])
def test_galaxyfly_power_adds_10_w_per_nic(row, N, Nr, k, watts):
    catalog = load_catalog("sc14-40g-galaxyfly")
    result = costing.totals(catalog, catalog.router_for(k), k, N, [], num_routers=Nr)
    assert result.nic_w == 10 * N
    assert result.per_endpoint_w == pytest.approx(watts, abs=0.05)


@pytest.mark.parametrize("ports,dollars,watts", [(42, 13824.5, 117.6), (64, 21533.3, 179.2),
                                                 (27, 8568.5, 75.6)])
def test_sc14_router_price_and_serdes_power(ports, dollars, watts):
    model = load_catalog("sc14-40g").router_for(ports)
    assert costing.router_cost(model, ports) == pytest.approx(350.4 * ports - 892.3)
    assert costing.router_cost(model, ports) == pytest.approx(dollars)
    assert costing.serdes_power_w(model, ports) == pytest.approx(watts)
    np.testing.assert_allclose(costing.router_cost(model, np.array([ports, ports])), dollars)


@pytest.mark.parametrize("sku,length,dollars", [("SC14-CU-40G", 1.0, 39.40),
                                                ("SC14-OPT-40G", 5.1, 309.7276),
                                                ("SC14-OPT-40G", 7.0, 316.712)])
def test_sc14_cable_prices(sku, length, dollars):
    model = load_catalog("sc14-40g").cable(sku)
    assert costing.cable_cost(model, length) == pytest.approx(dollars, abs=1e-3)


def test_active_cable_power_and_summary_blocks():
    catalog = load_catalog("ndr-400g")
    floor = load_floor("hot-aisle")
    sku, _, price = choose_media(catalog, floor, [1.0, 4.0, 40.0], [True, True, False])
    skus = [catalog.cables[i].sku for i in sku]
    assert skus == ["MCP4Y10", "MCA4J80", "MMA4Z00-NS"]
    # a twin-port DAC / ACC for a single link between two switches is a whole cable; the
    # twin-port optics cost half a module per end plus the 40 m (50 m stock) fibre
    np.testing.assert_allclose(price, [240, 760, 1200 + 30 + 1.5 * 50])
    router = catalog.router_for(64)
    t = costing.totals(catalog, router, np.array([64, 60]), 100, price, sku)
    assert t.cable_w == pytest.approx(2 * (0.2 / 2 + 3.0 / 2 + 17 / 2))   # per port
    # chassis base: the QM9700/QM9790 data sheet's 747 W typical with passive cables, less
    # the SerDes of its 64 ports (64 x 4 lanes x 1.5 W), once per switch
    assert router.base_watts == pytest.approx(747 - 64 * 4 * 1.5)
    assert t.router_w == pytest.approx((64 + 60) * 4 * 1.5 + 2 * (747 - 64 * 4 * 1.5))
    assert t.routers == pytest.approx(2 * router.price(64))
    # the catalog's default HCA (ConnectX-7, MCX75310AAS-NEAT) is one per endpoint
    assert catalog.nic.sku == "MCX75310AAS-NEAT"
    assert t.nics == pytest.approx(100 * catalog.nic.price) and catalog.nic.price > 0
    assert t.nic_w == pytest.approx(100 * catalog.nic.watts) and catalog.nic.watts > 0
    assert t.total == pytest.approx(t.routers + price.sum() + 100 * catalog.nic.price)
    s = t.summary()
    assert set(s["cost"]) == {"routers", "cables", "nics", "total", "per_endpoint"}
    assert t.nics == s["cost"]["nics"]
    assert s["power"]["total_w"] == round(t.total_w, 3)
    assert s["power"]["per_endpoint_w"] == round(t.total_w / 100, 3)
