"""``planner plan`` on the command line: a run end to end, spec files, bad input, atomic output.

Bad input exits 2 with one line on stderr, writes nothing and leaves no temporary folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from planner import exports
from planner.cli import main
from planner.inputs.schema import builtin_dir
from planner.plan import plan
from planner.run import output
from planner.run.errors import InputError
from planner.topologies.slimfly import slimfly
from test_cabling import make_catalog, make_floor, sf_rack_placement
from test_plan_invariants import check_plan_folder

SMALL = ["--topology", "slimfly:q=5", "--catalog", "modern-100g", "--floor", "hot-aisle",
         "--strategy", "hint"]


def run_cli(args: list[str]) -> int:
    """``planner ...`` in process; argparse usage errors raise SystemExit(2)."""
    try:
        return main(args)
    except SystemExit as stop:
        return int(stop.code)


def _listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """One real run of the command (every export writer) into a fresh folder."""
    base = tmp_path_factory.mktemp("cli")
    out = base / "plan"
    code = main(["plan", *SMALL, "--out", str(out), "--spares", "10"])
    return code, out


def test_run_writes_the_contract_files(cli_run, capsys):
    code, out = cli_run
    assert code == 0
    names = {p.name for p in out.iterdir()}
    assert {"summary.json", "cables.csv", "bom.xlsx"} <= names
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]


def test_run_output_satisfies_the_invariants(cli_run):
    _, out = cli_run
    summary = json.loads((out / "summary.json").read_text())
    assert summary["options"]["spares_pct"] == 10
    again = plan(slimfly(5), "modern-100g", "hot-aisle", strategy="hint", spares_pct=10)
    check_plan_folder(again, out)


def test_no_arguments_plan_a_10k_slim_fly_on_a_modern_100g_hot_aisle_hall():
    """``planner plan`` alone: Slim Fly q=19 (722 routers, 10,830 endpoints, Besta & Hoefler
    SC14 §3.1) on the 100 Gb/s catalog in the hot-aisle hall, into ./plan; the router fits and
    the hall holds it."""
    from planner.cli import build_parser
    from planner.commands.plan import resolve_spec
    from planner.inputs.catalog import load_catalog
    from planner.inputs.floor import check_capacity, load_floor
    from planner.inputs.spec import topology_of
    spec = resolve_spec(build_parser().parse_args(["plan"]))
    assert (spec.catalog, spec.floor, spec.out) == ("modern-100g", "hot-aisle", "plan")
    top = topology_of(spec)
    assert (top.family, top.num_routers, top.num_endpoints) == ("slimfly", 2 * 19**2, 10_830)
    catalog, floor = load_catalog(spec.catalog), load_floor(spec.floor)
    router = catalog.router_for(top.radix)
    assert router.rate_gbps == 100 and router.radix >= top.radix
    assert not floor.abstract and floor.media_rule == "reach"
    check_capacity(floor, top, router)


def test_python_api_is_planner_plan():
    import planner.plan
    result = planner.plan("slimfly:q=5", "modern-100g", "hot-aisle", strategy="hint",
                          endpoint_cables=False)
    assert isinstance(result, planner.plan.Plan)
    assert result.summary["cables"]["endpoint"]["count"] == 0
    assert len(result.cables) == slimfly(5).num_links


def test_summary_table_on_stdout(tmp_path, capsys):
    assert main(["plan", *SMALL, "--out", str(tmp_path / "p")]) == 0
    text = capsys.readouterr().out
    for word in ("routers", "endpoints", "cost", "power", "network cables"):
        assert word in text
    assert "$" in text


def test_rerun_replaces_a_previous_plan(tmp_path):
    out = tmp_path / "p"
    assert main(["plan", *SMALL, "--out", str(out)]) == 0
    assert main(["plan", *SMALL, "--out", str(out), "--no-endpoint-cables"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cables"]["endpoint"]["count"] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]


def test_rerun_keeps_a_plan_folder_that_holds_other_files(tmp_path, capsys):
    """A file the user put into an earlier plan folder is never deleted: the run is refused."""
    out = tmp_path / "p"
    assert main(["plan", *SMALL, "--out", str(out)]) == 0
    (out / "notes.txt").write_text("mine")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main(["plan", *SMALL, "--out", str(out), "--no-endpoint-cables"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "notes.txt" in err[0]
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_spec_file_and_overrides(tmp_path):
    spec = tmp_path / "sf.yaml"
    spec.write_text(yaml.safe_dump({"topology": {"family": "slimfly", "q": 5, "p": 2},
                                    "catalog": "modern-100g", "floor": "hot-aisle",
                                    "out": "result", "strategy": "hint", "spares": 5}))
    assert main(["plan", str(spec), "--no-endpoint-cables"]) == 0
    summary = json.loads((tmp_path / "result" / "summary.json").read_text())
    assert summary["topology"]["params"]["p"] == 2
    assert summary["options"]["spares_pct"] == 5
    assert summary["options"]["endpoint_cables"] is False


def _bad_floor(tmp_path: Path) -> str:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump({"extends": "hot-aisle", "name": "tiny", "max_cabinets": 3}))
    return str(path)


def _small_catalog(tmp_path: Path) -> str:
    path = tmp_path / "small.yaml"
    data = yaml.safe_load((builtin_dir("catalogs") / "modern-100g.yaml").read_text())
    data["name"] = "small"
    data["routers"] = [dict(data["routers"][0], radix=8)]
    path.write_text(yaml.safe_dump(data))
    return str(path)


BAD = {
    "unknown family": (["--topology", "nosuchnet:k=3"], ["nosuchnet", "slimfly", "dragonfly"]),
    "unknown catalog": (["--catalog", "nosuch"], ["nosuch", "modern-100g", "sc14-40g"]),
    "unknown floor": (["--floor", "nosuch"], ["nosuch", "hot-aisle", "pn-500"]),
    "radix too small": (["--catalog", "{small}"], ["radix", "8"]),
    "floor too small": (["--floor", "{tiny}"], ["max_cabinets", "3"]),
    "bad strategy": (["--strategy", "best"], ["strategy"]),
    "negative spares": (["--spares", "-5"], ["spares"]),
    "bad time limit": (["--time-limit", "0"], ["time"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line_and_writes_nothing(case, tmp_path, capsys,
                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    args, words = BAD[case]
    args = [a.format(small=_small_catalog(tmp_path) if "{small}" in a else "",
                     tiny=_bad_floor(tmp_path) if "{tiny}" in a else "") for a in args]
    before = sorted(os.listdir(tmp_path))
    base = ["plan", "--topology", "slimfly:q=5", "--strategy", "hint", "--out", "out"]
    code = run_cli(base + args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, (word, err)
    assert sorted(os.listdir(tmp_path)) == before


def test_out_is_a_file(tmp_path, capsys):
    target = tmp_path / "plan.txt"
    target.write_text("keep")
    assert main(["plan", *SMALL, "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert "is an existing file" in err and len(err.strip().splitlines()) == 1
    assert target.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.txt"]


def test_out_is_a_foreign_folder(tmp_path, capsys):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    assert main(["plan", *SMALL, "--out", str(folder)]) == 2
    assert "does not hold a previous plan" in capsys.readouterr().err
    assert _listing(folder) == {"notes.txt": b"mine"}


@pytest.mark.parametrize("spec_text,field", [
    ("seed: abc\n", "seed"), ("colour: red\n", "colour"), ("spares: -1\n", "spares"),
    ("- just\n- a list\n", "mapping"), ("strategy: fastest\n", "strategy")])
def test_bad_spec_file(tmp_path, capsys, spec_text, field):
    spec = tmp_path / "bad.yaml"
    spec.write_text(spec_text)
    assert main(["plan", str(spec), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert field in err and "bad.yaml" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


# ----------------------------------------------------------------------------- atomicity

def _previous(tmp_path: Path) -> Path:
    result = plan(slimfly(5, p=3), make_catalog(), make_floor(), placement=sf_rack_placement())
    out = tmp_path / "plan"
    exports.write_plan(result, out)
    return out


def test_failing_writer_keeps_the_previous_plan(tmp_path):
    out = _previous(tmp_path)
    before = _listing(out)

    def broken(folder):
        (folder / "half.csv").write_text("partial")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        output.write_folder(out, [("good", lambda d: (d / "summary.json").write_text("{}")),
                                  ("broken", broken)])
    assert _listing(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan"]


def test_failing_writer_leaves_no_new_folder(tmp_path):
    out = tmp_path / "deep" / "er" / "plan"

    def broken(folder):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        output.write_folder(out, [("broken", broken)])
    assert list(tmp_path.iterdir()) == []


def test_writers_are_every_export_module_in_name_order():
    from planner.exports import writers
    names = [name for name, _ in writers()]
    assert names == sorted(names)
    assert {"bom_xlsx", "cables_csv", "summary_json"} <= set(names)


def test_parallel_writers_write_the_same_files(tmp_path):
    result = plan(slimfly(5, p=3), make_catalog(), make_floor(), placement=sf_rack_placement())
    serial = exports.write_plan(result, tmp_path / "serial", jobs=1)
    forked = exports.write_plan(result, tmp_path / "forked", jobs=2)
    assert serial == forked
    for name in serial:
        if name != "bom.xlsx":                       # its docProps hold the creation time
            assert (tmp_path / "serial" / name).read_bytes() \
                == (tmp_path / "forked" / name).read_bytes(), name


def test_parallel_writer_failure_keeps_the_previous_plan(tmp_path):
    out = _previous(tmp_path)
    before = _listing(out)

    def bad_input(folder):
        (folder / "half.csv").write_text("partial")
        raise InputError("catalog cable 'X': field 'color' must be a colour")

    writers = [("slow", lambda d: (d / "a.txt").write_text("a")), ("bad", bad_input),
               ("other", lambda d: (d / "b.txt").write_text("b"))]
    with pytest.raises(InputError, match="field 'color'"):
        output.write_folder(out, writers, jobs=2)
    assert _listing(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan"]


def test_every_file_is_the_same_in_another_process(tmp_path):
    """One plan written by two fresh interpreters with different string-hash seeds: identical
    files (the workbook apart from its creation time)."""
    import pickle
    import subprocess
    import sys
    import zipfile
    result = plan(slimfly(5), "modern-100g", "hot-aisle", strategy="hint")
    (tmp_path / "plan.pkl").write_bytes(pickle.dumps(result))
    script = ("import pickle, sys; from planner import exports; "
              "exports.write_plan(pickle.load(open(sys.argv[1], 'rb')), sys.argv[2], jobs=1)")
    folders = []
    for seed in ("5", "6"):                  # seeds that once ordered a set differently
        folders.append(tmp_path / f"run{seed}")
        subprocess.run([sys.executable, "-c", script, str(tmp_path / "plan.pkl"),
                        str(folders[-1])], check=True, env=dict(os.environ, PYTHONHASHSEED=seed),
                       cwd=Path(__file__).resolve().parents[1])
    one, two = (_listing(f) for f in folders)
    assert one.keys() == two.keys()
    for name in one:
        if name == "bom.xlsx":
            books = [zipfile.ZipFile(f / name) for f in folders]
            for member in books[0].namelist():
                if member != "docProps/core.xml":
                    assert books[0].read(member) == books[1].read(member), member
        else:
            assert one[name] == two[name], name


def test_check_out_accepts_new_empty_and_previous(tmp_path):
    assert output.check_out(tmp_path / "new") == (tmp_path / "new").absolute()
    (tmp_path / "empty").mkdir()
    output.check_out(tmp_path / "empty")
    output.check_out(_previous(tmp_path))
    with pytest.raises(InputError):
        output.check_out(tmp_path / "plan" / "summary.json")
