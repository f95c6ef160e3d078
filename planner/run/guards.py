"""Resource guards: refuse, before anything big is built or read, a plan beyond the size
budget, an output the disk cannot hold, and an input file that is not a bounded regular file.

The memory a plan needs is estimated from its cables and router ports by
``planner.run.memory`` (coefficients fitted to measured runs) and compared with what the machine
has (``MemAvailable``, the cgroup's limit, or ``PLANNER_MEMORY_AVAILABLE``).

A plan is refused (``InputError``, exit code 2, the estimate in the message) when it would have
more than ``MAX_CABLES`` cables or ``MAX_PORTS`` router ports (every port of every router is a
row of the port table and an interface of the NetBox bundle, used or not), or need more memory
than the machine has available. ``planner
plan`` checks the topology parameters with the closed-form counts of
``planner.topologies.sizing.check_topology_spec`` before building the topology, and
``planner.plan.plan`` checks the exact counts of the built topology before placement (imported
files, the Python API).
"""

from __future__ import annotations

import dataclasses
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from planner.run import memory
from planner.run.errors import InputError

MAX_CABLES = 10_000_000
MAX_PORTS = 2 * MAX_CABLES
"""A cable takes at most two router ports: the same budget, counted in ports."""
MAX_RADIX = 4_096
"""Ports of one router model: the largest chassis switches have about 2,300 at full breakout
(576 x 400G ports as 4 x 100G), and the NetBox device type lists every port."""


@dataclass(frozen=True)
class Estimate:
    """Size of a plan: cables (router-router + endpoint), router ports, bytes of memory."""

    links: int
    endpoint_cables: int
    ports: int
    writers: int = 1
    """Export writers at once (``--writers``). By default one: the planner forks more only
    when the memory measured once the plan is built holds them
    (``planner.run.memory.writers_at_once``), so one is what a plan needs."""

    @property
    def cables(self) -> int:
        return self.links + self.endpoint_cables

    @property
    def memory_bytes(self) -> int:
        return memory.estimate_bytes(self.cables, self.ports, self.writers)


def available_memory() -> int | None:
    """Bytes of memory available to a new process (``planner.run.memory.available_bytes``)."""
    return memory.available_bytes()


def _amount(n: int) -> str:
    return f"{n:,}" if n < 10 ** 15 else f"about 10^{len(str(n)) - 1}"


def _bytes(n: int) -> str:
    return f"{n / 2 ** 30:,.1f} GiB" if n >= 2 ** 30 else f"{n / 2 ** 20:,.0f} MiB"


def check(estimate: Estimate, what: str, endpoint_cables: bool) -> Estimate:
    """InputError naming ``what`` (``--topology 'slimfly:q=181'``) when ``estimate`` is over the
    cable budget or the available memory; ``estimate`` otherwise."""
    available = available_memory()
    over_cables = estimate.cables > MAX_CABLES
    over_memory = available is not None and estimate.memory_bytes > available
    if estimate.ports > MAX_PORTS and not over_cables:
        raise InputError(f"{what}: the routers would have {_amount(estimate.ports)} ports in all "
                         f"(routers x the router model's radix), above the budget of "
                         f"{MAX_PORTS:,}; choose a router model of fewer ports or a smaller "
                         "topology")
    if not (over_cables or over_memory):
        return estimate
    budget = (f"the budget is {MAX_CABLES:,} cables" if over_cables else
              f"only {_bytes(available)} of memory is available")
    fewer = " or --no-endpoint-cables" if endpoint_cables and estimate.endpoint_cables else ""
    fewer_writers = (not over_cables and estimate.writers > 1 and dataclasses.replace(
        estimate, writers=1).memory_bytes <= available)
    writers = ", fewer writers (--writers 1)" if fewer_writers else ""
    bigger = ("" if over_cables else f"{writers}, run on a machine with more memory, or set "
              f"{memory.ENV} to override the estimate")
    raise InputError(f"{what}: the plan would have {_amount(estimate.cables)} cables "
                     f"({_amount(estimate.links)} router-router + "
                     f"{_amount(estimate.endpoint_cables)} endpoint) and need about "
                     f"{_bytes(estimate.memory_bytes)} of memory, but {budget}; choose smaller "
                     f"parameters (see 'planner size'){fewer}{bigger}")


