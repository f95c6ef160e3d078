"""The performance stage: hops, zero-load latency, bisection and saturation throughput of a plan.

Takes the topology, the placed plan's cables (their lengths and latencies follow from the
placement) and the router model, after cabling (``planner.plan``). Hands on the ``performance``
block (a dict; ``evaluate``'s value) that ``summary.json`` holds and that the terminal summary,
the ``wiring.pdf`` cover, ``planner compare`` and the viewer show, and with failure groups its
``resilience`` block (what the fabric keeps when part of the room fails).

Modules:

- ``stage``: ``evaluate``, the entry point: hops and the blocks below, in one dict;
- ``zero_load``: router delay, cable latency per link, the ``latency_ns`` block;
- ``bisection_bounds``: the partitioner's balanced cut and the best lower bound (``bisection``);
- ``theta``: the ``uniform`` and ``worst_case`` throughput blocks of the stage;
- ``throughput``: the θ engine: max concurrent flow LP, ECMP flow, cut and path-length bounds;
- ``traffic``: the published adversarial (worst-case) pattern of each family;
- ``failure_groups``: the plan's shared-risk groups (cabinets, trunks, panels, tray segments,
  power feeds);
- ``resilience``: θ, hops and connectivity after each single group fails, or k random cables;
- ``text``: the performance block as plain-language lines, θ as text;
- ``rounding``: how the block's numbers are rounded;
- ``tuning``: the stage's budgets and thresholds, with the measurements that chose them;
- ``simulators``: what BookSim2, SST/Merlin and CODES can express of a plan, BookSim options.
"""

from __future__ import annotations

import importlib

_HOME = {  # the names planner.plan, compare, the exports and the tests use -> their module
    "bisection": "bisection_bounds", "bisection_cut": "bisection_bounds", "evaluate": "stage",
    "summary_lines": "text", "theta_text": "text", "uniform_throughput": "theta",
    "DEFAULT_ROUTER_LATENCY_NS": "tuning", "check_router_latency": "zero_load",
    "latency": "zero_load", "router_latency": "zero_load",
    "endpoint_distance_sum": "planner.topologies.metrics",
}
__all__ = sorted(_HOME)


def __getattr__(name: str):
    """``planner.performance.evaluate`` and the other names of ``__all__``, imported from their
    module on first use (PEP 562): the stage pulls in pandas and scipy, and a light command
    (``planner --help``, ``planner plan --help``) that only reads ``simulators``' BookSim
    defaults must not pay for them."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    home = _HOME[name]
    module = importlib.import_module(home if "." in home else f"{__name__}.{home}")
    return getattr(module, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
