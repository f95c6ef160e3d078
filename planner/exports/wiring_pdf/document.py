"""The whole document: every section in order, paginated (``build_pages``), and the canvas that
draws them (``draw_document``) with the running header, ``page i of N``, bookmarks and the PDF
outline. The canvas runs in reportlab's invariant mode (no timestamps or random ids): the same
plan gives the same bytes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from planner.exports.wiring_pdf.bom import bom_section
from planner.exports.wiring_pdf.cabinets import (cabinet_racks, cabinet_sections,
                                                 schedule_source)
from planner.exports.wiring_pdf.content_stream import seal_page, text_at
from planner.exports.wiring_pdf.contents import toc_chunks, toc_page_count
from planner.exports.wiring_pdf.cover import cover_section
from planner.exports.wiring_pdf.floor_plans import floor_section
from planner.exports.wiring_pdf.groups import groups_section
from planner.exports.tuning import PER_HALL_MIN_CABINETS
from planner.exports.wiring_pdf.layout import Figure, Page, Section, draw_table, paginate
from planner.exports.wiring_pdf.patch_racks import patch_rack_sections, port_source
from planner.exports.wiring_pdf.style import (BOLD, CONTENT_TOP, CONTENT_W, FONT, FOOTER_Y,
                                              HEADER_Y, MARGIN_X, PAGE_W)
from planner.exports.wiring_pdf.trunks import trunks_section
from planner.exports.wiring_pdf.work_order import work_order_section


GROUPS = (("Patch racks", "racks"), ("Cabinets", "cabinets"))
"""Outline entries over the per-rack and per-cabinet sheets, in document order."""


def sheet_groups(plan, hall: "HallSheets | None" = None
                 ) -> list[tuple[tuple[str, str], list[Section]]]:
    """The per-rack and per-cabinet sheets under their outline entries (``GROUPS``): of the whole
    plan, or with ``hall`` of that hall only, laid out as the whole plan's."""
    if hall is None:
        sheets = (patch_rack_sections(plan), cabinet_sections(plan))
    else:
        layout = hall.layout
        sheets = (patch_rack_sections(plan, hall.racks, layout.ports),
                  cabinet_sections(plan, hall.cabinets, layout.schedule, layout.racks,
                                   layout.labels))
    groups = list(zip(GROUPS, sheets))
    for group, sheets in groups:
        for sheet in sheets:
            sheet.group = group
    return groups


def build_pages(plan, body: bool = True, groups=None) -> list[Page]:
    """All pages in order: summary, contents, floor plan, group cables, BOM, trunks (structured
    cabling), work order (a grown plan), patch racks (structured cabling), cabinets. Without ``body`` the sheets' document
    of one hall: summary, contents, its patch racks and cabinets. ``groups``: the sheets
    (default ``sheet_groups``)."""
    front_pages = paginate([cover_section(plan)])
    body = ([floor_section(plan), groups_section(plan), bom_section(plan),
             trunks_section(plan), work_order_section(plan)] if body else [])
    body = [section for section in body if section is not None]
    groups = sheet_groups(plan) if groups is None else groups
    sheets = [sheet for _, group_sheets in groups for sheet in group_sheets]
    body_pages = paginate(body + sheets)
    n_entries = (1 + len(body) + sum(1 for _, group_sheets in groups if group_sheets)
                 + len(sheets))
    first_body = len(front_pages) + toc_page_count(n_entries) + 1
    start_page: dict[str, int] = {}
    for k, page in enumerate(body_pages):
        start_page.setdefault(page.section.key, first_body + k)
    entries = [("Summary", 0, 1, "summary")]
    entries += [(s.title, 0, start_page[s.key], s.key) for s in body]
    for (title, key), group_sheets in groups:
        if group_sheets:
            entries.append((title, 0, start_page[group_sheets[0].key], key))
            entries += [(s.title, 1, start_page[s.key], s.key) for s in group_sheets]
    return front_pages + paginate(toc_chunks(entries)) + body_pages


def hall_files(plan, stem: str) -> list[tuple[int, str]] | None:
    """(hall, file name) of per-hall documents ``STEM-hall-01.pdf``... when the plan has more
    than one hall and more than ``tuning.PER_HALL_MIN_CABINETS`` cabinets; else None (one
    file for the whole plan)."""
    halls = sorted(int(h) for h in plan.cabinets["hall"].unique()) if len(plan.cabinets) else []
    if len(halls) < 2 or len(plan.cabinets) <= PER_HALL_MIN_CABINETS:
        return None
    return [(h, f"{stem}-hall-{h + 1:02d}.pdf") for h in halls]


@dataclass
class SheetLayout:
    """What the per-hall documents share, each made once: the schedules' and the port tables'
    ``ChunkedRows.survey`` over every hall (column widths, rows per cabinet or rack), the
    cabinets' ``Rack``s and the assemblies' labels."""

    schedule: tuple
    ports: tuple
    racks: list
    labels: pd.Series


@dataclass
class HallSheets:
    """One hall's cabinets and patch racks, by name, and the ``SheetLayout`` of all halls."""

    cabinets: list[str]
    racks: list[str]
    layout: SheetLayout


