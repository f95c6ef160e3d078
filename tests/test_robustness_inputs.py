"""Every valid system plans, every invalid one is refused before work starts (issue 29, "Valid
systems that crash", "Inputs that should be refused", "What users get" 3).

Refusals keep the promise of ``tests/test_bad_input.py``: the real command line
(``planner.cli.main``) in a scratch workspace holding a previous plan in ``out/`` and a user's
file gives exit code 2, exactly one line on stderr naming the input, the field and the fix, no
traceback, no plan on stdout, and leaves every file of the workspace byte for byte as it was.
Valid systems: one router with its servers and no router-router link plans end to end, from
each topology file format and with each placement strategy.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from planner import exports
from planner.cli import main
from planner.inputs import schema
from planner.plan import plan
from planner.topologies.slimfly import slimfly
from test_bad_input import refused, snapshot

FIXTURES = Path(__file__).parent / "fixtures"
PLAN = ("plan", "--topology", "slimfly:q=3", "--strategy", "hint", "--out", "out")
SPEC = "topology: slimfly:q=3\nstrategy: hint\nout: out\n"
RING = (FIXTURES / "topologies" / "ring4.csv").read_text()


def _plan(*extra: str) -> tuple[str, ...]:
    return PLAN + extra


def _write(name: str, text: str) -> Callable[[Path], None]:
    return lambda ws: (ws / "in" / name).write_text(text, encoding="utf-8")


def _catalog(change: Callable[[dict], None]) -> Callable[[Path], None]:
    """``in/c.yaml``: the built-in modern-100g catalog, changed by ``change(data)``."""
    def setup(ws: Path) -> None:
        data = schema.load_data(schema.resolve("modern-100g", "catalogs", "catalog"),
                                "catalogs", "catalog")
        change(data)
        (ws / "in" / "c.yaml").write_text(yaml.safe_dump(data, sort_keys=False,
                                                         allow_unicode=True), encoding="utf-8")
    return setup


def _set(*keys_and_value) -> Callable[[dict], None]:
    *keys, value = keys_and_value

    def change(data: dict) -> None:
        node = data
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return change


def _floor(field: str, value) -> Callable[[Path], None]:
    def setup(ws: Path) -> None:
        data = schema.load_data(schema.resolve("hot-aisle", "layouts", "floor"), "layouts",
                                "floor")
        data[field] = value
        (ws / "in" / "f.yaml").write_text(yaml.safe_dump(data, sort_keys=False),
                                          encoding="utf-8")
    return setup


def _link(name: str, target: str) -> Callable[[Path], None]:
    return lambda ws: (ws / "in" / name).symlink_to(target)


def _both(*setups: Callable[[Path], None]) -> Callable[[Path], None]:
    def setup(ws: Path) -> None:
        for one in setups:
            one(ws)
    return setup


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    words: tuple[str, ...]
    """Substrings of the one error line: the input, the field and the fix."""
    setup: Callable[[Path], None] | None = None


CATALOG = _plan("--catalog", "in/c.yaml")
TOPOLOGY_CSV = _plan("--topology", "file:in/t.csv")
CASES: dict[str, Case] = {
    # --- a topology without endpoints is refused as the builders refuse p=0
    "edge list p=0": Case(_plan("--topology", "file:in/t.csv?p=0"),
                          ("topology file 'in/t.csv'", "parameter 'p' must be >= 1", "got '0'"),
                          _write("t.csv", RING.split("router,endpoints")[0])),
    "graphml p=0": Case(_plan("--topology", f"file:{FIXTURES}/topologies/ring4.graphml?p=0"),
                        ("ring4.graphml", "parameter 'p' must be >= 1")),
    "topology command p=0": Case(("topology", "file:in/t.csv", "p=0"),
                                 ("topology file 'in/t.csv'", "'p' must be >= 1"),
                                 _write("t.csv", "0,1\n1,2\n")),
    "spec topology file p=0": Case(("plan", "in/s.yaml"),
                                   ("spec 'in/s.yaml'", "field 'topology'", "'p' must be >= 1"),
                                   _both(_write("t.csv", "0,1\n"),
                                         _write("s.yaml", "topology: file:t.csv?p=0\n"
                                                          "out: out\n"))),
    "edge list whose routers all have 0 endpoints": Case(
        TOPOLOGY_CSV, ("topology file 'in/t.csv'", "has no endpoints", "?p=N (N >= 1)"),
        _write("t.csv", "0,1\n1,2\nrouter,endpoints\n0,0\n1,0\n2,0\n")),
    "anynet without nodes": Case(_plan("--topology", "file:in/t.anynet"),
                                 ("topology file 'in/t.anynet'", "has no endpoints",
                                  "'node ID' entries"),
                                 _write("t.anynet", "router 0 router 1\nrouter 1 router 2\n")),
    "graphml whose nodes all have 0 endpoints": Case(
        _plan("--topology", "file:in/t.graphml"), ("in/t.graphml", "has no endpoints"),
        _write("t.graphml", re.sub(r'<data key="ep">\d+</data>', '<data key="ep">0</data>',
                                   (FIXTURES / "topologies" / "ring4.graphml").read_text()))),
    # --- templates: a huge format width is one line of YAML and hundreds of MiB of text
    "part-number template width 999,999,999": Case(
        CATALOG, ("catalog 'in/c.yaml'", "'cables[0]'", "MCP1600", "pads {nv} to 999,999,999",
                  "256", "{nv:03d}"),
        _catalog(_set("cables", 0, "part_numbers", "MCP1600-C{nv:>999999999}"))),
    "part-number template precision": Case(
        CATALOG, ("'cables[0]'", "pads {m} to 100,000 characters"),
        _catalog(_set("cables", 0, "part_numbers", "MCP1600-{m:.100000}M"))),
    "part-number template nested field": Case(
        CATALOG, ("'cables[0]'", "nests a field in the format of {nv}", "write the format out"),
        _catalog(_set("cables", 0, "part_numbers", "MCP1600-C{nv:{cm}}"))),
    "interface-name template width": Case(
        CATALOG, ("'routers[0]'", "SN3700C", "pads {port} to 10,000,000"),
        _catalog(_set("routers", 0, "interface_names", "swp{port:010000000}"))),
    # --- names, SKUs, part numbers: bounded text without control characters
    "NUL in a router SKU": Case(
        CATALOG, ("catalog 'in/c.yaml'", "field 'routers[0].sku'", "control character \\x00",
                  "position 7", "remove it"),
        _catalog(_set("routers", 0, "sku", "MSN2700\x00-CS2F"))),
    "escape sequence in a catalog name": Case(
        CATALOG, ("field 'name'", "control character \\x1b"),
        _catalog(_set("name", "modern\x1b]0;pwned\x07"))),
    "line break in a cable SKU": Case(
        CATALOG, ("field 'cables[1].sku'", "control character \\n"),
        _catalog(_set("cables", 1, "sku", "MFA1A00\nMCP1600"))),
    "one-byte CSI in a part number": Case(
        CATALOG, ("'cables[0].part_numbers", "control character \\x9b"),
        _catalog(_set("cables", 0, "part_numbers",
                      {1.0: "MCP1600-C001", 2.0: "MCP1600-C002", 3.0: "MCP1600\x9b2J"}))),
    "right-to-left override in a vendor": Case(
        CATALOG, ("field 'routers[1].vendor'", "control character \\u202e"),
        _catalog(_set("routers", 1, "vendor", "Mellanox\u202e"))),
    "a 300-character SKU": Case(
        CATALOG, ("field 'routers[0].sku'", "300 characters long", "256", "shorten it"),
        _catalog(_set("routers", 0, "sku", "M" * 300))),
    "escape sequence in a description": Case(
        CATALOG, ("field 'description'", "control character \\x1b"),
        _catalog(_set("description", "100GbE \x1b[2J fabric"))),
    "a 5,000-character description": Case(
        CATALOG, ("field 'description'", "5,000 characters long", "4,000"),
        _catalog(_set("description", "d" * 5000))),
    "DEL in a floor name": Case(_plan("--floor", "in/f.yaml"),
                                ("floor 'in/f.yaml'", "field 'name'", "control character \\x7f"),
                                _floor("name", "hot\x7faisle")),
    "NUL in a spec's output folder": Case(("plan", "in/s.yaml"),
                                          ("spec 'in/s.yaml'", "field 'out'", "\\x00"),
                                          _write("s.yaml", SPEC.replace("out: out",
                                                                        'out: "o\\0ut"'))),
    # --- every explicit YAML tag, the standard ones too
    "!!binary in a spec": Case(("plan", "in/s.yaml"),
                               ("spec 'in/s.yaml'", "YAML tag '!!binary' is not allowed",
                                "line 4", "use plain values"),
                               _write("s.yaml", SPEC + "seed: !!binary aGVsbG8=\n")),
    "!!str in a spec": Case(("plan", "in/s.yaml"), ("YAML tag '!!str' is not allowed", "line 1"),
                            _write("s.yaml", "topology: !!str slimfly:q=3\nout: out\n")),
    "!!set in a catalog": Case(CATALOG, ("catalog 'in/c.yaml'", "YAML tag '!!set'", "line 2"),
                               _write("c.yaml", "extends: modern-100g\nname: !!set {a, b}\n")),
    "!!timestamp in a floor": Case(_plan("--floor", "in/f.yaml"),
                                   ("floor 'in/f.yaml'", "YAML tag '!!timestamp'"),
                                   _write("f.yaml", "extends: hot-aisle\n"
                                                    "name: !!timestamp 2001-12-14\n")),
    "!!float on a mapping value": Case(("plan", "in/s.yaml"), ("YAML tag '!!float'", "line 4"),
                                       _write("s.yaml", SPEC + "time_limit: !!float 3\n")),
    "!!map on a whole spec": Case(("plan", "in/s.yaml"), ("YAML tag '!!map'", "line 1"),
                                  _write("s.yaml", "!!map\n" + SPEC)),
    # --- a topology path that is a loop of symbolic links
    "topology file linking to itself": Case(
        _plan("--topology", "file:in/loop.csv"),
        ("topology file 'in/loop.csv'", "loop of symbolic links", "point the link"),
        _link("loop.csv", "loop.csv")),
    "two topology files linking to each other": Case(
        _plan("--topology", "file:in/a.graphml?p=2"), ("'in/a.graphml'", "loop of symbolic"),
        _both(_link("a.graphml", "b.graphml"), _link("b.graphml", "a.graphml"))),
    "topology command on a link loop": Case(("topology", "file:in/loop.anynet"),
                                            ("'in/loop.anynet'", "loop of symbolic links"),
                                            _link("loop.anynet", "loop.anynet")),
    "spec naming a link loop": Case(("plan", "in/s.yaml"),
                                    ("spec 'in/s.yaml'", "field 'topology'", "'in/loop.csv'",
                                     "loop of symbolic"),
                                    _both(_link("loop.csv", "loop.csv"),
                                          _write("s.yaml", "topology: file:loop.csv\n"
                                                           "out: out\n"))),
    "catalog linking to itself": Case(_plan("--catalog", "in/c.yaml"),
                                      ("catalog file 'in/c.yaml'", "symbolic link that leads "
                                       "to no file", "loop of links"),
                                      _link("c.yaml", "c.yaml")),
    "floor linking to a missing file": Case(_plan("--floor", "in/f.yaml"),
                                            ("floor file 'in/f.yaml'", "missing target"),
                                            _link("f.yaml", "gone.yaml")),
    # --- --booksim-traffic is one statement of booksim.cfg
    "booksim traffic with a line break": Case(
        _plan("--booksim-traffic", "uniform\nsim_count = 9"),
        ("--booksim-traffic", "'uniform\\nsim_count = 9' is not a BookSim traffic pattern",
         "line breaks")),
    "booksim traffic with a statement after ';'": Case(
        _plan("--booksim-traffic", "uniform; sim_count = 9"),
        ("--booksim-traffic", "without ';'")),
    "booksim traffic with a line break inside its arguments": Case(
        _plan("--booksim-traffic", "hotspot({0},\nsim_count = 9)"),
        ("--booksim-traffic", "hotspot({0},\\nsim_count = 9)")),
}


@pytest.fixture(scope="module")
def previous(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("previous") / "plan"
    exports.write_plan(plan(slimfly(3), "modern-100g", "hot-aisle", strategy="hint"), out)
    return out


def refused_line(case: Case, tmp_path: Path, previous: Path, capsys, monkeypatch) -> str:
    """Run ``case`` in a workspace holding ``previous`` in ``out/`` and a user's file; check the
    promise of the module doc (exit 2, one printable line naming ``case.words``, nothing of the
    workspace touched) and return that line."""
    ws = tmp_path / "ws"
    (ws / "in").mkdir(parents=True)
    shutil.copytree(previous, ws / "out")
    (ws / "notes.txt").write_text("the user's own file\n")
    if case.setup is not None:
        case.setup(ws)
    monkeypatch.chdir(ws)
    before = snapshot(tmp_path)
    err = refused(case.argv, capsys)
    assert not [ch for ch in err[:-1] if not ch.isprintable()], err
    for word in case.words:
        assert word in err, (word, err)
    assert snapshot(tmp_path) == before
    return err


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_in_one_line(name, tmp_path, previous, capsys, monkeypatch):
    refused_line(CASES[name], tmp_path, previous, capsys, monkeypatch)


def test_a_description_may_hold_line_breaks(tmp_path, monkeypatch):
    """Descriptions keep their line breaks and tabs (YAML block scalars); only names are
    single-line."""
    from planner.inputs.catalog import load_catalog
    ws = tmp_path
    (ws / "in").mkdir()
    _catalog(_set("description", "100GbE fabric:\n\tleaf and spine\n"))(ws)
    assert load_catalog(str(ws / "in" / "c.yaml")).description == \
        "100GbE fabric:\n\tleaf and spine\n"


# ----------------------------------------------------------------------------- one switch

ONE_SWITCH = {
    "t.csv": "router,endpoints\n0,8\n",
    "t.anynet": "router 0 " + " ".join(f"node {i}" for i in range(8)) + "\n",
    "t.graphml": ('<?xml version="1.0" encoding="UTF-8"?>\n'
                  '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
                  '  <key id="e" for="node" attr.name="endpoints" attr.type="int"/>\n'
                  '  <graph edgedefault="undirected">\n'
                  '    <node id="0"><data key="e">8</data></node>\n'
                  '  </graph>\n</graphml>\n'),
}


@pytest.mark.parametrize("name, strategy, floor", [
    ("t.csv", "hint", "hot-aisle"),
    ("t.anynet", "partition", "sc14"),
    ("t.graphml", "optimize", "hot-aisle"),       # a reach floor: the copper and dollar bounds
])
def test_one_switch_plans(name, strategy, floor, tmp_path, monkeypatch, capsys):
    """One router, eight servers, no router-router link (it crashed in the copper bounds):
    the plan has no network cable, one cable per server, bounds of 0 and no NaN anywhere."""
    (tmp_path / name).write_text(ONE_SWITCH[name])
    monkeypatch.chdir(tmp_path)
    code = main(["plan", "--topology", f"file:{name}", "--strategy", strategy, "--floor", floor,
                 "--time-limit", "2", "--out", "plan"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err == ""
    text = (tmp_path / "plan" / "summary.json").read_text()
    summary = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in summary.json"))
    assert summary["topology"]["routers"] == 1 and summary["topology"]["endpoints"] == 8
    assert summary["cables"]["network"]["count"] == 0
    assert summary["cables"]["endpoint"]["count"] == 8
    placement = summary["placement"]
    assert placement["cabinets"] == 1
    assert placement.get("copper_upper_bound") in (None, 0)
    assert placement.get("cable_cost_lower_bound") in (None, 0)
    with open(tmp_path / "plan" / "cables.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] != "mgmt"]   # the management cords
    assert len(rows) == 8 and {r["kind"] for r in rows} == {"endpoint"}
    common = set.intersection(*({r["a_device"], r["b_device"]} for r in rows))
    assert len(common) == 1                       # the one switch is at one end of every cable
    assert len({(r["a_device"], r["b_device"]) for r in rows}) == 8
    assert "nan" not in captured.out.lower().replace("nanoseconds", "")
    assert os.path.isfile(tmp_path / "plan" / "netlist.anynet")
