"""``planner verify`` on as-built files from the field (issue 29, items 4 and 6), and on what the
fabric's own checkers report (issue 28, item 8).

1. Hostile and broken as-built files, one row each: lists holding numbers, strings or null
   where lldpctl prints objects, a CSV field over the csv module's limit, 23-digit
   ports, 30 KB port fields and 40 KB device names, truncated ibdiagnet and UFM reports. Each
   runs the real command line and must give exit 2, exactly one line on stderr naming the
   file, the line (or JSON path) and the field, nothing on stdout, no traceback, and leave the
   workspace as it was. The long fields are parsed by single scans (``planner.verify.fields``);
   their times before and after are in ``benchmarks/VERIFY.md``.
2. Blame: a hand-made six-cable plan and as-built fabrics where a link could be read as one
   cable's wrong port or another's wrong device; the expected finding is written by hand.
3. The fabric's checkers: the NDT files and ``ibdiagnet.topo`` of a real plan are read back
   the way UFM's NDT plugin and IBDM read them, then an as-built fabric with a swapped pair and
   a moved cable is turned into what those tools report (the NDT plugin's comparison, an
   ``ibdiagnet2.net_dump``) and ``planner verify`` must blame exactly those cables.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from planner import exports
from planner.cli import main
from planner.exports import cables_csv, fabric_checkers
from planner.plan import plan
from planner.topologies.slimfly import slimfly
from planner.verify import compare, detect_format, load_plan, read_observed, resolve, verify

FIXTURES = Path(__file__).parent / "fixtures" / "verify"
HOSTILE = FIXTURES / "hostile"


def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(["verify", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def snapshot(root: Path) -> dict[str, object]:
    state = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        state[rel] = ("dir",) if path.is_dir() else ("file", path.read_bytes(),
                                                       stat.S_IMODE(path.stat().st_mode))
    return state


# ----------------------------------------------------------------------------- 1. hostile files

def _csv_row(device="r00", port="swp1", peer="r01", peer_port="swp1") -> str:
    return f"device,port,peer_device,peer_port\n{device},{port},{peer},{peer_port}\n"


def _lldp(ifname="swp1", chassis="r01", port="swp1") -> str:
    return json.dumps({"lldp": {"interface": {ifname: {
        "chassis": {chassis: {"id": {"type": "mac", "value": "0c:42:a1:00:00:01"}}},
        "port": {"id": {"type": "ifname", "value": port}}}}}})


def _ibnetdiscover(port_line: str, description: str = "MF0;r00:MQM8700/U1") -> str:
    return (f'Switch\t41 "S-b83fd20300000000"\t\t# "{description}" enhanced port 0 lid 1 lmc 0\n'
            f"{port_line}\n")


_IB_PORT = '[1]\t"S-b83fd20300000001"[1]\t\t# "MF0;r01:MQM8700/U1" lid 2 4xHDR'


@dataclass(frozen=True)
class Case:
    """An observed file (a fixture in ``hostile/`` or generated text) and the words the one
    error line must hold; ``plan`` replaces the plan's cables.csv."""

    observed: str | Callable[[], str]
    words: tuple[str, ...]
    name: str = "observed.txt"
    options: tuple[str, ...] = ()
    plan: Callable[[str], str] | None = None


def _plan_with(row_edit: Callable[[list[str]], None]) -> Callable[[str], str]:
    def edit(text: str) -> str:
        lines = text.splitlines()
        cells = lines[1].split(",")
        row_edit(cells)
        lines[1] = ",".join(cells)
        return "\n".join(lines) + "\n"
    return edit


def _set(index: int, value: str) -> Callable[[list[str]], None]:
    def put(cells: list[str]) -> None:
        cells[index] = value
    return put


