"""The plan viewer: ``index.html``, one self-contained page over the whole plan (docs/viewer.md).

Opens from disk in a current browser (no server, no network access): the floor with every
hall, row, aisle, tray and cabinet; each cabinet's elevation and cables; search and trace of
any cable; filters; the summary and the bill of materials; the floor coloured by θ after each
cabinet fails and what each tray segment carries (``planner.exports.viewer.resilience``).

``page(plan)`` returns the HTML text: the template ``page.html`` with the style sheet
``viewer.css``, the script ``viewer.js`` (plain JavaScript drawing on a canvas; no library, no
network access) and the plan's data (``planner.exports.viewer.payload``) inlined. What the page
draws comes from ``planner.exports.viewer.geometry``: the floor from ``floor_geometry``, each
cable's route from ``cable_routes``. ``write`` writes the page to index.html as it is made
(``write_page``): each table made, encoded and let go in turn, the data block compressed piece
by piece, so the writer's memory does not hold the page, the block or every table at once.

Safety: every text from the inputs (names, labels, SKUs, descriptions) travels inside the
base64 data block and reaches the page only through ``textContent`` or the canvas, never as
markup; the one text in the markup, the title, is HTML-escaped. A Content-Security-Policy
allows no network access at all and runs only the viewer's own script and style (by their
SHA-256), so even markup that slipped in could not run.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from planner import cabling
from planner.costing.bom import COST_LINES, cost_items
from planner.exports import cabinets_csv, cables_csv, summary_json
from planner.exports.viewer import geometry as geo
from planner.exports.tuning import VIEWER_ROUTE_CHUNK_CABLES as ROUTE_CHUNK_CABLES
from planner.exports.viewer import payload, resilience

FILENAME = "index.html"

PAGE_FORMAT = 1
"""Version of the data block the script reads (``meta.format``)."""

TABLES = ["cabinets", "cabinet_shapes", "devices", "cables", "routes", "route_points",
          "route_nodes", "bom", "fail_cabinets", "fail_trays", "fail_tray_cables"]
"""The data block's tables, in the order the block holds them."""


