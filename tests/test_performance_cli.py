"""``planner plan`` with the performance options: what it prints, and bad input (exit 2, one
line, nothing written)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from planner.cli import main

BASE = ["plan", "--catalog", "modern-100g", "--floor", "hot-aisle", "--strategy", "hint",
        "--time-limit", "5"]


def _run(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_plan_prints_performance_and_the_defaults_it_chose(tmp_path):
    code, out = _run([*BASE, "--topology", "dragonfly:a=4,h=2", "--out", str(tmp_path / "p"),
                      "--router-latency-ns", "250"])
    assert code == 0
    summary = json.loads((tmp_path / "p" / "summary.json").read_text())
    perf = summary["performance"]
    assert "note: dragonfly: p not given, using p=2" in out
    assert "note: dragonfly: g not given, using g=9" in out and "-> 36 routers, 72 endpoints" in out
    assert f"{perf['hops']['average']:.3f} average" in out
    assert f"{perf['latency_ns']['average']:,.0f} ns average" in out
    assert "router 250 ns, --router-latency-ns" in out
    assert perf["latency_ns"]["router_ns"] == 250.0
    assert summary["options"]["router_latency_ns"] == 250.0
    uniform = perf["uniform"]
    assert f"{uniform['theta']:.3f} of injection bandwidth ({uniform['kind']}" in out
    assert perf["cost_per_delivered_tbps"] == pytest.approx(
        summary["cost"]["total"] / (uniform["theta"] * 72 * 100 / 1000), abs=0.01)


def test_booksim_options_reach_the_cfg(tmp_path):
    code, _ = _run([*BASE, "--topology", "slimfly:q=5", "--out", str(tmp_path / "p"),
                    "--booksim-cycle-ns", "2", "--booksim-rate", "0.3",
                    "--booksim-traffic", "randperm", "--router-latency-ns", "300"])
    assert code == 0
    cfg = (tmp_path / "p" / "booksim.cfg").read_text()
    assert "injection_rate = 0.3;" in cfg and "traffic = randperm;" in cfg
    assert "Router clock: 2 ns per cycle" in cfg and "a per-hop delay of 150 cycles" in cfg


@pytest.mark.parametrize("extra, needle", [
    (["--router-latency-ns", "-3"], "--router-latency-ns must be between 0 and 100,000 ns"),
    (["--router-latency-ns", "nan"], "--router-latency-ns must be between 0"),
    (["--booksim-rate", "1.5"], "--booksim-rate must be an injection rate"),
    (["--booksim-rate", "0"], "--booksim-rate must be an injection rate"),
    (["--booksim-cycle-ns", "0"], "--booksim-cycle-ns must be a router clock period"),
    (["--booksim-traffic", "tornado"], "needs the k and n of a k-ary n-cube"),
    (["--booksim-traffic", "zipf"], "is not a BookSim traffic pattern"),
    (["--booksim-traffic", "bitcomp"], "needs a power-of-two number of endpoints"),
    (["--booksim-traffic", "taper64"], "needs exactly 64 endpoints"),
])
def test_bad_performance_and_booksim_options_exit_2(tmp_path, capsys, extra, needle):
    out = tmp_path / "p"
    code = main([*BASE, "--topology", "slimfly:q=5", "--out", str(out), *extra])
    err = capsys.readouterr().err.strip()
    assert code == 2 and needle in err and "\n" not in err and "Traceback" not in err
    assert not out.exists()


def test_catalog_router_latency_that_makes_no_sense_exits_2(tmp_path, capsys):
    catalog = tmp_path / "slow.yaml"
    catalog.write_text("extends: modern-100g\nname: slow\nrouters:\n"
                       "  - {sku: R1, vendor: x, rate_gbps: 100, lanes_per_port: 4, radix: 32,\n"
                       "     price: {fixed: 100}, watts_per_lane: 1, rack_units: 1,\n"
                       "     latency_ns: 5.0e+7}\n")
    code = main([*BASE, "--topology", "slimfly:q=5", "--catalog", str(catalog), "--out",
                 str(tmp_path / "p")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "catalog router 'R1': field 'latency_ns'" in err
    assert not (tmp_path / "p").exists()