CASES: dict[str, Case] = {
    # --- CSV
    "csv field over the csv module's limit": Case(
        lambda: _csv_row(port="1" * 200_000), ("line 2", "not readable as CSV",
                                               "field larger than field limit"), "o.csv"),
    "csv 23-digit port": Case("csv_23_digit_port.csv", ("csv_23_digit_port.csv' line 3",
                                                        "field 'peer_port'", "above 65,535")),
    "csv 30 KB port field": Case(lambda: _csv_row(port="1" * 15_000 + "/" + "2" * 15_000 + "x"),
                                 ("o.csv' line 2", "field 'port'", "30,002 characters",
                                  "at most 255"), "o.csv"),
    "csv 40 KB device name": Case(lambda: _csv_row(device="r" + "0" * 40_000 + "x"),
                                  ("o.csv' line 2", "field 'device'", "40,002 characters"),
                                  "o.csv"),
    "csv line after a quoted line break": Case(
        "csv_quoted_line_break.csv", ("csv_quoted_line_break.csv' line 4",
                                      "field 'peer_device' is empty")),
    "csv port without a number": Case(lambda: _csv_row(peer_port="uplink"),
                                      ("o.csv' line 2", "field 'peer_port'", "no port number"),
                                      "o.csv"),
    # --- LLDP JSON: types where lldpctl prints objects, sizes
    "lldp interface list of numbers": Case(
        "lldp_interfaces_numbers.json", ("lldp_interfaces_numbers.json' (device r00)",
                                         "'lldp.interface[0]'", "must be an object", "got int"),
        options=("--device", "r00")),
    "lldp interface list of strings": Case(
        "lldp_interfaces_strings.json", ("'lldp.interface[0]'", "got str"),
        options=("--device", "r00")),
    "lldp interface list of null": Case(
        "lldp_interfaces_null.json", ("'lldp.interface[0]'", "got null"),
        options=("--device", "r00")),
    "lldp json0 block null": Case("lldp_json0_block_null.json", ("'lldp[0]'", "got null"),
                                  options=("--device", "r00")),
    "lldp json0 interface name a number": Case(
        "lldp_json0_interface_number.json", ("'lldp[0].interface[0]'",
                                             "field 'interface name' must be text", "got int"),
        options=("--device", "r00")),
    "lldp chassis list of numbers": Case(
        "lldp_chassis_numbers.json", ("'lldp.interface.swp1.chassis[0]'", "got int"),
        options=("--device", "r00")),
    "lldp port id a number": Case("lldp_port_id_number.json",
                                  ("'lldp.interface.swp1.port'", "no port number"),
                                  options=("--device", "r00")),
    "lldp port null": Case("lldp_port_null.json", ("'lldp.interface.swp1.port'",
                                                   "must be an object", "got null"),
                           options=("--device", "r00")),
    "lldp port 23 digits": Case("lldp_port_23_digits.json",
                                ("'lldp.interface.swp1'", "field 'port id'", "above 65,535"),
                                options=("--device", "r00")),
    "lldp map entry null": Case("lldp_map_device_null.json",
                                ("lldp_map_device_null.json' (device r00)", "no top-level 'lldp'")),
    "lldp 40 KB chassis name": Case(lambda: _lldp(chassis="r" + "1" * 40_000),
                                    ("'lldp.interface.swp1'", "field 'chassis name'",
                                     "40,001 characters"), "o.json", ("--device", "r00")),
    "lldp 30 KB interface name": Case(lambda: _lldp(ifname="swp" + "9" * 30_000),
                                      ("field 'interface name'", "30,003 characters"), "o.json",
                                      ("--device", "r00")),
    "lldp 4,301-digit number": Case(lambda: '{"lldp": {"x": ' + "9" * 4_301 + "}}",
                                    ("o.json'", "JSON value not readable"), "o.json",
                                    ("--device", "r00")),
    # --- ibnetdiscover
    "ibnetdiscover 30 KB of blanks in a port line": Case(
        lambda: _ibnetdiscover('[1]\t"S-b83fd20300000001"[1]' + " " * 30_000 + "x"),
        ("o.txt' line 2", "cannot read ibnetdiscover port line"), "o.txt",
        ("--format", "ibnetdiscover")),
    "ibnetdiscover 40 KB node description": Case(
        lambda: _ibnetdiscover(_IB_PORT, description="n" * 40_000 + " mlx5_0"),
        ("o.txt' line 2", "field 'node description'", "40,000 characters"), "o.txt"),
    "ibnetdiscover 23-digit port": Case("ibnetdiscover_23_digit_port.txt",
                                        ("line 2", "field 'port'", "above 65,535")),
    # --- ibdiagnet2.net_dump
    "net_dump line cut short": Case("net_dump_short_line.net_dump",
                                    ("net_dump_short_line.net_dump' line 2",
                                     "6 ':'-separated columns", "expected 12")),
    "net_dump port line first": Case("net_dump_port_before_node.net_dump",
                                     ("line 2", "port line before any node line")),
    "net_dump 23-digit port": Case("net_dump_23_digit_port.net_dump",
                                   ("line 2", "field 'IB#'", "above 65,535")),
    # --- UFM NDT plugin reports
    "ufm report list of numbers": Case("ufm_report_numbers.json",
                                       ("'report.missing_in_ufm[0]'", "must be a link",
                                        "got int")),
    "ufm report miswired null": Case("ufm_report_miswired_null.json",
                                     ("'report.miss_wired[0]'", "\"expected\": link")),
    "ufm report not a link": Case("ufm_report_not_a_link.json",
                                  ("'report.missing_in_ndt[0]'",
                                   "not a link 'DEV/PORT - DEV/PORT'")),
    "ufm report of a failed comparison": Case("ufm_report_failed.json",
                                              ("comparison failed", "status_code: 500",
                                               "run the comparison again"),
                                              options=("--format", "ufm-ndt-report")),
    "ufm report unknown category": Case("ufm_report_category_unknown.json",
                                        ("'report[0]'", "'category' one of")),
    "ufm report cut at 10,000 entries": Case(
        lambda: json.dumps({"error": "", "report": {
            "miss_wired": [], "missing_in_ndt": [],
            "missing_in_ufm": [f"r00/{k % 60000} - r01/1" for k in range(10_000)]}}),
        ("'report.missing_in_ufm' holds 10,000 entries", "may be cut",
         "ibdiagnet2.net_dump"), "o.json"),
    # --- the plan's cables.csv, hand-edited
    "plan 23-digit port": Case(lambda: _csv_row(), ("plan ", "line 2", "field 'a_port'",
                                                    "up to 65,535"), "o.csv",
                               plan=_plan_with(_set(4, "12345678901234567890123"))),
    "plan 40 KB device name": Case(lambda: _csv_row(), ("line 2", "field 'b_device'",
                                                        "40,001 characters"), "o.csv",
                                   plan=_plan_with(_set(7, "r" + "0" * 40_000))),
}


