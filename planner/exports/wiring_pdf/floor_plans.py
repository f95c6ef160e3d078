"""The floor plan section, drawn to scale: an overview of the floor with the scale bar and the
group legend, then bands of rows at a readable scale; on a floor with halls, for every hall a key
page and the tiles it shows, with hot and cold aisles, cabinet fronts, row and cross trays, walls,
the entry and the patch racks of structured cabling at their floor positions
(``planner.inputs.floor.rack_positions``, as the viewer draws them:
``viewer.geometry.patch_rack_marks``). No text is smaller than ``MIN_TEXT_PT``, and every name
sits inside its own box (``tests/test_legibility.py`` reads both back)."""

from __future__ import annotations

import math

import numpy as np
from reportlab.pdfgen.canvas import Canvas

from planner.exports.viewer.geometry import patch_rack_marks
from planner.inputs.floor import positions
from planner.inputs.floor.rack_positions import hall_bounds
from planner.exports.wiring_pdf.content_stream import fill_rects, string_widths, text_at
from planner.exports.wiring_pdf.layout import Figure, Section
from planner.exports.wiring_pdf.style import (BOLD, COLD_AISLE, CONTENT_W, DETAIL_MAX_PT_PER_M,
                                              EMPTY_POSITION, END_AISLE, ENTRY_COLOUR,
                                              FLOOR_HEIGHT, FONT, FRONT_MARK, GROUP_COLOURS,
                                              HOT_AISLE, LEGEND_H, MIN_TEXT_PT, NAME_FILL,
                                              PATCH_RACK_FILL, TRAY_COLOUR)

ROW_LABEL_W = 18.0
"""Room left of a hall drawing for the row letters (7 pt bold, two letters)."""
TWO_LINES = 3.0
"""A cabinet holds its name and its group (``g12``) on two lines when it is this many type sizes
deep: the name's capitals and the group's descender stay inside the box, clear of the front
mark."""
KEY_TOP = 12.0
"""Room above a key page's hall for the columns each tile covers (6 pt)."""
MARKED_FILL, MARKED_HATCH = (0.80, 0.80, 0.80), (0.45, 0.45, 0.45)
"""A marked position of an existing room (``hall.positions``): grey, hatched, its kind inside."""


