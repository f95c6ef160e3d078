"""The plan viewer: ``index.html``, one self-contained page over the whole plan (docs/viewer.md).

Opens from disk in a current browser (no server, no network access): the floor with every
hall, row, aisle, tray and cabinet; each cabinet's elevation and cables; search and trace of
any cable; filters; the summary and the bill of materials; the floor coloured by θ after each
cabinet fails and what each tray segment carries (``planner.exports.viewer.resilience``).

``page(plan)`` returns the HTML text: the template ``page.html`` with the style sheet
``viewer.css``, the script ``viewer.js`` (plain JavaScript drawing on a canvas; no library, no
network access) and the plan's data (``planner.exports.viewer.payload``) inlined. What the page
draws comes from ``planner.exports.viewer.geometry``: the floor from ``floor_geometry``, each
cable's route from ``cable_routes``.

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
from planner.exports.viewer import payload, resilience

FILENAME = "index.html"

PAGE_FORMAT = 1
"""Version of the data block the script reads (``meta.format``)."""


def _resource(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def title(plan) -> str:
    """``slimfly q=19 p=15 · modern-100g · hot-aisle``: what the page's title bar says."""
    s = plan.summary
    params = " ".join(f"{k}={v}" for k, v in s["topology"]["params"].items())
    return f"{s['topology']['family']} {params} · {s['catalog']['name']} · {s['floor']['name']}"


def _routes_tables(plan, routes: geo.Routes) -> dict[str, pd.DataFrame]:
    """Routes as three tables: per cable its point count and route kind; per point its node
    number, the kind and metres of the step reaching it; the nodes (distinct points, to the
    millimetre)."""
    mm = np.round(routes.points * 1000).astype(np.int64).reshape(-1, 2)
    low = mm.min(axis=0) if len(mm) else np.zeros(2, np.int64)
    span = (mm[:, 1].max() - low[1] + 1) if len(mm) else 1
    keys, node_of = np.unique((mm[:, 0] - low[0]) * span + (mm[:, 1] - low[1]),
                              return_inverse=True)
    nodes = np.c_[keys // span + low[0], keys % span + low[1]] / 1000.0
    if "route_kind" in plan.cables.columns:
        kind = plan.cables["route_kind"].astype(str).to_numpy(dtype=object)
    else:
        kind = np.asarray(geo.ROUTE_KINDS, dtype=object)[routes.kind]
    return {"routes": pd.DataFrame({"points": np.diff(routes.offsets), "kind": kind}),
            "route_points": pd.DataFrame({
                "node": np.asarray(node_of).reshape(-1),
                "step": pd.Categorical.from_codes(routes.step, categories=routes.step_kinds)
                .astype(object),
                "metres": np.round(routes.step_m, 3)}),
            "route_nodes": pd.DataFrame({"x": nodes[:, 0], "y": nodes[:, 1]})}


def end_piece_lengths(plan) -> dict[str, np.ndarray]:
    """``a_order_m`` / ``b_order_m``: the stock length of the piece plugged in at each end of
    every cable (``planner.cabling.pieces``: the cable itself, or that end's patch cord)."""
    legs = plan.pieces.legs
    ends = legs.groupby("cable", sort=True)["piece"].agg(["first", "last"])
    order = plan.pieces.table["order_length_m"].to_numpy(float)
    return {"a_order_m": order[ends["first"].to_numpy()],
            "b_order_m": order[ends["last"].to_numpy()]}


def data_block(plan) -> str:
    """The plan's data as the page embeds it (``planner.exports.viewer.payload``)."""
    shapes = geo.floor_geometry(plan)
    routes = geo.cable_routes(plan, shapes)
    cabinet_shapes = pd.DataFrame(shapes.pop("cabinets"))
    cables = cables_csv.rows(plan).assign(**end_piece_lengths(plan))
    devices = plan.devices[["name", "kind", "cabinet", "ru", "height_ru", "model"]]
    tables = {"cabinets": cabinets_csv.cabinet_rows(plan), "cabinet_shapes": cabinet_shapes,
              "devices": devices, "cables": cables, **_routes_tables(plan, routes),
              "bom": plan.bom}
    failure_tables, failure_meta = resilience.tables_and_meta(plan)
    tables.update(failure_tables)
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
    refs = {"devices": {"cabinet": ("cabinets", "name")},
            "cables": {"a_device": ("devices", "name"), "b_device": ("devices", "name"),
                       "a_cabinet": ("cabinets", "name"), "b_cabinet": ("cabinets", "name")},
            "fail_cabinets": {"cabinet": ("cabinets", "name")}}
    return payload.pack(payload.encode(tables, meta, refs))


def page(plan) -> str:
    """The whole ``index.html`` text of ``plan``."""
    script, style = _resource("viewer.js"), _resource("viewer.css")
    policy = ("default-src 'none'; img-src data:; "
              f"style-src '{_sha256(style)}'; script-src '{_sha256(script)}'")
    fields = {"POLICY": html.escape(policy), "TITLE": html.escape(title(plan)),
              "STYLE": style, "SCRIPT": script, "DATA": data_block(plan)}
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: fields[m.group(1)], _resource("page.html"))


def write(plan, out_dir: Path) -> None:
    """Write ``index.html``."""
    (Path(out_dir) / FILENAME).write_text(page(plan), encoding="utf-8", newline="\n")
