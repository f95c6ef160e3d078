"""Tray segments a cable between two cabinets runs along (``routes`` module doc).

The trays of a hall form a grid: a row tray over every row, cross trays across the rows at
both row ends and every ``hall.cross_tray_every`` cabinets. A segment is the piece between two
junctions, numbered by ``tray_code_bases``: a row-tray bay between two cross trays, a
cross-tray span between two rows (span 0 from the hall entry to row A), the connection between
two halls. A cable takes every segment its shortest route runs along: along its row to the
cross tray ``routes.cross_tray`` picks, across the rows in it and along the target row; between
halls along the row to the first cross tray, in it to the entry, through the link and the same
way into the other hall. Every cable leaving a cabinet starts along the bay over that cabinet
(``own_bay``).

One derivation for the failure groups (``planner.performance.failure_groups.tray_groups``)
and the placement search that limits them (``planner.placement.spread``).
"""

from __future__ import annotations

import numpy as np

from planner.inputs.floor.geometry import cabinet_xy
from planner.inputs.floor.halls import Room
from planner.inputs.floor.routes import cross_tray


def tray_code_bases(room: Room) -> tuple[int, int]:
    """(first cross-span code, first hall-link code) of a room's tray segment codes: row bays
    ``(hall * rows + row) * trays + bay`` from 0, cross spans ``span_base + (hall * trays +
    tray) * (rows + 1) + span`` (span 0: entry to row A), hall links ``link_base + a * halls +
    b``."""
    trays, rows, halls = len(room.cross_x), room.rows, room.halls
    span_base = halls * rows * trays
    return span_base, span_base + halls * trays * (rows + 1)


def segment_codes(room: Room) -> int:
    """Number of segment codes of a room (``tray_code_bases``; not all of them exist)."""
    return tray_code_bases(room)[1] + room.halls * room.halls


def own_bay(room: Room, cabinet_hall, cabinet_row, cabinet_col) -> np.ndarray:
    """Code of the row-tray bay over each cabinet."""
    hall, row = np.asarray(cabinet_hall, np.int64), np.asarray(cabinet_row, np.int64)
    x, _ = cabinet_xy(room.floor, row, np.asarray(cabinet_col))
    trays = len(room.cross_x)
    bay = np.clip(np.searchsorted(room.cross_x, x + 1e-9, side="right") - 1, 0, trays - 1)
    return (hall * room.rows + row) * trays + bay


def _bays(cross_x: np.ndarray, x0, x1) -> tuple[np.ndarray, np.ndarray]:
    """First and last row-tray bay (bay k lies between cross trays k and k+1) a run between
    x0 and x1 along a row tray passes."""
    lo, hi = np.minimum(x0, x1), np.maximum(x0, x1)
    first = np.searchsorted(cross_x, lo + 1e-9, side="right") - 1
    last = np.searchsorted(cross_x, hi - 1e-9, side="left") - 1
    return first, np.maximum(first, last)


def _ranges(item, first, last, code) -> tuple[np.ndarray, np.ndarray]:
    """(item, segment code) for every index first..last of every item; ``code(rows, index)``
    names the segment."""
    count = np.maximum(last - first + 1, 0)
    rows = np.repeat(np.arange(len(item)), count)
    offset = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    index = np.repeat(first, count) + offset
    return item[rows], code(rows, index)


def route_segments(room: Room, cabinet_hall, cabinet_row, cabinet_col, cab_a, cab_b,
                   tray=None) -> tuple[np.ndarray, np.ndarray]:
    """(index into ``cab_a``, segment code) of every segment the route between cabinets
    ``cab_a[i]`` and ``cab_b[i]`` runs along (module doc; none when they are one cabinet),
    grouped by route kind, not sorted. ``tray`` (per cable, -1: ``routes.cross_tray``'s) is
    the cross tray a cable between two rows of a hall runs in: a kept cable of a grown plan
    stays in its standing one (``planner.cabling.structured.segment_trays``)."""
    c_hall = np.asarray(cabinet_hall, np.int64)
    c_row = np.asarray(cabinet_row, np.int64)
    c_col = np.asarray(cabinet_col)
    ca, cb = np.asarray(cab_a, np.int64), np.asarray(cab_b, np.int64)
    moving = np.flatnonzero(ca != cb)
    ca, cb = ca[moving], cb[moving]
    ha, hb, ra, rb = c_hall[ca], c_hall[cb], c_row[ca], c_row[cb]
    xa, _ = cabinet_xy(room.floor, ra, c_col[ca])
    xb, _ = cabinet_xy(room.floor, rb, c_col[cb])
    cross_x = room.cross_x
    trays = len(cross_x)
    rows, halls = room.rows, room.halls
    span_base, link_base = tray_code_bases(room)

    def bay(h, r):
        return lambda idx, k: (h[idx] * rows + r[idx]) * trays + k

    def span(h, t):
        return lambda idx, j: span_base + (h[idx] * trays + t[idx]) * (rows + 1) + j

    same_hall, same_row = ha == hb, (ha == hb) & (ra == rb)
    pieces = []
    i = np.flatnonzero(same_row)                          # along one row
    pieces.append(_ranges(moving[i], *_bays(cross_x, xa[i], xb[i]), bay(ha[i], ra[i])))
    i = np.flatnonzero(same_hall & ~same_row)             # row, cross tray, row
    t = cross_tray(room, xa[i], xb[i])
    if tray is not None:
        given = np.asarray(tray, np.int64)[moving[i]]
        t = np.where(given >= 0, given, t)
    tx = cross_x[t]
    pieces.append(_ranges(moving[i], *_bays(cross_x, xa[i], tx), bay(ha[i], ra[i])))
    pieces.append(_ranges(moving[i], *_bays(cross_x, tx, xb[i]), bay(hb[i], rb[i])))
    pieces.append(_ranges(moving[i], np.minimum(ra[i], rb[i]) + 1, np.maximum(ra[i], rb[i]),
                          span(ha[i], t)))
    i = np.flatnonzero(~same_hall)                        # to the entry, link, from the entry
    zero = np.zeros(len(i), np.int64)
    for h, r, x in ((ha[i], ra[i], xa[i]), (hb[i], rb[i], xb[i])):
        pieces.append(_ranges(moving[i], *_bays(cross_x, x, cross_x[0] + zero), bay(h, r)))
        pieces.append(_ranges(moving[i], zero, r, span(h, zero)))
    lo, hi = np.minimum(ha[i], hb[i]), np.maximum(ha[i], hb[i])
    pieces.append((moving[i], link_base + lo * halls + hi))
    item = np.concatenate([p[0] for p in pieces])
    code = np.concatenate([p[1] for p in pieces]).astype(np.int64)
    return item, code


def exit_segments(room: Room, cabinet_hall, cabinet_row, cabinet_col) -> np.ndarray:
    """Per cabinet, the segments other than its own bay that a cable leaving the bay can
    start along: at each of the bay's two cross trays the next bay of the row (if any) and
    the spans of that cross tray above and below the row (span 0 leads to the entry)."""
    own = own_bay(room, cabinet_hall, cabinet_row, cabinet_col)
    trays, rows = len(room.cross_x), room.rows
    bay = own % trays
    row = (own // trays) % rows
    count = np.zeros(len(own), np.int64)
    for tray, nxt in ((bay, bay - 1), (bay + 1, bay + 1)):  # the bay's left, right cross tray
        count += (nxt >= 0) & (nxt < trays - 1)
        count += (row > 0) | ((tray == 0) & (room.halls > 1))   # span above (row A: entry)
        count += row + 1 < rows                                 # span below
    return count
