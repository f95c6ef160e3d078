"""``planner compare`` after the worst cabinet fails: the columns "θ after worst cabinet" and
"$ per Tb/s after worst cabinet" equal each design's summary.json and a hand computation
(total cost / (θ x surviving endpoints x port rate)), in compare.xlsx, the terminal table and
compare.pdf, with their charts."""

from __future__ import annotations

import contextlib
import io
import json
import re

import openpyxl
import pytest
from pypdf import PdfReader

from planner import compare as cmp
from planner.cli import main

DESIGNS = ("slimfly:q=5", "dragonfly:a=4,h=2,p=2")
KEYS = [k for k, _, _ in cmp.COLUMNS] + [k for k, _ in cmp.DETAIL_COLUMNS]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("compare-resilience")
    argv = ["compare", *[a for d in DESIGNS for a in ("--topology", d)], "--catalog",
            "modern-100g", "--floor", "hot-aisle", "--strategy", "hint", "--time-limit", "5",
            "--out", str(out), "--jobs", "1", "--outputs", "summary"]
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(argv)
    assert code == 0
    ws = openpyxl.load_workbook(out / "compare.xlsx")["Comparison"]
    rows = [dict(zip(KEYS, r)) for r in ws.iter_rows(min_row=3, values_only=True)]
    summaries = [json.loads((out / r["folder"] / "summary.json").read_text()) for r in rows]
    return out, text.getvalue(), rows, summaries


def test_columns_equal_summary_and_hand_computation(run):
    _, _, rows, summaries = run
    assert len(rows) == len(DESIGNS)
    for row, s in zip(rows, summaries):
        kind = s["resilience"]["kinds"]["cabinet"]
        worst = kind["worst"]
        assert kind["groups"] == s["placement"]["cabinets"]       # every cabinet holds routers
        assert row["theta_after_cabinet"] == worst["theta"]
        assert row["worst_cabinet"] == worst["name"]
        assert row["theta_ratio_after_cabinet"] == worst["theta_ratio"]
        assert row["theta_after_cabinet_kind"] == kind["theta_kind"]
        assert row["cost_per_tbps_after_cabinet"] == worst["cost_per_delivered_tbps"]
        # by hand: the intact column's definition with the surviving endpoints
        survivors = s["topology"]["endpoints"] - worst["endpoints_lost"]
        rate = s["performance"]["injection_gbps"]
        assert worst["endpoints_lost"] > 0                        # a cabinet takes its servers
        by_hand = s["cost"]["total"] / (worst["theta"] * survivors * rate / 1000)
        assert row["cost_per_tbps_after_cabinet"] == pytest.approx(by_hand, rel=1e-5)
        intact = s["cost"]["total"] / (s["performance"]["uniform"]["theta"]
                                       * s["topology"]["endpoints"] * rate / 1000)
        assert row["cost_per_tbps"] == pytest.approx(intact, rel=1e-5)
        assert worst["theta"] == pytest.approx(worst["theta_ratio"]
                                               * s["resilience"]["intact_theta"], abs=2e-6)
        # the worst cabinet costs delivered bandwidth: dearer per Tb/s than intact
        assert row["cost_per_tbps_after_cabinet"] > row["cost_per_tbps"]


def test_terminal_table_shows_the_columns(run):
    _, text, rows, _ = run
    lines = text.splitlines()
    head = next(ln for ln in lines if ln.startswith("family"))
    assert "θ after worst cabinet" in head and "$ per Tb/s after worst cabinet" in head
    start = next(i for i, ln in enumerate(lines) if ln.startswith("---")) + 1
    keys = [k for k, _, _ in cmp.COLUMNS]
    for line, row in zip(lines[start:start + len(rows)], rows):
        cells = dict(zip(keys, re.split(r"\s{2,}", line.strip())))
        bound = "" if row["theta_after_cabinet_kind"] == "exact" else "<= "
        assert cells["theta_after_cabinet_text"] == f"{bound}{row['theta_after_cabinet']:.3f}"
        assert float(cells["cost_per_tbps_after_cabinet"].replace(",", "")) == pytest.approx(
            row["cost_per_tbps_after_cabinet"], abs=0.5)


def test_charts_of_the_two_in_xlsx_and_pdf(run):
    out, _, rows, _ = run
    wb = openpyxl.load_workbook(out / "compare.xlsx")
    col = {k: openpyxl.utils.get_column_letter(i + 1) for i, k in enumerate(KEYS)}
    last = 2 + len(rows)
    charts = {c.title.tx.rich.p[0].r[0].t: c for c in wb["Charts"]._charts}
    for title, keys in (("Uniform θ: intact and after the worst cabinet fails",
                         ("theta", "theta_after_cabinet")),
                        ("$ per delivered Tb/s: intact and after the worst cabinet fails",
                         ("cost_per_tbps", "cost_per_tbps_after_cabinet"))):
        assert [s.val.numRef.f for s in charts[title].series] == [
            f"'Comparison'!${col[k]}$3:${col[k]}${last}" for k in keys]
    text = "".join(p.extract_text() for p in PdfReader(out / "compare.pdf").pages)
    for needle in ("Uniform θ: intact and after the worst cabinet fails",
                   "$ per delivered Tb/s: intact and after the worst cabinet fails",
                   "after the worst cabinet fails"):
        assert needle in text
    for row in rows:          # the bars' labels: the two values of every design
        assert f"{row['theta_after_cabinet']:.3f}" in text
        assert f"{row['cost_per_tbps_after_cabinet']:.0f}" in text
