"""The cables between electrical groups: a G x G matrix of router-router cable counts, or
the list of group pairs (``pair_table``) when there are more than ``MATRIX_MAX_GROUPS``
groups. The counts are kept per pair that has cables (``GroupPairs``): a dense G x G array of
the 1M Dragonfly's 17,864 groups would take 2.5 GB, two of them (the matrix and its
transpose summed) most of the 7.5 GB its wiring.pdf writer peaked at."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from planner.exports.wiring_pdf.content_stream import fill_rects, text_at
from planner.exports.wiring_pdf.layout import Figure, Section, Table
from planner.exports.wiring_pdf.style import BOLD, CONTENT_W, FONT, MATRIX_MAX_GROUPS, PAIRS_PER_ROW


class GroupPairs(NamedTuple):
    """Router-router cables per pair of electrical groups ``lo <= hi`` that has any, sorted
    by (lo, hi); ``groups`` the number of groups."""

    groups: int
    lo: np.ndarray
    hi: np.ndarray
    cables: np.ndarray


def group_pairs(plan) -> GroupPairs:
    """The router-router cables of ``plan`` counted per group pair (``GroupPairs``)."""
    net = plan.cables[plan.cables["kind"] == "network"]
    g = int(plan.cabinets["group"].max()) + 1 if len(plan.cabinets) else 0
    a = net["group_a"].to_numpy(np.int64)
    b = net["group_b"].to_numpy(np.int64)
    key, cables = np.unique(np.minimum(a, b) * max(g, 1) + np.maximum(a, b),
                            return_counts=True)
    return GroupPairs(g, key // max(g, 1), key % max(g, 1), cables.astype(np.int64))


def group_matrix(plan) -> np.ndarray:
    """Symmetric G x G counts of router-router cables between electrical groups (for the
    drawn matrix: at most ``MATRIX_MAX_GROUPS`` groups)."""
    return _matrix(group_pairs(plan))


def _matrix(pairs: GroupPairs) -> np.ndarray:
    m = np.zeros((pairs.groups, pairs.groups), dtype=np.int64)
    m[pairs.lo, pairs.hi] = pairs.cables
    m[pairs.hi, pairs.lo] = pairs.cables
    return m


def pair_table(pairs: GroupPairs) -> Table:
    """Group pairs with cables, ``PAIRS_PER_ROW`` per row (read left to right), for floors with
    too many groups for a matrix: cells ``g3 \u2013 g17: 2`` and ``g3 inside: 4``."""
    iu, ju = pairs.lo, pairs.hi
    names = np.array([f"g{i}" for i in range(pairs.groups)], dtype=object)
    text = np.where(iu == ju, names[iu] + " inside", names[iu] + " \u2013 " + names[ju])
    counts = np.array([f": {k:,}" for k in pairs.cables.tolist()], dtype=object)
    cells = (text + counts).tolist()
    rows = -(-len(cells) // PAIRS_PER_ROW)
    cells += [""] * (rows * PAIRS_PER_ROW - len(cells))
    columns = [cells[k::PAIRS_PER_ROW] for k in range(PAIRS_PER_ROW)]
    return Table(["groups: cables"] * PAIRS_PER_ROW, columns, ["l"] * PAIRS_PER_ROW,
                 size=8.0, leading=10.0).fit()


def groups_section(plan) -> Section:
    pairs = group_pairs(plan)
    g = pairs.groups
    optical = int(plan.cables[(plan.cables["kind"] == "network") &
                              (plan.cables["media"] == "optical")].shape[0])
    inside = pairs.lo == pairs.hi
    inter = int(pairs.cables[~inside].sum())
    intro = (f"{g} electrical groups; {inter:,} router-router cables run between groups, "
             f"{int(pairs.cables[inside].sum()):,} inside groups; {optical:,} network cables "
             "are optical.")

    def draw_intro(canvas: Canvas, x: float, y: float, width: float) -> None:
        canvas.setFont(FONT, 8.5)
        canvas.drawString(x, y - 10, intro)

    blocks: list = [Figure(18.0, draw_intro)]
    if 0 < g <= MATRIX_MAX_GROUPS:
        m = _matrix(pairs)
        cell = min(24.0, (CONTENT_W - 20.0) / (g + 1))
        size = min(7.0, cell * 0.9 / max(stringWidth(str(m.max()), FONT, 1.0), 1.0), cell * 0.6)

        def draw_matrix(canvas: Canvas, x: float, y: float, width: float) -> None:
            heads = [(x + (j + 1) * cell + 1, y - cell * 0.7, f"g{j}") for j in range(g)]
            heads += [(x + 1, y - (i + 1) * cell - cell * 0.7, f"g{i}") for i in range(g)]
            fill_rects(canvas, [(x + (i + 1) * cell, y - (i + 2) * cell, cell, cell)
                                for i in range(g)], (0.85, 0.93, 0.85))
            fill_rects(canvas, [(x + (j + 1) * cell, y - (i + 2) * cell, cell, cell)
                                for i in range(g) for j in range(g) if i != j and m[i, j]],
                       (0.99, 0.90, 0.80))
            text_at(canvas, BOLD, size, heads)
            text_at(canvas, FONT, size, [(x + (j + 1) * cell + 1, y - (i + 1) * cell - cell * 0.7,
                                          str(m[i, j])) for i in range(g) for j in range(g)
                                         if m[i, j]])
            canvas.setFont(FONT, 7)
            canvas.drawString(x, y - (g + 1) * cell - 12, "Cells: router-router cables between "
                              "the two groups (diagonal: inside the group).")
        blocks.append(Figure((g + 1) * cell + 16.0, draw_matrix))
    else:
        blocks.append(pair_table(pairs))
    return Section("Cables between electrical groups", blocks, "groups")
