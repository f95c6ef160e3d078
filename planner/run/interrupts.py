"""Stop signals: Ctrl-C (SIGINT), SIGTERM and SIGHUP end a run the same way.

``timeout``, systemd and batch schedulers stop a job with SIGTERM; closing its terminal sends
SIGHUP. While the command line runs (``handled``), both raise ``Interrupted``, a
``KeyboardInterrupt``, so every clean-up written for Ctrl-C (temporary folders removed, forked
writers stopped, the previous output left as it was) runs for them too, and the command prints
one line and exits 128 + the signal number. A signal the parent process set to "ignore" (SIGHUP
under ``nohup``, SIGINT of a background job) stays ignored.

CPython discards an exception raised inside a C callback ("Exception ignored ..."): in
``os.fork()``'s at-fork hooks, or in llvmlite's object-cache callback while numba loads or
compiles a kernel. The interrupted plan would then go on, with a traceback on stderr. During
such a step (``ctrl_c_deferred``) a stop signal is only recorded, and delivered once the step is
over. (Blocking the signal with ``pthread_sigmask`` is not enough: the kernel hands a
process-wide signal to any thread that does not block it, such as a solver's worker threads.)

A native library can also lose the KeyboardInterrupt while it loads: OR-Tools' and NumPy's
module initialisation turn a Ctrl-C during ``import`` into ``ImportError: initialization
failed`` (measured: a SIGINT 5 to 20 ms into ``import ortools.sat.python.cp_model``). So
``handled`` points the signal module's wake-up descriptor (``signal.set_wakeup_fd``, written by
the interpreter's C handler whatever the Python handler does) at a pipe, and ``received`` tells
the command line that the error it got came after a stop signal. A library can also swallow the
KeyboardInterrupt whole (numba's import under load caught it and then loaded): nothing raises,
so every stage boundary and the swap into ``--out`` call ``stop_if_received``, and the plan
stops there as if the Ctrl-C had raised.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_NAMES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated (SIGTERM)",
          signal.SIGHUP: "hung up (SIGHUP)"}


class Interrupted(KeyboardInterrupt):
    """A stop signal other than Ctrl-C, raised where Python raises KeyboardInterrupt."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = int(signum)


def signal_of(stop: KeyboardInterrupt) -> int:
    """The signal that raised ``stop`` (SIGINT for Python's own KeyboardInterrupt)."""
    return getattr(stop, "signum", signal.SIGINT)


def describe(signum: int) -> str:
    """``interrupted`` / ``terminated (SIGTERM)`` / ``hung up (SIGHUP)``."""
    return _NAMES.get(signum, f"stopped by signal {signum}")


def exit_code(signum: int) -> int:
    """128 + the signal number, as shells report a command a signal stopped (130, 143, 129)."""
    return 128 + int(signum)