def sheet_layout(plan) -> SheetLayout:
    """The ``SheetLayout`` every hall's document shares (surveys every cabinet and rack)."""
    cab = plan.cabinets
    ports: tuple = (None, {})
    if plan.structured is not None and not plan.structured.racks.empty:
        ports = port_source(plan, plan.structured.racks["name"].astype(str).tolist()).survey()
    labels = plan.pieces.assembly_labels()
    return SheetLayout(schedule_source(plan, cab["name"].astype(str).tolist(), labels).survey(),
                       ports, cabinet_racks(plan), labels)


def hall_sheets(plan, halls: list[int], layout: SheetLayout | None = None) -> list[HallSheets]:
    """Per hall of ``halls`` its cabinets and patch racks, with the layout they share
    (``sheet_layout``, made when not given)."""
    cab = plan.cabinets
    cabinets = [cab["name"].astype(str)[cab["hall"].to_numpy() == h].tolist() for h in halls]
    racks: list[list[str]] = [[] for _ in halls]
    if plan.structured is not None and not plan.structured.racks.empty:
        r = plan.structured.racks
        racks = [r["name"].astype(str)[r["hall"].to_numpy() == h].tolist() for h in halls]
    layout = sheet_layout(plan) if layout is None else layout
    return [HallSheets(c, r, layout) for c, r in zip(cabinets, racks)]


def place_halls(plan) -> dict[str, int]:
    """Hall of every cabinet and patch rack, by name."""
    out = {str(n): int(h) for n, h in zip(plan.cabinets["name"], plan.cabinets["hall"])}
    if plan.structured is not None:
        racks = plan.structured.racks
        out.update({str(n): int(h) for n, h in zip(racks["name"], racks["hall"])})
    return out


def draw_documents(plan, folder: Path, name: str) -> list[str]:
    """``name`` (wiring.pdf), and with ``hall_files`` the sheets of each hall in their own
    file: wiring.pdf then holds the summary, floor plan, group cables, BOM and trunks and the
    hall files the patch racks and cabinets. Each hall's sheets are made, drawn and let go
    before the next hall's. The file names written."""
    files = hall_files(plan, Path(name).stem)
    if files is None:
        draw_document(plan, folder / name)
        return [name]
    draw_overview(plan, folder / name, files)
    layout = sheet_layout(plan)
    for hall, file in files:
        draw_hall(plan, folder / file, hall, len(files), layout)
    return [name] + [file for _, file in files]


def draw_overview(plan, path: Path, files: list[tuple[int, str]]) -> int:
    """wiring.pdf of a plan whose sheets are in the hall ``files``: every section but the
    patch-rack and cabinet sheets; the page count."""
    return draw_document(plan, path, build_pages(plan, groups=[(g, []) for g in GROUPS]),
                         f" - sheets per hall in {files[0][1]} to {files[-1][1]}")


def draw_hall(plan, path: Path, hall: int, halls: int, layout: SheetLayout) -> int:
    """The sheets' document of ``hall`` (0-based, of ``halls``): summary, contents, its patch
    racks and cabinets, laid out by the whole plan's ``layout``; the page count."""
    sheets = hall_sheets(plan, [hall], layout)[0]
    pages = build_pages(plan, body=False, groups=sheet_groups(plan, sheets))
    return draw_document(plan, path, pages, f" - hall {hall + 1} of {halls}")


def draw_document(plan, path: Path, pages: list[Page] | None = None, part: str = "") -> int:
    """Render the PDF of ``pages`` (default: ``build_pages``, the whole document), ``part``
    ending its title; returns the page count."""
    pages = build_pages(plan) if pages is None else pages
    total = len(pages)
    top = plan.topology
    title = (f"Wiring plan - {top.family} - {top.num_routers:,} routers, "
             f"{top.num_endpoints:,} endpoints, {len(plan.cabinets):,} cabinets{part}")
    canvas = Canvas(str(path), pagesize=A4, pageCompression=1, invariant=1)
    canvas.setTitle(title)
    canvas.setAuthor("planner")
    canvas.setSubject("floor plan, cabinet elevations and cable schedules")
    previous, groups_started = None, set()
    for number, page in enumerate(pages, start=1):
        section = page.section
        first = section is not previous
        previous = section
        if first and section.toc:
            canvas.bookmarkPage(section.key)
            if section.group is not None and section.group not in groups_started:
                group_title, group_key = section.group
                canvas.bookmarkPage(group_key)
                canvas.addOutlineEntry(group_title, group_key, level=0)
                groups_started.add(section.group)
            canvas.addOutlineEntry(section.title, section.key, level=section.level)
        label = f"page {number} of {total}"
        text_at(canvas, FONT, 7.0, [
            (MARGIN_X, HEADER_Y, title),
            (MARGIN_X, FOOTER_Y, f"planner - catalog {plan.catalog.name}, floor {plan.floor.name}"),
            (PAGE_W - MARGIN_X - stringWidth(label, FONT, 7.0), FOOTER_Y, label)])
        canvas.setFont(BOLD, 13)
        canvas.drawString(MARGIN_X, CONTENT_TOP - 10.0,
                          section.title + ("" if first else " (continued)"))
        for placed in page.items:
            if isinstance(placed.block, Figure):
                placed.block.draw(canvas, MARGIN_X, placed.y_top, CONTENT_W)
            else:
                draw_table(canvas, placed)
        canvas.showPage()
        seal_page(canvas)
    canvas.save()
    return total
