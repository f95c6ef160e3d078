"""The observed file: its format (given or detected), the reader for it, and the resolution of
its raw links to deduplicated links between plan devices and port numbers."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from planner.run import guards
from planner.run.errors import InputError
from planner.verify.files import read_text
from planner.verify.ibnetdiscover import parse_ibnetdiscover
from planner.verify.lldp import parse_lldp
from planner.verify.fields import port_number
from planner.verify.names import Names, fmt_end
from planner.verify.observed_csv import parse_csv
from planner.verify.values import CSV_COLUMNS, FORMATS, ObservedLink, PlannedFabric, RawLink


def detect_format(path) -> str:
    """``lldp`` for a directory or JSON, ``csv`` for a .csv or header, else ``ibnetdiscover``
    when node lines are present; InputError otherwise."""
    path = Path(path)
    if path.is_dir():
        return "lldp"
    suffix = path.suffix.lower()
    if suffix == ".json":
        return "lldp"
    if suffix == ".csv":
        return "csv"
    text = read_text(path, "observed")
    if text.lstrip().startswith(("{", "[")):
        return "lldp"
    if re.search(r'^[ \t]*(Switch|Ca|Rt)[ \t]+\d+[ \t]+"[SHR]-', text, re.MULTILINE):
        return "ibnetdiscover"
    first = text.lstrip().split("\n", 1)[0].lower()
    if all(c in first for c in CSV_COLUMNS) and "," in first:
        return "csv"
    raise InputError(f"observed '{path}': cannot tell the format; use --format with one of "
                     f"{', '.join(FORMATS)}")


def read_observed(path, fmt: str | None = None, device: str | None = None) -> list[RawLink]:
    """Raw observed links of a file (or LLDP directory) in ``fmt`` (auto-detected if None)."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"observed '{path}': file not found")
    if not path.is_dir():
        guards.regular_file(path, f"observed '{path}'")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise InputError(f"--format: unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    if fmt == "lldp":
        return parse_lldp(path, device)
    if device:
        raise InputError(f"--device applies only to lldp input; observed '{path}' is {fmt}, "
                         f"which names the devices itself")
    if path.is_dir():
        raise InputError(f"observed '{path}': is a directory; only the lldp format reads a "
                         f"directory of DEVICE.json files")
    text = read_text(path, "observed")
    return parse_csv(text, str(path)) if fmt == "csv" else parse_ibnetdiscover(text, str(path))


def resolve(raw: list[RawLink], fabric: PlannedFabric, ignore=()) -> list[ObservedLink]:
    """Resolve names and port numbers, drop links touching ``ignore`` globs, merge the two
    directions of a link; InputError when one port is reported on two different links."""
    names = Names(fabric.cabinet_of)
    links, peer_of = {}, {}
    for r in raw:
        dev, peer = names(r.device), names(r.peer_device)
        if any(fnmatch.fnmatchcase(d, pat) for pat in ignore for d in (dev, peer)):
            continue
        a, b = (dev, port_number(r.port, r.where)), (peer, port_number(r.peer_port, r.where))
        if a == b:
            raise InputError(f"observed {r.where}: port {fmt_end(a)} is reported connected to "
                             f"itself")
        for x, y in ((a, b), (b, a)):
            seen = peer_of.setdefault(x, (y, r.where))
            if seen[0] != y:
                raise InputError(f"observed {r.where}: port {fmt_end(x)} is reported connected to "
                                 f"{fmt_end(y)} here and to {fmt_end(seen[0])} at {seen[1]}; a "
                                 f"port holds one cable, re-collect the neighbour data")
        key = (a, b) if a <= b else (b, a)
        links.setdefault(key, ObservedLink(key[0], key[1], r.where))
    return list(links.values())
