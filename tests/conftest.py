"""Shared test set-up: the ``planner`` processes a test starts get the default Ctrl-C behaviour.

A test process started with SIGINT ignored (pytest-xdist's workers are) hands the ignored
disposition on to every process it starts, and a Python started with SIGINT ignored never raises
KeyboardInterrupt: the Ctrl-C tests would then see a plan that ran to the end instead of one that
stopped. Restoring Python's own handler here makes them test the planner, not the test runner.
"""

import signal

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
