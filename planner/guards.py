"""Resource guards: refuse, before anything big is built, a plan beyond the size budget.

A plan holds one row per cable (router-router links + endpoint cables) and one per router port,
and the export writers hold a few strings per row; ``benchmarks/RESULTS.md`` measured a peak of
150-200 MiB at start plus about 2.2-2.6 KB per cable at 0.2-0.25 M cables. The estimate below
keeps a margin above those figures:

    memory ≈ BASE_BYTES + BYTES_PER_CABLE · cables + BYTES_PER_PORT · router ports

A plan is refused (``InputError``, exit code 2, the estimate in the message) when it would have
more than ``MAX_CABLES`` cables or need more memory than the machine has available. ``planner
plan`` checks the topology parameters with the closed-form counts of
``planner.topologies.sizing.estimate`` before building the topology, and ``planner.plan.plan``
checks the exact counts of the built topology before placement (imported files, the Python API).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from planner.errors import InputError

MAX_CABLES = 10_000_000
BASE_BYTES = 256 * 2 ** 20
BYTES_PER_CABLE = 3_000
BYTES_PER_PORT = 300


@dataclass(frozen=True)
class Estimate:
    """Size of a plan: cables (router-router + endpoint), router ports, bytes of memory."""

    links: int
    endpoint_cables: int
    ports: int

    @property
    def cables(self) -> int:
        return self.links + self.endpoint_cables

    @property
    def memory_bytes(self) -> int:
        return BASE_BYTES + BYTES_PER_CABLE * self.cables + BYTES_PER_PORT * self.ports


def available_memory() -> int | None:
    """Bytes of memory available to a new process (Linux ``MemAvailable``, else the physical
    memory), or None when the platform does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


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
    if not (over_cables or over_memory):
        return estimate
    budget = (f"the budget is {MAX_CABLES:,} cables" if over_cables else
              f"only {_bytes(available)} of memory is available")
    fewer = " or --no-endpoint-cables" if endpoint_cables and estimate.endpoint_cables else ""
    raise InputError(f"{what}: the plan would have {_amount(estimate.cables)} cables "
                     f"({_amount(estimate.links)} router-router + "
                     f"{_amount(estimate.endpoint_cables)} endpoint) and need about "
                     f"{_bytes(estimate.memory_bytes)} of memory, but {budget}; choose smaller "
                     f"parameters (see 'planner size'){fewer}")


def check_counts(what: str, links: int, endpoints: int, routers: int, radix: int,
                 endpoint_cables: bool = True) -> Estimate:
    """``check`` for a plan of ``routers`` routers of ``radix`` ports, ``links`` router-router
    cables and ``endpoints`` endpoints (each one cable unless ``endpoint_cables`` is off)."""
    return check(Estimate(links=int(links), endpoint_cables=int(endpoints) if endpoint_cables
                          else 0, ports=int(routers) * int(radix)), what, endpoint_cables)


def check_topology_spec(spec, endpoint_cables: bool = True) -> Estimate | None:
    """Closed-form check of a ``family:k=v,...`` text or ``{family: ..., k: v}`` mapping before
    the topology is built (None for ``file:`` topologies and parameters the builder rejects)."""
    from planner.topologies import split_params
    from planner.topologies.sizing import estimate

    if isinstance(spec, str):
        text = spec.strip()
        if text.startswith("file:"):
            return None
        family, _, rest = text.partition(":")
        try:
            params = split_params(rest, f"topology {text!r}")
        except InputError:
            return None
    else:
        params = dict(spec)
        family = params.pop("family", None)
        nested = params.pop("params", None)
        if isinstance(nested, dict):
            params.update(nested)
        text = f"{family}:" + ",".join(f"{k}={v}" for k, v in params.items())
    if not isinstance(family, str):
        return None
    size = estimate(family, params)
    if size is None:
        return None
    return check_counts(f"--topology '{text}'", size.links, size.endpoints, size.routers,
                        size.radix, endpoint_cables)
