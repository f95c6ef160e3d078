"""``planner rfq --plan DIR``: the request for quote of a plan (``DIR/rfq.csv`` and
``DIR/rfq.xlsx``), one line per BOM line grouped by manufacturer, supplier columns empty
(``planner.costing.quotes``)."""

from __future__ import annotations

NAME = "rfq"
HELP = "write the request for quote of a plan (rfq.csv, rfq.xlsx) for suppliers to fill in"
ORDER = 55


def add_arguments(parser) -> None:
    parser.add_argument("--plan", required=True, metavar="DIR",
                        help="plan folder written by 'planner plan'")


def check_unfilled(path) -> None:
    """InputError when ``path`` is an rfq sheet someone has filled in (or not an rfq sheet):
    writing the new one would lose it."""
    from planner.costing.quotes import RFQ_BLANK, read_table
    from planner.run.errors import InputError
    if not path.exists():
        return
    try:
        sheet = read_table(path)
        filled = any((sheet[c].astype(str).str.strip() != "").any()
                     for c in RFQ_BLANK if c in sheet.columns)
    except InputError:
        filled = True
    if filled:
        raise InputError(f"--plan: '{path}' exists and is filled in (or is not an rfq sheet); "
                         "move it away before writing a new request for quote")


def _alternatives(folder) -> dict[str, str]:
    """Part number -> equivalent offers not bought, from the plan's ``catalog.yaml`` (none
    without it)."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.catalog.offers import alternatives
    recorded = folder / "catalog.yaml"
    return alternatives(load_catalog(recorded).cables) if recorded.is_file() else {}


def run(args) -> int:
    import openpyxl

    from planner.commands._plan_folder import require, read_bom
    from planner.costing.quotes import rfq_lines
    from planner.exports import bom_xlsx
    from planner.exports.quotes_xlsx import RFQ_CSV, RFQ_XLSX, write_rfq
    folder = require(args.plan, bom_xlsx.FILENAME)
    for name in (RFQ_CSV, RFQ_XLSX):
        check_unfilled(folder / name)
    book = openpyxl.load_workbook(folder / bom_xlsx.FILENAME, read_only=True, data_only=True)
    lines = rfq_lines(read_bom(book), _alternatives(folder))
    files = write_rfq(lines, folder)
    makers = lines["manufacturer"].nunique()
    print(f"{len(lines)} lines from {makers} manufacturers: "
          + ", ".join(str(folder / f) for f in files))
    return 0
