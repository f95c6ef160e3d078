"""What UFM's NDT plugin reports after comparing the fabric with an NDT cabling plan
(``GET ufmRestV2/plugin/ndt/reports/<id>``; the plugin's ``topo_diff.py`` in
Mellanox/ufm_sdk_3.0 ``plugins/UFM_NDT_Plugin``), turned back into the as-built links.

The report lists differences only, each link written ``DEV/PORT - DEV/PORT`` with the NDT's
port numbers, a host's port as its adapter's node description (``n007/n007 mlx5_0`` is port 1
of n007, ``planner.exports.fabric_checkers.hca_port``): ``{"report": {"miss_wired":
[{"expected": L, "actual": L}], "missing_in_ufm": [L], "missing_in_ndt": [L]}}``, or, for a
comparison with ibdiagnet's output, ``{"report": [{"category": "missing in wire" | "missing in
topology" | "missing in ndt", "description": "expected: L. actual: L" | L}]}``. So the as-built
fabric is the plan's cables, less the expected and missing ones, plus the actual and the
unplanned ones. The plugin keeps only the last 10,000 entries of each list: a list that long
may be cut, and is refused.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from planner.run.errors import InputError
from planner.verify.fields import port_number, raw_link
from planner.verify.names import Names
from planner.verify.values import PlannedFabric, RawLink

KEPT = 10_000          # the plugin's report keeps the last 10,000 entries of each list
_CATEGORIES = {"missing in wire": "miss_wired", "missing in topology": "missing_in_ufm",
               "missing in ndt": "missing_in_ndt"}
_NDT_FIELDS = ("StartDevice", "StartPort", "EndDevice", "EndPort")


class ReportLinks(NamedTuple):
    """The report's differences: planned links not seen, seen links not planned."""

    gone: list[RawLink]
    seen: list[RawLink]


def _link(text, where: str) -> RawLink:
    if not isinstance(text, str):
        raise InputError(f"observed {where}: must be a link 'DEV/PORT - DEV/PORT', got "
                         f"{'null' if text is None else type(text).__name__}")
    ends = text.split(" - ")
    if len(ends) != 2 or not all("/" in e for e in ends):
        raise InputError(f"observed {where}: {text[:60]!r} is not a link 'DEV/PORT - DEV/PORT'")
    (dev, _, port), (peer, _, peer_port) = (e.strip().rpartition("/") for e in ends)
    from planner.exports.fabric_checkers import hca_port   # with pandas: not for light commands
    port, peer_port = hca_port(dev, port) or port, hca_port(peer, peer_port) or peer_port
    return raw_link(dev, port, peer, peer_port, where, _NDT_FIELDS)


def _listed(report: dict, key: str, source: str) -> list:
    items = report.get(key, [])
    if not isinstance(items, list):
        raise InputError(f"observed '{source}': 'report.{key}' must be a list, got "
                         f"{type(items).__name__}")
    if len(items) >= KEPT:
        raise InputError(f"observed '{source}': 'report.{key}' holds {len(items):,} entries, "
                         f"the most the NDT plugin keeps, so the report may be cut; verify "
                         f"against ibdiagnet2.net_dump instead")
    return items


def _miswired(item, where: str) -> tuple[RawLink, RawLink]:
    if isinstance(item, dict):
        return _link(item.get("expected"), f"{where}.expected"), \
            _link(item.get("actual"), f"{where}.actual")
    if isinstance(item, str) and item.startswith("expected: ") and ". actual: " in item:
        expected, _, actual = item[len("expected: "):].partition(". actual: ")
        return _link(expected, where), _link(actual, where)
    raise InputError(f"observed {where}: must be {{\"expected\": link, \"actual\": link}} or "
                     f"'expected: link. actual: link'")


def _by_category(items: list, source: str) -> dict[str, list]:
    """The ibdiagnet-comparison report's list, as the three lists of the UFM one."""
    lists = {key: [] for key in _CATEGORIES.values()}
    for k, item in enumerate(items):
        where = f"'{source}' 'report[{k}]'"
        if not isinstance(item, dict) or item.get("category") not in _CATEGORIES:
            raise InputError(f"observed {where}: must be an object with 'category' one of "
                             f"{', '.join(_CATEGORIES)} and a 'description'")
        lists[_CATEGORIES[item["category"]]].append(item.get("description"))
    return lists


def parse_ufm_report(doc, source: str) -> ReportLinks:
    """The differences of an NDT plugin report (parsed JSON)."""
    if isinstance(doc, dict) and doc.get("error"):
        raise InputError(f"observed '{source}': the NDT plugin's comparison failed: "
                         f"{str(doc['error'])[:80]!r}; run the comparison again")
    if not isinstance(doc, dict) or "report" not in doc:
        raise InputError(f"observed '{source}': not a UFM NDT plugin report (no top-level "
                         f"'report' key); save 'GET ufmRestV2/plugin/ndt/reports/<id>'")
    report = doc["report"]
    if isinstance(report, str):                  # "NDT and current topology are fully match"
        return ReportLinks([], [])
    if isinstance(report, list):
        report = _by_category(report, source)
    if not isinstance(report, dict):
        raise InputError(f"observed '{source}': 'report' must be an object or a list, got "
                         f"{type(report).__name__}")
    gone, seen = [], []
    for k, item in enumerate(_listed(report, "miss_wired", source)):
        expected, actual = _miswired(item, f"'{source}' 'report.miss_wired[{k}]'")
        gone.append(expected)
        seen.append(actual)
    gone += [_link(t, f"'{source}' 'report.missing_in_ufm[{k}]'")
             for k, t in enumerate(_listed(report, "missing_in_ufm", source))]
    seen += [_link(t, f"'{source}' 'report.missing_in_ndt[{k}]'")
             for k, t in enumerate(_listed(report, "missing_in_ndt", source))]
    return ReportLinks(gone, seen)


def load_report(text: str, source: str) -> ReportLinks:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"observed '{source}': invalid JSON at line {err.lineno} column "
                         f"{err.colno}: {err.msg}") from None
    except (RecursionError, ValueError) as err:
        raise InputError(f"observed '{source}': JSON not readable ({type(err).__name__}); save "
                         f"the report again") from None
    return parse_ufm_report(doc, source)


def as_built(report: ReportLinks, fabric: PlannedFabric, source: str) -> list[RawLink]:
    """The plan's cables less those the report names as not seen, plus those it saw."""
    names = Names(fabric.cabinet_of)
    gone = set()
    for r in report.gone:
        a, b = (names(r.device), port_number(r.port, r.where)), \
            (names(r.peer_device), port_number(r.peer_port, r.where))
        gone.add(frozenset((a, b)))
    kept = [RawLink(c.a[0], str(c.a[1]), c.b[0], str(c.b[1]), f"'{source}' (planned {c.label})")
            for c in fabric.cables if frozenset((c.a, c.b)) not in gone]
    return kept + report.seen
