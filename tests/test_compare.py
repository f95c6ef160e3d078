"""``planner compare``: like-for-like sizing, the table equals the plan folders (performance
included), native charts in compare.xlsx; local processes == Dask cluster."""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import re
from pathlib import Path

import distributed
import numpy as np
import openpyxl
import pytest
from pypdf import PdfReader

from planner import compare as cmp
from planner.compare import pdf as compare_pdf
from planner.cli import main
from planner.plan import DEFAULT_TIME_LIMIT_S

FAMILIES = ("slimfly", "dragonfly", "fattree")
LEFT_OUT = ("torus", "oft")     # 7 and 16 of 40 ports: listed with the reason, not planned
TARGET = 1000
RADIX = 40
# Fast placement (the hand layout) for the tests; the comparison logic is the same for optimize.
COMMON = ["--catalog", "sc14-40g", "--floor", "sc14", "--strategy", "hint",
          "--time-limit", "5", "--seed", "3"]
SIZED = ["--endpoints", str(TARGET), "--families", *FAMILIES, *LEFT_OUT, "--max-radix",
         str(RADIX)]
KEYS = [k for k, _, _ in cmp.COLUMNS] + [k for k, _ in cmp.DETAIL_COLUMNS]


def _run(argv: list[str]) -> tuple[int, str]:
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(argv)
    return code, text.getvalue()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """Plans in 2 worker processes on this machine."""
    out = tmp_path_factory.mktemp("compare-local")
    code, text = _run(["compare", *SIZED, "--out", str(out), "--jobs", "2", *COMMON])
    return out, code, text


def _table(out: Path) -> list[dict]:
    ws = openpyxl.load_workbook(out / "compare.xlsx")["Comparison"]
    return [dict(zip(KEYS, r)) for r in ws.iter_rows(min_row=3, values_only=True)]


