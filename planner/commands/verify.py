"""``planner verify --plan DIR --observed FILE``: check the as-built cabling against a plan.

Prints one row per physical mistake (kind: swap, wrong-port, wrong-device, missing, extra;
cable label(s), cabinets, expected and observed links) and a summary line. Exit 0 when the
fabric matches, 3 when it does not, 2 for bad input.
Formats: ``planner.verify.observed`` and its readers; matching rules: ``planner.verify.names``
and ``planner.verify.comparison`` (a map of the modules: ``planner.verify``).
"""

from __future__ import annotations

import json

from planner.run.terminal import printable
from planner.verify import FORMATS, SCOPES, VerifyReport, verify

NAME = "verify"
HELP = ("compare an as-built neighbour list (CSV, lldpctl JSON, ibnetdiscover, ibdiagnet "
        "net_dump, UFM NDT report) with a plan")
ORDER = 60
EXIT_MISMATCH = 3
_COLUMNS = ("kind", "label", "a_cabinet", "b_cabinet", "expected", "observed")
_HEADERS = ("KIND", "CABLE", "A CAB", "B CAB", "EXPECTED", "OBSERVED")


def add_arguments(parser) -> None:
    parser.add_argument("--plan", required=True, metavar="DIR",
                        help="plan folder written by 'planner plan' (or its cables.csv)")
    parser.add_argument("--observed", required=True, metavar="FILE",
                        help="as-built neighbours: CSV device,port,peer_device,peer_port; "
                             "'lldpctl -f json' output (one file with --device, a JSON object "
                             "{device: output}, or a directory of DEVICE.json); "
                             "'ibnetdiscover' output; ibdiagnet2.net_dump; or the report of "
                             "UFM's NDT plugin (docs/verify.md)")
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="format of --observed (default: detect from extension/content)")
    parser.add_argument("--device", metavar="NAME", default=None,
                        help="local device of a single lldpctl output file")
    parser.add_argument("--cables", choices=SCOPES, default="all",
                        help="which planned cables to check: all (default), network "
                             "(router-router) or endpoint (router-node)")
    parser.add_argument("--ignore", action="append", default=[], metavar="GLOB",
                        help="drop observed links touching a device matching GLOB, e.g. "
                             "'mgmt*' (repeatable)")
    parser.add_argument("--json", action="store_true",
                        help="print the report as JSON instead of a table")


def format_table(report: VerifyReport) -> str:
    """Aligned text table of the findings (empty string when there are none); device and port
    names as read from the as-built file, with their control characters escaped."""
    if not report.findings:
        return ""
    rows = [_HEADERS] + [tuple(printable(getattr(f, c) or "-") for c in _COLUMNS)
                         for f in report.findings]
    widths = [max(len(r[k]) for r in rows) for k in range(len(_COLUMNS) - 1)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)) + "  " + r[-1]
                     for r in rows)


def run(args) -> int:
    report = verify(args.plan, args.observed, fmt=args.format, device=args.device,
                    scope=args.cables, ignore=tuple(args.ignore))
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        table = format_table(report)
        if table:
            print(table)
        print(f"verify: {printable(report.summary(), None)}")
    return 0 if report.ok else EXIT_MISMATCH
