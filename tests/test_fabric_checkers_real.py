"""The plan's ``ibdiagnet.topo`` and ``ibnl/*.ibnl`` as ibutils' IBDM reads them.

Tool-free: every line is held against the regular expressions of IBDM's own topology parser
(``IBFabric::parseTopology`` in ibutils' ``ibdm/ibdm/Fabric.cpp``) and the names against its
IBNL scanner (``ibnl_scanner.ll``), so a line IBDM would skip or a name it would refuse fails
here without the tool.

With the tool (skipped when absent):

- ``ibdmsh`` (``$IBDMSH``, else on the PATH; Debian package ``ibutils``) parses the topology
  file with the plan's IBNL files and lists every link it built: exactly the plan's cables;
- ``ibtopodiff`` (``$IBTOPODIFF`` only: Debian's 1.5.7 build crashes in
  ``TopoMatchFabrics``; an unoptimised build of ibutils works) matches the topology file against
  a discovered fabric (an OpenSM ``subnet.lst``) made here from ``cables.csv``: no difference;
  with two cables' far ends exchanged it names exactly those two cables, from each of their
  four ends;
- ibsim (``ibsim-utils``) simulates the plan's fabric and infiniband-diags' ``ibnetdiscover``
  discovers it; ``planner verify`` reads that output: every cable matches, and with two cables'
  far ends exchanged in the simulated fabric it reports that one swap.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from planner.exports import cables_csv, fabric_checkers
from planner.plan import plan
from planner.topologies.slimfly import slimfly
from planner.verify import verify

# IBFabric::parseTopology's three line patterns (POSIX regular expressions in Fabric.cpp).
SYS_LINE = re.compile(r"^[ \t]*([^/ \t]+)[ \t]+([^/ \t]+)[ \t]*( CFG:(.*))?$")
PORT_LINE = re.compile(r"^[ \t]+([^ \t]+)[ \t]+-((1|4|8|12)[xX]-)?((2.5|5|10)G-)?[>]"
                       r"[ \t]+([^ \t]+)[ \t]+([^ \t]+)[ \t]+([^ \t]+)[ \t]*$")
EMPTY_LINE = re.compile(r"^[ \t]*$")
# ibnl_scanner.ll: a NAME token, and the words the scanner returns as keywords instead.
IBNL_NAME = re.compile(r"[A-Za-z][-\[\]\\*/A-Za-z0-9_.:%@~]+")
IBNL_KEYWORDS = {"SYSTEM", "TOPSYSTEM", "SUBSYSTEM", "NODE", "SW", "CA", "HCA", "1x", "4x", "8x",
                 "12x", "2.5G", "5G", "10G"}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A small InfiniBand plan's cables.csv, topology file and IBNL files."""
    out = tmp_path_factory.mktemp("ibdm")
    small = plan(slimfly(3), "hdr-200g", "hot-aisle", strategy="hint")
    cables_csv.write(small, out)
    fabric_checkers.write(small, out)
    return out, small


def _cable_ends(cables: pd.DataFrame) -> set[frozenset]:
    return {frozenset(((a, int(p)), (b, int(q)))) for a, p, b, q
            in zip(cables.a_device, cables.a_port, cables.b_device, cables.b_port)}


def parse_like_ibdm(text: str) -> tuple[dict[str, str], set[frozenset], list[str]]:
    """The topology file read line by line as parseTopology reads it: system types by name,
    the links, and the lines it would skip with ``-W- Ignoring``."""
    types, links, skipped, system = {}, set(), [], None
    for line in text.split("\n"):
        if (m := SYS_LINE.match(line)) is not None:
            system = m.group(2)
            assert types.setdefault(system, m.group(1)) == m.group(1)
        elif (m := PORT_LINE.match(line)) is not None and system is not None:
            rtype, rname, rport = m.group(6), m.group(7), m.group(8)
            assert types.setdefault(rname, rtype) == rtype
            links.add(frozenset(((system, int(m.group(1)[1:])), (rname, int(rport[1:])))))
        elif EMPTY_LINE.match(line):
            system = None
        else:
            skipped.append(line)
    return types, links, skipped