def check_counts(what: str, links: int, endpoints: int, routers: int, radix: int,
                 endpoint_cables: bool = True) -> Estimate:
    """``check`` for a plan of ``routers`` routers of ``radix`` ports, ``links`` router-router
    cables and ``endpoints`` endpoints (each one cable unless ``endpoint_cables`` is off)."""
    return check(Estimate(links=int(links), endpoint_cables=int(endpoints) if endpoint_cables
                          else 0, ports=int(routers) * int(radix)), what, endpoint_cables)


def check_router_model(catalog, model) -> None:
    """InputError naming the catalog field when the chosen router model has more than
    ``MAX_RADIX`` ports (checked before anything is sized by it)."""
    if model.radix > MAX_RADIX:
        index = next(i for i, m in enumerate(catalog.routers) if m is model)
        raise InputError(f"catalog '{catalog.source}': field 'routers[{index}].radix' (sku "
                         f"'{model.sku}') is {model.radix:,}; the planner handles routers of up "
                         f"to {MAX_RADIX:,} ports (the largest chassis switches have about "
                         "2,300 with breakout cables); give the model's real port count")


# ----------------------------------------------------------------------------- output space

OUTPUT_BASE_BYTES = 4 * 2 ** 20
OUTPUT_BYTES_PER_CABLE = 2_000
"""Bytes a plan folder takes: measured 1.09-1.35 KB per cable (Slim Fly q=5, 13, 19 on
modern-100g/hot-aisle: 0.5, 7.2, 23.2 MB; benchmarks/RESULTS.md "output MiB" agrees), with a
margin for the writers other stages add."""


def free_bytes(folder: Path) -> int | None:
    """Bytes an unprivileged user may still write on the file system holding ``folder``."""
    try:
        stat = os.statvfs(folder)
    except (OSError, AttributeError):
        return None
    return stat.f_bavail * stat.f_frsize


def check_space(out: Path | str, cables: int) -> None:
    """InputError before anything is planned when the disk of ``out`` cannot hold the files of a
    plan of ``cables`` cables (the estimate above)."""
    absolute = Path(out).absolute()
    folder = next((p for p in (absolute, *absolute.parents) if p.is_dir()), None)
    free = free_bytes(folder) if folder is not None else None
    need = OUTPUT_BASE_BYTES + OUTPUT_BYTES_PER_CABLE * int(cables)
    if free is not None and free < need:
        raise InputError(f"--out '{out}': the plan's files need about {_bytes(need)} but only "
                         f"{_bytes(free)} is free on that disk; free some space or give an "
                         "--out folder on another disk")


# ----------------------------------------------------------------------------- input files

def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def regular_file(path: Path | str, what: str) -> Path:
    """``path`` if it is an existing regular file (after symbolic links); InputError naming
    ``what`` (``catalog 'x.yaml'``) and what it is otherwise. Pipes and devices are refused
    before they are opened, so a FIFO given as a file cannot block the run."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"{what}: file not found") from None
    except OSError as err:
        raise InputError(f"{what}: cannot read ({err.strerror})") from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{what}: is {_kind(mode)}, not a regular file; give a file")
    return path


def open_input(path: Path | str, what: str, max_bytes: int):
    """A regular file opened for reading in binary mode (never blocking on a pipe swapped in
    after the check), refused with an InputError when it holds more than ``max_bytes``."""
    path = regular_file(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise InputError(f"{what}: cannot read ({err.strerror})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
        os.close(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{what}: is {_kind(info.st_mode)}, not a regular file; give a file")
        raise InputError(f"{what}: the file is {info.st_size:,} bytes, above the "
                         f"{max_bytes:,} the planner reads; give a smaller file")
    return os.fdopen(fd, "rb")


def read_input(path: Path | str, what: str, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (``open_input``)."""
    with open_input(path, what, max_bytes) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew while being read
        raise InputError(f"{what}: the file is above the {max_bytes:,} bytes the planner "
                         "reads; give a smaller file")
    return data
