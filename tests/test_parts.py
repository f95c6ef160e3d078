"""Link parts, part numbers, cages and spares: the catalog rules and their bad inputs.

Bad inputs run ``planner plan`` end to end: exit 2, one line naming the file, field and fix,
and nothing written.
"""

from __future__ import annotations

import copy
import math
import os

import pytest
import yaml

from planner.cli import main
from planner.costing.bom import Spares, spares_for
from planner.inputs.catalog import Catalog, load_catalog, nvidia_length_code
from planner.inputs.floor import load_floor
from planner.plan import plan
from planner.run.errors import InputError
from planner.topologies.slimfly import slimfly

BASE = {
    "name": "parts",
    "routers": [{"sku": "SW", "vendor": "v", "rate_gbps": 400, "cages": 32,
                 "lanes_per_cage": 8, "breakout": 2, "price": {"fixed": 1000},
                 "watts_per_lane": 1, "rack_units": 1}],
    "cables": [
        {"sku": "TWIN-DAC", "media": "electrical", "kind": "dac", "rate_gbps": 400, "links": 2,
         "max_reach_m": 2, "stock_lengths": [0.5, 1, 1.5, 2],
         "part_numbers": "TWIN-DAC-{nv}", "price": {"fixed": 100, "per_m": 10},
         "netbox_type": "dac-passive", "color": "Black"},
        {"sku": "SPLIT", "media": "electrical", "kind": "dac", "rate_gbps": 400, "links": 2,
         "split": True, "max_reach_m": 3, "stock_lengths": [1, 2, 3],
         "part_numbers": {1: "SPLIT-1M", 2: "SPLIT-2M", 3: "SPLIT-3M"},
         "price": {"fixed": 100}, "netbox_type": "dac-passive", "color": "Black"},
        {"sku": "TWIN-SR8", "media": "optical", "kind": "transceiver", "rate_gbps": 400,
         "ports": 2, "max_reach_m": 50, "loss_budget_db": 1.8, "fibre": "om4", "nic_end": "SR4",
         "price": {"fixed": 1000}, "watts_per_end": 16},
        {"sku": "SR4", "media": "optical", "kind": "transceiver", "rate_gbps": 400,
         "max_reach_m": 50, "loss_budget_db": 1.8, "fibre": "om4", "price": {"fixed": 500},
         "watts_per_end": 8},
        {"sku": "OM4", "media": "optical", "kind": "fibre", "fibre": "om4", "max_reach_m": 50,
         "stock_lengths": [1, 3, 10, 50], "part_numbers": "OM4-{m}M",
         "price": {"fixed": 10, "per_m": 1}, "netbox_type": "mmf-om4", "color": "Aqua"},
    ],
}


def _point_to_point_hall():
    """The hot-aisle hall with every link one cable end to end (no patch panels): these tests
    count the parts of direct links; structured cabling has its own (tests/test_structured.py)."""
    return load_floor("hot-aisle").model_copy(update={"structured_cabling": False})


def _catalog(change=None) -> dict:
    data = copy.deepcopy(BASE)
    if change:
        change(data)
    return data


def _set(path, value):
    """A change that sets ``data[path[0]][path[1]]...`` (or deletes it when value is None)."""
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        if value is None:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return change


def test_the_base_catalog_is_valid():
    catalog = Catalog.model_validate(_catalog())
    router = catalog.routers[0]
    assert (router.radix, router.lanes_per_port, router.cage_count) == (64, 4, 32)
    assert catalog.cable("TWIN-DAC").part_number(1.5) == "TWIN-DAC-01A"
    assert catalog.cable("SPLIT").part_numbers_at([3.0, 1.0]).tolist() == ["SPLIT-3M", "SPLIT-1M"]


@pytest.mark.parametrize("length,code", [(0.5, "00A"), (1, "001"), (1.5, "01A"), (3, "003"),
                                         (30, "030"), (100, "100"), (2.5, "02A")])
def test_nvidia_length_codes(length, code):
    """NVIDIA LinkX part numbers end in the length: MCP1600-C003 is the 3 m QSFP28 DAC,
    MCP4Y10-N00A the 0.5 m twin-port DAC, MFA1A00-C100 the 100 m AOC."""
    assert nvidia_length_code(length) == code


def test_builtin_catalogs_give_every_length_its_own_part_number():
    """No family placeholder (C0XX) and no shared part number in any built-in catalog."""
    for name in ("modern-100g", "hdr-200g", "ndr-400g", "eth-51t", "xdr-800g"):
        catalog = load_catalog(name)
        numbers = []
        for model in catalog.cables:
            if model.kind == "transceiver":
                numbers.append(model.sku)
                continue
            if model.generic:           # no invented number: told apart by SKU and length
                assert model.part_numbers is None and model.spec, (name, model.sku)
                continue
            assert model.part_numbers is not None, (name, model.sku)
            numbers += [model.part_number(length) for length in model.stock_lengths]
        assert len(numbers) == len(set(numbers)), name
        assert not any("XX" in n or "xx" in n for n in numbers), name
    assert load_catalog("modern-100g").cable("MCP1600").part_number(3) == "MCP1600-C003E26N"


