"""Ctrl-C held back across a step that must not be cut half-way.

CPython discards a KeyboardInterrupt raised inside a C callback ("Exception ignored ..."): in
``os.fork()``'s at-fork hooks, or in llvmlite's object-cache callback while numba loads or
compiles a kernel. The interrupted plan would then go on, with a traceback on stderr. During
such a step a Ctrl-C is only recorded, and raised once the step is over. (Blocking the signal
with ``pthread_sigmask`` is not enough: the kernel hands a process-wide SIGINT to any thread
that does not block it, such as a solver's worker threads.)
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


@contextmanager
def ctrl_c_deferred():
    """Record SIGINT during the block and pass it to the previous handler after it (Python's
    default raises KeyboardInterrupt there). Only the main thread owns signal handlers:
    elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and callable(previous):
        previous(signal.SIGINT, None)
