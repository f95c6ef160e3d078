"""Shared test set-up: the ``planner`` processes a test starts get the default Ctrl-C behaviour.

A test process started with SIGINT ignored (pytest-xdist's workers are) hands the ignored
disposition on to every process it starts, and a Python started with SIGINT ignored never raises
KeyboardInterrupt: the Ctrl-C tests would then see a plan that ran to the end instead of one that
stopped. Restoring Python's own handler here makes them test the planner, not the test runner.
"""

import gc
import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


_frozen_for = [None]


def pytest_runtest_setup(item):
    """Before the first test of each module, collect the garbage left so far and move every
    object still alive (pytest, the test modules, the libraries they imported, the plans of
    earlier modules' caches) out of the garbage collector's sight. ``planner.plan`` runs a full
    collection after each stage (``planner.run.memory.release``); in a test process each of
    those walked these hundreds of thousands of objects again, a third of a second per small
    plan on a busy machine. Objects the module's fixtures and tests make are collected as
    before."""
    if item.module is not _frozen_for[0]:
        _frozen_for[0] = item.module
        gc.collect()
        gc.freeze()
