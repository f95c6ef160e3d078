"""Peak memory of a plan estimated from its sizes, and the memory this machine has for it.

``estimate_bytes(cables, ports, writers)`` is the whole run's peak (placement, cabling, the
export writers included), fitted to measured runs of ``planner plan`` as a user runs it (the
CLI, every output, ``modern-100g`` on ``hot-aisle``):

    peak ≈ BASE_BYTES + per cable · cables + BYTES_PER_PORT · router ports
    per cable = BYTES_PER_CABLE_ONE_WRITER + BYTES_PER_CABLE_PER_FORK · (writers - 1)

``writers`` is how many export writers run at once (``--writers``; one runs in the planner's
own process, more are forked and each copies part of it). ``writers_at_once`` chooses that
count when the plan is built, from the memory available then and what each writer needs
(``fork_bytes``).

``available_bytes()`` is what a new process may use: Linux ``MemAvailable``, lowered to what the
process's cgroup (v2 ``memory.max``, v1 ``memory.limit_in_bytes``) has left, or the physical
memory where neither is known. The environment variable ``PLANNER_MEMORY_AVAILABLE`` overrides
it for experts (``16G``, ``512M``, bytes) or turns the check off (``off``): docs/robustness.md.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import re
from pathlib import Path

from planner.run.errors import InputError

ENV = "PLANNER_MEMORY_AVAILABLE"

BASE_BYTES = 1_600 * 2 ** 20
BYTES_PER_CABLE = 6_500
BYTES_PER_PORT = 300
MEASURED_WRITERS = 2
"""Measured on 2 cores with ``benchmarks/bench_headline.py`` (``planner plan`` in a subprocess,
every output, the process tree's summed PSS sampled every 0.25 s; load average 20 to 25, so
slow, but the memory is the same), after the plan's stages hand their freed memory back
(``release``); cables are the plan's (topology links + endpoints; cables.csv adds the
management cords), router ports routers x the topology's radix, as ``guards.Estimate`` counts
them before anything is built:

| plan | cables | router ports | writers at once | tree peak PSS | wall |
| --- | --- | --- | --- | --- | --- |
| ``planner plan`` (slimfly:q=19,p=15) | 21,299 | 31,768 | 2 | 435 MiB | 115 s |
| dragonfly:a=26,p=13,h=13,g=296 | 246,272 | 392,496 | 2 | 2,961 MiB | 613 s |
| dragonfly:a=56,p=28,h=28,g=100 on eth-51t in campus | 389,200 | 621,600 | 1 | 3,474 MiB | 789 s |

