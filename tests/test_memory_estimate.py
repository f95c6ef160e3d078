"""The up-front memory estimate (``planner.run.memory``) at issue 24's sizes: the 1M-endpoint
Dragonfly passes on a 23 GB machine; the largest of its shape (g = a·h + 1, 2.46M endpoints)
does not."""

from __future__ import annotations

import pytest

from planner.run import guards, memory
from planner.run.errors import InputError
from planner.topologies import sizing

GIB = 2 ** 30
ONE_M = "dragonfly:a=56,p=28,h=28,g=638"
LARGEST = "dragonfly:a=56,p=28,h=28,g=1569"


def _estimate(spec: str) -> guards.Estimate:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(memory.ENV, "off")
        return sizing.check_topology_spec(spec)


def test_the_1m_target_is_counted_exactly():
    """The counts the estimate is made of, by hand: 638 groups of 56 routers, each group
    all-to-all inside (56·55/2 links) and 56·28 global ports per group (each link has two
    ends); one cable per endpoint (56·28 per group)."""
    e = _estimate(ONE_M)
    assert e.links == 638 * (56 * 55 // 2) + 56 * 28 * 638 // 2
    assert e.endpoint_cables == 56 * 28 * 638 == 1_000_384


def test_the_1m_target_fits_a_23_gb_machine(monkeypatch):
    """On a quiet 23 GB machine (about 22 GB available) the 1M plan, writers one at a time as
    the estimate assumes (``guards.Estimate.writers``), is not refused; the estimate covers the
    one-process peak issue 24 measured (14.1 GB) before the plan's memory was cut."""
    e = _estimate(ONE_M)
    assert 14.1e9 <= e.memory_bytes <= 16 * GIB
    monkeypatch.setenv(memory.ENV, "22G")
    assert guards.check(e, "t", True) is e


def test_the_largest_of_that_shape_is_refused_there(monkeypatch):
    e = _estimate(LARGEST)
    assert e.cables < guards.MAX_CABLES             # refused for memory, not the cable budget
    monkeypatch.setenv(memory.ENV, "22G")
    with pytest.raises(InputError, match="of memory is available"):
        guards.check(e, "t", True)