def test_every_line_of_the_topology_file_is_one_ibdm_reads(written):
    out, small = written
    types, links, skipped = parse_like_ibdm((out / fabric_checkers.TOPO_FILE).read_text())
    assert skipped == []
    assert links == _cable_ends(small.cables)
    kinds = dict(zip(small.devices.name, small.devices.kind))
    assert {t for n, t in types.items() if kinds[n] == "router"} == {small.router_model.sku}
    assert {t for n, t in types.items() if kinds[n] == "endpoint"} == {small.catalog.nic.sku}


def test_the_file_before_the_fix_lost_every_cable():
    """The unindented port line the writer used to emit is one IBDM skips."""
    assert PORT_LINE.match("P1 -> HCA n000 P1") is None
    assert PORT_LINE.match("   P1 -> HCA n000 P1") is not None


def read_ibnl(path: Path) -> tuple[str, str, int, dict[int, str]]:
    """An IBNL file of one node: (system name, node type, port count, node port -> system
    port)."""
    words = [line.split() for line in path.read_text().split("\n") if line.strip()]
    (top, system), (node, ntype, count, device, inst), *ports = words
    assert (top, node, device, inst) == ("TOPSYSTEM", "NODE", system, "U1")
    return system, ntype, int(count), {int(p[0]): p[2] for p in ports if p[1] == "->"}


def test_every_system_type_has_its_ibnl_file(written):
    out, small = written
    types, _, _ = parse_like_ibdm((out / fabric_checkers.TOPO_FILE).read_text())
    files = sorted((out / fabric_checkers.IBNL_FOLDER).glob("*.ibnl"))
    assert sorted(f.stem for f in files) == sorted(set(types.values()))
    ends = pd.concat([small.cables[["a_device", "a_port"]].set_axis(["d", "p"], axis=1),
                      small.cables[["b_device", "b_port"]].set_axis(["d", "p"], axis=1)])
    for f in files:
        system, ntype, count, ports = read_ibnl(f)
        assert system == f.stem and IBNL_NAME.fullmatch(system) and system not in IBNL_KEYWORDS
        devices = [n for n, t in types.items() if t == system]
        router = small.devices.set_index("name").kind[devices[0]] == "router"
        assert ntype == ("SW" if router else "CA")
        assert ports == {n: f"P{n}" for n in range(1, count + 1)}
        assert count >= ends[ends.d.isin(devices)].p.max()
        assert count == (small.router_model.radix if router else 1)


@pytest.mark.parametrize("model, expected", [
    ("MQM8790-HS2F", "MQM8790-HS2F"),
    ("HCA", "HCA_"),            # an IBNL node-type keyword
    ("CA", "CA_"),
    ("4x", "T4x"),              # a width keyword, and a name must start with a letter
    ("QM 8700/B", "QM_8700_B"),  # no blank (a topology word) and no "/" (a board separator)
    ("Q", "Q_"),                # a NAME token is two characters at least
    ("Süd-1", "S_d-1"),
])
def test_system_type_is_a_name_ibnl_accepts(model, expected):
    assert fabric_checkers.system_type(model) == expected
    assert IBNL_NAME.fullmatch(expected) and expected not in IBNL_KEYWORDS


# ----------------------------------------------------------------------------- the tools

def _tool(env: str, default: str | None) -> str:
    """The program $env names, else ``default`` on the PATH; skip without it."""
    found = shutil.which(os.environ.get(env) or default or "")
    if not found:
        pytest.skip(f"set {env} to the ibutils program to run this")
    return found


LINKS_TCL = """\
set fabric [new_IBFabric]
if {[IBFabric_parseTopology $fabric [lindex $argv 0]]} { puts "PARSE-FAILED"; exit 1 }
foreach nameNode [IBFabric_NodeByName_get $fabric] {
  foreach port [IBNode_Ports_get [lindex $nameNode 1]] {
    if {$port == ""} continue
    set rem [IBPort_p_remotePort_get $port]
    if {$rem != ""} { puts "LINK [IBPort_getName $port] [IBPort_getName $rem]" }
  }
}
"""