and issue 24's 1M run, ``dragonfly:a=56,p=28,h=28,g=638`` on eth-51t (2,483,096 cables,
3,965,808 ports), writers one at a time, before ``release``: 14.1 GB in one process. The peak
grows more slowly than the cables (9.4 KB per cable at 389K, 5.7 KB at 2.48M): the export
writers, which dominate it, have fixed costs. A line through the
two one-writer runs is ``BASE_BYTES`` + ``BYTES_PER_CABLE_ONE_WRITER`` per cable (+ 300 B per
port); it lies 5 % above the 389K run and 8 % above the 1M one, so the 1M plan is not refused on
a 23 GB machine (about 22 GB available when quiet) and a plan of 2.5M endpoints is. It
overstates small plans (1.7 GiB for the 10K default), which no machine refuses.
``MEASURED_WRITERS``: the default forks two writers at once on two CPUs."""

BYTES_PER_CABLE_ONE_WRITER = 5_000
BYTES_PER_CABLE_PER_FORK = (BYTES_PER_CABLE - BYTES_PER_CABLE_ONE_WRITER) // (MEASURED_WRITERS - 1)
"""Writers one at a time in the planner's process (``--writers 1``): the plan and the largest
writer (the fit above). Each further writer at once adds ``BYTES_PER_CABLE_PER_FORK``: the 100K
run with two writers forked lies 0.3 KB per cable above the one-writer line; 1.5 KB keeps a
margin (the estimate is 9 % above that run). ``MEASURED_BY_WRITERS`` checks both."""

MEASURED_BY_WRITERS = (
    (21_299, 31_768, 2, 435),
    (246_272, 392_496, 2, 2_961),
    (389_200, 621_600, 1, 3_474),
    (2_483_096, 3_965_808, 1, 14_100_000_000 // 2 ** 20),
)
"""(cables, router ports, writers at once, whole-tree peak PSS MiB) of the runs above."""

MEASURED = tuple((c, p, peak) for c, p, w, peak in MEASURED_BY_WRITERS if w == MEASURED_WRITERS)
"""(cables, router ports, peak MiB) of the runs above with ``MEASURED_WRITERS`` writers."""

_UNITS = {"": 1, "B": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}


def estimate_bytes(cables: int, ports: int, writers: int = MEASURED_WRITERS) -> int:
    """Peak bytes of a plan of ``cables`` cables and ``ports`` router ports with ``writers``
    export writers at once (module doc)."""
    per_cable = BYTES_PER_CABLE_ONE_WRITER + BYTES_PER_CABLE_PER_FORK * (max(1, writers) - 1)
    return BASE_BYTES + per_cable * int(cables) + BYTES_PER_PORT * int(ports)


def override() -> int | None | str:
    """The ``PLANNER_MEMORY_AVAILABLE`` setting: bytes, ``"off"``, or None when unset.
    InputError naming the variable when it is neither."""
    text = os.environ.get(ENV)
    if text is None or not text.strip():
        return None
    if text.strip().lower() == "off":
        return "off"
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if not match:
        raise InputError(f"environment variable {ENV} is {text!r}; give bytes with an optional "
                         "unit (16G, 512M) or 'off'")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def available_bytes() -> int | None:
    """Bytes a new process may use (module doc); None when the platform does not say or the
    check is turned off."""
    given = override()
    if given == "off":
        return None
    if given is not None:
        return given
    found = [n for n in (_meminfo_available(), _cgroup_left()) if n is not None]
    if found:
        return min(found)
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_left() -> int | None:
    """Limit minus usage of this process's memory cgroup; None without a limit."""
    for limit, usage in (("memory.max", "memory.current"),
                         ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes")):
        base = Path("/sys/fs/cgroup")
        try:
            cap = (base / limit).read_text().strip()
            used = int((base / usage).read_text().strip())
        except (OSError, ValueError):
            continue
        if cap == "max" or not cap.isdigit() or int(cap) >= 2 ** 62:
            return None
        return max(0, int(cap) - used)
    return None


# ----------------------------------------------------------------------------- forked writers

MAX_WRITERS = 64
"""Most export writers a user may ask for at once (``--writers``): more than there are
writers only ever runs all of them."""

FORK_COPY_SHARE = 0.5
"""Share of the planner process's PSS a forked writer may turn into its own copy (Python's
reference counts write to every object a writer reads, so the pages holding them are copied).
Measured on the 246,272-cable Dragonfly of benchmarks/EXPORTS.md "Forked writers' memory": the
process tree peaked at 3,065 MiB with two writers forked at once and at 1,726 MiB with the
writers in the planner's process (the plan, 876 MiB, and labels, the largest writer); less the
two writers' own growth (about 850 and 585 MiB) the two forks copied about 750 MiB, 0.43 of
the planner's PSS each. 0.5 keeps a margin."""


def process_bytes(pid: int | str = "self") -> int | None:
    """Memory of process ``pid``: its proportional set size (``Pss`` of
    ``/proc/PID/smaps_rollup``: a page shared by n processes counts 1/n), else its resident
    set; None where ``/proc`` does not say."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def fork_bytes(growth: int, parent: int) -> int:
    """Memory a forked writer adds: its own ``growth`` plus the copy of the ``parent``'s pages
    it may make (``FORK_COPY_SHARE``)."""
    return int(growth) + int(FORK_COPY_SHARE * int(parent))


def writers_at_once(needs: list[int], available: int | None, cap: int) -> int:
    """How many forked writers may run at once: the most ``k <= cap`` such that the ``k``
    largest of ``needs`` (bytes per forked writer, ``fork_bytes``) fit in ``available`` (any
    ``k`` writers running together then fit). 0 when not even the largest fits: the writers
    then run in this process, one at a time. ``available`` None (unknown, or the check turned
    off): ``cap``."""
    cap = max(0, min(int(cap), len(needs)))
    if available is None:
        return cap
    total = 0
    for k, need in enumerate(sorted(needs, reverse=True)[:cap]):
        total += need
        if total > available:
            return k
    return cap


# ----------------------------------------------------------------------------- freed memory

RELEASE_FROM_RSS_BYTES = 512 * 2 ** 20
"""``release`` does nothing while the process holds less: a full collection walks every object
of the process (pandas, SciPy and OR-Tools included) and costs 0.1-0.17 CPU s however little it
frees. Measured on the 10K default plan (``planner plan``) and Slim Fly q=5: the process held
280-340 MiB at each of the five calls, which freed 0-33 MiB each for 0.5-0.6 CPU s in all (12 %
of the q=5 plan's 4.8 CPU s); the 100K Dragonfly holds more than this from placement on, and
its releases are what bring it from 908 to 549 MiB."""


def release() -> None:
    """Hand the memory freed so far back to the operating system: collect unreachable objects,
    then ask glibc's allocator to return its free pages (``malloc_trim(0)``, glibc only; a no-op
    elsewhere). A plan's stages free millions of small strings and arrays below the allocator's
    mmap threshold, which glibc keeps in its heap: after the 100K Dragonfly's plan
    (``dragonfly:a=26,p=13,h=13,g=296``) the process held 908 MiB and 549 MiB after the trim.
    ``planner.plan`` calls it after each stage, so the plan's tables are what the process
    holds when the export writers fork. Below ``RELEASE_FROM_RSS_BYTES`` it does nothing."""
    if _resident_bytes() < RELEASE_FROM_RSS_BYTES:
        return
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _resident_bytes() -> int:
    """This process's resident set size (``/proc/self/statm``); where it cannot be read, the
    threshold itself, so ``release`` then collects as before."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return RELEASE_FROM_RSS_BYTES


def _malloc_trim():
    """glibc's ``malloc_trim``, or None (another C library, another platform)."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        return ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
