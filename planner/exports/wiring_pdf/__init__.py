"""``wiring.pdf``: the installer's document (reportlab).

``write(plan, out_dir)`` takes a planned ``Plan`` (topology, floor, cabinets, devices, cables,
bill of materials, summary and, with structured cabling, its trunks) and hands on
``out_dir/wiring.pdf``.

Contents, in order: a cover page with the totals in plain language (routers, cabinets, cables by
kind and media, the pieces to install, the parts to order: the bill of materials section, cost
in every class of the BOM, power), then every ``summary.json`` value; a table of contents; the
floor plan drawn to scale (rows, aisles,
cabinets named ``A01``..., electrical groups coloured, trays, patch racks of structured cabling
where the viewer marks them (``viewer.geometry.patch_rack_marks``), a scale bar); the matrix of
cables between electrical groups (group pairs, five per row, when there are too many groups for
a readable matrix); the bill of materials; on a floor with structured cabling the trunk schedule
(panel port to panel port, part, ordered length, links, label); for a grown plan (``planner
expand``) the work order; on a floor with structured cabling one section per patch rack
(its panels, every used front port with its cord and the device it reaches, every rear port
with its trunk and far panel); then one section per cabinet: its rack elevation (devices by
rack unit, U1 at the bottom) and its schedule, one row per device port with the piece plugged
in there (``planner.cabling.pieces``: the cable, or that end's patch cord to its panel port),
its label, part number, ordered length and transceiver. No text is below ``style.MIN_TEXT_PT``.
Every page has a running header and ``page i of N``; the PDF outline mirrors the contents.

A plan of several halls and more than ``tuning.PER_HALL_MIN_CABINETS`` cabinets (a
single file would pass 30,000 pages) gets one sheet document per hall instead:
``wiring-hall-01.pdf``, ... each with the summary, its contents and that hall's patch racks
and cabinets; wiring.pdf keeps the rest (``document.draw_documents``).

Memory stays bounded on large plans: the schedules are laid out first (column widths and rows
per cabinet, read a chunk of cabinets at a time), their text is made
``tuning.WIRING_CHUNK_SHEETS`` cabinets at a time as the pages are drawn
(``cabinets.ChunkedRows``, ``layout.DeferredTable``), and each page is compressed as soon as
it is drawn (``content_stream.seal_page``); a split plan's halls are built one after another.

Submodules, each importing only ones listed above it:

- ``style``: every size, position, font and colour, with what chose it
- ``content_stream``: raw PDF operators (text objects, rectangles), escaping, font metrics
- ``layout``: ``Table``, ``Figure``, ``Section``, ``Page``; ``paginate``, ``draw_table``
- ``formatting``: values as table text (money, numbers, flattened summary keys)
- ``cover``: title, totals, ``summary.json`` values
- ``contents``: the table of contents
- ``floor_plans``: the floor, or every hall, to scale with legend and scale bar
- ``groups``: cables between electrical groups (matrix or pair list)
- ``bom``: the bill of materials
- ``trunks``: the trunk schedule (structured cabling)
- ``work_order``: a grown plan's cables to remove, move and add (``planner expand``)
- ``cabinets``: per cabinet its rack elevation and the schedule of the pieces at its ports
- ``patch_racks``: per patch rack its panels and the pieces at every used port
- ``document``: the sections in order, paginated and drawn with header, footer and outline
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from planner.exports.split import Part, hall_weights
from planner.exports.tuning import WIRING_OVERVIEW_SHARE
from planner.exports.wiring_pdf.content_stream import (binary_streams, font_ref, pdf_strings,
                                                       string_widths, text_at)
from planner.exports.wiring_pdf.document import (draw_document, draw_documents, draw_hall,
                                                 draw_overview, hall_files, sheet_layout)
from planner.exports.wiring_pdf.floor_plans import floor_section
from planner.exports.wiring_pdf.groups import group_matrix, pair_table
from planner.exports.wiring_pdf.style import (CONTENT_TOP, CONTENT_W, FOOTER_Y, GROUP_COLOURS,
                                              HEADER_Y, MARGIN_X, PAIRS_PER_ROW)

__all__ = ["FILENAME", "write", "parts", "draw_document",
           # the text operators labels.pdf shares (planner/exports/labels.py)
           "binary_streams", "font_ref", "pdf_strings", "string_widths", "text_at",
           # what the tests take from the package itself
           "floor_section", "group_matrix", "pair_table", "CONTENT_TOP", "CONTENT_W",
           "FOOTER_Y", "GROUP_COLOURS", "HEADER_Y", "MARGIN_X", "PAIRS_PER_ROW"]

FILENAME = "wiring.pdf"


def write(plan, out_dir: Path) -> None:
    """Write ``wiring.pdf`` (and on a large plan of several halls ``wiring-hall-NN.pdf``)."""
    with binary_streams():
        draw_documents(plan, Path(out_dir), FILENAME)


def parts(plan) -> list[Part] | None:
    """On a plan split per hall (``document.hall_files``): wiring.pdf, then one part per
    ``wiring-hall-NN.pdf``, each hall weighted by its cabinets and sharing the whole plan's
    sheet layout (``document.sheet_layout``, made once by the first hall part's ``prepare``);
    None for a plan written as one file. The files are ``write``'s."""
    files = hall_files(plan, "wiring")
    if files is None:
        return None
    layout = cache(lambda: sheet_layout(plan))

    def overview(folder: Path) -> None:
        with binary_streams():
            draw_overview(plan, Path(folder) / FILENAME, files)

    def hall(folder: Path, h: int, file: str) -> None:
        with binary_streams():
            draw_hall(plan, Path(folder) / file, h, len(files), layout())

    weights = hall_weights(plan, [h for h, _ in files], 1.0 - WIRING_OVERVIEW_SHARE)
    return [Part(FILENAME, WIRING_OVERVIEW_SHARE, overview)] + [
        Part(file, weight, lambda folder, h=h, file=file: hall(folder, h, file), layout,
             per_hall=True)
        for (h, file), weight in zip(files, weights)]