def _raise(signum, frame):
    raise Interrupted(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


_wakeup: list[int] = []       # the read end of the pipe ``handled`` made and its process id
_received: list[int] = []


def received() -> int | None:
    """The first stop signal that arrived during ``handled``, or None. (A forked child does not
    read its parent's pipe.)"""
    if _wakeup and _wakeup[1] == os.getpid():
        try:
            _received.extend(os.read(_wakeup[0], 512))
        except (BlockingIOError, OSError):
            pass
    return next((sig for sig in _received if sig in STOP_SIGNALS), None)


def stop_if_received() -> None:
    """Raise ``Interrupted`` when a stop signal arrived during ``handled``, even one a library
    caught and swallowed."""
    signum = received()
    if signum is not None:
        raise Interrupted(signum)


@contextmanager
def _signals_recorded():
    """Every signal that reaches a Python handler during the block is noted in a pipe
    (``received``). Main thread only."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    os.set_blocking(write_end, False)
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    _wakeup[:] = [read_end, os.getpid()]
    _received.clear()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        _wakeup.clear()
        _received.clear()
        os.close(read_end)
        os.close(write_end)


@contextmanager
def handled():
    """SIGTERM and SIGHUP raise ``Interrupted`` during the block (SIGINT keeps Python's
    KeyboardInterrupt); every stop signal is recorded (``received``); the previous handlers
    come back after it. Main thread only."""
    if not _main_thread():
        yield
        return
    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, _raise)
    try:
        with _signals_recorded():
            yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _active() -> list[int]:
    """The stop signals that are not ignored."""
    return [sig for sig in STOP_SIGNALS if signal.getsignal(sig) is not signal.SIG_IGN]


@contextmanager
def ctrl_c_deferred():
    """Record every stop signal during the block and deliver it after the block to the handler
    it had before (Python's raises KeyboardInterrupt; ``handled``'s raises Interrupted; the
    default handler ends the process). Main thread only; elsewhere this does nothing."""
    if not _main_thread():
        yield
        return
    caught: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: caught.append(signum))
                for sig in _active()}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if caught:
        handler = previous[caught[0]]
        if callable(handler):
            handler(caught[0], None)
        else:
            signal.raise_signal(caught[0])


@contextmanager
def stop_signals_ignored():
    """The stop signals are ignored during the block: a step of milliseconds that must not be
    cut in half (the swap of the output folder; once it ran the new output is complete).
    Main thread only; elsewhere this does nothing."""
    if not _main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in _active()}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def may_fork() -> bool:
    """Whether this process may fork a child through ``multiprocessing``: the fork start method
    exists and this process is not a daemon (a Dask worker's task process, which
    ``multiprocessing`` forbids children)."""
    import multiprocessing

    return ("fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon)


def in_forked_writer() -> None:
    """Signal dispositions of a forked writer process: Ctrl-C and SIGHUP are the parent's to
    handle (it stops every writer), SIGTERM (the parent's ``terminate()``, or a stop sent to
    the whole process group) ends the writer at once, without a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def in_fork(fn: Callable[..., T], *args) -> T:
    """``fn(*args)`` computed in a forked child process, for native code that traps stop
    signals itself. METIS does: GKlib's ``gk_sigtrap`` installs a SIGTERM handler that longjmps
    out of whatever the process was doing, malloc included, and a ``timeout`` or batch
    scheduler's SIGTERM then left the planner crashed (SIGSEGV), hung, or running on with SIGTERM
    blocked (measured: 15 SIGTERMs during METIS calls, 6 segfaults, 3 hangs, 6 swallowed). In
    the child that damage is thrown away: the parent takes the signal as usual, kills the child
    and raises. The result comes back pickled; an exception in ``fn`` is raised here. Where
    fork is not available, or this process is a daemon (a Dask worker's task process, which
    ``multiprocessing`` forbids children), the call runs in this process."""
    import multiprocessing

    if not may_fork():
        return fn(*args)
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_forked_call, args=(fn, args, send), daemon=True)
    try:
        with ctrl_c_deferred():      # a signal inside os.fork() would be lost in its hooks
            child.start()
        send.close()
        try:
            ok, value = receive.recv()
        except EOFError:             # the child died without an answer
            child.join()
            signum = -child.exitcode if child.exitcode and child.exitcode < 0 else 0
            if signum in (*STOP_SIGNALS, signal.SIGKILL):
                raise Interrupted(signum) from None
            raise RuntimeError(f"{getattr(fn, '__name__', fn)} died in its child process "
                               f"(exit code {child.exitcode})") from None
        child.join()
    finally:
        if child.pid is not None and child.is_alive():
            child.kill()
            child.join()
        receive.close()
        send.close()
    if not ok:
        raise value
    return value


def _forked_call(fn, args, send) -> None:
    """The child of ``in_fork``: Ctrl-C and SIGHUP are the parent's to handle; SIGTERM ends
    the child at once (outside native code that traps it). Its stderr is discarded: what the
    native code prints as it dies ("Failed during initial partitioning") must not garble the
    parent's one-line message; errors come back through the pipe."""
    in_forked_writer()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    try:
        send.send((True, fn(*args)))
    except BaseException as err:     # noqa: BLE001 - handed to the parent
        send.send((False, err))
    finally:
        send.close()
