"""``planner verify`` blames the right cable when one observed link could be read two ways, and
lists findings by kind before plan order (``planner.verify.comparison`` module doc).

Planned: C001 r00:1 - r01:1, C002 r02:1 - r01:2, C003 r03:1 - r04:1. Seen: r00:1 - r01:2 and
r03:1 - r04:1. The link r00:1 - r01:2 starts on C001's A end and lands on C001's planned peer device
r01 at another port (wrong-port for C001); read from C002's end r01:2 it lands on r00 instead of r02
(wrong-device for C002). One cable was plugged into the wrong port of the right switch, so the
finding is C001 wrong-port and C002 missing, not C002 wrong-device and C001 missing.
"""

from __future__ import annotations

import pytest

from planner.verify.comparison import compare
from planner.verify.values import ObservedLink, PlannedCable, PlannedFabric


def cable(cid, a, b):
    return PlannedCable(cid, f"{cid}-label", "network", a, b, "A01", "A02")


FABRIC = PlannedFabric(
    cables=(cable("C001", ("r00", 1), ("r01", 1)), cable("C002", ("r02", 1), ("r01", 2)),
            cable("C003", ("r03", 1), ("r04", 1))),
    cabinet_of={f"r0{i}": "A01" if i % 2 == 0 else "A02" for i in range(5)})


def seen(*links):
    return [ObservedLink(a, b, "test") for a, b in links]


CASES = [
    ("wrong port beats wrong device",
     seen((("r00", 1), ("r01", 2)), (("r03", 1), ("r04", 1))),
     [("wrong-port", "C001"), ("missing", "C002")]),
    ("the same link written from the other end",
     seen((("r01", 2), ("r00", 1)), (("r04", 1), ("r03", 1))),
     [("wrong-port", "C001"), ("missing", "C002")]),
    ("kinds before plan order: C003's wrong port before C001's absence",
     seen((("r02", 1), ("r01", 2)), (("r03", 1), ("r04", 5))),
     [("wrong-port", "C003"), ("missing", "C001")]),
]


@pytest.mark.parametrize("name,observed,want", CASES, ids=[c[0] for c in CASES])
def test_verify_blames_the_cable_missed_by_a_port(name, observed, want):
    report = compare(FABRIC, observed)
    assert [(f.kind, f.cable_id) for f in report.findings] == want
    assert report.matched == 3 - len(want)


def test_scope_sorts_links_by_whether_they_touch_an_endpoint():
    """An observed router-endpoint link belongs to the ``endpoint`` scope (one end on an
    endpoint is enough) and is left out of the ``network`` scope, where it is neither matched
    nor extra; a router-router link the other way round."""
    fabric = PlannedFabric(
        cables=FABRIC.cables + (PlannedCable("C004", "C004-label", "endpoint", ("r00", 5),
                                             ("n00", 1), "A01", "A01"),),
        cabinet_of=dict(FABRIC.cabinet_of, n00="A01"))
    observed = seen((("r00", 1), ("r01", 1)), (("r02", 1), ("r01", 2)), (("r03", 1), ("r04", 1)),
                    (("r00", 5), ("n00", 1)), (("r00", 6), ("n00", 2)))
    network = compare(fabric, observed, scope="network")
    assert (network.planned, network.observed, network.matched) == (3, 3, 3) and network.ok
    endpoint = compare(fabric, observed, scope="endpoint")
    assert (endpoint.planned, endpoint.observed, endpoint.matched) == (1, 2, 1)
    assert [(f.kind, f.observed) for f in endpoint.findings] == [("extra", "r00:6 - n00:2")]


def test_observed_link_is_printed_from_the_planned_a_end():
    """A finding writes what was seen with the end that stands for the planned A end first,
    however the reader ordered the two ends (names sort endpoints ``n..`` before routers)."""
    fabric = PlannedFabric(
        cables=(PlannedCable("C004", "C004-label", "endpoint", ("r00", 5), ("n00", 1), "A01",
                             "A01"),),
        cabinet_of={"r00": "A01", "n00": "A01", "r01": "A02"})
    for a, b in ((("n00", 1), ("r00", 9)), (("r00", 9), ("n00", 1))):
        report = compare(fabric, seen((a, b)))
        assert [(f.kind, f.expected, f.observed) for f in report.findings] == [
            ("wrong-port", "r00:5 - n00:1", "r00:9 - n00:1")]
