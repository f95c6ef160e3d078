"""Every size, position, type face and colour of ``wiring.pdf`` set once for the whole document,
each with what chose it. Lengths in points (1/72 in), colours RGB in 0..1.

Pages are A4 portrait with margins chosen so that everything printed (header to footer,
523 x 737 pt) also fits US Letter centred, at least 0.37 in from every Letter edge.

Offsets inside one drawing and the type size of one table are written where they are drawn,
in the section modules.
"""

from __future__ import annotations

from reportlab.lib.pagesizes import A4

# ----------------------------------------------------------------------------- page

PAGE_W, PAGE_H = A4
"""A4 portrait (595 x 842 pt): the paper the floor plan's ``1 : n`` scale is stated for."""
MARGIN_X = 36.0
"""Side margins of 0.5 in: the content width (523 pt) leaves 0.62 in either side when the page
is printed centred on US Letter (612 pt wide)."""
CONTENT_TOP = PAGE_H - 72.0
CONTENT_BOTTOM = 72.0
"""The content box runs from 1 in below the top edge to 1 in above the bottom edge: room for the
running header above it and the footer below it."""
CONTENT_W = PAGE_W - 2 * MARGIN_X
"""Width of the content box: the page less both side margins."""
HEADER_Y = PAGE_H - 58.0
FOOTER_Y = 56.0
"""Baselines of the 7 pt running header and footer: from the header's top to the footer's
bottom is 737 pt, so a page printed centred on US Letter (792 pt tall) keeps 0.37 in at top
and bottom (tests/test_exports_wiring_pdf.py checks that it fits)."""

# ----------------------------------------------------------------------------- type and colour

FONT, BOLD, SYMBOL = "Helvetica", "Helvetica-Bold", "Symbol"
"""PDF standard fonts (every reader has them, nothing is embedded): Helvetica for text, its bold
for headings, Symbol only for the arrow of the cable schedules."""

# ColorBrewer Set3 (12 classes): light fills on which black text stays readable; the viewer
# colours groups the same way (docs/viewer.md).
GROUP_COLOURS = [(0.553, 0.827, 0.780), (1.0, 1.0, 0.702), (0.745, 0.729, 0.855),
                 (0.984, 0.502, 0.447), (0.502, 0.694, 0.827), (0.992, 0.706, 0.384),
                 (0.702, 0.871, 0.412), (0.988, 0.804, 0.898), (0.851, 0.851, 0.851),
                 (0.737, 0.502, 0.741), (0.800, 0.922, 0.773), (1.0, 0.929, 0.435)]

# ----------------------------------------------------------------------------- contents

TOC_ROWS = int((CONTENT_TOP - CONTENT_BOTTOM - 40.0) // 9.6)
"""Contents entries per column (68): the content box less 40 pt (the heading band and the first
line's offset) at the 9.6 pt line pitch of the 7.5 pt entries (the pitch is repeated in
``contents._toc_drawer``)."""
TOC_COLS = 3
"""Contents columns: three of 174 pt, room for the longest section title (``Cables between
electrical groups``, 110 pt at 7.5 pt) and its page number; set in the writer's first version,
not tuned since."""

# ----------------------------------------------------------------------------- floor plan

FLOOR_HEIGHT = CONTENT_TOP - CONTENT_BOTTOM - 40.0
"""Height of one floor drawing: the content box less 22 pt under the section heading and 18 pt
spare, so that every drawing (overview, band of rows) fills a page of its own."""
LEGEND_H = 74.0
"""Height kept free under the overview drawing for the scale bar and the group legend: the
scale bar's label tops out 61 pt above the drawing's bottom, plus a 13 pt gap (hall pages keep
14 pt more for their symbol line). Set when a tall floor's overview ran into the legend
(``test_tall_floor_overview_stays_clear_of_the_legend``)."""
MIN_TEXT_PT = 6.0
"""The smallest type on any page: 6 pt (a 2.1 mm body, 1.5 mm Helvetica capitals), the least the
project prints on A4; a hall too wide for its names at this size is tiled over several pages
(``floor_plans.hall_section``), and text that would come out smaller is left out; a table too
wide at its own size shrinks to fit, never below this (``layout.Table.fit``)."""
NAME_FILL = 0.85
"""Share of a cabinet's drawn width its name may take (the rest keeps it clear of the edges)."""
DETAIL_MAX_PT_PER_M = 40.0
"""Detail floor pages are drawn at most at this scale (a 0.6 m cabinet = 24 pt wide, where a
name like ``A01`` prints at the full 7 pt); set in the writer's first version."""

COLD_AISLE, HOT_AISLE = (0.84, 0.91, 0.99), (0.99, 0.86, 0.82)
END_AISLE, EMPTY_POSITION = (0.93, 0.93, 0.93), (0.975, 0.975, 0.975)
FRONT_MARK, TRAY_COLOUR, ENTRY_COLOUR = (0.1, 0.1, 0.1), (0.85, 0.45, 0.05), (0.2, 0.55, 0.2)
"""Hall drawings: light blue and red aisles, grey end aisles and empty positions under black
text, a near-black front mark, an orange tray, a green entry. Picked by eye, no measurement
behind them; the aisle tints are close to, not equal to, the viewer's (#dbeafe, #fee2e2)."""
PATCH_RACK_FILL = (0.93, 0.91, 1.0)   # the viewer's patch-rack violet (#ede9fe)

# ----------------------------------------------------------------------------- group cables

MATRIX_MAX_GROUPS = 40
"""Largest number of electrical groups drawn as a G x G matrix; more get the pair list. At 40
groups a cell is 12.3 pt: counts up to 999 print at 6.6 pt or more and the bold ``g39``
headings (11.4 pt wide) still fit their cells (computed from the font metrics, not measured on
printed pages); set in the writer's first version."""
PAIRS_PER_ROW = 5
"""Group pairs per row of the pair list: five columns of 105 pt, room for a cell as long as
``g123 \u2013 g456: 12,345`` (78 pt at 8 pt); not tuned further."""

# ----------------------------------------------------------------------------- cabinets

SCHEDULE_SIZE, SCHEDULE_LEADING = 8.0, 10.0
"""Schedule type: 8 pt (7.5 pt when an A4 page is printed on Letter), smaller only when the
widest cells would not fit the page width (``Table.fit``)."""
