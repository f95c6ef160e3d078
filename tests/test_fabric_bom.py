"""A bill for a fabric that comes up (subnet manager, management network, PDUs and cords,
support) and the price basis of every BOM line, counted by hand on small layouts."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import openpyxl
import pandas as pd
import pytest

from planner.costing import basis, bom as boms, fabric
from planner.costing.quotes import Award, Offer
from planner.costing.reprice import repriced_bom
from planner.inputs.catalog import load_catalog
from planner.inputs.catalog.orderable import IDENTITY_COLUMNS
from planner.inputs.catalog.pricing import PriceBasis
from planner.inputs.floor import load_floor

ROOT = Path(__file__).parents[1]

# Four cabinets side by side in row A of the hot-aisle hall (0.6 m wide, 0.5 m rise per end,
# 1.5 m inside a cabinet, 10 % slack); routers: two in A01, one in A02, one in A04.
LAYOUT = SimpleNamespace(num_cabinets=4, router_cabinet=np.array([0, 0, 1, 3]),
                         cabinet_hall=np.zeros(4, np.int64), cabinet_row=np.zeros(4, np.int64),
                         cabinet_col=np.arange(4))
CABINET_KW = np.array([1.0, 6.5, 0.0, 0.5])      # the plan's kW (switches and their cable ends)


def _ndr(**changes):
    cat = load_catalog("ndr-400g")
    return cat.model_copy(update=changes) if changes else cat


def _build(catalog):
    router = catalog.router_for(64)
    return fabric.build(catalog, router, LAYOUT, load_floor("hot-aisle"), CABINET_KW, 0)


def _quantity(lines, item):
    return int(lines.loc[lines["item"] == item, "quantity"].sum())


def test_ndr_fabric_lines_by_hand():
    cat = _ndr()
    lines, fp = _build(cat)
    # UFM pair in cabinets floor(k*4/2) = 0, 2 (689 W each); the row is one management group
    # (8 cabinets per switch), its switch in the middle cabinet A02 (98 W).
    # kW: A01 1.0 + 0.689, A02 6.5 + 0.098, A03 0.689, A04 0.5
    assert fp.kw == pytest.approx([1.689, 6.598, 0.689, 0.5])
    # power supplies: A01 2 switches x 2 + UFM 2; A02 switch 2 + mgmt switch 2; A03 UFM 2; A04 2
    assert fp.psus.tolist() == [6, 4, 2, 2]
    assert fp.outlets_a.tolist() == [3, 2, 1, 1] and fp.outlets_b.tolist() == [3, 2, 1, 1]
    # per feed max(ceil(outlets / 36), ceil(kW / (7.4 x 0.8 = 5.92))): A02 needs 2 per feed
    assert fp.pdus.tolist() == [2, 4, 2, 2]
    # managed: switches 4 + UFM 2 + metered PDUs 10 = 16 -> one 48-port switch
    assert fp.managed.tolist() == [5, 5, 3, 3] and fp.mgmt_switches.tolist() == [0, 1, 0, 0]
    # cords to A02: next cabinet (0.6 + 2 x 0.5) x 1.1 = 1.76 m -> 2 m; same cabinet
    # 1.5 x 1.1 = 1.65 m -> 2 m; two cabinets away (1.2 + 1.0) x 1.1 = 2.42 m -> 3 m
    assert sorted(fp.cord_lengths_m.tolist()) == pytest.approx([1.65] * 5 + [1.76] * 8 + [2.42] * 3)
    cords = lines[lines["item"] == "mgmt_cable"].set_index("length_m")["quantity"].to_dict()
    assert cords == {2.0: 13, 3.0: 3}
    assert _quantity(lines, "subnet_manager") == 2
    assert _quantity(lines, "mgmt_switch") == 1
    assert _quantity(lines, "pdu") == 10
    assert _quantity(lines, "power_cord") == 14
    support = lines[lines["item"] == "support"]
    assert support["quantity"].tolist() == [4, 2]                 # switches, UFM appliances
    assert support["unit_price"].tolist() == [1500 * 3, 6000 * 3]  # per year x 3-year term
    assert (lines["extended_price"] == lines["quantity"] * lines["unit_price"]).all()
    assert set(lines["basis"]) == {"estimate"} and set(lines["currency"]) == {"USD"}
    assert list(lines.columns) == boms.COLUMNS + basis.COLUMNS + IDENTITY_COLUMNS


@pytest.mark.parametrize("feeds, outlets, pdus", [
    (2, 36, [2, 4, 2, 2]),     # A/B: each feed carries the whole cabinet
    (1, 36, [1, 2, 1, 1]),     # one feed: kW alone decides (6.598 / 5.92 -> 2 in A02)
    (1, 4, [2, 2, 1, 1]),      # 4-outlet PDUs: A01's 6 supplies need 2
    (2, 2, [4, 4, 2, 2]),      # A/B, 2 outlets each: A01 3 per feed -> 2 per feed
])
def test_pdus_cover_outlets_and_derated_kw(feeds, outlets, pdus):
    cat = _ndr()
    cat = cat.model_copy(update={"power": cat.power.model_copy(
        update={"feeds": feeds, "outlets": outlets})})
    _, fp = _build(cat)
    assert fp.pdus.tolist() == pdus
    per_feed = fp.pdus // feeds
    capacity = cat.power.kw * cat.power.derating_pct / 100
    assert (per_feed * capacity >= fp.kw - 1e-9).all()
    assert (per_feed * outlets >= fp.outlets_a).all() and (per_feed * outlets >= fp.outlets_b).all()
    assert (fp.outlets_a + fp.outlets_b).sum() == fp.psus.sum()


def test_cabinets_per_switch_splits_a_row():
    cat = _ndr()
    cat = cat.model_copy(update={"management": cat.management.model_copy(
        update={"cabinets_per_switch": 2})})
    _, fp = _build(cat)
    # groups A01-A02 (switch in A01, the middle of two) and A03-A04 (switch in A03)
    assert fp.mgmt_switches.tolist() == [1, 0, 1, 0]
    assert int(fp.managed.sum()) == len(fp.cord_lengths_m) == 16


def test_licence_mode_buys_hosts_and_licences():
    cat = _ndr()
    generic = {"orderable": "generic", "spec": {"product": "a test part"}}
    host = cat.subnet_manager.appliance.model_copy(update={"sku": "HOST-1U", "support": None,
                                                           **generic})
    licence = {"sku": "UFM-LIC", "vendor": "NVIDIA", "price": 100.0, **generic}
    sm = cat.subnet_manager.model_validate({"mode": "licence", "hosts": host.model_dump(),
                                            "licence": licence, "licence_per": "switch"})
    lines, _ = _build(cat.model_copy(update={"subnet_manager": sm}))
    sm_lines = lines[lines["item"] == "subnet_manager"].set_index("sku")["quantity"]
    assert sm_lines.to_dict() == {"HOST-1U": 2, "UFM-LIC": 4}    # 2 hosts, one per switch


def _catalog_file(tmp_path, text):
    path = tmp_path / "cat.yaml"
    path.write_text("extends: ndr-400g\nname: mine\n" + text)
    return path


def _plan(tmp_path, catalog, capsys):
    from planner.cli import main
    code = main(["plan", "--topology", "fattree:k=4", "--catalog", str(catalog), "--floor",
                 "hot-aisle", "--out", str(tmp_path / "out")])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("text, field", [
    ("subnet_manager: null\n", "subnet_manager"),
    ("subnet_manager: {mode: switch}\n", "subnet_manager.mode"),
    ("subnet_manager: {mode: appliance}\n", "appliance"),
])
def test_unmanaged_infiniband_fabric_is_refused(tmp_path, capsys, text, field):
    code, err = _plan(tmp_path, _catalog_file(tmp_path, text), capsys)
    assert code == 2, err
    message = err.strip().splitlines()
    assert len(message) == 1 and field in message[0] and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_price_basis_comes_from_the_part_or_the_catalog():
    cat = load_catalog("ndr-400g")
    quoted = cat.nic.model_copy(update={"price_basis": PriceBasis(
        basis="quote", source="ACME", date="2026-10-01", currency="USD")})
    cat = cat.model_copy(update={"nic": quoted})
    router = cat.router_for(64)
    frame = pd.DataFrame({"item": ["switch", "nic"], "sku": [router.sku, cat.nic.sku],
                          "extended_price": [300.0, 100.0]})
    out = basis.attach(frame, cat, router)
    assert out["basis"].tolist() == ["estimate", "quote"]
    assert out["price_source"].tolist()[1] == "ACME"
    assert out["price_date"].tolist() == ["2026-11", "2026-10-01"]
    assert basis.shares(out) == {"estimate": 0.75, "list": 0.0, "quote": 0.25}


@pytest.mark.parametrize("field, value, fix", [
    ("currency", "usd", "ISO 4217"), ("date", "Nov 2026", "YYYY-MM"),
    ("basis", "guess", "estimate"),
])
def test_bad_price_basis_names_the_field(tmp_path, field, value, fix):
    from planner.run.errors import InputError
    path = _catalog_file(tmp_path, f"price_basis: {{{field}: '{value}'}}\n")
    with pytest.raises(InputError) as err:
        load_catalog(str(path))
    assert "price_basis" in str(err.value) and fix in str(err.value)


def test_reprice_marks_quoted_lines_quote():
    bom = pd.DataFrame({"item": ["switch", "pdu"], "sku": ["S", "P"], "description": ["", ""],
                        "length_m": [np.nan, np.nan], "quantity": [2, 4], "spares": [0, 0],
                        "unit_price": [10.0, 5.0], "extended_price": [20.0, 20.0],
                        "vendor": ["", ""], "basis": ["estimate"] * 2,
                        "price_source": ["cat"] * 2, "price_date": ["2026-11"] * 2,
                        "currency": ["USD"] * 2})
    import datetime
    offer = Offer(key=("P", "", ""), supplier="Volt", unit_price=4.0, breaks=(), currency="USD",
                  rate=1.0, moq=0, lead_time_days=None, valid_until=datetime.date(2026, 12, 31),
                  source="q.csv row 2")
    new, _ = repriced_bom(bom, [Award(None, 10.0, 0), Award(offer, 4.0, 0)])
    assert new["basis"].tolist() == ["estimate", "quote"]
    assert new["price_source"].tolist()[1] == "Volt, q.csv row 2"
    assert new["price_date"].tolist()[1] == "2026-12-31"
    # 2 x 10 estimated, 4 x 4 quoted: 20 / 36 and 16 / 36 of the total
    assert basis.shares(new) == {"estimate": round(20 / 36, 6), "list": 0.0,
                                 "quote": round(16 / 36, 6)}


@pytest.fixture(scope="module")
def ndr_plan(tmp_path_factory):
    from planner.exports import bom_xlsx
    from planner.plan import plan
    p = plan("fattree:k=4", "ndr-400g", "hot-aisle", seed=1)
    out = tmp_path_factory.mktemp("ndr")
    bom_xlsx.write(p, out)
    return p, out / "bom.xlsx"


def test_ndr_plan_bom_covers_every_cabinet(ndr_plan):
    p, _ = ndr_plan
    bom = p.bom
    q = bom.groupby("item")["quantity"].sum()
    cat = p.catalog
    routers = p.topology.num_routers
    assert q["subnet_manager"] == 2
    # 20 switches + 2 UFM appliances + the PDUs (metered, on the management network)
    assert q["mgmt_cable"] == routers + 2 + q["pdu"]
    assert q["mgmt_switch"] == p.summary["fabric"]["management_switches"] >= 1
    # every power supply gets a cord: switches, appliances, management switches (2 each)
    assert q["power_cord"] == 2 * (routers + 2 + q["mgmt_switch"])
    # per cabinet: each feed's PDUs take the whole cabinet's kW at 80 % and half its supplies
    capacity = cat.power.kw * 0.8
    cab_kw = p.cabinets["kw"].to_numpy()
    assert q["pdu"] >= 2 * np.ceil(cab_kw / capacity).sum()
    assert set(bom["basis"]) == {"estimate"}
    assert p.summary["cost"]["price_basis"]["shares"]["estimate"] == 1.0
    assert p.summary["cost"]["total"] == pytest.approx(bom["extended_price"].sum(), abs=0.01)


def test_workbook_shows_basis_share_and_not_included(ndr_plan):
    p, path = ndr_plan
    book = openpyxl.load_workbook(path, data_only=True)
    sheet = book["BOM"]
    rows = list(sheet.iter_rows(values_only=True))
    head = rows[0]
    for name in ("Price basis", "Price source", "Price date", "Currency"):
        assert name in head
    lines = [r for r in rows[1:len(p.bom) + 1]]
    assert {r[head.index("Price basis")] for r in lines} == {"estimate"}
    assert {r[head.index("Currency")] for r in lines} == {"USD"}
    items = [r[0] for r in lines]
    for item in ("subnet_manager", "mgmt_switch", "mgmt_cable", "pdu", "power_cord", "support"):
        assert item in items
    start = next(i for i, r in enumerate(rows) if r[0] == "Not included")
    listed = [r[2] for r in rows[start + 1:]]
    assert listed == ["compute cabinets", "servers", "storage", "in-band network",
                      "installation"]
    summary = {r[0]: r[1] for r in book["Summary"].iter_rows(values_only=True)}
    assert summary["Estimated share"] == pytest.approx(1.0)
    assert summary["Estimated cost"] == pytest.approx(p.bom["extended_price"].sum())


def test_pdf_cover_says_what_share_is_estimated(ndr_plan):
    from planner.exports.wiring_pdf.cover import totals_rows
    p, _ = ndr_plan
    rows = dict(totals_rows(p))
    assert rows["Price basis"].startswith("100.0 % of the total is estimated (planner "
                                          "maintainers' estimate")
    assert "2026-11" in rows["Price basis"] and rows["Price basis"].endswith("prices in USD")


def test_managed_switches_run_the_subnet_manager():
    cat = _ndr()
    managed = [r for r in cat.routers if r.managed]                 # the QM9700
    sm = cat.subnet_manager.model_validate({"mode": "switch"})
    lines, fp = _build(cat.model_copy(update={"routers": managed, "subnet_manager": sm}))
    assert _quantity(lines, "subnet_manager") == 0
    # no appliances: 4 switches + their PDUs (2 per feed-pair cabinet, A02 4) are managed
    assert int(fp.managed.sum()) == 4 + int(fp.pdus.sum())
    assert fp.psus.tolist() == [4, 4, 0, 2]        # switches 2 each, A02 + management switch


def test_management_cord_longer_than_any_stock_length_is_refused():
    from planner.run.errors import InputError
    cat = _ndr()
    cable = cat.management.cable.model_copy(update={"stock_lengths": [1.0]})
    cat = cat.model_copy(update={"management": cat.management.model_copy(
        update={"cable": cable})})
    with pytest.raises(InputError, match=r"management\.cable\.stock_lengths' ends at 1 m"):
        _build(cat)