def test_every_hostile_fixture_is_used():
    named = {c.observed for c in CASES.values() if isinstance(c.observed, str)}
    assert named == {p.name for p in HOSTILE.iterdir()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_observed_file_exits_2_with_one_line(name, tmp_path, capsys, monkeypatch):
    case = CASES[name]
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copy(FIXTURES / "cables.csv", ws / "cables.csv")
    if case.plan is not None:
        (ws / "cables.csv").write_text(case.plan((ws / "cables.csv").read_text()))
    if callable(case.observed):
        observed = ws / case.name
        observed.write_text(case.observed())
    else:
        observed = ws / case.observed
        shutil.copy(HOSTILE / case.observed, observed)
    monkeypatch.chdir(ws)
    before = snapshot(ws)
    code, out, err = _cli(capsys, "--plan", ".", "--observed", observed.name, *case.options)
    assert (code, out) == (2, ""), err
    assert err.startswith("planner verify: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for word in case.words:
        assert word in err, (word, err)
    assert snapshot(ws) == before


# ----------------------------------------------------------------------------- 2. blame

BLAME = FIXTURES / "blame" / "cables.csv"


def _as_built(*, drop=(), add=()):
    """The blame plan's cables as built, less the labels in ``drop``, plus the links ``add``
    (``"r0:1-r1:2"``)."""
    fabric = load_plan(BLAME)
    links = [(c.a, c.b) for c in fabric.cables if c.label not in drop]
    for text in add:
        a, b = (end.split(":") for end in text.split("-"))
        links.append(((a[0], int(a[1])), (b[0], int(b[1]))))
    return links


# Plan: L1 r0:1-r1:1, L2 r0:2-r2:1, L3 r1:2-r3:1, L4 r2:2-r0:5, L5 r0:3-r1:3, L6 r2:3-r3:3.
# Each case: what was built, then the findings (kind, cable labels, expected, observed) a person
# reading the report must see, worked out by hand.
BLAME_CASES = {
    # L1's far end in r1:2 (L3's port; L3 unplugged): L1 missed by a port beats L3 missed by a
    # device.
    "port off on the planned peer, not the neighbour's device": (
        dict(drop=("L1", "L3"), add=("r0:1-r1:2",)),
        [("wrong-port", "L1", "r0:1 - r1:1", "r0:1 - r1:2"),
         ("missing", "L3", "r1:2 - r3:1", "not seen")]),
    # r0:1-r2:2: L1 (r0:1) would be a wrong device, L4 (r2:2, planned to r0:5) a wrong port on
    # r0: the second end's reading wins.
    "the wrong-port reading on the link's second end": (
        dict(drop=("L1", "L4"), add=("r0:1-r2:2",)),
        [("wrong-port", "L4", "r2:2 - r0:5", "r2:2 - r0:1"),
         ("missing", "L1", "r0:1 - r1:1", "not seen")]),
    # r0:1-r1:3 reads as L1 or L5 on a wrong port of r1 / r0: the first in the plan.
    "two wrong-port readings: the first cable in the plan": (
        dict(drop=("L1", "L5"), add=("r0:1-r1:3",)),
        [("wrong-port", "L1", "r0:1 - r1:1", "r0:1 - r1:3"),
         ("missing", "L5", "r0:3 - r1:3", "not seen")]),
    "two wrong-device readings: the first cable in the plan": (
        dict(drop=("L2", "L3"), add=("r0:2-r1:2",)),
        [("wrong-device", "L2", "r0:2 - r2:1", "r0:2 - r1:2"),
         ("missing", "L3", "r1:2 - r3:1", "not seen")]),
    "an end on a free port of another device": (
        dict(drop=("L1",), add=("r0:1-r3:9",)),
        [("wrong-device", "L1", "r0:1 - r1:1", "r0:1 - r3:9")]),
    # L4's a-end (r2:2) moved to r3:7: the observed link is printed planned a-end side first,
    # though r0:5 sorts before r3:7.
    "an end moved off the planned a-end device, printed in plan order": (
        dict(drop=("L4",), add=("r0:5-r3:7",)),
        [("wrong-device", "L4", "r2:2 - r0:5", "r3:7 - r0:5")]),
    "an end on a free port of the planned device": (
        dict(drop=("L6",), add=("r2:3-r3:4",)),
        [("wrong-port", "L6", "r2:3 - r3:3", "r2:3 - r3:4")]),
    "both ports off on the planned pair": (
        dict(drop=("L6",), add=("r3:8-r2:7",)),
        [("wrong-port", "L6", "r2:3 - r3:3", "r2:7 - r3:8")]),
    "both ports off on a pair planned b-end first": (
        dict(drop=("L4",), add=("r0:8-r2:9",)),
        [("wrong-port", "L4", "r2:2 - r0:5", "r2:9 - r0:8")]),
    "two ends exchanged at one device is one swap": (
        dict(drop=("L1", "L5"), add=("r0:1-r1:3", "r0:3-r1:1")),
        [("swap", "L1 + L5", "r0:1 - r1:1, r0:3 - r1:3", "r0:1 - r1:3, r0:3 - r1:1")]),
    "far ends of two cables exchanged is one swap": (
        dict(drop=("L2", "L3"), add=("r0:2-r3:1", "r1:2-r2:1")),
        [("swap", "L2 + L3", "r0:2 - r2:1, r1:2 - r3:1", "r0:2 - r3:1, r1:2 - r2:1")]),
    "a link between free ports": (
        dict(add=("r2:9-r3:9",)), [("extra", "", "not planned", "r2:9 - r3:9")]),
}


@pytest.mark.parametrize("name", sorted(BLAME_CASES))
def test_verify_blames_the_right_cable(name, tmp_path):
    built, expected = BLAME_CASES[name]
    rows = ["device,port,peer_device,peer_port"]
    rows += [f"{a[0]},swp{a[1]},{b[0]},swp{b[1]}" for a, b in _as_built(**built)]
    observed = tmp_path / "asbuilt.csv"
    observed.write_text("\n".join(rows) + "\n")
    report = verify(BLAME, observed)
    assert [(f.kind, f.label, f.expected, f.observed) for f in report.findings] == expected
    assert report.matched == 6 - sum(len(f.label.split(" + ")) for f in report.findings
                                     if f.kind != "extra")


# ----------------------------------------------------------------------------- 3. UFM, ibdiagnet

@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A real plan's cables.csv and the fabric checkers' files."""
    out = tmp_path_factory.mktemp("checkers")
    small = plan(slimfly(3), "modern-100g", "hot-aisle", strategy="hint")
    cables_csv.write(small, out)
    fabric_checkers.write(small, out)
    return out, small


def test_fabric_checkers_is_a_writer_of_every_plan():
    assert "fabric_checkers" in [name for name, _ in exports.writers()]


def ndt_links(path: Path) -> list[dict[str, str]]:
    """An NDT file read as UFM's NDT plugin reads it (``topo_diff.parse_ndt_file``): a
    DictReader, the start device under one of its three header names, switch ports by ``^Port
    (\\d+)$``, a host's port as its adapter's node description ``HOST mlx5_N`` (port N + 1)."""
    rows = []
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            key = next(k for k in ("#StartDevice", "#Fields:StartDevice", "StartDevice")
                       if row.get(k))
            ends = [(row[key], row["StartPort"]), (row["EndDevice"], row["EndPort"])]
            ports = [re.match(rf"^(?:Port (\d+)|{re.escape(dev)} mlx5_(\d+))$", port)
                     for dev, port in ends]
            assert all(ports), row
            numbers = [m.group(1) or str(int(m.group(2)) + 1) for m in ports]
            rows.append(dict(row, start=row[key], start_port=numbers[0], end_port=numbers[1]))
    return rows


@pytest.mark.parametrize("kind", ["network", "endpoint"])
def test_ndt_files_hold_every_cable_as_the_plugin_reads_them(written, kind):
    out, small = written
    rows = ndt_links(out / "ufm" / fabric_checkers.NDT_FILES[kind])
    cables = small.cables[small.cables.kind == kind]
    assert len(rows) == len(cables) > 0
    for row, c in zip(rows, cables.itertuples()):
        assert (row["start"], row["start_port"], row["EndDevice"], row["end_port"]) == \
            (c.a_device, str(c.a_port), c.b_device, str(c.b_port))
        assert (row["LinkType"], row["State"], row["Domain"]) == ("Data", "Active", "In-Scope")
        assert (row["StartDeviceLocation"], row["EndDeviceLocation"], row["rack #"]) == \
            (c.a_cabinet, c.b_cabinet, c.a_cabinet)
        assert float(row["Cable Length"]) == c.order_length_m


def topo_links(path: Path) -> tuple[set, dict[str, str]]:
    """An IBDM topology file read as ``ibdm-topo-file(1)`` defines it: sections of ``TYPE
    NAME`` then ``LOCAL-PORT -> REM-TYPE REM-NAME REM-PORT``, each ended by an empty line."""
    links, types = set(), {}
    for section in path.read_text().split("\n\n"):
        head, *lines = section.strip().split("\n")
        typ, name = head.split()
        types.setdefault(name, typ)
        assert types[name] == typ
        for line in lines:
            local, arrow, rtype, rname, rport = line.split()
            assert arrow == "->" and local[0] == rport[0] == "P"
            assert types.setdefault(rname, rtype) == rtype
            links.add(frozenset(((name, int(local[1:])), (rname, int(rport[1:])))))
    return links, types


def test_topo_file_holds_every_cable_once(written):
    out, small = written
    links, types = topo_links(out / fabric_checkers.TOPO_FILE)
    cables = {frozenset(((c.a_device, c.a_port), (c.b_device, c.b_port)))
              for c in small.cables.itertuples()}
    assert links == cables
    kinds = dict(zip(small.devices.name, small.devices.kind))
    assert {types[n] for n in types if kinds[n] == "router"} == {small.router_model.sku}
    assert {types[n] for n in types if kinds[n] == "endpoint"} == {small.catalog.nic.sku}


def _swap_and_move(links: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    """The as-built fabric: the first two network cables of the plan's first router exchange
    their far ends, and a cable of another router moves to a free port of its far device.
    Returns the as-built links (dev, port, dev, port) and the expected findings."""
    built = list(links)
    first = [k for k, l in enumerate(links) if l[0] == links[0][0] and l[2].startswith("r")]
    i, j = first[:2]
    (da, pa, db, pb), (dc, pc, dd, pd) = links[i], links[j]
    built[i], built[j] = (da, pa, dd, pd), (dc, pc, db, pb)
    k = next(n for n, l in enumerate(links) if l[0] != da and l[2].startswith("r")
             and da not in (l[0], l[2]))
    used = {(l[2], l[3]) for l in links} | {(l[0], l[1]) for l in links}
    free = next(p for p in range(1, 100) if (links[k][2], p) not in used)
    built[k] = links[k][:3] + (free,)
    return built, [i, j, k]


def _plan_links(small) -> list[tuple]:
    return [(c.a_device, c.a_port, c.b_device, c.b_port) for c in small.cables.itertuples()]


def _ufm_compare(ndt: list[tuple], ufm: list[tuple]) -> dict:
    """The NDT plugin's ``compare_topologies`` (topo_diff.py) on link tuples: set differences
    both ways (case-insensitive, either direction), then ``check_miswired`` by start port and
    by end port, the rest missing in UFM or in the NDT. Links print ``dev/port - dev/port``."""
    def key(link):
        return tuple(str(x).upper() for x in link)

    def rev(link):
        return (link[2], link[3], link[0], link[1])

    ndt_keys = {key(l) for l in ndt} | {key(rev(l)) for l in ndt}
    ufm_keys = {key(l) for l in ufm} | {key(rev(l)) for l in ufm}
    ndt_unique = [l for l in ndt if key(l) not in ufm_keys]
    ufm_unique = [l for l in ufm if key(l) not in ndt_keys]
    miss_wired = []
    for port_at in (1, 3):                         # PortType.SOURCE, then DESTINATION
        ufm_by = {(l[0].upper(), l[2].upper(), str(l[port_at])): l for l in ufm_unique}
        for l in list(ndt_unique):
            hit = ufm_by.get((l[0].upper(), l[2].upper(), str(l[port_at])))
            if hit is not None and hit in ufm_unique:
                miss_wired.append({"expected": "{}/{} - {}/{}".format(*l),
                                   "actual": "{}/{} - {}/{}".format(*hit)})
                ndt_unique.remove(l)
                ufm_unique.remove(hit)
    return {"error": "", "timestamp": "2025-03-04 10:20:11", "report": {
        "miss_wired": miss_wired,
        "missing_in_ufm": ["{}/{} - {}/{}".format(*l) for l in ndt_unique],
        "missing_in_ndt": ["{}/{} - {}/{}".format(*l) for l in ufm_unique]}}


def _net_dump(links: list[tuple]) -> str:
    """An ``ibdiagnet2.net_dump`` of the as-built links, every switch port from its side."""
    ports: dict[str, list] = {}
    for a, pa, b, pb in links:
        ports.setdefault(a, []).append((pa, b, pb))
        ports.setdefault(b, []).append((pb, a, pa))

    def desc(name):
        return f"MF0;{name}:MQM8700/U1" if name.startswith("r") else f"{name} mlx5_0"

    lines = ["# This database file was automatically generated by IBDIAG", ""]
    for lid, name in enumerate(sorted(n for n in ports if n.startswith("r")), start=1):
        lines.append(f'"{desc(name)}", Mellanox, 0x{lid:016x}, LID {lid}')
        lines += [f"  {p} : {p} : ACT : LINK UP : 5 : 4x : 50 : MLNX_RS_271_257_PLR : NO-RTR : "
                  f'0x{lid + 1000:016x} : {pp} : 1 : "{desc(peer)}"'
                  for p, peer, pp in sorted(ports[name])]
        lines.append("")
    return "\n".join(lines)


def _findings(report) -> list[tuple[str, str]]:
    return [(f.kind, f.label) for f in report.findings]


@pytest.mark.parametrize("tool", ["ufm-ndt-report", "ibdiagnet-net-dump"])
def test_checkers_report_of_a_miswired_fabric_blames_those_cables(written, tmp_path, tool,
                                                                   capsys):
    out, small = written
    ndt = [(r["start"], r["start_port"], r["EndDevice"], r["end_port"])
           for kind in ("network", "endpoint")
           for r in ndt_links(out / "ufm" / fabric_checkers.NDT_FILES[kind])]
    assert sorted(ndt) == sorted((a, str(pa), b, str(pb)) for a, pa, b, pb in
                                 _plan_links(small))
    built, (i, j, k) = _swap_and_move(_plan_links(small))
    if tool == "ufm-ndt-report":
        observed = tmp_path / "ndt_report.json"
        observed.write_text(json.dumps(_ufm_compare(_plan_links(small), built)))
    else:
        observed = tmp_path / "ibdiagnet2.net_dump"
        observed.write_text(_net_dump(built))
    assert detect_format(observed) == tool
    labels = small.cables.label.tolist()
    code, stdout, _ = _cli(capsys, "--plan", out, "--observed", observed, "--json")
    report = json.loads(stdout)
    assert code == 3
    assert [(f["kind"], f["label"]) for f in report["findings"]] == [
        ("swap", f"{labels[i]} + {labels[j]}"), ("wrong-port", labels[k])]
    assert report["matched"] == len(labels) - 3


def test_ufm_report_fixture_reads_as_the_fabric_it_describes():
    """ufm_report.json: cables 4 and 5 swapped at r07, cable 18 not seen, r04:7-r09:7 extra."""
    fabric = load_plan(FIXTURES)
    report = compare(fabric, resolve(read_observed(FIXTURES / "ufm_report.json",
                                                   fabric=fabric), fabric))
    assert _findings(report) == [("swap", "A01-39:02/A02-39:01 + A01-39:03/A02-39:02"),
                                 ("missing", "A02-35:03/A02-13:01"), ("extra", "")]
    assert report.findings[2].observed == "r04:7 - r09:7"
    assert report.matched == 15


def test_ufm_report_of_ibdiagnet_comparison_and_full_match():
    """The plugin's two other shapes: the ibdiagnet comparison's category list, and the plain
    text of a full match."""
    fabric = load_plan(FIXTURES)
    doc = {"status": "Completed with errors", "error": "", "report": [
        {"category": "missing in wire",
         "description": "expected: r01/2 - r07/1. actual: r01/2 - r07/2"},
        {"category": "missing in wire",
         "description": "expected: r01/3 - r07/2. actual: r01/3 - r07/1"}]}
    from planner.verify import parse_ufm_report
    from planner.verify.ufm_report import as_built
    raw = as_built(parse_ufm_report(doc, "r.json"), fabric, "r.json")
    assert _findings(compare(fabric, resolve(raw, fabric))) == [
        ("swap", "A01-39:02/A02-39:01 + A01-39:03/A02-39:02")]
    full = {"status": "Completed successfully", "error": "",
            "report": "NDT and current topology are fully match"}
    assert compare(fabric, resolve(as_built(parse_ufm_report(full, "r.json"), fabric,
                                            "r.json"), fabric)).ok


def test_net_dump_fixture_matches_plan_skipping_down_ports_by_ib_port_number():
    """fabric.net_dump: every cable from the switch side, r00 port 6 DOWN, r07 with Quantum-2
    labels (1/1/1 ...) whose IB# is the plan's port."""
    fabric = load_plan(FIXTURES)
    raw = read_observed(FIXTURES / "fabric.net_dump")
    assert len(raw) == 2 * 14 + 4          # router-router cables seen from both switches
    assert compare(fabric, resolve(raw, fabric)).ok


def test_ufm_report_needs_the_plan():
    with pytest.raises(Exception, match="differences only"):
        read_observed(FIXTURES / "ufm_report.json")



@pytest.mark.parametrize("fixture, fmt", [("fabric.net_dump", "ibdiagnet-net-dump"),
                                          ("ufm_report.json", "ufm-ndt-report"),
                                          ("lldp_r00.json", "lldp")])
def test_new_formats_detected_by_content_without_their_suffix(tmp_path, fixture, fmt):
    copy = tmp_path / "observed.txt"
    shutil.copy(FIXTURES / fixture, copy)
    assert detect_format(copy) == fmt


def test_ndt_rows_leave_a_missing_rack_unit_empty():
    """An endpoint without a rack unit (cables.csv leaves ``b_ru`` empty) has an empty ``U
    height_1``; whole rack units print without a decimal point."""
    import pandas as pd
    cables = pd.DataFrame({
        "a_cabinet": ["A01", "A01"], "a_ru": pd.array([40, 40], dtype="Int64"),
        "a_device": ["r00", "r00"], "a_port": [1, 2], "b_device": ["n00", "r01"],
        "b_port": [1, 7], "b_cabinet": ["A01", "A02"],
        "b_ru": pd.array([None, 39], dtype="Int64"), "order_length_m": [2.0, 5.0]})
    table = fabric_checkers.ndt_table(cables)
    shown = table[["U height", "U height_1", "StartPort", "EndPort", "Cable Length"]]
    assert shown.values.tolist() == [["40", "", "Port 1", "Port 1", "2.0"],
                                     ["40", "39", "Port 2", "Port 7", "5.0"]]
