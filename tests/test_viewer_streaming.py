"""index.html written as it is made (issue 24): the routes drawn a chunk of cables at a time,
the tables encoded one at a time into temporary files, the data block compressed and
base64-encoded piece by piece. None of it may change a byte of the page."""

from __future__ import annotations

import base64
import json
import random
import zlib

import numpy as np
import pandas as pd
import pytest

from planner.exports import viewer
from planner.exports.viewer import geometry, payload
from rich_plan import rich_plan
from test_viewer import grid_plan, halls_plan, read_block

PLANS = {"grid floor": grid_plan, "three halls, corridor": lambda: halls_plan("corridor"),
         "rich (patch racks, three halls)": rich_plan}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_page_is_the_same_however_finely_it_is_streamed(name, monkeypatch):
    """Routes 7 cables at a time, columns checked 5 rows at a time, temporary files read 13
    bytes and base64 written 3 bytes at a time: the very page of the default sizes."""
    plan = PLANS[name]()
    whole = viewer.page(plan)
    monkeypatch.setattr(viewer, "ROUTE_CHUNK_CABLES", 7)
    monkeypatch.setattr(payload, "CHUNK_ROWS", 5)
    monkeypatch.setattr(payload, "SPOOL_CHUNK_BYTES", 13)
    monkeypatch.setattr(payload, "STREAM_CHUNK_BYTES", 3)
    assert viewer.page(plan) == whole
    assert len(plan.cables) > 7 * 3


def test_page_written_to_disk_is_the_page(tmp_path):
    """``write`` streams into index.html exactly the text ``page`` returns, and its
    temporary files beside it leave nothing behind."""
    plan = grid_plan()
    viewer.write(plan, tmp_path)
    assert (tmp_path / viewer.FILENAME).read_text(encoding="utf-8") == viewer.page(plan)
    assert [p.name for p in tmp_path.iterdir()] == [viewer.FILENAME]


@pytest.mark.parametrize("sizes", [[0], [1, 2, 3], [5] * 40, [70_000, 1, 0, 300_001],
                                   [3 * 2 ** 20 + 1, 17]])
def test_pack_stream_is_pack_of_the_whole(sizes, monkeypatch):
    """zlib fed piece by piece and base64 in 3-byte groups give ``pack`` of the joined
    bytes, with pieces of any size and the output cut anywhere."""
    rng = random.Random(sum(sizes))
    pieces = [bytes(rng.choice(b"abcab\0\1") for _ in range(n)) for n in sizes]
    for chunk in (3, 4096, 1 << 20):
        monkeypatch.setattr(payload, "STREAM_CHUNK_BYTES", chunk)
        out = []
        payload.pack_stream(iter(pieces), out.append)
        assert "".join(out) == payload.pack(b"".join(pieces))
        assert zlib.decompress(base64.b64decode("".join(out))) == b"".join(pieces)


def test_route_tables_are_the_routes_to_the_millimetre(monkeypatch):
    """Drawn 5 cables at a time, the route tables hold every cable's whole route: its point
    count, and per point the node at that point (rounded to the millimetre), the step's kind
    and metres; the nodes are distinct and ordered by x, then y."""
    plan = halls_plan("corridor")
    monkeypatch.setattr(viewer, "ROUTE_CHUNK_CABLES", 5)
    shapes = geometry.floor_geometry(plan)
    routes = geometry.cable_routes(plan, shapes)          # all cables at once
    tables = viewer.route_tables(plan, shapes)
    points, _ = tables["routes"]
    node, step, metres = tables["route_points"]
    x, y = (s.to_numpy() for s in tables["route_nodes"])
    np.testing.assert_array_equal(points.to_numpy(), np.diff(routes.offsets))
    np.testing.assert_array_equal(x[node.to_numpy()], np.round(routes.points[:, 0], 3))
    np.testing.assert_array_equal(y[node.to_numpy()], np.round(routes.points[:, 1], 3))
    np.testing.assert_array_equal(metres.to_numpy(), np.round(routes.step_m, 3))
    np.testing.assert_array_equal(step.codes, routes.step)
    assert len(set(zip(x.tolist(), y.tolist()))) == len(x)
    assert list(zip(x.tolist(), y.tolist())) == sorted(zip(x.tolist(), y.tolist()))
    assert len(x) < len(node) and (routes.kind == 3).any()   # shared nodes; hall links drawn


def _rule(values: list[str]) -> dict:
    """How a text column is coded, by the rule of payload's docstring, decided in its plain
    order: distinct values at most ``DICTIONARY_SHARE`` of the rows -> dictionary; else runs
    of numbered names -> seq; else every row."""
    uniques = list(dict.fromkeys(values))
    if len(uniques) <= max(1, payload.DICTIONARY_SHARE * len(values)):
        return {"type": "str", "values": uniques, "codes": [uniques.index(v) for v in values]}
    runs = payload.numbered_runs(values)
    if runs is not None:
        return {"type": "seq", "runs": runs}
    return {"type": "str", "values": values}


TEXTS = {
    "one id": ["C1"],
    "ids twice": ["C1", "C2", "C1", "C2"],
    "ids, one repeated": ["C1", "C2", "C3", "C3"],
    "two prefixes": ["a1", "a2", "b1", "b2"],
    "one prefix, two widths": ["x8", "x9", "x10", "x08", "x09", "x010"],
    "routers then endpoints": [f"r{k:02d}" for k in range(12)] + [f"n{k:03d}" for k in range(30)],
    "no digits": ["optical", "electrical", "optical"],
    "labels": ["A01-40:17/C07-40:03", "A01-40:18/A02-40:03", "A01-40:19/B07-40:03"],
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_text_columns_are_coded_by_the_rule(name):
    """Runs of numbered names are coded without hashing every name first only where the
    dictionary could not win: the same coding as the rule taken in its plain order."""
    values = TEXTS[name]
    block = payload.encode({"t": pd.DataFrame({"s": pd.array(values, dtype="str")})}, {})
    spec = json.loads(block[4:4 + int.from_bytes(block[:4], "little")])["tables"]["t"]
    column = spec["columns"][0]
    want = _rule(values)
    assert column["type"] == want["type"]
    assert column.get("runs") == want.get("runs")
    assert column.get("values") == want.get("values")
    _, tables = read_block('<script id="plan-data" type="application/octet-stream">'
                           f'{payload.pack(block)}</script>')
    assert tables["t"]["s"] == values
