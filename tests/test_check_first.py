"""Checks before work (issue 24, item 3): what topology, catalog and floor decide is refused
before placement starts, ``planner size --catalog`` proposes only what passes, and a plan the
machine's memory cannot hold is refused up front."""

from __future__ import annotations

import numpy as np
import pytest

import planner.placement
from planner import topologies
from planner.cli import main
from planner.compare.sizing import nearest_checked, refusal
from planner.costing import power
from planner.inputs import feasibility
from planner.inputs.catalog import load_catalog
from planner.inputs.floor import load_floor
from planner.plan import plan
from planner.run import guards, memory
from planner.run.errors import InputError
from planner.topologies import sizing

G2 = "dragonfly:a=64,p=32,h=32,g=2"
G2_PLUS = "dragonfly:a=64,p=32,h=33,g=2"     # one more global link per router than G2
"""128 routers of 32 endpoints and 95 network links (63 local, 32 global) on eth-51t's
64-cage, 2-way breakout switches: planned, the cabling stage finds a router needing 66 cages."""


@pytest.fixture(scope="module")
def eth():
    return load_catalog("eth-51t")


@pytest.fixture(scope="module")
def hot():
    return load_floor("hot-aisle")


@pytest.fixture
def no_placement(monkeypatch):
    """Placement that fails the test if it is ever called."""
    def place(*args, **kwargs):
        raise AssertionError("placement started")
    monkeypatch.setattr(planner.placement, "place", place)


def one_row(floor, cabinets: int = 30):
    """``floor`` with one hall of one row of ``cabinets`` cabinets."""
    return floor.model_copy(update={"hall": floor.hall.model_copy(
        update={"rows": 1, "cabinets_per_row": cabinets, "count": 1})})