def _resource(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def title(plan) -> str:
    """``slimfly q=19 p=15 · modern-100g · hot-aisle``: what the page's title bar says."""
    s = plan.summary
    params = " ".join(f"{k}={v}" for k, v in s["topology"]["params"].items())
    return f"{s['topology']['family']} {params} · {s['catalog']['name']} · {s['floor']['name']}"


_KEY_BIAS = 1 << 31
"""Millimetre coordinates are biased by this into 32 unsigned bits, so (x, y) packs into one
64-bit key ordered as the pair (x first)."""


def route_tables(plan, shapes: dict) -> dict[str, list]:
    """Routes as three tables, as columns for ``payload.Block.add``: per cable its point
    count and route kind; per point its node number, the kind and metres of the step reaching
    it; the nodes (distinct points, to the millimetre, in order of x then y). The routes are
    drawn ``VIEWER_ROUTE_CHUNK_CABLES`` cables at a time, each chunk kept only as its point
    counts, its own nodes and each point's row among them, step codes and metres."""
    cables = len(plan.cables)
    counts, kinds, chunk_nodes, chunk_rows, steps, metres = [], [], [], [], [], []
    step_kinds = ()
    for lo in range(0, max(cables, 1), ROUTE_CHUNK_CABLES):
        routes = geo.cable_routes(plan, shapes, slice(lo, lo + ROUTE_CHUNK_CABLES))
        mm = np.round(routes.points * 1000).astype(np.int64).reshape(-1, 2) + _KEY_BIAS
        if len(mm) and (mm.min() < 0 or mm.max() >= 2 * _KEY_BIAS):
            raise ValueError("a cable route lies more than 2,000 km from the floor's origin")
        key = (mm[:, 0].astype(np.uint64) << np.uint64(32)) | mm[:, 1].astype(np.uint64)
        nodes, rows = np.unique(key, return_inverse=True)
        chunk_nodes.append(nodes)
        chunk_rows.append(rows.reshape(-1).astype(np.int32))
        counts.append(np.diff(routes.offsets))
        kinds.append(routes.kind)
        steps.append(routes.step)
        metres.append(np.round(routes.step_m, 3))
        step_kinds = routes.step_kinds
        del routes, mm, key, rows
    kind = (plan.cables["route_kind"].rename("kind") if "route_kind" in plan.cables.columns
            else payload.CodedText("kind", _joined(kinds), geo.ROUTE_KINDS))
    nodes = np.unique(_joined(chunk_nodes[:]))
    node_of = np.empty(sum(len(r) for r in chunk_rows), dtype=np.int32)
    at = 0
    while chunk_rows:                         # each chunk's rows let go once placed
        rows = chunk_rows.pop(0)
        node_of[at:at + len(rows)] = np.searchsorted(nodes, chunk_nodes.pop(0))[rows]
        at += len(rows)
    xy = np.c_[(nodes >> np.uint64(32)).astype(np.int64),
               (nodes & np.uint64(0xFFFFFFFF)).astype(np.int64)] - _KEY_BIAS
    return {"routes": [pd.Series(_joined(counts), name="points"), kind],
            "route_points": [pd.Series(node_of, name="node"),
                             payload.CodedText("step", _joined(steps), step_kinds),
                             pd.Series(_joined(metres), name="metres")],
            "route_nodes": [pd.Series(xy[:, 0] / 1000.0, name="x"),
                            pd.Series(xy[:, 1] / 1000.0, name="y")]}


def _joined(chunks: list[np.ndarray]) -> np.ndarray:
    """The chunks end to end, the list emptied (each chunk let go once copied)."""
    out = np.empty(sum(len(c) for c in chunks), dtype=chunks[0].dtype)
    at = 0
    while chunks:
        chunk = chunks.pop(0)
        out[at:at + len(chunk)] = chunk
        at += len(chunk)
    return out


def end_piece_lengths(plan) -> dict[str, np.ndarray]:
    """``a_order_m`` / ``b_order_m``: the stock length of the piece plugged in at each end of
    every cable (``planner.cabling.pieces``: the cable itself, or that end's patch cord)."""
    legs = plan.pieces.legs
    ends = legs.groupby("cable", sort=True)["piece"].agg(["first", "last"])
    order = plan.pieces.table["order_length_m"].to_numpy(float)
    return {"a_order_m": order[ends["first"].to_numpy()],
            "b_order_m": order[ends["last"].to_numpy()]}


def _cable_columns(plan):
    """``cables.csv``'s columns (``cables_csv.rows``) and each end's stock length
    (``end_piece_lengths``), one column at a time."""
    for column in cables_csv.CSV_COLUMNS:
        yield plan.cables[column]
    assemblies = plan.pieces.end_assemblies()
    for column in cables_csv.ASSEMBLY_COLUMNS:
        yield assemblies[column]
    del assemblies
    for name, values in end_piece_lengths(plan).items():
        yield pd.Series(values, name=name)


def _drained(columns: list):
    """The columns in order, each let go by the list as it is given."""
    while columns:
        yield columns.pop(0)


def data_pieces(plan, folder=None):
    """The plan's data block (``planner.exports.viewer.payload``), uncompressed, as pieces of
    bytes: each table is made, encoded and let go in turn (its bytes waiting in temporary
    files in ``folder``)."""
    shapes = geo.floor_geometry(plan)
    cabinets = shapes.pop("cabinets")
    cabinet_shapes = pd.DataFrame(cabinets)
    refs = {"devices": {"cabinet": ("cabinets", "name")},
            "cables": {"a_device": ("devices", "name"), "b_device": ("devices", "name"),
                       "a_cabinet": ("cabinets", "name"), "b_cabinet": ("cabinets", "name")},
            "fail_cabinets": {"cabinet": ("cabinets", "name")}}
    block = payload.Block(refs, order=TABLES, folder=folder)
    # the routes first: their arrays are let go before the cables' columns are read
    routes = route_tables(plan, {**shapes, "cabinets": cabinets})
    while routes:
        name, columns = routes.popitem()
        block.add(name, _drained(columns), len(columns[0]))
    block.add_frame("cabinets", cabinets_csv.cabinet_rows(plan))
    block.add_frame("cabinet_shapes", cabinet_shapes)
    block.add_frame("devices", plan.devices[["name", "kind", "cabinet", "ru", "height_ru",
                                             "model"]])
    block.add("cables", _cable_columns(plan), len(plan.cables))
    block.add_frame("bom", plan.bom)
    failure_tables, failure_meta = resilience.tables_and_meta(plan)
    for name, frame in failure_tables.items():
        block.add_frame(name, frame)
    del failure_tables
    floor = plan.floor
    meta = {"format": PAGE_FORMAT, "title": title(plan),
            "summary": json.loads(summary_json.dumps(plan.summary)), "floor": shapes,
            "cabinet_height_ru": int(floor.cabinet_height_ru),
            "length_model": {"intra_cabinet_m": floor.intra_cabinet_m,
                             "overhead_per_cable_m": floor.overhead_per_cable_m,
                             "slack_pct": floor.slack_pct},
            "kw_budget": floor.cabinet_kw_budget,
            "part_columns": ["sku", *cabling.END_PART_COLUMNS, *cabling.PART_COLUMNS],
            "cost_lines": [[key, words, cost_items(key)] for key, words in COST_LINES],
            "resilience": failure_meta}
    yield from block.pieces(meta)


def data_block(plan) -> str:
    """The plan's data as the page embeds it (``planner.exports.viewer.payload``)."""
    text = []
    payload.pack_stream(data_pieces(plan), text.append)
    return "".join(text)


def write_page(plan, write, folder=None) -> None:
    """The whole ``index.html`` text of ``plan``, given to ``write`` piece by piece: the
    template up to the data block, the block as it is compressed, the rest (``data_pieces``
    in ``folder``)."""
    script, style = _resource("viewer.js"), _resource("viewer.css")
    policy = ("default-src 'none'; img-src data:; "
              f"style-src '{_sha256(style)}'; script-src '{_sha256(script)}'")
    fields = {"POLICY": html.escape(policy), "TITLE": html.escape(title(plan)),
              "STYLE": style, "SCRIPT": script}
    before, after = _resource("page.html").split("{{DATA}}")
    fill = re.compile(r"\{\{([A-Z]+)\}\}")
    write(fill.sub(lambda m: fields[m.group(1)], before))
    payload.pack_stream(data_pieces(plan, folder), write)
    write(fill.sub(lambda m: fields[m.group(1)], after))


def page(plan) -> str:
    """The whole ``index.html`` text of ``plan``."""
    text = []
    write_page(plan, text.append)
    return "".join(text)


def write(plan, out_dir: Path) -> None:
    """Write ``index.html`` as it is made (``write_page``; its temporary files beside it, on
    the output's disk, not in a temporary folder that may be memory)."""
    with open(Path(out_dir) / FILENAME, "w", encoding="utf-8", newline="\n") as fh:
        write_page(plan, fh.write, out_dir)
