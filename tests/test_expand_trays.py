"""A kept cable runs in its standing cross tray in the drawings and failure groups too.

Dragonfly a=4, p=2, h=3, g=9 -> 13 on ``benchmarks/two-halls.yaml``
(``tests/test_expand_kept_seats.py`` has the geometry): both halls grow from 6 to 8
cabinets a row, so the row-end cross tray moves from x = 3.6 m to x = 4.8 m (the row
start's stays at x = -0.6 m). The kept cables
``r02:6 - r04:3`` (H1-A04 to H1-B04, x = 1.8 m: 2.4 m to the row start, 3.0 m to the row end)
and ``r30:8 - r32:5`` (H2-B02 to H2-A06, x = 0.6 and 3.0 m: detours 1.2 m against 1.8 m) keep
their row-end panels (``H1-A-P1-01``, ``H2-B-P1-01``), so they run in cross tray 1 although
tray 0 is now the nearer.

Checked against ``cables.csv`` read back on its own: the cross tray of a cable through panels
is that of its panels in ``segments`` (``A-P1-01``: tray 1), of any other cable between rows
the nearest (computed here from ``cabinets.csv``: cabinet k of a row at x = 0.6 (k - 1) m, the
trays 0.6 m before the first and after the last). Every cross-tray span (``H1-P1:A-B``)
of the viewer's tray failure layer (``index.html``) lists exactly the cables that so run in
it, the viewer draws each such cable through that tray (its route's cross-tray step at the
tray's x, its steps adding up to ``length_m`` before the 10 % slack), and the resilience
stage counts the same segments (``summary.json`` ``resilience.groups.tray``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from planner.cli import main
from tests.plan_folders import read_csv
from tests.test_viewer import read_block

FLOOR = Path(__file__).resolve().parents[1] / "benchmarks" / "two-halls.yaml"
SPEC = "dragonfly:a=4,p=2,h=3,g={}"
PITCH, SLACK = 0.6, 1.10
ROW_START_X = -PITCH                    # cross tray 0: 0.6 m before column 1
_BUILT: dict = {}


def two_halls_growth(tmp_path_factory) -> dict[str, Path]:
    """The standing plan (g=9, ``--resilience off``) and its growth to g=13 (resilience on),
    built once per test session (``tests/test_expand_cordswap.py`` reads the same)."""
    if not _BUILT:
        base = tmp_path_factory.mktemp("two-halls-growth")
        out = {k: base / k for k in ("old", "grown")}
        assert main([str(a) for a in ("plan", "--topology", SPEC.format(9), "--floor", FLOOR,
                                      "--out", out["old"], "--resilience", "off")]) == 0
        assert main([str(a) for a in ("expand", "--from", out["old"], "--topology",
                                      SPEC.format(13), "--floor", FLOOR, "--out",
                                      out["grown"])]) == 0
        _BUILT.update(out)
    return dict(_BUILT)


@pytest.fixture(scope="module")
def grown(tmp_path_factory) -> dict[str, Path]:
    return two_halls_growth(tmp_path_factory)


def _row_index(letter: str) -> int:
    return ord(letter) - ord("A")


def _panel_tray(segments: str) -> int | None:
    """The cross tray of a cable's first row panel in ``segments`` (``H1-A-P1-01``: 1)."""
    found = re.match(r"cord [^|]*\| (?:H\d+-)?[A-Z]+-P(\d+)-\d+:", segments)
    return None if found is None else int(found.group(1))


def expected_spans(folder: Path) -> dict[str, set[int]]:
    """Cross-tray span name -> rows of cables.csv running in it, from cables.csv and
    cabinets.csv alone: same hall, two rows: the tray of its panels, else the nearest tray
    (trays at both row ends only on this floor); two halls: tray 0 from each entry to the
    cable's row."""
    cables, cabinets = read_csv(folder, "cables.csv"), read_csv(folder, "cabinets.csv")
    cabinets = cabinets[cabinets["kind"] == "cabinet"]
    where = {n: (int(h), _row_index(r), PITCH * (int(k) - 1)) for n, h, r, k in zip(
        cabinets["name"], cabinets["hall"], cabinets["row"], cabinets["column"])}
    trays = (ROW_START_X, max(x for _, _, x in where.values()) + PITCH)
    halls = len({h for h, _, _ in where.values()})
    out: dict[str, set[int]] = {}

    def name(hall: int, text: str) -> str:
        return f"H{hall}-{text}" if halls > 1 else text

    for k, c in enumerate(cables.itertuples(index=False)):
        if c.kind != "network" or c.a_cabinet == c.b_cabinet:
            continue
        (ha, ra, xa), (hb, rb, xb) = where[c.a_cabinet], where[c.b_cabinet]
        if ha != hb:
            for h, r in ((ha, ra), (hb, rb)):
                out.setdefault(name(h, "P0:entry-A"), set()).add(k)
                for j in range(1, r + 1):
                    out.setdefault(name(h, f"P0:{chr(64 + j)}-{chr(65 + j)}"), set()).add(k)
            continue
        if ra == rb:
            continue
        tray = _panel_tray(c.segments)
        if tray is None:              # the nearer end tray, the row start on a tie
            lo, hi = min(xa, xb), max(xa, xb)
            tray = 0 if lo - trays[0] <= trays[1] - hi else 1
        for j in range(min(ra, rb) + 1, max(ra, rb) + 1):
            out.setdefault(name(ha, f"P{tray}:{chr(64 + j)}-{chr(65 + j)}"), set()).add(k)
    return out


