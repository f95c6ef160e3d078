"""Ring all-reduce and rail-aligned all-to-all θ (``planner.performance.collectives``) on a
small rail-optimised fat tree, against hand-computed leaf cuts."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from planner import topologies
from planner.performance import collectives
from planner.performance import throughput as thr

# 2 units x 4 servers x 2 NICs on 8-port switches: 4 rail leaves (4 NICs down) and a spine.
SMALL = "railfattree:units=2,servers=4,nics=2,radix=8"


@pytest.mark.parametrize("oversub, up, ring, all_to_all", [
    # per leaf: 4 NICs of one rail in one unit; S = 8 servers on the rail.
    # ring: one NIC per leaf sends to the other unit (the unit's last server) -> 1 <= up.
    # all-to-all: a leaf sends 4 NICs x 4 other-unit servers / 7 = 16/7 through its `up`
    # up-links: theta = min(1, up x 7/16)
    (1, 4, Fraction(1), Fraction(1)),
    (2, 2, Fraction(1), Fraction(7, 8)),
])
def test_collectives_hand_computed(oversub, up, ring, all_to_all):
    top = topologies.parse_spec(f"{SMALL},oversub={oversub}")
    leaves = [i for i, role in enumerate(top.roles) if role == "leaf"]
    assert all(top.endpoints[i] == 4 and top.degree[i] == up for i in leaves)
    block = collectives.collectives(top, thr.Arcs.of(top))
    assert block["ring_allreduce"]["theta"] == pytest.approx(float(ring), abs=1e-6)
    assert block["all_to_all"]["theta"] == pytest.approx(float(all_to_all), abs=1e-6)


def test_ring_demand_follows_the_rails():
    """Each rail's ring crosses units twice (unit 0 -> 1 and back); the rest stays on a leaf."""
    top = topologies.parse_spec(SMALL)
    demand = collectives.ring_demand(top).toarray()
    record = top.extra["servers"]
    for rail in range(2):
        a, b = np.flatnonzero(record["nic"] == rail)
        assert demand[a, b] == demand[b, a] == 1.0
    assert demand.sum() == 4.0


def test_all_to_all_demand_total():
    """Per rail: 8 NICs each send 4/7 of their injection to the other unit's leaf."""
    top = topologies.parse_spec(SMALL)
    assert collectives.all_to_all_demand(top).sum() == pytest.approx(2 * 8 * 4 / 7)


def test_single_nic_servers_have_no_block():
    top = topologies.parse_spec("fattree:k=4")
    assert collectives.collectives(top, thr.Arcs.of(top)) is None
