"""Equivalent offers of a part and ``planner plan --optics`` (``planner.inputs.catalog.offers``):
the same cables at the offer's prices, the policy's pick per part, a 3x cheaper optic moving
the choice of parts where the hand comparison says, and bad offers refused."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import yaml

from planner import exports
from planner.cli import main

from planner.inputs import schema
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.inputs.parts.media import choose_parts
from planner.plan import plan
from planner.topologies import parse_spec
from test_bad_input import refused

TOPOLOGY = "slimfly:q=3,p=2"
SR4, CWDM4, DAC = "MMA1B00-C100D", "MMA1L30-CM", "MCP1600"
SR4_PRICE = 350.0                   # modern-100g's genuine SR4 module
FS_SR4 = {"vendor": "FS.com", "part_number": "QSFP28-SR4-100G", "kind": "compatible",
          "price": 300}


def catalog_data() -> dict:
    return schema.load_data(schema.resolve("modern-100g", "catalogs", "catalog"), "catalogs",
                            "catalog")


def part(data: dict, sku: str) -> dict:
    return next(c for c in data["cables"] if c["sku"] == sku)


def write(tmp_path, offers_by_sku: dict[str, list[dict]], name="offers.yaml"):
    """modern-100g with the given offers (and no others), as a catalog file."""
    data = catalog_data()
    for entry in data["cables"]:
        entry.pop("offers", None)
    for sku, offers in offers_by_sku.items():
        part(data, sku)["offers"] = offers
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# ----------------------------------------------------------------------------- same cables

@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """(genuine plan, compatible plan on the genuine plan's placement, compatible plan placed
    on its own): the FS offer at 300 $ and 2.0 W against the genuine 350 $ and 2.5 W."""
    path = write(tmp_path_factory.mktemp("cat"), {SR4: [{**FS_SR4, "watts_per_end": 2.0}]})
    topology = parse_spec(TOPOLOGY)
    genuine = plan(topology, load_catalog(path), "hot-aisle", strategy="hint")
    compatible = plan(topology, load_catalog(path), "hot-aisle", strategy="hint",
                      optics="compatible", placement=genuine.placement)
    replanned = plan(topology, load_catalog(path), "hot-aisle", strategy="hint",
                     optics="compatible")
    return genuine, compatible, replanned


def test_compatible_buys_the_same_cables(pair):
    genuine, compatible, _ = pair
    named = ["unit_price", "a_transceiver", "b_transceiver", "a_sku", "b_sku", "a_watts",
             "b_watts"]
    g, c = (p.cables.drop(columns=[n for n in named if n in p.cables]) for p in pair[:2])
    assert g.equals(c)
    for end in ("a_transceiver", "b_transceiver"):
        assert (genuine.cables[end] == SR4).sum() > 0
        assert (compatible.cables[end].replace("QSFP28-SR4-100G", SR4)
                == genuine.cables[end]).all()


def test_bom_names_the_offer_and_the_total_is_the_hand_sum(pair):
    genuine, compatible, _ = pair
    old = genuine.bom[genuine.bom["sku"] == SR4].iloc[0]
    new = compatible.bom[compatible.bom["sku"] == "QSFP28-SR4-100G"].iloc[0]
    assert (new["vendor"], new["unit_price"], new["basis"]) == ("FS.com", 300.0, "estimate")
    assert f"compatible; replaces NVIDIA {SR4}" in new["description"]
    assert (new["quantity"], new["spares"]) == (old["quantity"], old["spares"])
    assert SR4 not in set(compatible.bom["sku"])
    changed = (old["quantity"] + old["spares"]) * (300.0 - SR4_PRICE)
    assert compatible.summary["cost"]["total"] == pytest.approx(
        genuine.summary["cost"]["total"] + changed, abs=0.005)
    assert compatible.summary["cost"]["optics"] == pytest.approx(
        genuine.summary["cost"]["optics"] + old["quantity"] * (300.0 - SR4_PRICE), abs=0.005)


def test_power_uses_the_offer_watts(pair):
    genuine, compatible, _ = pair
    modules = int(genuine.bom.loc[genuine.bom["sku"] == SR4, "quantity"].iloc[0])
    assert compatible.summary["power"]["total_w"] == pytest.approx(
        genuine.summary["power"]["total_w"] - 0.5 * modules, abs=1e-3)


def test_summary_records_the_policy(pair):
    genuine, compatible, _ = pair
    assert genuine.summary["options"]["optics"] == "genuine"
    assert genuine.summary["offers"]["parts"] == [
        {"part": SR4, "vendor": "NVIDIA", "part_numbers": [SR4], "kind": "genuine",
         "lead_time_days": None, "offers": 1}]
    assert compatible.summary["options"]["optics"] == "compatible"
    assert compatible.summary["offers"]["parts"] == [
        {"part": SR4, "vendor": "FS.com", "part_numbers": ["QSFP28-SR4-100G"],
         "kind": "compatible", "lead_time_days": None, "offers": 1}]


def test_cabling_and_placement_price_links_with_the_offer(pair):
    """Each SR4 link (two modules, its cords and its share of trunks and panels) costs two
    modules' difference less than in the genuine plan, every other link the same; the
    placement's cable dollars are the network links' prices."""
    genuine, compatible, _ = pair
    sr4 = (genuine.cables["a_transceiver"] == SR4).to_numpy()
    assert sr4.sum() and (genuine.cables["b_transceiver"][sr4] == SR4).all()
    hand = genuine.cables["unit_price"].to_numpy() - sr4 * 2 * (SR4_PRICE - 300.0)
    assert compatible.cables["unit_price"].to_numpy() == pytest.approx(hand)


def test_placement_prices_with_the_offer(pair):
    """Placed under --optics compatible, the placement's cable dollars are its network links'
    prices at the offer's price, below the genuine placement's."""
    genuine, _, replanned = pair
    assert replanned.summary["offers"]["policy"] == "compatible"
    for p in (genuine, replanned):
        network = p.cables[p.cables["kind"] == "network"]
        assert p.placement.cable_cost == pytest.approx(network["unit_price"].sum())
    assert replanned.placement.cable_cost < genuine.placement.cable_cost


@pytest.fixture(scope="module")
def folders(pair, tmp_path_factory):
    """The genuine and the compatible plan (its own placement) written as plan folders."""
    root = tmp_path_factory.mktemp("plans")
    for name, p in (("genuine", pair[0]), ("compatible", pair[2])):
        exports.write_plan(p, root / name)
    return root / "genuine", root / "compatible"


def test_rfq_notes_the_offers_not_bought(folders, capsys):
    """The genuine plan's rfq names the compatible offer beside the SR4 line (and nothing
    beside the others); the compatible plan's rfq asks for the offer, naming what it
    replaces."""
    genuine, compatible = folders
    for folder in folders:
        assert main(["rfq", "--plan", str(folder)]) == 0
    capsys.readouterr()
    sheet = pd.read_csv(genuine / "rfq.csv", dtype=str, keep_default_na=False)
    noted = sheet[sheet["alternatives"] != ""]
    assert noted[["part_number", "alternatives"]].values.tolist() == [
        [SR4, "FS.com QSFP28-SR4-100G (compatible)"]]
    sheet = pd.read_csv(compatible / "rfq.csv", dtype=str, keep_default_na=False)
    line = sheet[sheet["part_number"] == "QSFP28-SR4-100G"].iloc[0]
    assert line["manufacturer"] == "FS.com" and line["alternatives"] == ""
    assert line["description"].endswith(f"(compatible; replaces NVIDIA {SR4})")
    assert SR4 not in set(sheet["part_number"])


def test_recorded_catalog_buys_the_same_again(folders):
    """A re-plan from a plan folder's catalog.yaml (planner reprice does one, under the
    default policy) buys what the plan bought."""
    runs = [(folders[0], SR4, ["genuine"]),
            (folders[1], "QSFP28-SR4-100G", ["genuine", "compatible", "cheapest"])]
    for folder, number, policies in runs:
        recorded = load_catalog(folder / "catalog.yaml")
        for policy in policies:
            bought = recorded.with_offers(policy)
            assert [m.sku for m in bought.cables if m.kind == "transceiver"][0] == number


# ----------------------------------------------------------------------------- the pick

POLICY_PICKS = [
    # policy, part -> (vendor, part number) bought
    ("genuine", {SR4: ("NVIDIA", SR4), CWDM4: ("NVIDIA", "MMA1L30-CR"),
                 DAC: ("NVIDIA", "MCP1600-C003E26N")}),
    ("compatible", {SR4: ("FS.com", "QSFP28-SR4-100G"), CWDM4: ("Other", "TEST-CWDM4-C"),
                    DAC: ("Amphenol", "TEST-DAC-3M")}),
    ("cheapest", {SR4: ("FS.com", "QSFP28-SR4-100G"), CWDM4: ("Other", "TEST-CWDM4-C"),
                  DAC: ("NVIDIA", "MCP1600-C003E26N")}),
]


@pytest.fixture(scope="module")
def picks_catalog(tmp_path_factory):
    """SR4: one compatible offer (300 $ against 350 $) and a cheaper one at end of life;
    CWDM4: a genuine offer at 650 $ and a compatible one at 600 $ against 700 $; the DAC: a
    compatible one dearer at every length (a table per stock length)."""
    dac_lengths = [0.5, 1, 1.5, 2, 2.5, 3, 5]
    dac_numbers = {x: f"TEST-DAC-{x:g}M" for x in dac_lengths}
    return load_catalog(write(tmp_path_factory.mktemp("cat"), {
        SR4: [FS_SR4, {"vendor": "Gone", "part_number": "TEST-SR4-EOL", "kind": "compatible",
                       "price": 10, "lifecycle": "eol"}],
        CWDM4: [{"vendor": "NVIDIA", "part_number": "MMA1L30-CR", "kind": "genuine",
                 "price": 650},
                {"vendor": "Other", "part_number": "TEST-CWDM4-C", "kind": "compatible",
                 "price": 600}],
        DAC: [{"vendor": "Amphenol", "part_number": dac_numbers, "kind": "compatible",
               "price": {x: 200 for x in dac_lengths}}],
    }))


@pytest.mark.parametrize("policy, expected", POLICY_PICKS, ids=[p for p, _ in POLICY_PICKS])
def test_policy_picks_per_part(picks_catalog, policy, expected):
    bought = picks_catalog.with_offers(policy)
    by_part = {r["part"]: r for r in bought.offer_choice["parts"]}
    for sku, (vendor, number) in expected.items():
        model = bought.cables[picks_catalog.cable_index(sku)]
        shown = model.part_number(3.0) if model.kind != "transceiver" else model.sku
        assert (model.vendor, shown) == (vendor, number), sku
        assert by_part[sku]["vendor"] == vendor
        original = picks_catalog.cable(sku)
        assert bool(model.offers) == (model == original)   # bought as an offer: none left
    prices = {"genuine": 350, "compatible": 300, "cheapest": 300}
    assert bought.cables[picks_catalog.cable_index(SR4)].price(0) == prices[policy]


def test_nic_end_follows_a_transceiver_bought_as_an_offer(tmp_path):
    """ndr-400g: the HCA-end module bought as a compatible offer; the switch-end module's
    nic_end names the offer, which the catalog then holds."""
    data = schema.load_data(schema.resolve("ndr-400g", "catalogs", "catalog"), "catalogs",
                            "catalog")
    part(data, "MMA4Z00-NS400")["offers"] = [
        {"vendor": "FS.com", "part_number": "TEST-OSFP-SR4-400G", "kind": "compatible",
         "price": 300}]
    path = tmp_path / "ndr.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    bought = load_catalog(path).with_offers("compatible")
    switch_end = bought.cable("OSFP-SR8-800G")
    assert switch_end.nic_end == "TEST-OSFP-SR4-400G"
    hca_end = bought.cable(switch_end.nic_end)
    assert (hca_end.vendor, hca_end.price(0), hca_end.ports) == ("FS.com", 300.0, 1)
    assert "MMA4Z00-NS400" not in {m.sku for m in bought.cables}


# ----------------------------------------------------------------------------- 3x cheaper

AOC_STOCK = [3, 5, 10, 15, 20, 30, 50, 100]            # MFA1A00, 280 $ + 2.5 $/m
CORD_STOCK = [1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100]   # OM4-MPO12, 40 $ + 2 $/m


def hand_way(length: float, module: float) -> str:
    """The cheaper optical way of a router-router link by hand: an AOC at its next stock
    length, or two SR4 modules and the OM4 cord at its next stock length; copper where the
    5 m DAC reaches (a reach floor)."""
    if length <= 5:
        return "dac"
    aoc = 280 + 2.5 * next(x for x in AOC_STOCK if x >= length)
    pair = 2 * module + 40 + 2.0 * next(x for x in CORD_STOCK if x >= length)
    return "aoc" if aoc < pair else "transceiver"


LENGTHS = [4.0, 6.0, 9.5, 25.0, 45.0]


def test_three_times_cheaper_optic_moves_the_choice_where_the_hand_sum_says(tmp_path):
    offer = {**FS_SR4, "price": round(SR4_PRICE / 3, 2)}
    catalog = load_catalog(write(tmp_path, {SR4: [offer]}))
    floor = load_floor("hot-aisle")
    assert floor.media_rule == "reach"
    flips = 0
    for policy, module in (("genuine", SR4_PRICE), ("compatible", offer["price"])):
        bought = catalog.with_offers(policy)
        parts = choose_parts(bought, floor, LENGTHS, True,
                             router=bought.router_for(parse_spec(TOPOLOGY).radix))
        kinds = [bought.cables[i].kind for i in parts.part]
        assert kinds == [hand_way(x, module) for x in LENGTHS], policy
    for length in LENGTHS:
        flips += hand_way(length, SR4_PRICE) != hand_way(length, offer["price"])
    assert flips >= 3            # the 3x cheaper module beats the AOC from 6 m to 45 m


# ----------------------------------------------------------------------------- bad offers

BAD = [
    # offers of part, offer fields, words the one-line refusal holds
    (SR4, {"max_reach_m": 70}, "offers[0].max_reach_m' (sku 'MMA1B00-C100D') is 70 m, short"),
    (SR4, {"loss_budget_db": 1.5}, "offers[0].loss_budget_db' (sku 'MMA1B00-C100D') is 1.5 dB"),
    (SR4, {"part_number": SR4}, "the part's own number"),
    (SR4, {"part_number": CWDM4}, "offers[0].part_number' (sku 'MMA1B00-C100D') gives "
                                  "'MMA1L30-CM', which cables["),
    (SR4, {"rate_gbps": 200}, "field 'cables[2].offers[0].rate_gbps' (sku 'MMA1B00-C100D') "
                              "cannot be given on an offer"),
    (SR4, {"kind": "oem"}, "offers[0].kind"),
    (SR4, {"price": -5}, "offers[0].price"),
    (SR4, {"price": True}, "offers[0].price' (sku 'MMA1B00-C100D') must be a number"),
    (SR4, {"price": "59"}, "offers[0].price' (sku 'MMA1B00-C100D') must be a number"),
    (SR4, {"price": {3: 50}}, "one price per module"),
    (DAC, {"part_number": "AMP-DAC"}, "has no length field"),
    (DAC, {"part_number": "AMP-DAC-{m}M", "price": {1: 50}}, "table lengths [1.0] must equal"),
    ("OM4-T144-MPO12", {"part_number": "T-{m}"}, "is on a trunk"),
]


@pytest.mark.parametrize("sku, fields, words", BAD, ids=[w[:30] for _, _, w in BAD])
def test_bad_offer_is_refused(tmp_path, capsys, sku, fields, words):
    offer = {**FS_SR4, **fields}
    path = write(tmp_path, {sku: [offer]}, name="bad.yaml")
    out = tmp_path / "out"
    line = refused(["plan", "--topology", TOPOLOGY, "--catalog", str(path), "--out", str(out),
                    "--optics", "compatible"], capsys)
    assert f"catalog '{path}'" in line and words in line, line
    assert not out.exists()


def test_unknown_policy_is_refused(tmp_path, capsys):
    line = refused(["plan", "--topology", TOPOLOGY, "--optics", "oem",
                    "--out", str(tmp_path / "out")], capsys)
    assert "--optics" in line and "genuine" in line
    assert not (tmp_path / "out").exists()


def test_default_is_genuine_and_leaves_the_builtins_as_they_were():
    for name in ("modern-100g", "ndr-400g"):
        catalog = load_catalog(name)
        bought = catalog.with_offers("genuine")
        offered = [m for m in catalog.cables if m.offers]
        assert offered, name
        for before, after in zip(catalog.cables, bought.cables):
            assert (after.sku, after.vendor, after.price_rule) == \
                (before.sku, before.vendor, before.price_rule)
        cheaper = catalog.with_offers("compatible")
        for m in offered:
            got = cheaper.cables[catalog.cable_index(m.sku)]
            assert got.price(0) < m.price(0) and got.price_basis.basis == "estimate"
            assert got.price_basis.source and not math.isnan(got.price(0))