def _page(folder: Path):
    return read_block((folder / "index.html").read_text())


def _tray_members(tables) -> dict[str, set[int]]:
    trays, cables = tables["fail_trays"], tables["fail_tray_cables"]["cable"]
    start = np.r_[0, np.cumsum(trays["cables"])].astype(int)
    return {n: {int(c) for c in cables[start[k]:start[k + 1]]}
            for k, n in enumerate(trays["name"])}


def _row_of(folder: Path, ends) -> int:
    cables = read_csv(folder, "cables.csv")
    (da, pa), (db, pb) = ends
    hit = cables[((cables["a_device"] == da) & (cables["a_port"] == str(pa))
                  & (cables["b_device"] == db) & (cables["b_port"] == str(pb)))
                 | ((cables["a_device"] == db) & (cables["a_port"] == str(pb))
                    & (cables["b_device"] == da) & (cables["b_port"] == str(pa)))]
    assert len(hit) == 1
    return int(hit.index[0])


KEPT = [  # (ends, standing tray span, the nearest one's)
    ((("r02", 6), ("r04", 3)), "H1-P1:A-B", "H1-P0:A-B"),
    ((("r30", 8), ("r32", 5)), "H2-P1:A-B", "H2-P0:A-B"),
]


@pytest.mark.parametrize("ends, standing, nearest", KEPT)
def test_a_kept_cable_is_in_its_standing_trays_group(grown, ends, standing, nearest):
    """The two kept cables whose standing tray is not the nearest (module doc): their own
    panels say tray 1 in both plans, and the viewer's tray layer lists them there, not in the
    nearer tray 0's span."""
    for folder in (grown["old"], grown["grown"]):
        row = _row_of(folder, ends)
        assert _panel_tray(read_csv(folder, "cables.csv")["segments"].iat[row]) == 1
    row = _row_of(grown["grown"], ends)
    members = _tray_members(_page(grown["grown"])[1])
    assert row in members[standing]
    assert row not in members.get(nearest, set())


def test_every_cross_tray_span_lists_the_cables_cables_csv_runs_there(grown):
    _, tables = _page(grown["grown"])
    members = _tray_members(tables)
    spans = {n: m for n, m in members.items() if re.search(r"P\d+:", n)}
    assert spans == expected_spans(grown["grown"])
    # the span the kept cable alone runs in exists only because it stays in its tray
    assert spans["H2-P1:A-B"] == {_row_of(grown["grown"], KEPT[1][0])}


def test_the_resilience_stage_counts_the_same_tray_segments(grown):
    import json
    summary = json.loads((grown["grown"] / "summary.json").read_text())
    _, tables = _page(grown["grown"])
    names = set(tables["fail_trays"]["name"])
    assert summary["resilience"]["groups"]["tray"] == len(names)
    assert set(expected_spans(grown["grown"])) <= names


@pytest.mark.parametrize("ends, standing, nearest", KEPT)
def test_the_viewer_draws_a_kept_cable_through_its_standing_tray(grown, ends, standing,
                                                                 nearest):
    """The page's route of the cable: its cross-tray step runs at the row-end tray's x (in
    its hall's frame, cabinet k at 0.6 (k - 1) m: the drawing offsets halls), and its
    steps add up to cables.csv's ``length_m`` before the slack (no per-cable overhead on
    this floor)."""
    meta, tables = _page(grown["grown"])
    row = _row_of(grown["grown"], ends)
    routes, points, nodes = tables["routes"], tables["route_points"], tables["route_nodes"]
    start = int(np.sum(np.asarray(routes["points"][:row], dtype=np.int64)))
    count = int(routes["points"][row])
    mine = range(start, start + count)
    steps = [points["step"][p] for p in mine]
    xs = [float(nodes["x"][int(points["node"][p])]) for p in mine]
    cross = [xs[k] for k, s in enumerate(steps) if s == "cross tray"]
    cabinets = read_csv(grown["grown"], "cabinets.csv")
    cabinets = cabinets[cabinets["kind"] == "cabinet"]
    column = cabinets.set_index("name")["column"].astype(int)
    hall = cabinets[cabinets["hall"] == standing[1]]
    row_end_x = PITCH * int(hall["column"].astype(int).max())    # 0.6 m past the last one
    a_cabinet = read_csv(grown["grown"], "cables.csv")["a_cabinet"].iat[row]
    origin = xs[0] - PITCH * (column[a_cabinet] - 1)              # the hall's x in the drawing
    assert cross and all(x - origin == pytest.approx(row_end_x) for x in cross)
    length = float(read_csv(grown["grown"], "cables.csv")["length_m"].iat[row])
    metres = sum(float(points["metres"][p]) for p in mine)
    assert metres * SLACK == pytest.approx(length, abs=2e-3)
