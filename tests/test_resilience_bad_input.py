"""Bad ``--fail-links`` / ``--resilience`` values and power feeds (issue 26 "Bad input"), as
``tests/test_bad_input.py`` checks every bad input: the real command line, exit code 2, one
line on stderr naming the option and the fix, nothing on stdout, nothing written."""

from __future__ import annotations

import pytest

from test_bad_input import refused, snapshot

PLAN = ("plan", "--topology", "slimfly:q=5", "--strategy", "hint", "--out", "out")
FEED_FLOOR = """\
name: fed
cabinet_width_m: 0.6
cabinet_depth_m: 1.2
cabinet_height_ru: 42
pitch_m: 0.6
aisle_m: 1.2
hall: {}
router_slots: 2
endpoint_slots: 32
group_cabinets: 2
intra_cabinet_m: 1.5
media_rule: reach
power_feed_rows: 0
"""

CASES = {
    "fail_links_fraction": (PLAN + ("--fail-links", "1.5"), ("--fail-links", "whole number")),
    "fail_links_negative": (PLAN + ("--fail-links", "-2"), ("--fail-links", "0 or more")),
    "fail_links_word": (PLAN + ("--fail-links", "ten"), ("--fail-links", "whole number")),
    "fail_links_above_cables": (PLAN + ("--fail-links", "176"),
                                ("--fail-links 176", "175 network cables", "at most 175")),
    "rows_without_power_feeds": (PLAN + ("--floor", "sc14", "--resilience", "row"),
                                 ("--resilience row", "power_feed_rows", "sc14")),
    "trays_on_the_abstract_grid": (PLAN + ("--floor", "sc14", "--resilience", "tray"),
                                   ("--resilience tray", "no trays", "'all'")),
    "trunks_without_structured_cabling": (PLAN + ("--floor", "sc14", "--resilience", "trunk"),
                                          ("--resilience trunk", "structured cabling")),
    "unknown_kind": (PLAN + ("--resilience", "fire"), ("--resilience", "invalid choice")),
    "power_feed_rows_zero": (PLAN + ("--floor", "fed.yaml"),
                             ("fed.yaml", "power_feed_rows")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_resilience_input(name, tmp_path, capsys, monkeypatch):
    argv, words = CASES[name]
    (tmp_path / "fed.yaml").write_text(FEED_FLOOR)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    err = refused(argv, capsys)
    for word in words:
        assert word in err, (word, err)
    assert snapshot(tmp_path) == before
