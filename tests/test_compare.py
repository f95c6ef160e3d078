"""``planner compare``: the table equals the plan folders; local processes == Dask cluster."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from pypdf import PdfReader

from planner import compare as cmp
from planner.cli import main
from planner.plan import DEFAULT_TIME_LIMIT_S

FAMILIES = ("slimfly", "dragonfly", "oft")
TARGET = 1000
# Fast placement (the hand layout) for the tests; the comparison logic is the same for optimize.
COMMON = ["--catalog", "sc14-40g", "--floor", "sc14", "--strategy", "hint",
          "--time-limit", "5", "--seed", "3"]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("compare-local")
    argv = ["compare", "--endpoints", str(TARGET), "--families", *FAMILIES, "--max-radix", "40",
            "--out", str(out), "--jobs", "2", *COMMON]
    return out, main(argv)


def _table(out: Path) -> list[list]:
    ws = openpyxl.load_workbook(out / "compare.xlsx")["Comparison"]
    return [list(r) for r in ws.iter_rows(min_row=3, values_only=True)]


def test_compare_writes_reports_and_plan_folders(local_run, capsys):
    out, code = local_run
    assert code == 0
    rows = _table(out)
    assert [r[0] for r in rows] == list(FAMILIES)          # one row per family, in order
    keys = [k for k, _, _ in cmp.COLUMNS] + [k for k, _ in cmp.DETAIL_COLUMNS]
    for values in rows:
        row = dict(zip(keys, values))
        folder = out / row["folder"]
        assert folder.name.startswith(row["family"] + "-")
        for name in ("summary.json", "cables.csv", "bom.xlsx"):
            assert (folder / name).is_file(), name
        s = json.loads((folder / "summary.json").read_text())
        net, end = s["cables"]["network"], s["cables"]["endpoint"]
        expect = {
            "endpoints": s["topology"]["endpoints"], "routers": s["topology"]["routers"],
            "radix": s["topology"]["radix"], "diameter": s["topology"]["diameter"],
            "avg_distance": s["topology"]["avg_distance"],
            "electrical": net["electrical"] + end["electrical"],
            "optical": net["optical"] + end["optical"],
            "cost_per_endpoint": s["cost"]["per_endpoint"],
            "power_per_endpoint_w": s["power"]["per_endpoint_w"],
            "cost_total": s["cost"]["total"], "links": s["topology"]["links"],
        }
        for key, value in expect.items():
            assert row[key] == pytest.approx(value, rel=0, abs=1e-9), key
        assert row["cable_length_m"] == pytest.approx(net["length_m"] + end["length_m"])
        assert abs(row["endpoints"] - TARGET) < 0.5 * TARGET
        assert row["radix"] <= 40
    # compare.pdf: readable, has the table and the four chart titles
    text = "".join(p.extract_text() for p in PdfReader(out / "compare.pdf").pages)
    for needle in ("Cost per endpoint", "Power per endpoint", "Cables by media",
                   "Cable length distribution", *FAMILIES):
        assert needle in text
    # each plan's BOM sheet carries the plan's BOM lines
    wb = openpyxl.load_workbook(out / "compare.xlsx")
    assert len(wb.sheetnames) == 1 + len(FAMILIES)


def test_dask_cluster_gives_the_local_table(local_run, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    out_local, code = local_run
    assert code == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        argv = ["compare", "--endpoints", str(TARGET), "--families", *FAMILIES,
                "--max-radix", "40", "--out", str(tmp_path), "--dask-scheduler",
                cluster.scheduler_address, *COMMON]
        assert main(argv) == 0
    local, remote = _table(out_local), _table(tmp_path)
    assert remote == local
    for row in remote:
        folder = row[len(cmp.COLUMNS) + len(cmp.DETAIL_COLUMNS) - 1]
        a = (out_local / folder / "cables.csv").read_bytes()
        b = (tmp_path / folder / "cables.csv").read_bytes()
        assert a == b                                   # the shipped plan folder is complete


@pytest.mark.parametrize("spec, family, params, slug", [
    ("slimfly:q=19,p=13", "slimfly", (("q", 19), ("p", 13)), "slimfly-q19-p13"),
    ("hyperx:S=22x22,p=22", "hyperx", (("S", "22x22"), ("p", 22)), "hyperx-S22x22-p22"),
    ("dragonfly:h=4, arrangement=palmtree", "dragonfly", (("h", 4), ("arrangement", "palmtree")),
     "dragonfly-h4-arrangementpalmtree"),
    ("oft", "oft", (), "oft"),
])
def test_configuration_parse(spec, family, params, slug):
    conf = cmp.Configuration.parse(spec)
    assert (conf.family, conf.params, conf.slug) == (family, params, slug)
    assert cmp.Configuration.parse(conf.spec) == conf


@pytest.mark.parametrize("argv, needle", [
    (["compare", "--topology", "slimfly:q"], "must be k=v"),
    (["compare", "--topology", "nosuch:q=3", "--out", "{tmp}/o"], "nosuch"),
    (["compare", "--catalog", "sc14-40g", "--out", "{tmp}/o"], "nothing to compare"),
    (["compare", "--families", "slimfly"], "give --endpoints"),
    (["compare", "--endpoints", "-5"], "--endpoints must be a positive integer"),
    (["compare", "--topology", "slimfly:q=5", "--out", "{tmp}/file"], "is a file"),
    (["compare", "--topology", "slimfly:q=5", "--topology", "slimfly:q=5"], "listed twice"),
    (["compare", "{tmp}/spec.yaml"], "field 'endpoint'"),
])
def test_bad_input_exits_2_with_one_line(argv, needle, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    (tmp_path / "spec.yaml").write_text("endpoint: 1000\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err
    assert not (tmp_path / "o").exists()


def test_spec_file_and_options_merge(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("configurations: ['slimfly:q=5', 'dragonfly:h=2']\ncatalog: sc14-40g\n"
                    "floor: sc14\nstrategy: hint\nendpoint_cables: false\ntitle: T\n")
    from planner.cli import build_parser
    from planner.commands.compare import resolve

    args = build_parser().parse_args(["compare", str(spec), "--seed", "7", "--strategy",
                                      "partition"])
    configs, catalog, floor, options, _, title = resolve(args)
    assert [c.spec for c in configs] == ["slimfly:q=5", "dragonfly:h=2"]
    assert (catalog.name, floor.name, title) == ("sc14-40g", "sc14", "T")
    assert options == {"strategy": "partition", "time_limit_s": DEFAULT_TIME_LIMIT_S, "seed": 7,
                       "group_endpoints": None, "endpoint_cables": False}


def test_length_histogram_counts_every_cable():
    a, b = np.array([0.5, 1.0, 12.0], np.float32), np.array([3.0, 47.0], np.float32)
    outs = [cmp.Outcome(cmp.Configuration("x", ()), {}, {}, None, x, x > 2) for x in (a, b)]
    edges, counts = cmp.length_histogram(outs, bins=10)
    assert edges[0] == 0 and edges[-1] >= 47 and np.allclose(np.diff(edges), 5)
    assert [int(c.sum()) for c in counts] == [3, 2]
    assert counts[1][np.searchsorted(edges, 47.0) - 1] == 1