def floor_section(plan) -> Section:
    """Overview of the whole floor to scale, then row bands at a readable scale if needed;
    on a floor with halls, that for every hall (``hall_section``)."""
    if getattr(plan.floor, "hall", None) is not None:
        return hall_section(plan)
    cab = plan.cabinets.reset_index(drop=True)
    floor = plan.floor
    cw, cd = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    x = cab["x_m"].to_numpy(float)
    y = cab["y_m"].to_numpy(float)
    rows = cab["row"].to_numpy(int)
    margin_m = 1.0
    span_w = (x.max() - x.min() + cw) + 2 * margin_m
    avail_w = CONTENT_W - 18.0
    overview = _floor_scale(x, y, cw, cd, margin_m, avail_w, FLOOR_HEIGHT - 16.0 - LEGEND_H)
    blocks = [Figure(FLOOR_HEIGHT, _floor_drawer(plan, np.ones(len(cab), bool), overview,
                                                 legend=True))]
    detail = min(avail_w / span_w, DETAIL_MAX_PT_PER_M)
    if detail > 1.5 * overview:
        row_pitch = cd + float(floor.aisle_m)
        per_page = max(1, int((FLOOR_HEIGHT - 30.0) // (row_pitch * detail)))
        distinct = np.unique(rows)
        for k in range(0, len(distinct), per_page):
            mask = np.isin(rows, distinct[k:k + per_page])
            blocks.append(Figure(FLOOR_HEIGHT, _floor_drawer(plan, mask, detail, legend=False)))
    return Section("Floor plan", blocks, "floor")


def _floor_scale(x, y, cw, cd, margin_m, avail_w, avail_h) -> float:
    span_w = (x.max() - x.min() + cw) + 2 * margin_m
    span_h = (y.max() - y.min() + cd) + 2 * margin_m
    return min(avail_w / span_w, avail_h / span_h)


def _floor_drawer(plan, mask: np.ndarray, scale: float, legend: bool):
    """Draw the cabinets selected by ``mask`` at ``scale`` points per metre."""
    cab = plan.cabinets.reset_index(drop=True)
    floor = plan.floor
    cw, cd = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    margin_m = 1.0
    all_x = cab["x_m"].to_numpy(float)
    x = all_x[mask]
    y = cab["y_m"].to_numpy(float)[mask]
    rows = cab["row"].to_numpy(int)[mask]
    groups = cab["group"].to_numpy(int)[mask]
    names = cab["name"].astype(str).to_numpy()[mask]
    x0 = all_x.min() - cw / 2
    y0 = y.min() - cd / 2
    n_groups = int(cab["group"].max()) + 1 if len(cab) else 0

    def draw(canvas: Canvas, left: float, top: float, width: float) -> None:
        label_w = 18.0
        span_w = (all_x.max() - all_x.min() + cw) + 2 * margin_m
        ox = left + label_w + (width - label_w - span_w * scale) / 2 + margin_m * scale
        oy_top = top - 16.0 - margin_m * scale

        def px(xm):
            return ox + (xm - x0) * scale

        def py(ym):
            return oy_top - (ym - y0) * scale

        row_ids = np.unique(rows)
        row_y = {r: float(y[rows == r].mean()) for r in row_ids}
        letters = {r: str(names[rows == r][0]).rstrip("0123456789") for r in row_ids}
        if not legend:
            canvas.setFont(BOLD, 9)
            canvas.drawString(left, top - 8.0, f"rows {letters[row_ids[0]]}-"
                                               f"{letters[row_ids[-1]]}, "
                                               f"1 : {_paper_scale(scale):,}")
        aisles = []
        for ra, rb in zip(row_ids[:-1], row_ids[1:]):
            ya, yb = row_y[ra] + cd / 2, row_y[rb] - cd / 2
            if yb > ya:
                aisles.append((px(x0 - margin_m / 2), py(yb), (span_w - margin_m) * scale,
                               (yb - ya) * scale))
        fill_rects(canvas, aisles, (0.95, 0.95, 0.95))
        if aisles and aisles[0][3] * 0.7 >= MIN_TEXT_PT:
            size = MIN_TEXT_PT
            text_at(canvas, FONT, size, [(a[0] + 2, a[1] + a[3] / 2 - size / 3, "aisle")
                                         for a in aisles])
        bw, bh = cw * scale, cd * scale
        for colour in range(len(GROUP_COLOURS)):
            sel = np.flatnonzero(groups % len(GROUP_COLOURS) == colour)
            fill_rects(canvas, [(px(x[i] - cw / 2), py(y[i] + cd / 2), bw, bh) for i in sel],
                       GROUP_COLOURS[colour], stroke=True)
        tags = [f"g{g}" for g in groups]
        widths = string_widths(list(names) + tags, FONT, 1.0)
        size = min(7.0, NAME_FILL * bw / max(float(widths.max(initial=0.0)), 1e-9), bh * 0.42)
        if size >= MIN_TEXT_PT:                  # else the names stay off this drawing
            two_lines = bh >= 2.6 * size
            name_y = [py(v) + (size * 0.25 if two_lines else -size * 0.35) for v in y]
            text_at(canvas, FONT, size, [(px(x[i]) - widths[i] * size / 2, name_y[i], names[i])
                                         for i in range(len(names))])
            if two_lines:
                gw = widths[len(names):] * size
                text_at(canvas, FONT, size, [(px(x[i]) - gw[i] / 2, py(y[i]) - size * 1.2,
                                              tags[i]) for i in range(len(names))])
        text_at(canvas, BOLD, 7.0, [(left, py(row_y[r]) - 2.5, letters[r]) for r in row_ids])
        if legend:
            _legend(canvas, left + label_w, top - FLOOR_HEIGHT + 48.0, width - label_w, scale,
                    span_w, floor, n_groups)
    return draw


def _legend(canvas: Canvas, left: float, by: float, width: float, scale: float, span_w: float,
            floor, n_groups: int, hall: bool = False) -> None:
    """Scale bar and paper scale at height ``by``, then the group colours (and on halls the
    aisle, tray, front and entry symbols) below it."""
    cw, cd = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    bar_m = _nice_length(span_w / 4)
    fill_rects(canvas, [(left, by, bar_m * scale, 3.0)], (0.1, 0.1, 0.1))
    text_at(canvas, FONT, 7.0, [
        (left, by + 6.0, f"{bar_m:g} m"),
        (left + bar_m * scale + 8.0, by,
         f"1 : {_paper_scale(scale):,} on A4 - cabinet {cw:g} x {cd:g} m, "
         f"pitch {float(floor.pitch_m):g} m, aisle {float(floor.aisle_m):g} m; "
         f"colour = electrical group (g<id>)")])
    shown = min(n_groups, 24)
    sw = width / max(shown, 1)
    for g in range(shown):
        fill_rects(canvas, [(left + g * sw, by - 22.0, 8.0, 8.0)],
                   GROUP_COLOURS[g % len(GROUP_COLOURS)], stroke=True)
    text_at(canvas, FONT, 6.0, [(left + g * sw + 10.0, by - 20.5, f"g{g}")
                                for g in range(shown)])
    if shown < n_groups:
        text_at(canvas, FONT, 6.0, [(left, by - 32.0, f"... {n_groups} groups; colours "
                                     f"repeat every {len(GROUP_COLOURS)} groups")])
    if not hall:
        return
    ky = by - 44.0
    fill_rects(canvas, [(left, ky, 14.0, 7.0)], COLD_AISLE)
    fill_rects(canvas, [(left + 90.0, ky, 14.0, 7.0)], HOT_AISLE)
    fill_rects(canvas, [(left + 170.0, ky + 5.5, 14.0, 1.5)], FRONT_MARK)
    _lines(canvas, [(left + 260.0, ky + 3.5, left + 274.0, ky + 3.5)], TRAY_COLOUR, 1.2)
    fill_rects(canvas, [(left + 380.0, ky, 7.0, 7.0)], ENTRY_COLOUR)
    if floor.structured_cabling:
        fill_rects(canvas, [(left + 440.0, ky, 7.0, 7.0)], PATCH_RACK_FILL, stroke=True)
        text_at(canvas, FONT, 6.5, [(left + 450.0, ky + 1.0, "patch rack")])
        text_at(canvas, FONT, MIN_TEXT_PT, [(left, ky - 10.0, "patch racks stand in the rows "
                                             "under their cross trays (A-P1: row A, cross tray "
                                             "1); E1, E2, ... = the hall's entry racks ENTRY, "
                                             "ENTRY.2, ... in the entry row along its front "
                                             "wall")])
    text_at(canvas, FONT, 6.5, [(left + 17.0, ky + 1.0, "cold aisle"),
                                (left + 107.0, ky + 1.0, "hot aisle"),
                                (left + 187.0, ky + 1.0, "cabinet front"),
                                (left + 277.0, ky + 1.0, "overhead cable tray"),
                                (left + 390.0, ky + 1.0, "hall entry")])


def _lines(canvas: Canvas, segments, rgb, width: float, dash: str = "") -> None:
    """Stroke straight ``(x0, y0, x1, y1)`` lines in one path (``dash``: a PDF dash array)."""
    segments = list(segments)
    if not segments:
        return
    ops = ["q", f"{rgb[0]:.3f} {rgb[1]:.3f} {rgb[2]:.3f} RG {width:.2f} w"
           + (f" [{dash}] 0 d" if dash else "")]
    ops.extend(f"{a:.2f} {b:.2f} m {c:.2f} {d:.2f} l" for a, b, c, d in segments)
    ops += ["S", "Q"]
    canvas.addLiteral("\n".join(ops))


def hall_section(plan) -> Section:
    """Every hall: a key page with the whole hall to scale (cabinets, patch racks, aisles, trays,
    walls, the entry; no names) and the dashed outline of every tile, then the tiles at a scale
    where every cabinet and rack name prints at ``MIN_TEXT_PT`` or more: bands of rows, split
    along the rows where the hall is wider than a page."""
    from planner.inputs.floor import room_of

    cab = plan.cabinets
    floor = plan.floor
    room = room_of(floor, cab["hall"], cab["row"], cab["col"])
    marks = patch_rack_marks(plan, room)
    avail_w = CONTENT_W - ROW_LABEL_W
    scale, need = _tile_scale(plan, room, marks, avail_w)
    blocks = []
    for hall in range(room.halls):
        bounds = hall_bounds(room, marks[marks["hall"] == hall])
        whole = (0, room.rows - 1, bounds[0], bounds[2])
        span_w, span_h = bounds[2] - bounds[0], bounds[3] - bounds[1]
        key_h = FLOOR_HEIGHT - 16.0 - KEY_TOP - LEGEND_H - 14.0
        overview = min(avail_w / span_w, key_h / span_h)
        if overview >= need:              # the whole hall, named, on one page with its legend
            blocks.append(Figure(FLOOR_HEIGHT, _hall_drawer(plan, room, marks, hall, bounds,
                                                            whole, overview, [], names=True)))
            continue
        tiles = _tiles(room, bounds, scale, avail_w)
        blocks.append(Figure(FLOOR_HEIGHT, _hall_drawer(plan, room, marks, hall, bounds, whole,
                                                        overview, tiles, names=False)))
        blocks.extend(Figure(FLOOR_HEIGHT, _hall_drawer(plan, room, marks, hall, bounds, tile,
                                                        scale, None, names=True))
                      for tile in tiles)
    return Section("Floor plan", blocks, "floor")


def short_names(names, hall_prefix: bool) -> list[str]:
    """Names as a hall's page prints them: without the ``H2-`` prefix the caption gives."""
    names = [str(n) for n in names]
    return [n.split("-", 1)[1] if hall_prefix and "-" in n else n for n in names]


def rack_tags(marks, hall_prefix: bool) -> list[str]:
    """What a patch rack's box says on a hall page (its hall is the caption's): a row's rack
    its name (``A-P1``, ``A-P0.2``), an entry rack ``E1`` / ``E2`` for ``ENTRY`` /
    ``ENTRY.2`` (the legend says so: ``ENTRY.21`` is too wide for a rack at a legible scale)."""
    tags = []
    for name, kind in zip(short_names(marks["name"], hall_prefix), marks["kind"]):
        if kind == "entry":
            tags.append("E" + (name.split(".", 1)[1] if "." in name else "1"))
        else:
            tags.append(name)
    return tags


def _tile_scale(plan, room, marks, avail_w: float) -> tuple[float, float]:
    """(points per metre of the tiles, the least scale that names everything): the tiles take the whole hall's width where that prints every name, group
    tag and rack tag at ``MIN_TEXT_PT`` within ``NAME_FILL`` of a cabinet's width (and two lines
    in its depth), else that least scale (at most ``DETAIL_MAX_PT_PER_M`` unless the names need
    more)."""
    floor = plan.floor
    cab = plan.cabinets
    cw, cd = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    texts = (short_names(cab["name"], room.halls > 1) + [f"g{g}" for g in cab["group"].tolist()]
             + rack_tags(marks, room.halls > 1)
             + sorted(set(positions.marks_in_room(room)["kind"])))
    widest = float(string_widths(texts, FONT, MIN_TEXT_PT).max(initial=0.0))
    need = max(widest / (NAME_FILL * cw), TWO_LINES * MIN_TEXT_PT / cd)
    bounds = hall_bounds(room, marks)
    whole = avail_w / (bounds[2] - bounds[0])
    return max(need, min(whole, DETAIL_MAX_PT_PER_M)), need


def _tiles(room, bounds, scale: float, avail_w: float) -> list[tuple[int, int, float, float]]:
    """(first row, last row, x from, x to) of the tiles of one hall at ``scale``: bands of as
    many rows as a page holds, each split along the rows between positions (cabinet or rack)
    into pieces no wider than the page."""
    floor = room.floor
    pitch, cd, aisle = float(floor.pitch_m), float(floor.cabinet_depth_m), float(floor.aisle_m)
    rp = float(floor.row_pitch_m)
    x0, y0, x1, _ = bounds
    width_m = avail_w / scale
    pieces = math.ceil((x1 - x0) / width_m - 1e-9)
    cuts = [x0]
    for k in range(1, pieces):
        # near equal pieces, cut between two positions (and never wider than the page)
        limit = cuts[-1] + width_m
        cut = math.floor((x0 + k * (x1 - x0) / pieces + pitch / 2) / pitch) * pitch - pitch / 2
        if not cuts[-1] + 1e-9 < cut <= limit + 1e-9:
            cut = math.floor((limit + pitch / 2) / pitch) * pitch - pitch / 2
        cuts.append(cut)
    cuts.append(x1)
    height = FLOOR_HEIGHT - 24.0
    bands, lo = [], 0
    while lo < room.rows:
        top = y0 if lo == 0 else lo * rp - cd / 2 - aisle
        hi = lo
        while hi + 1 < room.rows and ((hi + 1) * rp + cd / 2 + aisle - top) * scale <= height:
            hi += 1
        bands.append((lo, hi))
        lo = hi + 1
    return [(lo, hi, a, b) for lo, hi in bands for a, b in zip(cuts[:-1], cuts[1:])]


def _hall_drawer(plan, room, marks, hall: int, bounds, tile, scale: float, key,
                 names: bool):
    """Draw one tile of a hall (rows ``lo..hi``, x from ``xa`` to ``xb``) at ``scale`` points
    per metre (y grows down the page), with ``names`` the names and tags in the boxes they
    belong to. With ``key`` (a list: the hall's tiles, none when the hall fits one named page)
    it also draws the legend and the tiles' outlines."""
    from planner.inputs.floor import aisle_is_cold, cabinet_xy, front_aisle, row_letters

    floor = plan.floor
    lo, hi, xa, xb = tile
    cab = plan.cabinets.reset_index(drop=True)
    cw, cd = float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    aisle, rp = float(floor.aisle_m), float(floor.row_pitch_m)
    wall_x0, wall_y0, wall_x1, _ = bounds
    x_all, _ = cabinet_xy(floor, cab["row"].to_numpy(), cab["col"].to_numpy())
    sel = ((cab["hall"].to_numpy() == hall) & (cab["row"].to_numpy() >= lo)
           & (cab["row"].to_numpy() <= hi) & (x_all >= xa) & (x_all < xb))
    x, y = x_all[sel], cab["row"].to_numpy(float)[sel] * rp
    rows, cols = cab["row"].to_numpy(int)[sel], cab["col"].to_numpy(int)[sel]
    groups = cab["group"].to_numpy(int)[sel]
    labels = short_names(cab["name"].to_numpy()[sel], room.halls > 1)
    n_groups = int(cab["group"].max()) + 1 if len(cab) else 0
    ends = float(floor.hall.end_aisle_m)
    row_x0, row_x1 = wall_x0 + ends, wall_x1 - ends     # rows with every rack at their ends
    y_top = wall_y0 if lo == 0 else lo * rp - cd / 2 - aisle
    y_bottom = hi * rp + cd / 2 + aisle
    here = marks[(marks["hall"] == hall) & (marks["x_m"] >= xa) & (marks["x_m"] < xb)
                 & (((marks["row"] >= lo) & (marks["row"] <= hi))
                    | ((marks["row"] < 0) & (lo == 0)))]
    tags = rack_tags(here, room.halls > 1)
    marked = positions.marks_in_room(room)
    marked = marked[(marked["hall"] == hall) & (marked["row"] >= lo) & (marked["row"] <= hi)
                    & (marked["x_m"] >= xa) & (marked["x_m"] < xb)]
    tag = f"Hall H{hall + 1}" if room.halls > 1 else "Hall"
    in_tile = cols
    if key is not None:
        caption = (f"{tag}: {room.rows} rows x {room.cols} cabinets, "
                   f"{wall_x1 - wall_x0:.1f} x {bounds[3] - wall_y0:.1f} m")
        if len(key) > 1:
            caption += f"; key to the {len(key)} sheets that follow (dashed)"
        if len(marked):
            caption += "; hatched: marked"
    else:
        span = (f", columns {int(in_tile.min()) + 1}-{int(in_tile.max()) + 1}"
                if len(in_tile) and (xa > wall_x0 or xb < wall_x1) else "")
        caption = f"{tag}, rows {row_letters(lo)}-{row_letters(hi)}{span}"
    head = 16.0 + (KEY_TOP if key else 0.0)

    def draw(canvas: Canvas, left: float, top: float, width: float) -> None:
        ox = left + ROW_LABEL_W + (width - ROW_LABEL_W - (xb - xa) * scale) / 2

        def px(xm):
            return ox + (np.asarray(xm, dtype=float) - xa) * scale

        def py(ym):
            return top - head - (np.asarray(ym, dtype=float) - y_top) * scale

        canvas.setFont(BOLD, 9)
        canvas.drawString(left, top - 8.0, f"{caption}, 1 : {_paper_scale(scale):,}")
        ax0, ax1 = max(row_x0, xa), min(row_x1, xb)
        for cold in (True, False):
            rects = []
            for a in range(lo, hi + 2):
                if bool(aisle_is_cold(a)) != cold:
                    continue
                yb = a * rp - cd / 2                      # the aisle's far edge
                rects.append((float(px(ax0)), float(py(yb)), (ax1 - ax0) * scale, aisle * scale))
            fill_rects(canvas, rects, COLD_AISLE if cold else HOT_AISLE)
        ends = [(e0, e1) for e0, e1 in ((wall_x0, row_x0), (row_x1, wall_x1))
                if e1 > xa + 1e-9 and e0 < xb - 1e-9]
        fill_rects(canvas, [(float(px(max(e0, xa))), float(py(y_bottom)),
                             (min(e1, xb) - max(e0, xa)) * scale, (y_bottom - y_top) * scale)
                            for e0, e1 in ends], END_AISLE)
        bw, bh = cw * scale, cd * scale
        used = set(zip(rows.tolist(), cols.tolist()))
        empty = [(r, c) for r in range(lo, hi + 1) for c in range(room.cols) if (r, c) not in used]
        ex_, _ = cabinet_xy(floor, 0, np.array([c for _, c in empty], dtype=float))
        fill_rects(canvas, [(float(px(xe - cw / 2)), float(py(r * rp + cd / 2)), bw, bh)
                            for (r, _), xe in zip(empty, np.atleast_1d(ex_).tolist())
                            if xa <= xe < xb], EMPTY_POSITION)
        _draw_marked(canvas, marked, px, py, cw, cd, scale)
        for colour in range(len(GROUP_COLOURS)):
            pick = np.flatnonzero(groups % len(GROUP_COLOURS) == colour)
            fill_rects(canvas, [(float(px(x[i] - cw / 2)), float(py(y[i] + cd / 2)), bw, bh)
                                for i in pick], GROUP_COLOURS[colour], stroke=True)
        mark = max(0.8, min(2.0, 0.05 * bh))         # clear of a second line of text
        front_up = front_aisle(rows) == rows          # faces the aisle before its row
        fill_rects(canvas, [(float(px(x[i] - cw / 2)) + 0.3,
                             float(py(y[i] - cd / 2)) - mark if front_up[i]
                             else float(py(y[i] + cd / 2)), bw - 0.6, mark)
                            for i in range(len(x))], FRONT_MARK)
        fill_rects(canvas, [(float(px(m.x_m)) - bw / 2, float(py(m.y_m)) - bh / 2, bw, bh)
                            for m in here.itertuples(index=False)], PATCH_RACK_FILL, stroke=True)
        trays = room.cross_x
        t0, t1 = max(float(trays[0]), xa), min(float(trays[-1]), xb)
        _lines(canvas, [(float(px(t0)), float(py(r * rp)), float(px(t1)), float(py(r * rp)))
                        for r in range(lo, hi + 1)], TRAY_COLOUR, 0.8, "3 2")
        # cross trays drawn across the aisles (over a row they pass above its patch rack)
        spans = [(r * rp - rp + cd / 2, r * rp - cd / 2) for r in range(lo + 1, hi + 1)]
        if lo > 0:
            spans.append((y_top, lo * rp - cd / 2))
        if hi < room.rows - 1:
            spans.append((hi * rp + cd / 2, y_bottom))
        first = [(room.entry_xy[1], -cd / 2)] if lo == 0 else []
        _lines(canvas, [(float(px(t)), float(py(a)), float(px(t)), float(py(b)))
                        for k, t in enumerate(trays.tolist()) if xa <= t < xb
                        for a, b in spans + (first if k == 0 else [])], TRAY_COLOUR, 1.4)
        walls = []
        if xa <= wall_x0 + 1e-9:
            walls.append((wall_x0, y_top, wall_x0, y_bottom))
        if xb >= wall_x1 - 1e-9:
            walls.append((wall_x1, y_top, wall_x1, y_bottom))
        if lo == 0:
            walls.append((xa, y_top, xb, y_top))
        if hi == room.rows - 1:
            walls.append((xa, y_bottom, xb, y_bottom))
        _lines(canvas, [(float(px(a)), float(py(b)), float(px(c)), float(py(d)))
                        for a, b, c, d in walls], (0.2, 0.2, 0.2), 1.6)
        entry_label = None
        ex, ey = room.entry_xy
        if lo == 0 and xa <= ex < xb:
            # in the aisle in front of row A, just inside the entry row's face
            fill_rects(canvas, [(float(px(ex)) - 3.5, float(py(ey)) - 8.0, 7.0, 7.0)],
                       ENTRY_COLOUR)
            link = ("" if room.halls == 1 else " (to the other halls via the corridors)"
                    if floor.hall.links == "grid" else
                    f" (to the other halls, {floor.hall.link_m:g} m)")
            if aisle * scale >= MIN_TEXT_PT + 4.0:
                entry_label = (float(px(ex)) + 5.0, float(py(ey)) - 7.0, "entry" + link)
                text_at(canvas, FONT, MIN_TEXT_PT, [entry_label])
        row_ids = range(lo, hi + 1)
        if rp * scale >= 8.0:
            text_at(canvas, BOLD, 7.0, [(left, float(py(r * rp)) - 2.5, row_letters(r))
                                        for r in row_ids])
        if key is not None:
            _key_marks(canvas, key, px, py, y_top, scale, room, (ax0, ax1), top - 8.0 - 4.0)
            _legend(canvas, left + ROW_LABEL_W, top - FLOOR_HEIGHT + 62.0,
                    width - ROW_LABEL_W, scale, wall_x1 - wall_x0, floor, n_groups, hall=True)
        if not names:
            return
        _aisle_labels(canvas, lo, hi, rp, cd, aisle, px, py, ax1, scale, entry_label,
                      [t for t in trays.tolist() if ax0 <= t <= ax1], ax0)
        kinds = marked["kind"].tolist()
        widths = string_widths(labels + [f"g{g}" for g in groups] + tags + kinds, FONT, 1.0)
        size = min(7.0, NAME_FILL * bw / max(float(widths.max(initial=0.0)), 1e-9), bh * 0.42)
        if size < MIN_TEXT_PT - 1e-9:
            return
        name_w = widths[:len(labels)] * size
        two_lines = bh >= TWO_LINES * size
        name_y = [float(py(v)) + (size * 0.25 if two_lines else -size * 0.35) for v in y]
        text_at(canvas, FONT, size, [(float(px(x[i])) - name_w[i] / 2, name_y[i], labels[i])
                                     for i in range(len(labels))])
        if two_lines:
            gtags = [f"g{g}" for g in groups]
            gw = widths[len(labels):len(labels) + len(gtags)] * size
            text_at(canvas, FONT, size, [(float(px(x[i])) - gw[i] / 2,
                                          float(py(y[i])) - size * 1.1, gtags[i])
                                         for i in range(len(labels))])
        tw = widths[len(labels) + len(groups):len(labels) + len(groups) + len(tags)] * size
        text_at(canvas, FONT, size, [(float(px(m.x_m)) - w / 2, float(py(m.y_m)) + size * 0.25, t)
                                     for m, t, w in zip(here.itertuples(index=False), tags, tw)])
        kw = widths[len(widths) - len(kinds):] * size
        text_at(canvas, FONT, size, [(float(px(xm)) - w / 2, float(py(ym)) - size * 0.35, k)
                                     for xm, ym, k, w in zip(marked["x_m"], marked["y_m"], kinds,
                                                             kw)])
    return draw


def _draw_marked(canvas, marked, px, py, cw: float, cd: float, scale: float) -> None:
    """The marked positions of an existing room (``planner.inputs.floor.positions``) on a
    hall's page: grey boxes hatched with diagonals; their kind is written in by the names."""
    if not len(marked):
        return
    x, y = marked["x_m"].to_numpy(float), marked["y_m"].to_numpy(float)
    fill_rects(canvas, [(float(px(a - cw / 2)), float(py(b + cd / 2)), cw * scale, cd * scale)
                        for a, b in zip(x, y)], MARKED_FILL, stroke=True)
    hatch = []
    for a, b in zip(x, y):
        left, top = float(px(a - cw / 2)), float(py(b - cd / 2))
        w, h = cw * scale, cd * scale
        step = max(w, h) / 4
        for k in range(1, 8):          # 45-degree strokes clipped to the box
            d = k * step
            x0, y0 = left + max(0.0, d - h), top - min(d, h)
            x1, y1 = left + min(d, w), top - max(0.0, d - w)
            if x1 > x0:
                hatch.append((x0, y0, x1, y1))
    _lines(canvas, hatch, MARKED_HATCH, 0.4)


def _aisle_labels(canvas, lo, hi, rp, cd, aisle, px, py, ax1, scale, entry_label,
                  trays=(), ax0=None) -> None:
    """"cold aisle" / "hot aisle" in every aisle of a tile, centred in the widest stretch between
    the cross trays drawn across it, where the aisle is tall enough for ``MIN_TEXT_PT`` type
    (in front of row A right of the entry's label, or left out where they would meet)."""
    from planner.inputs.floor import aisle_is_cold

    if aisle * scale < MIN_TEXT_PT + 4.0:
        return
    stops = sorted({float(px(ax0 if ax0 is not None else ax1)), float(px(ax1))}
                   | {float(px(t)) for t in trays})
    a0, a1 = max(zip(stops, stops[1:]), key=lambda g: g[1] - g[0])
    items = []
    for a in range(lo, hi + 2):
        text = "cold aisle" if aisle_is_cold(a) else "hot aisle"
        w = float(string_widths([text], FONT, MIN_TEXT_PT)[0])
        x = (a0 + a1) / 2 - w / 2
        y = float(py(a * rp - cd / 2 - aisle / 2)) - MIN_TEXT_PT / 3
        if entry_label is not None and a == 0:
            entry_w = float(string_widths([entry_label[2]], FONT, MIN_TEXT_PT)[0])
            x = max(x, entry_label[0] + entry_w + 6.0)
            if x + w > a1 - 2.0:
                continue
        items.append((x, y, text))
    text_at(canvas, FONT, MIN_TEXT_PT, items)


def _key_marks(canvas, tiles, px, py, y_top, scale, room, row_x, label_y: float) -> None:
    """The tiles' dashed outlines on a hall's key page, and above the hall the columns each
    piece along the rows covers (when the rows are split)."""
    floor = room.floor
    rp, cd, aisle = float(floor.row_pitch_m), float(floor.cabinet_depth_m), float(floor.aisle_m)
    if len(tiles) < 2:
        return
    segs = []
    for lo, hi, a, b in tiles:
        t = y_top if lo == 0 else lo * rp - cd / 2 - aisle
        bottom = hi * rp + cd / 2 + aisle
        x0, x1, y0, y1 = (float(px(a)), float(px(b)), float(py(t)), float(py(bottom)))
        segs += [(x0, y0, x1, y0), (x1, y0, x1, y1), (x1, y1, x0, y1), (x0, y1, x0, y0)]
    _lines(canvas, segs, (0.15, 0.15, 0.15), 0.9, "4 2")
    pieces = sorted({(a, b) for _, _, a, b in tiles})
    if len(pieces) < 2:
        return
    from planner.inputs.floor import cabinet_xy

    xs = cabinet_xy(floor, 0, np.arange(room.cols, dtype=float))[0]
    items = []
    for a, b in pieces:
        inside = np.flatnonzero((xs >= a) & (xs < b))
        text = (f"columns {inside.min() + 1}-{inside.max() + 1}" if len(inside)
                else "patch racks")
        w = float(string_widths([text], FONT, MIN_TEXT_PT)[0])
        items.append(((float(px(a)) + float(px(b))) / 2 - w / 2, label_y - MIN_TEXT_PT, text))
    text_at(canvas, FONT, MIN_TEXT_PT, items)


def _nice_length(target: float) -> float:
    """The largest 1-2-5 x 10^k length not above ``target`` (at least 0.5)."""
    if target <= 0.5:
        return 0.5
    exp = 10 ** math.floor(math.log10(target))
    return max(m * exp for m in (1, 2, 5) if m * exp <= target)


def _paper_scale(points_per_m: float) -> int:
    """Map scale denominator: 1 m drawn as ``points_per_m`` points (1 pt = 0.3528 mm)."""
    return int(round(1000.0 / (points_per_m * 25.4 / 72.0)))
