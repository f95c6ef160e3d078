"""BookSim2 cfgs on BookSim's own fat tree and Dragonfly, and the anynet cfg's load figures.

Native models: booksim2 ``src/networks/fattree.cpp`` (a k-ary n-tree: k^n nodes, n levels of
k^(n-1) routers) and ``src/networks/dragonfly.cpp`` (``dragonflynew``: p = k, a = 2p, h = p,
g = a·h + 1). Single-path loads are checked against an independent replay of BookSim's
``AnyNet::route`` in plain Python (``test_exports_anynet.booksim_routes``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest

from planner.exports import anynet, booksim_native
from planner.performance import simulators
from planner.plan import plan as make_plan
from planner.topologies import parse_spec
from test_exports_anynet import booksim_routes, cfg_settings, parse_anynet
from test_exports_plans import get_plan


def bare_plan(spec: str, theta: float = 1.0, **booksim):
    """What the native writer reads of a plan: its topology, θ and BookSim options."""
    return SimpleNamespace(topology=parse_spec(spec),
                           summary={"performance": {"uniform": {"theta": theta}},
                                    "options": {"booksim": booksim}})


# spec -> {cfg file: (topology, k, n, routing)}; k-ary n-tree with k = K/2, dragonflynew k = p
NATIVE = {
    "fattree:k=8": {"booksim.fattree.cfg": ("fattree", 4, 3, "nca")},
    "fattree:k=6,levels=2": {"booksim.fattree.cfg": ("fattree", 3, 2, "nca")},
    "dragonfly:a=4,p=2,h=2": {"booksim.dragonfly.cfg": ("dragonflynew", 2, 1, "ugal"),
                              "booksim.dragonfly.min.cfg": ("dragonflynew", 2, 1, "min")},
    "dragonfly:a=8,p=4,h=4,arrangement=relative": {
        "booksim.dragonfly.cfg": ("dragonflynew", 4, 1, "ugal"),
        "booksim.dragonfly.min.cfg": ("dragonflynew", 4, 1, "min")},
    # no k-ary n-tree / dragonflynew of these:
    "fattree:k=7": {}, "fattree:k=8,p=2": {}, "dragonfly:a=4,p=2,h=2,g=5": {},
    "dragonfly:a=6,p=2,h=2": {}, "slimfly:q=5": {}, "oft:q=3": {},
}


@pytest.mark.parametrize("spec", NATIVE)
def test_native_cfgs_carry_the_plans_parameters(spec, tmp_path):
    plan = bare_plan(spec)
    booksim_native.write(plan, tmp_path)
    expected = NATIVE[spec]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(expected)
    top = plan.topology
    for name, (topology, k, n, routing) in expected.items():
        settings = cfg_settings((tmp_path / name).read_text())
        assert (settings["topology"], int(settings["k"]), int(settings["n"]),
                settings["routing_function"]) == (topology, k, n, routing)
        if topology == "fattree":       # same radix and levels; the k-ary n-tree has half the pods
            assert 2 * k == top.params["k"] and n == top.params["levels"]
            assert 2 * k ** n == top.num_endpoints
            assert int(settings["num_vcs"]) >= 1
        else:                           # dragonflynew: a = 2k, h = k, g = a*h + 1, nodes a*p*g
            a, p, h, g = (top.params[x] for x in "aphg")
            assert (2 * k, k, k, 2 * k * k + 1) == (a, p, h, g)
            assert 2 * k * k * (2 * k * k + 1) == top.num_endpoints
            assert int(settings["num_vcs"]) == 3       # ugal_dragonflynew asserts 3
        rate = float(settings["injection_rate"])
        measured = booksim_native.MEASURED_SATURATION.get((name.split(".")[1], routing), 1.0)
        assert 0 < rate < min(1.0, measured)        # below θ = 1 and BookSim's saturation
        assert "." in settings["latency_thres"]     # BookSim reads it as a float only
    note = simulators.notes(top)["booksim_native"]
    assert note["written"] == bool(expected) and note["configs"] == sorted(
        expected, key=lambda c: c.count("."))
    assert note["note"]


@pytest.mark.parametrize("estimate, rate", [(1.0, 0.5), (0.9, 0.45), (0.482, 0.24),
                                            (0.0833, 0.041), (0.0909, 0.045)])
def test_default_rate_is_half_the_estimate_rounded_down(estimate, rate):
    assert simulators.default_rate(estimate) == pytest.approx(rate)
    assert simulators.default_rate(estimate) < estimate


def test_native_cfg_keeps_a_given_rate_and_warns_above_theta(tmp_path):
    booksim_native.write(bare_plan("fattree:k=4", theta=0.6, injection_rate=0.7), tmp_path)
    text = (tmp_path / "booksim.fattree.cfg").read_text()
    assert cfg_settings(text)["injection_rate"] == "0.7"
    assert "WARNING: injection_rate 0.7 is at or above the saturation estimate 0.6" in text
    booksim_native.write(bare_plan("fattree:k=4", theta=0.6), tmp_path)
    assert cfg_settings((tmp_path / "booksim.fattree.cfg").read_text())["injection_rate"] == \
        "0.3"


def independent_loads(out):
    """Channel loads of BookSim's routes under uniform traffic (each of N nodes sends 1/N of
    its rate to every node), replayed hop by hop in plain Python from the written netlist."""
    graph, nodes = parse_anynet((out / anynet.NETLIST).read_text())
    tables = booksim_routes(graph, graph.number_of_nodes())
    n = sum(len(v) for v in nodes.values())
    load = {(x, y): 0.0 for x, y in graph.edges()} | {(y, x): 0.0 for x, y in graph.edges()}
    for s, src in nodes.items():
        for t, dst in nodes.items():
            if s == t or not src or not dst:
                continue
            x = s
            while x != t:
                y = tables[x][t]
                load[x, y] += len(src) * len(dst) / n
                x = y
    return np.array(list(load.values()))


SMALL_PLANS = {"fattree": "fattree:k=4", "oft": "oft:q=3", "mlfm": "mlfm:h=3"}


@pytest.fixture(scope="module", params=["slimfly-hot", "dragonfly-hot", *SMALL_PLANS])
def anynet_plan(request, tmp_path_factory):
    name = request.param
    plan = get_plan(name) if name.endswith("-hot") else make_plan(
        SMALL_PLANS[name], "modern-100g", "hot-aisle", strategy="hint", time_limit_s=5)
    out = tmp_path_factory.mktemp(name)
    anynet.write(plan, out)
    return name, plan, out


def test_anynet_rate_sits_below_the_single_path_saturation(anynet_plan):
    _, plan, out = anynet_plan
    load = independent_loads(out)
    bound = min(1.0, 1.0 / load.max(), plan.summary["performance"]["uniform"]["theta"])
    text = (out / anynet.CONFIG).read_text()
    rate = float(cfg_settings(text)["injection_rate"])
    assert 0 < rate < bound
    assert rate == pytest.approx(simulators.default_rate(bound))
    assert f"injection_rate {min(1.0, 1.0 / load.max()):.3g}" in text


def test_anynet_cfg_says_min_has_no_deadlock_avoidance(anynet_plan):
    _, plan, out = anynet_plan
    text = (out / anynet.CONFIG).read_text()
    assert "DEADLOCK: min_anynet has no deadlock avoidance" in text
    found = re.search(r"trust it below injection_rate ([0-9.]+) \(([0-9.]+) x this plan's "
                      r"saturation estimate ([0-9.]+)", text)
    trusted, fraction, estimate = map(float, found.groups())
    assert trusted == pytest.approx(fraction * estimate, rel=2e-3) and fraction < 1
    assert float(cfg_settings(text)["injection_rate"]) < trusted
    assert "no deadlock avoidance" in plan.summary["simulators"]["booksim"]["deadlock"]


def test_single_path_note_names_the_real_loss_per_family(anynet_plan):
    name, _, out = anynet_plan
    load = independent_loads(out)
    line = next(x for x in (out / anynet.CONFIG).read_text().splitlines()
                if x.startswith("// Single path on this plan"))
    idle = int(np.count_nonzero(load == 0))
    ratio = load.max() / load.mean()
    if name == "fattree":       # one up-link of many per pair: idle links
        assert idle > 0 and f"{idle:,} of {len(load):,} channels" in line and "idle" in line
    else:                       # OFT, MLFM, Slim Fly, Dragonfly: every channel is used
        assert idle == 0 and "idle" not in line
        assert f"every one of the {len(load):,} channels" in line
    if ratio >= 1.01:
        assert f"{ratio:.2f}x the mean load" in line
    else:
        assert "the same load" in line


BOOKSIM = os.environ.get("BOOKSIM")


@pytest.mark.skipif(not BOOKSIM or shutil.which(BOOKSIM) is None,
                    reason="set BOOKSIM to a BookSim2 program to run the native cfgs in it")
@pytest.mark.parametrize("spec", ["fattree:k=8", "dragonfly:a=4,p=2,h=2"])
def test_native_cfgs_run_in_the_real_booksim(spec, tmp_path):
    """BookSim builds the network the cfg names, with the plan's sizes (it prints them), and
    finishes a run; it exits 255 after a completed run (``main.cpp`` returns -1 on success)."""
    plan = bare_plan(spec)
    booksim_native.write(plan, tmp_path)
    params = plan.topology.params
    for cfg in sorted(tmp_path.iterdir()):
        done = subprocess.run([shutil.which(BOOKSIM), cfg.name, "sample_period=1000",
                               "injection_rate=0.05"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        out = done.stdout
        assert done.returncode in (0, 255) and "Accepted packet rate average" in out, out[-2000:]
        if params.get("levels"):
            assert f" k = {params['k'] // 2} levels = {params['levels']}" in out
        else:
            assert f"# of groups (_g) = {params['g']}" in out
            assert f"# of routers per group (_a) = {params['a']}" in out
