"""The floor plan section, drawn to scale: an overview of the floor with the scale bar and the
group legend, then bands of rows at a readable scale; on a floor with halls the same for every
hall, with hot and cold aisles, cabinet fronts, row and cross trays, walls, the entry and the
patch racks of structured cabling where the viewer marks them
(``viewer.geometry.patch_rack_marks``)."""

from __future__ import annotations

import math

import numpy as np
from reportlab.pdfgen.canvas import Canvas

from planner.exports.viewer.geometry import patch_rack_marks
from planner.exports.wiring_pdf.content_stream import fill_rects, string_widths, text_at
from planner.exports.wiring_pdf.layout import Figure, Section
from planner.exports.wiring_pdf.style import (BOLD, COLD_AISLE, CONTENT_W, DETAIL_MAX_PT_PER_M,
                                              EMPTY_POSITION, END_AISLE, ENTRY_COLOUR,
                                              FLOOR_HEIGHT, FONT, FRONT_MARK, GROUP_COLOURS,
                                              HOT_AISLE, LEGEND_H, PATCH_RACK_FILL, TRAY_COLOUR)


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
        if aisles and aisles[0][3] >= 6.0:
            size = min(6.0, aisles[0][3] * 0.7)
            text_at(canvas, FONT, size, [(a[0] + 2, a[1] + a[3] / 2 - size / 3, "aisle")
                                         for a in aisles])
        bw, bh = cw * scale, cd * scale
        for colour in range(len(GROUP_COLOURS)):
            sel = np.flatnonzero(groups % len(GROUP_COLOURS) == colour)
            fill_rects(canvas, [(px(x[i] - cw / 2), py(y[i] + cd / 2), bw, bh) for i in sel],
                       GROUP_COLOURS[colour], stroke=True)
        widths = string_widths(names, FONT, 1.0)
        size = max(1.5, min(7.0, 0.85 * bw / max(float(widths.max(initial=0.0)), 1e-9),
                            bh * 0.42))
        two_lines = bh >= 2.6 * size
        name_y = [py(v) + (size * 0.25 if two_lines else -size * 0.35) for v in y]
        text_at(canvas, FONT, size, [(px(x[i]) - widths[i] * size / 2, name_y[i], names[i])
                                     for i in range(len(names))])
        if two_lines:
            gsize = size * 0.8
            tags = [f"g{g}" for g in groups]
            gw = string_widths(tags, FONT, gsize)
            text_at(canvas, FONT, gsize, [(px(x[i]) - gw[i] / 2, py(y[i]) - gsize * 1.2, tags[i])
                                          for i in range(len(names))])
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
    """Every hall to scale (hot and cold aisles, cabinets with their fronts and groups, row and
    cross trays, the hall's walls and entry), then bands of rows at a readable scale."""
    from planner.inputs.floor import room_of

    cab = plan.cabinets
    floor = plan.floor
    room = room_of(floor, cab["hall"], cab["row"], cab["col"])
    pitch, ends = float(floor.pitch_m), float(floor.hall.end_aisle_m)
    span_w = room.cols * pitch + 2 * ends
    avail_w = CONTENT_W - 18.0
    overview = min(avail_w / span_w, (FLOOR_HEIGHT - 16.0 - LEGEND_H - 14.0) / room.depth_m)
    detail = min(avail_w / span_w, DETAIL_MAX_PT_PER_M)
    row_pitch = float(floor.row_pitch_m)
    per_page = max(1, int((FLOOR_HEIGHT - 30.0 - float(floor.aisle_m) * detail)
                          // (row_pitch * detail)))
    marks = patch_rack_marks(plan, room)
    blocks = []
    for hall in range(room.halls):
        blocks.append(Figure(FLOOR_HEIGHT, _hall_drawer(plan, room, marks, hall, 0,
                                                        room.rows - 1, overview, legend=True)))
        if detail > 1.5 * overview:
            for lo in range(0, room.rows, per_page):
                hi = min(room.rows, lo + per_page) - 1
                blocks.append(Figure(FLOOR_HEIGHT, _hall_drawer(plan, room, marks, hall, lo, hi,
                                                                detail, legend=False)))
    return Section("Floor plan", blocks, "floor")


def _hall_drawer(plan, room, marks, hall: int, lo: int, hi: int, scale: float, legend: bool):
    """Draw rows ``lo..hi`` of one hall at ``scale`` points per metre (y grows down the page),
    with the patch racks of ``marks`` (``patch_rack_marks``) that stand there."""
    from planner.inputs.floor import aisle_is_cold, front_aisle, row_letters

    floor = plan.floor
    cab = plan.cabinets.reset_index(drop=True)
    pitch, cw, cd = float(floor.pitch_m), float(floor.cabinet_width_m), float(floor.cabinet_depth_m)
    aisle, rp, ends = float(floor.aisle_m), float(floor.row_pitch_m), float(floor.hall.end_aisle_m)
    sel = ((cab["hall"].to_numpy() == hall) & (cab["row"].to_numpy() >= lo)
           & (cab["row"].to_numpy() <= hi))
    x, y = cab["x_m"].to_numpy(float)[sel], cab["y_m"].to_numpy(float)[sel]
    rows, cols = cab["row"].to_numpy(int)[sel], cab["col"].to_numpy(int)[sel]
    groups, names = cab["group"].to_numpy(int)[sel], cab["name"].astype(str).to_numpy()[sel]
    n_groups = int(cab["group"].max()) + 1 if len(cab) else 0
    x_left, x_right = -pitch / 2 - ends, (room.cols - 0.5) * pitch + ends
    row_x0, row_x1 = -pitch / 2, (room.cols - 0.5) * pitch
    y_top, y_bottom = lo * rp - cd / 2 - aisle, hi * rp + cd / 2 + aisle
    marks = marks[(marks["hall"] == hall) & (((marks["row"] >= lo) & (marks["row"] <= hi))
                                             | ((marks["row"] < 0) & (lo == 0)))]
    tag = f"Hall H{hall + 1}" if room.halls > 1 else "Hall"
    caption = (f"{tag}, rows {row_letters(lo)}-{row_letters(hi)}" if (lo, hi) != (0, room.rows - 1)
               else f"{tag}: {room.rows} rows x {room.cols} cabinets, "
                    f"{room.width_m:.1f} x {room.depth_m:.1f} m")

    def draw(canvas: Canvas, left: float, top: float, width: float) -> None:
        label_w = 18.0
        ox = left + label_w + (width - label_w - (x_right - x_left) * scale) / 2

        def px(xm):
            return ox + (np.asarray(xm, dtype=float) - x_left) * scale

        def py(ym):
            return top - 16.0 - (np.asarray(ym, dtype=float) - y_top) * scale

        canvas.setFont(BOLD, 9)
        canvas.drawString(left, top - 8.0, f"{caption}, 1 : {_paper_scale(scale):,}")
        width_pt = (row_x1 - row_x0) * scale
        for cold in (True, False):
            aisles = [a for a in range(lo, hi + 2) if bool(aisle_is_cold(a)) == cold]
            rects = []
            for a in aisles:
                ya = (a - 1) * rp + cd / 2 if a > 0 else -(cd / 2 + aisle)
                yb = a * rp - cd / 2
                rects.append((float(px(row_x0)), float(py(yb)), width_pt, (yb - ya) * scale))
            fill_rects(canvas, rects, COLD_AISLE if cold else HOT_AISLE)
        fill_rects(canvas, [(float(px(x_left)), float(py(y_bottom)), ends * scale,
                             (y_bottom - y_top) * scale),
                            (float(px(row_x1)), float(py(y_bottom)), ends * scale,
                             (y_bottom - y_top) * scale)], END_AISLE)
        if aisle * scale >= 7.0:
            size = min(6.0, aisle * scale * 0.5)
            clear = float(marks["size_m"].iloc[0]) * scale / 2 if len(marks) else 0.0  # of racks
            text_at(canvas, FONT, size, [
                (float(px(row_x0)) + 2.0 + clear, float(py(a * rp - cd / 2 - aisle / 2)) - size / 3,
                 "cold aisle" if aisle_is_cold(a) else "hot aisle") for a in range(lo, hi + 2)])
        bw, bh = cw * scale, cd * scale
        used = set(zip(rows.tolist(), cols.tolist()))
        empty = [(r, c) for r in range(lo, hi + 1) for c in range(room.cols) if (r, c) not in used]
        fill_rects(canvas, [(float(px(c * pitch - cw / 2)), float(py(r * rp + cd / 2)), bw, bh)
                            for r, c in empty], EMPTY_POSITION)
        for colour in range(len(GROUP_COLOURS)):
            pick = np.flatnonzero(groups % len(GROUP_COLOURS) == colour)
            fill_rects(canvas, [(float(px(x[i] - cw / 2)), float(py(y[i] + cd / 2)), bw, bh)
                                for i in pick], GROUP_COLOURS[colour], stroke=True)
        mark = max(0.8, min(2.0, 0.1 * bh))
        front_up = front_aisle(rows) == rows          # faces the aisle before its row
        fill_rects(canvas, [(float(px(x[i] - cw / 2)) + 0.3,
                             float(py(y[i] - cd / 2)) - mark if front_up[i]
                             else float(py(y[i] + cd / 2)), bw - 0.6, mark)
                            for i in range(len(x))], FRONT_MARK)
        row_ids = range(lo, hi + 1)
        trays = room.cross_x
        _lines(canvas, [(float(px(trays[0])), float(py(r * rp)), float(px(trays[-1])),
                         float(py(r * rp))) for r in row_ids], TRAY_COLOUR, 0.8, "3 2")
        y_from = room.entry_xy[1] if lo == 0 else y_top
        _lines(canvas, [(float(px(t)), float(py(y_from if t == trays[0] else lo * rp)),
                         float(px(t)), float(py(hi * rp))) for t in trays], TRAY_COLOUR, 1.4)
        walls = [(x_left, y_top, x_left, y_bottom), (x_right, y_top, x_right, y_bottom)]
        if lo == 0:
            walls.append((x_left, y_top, x_right, y_top))
        if hi == room.rows - 1:
            walls.append((x_left, y_bottom, x_right, y_bottom))
        _lines(canvas, [(float(px(a)), float(py(b)), float(px(c)), float(py(d)))
                        for a, b, c, d in walls], (0.2, 0.2, 0.2), 1.6)
        if len(marks):
            side = float(marks["size_m"].iloc[0]) * scale
            fill_rects(canvas, [(float(px(m.x_m)) - side / 2, float(py(m.y_m)) - side / 2, side,
                                 side) for m in marks.itertuples(index=False)],
                       PATCH_RACK_FILL, stroke=True)
            first = marks[marks["first"]]
            tags = [n + (f" +{h - 1}" if h > 1 else "")
                    for n, h in zip(first["name"], first["here"])]
            tsize = max(2.0, min(5.5, side * 0.8))
            tw = string_widths(tags, FONT, tsize)
            text_at(canvas, FONT, tsize, [
                (float(px(m.x_m)) + (side / 2 + 1.5 if m.inward < 0 else -side / 2 - 1.5 - w),
                 float(py(m.y_m)) - tsize / 3, tag)
                for m, tag, w in zip(first.itertuples(index=False), tags, tw)])
        if lo == 0:
            ex, ey = room.entry_xy
            fill_rects(canvas, [(float(px(ex)) - 3.5, float(py(ey)) - 3.5, 7.0, 7.0)],
                       ENTRY_COLOUR)
            link = "" if room.halls == 1 else f" (to the other halls, {floor.hall.link_m:g} m)"
            text_at(canvas, FONT, 6.0, [(float(px(ex)) + 5.0, float(py(ey)) + 2.0,
                                         "entry" + link)])
        widths = string_widths(names, FONT, 1.0)
        size = max(1.5, min(7.0, 0.85 * bw / max(float(widths.max(initial=0.0)), 1e-9),
                            bh * 0.42))
        two_lines = bh >= 2.6 * size
        name_y = [float(py(v)) + (size * 0.25 if two_lines else -size * 0.35) for v in y]
        text_at(canvas, FONT, size, [(float(px(x[i])) - widths[i] * size / 2, name_y[i], names[i])
                                     for i in range(len(names))])
        if two_lines:
            gsize = size * 0.8
            tags = [f"g{g}" for g in groups]
            gw = string_widths(tags, FONT, gsize)
            text_at(canvas, FONT, gsize, [(float(px(x[i])) - gw[i] / 2,
                                           float(py(y[i])) - gsize * 1.2, tags[i])
                                          for i in range(len(names))])
        text_at(canvas, BOLD, 7.0, [(left, float(py(r * rp)) - 2.5, row_letters(r))
                                    for r in row_ids])
        if legend:
            _legend(canvas, left + label_w, top - FLOOR_HEIGHT + 62.0, width - label_w, scale,
                    x_right - x_left, floor, n_groups, hall=True)
    return draw


def _nice_length(target: float) -> float:
    """The largest 1-2-5 x 10^k length not above ``target`` (at least 0.5)."""
    if target <= 0.5:
        return 0.5
    exp = 10 ** math.floor(math.log10(target))
    return max(m * exp for m in (1, 2, 5) if m * exp <= target)


def _paper_scale(points_per_m: float) -> int:
    """Map scale denominator: 1 m drawn as ``points_per_m`` points (1 pt = 0.3528 mm)."""
    return int(round(1000.0 / (points_per_m * 25.4 / 72.0)))
