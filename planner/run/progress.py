"""Progress of long work: a tqdm bar on a terminal, one plain line per stage in a log.

When stdout is a terminal, the stages of a command advance a tqdm bar on stderr. When stdout is a
file or a pipe (a CI log, ``planner plan > plan.log``), every finished stage prints one line on
stdout instead, with its counts and the elapsed time, so a long run is never silent in a log:

    plan: placement/bounds done (0.4 s)
    plan: placement done: 1,044 optical links, lower bound 1,000; 25 cabinets (3.2 s)
    exports: bom_xlsx done (0.3 s)
    compare: 3/12 plans done (45.1 s)

Errors stay on stderr, alone: a refused input is one line there whatever was printed before.
A mode is ``"bar"``, ``"lines"`` or off (``None``/``False``); ``True`` means a bar.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager

from planner.run import interrupts

BAR, LINES = "bar", "lines"


def auto() -> str | None:
    """The mode for this process: lines when stdout is not a terminal, a bar when stderr is one,
    else off."""
    if not _isatty(sys.stdout):
        return LINES
    return BAR if _isatty(sys.stderr) else None


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced or closed streams
        return False


def _mode(mode) -> str | None:
    if mode is True:
        return BAR
    return mode if mode in (BAR, LINES) else None


def _bar(total: int, desc: str):
    """A tqdm bar over ``total`` steps on stderr, as wide as the terminal (80 if unknown)."""
    from tqdm import tqdm
    width = min(shutil.get_terminal_size((80, 24)).columns or 80, 120)
    return tqdm(total=total, desc=desc, file=sys.stderr, ncols=width, nrows=24, leave=True,
                bar_format="{desc:<22} {bar} {n_fmt}/{total_fmt} [{elapsed}]")


def _line(text: str) -> None:
    print(text, file=sys.stdout, flush=True)


class Stages:
    """The stages of one piece of work (``what``: "plan", "exports"): their wall time in
    ``seconds``, reported as they finish in the given ``mode``.

    ``run(name)`` times a stage run here; ``done(name, seconds)`` reports one timed elsewhere (a
    forked writer); ``note(name, seconds)`` a step inside the current stage (placement's own
    stages), which a bar shows in its description and a log as its own line.
    """

    def __init__(self, what: str, names: Sequence[str], mode=None):
        self.what = what
        self.mode = _mode(mode)
        self.seconds: dict[str, float] = {}
        self.current: str | None = None
        self.bar = _bar(len(names), what) if self.mode == BAR else None

    def __enter__(self) -> "Stages":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def run(self, name: str, detail: Callable[[], str] | None = None):
        """Time the block as stage ``name``; ``detail()`` (counts) goes into its log line. A stop
        signal a library swallowed during an earlier stage stops the work here."""
        interrupts.stop_if_received()
        self.current = name
        if self.bar is not None:
            self.bar.set_description_str(f"{self.what}: {name}")
        start = time.perf_counter()
        yield
        self.current = None
        self.done(name, time.perf_counter() - start, detail() if detail else "")

    def done(self, name: str, seconds: float, detail: str = "") -> None:
        """Stage ``name`` finished after ``seconds``."""
        self.seconds[name] = seconds
        if self.bar is not None:
            self.bar.update(1)
        elif self.mode == LINES:
            _line(f"{self.what}: {name} done{': ' + detail if detail else ''} ({seconds:.1f} s)")

    def note(self, step: str, seconds: float) -> None:
        """Step ``step`` of the current stage finished after ``seconds``."""
        name = f"{self.current}/{step}" if self.current else step
        if self.bar is not None:
            self.bar.set_description_str(f"{self.what}: {name}")
        elif self.mode == LINES:
            _line(f"{self.what}: {name} done ({seconds:.1f} s)")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.set_description_str(f"{self.what}: done")
            self.bar.close()
            self.bar = None


class Counter:
    """``total`` items of one kind (``compare``'s plans), counted as they finish:
    ``update(1)`` and ``close()``, as a tqdm bar."""

    def __init__(self, what: str, unit: str, total: int, mode=None):
        self.what, self.unit, self.total = what, unit, total
        self.mode = _mode(mode)
        self.count = 0
        self.start = time.perf_counter()
        self.bar = None
        if self.mode == BAR:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=f"{what}: {unit}", unit=unit.rstrip("s"),
                            file=sys.stderr)

    def update(self, n: int = 1) -> None:
        self.count += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.mode == LINES:
            _line(f"{self.what}: {self.count}/{self.total} {self.unit} done "
                  f"({time.perf_counter() - self.start:.1f} s)")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
