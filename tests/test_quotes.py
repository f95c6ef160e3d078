"""Awarding quotes (planner.costing.quotes): quantity breaks, MOQ, per-line / per-class /
single supplier, on a hand-made three-line BOM."""

import datetime

import pandas as pd
import pytest

from planner.costing import quotes as q

BOM = pd.DataFrame({"item": ["switch", "transceiver", "cable"],
                    "sku": ["SW-1", "OPT-1", "DAC-1"], "description": ["sw", "opt", "dac"],
                    "length_m": [float("nan"), float("nan"), 2.0], "quantity": [10, 100, 50],
                    "spares": [0, 5, 5], "unit_price": [1000.0, 50.0, 20.0],
                    "extended_price": [10000.0, 5250.0, 1100.0], "vendor": ["V", "V", "W"]})


def write(tmp_path, name, rows):
    frame = pd.DataFrame(rows, columns=["part_number", "description", "length_m", "supplier",
                                        "unit_price", "quantity_breaks", "moq"])
    frame.to_csv(tmp_path / name, index=False)
    return q.read_quote(tmp_path / name, set(q.bom_keys(BOM)), currency="USD", rates={},
                        today=datetime.date(2026, 1, 1))


@pytest.fixture
def quotes(tmp_path):
    a = write(tmp_path, "a.csv", [["SW-1", "sw", "", "A", "900", "", ""],
                                  ["OPT-1", "opt", "", "A", "45", "100=40", ""],
                                  ["DAC-1", "dac", "2", "A", "25", "", ""]])
    b = write(tmp_path, "b.csv", [["SW-1", "sw", "", "B", "950", "", ""],
                                  ["OPT-1", "opt", "", "B", "42", "", ""],
                                  ["DAC-1", "dac", "2", "B", "15", "", "100"]])
    return [a, b]


@pytest.mark.parametrize("how,prices,suppliers", [
    # per line: SW 900 (A); OPT: A's break at 100 (105 ordered) gives 40 < B's 42; DAC: B's
    # MOQ 100 > 55 ordered, so A's 25 (dearer than the old 20, but the cheapest offer)
    ("per-line", [900, 40, 25], ["A", "A", "A"]),
    # per class: switches A (900 < 950); optics A (40 x 105 < 42 x 105); cables: A costs
    # 25 x 55 = 1375, B (its offer below MOQ) keeps the old 20 x 55 = 1100 -> B, unquoted
    ("per-class", [900, 40, 20], ["A", "A", None]),
    # single: A costs 9000 + 4200 + 1375 = 14575; B 9500 + 4410 + 55 x 20 (DAC kept) = 15010
    ("single", [900, 40, 25], ["A", "A", "A"]),
])
def test_award(quotes, how, prices, suppliers):
    awards = q.award(BOM, quotes, how)
    assert [a.unit_price for a in awards] == prices
    assert [a.offer.supplier if a.offer else None for a in awards] == suppliers


def test_single_supplier_keeps_unquoted_lines(tmp_path):
    a = write(tmp_path, "a.csv", [["SW-1", "sw", "", "A", "800", "", ""]])
    b = write(tmp_path, "b.csv", [["OPT-1", "opt", "", "B", "10", "", ""],
                                  ["DAC-1", "dac", "2", "B", "10", "", ""]])
    # A: 8000 + 5250 + 1100 = 14350; B: 10000 + 1050 + 550 = 11600 -> B, switch unquoted
    awards = q.award(BOM, [a, b], "single")
    assert [a.unit_price for a in awards] == [1000, 10, 10]
    assert awards[0].offer is None


def test_break_price_and_quantity():
    offer = q.Offer(key=("x", "", ""), supplier="A", unit_price=10.0,
                    breaks=((100, 9.0), (500, 8.0)), currency="USD", rate=1.0, moq=0,
                    lead_time_days=None, valid_until=None, source="f row 2")
    assert [offer.price_at(n) for n in (99, 100, 499, 500)] == \
        [(10.0, 0), (9.0, 100), (9.0, 100), (8.0, 500)]


def test_line_key_follows_bom_text():
    assert q.line_key("P-1 ", "a part", 2.0) == ("P-1", "a part", "2")
    assert q.line_key("P-1", "a part", float("nan")) == ("P-1", "a part", "")
    assert q.line_key("P-1", "a part", "2.50") == ("P-1", "a part", "2.5")
