"""Catalog schema, built-ins, router choice, invalid catalog files, and the listing commands."""

from pathlib import Path

import pytest
import yaml

from planner.cli import main
from planner.inputs.catalog import COLOR_HEX, NETBOX_CABLE_TYPES, list_catalogs, load_catalog
from planner.run.errors import InputError

BAD = Path(__file__).parent / "fixtures" / "bad_catalogs"
BUILTINS = ["sc14-40g", "sc14-40g-pn10k", "sc14-40g-pn25k", "sc14-40g-galaxyfly",
            "modern-100g", "hdr-200g", "ndr-400g", "eth-51t", "xdr-800g"]


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_catalogs_load(name):
    assert name in list_catalogs()
    cat = load_catalog(name)
    assert cat.name == name
    assert {c.media for c in cat.cables} == {"electrical", "optical"}
    for cable in cat.cables:
        if cable.kind != "transceiver":            # a transceiver takes its fibre's type
            assert cable.netbox_type in NETBOX_CABLE_TYPES
            assert len(cable.color_hex) == 6


def test_sc14_constants_are_the_paper_model():
    cat = load_catalog("sc14-40g")
    router = cat.router_for(44)
    assert (router.price_rule.per_port, router.price_rule.fixed) == (350.4, -892.3)
    assert router.power_w(1) == pytest.approx(2.8)
    cu, opt = cat.cable("SC14-CU-40G"), cat.cable("SC14-OPT-40G")
    assert cu.price(3.0) == pytest.approx(40 * (0.4079 * 3 + 0.5771))
    assert opt.price(3.0) == pytest.approx(40 * (0.0919 * 3 + 7.2745))
    assert cu.stock_lengths == [] and opt.stock_lengths == []
    assert cat.optical_average_length_m is None and not cat.count_endpoint_cables


@pytest.mark.parametrize("variant,length,nic", [("sc14-40g-pn10k", 5.1, 0),
                                                ("sc14-40g-pn25k", 7.0, 0),
                                                ("sc14-40g-galaxyfly", None, 10)])
def test_sc14_variants_only_change_their_switch(variant, length, nic):
    base, cat = load_catalog("sc14-40g"), load_catalog(variant)
    assert cat.routers == base.routers and cat.cables == base.cables
    assert cat.optical_average_length_m == length and cat.nic_watts == nic and cat.nic_price == 0
    if length is not None:
        assert base.with_optical_average(length).optical_average_length_m == length


def test_with_optical_average_rejects_non_positive():
    with pytest.raises(InputError, match="optical average length must be a positive"):
        load_catalog("sc14-40g").with_optical_average(0)
    assert load_catalog("sc14-40g-pn10k").with_optical_average(None).optical_average_length_m \
        is None


# (catalog, passive DAC reach m, active copper reach m or None, kinds) from docs/models.md
# "Reach": 100G DAC 5 m (no ACC needed: 5 m is the top of the ACC class); HDR DAC 2 m; NDR and
# 400GbE DAC 2 m, ACC 5 m; XDR (200G lanes) DAC 1.5 m, LACC 3 m. Twin-port cages take no AOC.
# Every modern catalog carries trunks (and panels) for structured cabling (docs/catalogs.md).
MODERN = [("modern-100g", 5, None, {"dac", "aoc", "transceiver", "fibre", "trunk"}),
          ("hdr-200g", 2, 4, {"dac", "acc", "aoc", "transceiver", "fibre", "trunk"}),
          ("ndr-400g", 3, 5, {"dac", "acc", "transceiver", "fibre", "trunk"}),
          ("eth-51t", 3, 5, {"dac", "acc", "transceiver", "fibre", "trunk"}),
          ("xdr-800g", None, 3, {"acc", "transceiver", "fibre", "trunk"})]   # no passive XDR DAC


@pytest.mark.parametrize("name,dac,acc,kinds", MODERN)
def test_modern_catalogs_have_reach_limited_copper_and_a_64_port_router(name, dac, acc, kinds):
    cat = load_catalog(name)
    assert max(r.radix for r in cat.routers) >= 64
    assert {c.kind for c in cat.cables} == kinds
    assert max((c.max_reach_m for c in cat.cables if c.kind == "dac"), default=None) == dac
    accs = [c.max_reach_m for c in cat.cables if c.kind == "acc"]
    assert (max(accs) if accs else None) == acc
    assert all(c.stock_lengths for c in cat.cables if c.media == "electrical")
    assert len({m.rate_gbps for m in [*cat.routers, *cat.cables]} - {None}) == 1
    assert cat.panels and set(cat.structured_fibres()) == {p.fibre for p in cat.panels}


AOC_STOCK = [3, 5, 10, 15, 20, 30]             # NVIDIA MFS1S50 family (docs/models.md)
NDR_DAC_STOCK = [0.5, 1, 1.5, 2]               # NVIDIA MCP4Y10 (docs/models.md)


