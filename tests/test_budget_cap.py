"""The placement's hard cap counts the planner's own CPU time, so a busy machine cannot trip it
(issue 24): busy sibling processes and idle waiting leave it where it was, the planner's own
work and its METIS child processes advance it, and the wall-clock limit far above still fires.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from planner.placement.budget import HardCap, own_cpu_seconds

TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of another process, from /proc/<pid>/stat (fields 14, 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")
def test_busy_sibling_processes_do_not_advance_the_cap():
    """Two busy loops burn a second and a half of CPU between them while this process waits:
    the cap (half a second of CPU) does not fire; a wall-clock cap of that size would have."""
    cap = HardCap(cpu_s=0.5, wall_s=1e6)
    before, started = own_cpu_seconds(), time.perf_counter()
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        burnt = 0.0
        while burnt < 1.5 and time.perf_counter() - started < 60:
            time.sleep(0.05)
            burnt = sum(_cpu_of(h.pid) for h in hogs)
        waited = time.perf_counter() - started
        assert burnt >= 1.5, "the busy loops did not run"
        assert waited > 0.5                       # the old wall-clock cap would have fired
        assert own_cpu_seconds() - before < 0.5
        assert not cap.expired() and not cap.fired
    finally:
        for h in hogs:
            h.send_signal(signal.SIGKILL)
            h.wait()


def test_own_work_advances_the_cap_and_it_fires():
    """A slow machine still trips the net: the planner's own CPU time reaches the cap."""
    before = own_cpu_seconds()
    cap = HardCap(cpu_s=0.2, wall_s=1e6)
    x = 0
    while not cap.expired() and x < 10**9:
        x += 1
    assert cap.fired
    assert own_cpu_seconds() - before >= 0.2


def test_the_wall_clock_limit_far_above_still_fires():
    cap = HardCap(cpu_s=1e6, wall_s=0.1)
    assert not cap.expired()
    time.sleep(0.2)
    assert cap.expired() and cap.fired
    assert cap.wall_remaining() < 0


def test_metis_child_processes_count():
    """METIS runs in a forked child (``interrupts.in_fork``); its CPU time is the planner's
    own and advances the cap once the child is done."""
    from planner.placement.graph import Graph
    from planner.placement.partition import metis_partition
    from planner.run.interrupts import may_fork
    from planner.topologies import build

    if not may_fork():
        pytest.skip("METIS runs in this process here")
    graph = Graph.from_topology(build("slimfly", q=13))
    weights = np.ones(graph.n, dtype=np.int64)
    children = os.times().children_user + os.times().children_system
    before = own_cpu_seconds()
    for seed in range(20):
        metis_partition(graph, weights, 8, seed)
    child_cpu = os.times().children_user + os.times().children_system - children
    assert child_cpu > 0
    assert own_cpu_seconds() - before >= child_cpu


def test_a_stalled_placement_gives_the_same_layout():
    """Placement held up between stages (as a loaded machine holds it up) for longer than a
    wall-clock cap of ten times the limit would allow still runs every stage, the
    cable-dollar annealing included, and gives the layout of a run that was not held up."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.floor import load_floor
    from planner.placement import place
    from planner.topologies import build

    top, floor, catalog = build("slimfly", q=5), load_floor("hot-aisle"), load_catalog("modern-100g")
    limit = 0.2

    def stall(stage, _seconds):
        if stage == "floor":               # just before the annealing asks the cap
            time.sleep(10 * limit + 0.5)

    plain = place(top, floor, catalog, time_limit_s=limit)
    stalled = place(top, floor, catalog, time_limit_s=limit, on_stage=stall)
    assert not plain.time_capped and not stalled.time_capped
    assert stalled.method == plain.method and stalled.method.endswith("+price")
    for field in ("router_cabinet", "cabinet_hall", "cabinet_row", "cabinet_col", "cabinet_group"):
        assert np.array_equal(getattr(stalled, field), getattr(plain, field)), field
