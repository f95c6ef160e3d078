"""BookSim2 cfgs on BookSim's own model of the family, beside the ``anynet`` ones.

``booksim.cfg`` runs the plan's exact netlist with ``min_anynet``: one path per router pair and
no deadlock avoidance. Where BookSim2 has a built-in network of the family
(``planner.performance.simulators.native_model``), this writes a cfg for it with the plan's
parameters and a routing that uses the fabric's path diversity and avoids deadlock:

- fat tree: ``booksim.fattree.cfg``, ``topology = fattree`` (k-ary n-tree) with ``nca``
  (booksim2 ``src/routefunc.cpp`` ``fattree_nca``: a random parent on the way up, the one
  down-path after the nearest common ancestor; up*/down* has no cycle);
- balanced, full-size Dragonfly: ``booksim.dragonfly.cfg``, ``topology = dragonflynew`` with
  ``ugal`` (``ugal_dragonflynew``: minimal or Valiant per packet, 3 VCs), and
  ``booksim.dragonfly.min.cfg`` with ``min`` (``min_dragonflynew``: a VC change at the global
  hop breaks the cycles).

The cfgs carry no netlist: BookSim builds the network from k and n. Plans BookSim cannot
express write nothing here; ``summary.json`` ``simulators.booksim_native`` says why.
"""

from __future__ import annotations

from pathlib import Path

from planner.performance import simulators
from planner.run.errors import InputError

ROUTING_TEXT = {
    "nca": "nca_fattree: up through a random parent to the nearest common ancestor, then the "
           "one path down (up*/down*: deadlock-free)",
    "ugal": "ugal_dragonflynew: per packet, the minimal path or a Valiant path through a random "
            "group, whichever has the shorter queues (3 VCs: deadlock-free)",
    "min": "min_dragonflynew: the minimal path, VC 0 before the global hop and VC 1 after it "
           "(deadlock-free, but one global channel carries all traffic between two groups)",
}
VCS = {"fattree": 4, "dragonfly": 3}
"""``ugal_dragonflynew`` asserts exactly 3 VCs; ``nca_fattree`` takes any number (4 as in
booksim2 ``examples/fattree_config``)."""
LATENCY_THRESHOLD = {"fattree": 500.0, "dragonfly": 5000.0}
"""``latency_thres`` (BookSim stops a run as unstable above it): BookSim's default 500 for the
1-cycle fat tree; a Dragonfly's Valiant path crosses two 100-cycle global channels, and at
0.5 load UGAL packets average 724 cycles while the run is still accepting traffic (k = 2)."""
MEASURED_SATURATION = {("dragonfly", "ugal"): 0.32, ("dragonfly", "min"): 0.33}
"""BookSim's own saturation where it is below θ: accepted rate 0.32 at offered 0.5-0.9 with
``ugal`` and 0.33 at 0.4 with ``min`` on ``dragonflynew`` k = 2 (docs/performance.md
"Saturation in BookSim2"). The native fat tree with ``nca`` accepted 0.7 of 0.7 (θ = 1)."""
BUFFERS = {"fattree": 16, "dragonfly": 256}
"""Flits per VC: booksim2 ``examples/fattree_config`` (1-cycle channels) and
``examples/dragonflyconfig`` (covers the credit round trip of the 100-cycle global channels)."""


def native_nodes(model: simulators.NativeModel) -> int:
    """Endpoints of BookSim's network: k^n (fattree), a·p·g = 2k·k·(2k²+1) (dragonflynew)."""
    k, n = model.settings["k"], model.settings["n"]
    return k ** n if model.name == "fattree" else 2 * k * k * (2 * k * k + 1)


def saturation_estimate(plan) -> float:
    """The plan's multipath saturation θ (``summary.json`` ``performance.uniform.theta``),
    else 1."""
    theta = plan.summary.get("performance", {}).get("uniform", {}).get("theta")
    return float(theta) if theta else 1.0


def native_config(plan, model: simulators.NativeModel, routing: str, options: dict) -> str:
    """The cfg text of ``model`` with ``routing``."""
    top = plan.topology
    nodes = native_nodes(model)
    theta = saturation_estimate(plan)
    measured = MEASURED_SATURATION.get((model.name, routing))
    estimate = min(theta, measured) if measured else theta
    lines = [f"// BookSim2's built-in {model.settings['topology']} network for the {top.family} "
             f"plan ({top.num_routers} routers, {top.num_endpoints} endpoints).",
             f"// {model.note}.",
             f"// Routing: {ROUTING_TEXT[routing]}.",
             f"// The plan's saturation under uniform traffic: theta = {theta:g} "
             "(summary.json performance.uniform)."]
    rate = options["injection_rate"]
    if measured:
        lines.append(f"// BookSim's {routing} saturated at about {measured:g} on dragonflynew "
                     "k=2 with these routers (internal_speedup 1, as every cfg of the plan); "
                     "BookSim's examples/dragonflyconfig adds internal_speedup=2.0, under "
                     "which ugal carried 0.5 (docs/performance.md).")
    if rate is None:
        rate = simulators.default_rate(estimate)
        lines.append(f"// injection_rate = {simulators.DEFAULT_LOAD_FRACTION:g} x "
                     f"{estimate:g}, below saturation; raise it (injection_rate=R on the "
                     "command line) to find BookSim's saturation.")
    elif rate >= estimate:
        lines.append(f"// WARNING: injection_rate {rate:g} is at or above the saturation "
                     f"estimate {estimate:g}: the network is saturated and latencies grow "
                     "without bound.")
    traffic = options["traffic"]
    try:
        simulators.check_booksim({"traffic": traffic}, nodes)
    except InputError:
        lines.append(f"// traffic {traffic} needs a node count BookSim's network "
                     f"({nodes} nodes) does not have: uniform instead.")
        traffic = "uniform"
    lines += ["",
              f"topology = {model.settings['topology']};",
              f"k = {model.settings['k']};",
              f"n = {model.settings['n']};",
              f"routing_function = {routing};",
              "",
              f"traffic = {traffic};",
              f"injection_rate = {rate:g};",
              "packet_size = 1;",
              "sim_type = latency;",
              "warmup_periods = 3;",
              "sample_period = 10000;",
              f"latency_thres = {LATENCY_THRESHOLD[model.name]:.1f};",
              "use_read_write = 0;",
              "",
              *simulators.booksim_router_keys(VCS[model.name], BUFFERS[model.name])]
    return "\n".join(lines)


def write(plan, out_dir: Path) -> None:
    """``booksim.<model>[.<routing>].cfg`` for each routing of the plan's native model; nothing
    for a plan BookSim2 has no model of."""
    model, _ = simulators.native_model(plan.topology)
    if model is None:
        return
    options = simulators.check_booksim(plan.summary.get("options", {}).get("booksim"),
                                       plan.topology.num_endpoints)
    for routing in model.routings:
        text = native_config(plan, model, routing, options)
        (Path(out_dir) / simulators.native_config_name(model, routing)).write_text(
            text, encoding="ascii", newline="\n")