@pytest.mark.parametrize("name,kind,prefix", [
    ("ndr-400g", "dac", NDR_DAC_STOCK), ("hdr-200g", "dac", NDR_DAC_STOCK),
    ("modern-100g", "aoc", AOC_STOCK), ("hdr-200g", "aoc", AOC_STOCK),
])
def test_stock_lengths_follow_the_vendor_length_families(name, kind, prefix):
    cable = next(c for c in load_catalog(name).cables if c.kind == kind)
    assert cable.stock_lengths[:len(prefix)] == prefix


@pytest.mark.parametrize("name", ["modern-100g", "hdr-200g", "ndr-400g", "eth-51t", "xdr-800g",
                                  "sc14-40g"])
def test_every_price_and_power_figure_says_where_it_comes_from(name):
    """Each price/W/reach line carries a comment, or sits under a comment line (multi-line)."""
    lines = (Path(__file__).parents[1] / "catalogs" / f"{name}.yaml").read_text()
    lines = lines.splitlines()
    keys = ("price:", "watts_per_lane:", "watts_per_end:", "max_reach_m:", "stock_lengths:",
            "base_watts:")
    for i, line in enumerate(lines):
        if line.strip().lstrip("- ").startswith(keys):
            assert "#" in line or lines[i - 1].strip().startswith("#"), f"{name}:{i + 1}: {line}"


def test_ndr_has_active_copper_to_5_m_and_tia598_colours():
    cat = load_catalog("ndr-400g")
    acc = [c for c in cat.cables if c.kind == "acc"]
    assert acc and acc[0].max_reach_m == 5 and acc[0].netbox_type == "dac-active"
    colours = {c.netbox_type: c.color for c in cat.cables}
    assert colours["mmf-om4"] == "Aqua" and colours["smf-os2"] == "Yellow"
    assert COLOR_HEX["Yellow"] == "ffeb3b"


@pytest.mark.parametrize("name,radix,sku", [("modern-100g", 44, "7816-64X-O-AC-F"),
                                            ("modern-100g", 30, "MSN3700C-CS2FC"),
                                            ("modern-100g", 33, "7816-64X-O-AC-F"),
                                            ("ndr-400g", 44, "MQM9790-NS2F"),
                                            ("hdr-200g", 40, "MQM8790-HS2F")])
def test_router_for_picks_the_cheapest_that_fits(name, radix, sku):
    assert load_catalog(name).router_for(radix).sku == sku


def test_router_for_names_the_file_the_field_and_the_largest_radix(tmp_path):
    with pytest.raises(InputError, match=r"needs routers with 65 ports but the largest model "
                                         r"\(MQM9790-NS2F\) has radix 64 \(field "
                                         r"'routers\[\]\.radix'\); add a router model with "
                                         r"at least 65 ports"):
        load_catalog("ndr-400g").router_for(65)
    path = tmp_path / "mine.yaml"
    path.write_text("extends: ndr-400g\nname: mine\n")
    with pytest.raises(InputError, match=f"^catalog '{path}': the topology needs routers"):
        load_catalog(str(path)).router_for(65)


def test_router_for_refuses_a_non_positive_price_at_small_radix():
    """SC14's 350.4·k − 892.3 is 158.90 $ at k = 3 but −191.50 $ at k = 2."""
    cat = load_catalog("sc14-40g")
    assert cat.router_for(3).price(3) == pytest.approx(158.9)
    with pytest.raises(InputError, match=r"field 'routers\[0\]\.price' \(sku 'SC14-ROUTER-40G'\) "
                                         r"gives -191\.50 \$ at 2 ports"):
        cat.router_for(2)


