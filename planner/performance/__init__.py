"""The performance stage: hops, zero-load latency, bisection and saturation throughput of a plan.

Takes the topology, the placed plan's cables (their lengths and latencies follow from the
placement) and the router model, after cabling (``planner.plan``). Hands on the ``performance``
block (a dict; ``evaluate``'s value) that ``summary.json`` holds and that the terminal summary,
the ``wiring.pdf`` cover, ``planner compare`` and the viewer show. Resilience (what the fabric
keeps when links or routers fail) will live in this package too.

Modules:

- ``stage``: ``evaluate``, the entry point: hops and the blocks below, in one dict;
- ``zero_load``: router delay, cable latency per link, the ``latency_ns`` block;
- ``bisection_bounds``: the partitioner's balanced cut and the best lower bound (``bisection``);
- ``theta``: the ``uniform`` and ``worst_case`` throughput blocks of the stage;
- ``throughput``: the θ engine: max concurrent flow LP, ECMP flow, cut and path-length bounds;
- ``traffic``: the published adversarial (worst-case) pattern of each family;
- ``text``: the performance block as plain-language lines, θ as text;
- ``rounding``: how the block's numbers are rounded;
- ``tuning``: the stage's budgets and thresholds, with the measurements that chose them;
- ``simulators``: what BookSim2, SST/Merlin and CODES can express of a plan, BookSim options.
"""

from planner.performance.bisection_bounds import bisection, bisection_cut
from planner.performance.stage import evaluate
from planner.performance.text import summary_lines, theta_text
from planner.performance.theta import uniform_throughput
from planner.performance.tuning import DEFAULT_ROUTER_LATENCY_NS
from planner.performance.zero_load import check_router_latency, latency, router_latency
from planner.topologies.metrics import endpoint_distance_sum

__all__ = [  # the names planner.plan, compare, the exports and the tests use
    "DEFAULT_ROUTER_LATENCY_NS", "bisection", "bisection_cut", "check_router_latency",
    "endpoint_distance_sum", "evaluate", "latency", "router_latency", "summary_lines",
    "theta_text", "uniform_throughput",
]
