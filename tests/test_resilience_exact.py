"""``--resilience-exact`` (issue 26): θ after every failure from the exact LP whatever the
budget. On a plan whose default gives the labelled bound, the option gives the value of an
independent max concurrent flow LP on the reduced graph (the one of tests/test_resilience.py),
and warns of the time first.
"""

from __future__ import annotations

import pytest
from test_resilience import _graph_after, _lp_theta

from planner.performance import failure_groups, resilience
from planner.plan import plan
from planner.topologies import parse_spec

SPEC = "dragonfly:a=4,h=2"      # 36 routers; its 3 power feeds are above the LP budget


def test_exact_option_gives_the_independent_lp_where_the_default_is_a_bound(capsys):
    default = plan(SPEC, "modern-100g", "hot-aisle", strategy="hint", resilience="row",
                   fail_links=0)
    assert default.summary["resilience"]["kinds"]["row"]["theta_kind"] == "upper bound"
    capsys.readouterr()
    exact = plan(SPEC, "modern-100g", "hot-aisle", strategy="hint", resilience="row",
                 fail_links=0, resilience_exact=True)
    err = capsys.readouterr().err
    assert "--resilience-exact: 3 exact LPs" in err and err.count("\n") == 1, err
    block = exact.summary["resilience"]["kinds"]["row"]
    assert block["theta_kind"] == "exact" and block["method"].startswith("max concurrent flow")
    top = exact.topology
    groups, _ = failure_groups.derive("row", top, exact.placement, exact.floor, exact.cables,
                                      exact.structured)
    rows = groups["row"]
    want = [_lp_theta(_graph_after(top, *rows.failure(i))) for i in range(len(rows))]
    intact = exact.summary["resilience"]["intact_theta"]
    assert block["theta"]["worst"] == pytest.approx(min(want), abs=2e-6)
    assert block["theta_ratio"]["worst"] == pytest.approx(min(want) / intact, abs=2e-6)
    bound = default.summary["resilience"]["kinds"]["row"]["theta"]["worst"]
    assert bound >= block["theta"]["worst"] - 1e-6        # the bound never falls below it


def test_the_estimate_counts_every_lp():
    top = parse_spec(SPEC)
    one = 3 * 36 * 2 * len(top.links) + 36 * 36          # 36 routers with endpoints
    nonzeros, seconds = resilience.exact_estimate(top, 5)
    assert nonzeros == 5 * one and seconds > 0
