"""Shared test set-up: the ``planner`` processes a test starts get the default Ctrl-C behaviour,
and each test starts with the objects alive before it frozen out of the garbage collector's walk.

A test process started with SIGINT ignored (pytest-xdist's workers are) hands the ignored
disposition on to every process it starts, and a Python started with SIGINT ignored never raises
KeyboardInterrupt: the Ctrl-C tests would then see a plan that ran to the end instead of one that
stopped. Restoring Python's own handler here makes them test the planner, not the test runner.

``grown_dragonfly``: one growth the management-cord tests of two files read (planned once).
"""

import gc
import signal

import pytest
import yaml

from planner.cli import main

ROOM_MGMT = {"extends": "hot-aisle", "name": "room-mgmt",
             "hall": {"rows": 8, "cabinets_per_row": 24}, "structured_cabling": False}

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_runtest_setup(item):
    """Before each test, collect the garbage left so far and move every object still alive
    (pytest, the test modules, the libraries they imported, the module's fixtures) out of the
    garbage collector's sight (``gc.freeze``). ``planner.plan`` runs a full collection after
    each stage (``planner.run.memory.release``); in a test process each of those walked these
    hundreds of thousands of objects again: a third of a second per small plan on a busy
    machine. What the test itself makes is collected as before; a frozen object is still
    freed when its last reference goes, only a frozen reference cycle stays (a module
    fixture's, a few MB at most)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def grown_dragonfly(tmp_path_factory):
    """Dragonfly a=4,p=2,h=2 on ndr-400g grown g=5 -> 9 on an 8 x 24 hall without structured
    cabling (``ROOM_MGMT``, written beside the plans as room.yaml): (standing, grown) plan
    folders, read by tests/test_expand_mgmt.py and tests/test_expand_order.py."""
    base = tmp_path_factory.mktemp("mgmt-grow")
    room = base / "room.yaml"
    room.write_text(yaml.safe_dump(ROOM_MGMT))
    old, new = base / "old", base / "new"
    assert main(["plan", "--topology", "dragonfly:a=4,p=2,h=2,g=5", "--catalog", "ndr-400g",
                 "--floor", str(room), "--out", str(old), "--strategy", "hint",
                 "--resilience", "off"]) == 0
    assert main(["expand", "--from", str(old), "--topology", "dragonfly:a=4,p=2,h=2,g=9",
                 "--floor", str(room), "--out", str(new)]) == 0
    return old, new
