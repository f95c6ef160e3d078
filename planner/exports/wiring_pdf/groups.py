"""The cables between electrical groups: a G x G matrix of router-router cable counts, or
the list of group pairs (``pair_table``) when there are more than ``MATRIX_MAX_GROUPS``
groups."""

from __future__ import annotations

import numpy as np
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from planner.exports.wiring_pdf.content_stream import fill_rects, text_at
from planner.exports.wiring_pdf.layout import Figure, Section, Table
from planner.exports.wiring_pdf.style import BOLD, CONTENT_W, FONT, MATRIX_MAX_GROUPS, PAIRS_PER_ROW


def group_matrix(plan) -> np.ndarray:
    """Symmetric G x G counts of router-router cables between electrical groups."""
    net = plan.cables[plan.cables["kind"] == "network"]
    g = int(plan.cabinets["group"].max()) + 1 if len(plan.cabinets) else 0
    m = np.zeros((g, g), dtype=np.int64)
    a = net["group_a"].to_numpy(np.int64)
    b = net["group_b"].to_numpy(np.int64)
    np.add.at(m, (a, b), 1)
    off = m + m.T
    np.fill_diagonal(off, np.diag(m))
    return off


def pair_table(m: np.ndarray) -> Table:
    """Group pairs with cables, ``PAIRS_PER_ROW`` per row (read left to right), for floors with
    too many groups for a matrix: cells ``g3 \u2013 g17: 2`` and ``g3 inside: 4``."""
    iu, ju = np.nonzero(np.triu(m))
    names = np.array([f"g{i}" for i in range(len(m))], dtype=object)
    pairs = np.where(iu == ju, names[iu] + " inside", names[iu] + " \u2013 " + names[ju])
    counts = np.array([f": {k:,}" for k in m[iu, ju].tolist()], dtype=object)
    cells = (pairs + counts).tolist()
    rows = -(-len(cells) // PAIRS_PER_ROW)
    cells += [""] * (rows * PAIRS_PER_ROW - len(cells))
    columns = [cells[k::PAIRS_PER_ROW] for k in range(PAIRS_PER_ROW)]
    return Table(["groups: cables"] * PAIRS_PER_ROW, columns, ["l"] * PAIRS_PER_ROW,
                 size=8.0, leading=10.0).fit()


def groups_section(plan) -> Section:
    m = group_matrix(plan)
    g = len(m)
    optical = int(plan.cables[(plan.cables["kind"] == "network") &
                              (plan.cables["media"] == "optical")].shape[0])
    inter = int(np.triu(m, 1).sum())
    intro = (f"{g} electrical groups; {inter:,} router-router cables run between groups, "
             f"{int(np.trace(m)):,} inside groups; {optical:,} network cables are optical.")

    def draw_intro(canvas: Canvas, x: float, y: float, width: float) -> None:
        canvas.setFont(FONT, 8.5)
        canvas.drawString(x, y - 10, intro)

    blocks: list = [Figure(18.0, draw_intro)]
    if 0 < g <= MATRIX_MAX_GROUPS:
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
        blocks.append(pair_table(m))
    return Section("Cables between electrical groups", blocks, "groups")