def _terminal(text: str) -> list[list[str]]:
    """The printed table's data rows, split on the 2-space column gaps."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("---")) + 1
    rows = []
    for ln in lines[start:]:
        if not ln.strip():
            break
        rows.append(re.split(r"\s{2,}", ln.strip()))
    return rows


def _sized() -> dict[str, dict]:
    """``planner size --json``: the first (best) configuration per family."""
    code, text = _run(["size", *SIZED, "--count", "1", "--json"])
    assert code == 0
    return {o["family"]: o for o in json.loads(text)}


def _folder_numbers(folder: Path) -> dict:
    """Every table number recomputed from the plan folder (summary.json and cables.csv)."""
    s = json.loads((folder / "summary.json").read_text())
    with open(folder / "cables.csv", newline="") as f:
        cables = [r for r in csv.DictReader(f) if r["kind"] != "mgmt"]  # the fabric's; mgmt cords: test_fabric_devices
    top, cost, power, perf = s["topology"], s["cost"], s["power"], s["performance"]
    theta = perf["uniform"]["theta"]
    tbps = theta * top["endpoints"] * s["catalog"]["rate_gbps"] / 1000
    return {
        "family": top["family"], "endpoints": top["endpoints"], "routers": top["routers"],
        "radix": top["radix"], "diameter": top["diameter"], "avg_distance": top["avg_distance"],
        "links": top["links"],
        "ports": f"{top['radix']}/{s['catalog']['router_radix']}",
        "theta": theta, "theta_kind": perf["uniform"]["kind"],
        "latency_ns": perf["latency_ns"]["average"],
        "cost_per_tbps": round(cost["total"] / tbps, 2),
        "bisection_links": perf["bisection"]["links"],
        "worst_case_ecmp": perf["worst_case"]["ecmp_minimal"],
        "electrical": sum(c["media"] == "electrical" for c in cables),
        "optical": sum(c["media"] == "optical" for c in cables),
        "network_optical": sum(c["media"] == "optical" and c["kind"] == "network"
                               for c in cables),
        "endpoint_electrical": sum(c["media"] == "electrical" and c["kind"] == "endpoint"
                                   for c in cables),
        "cable_length_m": sum(float(c["length_m"]) for c in cables),
        "cost_per_endpoint": cost["per_endpoint"], "cost_total": cost["total"],
        "cost_routers": cost["routers"], "cost_cables": cost["cables"],
        "power_per_endpoint_w": power["per_endpoint_w"], "power_total_w": power["total_w"],
        "cabinets": s["placement"]["cabinets"],
    }


def test_every_row_equals_its_plan_folder(local_run):
    out, code, text = local_run
    assert code == 0
    rows = _table(out)
    assert [r["family"] for r in rows] == list(FAMILIES)          # one row per family, in order
    sized = _sized()
    for row in rows:
        folder = out / row["folder"]
        assert folder.name.startswith(row["family"] + "-")
        for name in ("summary.json", "cables.csv", "bom.xlsx", "wiring.pdf", "netlist.anynet"):
            assert (folder / name).is_file(), name
        expect = _folder_numbers(folder)
        for key, value in expect.items():
            if isinstance(value, str):
                assert row[key] == value, (row["family"], key)
            else:
                assert row[key] == pytest.approx(value, rel=1e-12, abs=1e-6), (row["family"], key)
        # the configuration is the one `planner size` answers first for this family
        size = sized[row["family"]]
        assert (row["endpoints"], row["routers"], row["radix"], row["links"]) == (
            size["endpoints"], size["routers"], size["radix"], size["links"])
        params = json.loads((folder / "summary.json").read_text())["topology"]["params"]
        assert size["params"].items() <= params.items()
        assert row["radix"] <= RADIX


def test_terminal_table_equals_the_plan_folders(local_run):
    out, code, text = local_run
    assert code == 0
    printed = _terminal(text)
    rows = _table(out)
    assert len(printed) == len(rows) == len(FAMILIES)
    for cells, row in zip(printed, rows):
        assert len(cells) == len(cmp.COLUMNS)
        expect = _folder_numbers(out / row["folder"])
        number = dict(zip([k for k, _, _ in cmp.COLUMNS], cells))
        assert number["family"] == expect["family"]
        for key in ("endpoints", "routers", "electrical", "optical", "diameter"):
            assert int(number[key].replace(",", "")) == expect[key], key
        assert number["ports"] == expect["ports"]
        for key, places in (("cable_length_m", 0), ("cost_per_endpoint", 2),
                            ("power_per_endpoint_w", 3), ("avg_distance", 4),
                            ("latency_ns", 0), ("cost_per_tbps", 0)):
            assert float(number[key].replace(",", "")) == pytest.approx(
                expect[key], abs=0.5 * 10 ** -places + 1e-9), key
        bound = expect["theta_kind"] != "exact"
        assert number["theta_text"] == ("<= " if bound else "") + f"{expect['theta']:.3f}"
    left_out = text.split("not compared")[1]
    for family in LEFT_OUT:
        assert f"  {family}: " in left_out and "ports per router" in left_out


def test_xlsx_has_native_charts_over_the_comparison_cells(local_run):
    out, code, _ = local_run
    assert code == 0
    wb = openpyxl.load_workbook(out / "compare.xlsx")
    charts = wb["Charts"]._charts
    titles = [c.title.tx.rich.p[0].r[0].t for c in charts]
    assert titles == ["Cost per endpoint ($)", "Power per endpoint (W)", "Cables by media",
                      "Cost per endpoint against uniform θ",
                      "Uniform θ: intact and after the worst cabinet fails",
                      "$ per delivered Tb/s: intact and after the worst cabinet fails"]
    col = {k: openpyxl.utils.get_column_letter(i + 1) for i, k in enumerate(KEYS)}
    last = 2 + len(FAMILIES)
    refs = [[(s.tx.strRef.f, s.val.numRef.f) for s in c.series] for c in charts[:3]]
    keys = [["cost_per_endpoint"], ["power_per_endpoint_w"], ["electrical", "optical"]]
    assert refs == [[(f"'Comparison'!{col[k]}2", f"'Comparison'!${col[k]}$3:${col[k]}${last}")
                     for k in chart] for chart in keys]
    scatter = charts[3].series
    assert [(s.xVal.numRef.f, s.yVal.numRef.f) for s in scatter] == [
        (f"'Comparison'!${col['theta']}${r}", f"'Comparison'!${col['cost_per_endpoint']}${r}")
        for r in range(3, last + 1)]
    left_out = [r for r in wb["Not compared"].iter_rows(min_row=2, values_only=True)]
    assert [r[0] for r in left_out] == list(LEFT_OUT)


def test_bom_sheets_equal_the_plan_boms(local_run):
    out, code, _ = local_run
    assert code == 0
    wb = openpyxl.load_workbook(out / "compare.xlsx")
    assert len(wb.sheetnames) == 3 + len(FAMILIES)
    for n, row in enumerate(_table(out), start=1):
        sheet = wb[next(name for name in wb.sheetnames if name.startswith(f"BOM {n} "))]
        lines = [r for r in sheet.iter_rows(min_row=3, values_only=True) if r[0] != "total"]
        plan_bom = openpyxl.load_workbook(out / row["folder"] / "bom.xlsx",
                                          read_only=True)["BOM"]
        plan_lines = list(itertools.takewhile(lambda r: r and r[0] is not None,
                                              plan_bom.iter_rows(min_row=2, values_only=True)))
        # item, description .. spares; the compare sheet's SKU is the plan's Catalog SKU (the
        # workbook's Part number column asks a generic line's number of the supplier)
        assert [r[:1] + r[2:6] for r in lines] == [r[:1] + r[2:6] for r in plan_lines]
        assert [r[1] for r in lines] == [r[-1] for r in plan_lines]
        assert [r[6] for r in lines] == pytest.approx([r[6] for r in plan_lines])
        total = sum(r[7] for r in lines)
        assert total == pytest.approx(row["cost_total"], abs=0.005)       # cents in summary
        assert sum((r[4] + r[5]) * r[6] for r in plan_lines) == pytest.approx(total, rel=1e-9)


def test_pdf_has_the_charts_and_the_table(local_run):
    out, code, _ = local_run
    assert code == 0
    text = "".join(p.extract_text() for p in PdfReader(out / "compare.pdf").pages)
    for needle in ("Cost per endpoint", "Power per endpoint", "Cables by media",
                   "Cable length distribution", "electrical", "optical",
                   "Cost per endpoint against uniform throughput", "Not compared",
                   "uses 7 of the 40 ports"):
        assert needle in text
    for row in _table(out):
        for value in (row["family"], row["params"], f"{row['cost_per_endpoint']:,.2f}",
                      f"{row['power_per_endpoint_w']:.3f}", f"{row['routers']:,}"):
            assert value in text


def test_dask_cluster_gives_the_local_table(local_run, tmp_path):
    out_local, code, text_local = local_run
    assert code == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        code, text = _run(["compare", *SIZED, "--out", str(tmp_path), "--dask-scheduler",
                           cluster.scheduler_address, *COMMON])
        assert code == 0
    assert _table(tmp_path) == _table(out_local)
    assert _terminal(text) == _terminal(text_local)
    for row in _table(tmp_path):
        a = (out_local / row["folder"] / "cables.csv").read_bytes()
        b = (tmp_path / row["folder"] / "cables.csv").read_bytes()
        assert a == b                                   # the shipped plan folder is complete
        assert (sorted(p.name for p in (out_local / row["folder"]).iterdir())
                == sorted(p.name for p in (tmp_path / row["folder"]).iterdir()))


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
    (["compare", "--topology", "slimfly:q=5", "--out", "{tmp}/o", "--dask-scheduler",
      "no-port"], "tcp://HOST:PORT"),
    (["compare", "--topology", "slimfly:q=5", "--out", "{tmp}/o", "--dask-scheduler",
      "foo://h:1"], "unknown scheme"),
    (["compare", "--topology", "slimfly:q=4,p=100", "--out", "{tmp}/o", "--catalog",
      "modern-100g", "--strategy", "hint"],
     "configuration 'slimfly:q=4,p=100': catalog 'modern-100g'"),
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
    configs, catalog, floor, options, _, title, excluded = resolve(args)
    assert [c.spec for c in configs] == ["slimfly:q=5", "dragonfly:h=2"]
    assert (catalog.name, floor.name, title, excluded) == ("sc14-40g", "sc14", "T", [])
    assert options == {"strategy": "partition", "time_limit_s": DEFAULT_TIME_LIMIT_S, "seed": 7,
                       "group_endpoints": None, "endpoint_cables": False}


def test_length_histogram_counts_every_cable_in_bins_that_show_the_spread():
    a = np.array([0.5, 1.0, 1.2, 2.5, 12.0], np.float32)
    b = np.array([3.0, 3.5, 4.0, 47.0, 640.0], np.float32)       # one long hall-to-hall run
    outs = [cmp.Outcome(cmp.Configuration("x", ()), {}, {}, None, x, x > 2) for x in (a, b)]
    edges, counts = cmp.length_histogram(outs)
    assert edges.tolist() == [0.5, 1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200,
                              300, 500, 700]
    assert [int(c.sum()) for c in counts] == [5, 5]
    assert counts[0][:4].tolist() == [1, 2, 0, 1]              # 0.5 | 1.0, 1.2 | - | 2.5
    assert counts[1][4] == 3 and counts[1][-1] == 1             # 3-5 m: three; 500-700 m: one
    assert np.count_nonzero(counts[0] + counts[1]) == 7         # spread over seven bars


def test_length_chart_legend_fits_its_drawing():
    """Ten long plan names wrap into rows inside the chart's width (the legend used to run off
    the page in one row)."""
    from reportlab.graphics.charts.legends import Legend

    names = [f"galaxyfly-n{20 + i}-q11-a1-h32-p32-arrangement{i}" for i in range(10)]
    width = 770.0
    drawing = compare_pdf._bar_chart("lengths", ["0-1", "1-2"], [[1, 2]] * len(names), names, width,
                             None)
    legend = next(c for c in drawing.contents if isinstance(c, Legend))
    x1, y1, x2, y2 = legend.getBounds()
    assert x1 >= 0 and x2 <= width and y1 >= 0 and y2 <= drawing.height
    assert legend.columnMaximum >= 2                      # wrapped into several rows
