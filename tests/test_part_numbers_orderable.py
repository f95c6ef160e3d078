"""Every BOM line is orderable or honestly generic (issue 23, item 1).

Every built-in catalog plans on a built-in floor (its ``default_floor``, else hot-aisle), and
every line of its BOM is either a complete number of its vendor's family (the patterns below,
written from the vendors' ordering schemes, not from the planner's own) or generic, with
``generic: supplier part number`` in the part-number cell and a non-empty specification.
End-of-life parts are flagged and never the default; the catalog's airflow selects a switch's
number; a placeholder, an incomplete number, a generic part without spec and an unknown
lifecycle are refused with one line.
"""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest
import yaml

from planner.cli import main
from planner.inputs.catalog import list_catalogs, load_catalog
from planner.inputs.floor import list_floors
from planner.inputs.spec import DEFAULT_FLOOR
from planner.plan import plan
from test_bad_input import refused

TOPOLOGY = "slimfly:q=3"        # 18 routers: the smallest Slim Fly, seconds per catalog

#: Complete orderable numbers per vendor family, from the vendors' ordering schemes.
COMPLETE = {
    # NVIDIA legacy OPNs (MQM9790-NS2F, MMA4Z00-NS400, MFP7E10-N005) and the new numbers
    # (920-9B020-00FA-0D3, 900-9X81E-00EX-ST0); QSFP28/56 DACs carry E<gauge><variant>.
    "NVIDIA": r"(M(?!CP16[05]0)[A-Z0-9]+-[A-Z0-9]+(-[A-Z0-9]+)?"
              r"|MCP16[05]0-[CHV]\d\d[0-9A]E(26|30)[A-Z]?"
              r"|9[028]0-[0-9A-Z]{5}-[0-9A-Z]{4}-[0-9A-Z]{3})",
    "Edgecore": r"\d{4}-[0-9A-Z]+-O-(AC|DC)-[FB]",          # 7816-64X-O-AC-F
    "Arista": r"DCS-[0-9A-Z]+(-[0-9A-Z]+)*-[FR]",            # DCS-7260CX3-64-F
    "Cisco": r"N9K-C[0-9A-Z]+(-[0-9A-Z]+)*",                 # N9K-C9336C-FX2
    "APC": r"A[PR]\d{4}[A-Z0-9]*",                           # AP8881, AR3300
}
GENERIC = "generic: supplier part number"
MODERN = Path(__file__).resolve().parents[1] / "catalogs" / "modern-100g.yaml"


def floor_of(name: str) -> str:
    """The floor ``planner plan --catalog NAME`` uses without --floor."""
    return load_catalog(name).default_floor or DEFAULT_FLOOR


@pytest.fixture(scope="module", params=list_catalogs())
def planned(request):
    name = request.param
    return name, plan(TOPOLOGY, name, floor_of(name), strategy="hint")


def test_nine_builtin_catalogs():
    assert len(list_catalogs()) == 9


def test_every_catalog_plans_on_a_builtin_floor(planned):
    name, result = planned
    assert floor_of(name) in list_floors()
    assert result.summary["floor"]["name"] == floor_of(name)
    assert len(result.bom) > 0 and result.bom["quantity"].sum() > 0


def test_every_bom_line_complete_or_generic(planned):
    name, result = planned
    bom = result.bom
    for rec in bom.itertuples(index=False):
        where = f"{name}: {rec.item} {rec.sku}"
        if rec.part_number == GENERIC:
            assert rec.status == "generic", where
            assert rec.spec.strip(), where
            continue
        assert rec.vendor in COMPLETE, f"{where}: vendor {rec.vendor!r} has no family pattern"
        assert re.fullmatch(COMPLETE[rec.vendor], rec.part_number), where
        if rec.ordering_number:
            assert re.fullmatch(COMPLETE[rec.vendor], rec.ordering_number), where
        assert rec.status.split(";")[0] in ("active", "preview"), where


def test_no_line_repeats_within_a_length(planned):
    """Generic lines share the part-number cell; the catalog SKU and length keep them apart."""
    _, result = planned
    keys = list(zip(result.bom["item"], result.bom["sku"], result.bom["length_m"].fillna(0)))
    assert len(set(keys)) == len(keys)


def test_the_issues_numbers_are_fixed():
    """The numbers the issue found incomplete or invented are gone from the catalogs."""
    text = "\n".join(load_catalog(n).model_dump_json() for n in list_catalogs())
    for stale in ("MCP1600-C{nv}", "MCP1650-H{nv}", '"MSN5600"', "SN5600-CUMULUS-SUB",
                  "OM4-MPO12-B-", "SKU on quote"):
        assert stale not in text, stale
    dac = load_catalog("modern-100g").cable("MCP1600")
    assert dac.part_number(3) == "MCP1600-C003E26N" and dac.part_number(0.5) == "MCP1600-C00AE30N"
    assert load_catalog("hdr-200g").cable("MCP1650").part_number(2) == "MCP1650-H002E26"
    for name in ("ndr-400g", "eth-51t"):
        assert 1.0 not in load_catalog(name).cable("MFP7E10").stock_lengths
    xdr = load_catalog("xdr-800g")
    assert not [m for m in xdr.cables if m.kind == "dac"]         # no passive DAC at XDR
    assert xdr.routers[0].power_supplies == 8