# (case, change to the base catalog, words of the one-line error)
BAD_CATALOGS = [
    ("template gives duplicates", _set(["cables", 0, "part_numbers"], "TWIN-DAC-{m:.1}"),
     ["cables[0].part_numbers", "'TWIN-DAC-1' to both 1 m and 1.5 m"]),
    ("template without length", _set(["cables", 0, "part_numbers"], "TWIN-DAC"),
     ["cables[0].part_numbers", "no length field"]),
    ("template unknown field", _set(["cables", 0, "part_numbers"], "TWIN-DAC-{length}"),
     ["cables[0].part_numbers", "{length}", "{nv}"]),
    ("table misses a length", _set(["cables", 1, "part_numbers"], {1: "S1", 2: "S2"}),
     ["cables[1].part_numbers", "must equal stock_lengths"]),
    ("placeholder sku", lambda d: (_set(["cables", 0, "sku"], "TWIN-DAC-N0XX")(d),
                                   _set(["cables", 0, "part_numbers"], None)(d)),
     ["cables[0].part_numbers", "placeholder"]),
    ("breakout does not divide", _set(["routers", 0, "breakout"], 3),
     ["routers[0].breakout", "3 does not divide the 8 lanes", "1, 2, 4, 8"]),
    ("radix is not cages x breakout", _set(["routers", 0, "radix"], 60),
     ["routers[0].radix", "60 is not cages x breakout"]),
    ("transceiver without fibre", _set(["cables", 2, "fibre"], None),
     ["cables[2].fibre", "is missing", "fibre type"]),
    ("fibre type without a fibre part", _set(["cables", 2, "fibre"], "os2"),
     ["cables[2].fibre", "'os2' but no kind: fibre part"]),
    ("nic end not a transceiver", _set(["cables", 2, "nic_end"], "OM4"),
     ["cables[2].nic_end", "not a transceiver"]),
    ("twin part on single-port cages", _set(["routers", 0, "breakout"], 1),
     ["links", "split their cages 1 ways"]),
    ("links on a transceiver", _set(["cables", 3, "links"], 2),
     ["cables[3].links", "does not apply to kind 'transceiver'"]),
    ("transceiver priced per metre", _set(["cables", 3, "price"], {"fixed": 1, "per_m": 2}),
     ["cables[3].price", "one price per module"]),
    ("duplicate interface names", _set(["routers", 0, "interface_names"], "swp{cage}"),
     ["routers[0].interface_names", "'swp1' to two ports"]),
]


