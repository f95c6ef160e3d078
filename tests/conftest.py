"""Shared test set-up: the ``planner`` processes a test starts get the default Ctrl-C behaviour.

A test process started with SIGINT ignored (pytest-xdist's workers are) hands the ignored
disposition on to every process it starts, and a Python started with SIGINT ignored never raises
KeyboardInterrupt: the Ctrl-C tests would then see a plan that ran to the end instead of one that
stopped. Restoring Python's own handler here makes them test the planner, not the test runner.
"""

import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_finish(session):
    """Move everything alive after collection (pytest, the test modules and the libraries they
    import: some 230,000 objects) out of the garbage collector's sight. ``planner.plan`` runs
    a full collection after each stage (``planner.run.memory.release``); in a test process
    each of those walked every one of these objects again, a third of a second per small plan
    on a busy machine. Objects made later, by the tests and the plans, are collected as
    before."""
    import gc

    gc.freeze()