def test_apc_panels_are_green():
    """MPO/APC adapters are green (TIA-598 connector colours), never aqua."""
    for name in list_catalogs():
        for panel in load_catalog(name).panels:
            if "APC" in panel.description:
                assert "aqua" not in panel.description, (name, panel.sku)
                assert "green" in panel.spec["adapter_colour"], (name, panel.sku)


def test_end_of_life_is_never_the_default():
    catalog = load_catalog("modern-100g")
    eol = [r for r in catalog.routers if r.lifecycle == "eol"]
    assert [r.sku for r in eol] == ["MSN2700-CS2F"]
    # SN2700 (16,000 $) is cheaper than the SN3700C (17,000 $) but end of life
    assert eol[0].price(32) < catalog.routers[0].price(32)
    assert catalog.router_for(32).sku == "MSN3700C-CS2FC"
    only_eol = catalog.model_copy(update={"routers": eol})
    assert only_eol.router_for(32).sku == "MSN2700-CS2F"       # still selectable


def test_end_of_life_is_flagged_in_the_bom(tmp_path):
    variant = tmp_path / "old.yaml"
    data = yaml.safe_load(MODERN.read_text())
    data["routers"] = [r for r in data["routers"] if r.get("lifecycle") == "eol"]
    variant.write_text(yaml.safe_dump(data))
    bom = plan(TOPOLOGY, str(variant), "hot-aisle", strategy="hint").bom
    switch = bom[bom["item"] == "switch"].iloc[0]
    assert switch["part_number"] == "MSN2700-CS2F" and switch["status"] == "eol"


@pytest.mark.parametrize("airflow,expect", [("front-to-back", "MSN3700C-CS2FC"),
                                            ("back-to-front", "MSN3700C-CS2RC")])
def test_airflow_selects_the_switch_number(tmp_path, airflow, expect):
    variant = tmp_path / "airflow.yaml"
    variant.write_text(f"extends: modern-100g\nairflow: {airflow}\n")
    catalog = load_catalog(variant)
    assert catalog.router_for(32).sku == expect
    bom = plan(TOPOLOGY, catalog, "hot-aisle", strategy="hint").bom
    assert bom.loc[bom["item"] == "switch", "part_number"].tolist() == [expect]


def test_ordering_number_follows_the_airflow(tmp_path):
    variant = tmp_path / "c2p.yaml"
    variant.write_text("extends: ndr-400g\nairflow: back-to-front\n")
    router = load_catalog(variant).routers[0]
    assert (router.sku, router.ordering_number) == ("MQM9790-NS2R", "920-9B210-00RN-0D0")


def test_cli_uses_the_catalogs_default_floor(tmp_path, capsys):
    """xdr-800g's 4U switches do not fit hot-aisle's 42U cabinet; without --floor the plan
    takes the catalog's 48U floor, and the workbook shows generic lines as the buyer reads
    them."""
    err = refused(["plan", "--catalog", "xdr-800g", "--floor", "hot-aisle", "--topology",
                   TOPOLOGY, "--out", str(tmp_path / "no")], capsys)
    assert "42U" in err
    out = tmp_path / "xdr"
    assert main(["plan", "--catalog", "xdr-800g", "--topology", TOPOLOGY, "--strategy",
                 "hint", "--out", str(out)]) == 0
    sheet = openpyxl.load_workbook(out / "bom.xlsx", read_only=True)["BOM"]
    rows = list(sheet.iter_rows(values_only=True))
    head = list(rows[0])
    part, spec, status = (head.index(h) for h in ("Part number", "Specification", "Status"))
    lines = [r for r in rows[1:] if r[0] and r[0] not in ("Subtotal", "Total", "Not included")]
    generic = [r for r in lines if r[part] == GENERIC]
    assert generic and all(r[spec] and r[status] == "generic" for r in generic)
    switch = next(r for r in lines if r[0] == "switch")
    assert switch[part] == GENERIC and "Q3400-RA" in switch[spec]


BAD = {
    "placeholder": ("cables", "MCP1600", "part_numbers", "MCP1600-C0XX",
                    "'cables[0].part_numbers'", "placeholder"),
    "incomplete DAC": ("cables", "MCP1600", "part_numbers", "MCP1600-C{nv}",
                       "'cables[0].part_numbers'", "suffix"),
    "model name": ("routers", "SN3700C", "airflow", {"front-to-back": "MSN3700C"},
                   "'routers[0].airflow.front-to-back'", "not a complete NVIDIA"),
    "generic without spec": ("cables", "OM4-MPO12", "spec", None, "'cables[4].spec'",
                             "generic part"),
    "unknown lifecycle": ("routers", "SN3700C", "lifecycle", "retired",
                          "'routers[0].lifecycle'", "eol"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_part_is_refused(case, tmp_path, capsys):
    where, sku, field, value, names, fix = BAD[case]
    data = yaml.safe_load(MODERN.read_text())
    entry = next(e for e in data[where] if e["sku"] == sku)
    if value is None:
        entry.pop(field)
    else:
        entry[field] = value
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    out = tmp_path / "plan"
    err = refused(["plan", "--catalog", str(bad), "--topology", TOPOLOGY, "--out", str(out)],
                  capsys)
    assert str(bad) in err and names in err and fix in err, err
    assert not out.exists()