def test_ibdm_builds_every_cable_from_the_plan(written, tmp_path):
    ibdmsh = _tool("IBDMSH", "ibdmsh")
    out, small = written
    script = tmp_path / "links.tcl"
    script.write_text(LINKS_TCL)
    run = subprocess.run([ibdmsh, str(script), str(out / fabric_checkers.TOPO_FILE)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env=dict(os.environ, IBDM_IBNL_PATH=str(out / "ibnl")))
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"Defined {small.devices.name.size}/{small.devices.name.size} systems/nodes" \
        in run.stdout
    links = set()
    for line in run.stdout.splitlines():
        if line.startswith("LINK "):
            ends = [end.rsplit("/P", 1) for end in line.split()[1:]]
            links.add(frozenset((d, int(p)) for d, p in ends))
    assert links == _cable_ends(small.cables)


GUID_BASE = 0x0002C90300000000


def subnet_lst(links: list[tuple[str, int, str, int]], routers: set[str],
               radix: int) -> tuple[str, dict[str, int]]:
    """The discovered fabric as OpenSM's ``subnet.lst`` (the line ``parseSubnetLine`` reads):
    a line per direction of each link; a switch's ports share its node GUID, a CA port's GUID
    is its node GUID plus the port number. Returns the text and each device's node GUID."""
    names = sorted({l[0] for l in links} | {l[2] for l in links})
    node = {n: GUID_BASE + 0x100 * (i + 1) for i, n in enumerate(names)}

    def end(name: str, port: int) -> str:
        sw = name in routers
        guid = node[name] if sw else node[name] + port
        desc = name if sw else f"{name} HCA-1"
        return (f"{{ {'SW' if sw else 'CA'} Ports:{radix if sw else 1:02X} "
                f"SystemGUID:{node[name]:016x} NodeGUID:{node[name]:016x} PortGUID:{guid:016x} "
                f"VenID:000002C9 DevID:D2F0 Rev:000000A0 {{{desc}}} "
                f"LID:{names.index(name) + 1:04X} PN:{port:02X} }}")
    rows = []
    for a, p, b, q in links:
        rows += [f"{end(a, p)} {end(b, q)} PHY=4x LOG=ACT",
                 f"{end(b, q)} {end(a, p)} PHY=4x LOG=ACT"]
    return "\n".join(rows) + "\n", {n: node[n] for n in names}


WRONG_CABLE = re.compile(r"^Wrong cable connecting:(\S+)/P(\d+) to:(\S+)/P(\d+) instead of:"
                         r"(\S+)/P(\d+)$")


def _topodiff(tool: str, out: Path, links: list, small, tmp_path: Path) -> str:
    routers = set(small.devices.name[small.devices.kind == "router"])
    text, guids = subnet_lst(links, routers, small.router_model.radix)
    lst = tmp_path / "subnet.lst"
    lst.write_text(text)
    anchor = next(l for l in links if l[2] not in routers)
    run = subprocess.run([tool, "-t", str(out / fabric_checkers.TOPO_FILE), "-d", str(lst),
                          "-s", f"{anchor[2]}/U1", "-p", str(anchor[3]),
                          "-g", f"0x{guids[anchor[2]] + anchor[3]:016x}"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         env=dict(os.environ, IBDM_IBNL_PATH=str(out / "ibnl")))
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_ibtopodiff_finds_the_plan_in_its_own_fabric_and_names_a_swap(written, tmp_path):
    tool = _tool("IBTOPODIFF", None)
    out, small = written
    links = [(a, int(p), b, int(q)) for a, p, b, q in zip(
        small.cables.a_device, small.cables.a_port, small.cables.b_device, small.cables.b_port)]
    assert "---- Fabrics Topologies Match ----" in _topodiff(tool, out, links, small, tmp_path)

    routers = set(small.devices.name[small.devices.kind == "router"])
    i, j = [k for k, l in enumerate(links) if l[0] in routers and l[2] in routers][:2]
    (a, p, b, q), (c, r, d, s) = links[i], links[j]
    built = list(links)
    built[i], built[j] = (a, p, d, s), (c, r, b, q)
    report = _topodiff(tool, out, built, small, tmp_path)
    assert "---- Fabrics Topologies Differ ----" in report
    wrong = {(m[1], int(m[2])): ((m[3], int(m[4])), (m[5], int(m[6])))
             for m in map(WRONG_CABLE.match, report.splitlines()) if m}
    # each end of the two cables: (seen peer, planned peer)
    assert wrong == {(a, p): ((d, s), (b, q)), (c, r): ((b, q), (d, s)),
                     (b, q): ((c, r), (a, p)), (d, s): ((a, p), (c, r))}


# ----------------------------------------------------------------------------- ibsim

def ibsim_net(cables: pd.DataFrame, routers: set[str], radix: int) -> str:
    """The fabric as an ibsim network file (the ibnetdiscover-like format of ibsim's
    ``net-examples``): a ``Switch``/``Hca`` header per device, then ``[port] "peer"[port]`` per
    cable end."""
    ends: dict[str, list[tuple[int, str, int]]] = {}
    for a, p, b, q in zip(cables.a_device, cables.a_port, cables.b_device, cables.b_port):
        ends.setdefault(a, []).append((int(p), b, int(q)))
        ends.setdefault(b, []).append((int(q), a, int(p)))
    lines = []
    for dev in sorted(ends, key=lambda d: (d not in routers, d)):
        count = radix if dev in routers else max(p for p, _, _ in ends[dev])
        lines.append(f'{"Switch" if dev in routers else "Hca"}\t{count} "{dev}"')
        lines += [f'[{p}]\t"{b}"[{q}]' for p, b, q in sorted(ends[dev])] + [""]
    return "\n".join(lines)


def discover(net: Path, tmp_path: Path) -> Path:
    """Run ibsim on ``net`` and infiniband-diags' ibnetdiscover against it through ibsim's
    umad2sim preload; the discovered topology's path."""
    ibsim, run_sim = _tool("IBSIM", "ibsim"), _tool("IBSIM_RUN", "ibsim-run")
    ibnetdiscover = _tool("IBNETDISCOVER", "ibnetdiscover")
    env = dict(os.environ, IBSIM_SOCKNAME=f"planner-test-{os.getpid()}-{net.stem}")
    sim = subprocess.Popen([ibsim, "-s", str(net)], stdin=subprocess.PIPE, cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    found = tmp_path / f"{net.stem}.ibnetdiscover"
    give_up = time.monotonic() + 180        # a bound on waiting for the simulator, not a check
    try:
        while True:                             # until the simulator listens
            run = subprocess.run([run_sim, ibnetdiscover],
                                 capture_output=True, text=True, env=env, cwd=tmp_path,
                                 timeout=max(1.0, give_up - time.monotonic()))
            if run.returncode == 0 and "Switch" in run.stdout:
                found.write_text(run.stdout)
                return found
            assert sim.poll() is None, "ibsim stopped"
            if time.monotonic() > give_up:
                pytest.fail(f"ibnetdiscover found no fabric: {run.stderr[-500:]}")
            time.sleep(0.2)
    finally:
        sim.terminate()
        sim.wait(timeout=30)


def test_verify_reads_ibnetdiscover_of_the_simulated_plan(written, tmp_path):
    out, small = written
    routers = set(small.devices.name[small.devices.kind == "router"])
    net = tmp_path / "plan.net"
    net.write_text(ibsim_net(small.cables, routers, small.router_model.radix))
    report = verify(out, discover(net, tmp_path))
    assert not report.findings and report.matched == len(small.cables)

    cables = small.cables.copy()
    i, j = np.flatnonzero(cables.kind.eq("network").to_numpy())[:2]
    far = ["b_device", "b_port"]
    cables.loc[cables.index[[i, j]], far] = cables.loc[cables.index[[j, i]], far].to_numpy()
    net = tmp_path / "swapped.net"
    net.write_text(ibsim_net(cables, routers, small.router_model.radix))
    report = verify(out, discover(net, tmp_path))
    assert [(f.kind, f.label) for f in report.findings] == \
        [("swap", f"{small.cables.label.iloc[i]} + {small.cables.label.iloc[j]}")]
    assert report.matched == len(small.cables) - 2


# ----------------------------------------------------------------------------- UFM's NDT plugin

# The host pattern docs/verify.md gives for the plugin's ndt.conf: a host port is the adapter's
# node description (the default pattern matches only Microsoft's SAT/DSM host names).
HOST_PATTERN = r"(^\S+ mlx5_\d+$)"


def ufm_links(links: list[tuple[str, int, str, int]], routers: set[str]) -> list[dict]:
    """The links as UFM's REST API lists them for the plugin's ``parse_ufm_port``: a switch end
    ``NAME:PORT`` with its port, a host end by its adapter's node description (rdma-ndd's
    ``%h %d``)."""
    def end(dev: str, port: int) -> tuple[str, str]:
        return (f"{dev}:{port}" if dev in routers else f"{dev} mlx5_{port - 1}"), str(port)
    rows = []
    for a, p, b, q in links:
        (da, pa), (db, pb) = end(a, p), end(b, q)
        rows.append({"source_port_node_description": da, "source_port": pa,
                     "destination_port_node_description": db, "destination_port": pb})
    return rows


def plugin_compare(out: Path, links: list, routers: set[str], tmp_path: Path) -> Path:
    """The plugin's own ``topo_diff.compare_topologies`` of the plan's ``ufm/*.ndt`` (uploaded
    as their two file types, read with the switch patterns of its ``ndt.conf``) with the fabric
    UFM would list; its report saved as JSON."""
    root = Path(os.environ.get("NDT_PLUGIN", ""))
    if not os.environ.get("NDT_PLUGIN") or not (root / "ufm_sim_web_service").is_dir():
        pytest.skip("set NDT_PLUGIN to UFM's NDT plugin (ufm_sdk_3.0 plugins/UFM_NDT_Plugin)")
    import configparser
    import json
    import sys
    sys.path.insert(0, str(root / "ufm_sim_web_service"))
    try:
        from topo_diff import topo_diff
    finally:
        sys.path.remove(str(root / "ufm_sim_web_service"))
    conf = configparser.ConfigParser()
    conf.read(root / "build" / "config" / "ndt.conf")
    uploads = tmp_path / "ndts"
    shutil.copytree(out / fabric_checkers.NDT_FOLDER, uploads, dirs_exist_ok=True)
    (uploads / "ndts.json").write_text(json.dumps(
        [{"file": name, "file_type": Path(name).stem}
         for name in fabric_checkers.NDT_FILES.values()]))
    listed = ufm_links(links, routers)
    saved = topo_diff.get_ufm_links
    topo_diff.get_ufm_links = lambda port: ((lambda: listed), 200)
    try:
        report = topo_diff.compare_topologies(
            "now", str(uploads / "ndts.json"),
            conf.get("Validation", "switch_patterns").split(","), [HOST_PATTERN], 0)
    finally:
        topo_diff.get_ufm_links = saved
    path = tmp_path / "ndt_report.json"
    path.write_text(json.dumps(report))
    return path


@pytest.mark.parametrize("kind", ["network", "endpoint"])
def test_ndt_plugin_finds_the_plan_and_verify_reads_its_report(written, tmp_path, kind):
    out, small = written
    routers = set(small.devices.name[small.devices.kind == "router"])
    links = [(a, int(p), b, int(q)) for a, p, b, q in zip(
        small.cables.a_device, small.cables.a_port, small.cables.b_device, small.cables.b_port)]
    report = plugin_compare(out, links, routers, tmp_path)
    assert '"miss_wired": [], "missing_in_ufm": [], "missing_in_ndt": []' in report.read_text()
    assert verify(out, report).ok

    i, j = np.flatnonzero(small.cables.kind.eq(kind).to_numpy())[:2]
    (a, p, b, q), (c, r, d, s) = links[i], links[j]
    built = list(links)
    built[i], built[j] = (a, p, d, s), (c, r, b, q)
    found = verify(out, plugin_compare(out, built, routers, tmp_path))
    assert [(f.kind, f.label) for f in found.findings] == \
        [("swap", f"{small.cables.label.iloc[i]} + {small.cables.label.iloc[j]}")]


def test_host_ends_are_named_by_the_adapter_node_description(written):
    """Each endpoint cable's host end in switch_to_host.ndt is ``HOST mlx5_<port - 1>``, its
    switch end ``Port N``: how the plugin names the two ends of a link UFM lists."""
    out, small = written
    with open(out / "ufm" / fabric_checkers.NDT_FILES["endpoint"], newline="") as fh:
        rows = list(csv.DictReader(fh))
    cables = small.cables[small.cables.kind == "endpoint"]
    assert [(r["#Fields:StartDevice"], r["StartPort"], r["EndDevice"], r["EndPort"])
            for r in rows] == [(a, f"Port {p}", b, f"{b} mlx5_{q - 1}") for a, p, b, q in
                               zip(cables.a_device, cables.a_port, cables.b_device, cables.b_port)]
    assert fabric_checkers.hca_port("n07", "n07 mlx5_0") == "1"
    assert fabric_checkers.hca_port("n07", "n08 mlx5_0") is None     # another host's adapter
    assert fabric_checkers.hca_port("n07", "n07 ibp12s0") is None    # not an mlx5 device