@pytest.mark.parametrize("case,change,words", BAD_CATALOGS, ids=[c[0] for c in BAD_CATALOGS])
def test_bad_catalog_exits_2_with_one_line_and_writes_nothing(case, change, words, tmp_path,
                                                               capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(_catalog(change)))
    before = sorted(os.listdir(tmp_path))
    code = main(["plan", "--topology", "slimfly:q=5", "--catalog", "cat.yaml",
                 "--strategy", "hint", "--out", "out"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("planner: catalog 'cat.yaml': ") or "catalog 'cat.yaml'" in err, err
    for word in words:
        assert word in err, (word, err)
    assert sorted(os.listdir(tmp_path)) == before


BAD_SPARES = [
    (["--spares", "-5"], "spares"), (["--spares-optics", "-5"], "spares-optics"),
    (["--spares-switches", "-0.5"], "spares-switches"),
    (["--spares-optics", "1001"], "spares-optics"),
]


@pytest.mark.parametrize("args,field", BAD_SPARES)
def test_negative_spares_exit_2_and_write_nothing(args, field, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["plan", "--topology", "slimfly:q=5", "--strategy", "hint", "--out", "out",
                 *args])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and field in err, err
    assert os.listdir(tmp_path) == []


def test_spares_in_a_spec_file_name_the_field(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text("topology: slimfly:q=5\nstrategy: hint\nspares_switches: -1\n")
    assert main(["plan", str(spec), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "spares_switches" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", [-1, 1000.5, math.nan])
def test_spares_class_rejects_out_of_range(value):
    with pytest.raises(InputError, match="spares for optics must be a percentage"):
        Spares(optics=value)


# spares round up per line: (quantity, percent, spares)
ROUNDING = [(25, 10, 3), (100, 10, 10), (1, 0.1, 1), (0, 50, 0), (7, 0, 0), (19, 5, 1),
            (20, 5, 1), (21, 5, 2), (1000, 12.5, 125)]


@pytest.mark.parametrize("quantity,pct,spares", ROUNDING)
def test_spares_round_up_per_line(quantity, pct, spares):
    assert int(spares_for([quantity], pct)[0]) == spares
    assert spares == math.ceil(quantity * pct / 100 - 1e-12)


def test_spares_per_class_on_a_twin_port_plan():
    """Switches, optics and cables each get their own percentage, rounded up per line."""
    result = plan(slimfly(5, p=3), Catalog.model_validate(_catalog()), _point_to_point_hall(),
                  strategy="hint", spares=Spares(switches=10, optics=25, cables=5))
    bom = result.bom
    pct = {"switch": 10, "transceiver": 25, "cable": 5, "fibre": 5}
    for line in bom.itertuples():
        assert line.spares == math.ceil(line.quantity * pct[line.item] / 100 - 1e-12), line
    assert bom.loc[bom["item"] == "switch", "spares"].tolist() == [5]       # 50 x 10 %
    assert result.summary["bom"]["spares"] == {"switches": 10.0, "optics": 25.0, "cables": 5.0}


def test_twin_port_cages_hold_one_part_each():
    """On 2-way cages the two ports of a cage carry the same part: a twin DAC's two links go to
    one peer, a splitter's two to NICs, a twin-port transceiver's to fibre."""
    result = plan(slimfly(5, p=3), Catalog.model_validate(_catalog()), _point_to_point_hall(),
                  strategy="hint")
    c = result.cables
    parts = {}
    for side in ("a", "b"):
        rows = c[c[f"{side}_router"] >= 0]
        for router, port, part, peer in zip(rows[f"{side}_router"], rows[f"{side}_port"],
                                            rows["part"], rows["b_router" if side == "a"
                                                               else "a_router"]):
            parts.setdefault((router, (port - 1) // 2), []).append((part, peer))
    twin = result.catalog.cable_index("TWIN-DAC")
    for (router, cage), held in parts.items():
        assert len({p for p, _ in held}) == 1, (router, cage, held)
        if held[0][0] == twin:
            assert len({peer for _, peer in held}) == 1, (router, cage, held)
    assert max(cage for _, cage in parts) < 32


def test_summary_counts_the_cages_in_use():
    """Cages with at least one used port, counted here from the cable ends (port p is in cage
    (p - 1) // breakout); the twin-port modules at router ends fill them one per cage."""
    result = plan(slimfly(5, p=3), Catalog.model_validate(_catalog()), _point_to_point_hall(),
                  strategy="hint")
    c = result.cables
    cages = set()
    for side in ("a", "b"):
        rows = c[c[f"{side}_router"] >= 0]
        cages |= set(zip(rows[f"{side}_router"], (rows[f"{side}_port"] - 1) // 2))
    devices = result.summary["devices"]
    assert devices["router_cages_used"] == len(cages)
    assert devices["router_cages"] == 50 * 32
    twin = result.bom[(result.bom["item"] == "transceiver") & (result.bom["sku"] == "TWIN-SR8")]
    optical_cages = set()
    for side in ("a", "b"):
        rows = c[(c[f"{side}_router"] >= 0) & (c[f"{side}_transceiver"] == "TWIN-SR8")]
        optical_cages |= set(zip(rows[f"{side}_router"], (rows[f"{side}_port"] - 1) // 2))
    assert int(twin["quantity"].sum()) == len(optical_cages)


def test_too_few_cages_for_the_parts_is_an_input_error(tmp_path, capsys, monkeypatch):
    """5 cages x 2 = 10 ports cover the radix (10), but a cage holds one part: the 3 NICs'
    splitters take 2 cages and the 7 peers at least ceil((7 + 1) / 2) = 4 (their odd links on
    twin-port SR8 modules, two peers a cage, one part-filled), so a router needs 6 of 5 cages:
    the plan stops with one line."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(_catalog(_set(["routers", 0, "cages"], 5))))
    (tmp_path / "floor.yaml").write_text(yaml.safe_dump(
        _point_to_point_hall().model_dump(mode="json", exclude_none=True)))
    code = main(["plan", "--topology", "slimfly:q=5,p=3", "--catalog", "cat.yaml",
                 "--floor", "floor.yaml", "--strategy", "hint", "--out", "out"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "cages of 2 ports" in err and "SW has 5" in err
    assert not (tmp_path / "out").exists()


def test_single_port_transceivers_are_two_per_link_plus_spares():
    """Without its AOC the 100G catalog builds optical links from two SR4 modules and an MPO
    patch cord: transceivers = 2 x optical links, cords = optical links, each line with its own
    spares (optics 10 %, cables 5 %, rounded up)."""
    base = load_catalog("modern-100g")
    catalog = base.model_copy(update={"cables": [c for c in base.cables if c.kind != "aoc"]})
    result = plan(slimfly(5), catalog, _point_to_point_hall(), strategy="hint",
                  spares=Spares(optics=10, cables=5))
    optical = result.cables[result.cables["media"] == "optical"]
    assert len(optical) and set(optical["a_transceiver"]) == {"MMA1B00-C100D"}
    bom = result.bom.set_index("sku")
    line = bom.loc["MMA1B00-C100D"]
    assert line["quantity"] == 2 * len(optical)
    assert line["spares"] == math.ceil(2 * len(optical) * 0.10)
    cords = bom[bom.index.str.startswith("OM4-MPO12_")]     # generic: "OM4-MPO12_5m"
    assert int(cords["quantity"].sum()) == len(optical)
    for number, count in optical["sku"].value_counts().items():
        assert bom.loc[number, "quantity"] == count
        assert bom.loc[number, "spares"] == math.ceil(count * 0.05)