def refused(argv, capsys) -> str:
    """Run ``planner ARGV``; it must exit 2 with one line on stderr; that line."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# ----------------------------------------------------------------------------- the g=2 case

def test_plan_refuses_the_g2_cage_failure_before_placement(no_placement, tmp_path, capsys):
    """Hand count (h = 33: 96 network links): 32 endpoints on splitters: 16 cages. A cabinet's
    32 endpoint slots hold one such router; a 5 m ACC reaches 10 cabinets (see
    test_copper_neighbours), so 9 peers may each take a whole cage; the other 87 ends share
    cages two by two (44), and the two transceiver kinds (SR8, DR8) may leave one cage half
    used: 16 + 9 + 44 + 1 = 70 > 64. Even with the odd links on twin-port optics (G2 itself,
    h = 32, then fits in 64): 16 + (96 + 2) / 2 = 65 > 64."""
    out = tmp_path / "plan"
    err = refused(["plan", "--topology", G2_PLUS, "--catalog", "eth-51t", "--floor",
                   "hot-aisle", "--out", str(out)], capsys)
    assert "may need 70 cages of 2 ports" in err and "SN5600 has 64" in err, err
    assert "65 for a router with 32 endpoints" in err, err
    assert "planner size --catalog" in err
    assert not out.exists()


def test_size_proposes_the_g2_configuration_on_twin_port_optics(eth, hot, capsys):
    """G2 needs 69 cages on the cheapest parts but 16 + (95 + 2) / 2 = 64 with its odd links
    on twin-port optics (a cage serving two peers), so it is checked and proposed."""
    unchecked = sizing.nearest(4096, 128, ["dragonfly"], count=3)["dragonfly"]
    assert unchecked[0].spec() == G2            # ranked first without the catalog's checks
    found, left_out = nearest_checked(4096, 128, ["dragonfly"], 3, eth, hot)
    assert G2 in [o.spec() for o in found["dragonfly"]]
    assert all(refusal(o, eth, hot) is None for o in found["dragonfly"])
    assert G2 not in [o.spec() for o, _ in left_out]
    assert main(["size", "--endpoints", "4096", "--catalog", "eth-51t", "--families",
                 "dragonfly"]) == 0
    table = capsys.readouterr().out.splitlines()
    proposed = [line.split()[1] for line in table if line.startswith("dragonfly ")]
    assert len(proposed) == 3 and G2 in proposed


# ----------------------------------------------------------------------------- the limits

@pytest.mark.parametrize("reach, per_cabinet, near", [
    # one row, 0.6 m pitch, a patch rack after every 10 cabinets: route (run + 2 x 0.5 m) x 1.1
    (2.0, 1, 2),      # run <= 0.82 m: the next cabinet each side -> 3 cabinets
    (2.0, 2, 5),      # the same 3 cabinets, 2 routers each, minus itself
    (5.0, 1, 9),      # run <= 3.55 m: 5 each side, but a patch rack in any 11 -> 10 cabinets
    (5.0, 2, 19),
])
def test_copper_neighbours(hot, reach, per_cabinet, near):
    shape = feasibility.Shape.of_counts(128, 4096, 127, 32)
    assert feasibility.copper_neighbours(one_row(hot), reach, per_cabinet, shape) == near


@pytest.mark.parametrize("p, degree, cages", [
    # no straight twin-port copper: ceil(p / 2) + ceil(d / 2) + (2 transceiver kinds - 1)
    (32, 95, 16 + 48 + 1),
    (28, 83, 14 + 42 + 1),
    (0, 128, 0 + 64 + 1),
    (1, 1, 1 + 1 + 0),          # one network end cannot split over two transceiver kinds
])
def test_cages_without_copper_assemblies(eth, hot, p, degree, cages):
    optics = eth.model_copy(update={"cables": [m for m in eth.cables
                                               if not (m.is_assembly and m.links > 1
                                                       and not m.split)]})
    model = optics.router_for(p + degree)
    shape = feasibility.Shape(4, np.full(4, p), np.full(4, degree))
    assert feasibility.cages_needed(shape, optics, hot, model) == cages


def _kw_floor(floor, shape, catalog, model):
    """A 10-cabinet row whose kW budget leaves one router per cabinet."""
    row = one_row(floor, 10)
    budget = 30.0
    while power.fit_budget(row.model_copy(update={"cabinet_kw_budget": budget}), shape,
                           catalog, model).router_slots > 1:
        budget = round(budget - 0.1, 1)
    return row.model_copy(update={"cabinet_kw_budget": budget})


@pytest.mark.parametrize("name", ["cages", "kW per cabinet", "cabinets"])
def test_limits_refused_before_placement(name, no_placement, eth, hot):
    """Each limit raises from ``planner.plan`` with placement never called."""
    modern = load_catalog("modern-100g")
    small = topologies.parse_spec("slimfly:q=3")              # 18 routers, 2 cabinets' worth
    model = modern.router_for(small.radix)
    cases = {
        "cages": (G2_PLUS, eth, hot, ["may need 70 cages", "SN5600 has 64"]),
        "kW per cabinet": (small, modern, None, ["cabinet_kw_budget", "leaves 1 of the 2 "
                                                 "router slots"]),
        "cabinets": (small, modern, one_row(hot, 8), ["need", "cabinets", "hall"]),
    }
    topology, catalog, floor, words = cases[name]
    if floor is None:
        floor = _kw_floor(hot, feasibility.Shape.of(small), modern, model)
    with pytest.raises(InputError) as err:
        plan(topology, catalog, floor, strategy="hint")
    assert all(w in str(err.value) for w in words), str(err.value)


# ----------------------------------------------------------------------------- memory

def _must_not_build(*args, **kwargs):
    raise AssertionError("the topology was built")


def test_memory_refused_up_front(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(memory.ENV, "64M")
    monkeypatch.setitem(topologies.FAMILIES, "slimfly", _must_not_build)
    err = refused(["plan", "--out", str(tmp_path / "plan")], capsys)
    for words in ("only 64 MiB of memory is available", "need about", "choose smaller",
                  "more memory", memory.ENV):
        assert words in err, err
    assert not (tmp_path / "plan").exists()


@pytest.mark.parametrize("setting, available", [
    ("64M", 64 * 2 ** 20), ("2G", 2 * 2 ** 30), ("1.5GiB", int(1.5 * 2 ** 30)),
    ("123456", 123456), ("off", None)])
def test_memory_override(monkeypatch, setting, available):
    monkeypatch.setenv(memory.ENV, setting)
    assert memory.available_bytes() == available
    huge = guards.Estimate(links=5_000_000, endpoint_cables=4_000_000, ports=1)
    if available is None:
        assert guards.check(huge, "t", True) is huge
    else:
        with pytest.raises(InputError, match="of memory is available"):
            guards.check(huge, "t", True)


def test_memory_override_garbage(monkeypatch):
    monkeypatch.setenv(memory.ENV, "lots")
    with pytest.raises(InputError, match=f"{memory.ENV} is 'lots'"):
        memory.available_bytes()


@pytest.mark.parametrize("cables, ports, peak_mib", memory.MEASURED)
def test_estimate_covers_the_measured_runs(cables, ports, peak_mib):
    assert memory.estimate_bytes(cables, ports) >= peak_mib * 2 ** 20


# ----------------------------------------------------------------------------- defaults pass

def test_defaults_pass_the_checks(eth, hot):
    """The built-in default, and the 1M target's router shape at g=2 (which plans end to end
    on eth-51t in hot-aisle), pass every check before placement."""
    default = sizing.estimate("slimfly", {"q": 19, "p": 15})
    assert refusal(default, load_catalog("modern-100g"), hot) is None
    assert refusal(sizing.estimate("dragonfly", {"a": 56, "p": 28, "h": 28, "g": 2}),
                   eth, hot) is None


def test_small_plans_still_plan():
    result = plan("slimfly:q=3", "modern-100g", "hot-aisle", strategy="hint")
    assert result.summary["topology"]["routers"] == 18
    assert result.summary["topology"]["endpoints"] == 18 * 3   # p = ceil(5 / 2)


@pytest.mark.parametrize("spec", ["dragonfly:a=8,p=4,h=4,g=2", "slimfly:q=5,p=4"])
def test_bound_covers_the_cages_a_plan_uses(spec, eth, hot):
    """The cages each router really uses in a plan (its used ports' cages, read from the port
    table) stay within ``cages_needed``."""
    result = plan(spec, eth, hot, strategy="hint")
    model = result.router_model
    ports = result.ports[result.ports["used"]]
    used = ((ports["port"] - 1) // model.breakout).groupby(ports["device"]).nunique()
    bound = feasibility.cages_needed(feasibility.Shape.of(result.topology), eth, hot, model)
    assert 0 < used.max() <= bound <= model.cage_count


@pytest.mark.parametrize("argv, words", [
    (["size", "--endpoints", "1000"], ["--max-radix is required without --catalog"]),
    (["size", "--endpoints", "1000", "--max-radix", "64", "--floor", "hot-aisle"],
     ["--floor needs --catalog"]),
    (["size", "--endpoints", "1000", "--catalog", "no-such-catalog"], ["no-such-catalog"]),
])
def test_size_bad_input(argv, words, capsys):
    err = refused(argv, capsys)
    assert all(w in err for w in words), err
