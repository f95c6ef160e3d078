"""Shared test set-up: the ``planner`` processes a test starts get the default Ctrl-C behaviour,
and each test starts with the objects alive before it frozen out of the garbage collector's walk.

A test process started with SIGINT ignored (pytest-xdist's workers are) hands the ignored
disposition on to every process it starts, and a Python started with SIGINT ignored never raises
KeyboardInterrupt: the Ctrl-C tests would then see a plan that ran to the end instead of one that
stopped. Restoring Python's own handler here makes them test the planner, not the test runner.
"""

import gc
import signal

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
