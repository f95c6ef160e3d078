"""A plan whose server model fits no cabinet of the floor is refused as every bad input is
(``tests/test_bad_input.py``): exit code 2, one line naming the floor field, the numbers and
the fix, nothing written."""

from __future__ import annotations

import pytest

from test_bad_input import refused, snapshot

RAIL = "railfattree:units=1,servers=8,nics=8,radix=16"


@pytest.mark.parametrize("fields, words", [
    # ndr-400g's H100-8GPU-8U: 10.2 kW and 8U
    ("cabinet_kw_budget: 10\n", ("'cabinet_kw_budget' is 10 kW", "H100-8GPU-8U",
                                 "raise cabinet_kw_budget to at least 10.")),
    ("first_endpoint_ru: 36\nendpoint_slots: 3\n", ("8U server (H100-8GPU-8U)", "42U cabinet",
                                 "first_endpoint_ru 36", "lower first_endpoint_ru")),
])
def test_a_server_that_fits_no_cabinet(fields, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "room.yaml").write_text("extends: hot-aisle\nname: room\n" + fields)
    before = snapshot(tmp_path)
    err = refused(["plan", "--topology", RAIL, "--catalog", "ndr-400g", "--floor", "room.yaml",
                   "--strategy", "hint", "--out", "out"], capsys)
    for word in words:
        assert word in err, err
    assert snapshot(tmp_path) == before


def test_spread_risk_is_refused_on_a_server_plan(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    err = refused(["plan", "--topology", RAIL, "--catalog", "ndr-400g", "--spread-risk", "0.5",
                   "--strategy", "hint", "--out", "out"], capsys)
    assert "--spread-risk does not apply" in err and "H100-8GPU-8U" in err, err
    assert snapshot(tmp_path) == before