def test_a_catalog_file_with_extends(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("extends: modern-100g\nname: mine\n"
                    "nic: {sku: MCX653105A-ECAT, vendor: NVIDIA, price: 1100, watts: 12}\n")
    cat = load_catalog(str(path))
    assert cat.name == "mine" and cat.nic_watts == 12 and cat.nic_price == 1100
    assert cat.routers == load_catalog("modern-100g").routers


def test_builtin_files_round_trip_through_plain_yaml():
    """Every built-in is plain YAML (no tags/aliases) that PyYAML reads on its own."""
    for name in BUILTINS:
        path = Path(__file__).parents[1] / "catalogs" / f"{name}.yaml"
        assert isinstance(yaml.safe_load(path.read_text()), dict)


BAD_CATALOGS = [
    ("transceiver_without_budget", "field 'cables[1].loss_budget_db' (sku 'SR4-NO-BUDGET') is "
                                   "missing: a transceiver needs the channel insertion-loss"),
    ("transceiver_without_reach", "field 'cables[1].max_reach_m' (sku 'SR4-NO-REACH') is "
                                  "missing; add it"),
    ("missing_radix", "field 'routers[0].radix' (sku 'R1') is missing; add it"),
    ("unknown_field", "unknown field 'cables[0].lenght' (sku 'C1'); valid fields here: "),
    ("unknown_top_field", "unknown field 'currency'; valid fields here: name, description"),
    ("zero_radix", "field 'routers[0].radix' (sku 'R1') must be greater than 0, got 0"),
    ("string_radix", "field 'routers[0].radix' (sku 'R1') must be a valid integer"),
    ("negative_reach", "field 'cables[1].max_reach_m' (sku 'O1') must be greater than 0, got -5"),
    ("stock_not_increasing", "field 'cables[0].stock_lengths' (sku 'C1') must be strictly "
                             "increasing, got [1.0, 3.0, 2.0]"),
    ("stock_beyond_reach", "field 'cables[0].stock_lengths' (sku 'C1') has 7.0 m, beyond "
                           "max_reach_m 5.0 m"),
    ("duplicate_sku", "field 'cables[1].sku' 'C1' repeats cables[0]"),
    ("bad_netbox_type", "field 'cables[1].netbox_type' (sku 'O1') 'fibre' is not a NetBox "
                        "cable type"),
    ("bad_color", "field 'cables[1].color' (sku 'O1') 'Sky' is neither a NetBox colour name"),
    ("kind_media_mismatch", "field 'cables[1].kind' (sku 'O1') 'dac' does not fit media "
                            "'optical'"),
    ("bad_media", "field 'cables[1].media' (sku 'O1') must be 'electrical' or 'optical'"),
    ("price_table_mismatch", "field 'cables[0].price' (sku 'C1') table lengths [1.0, 2.0] "
                             "must equal stock_lengths [1.0, 2.0, 3.0]"),
    ("no_routers", "field 'routers' must have at least 1 item, got []"),
    ("empty_price_table", "field 'cables[0].price' (sku 'C1') has an empty table; give a price"),
    ("mixed_rates", "field 'cables[1].rate_gbps' (sku 'O1') is 400 but routers[0] runs at "
                    "100 Gb/s"),
    ("average_beyond_optical", "field 'optical_average_length_m' is 50 m but the longest "
                               "optical cable is 30 m"),
    ("negative_router_price", "field 'routers[0].price' (sku 'R1') gives -68.00 $ at radix 32"),
    ("bad_average", "field 'optical_average_length_m' must be greater than 0, got 0"),
    ("alias_bomb", "aliases (*name) are not allowed, line 3"),
    ("python_tag", "not valid YAML at line 1 column 7: could not determine a constructor"),
    ("custom_tag", "YAML tag '!price' is not allowed, line 1"),
    ("not_mapping", "the top level must be a mapping of fields"),
    ("broken_yaml", "not valid YAML at line 3 column 8"),
    ("extends_unknown", "field 'extends': unknown catalog 'sc99-40g'; choose one of: eth-51t, "
                        "hdr-200g"),
]


@pytest.mark.parametrize("fixture,message", BAD_CATALOGS, ids=[b[0] for b in BAD_CATALOGS])
def test_bad_catalog_files(fixture, message):
    path = BAD / f"{fixture}.yaml"
    with pytest.raises(InputError) as err:
        load_catalog(str(path))
    text = str(err.value)
    assert "\n" not in text and message in text
    assert text.startswith(f"catalog '{path}': ")


def test_every_bad_catalog_fixture_is_covered():
    assert {p.stem for p in BAD.glob("*.yaml")} == {b[0] for b in BAD_CATALOGS}


@pytest.mark.parametrize("argv,needles", [
    (["catalogs"], BUILTINS),
    (["catalogs", "show", "sc14-40g"], ["SC14-ROUTER-40G", "350.4*k - 892.3", "paper mode: off",
                                        "23.084 + 16.316/m", "290.98 + 3.676/m"]),
    (["catalogs", "show", "sc14-40g-pn10k"], ["every optical cable priced at 5.1 m",
                                              "7.7432 $/Gb/s"]),
    (["catalogs", "show", "sc14-40g-pn25k"], ["7.9178 $/Gb/s"]),
    (["catalogs", "show", "hdr-200g"], ["MCA1J00", "3m:260.00 4m:290.00", "17,000.00",
                                         "MCA1J00-H{nv}E", "1 port on om4-mpo12"]),
    (["catalogs", "show", "ndr-400g"], ["32 x 2", "2 ports on om4-mpo12-apc", "splitter 1:2",
                                         "MFP7E10-N{nv}"]),
    (["catalogs", "show", "ndr-400g", "--yaml"], ["# NDR InfiniBand", "MCA4J80"]),
    (["floors"], ["sc14", "pn-500", "galaxyfly", "cascade", "hot-aisle"]),
    (["floors", "show", "pn-500"], ["about 500 endpoints", "membership"]),
    (["floors", "show", "galaxyfly"], ["rows of floor(sqrt(n))", "2 m per end"]),
    (["floors", "show", "hot-aisle", "--yaml"], ["aisle_m: 1.2"]),
])
def test_cli_listing_and_show(argv, needles, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    for needle in needles:
        assert needle in out


@pytest.mark.parametrize("argv,message", [
    (["catalogs", "show", "nope"], "unknown catalog 'nope'; choose one of:"),
    (["catalogs", "show"], "catalogs show needs a catalog NAME or PATH"),
    (["catalogs", "show", "missing/dir.yaml"], "catalog file 'missing/dir.yaml' does not exist"),
    (["floors", "show", "hall9"], "unknown floor 'hall9'; choose one of:"),
    (["floors", "show", str(BAD.parent / "bad_floors" / "negative_slots.yaml")],
     "field 'router_slots' must be greater than 0, got -3"),
])
def test_cli_bad_names_exit_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
