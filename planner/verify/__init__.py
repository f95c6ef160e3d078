"""As-built verification: compare an observed neighbour list with a plan's ``cables.csv``.

After cabling, datacenter staff collect who-is-connected-to-whom from the running fabric and
check it against the plan (the same workflow as the Cisco cable-plan validation of
acitoolkit's ``applications/cableplan``, which diffs a cable-plan XML against the running
fabric, and the InfiniBand practice of comparing ``ibnetdiscover`` output with the intended
topology). Three observed formats are read:

* **CSV** with a header holding ``device,port,peer_device,peer_port`` (more columns are
  ignored). Rows may list each link once or once per end; the two directions are merged.
* **LLDP**, the JSON printed by lldpd's ``lldpctl -f json`` (``{"lldp": {"interface": ...}}``,
  where ``interface`` is an object when there is one neighbour and a list of one-key objects
  otherwise) or ``-f json0`` (lists everywhere). lldpctl does not print the local host name,
  so the device is named by the caller: ``device=`` for one output, a JSON object
  ``{device: lldpctl_output, ...}``, or a directory of ``DEVICE.json`` files.
* **InfiniBand** ``ibnetdiscover`` topology output: ``Switch``/``Ca``/``Rt`` blocks whose
  port lines ``[17] "S-<guid>"[3] # "r045" lid 7 4xHDR`` name the local port, the peer GUID and
  port (the shapes of infiniband-diags' ``out_switch_port``/``out_ca_port``, ``-g`` ``[ext N]``
  included); device names are the first word of the node description (``"n0001 mlx5_0"`` ->
  ``n0001``; Mellanox ``"MF0;r012:MQM8700/U1"`` -> ``r012``). SHARP aggregation nodes
  ("Mellanox Technologies Aggregation Node") show up as extra links; ``--ignore 'Mellanox*'``.

Names: a device matches a plan device after trimming whitespace, case-insensitively on the
letter prefix and ignoring zero padding (``r12`` == ``r012`` == ``R0012``); a fully qualified
name matches by its first label (``r012.fabric.example`` -> ``r012``). Ports are the last
integer in the port name (``swp17``, ``Ethernet1/17``, ``eth17``, ``p17``, ``17``, ``[17]`` ->
17), so they must use the plan's port numbering.

Classification: each physical mistake is reported once, with its kind (every planned cable and
every observed link is explained by at most one finding), in passes over what is still
unexplained:

1. exact: the observed link joins the planned cable's two ports -> matched;
2. swap: two planned cables (a, b) and (c, d) seen as (a, d) and (c, b), two ends exchanged
   (at one device, or the far ends of two cables): one finding for both cables;
3. wrong-port / wrong-device: an observed link with one end on a planned port and the other
   elsewhere: on another port of the planned peer device (wrong-port) or on another device
   (wrong-device). When its two ends sit on the ports of two planned cables it explains one of
   them (the one it misses by a port rather than a device, else the first in the plan);
4. wrong-port: the planned device pair, both port numbers different;
5. whatever planned cable is left is missing, whatever observed link is left is extra.

A finding's ``cable_id`` and ``label`` name its cable, or both cables of a swap joined by " + ".
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from planner.run import guards
from planner.run.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("csv", "lldp", "ibnetdiscover")
SCOPES = ("all", "network", "endpoint")
KINDS = ("swap", "wrong-port", "wrong-device", "missing", "extra")
PLAN_COLUMNS = ("cable_id", "label", "kind", "a_device", "a_port", "a_cabinet",
                "b_device", "b_port", "b_cabinet")
CSV_COLUMNS = ("device", "port", "peer_device", "peer_port")
MAX_BYTES = 512 * 2 ** 20
"""Size of a plan's cables.csv or an observed file: a 1M-endpoint plan's cables.csv is about
250 MB (2.1 M cables, benchmarks/RESULTS.md)."""

End = tuple[str, int]


# --------------------------------------------------------------------------- values

class PlannedCable(NamedTuple):
    """One row of the plan's cables.csv, reduced to what verification needs."""

    cable_id: str
    label: str
    kind: str
    a: End
    b: End
    a_cabinet: str
    b_cabinet: str


@dataclass(frozen=True)
class PlannedFabric:
    """The planned cables, and the cabinet of every planned device."""

    cables: tuple[PlannedCable, ...]
    cabinet_of: dict[str, str] = field(repr=False)

    @property
    def routers(self) -> frozenset[str]:
        return frozenset(d for c in self.cables if c.kind == "network" for d in (c.a[0], c.b[0]))


class RawLink(NamedTuple):
    """One observed neighbour relation as read from a file, before name resolution."""

    device: str
    port: str
    peer_device: str
    peer_port: str
    where: str


class ObservedLink(NamedTuple):
    """A deduplicated observed cable between two resolved ends."""

    a: End
    b: End
    where: str


@dataclass(frozen=True)
class Finding:
    """One physical mistake: the cable(s) it concerns, what was planned against what was
    seen."""

    kind: str
    cable_id: str
    label: str
    a_cabinet: str
    b_cabinet: str
    expected: str
    observed: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class VerifyReport:
    """Result of a comparison: counts and the findings, ordered by kind then plan order."""

    planned: int
    observed: int
    matched: int
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not self.findings

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(KINDS, 0)
        for f in self.findings:
            out[f.kind] += 1
        return out

    def summary(self) -> str:
        head = (f"{self.planned} planned cables, {self.observed} observed links, "
                f"{self.matched} match")
        if self.ok:
            return f"{head}: the fabric matches the plan"
        detail = ", ".join(f"{n} {k}" for k, n in self.counts().items() if n)
        noun = "mistake" if len(self.findings) == 1 else "mistakes"
        return f"{head}; {len(self.findings)} {noun}: {detail}"

    def to_dict(self) -> dict:
        return {"ok": self.ok, "planned": self.planned, "observed": self.observed,
                "matched": self.matched, "counts": self.counts(),
                "findings": [f.to_dict() for f in self.findings]}


# --------------------------------------------------------------------------- names and ports

_NAME_RE = re.compile(r"([A-Za-z_-]*?)0*(\d+)")
_LAST_INT_RE = re.compile(r"(\d+)\D*$")


def _name_key(name: str) -> tuple[str, int] | None:
    m = _NAME_RE.fullmatch(name)
    return (m.group(1).lower(), int(m.group(2))) if m else None


def port_number(text: str, where: str) -> int:
    """The last integer in a port name: ``swp17``, ``Ethernet1/17``, ``[17]`` -> 17."""
    number = _last_int(str(text))
    if number is None:
        raise InputError(f"observed {where}: port {str(text)!r} has no port number; "
                         f"expected a name ending in the plan's port number such as "
                         f"'swp17', 'Ethernet17' or '17'")
    return number


@lru_cache(maxsize=4096)
def _last_int(text: str) -> int | None:
    m = _LAST_INT_RE.search(text.strip())
    return int(m.group(1)) if m else None


class _Names:
    """Resolve observed device names to plan device names (see module docstring)."""

    def __init__(self, plan_devices):
        self.exact = set(plan_devices)
        self.by_key = {}
        for name in sorted(self.exact):
            key = _name_key(name)
            if key is not None:
                self.by_key.setdefault(key, name)
        self.cache: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name not in self.cache:
            self.cache[name] = self._resolve(name)
        return self.cache[name]

    def _resolve(self, name: str) -> str:
        name = str(name).strip()
        for cand in (name, name.split(".", 1)[0]):
            if cand in self.exact:
                return cand
            key = _name_key(cand)
            if key is not None and key in self.by_key:
                return self.by_key[key]
        return name


def fmt_end(end: End) -> str:
    return f"{end[0]}:{end[1]}"


def fmt_link(a: End, b: End) -> str:
    return f"{fmt_end(a)} - {fmt_end(b)}"


# --------------------------------------------------------------------------- the plan

def _plan_path(path: Path) -> Path:
    path = Path(path)
    if path.is_dir():
        path = path / "cables.csv"
    if not path.exists():
        raise InputError(f"plan '{path}': file not found; --plan must be a plan folder "
                         f"written by 'planner plan' (holding cables.csv) or a cables.csv file")
    return guards.regular_file(path, f"plan '{path}'")


def _read_text(path: Path, what: str) -> str:
    raw = guards.read_input(path, f"{what} '{path}'", MAX_BYTES)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"{what} '{path}': not UTF-8 text ({err.reason} at byte "
                         f"{err.start})") from None


def planned_fabric(table: pd.DataFrame, source: str) -> PlannedFabric:
    """Build the planned fabric from a cables table (PLAN_COLUMNS, as strings or numbers);
    InputError naming the line for an empty device, a non-integer port or a reused port."""
    import pandas as pd

    t = table[list(PLAN_COLUMNS)].astype(str).apply(lambda col: col.str.strip())
    line = np.arange(len(t)) + 2
    for side in ("a", "b"):
        dev, port = t[f"{side}_device"], t[f"{side}_port"]
        bad = np.flatnonzero((dev == "").to_numpy())
        if bad.size:
            raise InputError(f"plan '{source}' line {line[bad[0]]}: field '{side}_device' is "
                             f"empty; every cable needs two devices")
        bad = np.flatnonzero(~port.str.fullmatch(r"\d+").to_numpy())
        if bad.size:
            raise InputError(f"plan '{source}' line {line[bad[0]]}: field '{side}_port' must be "
                             f"a non-negative integer port number, got {port.iloc[bad[0]]!r}")
    ends = pd.DataFrame({"dev": pd.concat([t.a_device, t.b_device], ignore_index=True),
                         "port": pd.concat([t.a_port, t.b_port], ignore_index=True).astype(int)})
    dup = np.flatnonzero(ends.duplicated().to_numpy())
    if dup.size:
        k = dup[0]
        first = np.flatnonzero((ends.dev == ends.dev[k]).to_numpy()
                               & (ends.port == ends.port[k]).to_numpy())[0]
        raise InputError(f"plan '{source}' line {line[k % len(t)]}: port "
                         f"{ends.dev[k]}:{ends.port[k]} is also used by cable "
                         f"{t.cable_id.iloc[first % len(t)]}; a port holds one cable")
    col = {c: t[c].tolist() for c in PLAN_COLUMNS}
    a_port, b_port = t.a_port.astype(int).tolist(), t.b_port.astype(int).tolist()
    cables = tuple(PlannedCable(cid, label, kind, (ad, ap), (bd, bp), ac, bc)
                   for cid, label, kind, ad, ap, ac, bd, bp, bc in zip(
                       col["cable_id"], col["label"], col["kind"], col["a_device"], a_port,
                       col["a_cabinet"], col["b_device"], b_port, col["b_cabinet"]))
    cabinet_of = dict(zip(col["b_device"] + col["a_device"], col["b_cabinet"] + col["a_cabinet"]))
    return PlannedFabric(cables, cabinet_of)


def load_plan(path) -> PlannedFabric:
    """Read ``DIR/cables.csv`` (or a cables.csv path) of a plan written by ``planner plan``."""
    import pandas as pd

    path = _plan_path(path)
    text = _read_text(path, "plan")
    try:
        table = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as err:
        raise InputError(f"plan '{path}': not a readable CSV ({str(err).splitlines()[0]})") from None
    missing = [c for c in PLAN_COLUMNS if c not in table.columns]
    if missing:
        raise InputError(f"plan '{path}': missing column(s) {', '.join(missing)}; cables.csv "
                         f"needs {', '.join(PLAN_COLUMNS)}")
    short = np.flatnonzero(table[list(PLAN_COLUMNS)].isna().any(axis=1).to_numpy())
    if short.size:
        raise InputError(f"plan '{path}' line {short[0] + 2}: too few fields; cables.csv rows "
                         f"need {', '.join(PLAN_COLUMNS)}")
    return planned_fabric(table, str(path))


# --------------------------------------------------------------------------- observed: CSV

def parse_csv(text: str, source: str) -> list[RawLink]:
    """Rows of ``device,port,peer_device,peer_port`` (header required; extra columns ignored)."""
    rows = csv.reader(text.splitlines())
    header = next(rows, None)
    cols = [h.strip().lower() for h in header or []]
    missing = [c for c in CSV_COLUMNS if c not in cols]
    if missing:
        raise InputError(f"observed '{source}': CSV header must name the columns "
                         f"{','.join(CSV_COLUMNS)}; missing {', '.join(missing)}")
    idx = [cols.index(c) for c in CSV_COLUMNS]
    links = []
    for n, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(idx):
            raise InputError(f"observed '{source}' line {n}: expected {len(cols)} fields, got "
                             f"{len(row)}")
        dev, port, peer, peer_port = (row[i].strip() for i in idx)
        if not (dev and port and peer and peer_port):
            raise InputError(f"observed '{source}' line {n}: fields {','.join(CSV_COLUMNS)} "
                             f"must all be set, got {','.join(row[i] for i in idx)!r}")
        links.append(RawLink(dev, port, peer, peer_port, f"'{source}' line {n}"))
    return links


# --------------------------------------------------------------------------- observed: LLDP

def _j0(value):
    """Unwrap lldpctl json0 ``[{"value": x}]`` (and plain ``{"value": x}``) to x."""
    while isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, dict) and "value" in value:
        value = value["value"]
    return value if isinstance(value, str) else None


def _port_text(port: dict, where: str) -> str:
    """Peer port name: the port id unless it is an address, else the port description."""
    pid = port.get("id")
    pid = pid[0] if isinstance(pid, list) and pid else pid
    texts = []
    if isinstance(pid, dict) and str(pid.get("type", "")).lower() not in ("mac", "ip"):
        texts.append(_j0(pid.get("value")))
    texts.append(_j0(port.get("descr")))
    for text in texts:
        if text and _LAST_INT_RE.search(text.strip()):
            return text
    raise InputError(f"observed {where}: the neighbour's port has no port number in its id or "
                     f"description ({pid!r}); configure lldpd to send the interface name "
                     f"(lldpcli configure lldp portidsubtype ifname)")


def _chassis_name(chassis, where: str) -> str:
    if isinstance(chassis, list):  # json0
        chassis = chassis[0] if chassis else {}
        name = _j0(chassis.get("name")) or _j0(chassis.get("id"))
    elif isinstance(chassis, dict):
        ident = chassis.get("id")
        if isinstance(ident, dict) and "value" in ident:  # no SysName: fields sit directly here
            name = _j0(ident)
        else:
            name = next(iter(chassis), None)
    else:
        name = None
    if not name:
        raise InputError(f"observed {where}: neighbour has no chassis name or id")
    return name


def _lldp_interfaces(lldp, where: str):
    """(local interface name, neighbour record) pairs of one lldpctl output."""
    if isinstance(lldp, list):  # json0: [{"interface": [{"name": ..., ...}]}]
        for block in lldp:
            for iface in (block or {}).get("interface", []):
                yield str(iface.get("name", "")), iface
        return
    if not isinstance(lldp, dict):
        raise InputError(f"observed {where}: 'lldp' must be an object, got "
                         f"{type(lldp).__name__}")
    ifaces = lldp.get("interface", [])
    for item in ifaces if isinstance(ifaces, list) else [ifaces]:
        if not isinstance(item, dict):
            raise InputError(f"observed {where}: 'lldp.interface' entries must be objects")
        for name, rec in item.items():
            yield str(name), rec


def lldp_links(doc, device: str, source: str) -> list[RawLink]:
    """Neighbours of ``device`` from one ``lldpctl -f json`` (or json0) output."""
    where = f"'{source}' (device {device})"
    if not isinstance(doc, dict) or "lldp" not in doc:
        raise InputError(f"observed {where}: not lldpctl JSON output (no top-level 'lldp' key); "
                         f"collect it with 'lldpctl -f json'")
    links = []
    for ifname, rec in _lldp_interfaces(doc["lldp"], where):
        if not isinstance(rec, dict):
            raise InputError(f"observed {where}: interface {ifname!r} is not an object")
        at = f"{where} interface {ifname}"
        port = rec.get("port", {})
        port = port[0] if isinstance(port, list) and port else port
        links.append(RawLink(device, ifname, _chassis_name(rec.get("chassis"), at),
                             _port_text(port if isinstance(port, dict) else {}, at), at))
    return links


def _load_json(path: Path):
    try:
        return json.loads(_read_text(path, "observed"))
    except json.JSONDecodeError as err:
        raise InputError(f"observed '{path}': invalid JSON at line {err.lineno} column "
                         f"{err.colno}: {err.msg}") from None
    except RecursionError:
        raise InputError(f"observed '{path}': JSON nested too deeply to be lldpctl output; "
                         "collect it again with 'lldpctl -f json'") from None


def parse_lldp(path, device: str | None = None) -> list[RawLink]:
    """LLDP neighbours from a directory of DEVICE.json files, a {device: output} map, or one
    lldpctl output whose local device is given by ``device``."""
    path = Path(path)
    if path.is_dir():
        if device:
            raise InputError(f"--device: observed '{path}' is a directory of DEVICE.json files, "
                             f"which names the devices itself; drop --device")
        files = sorted(path.glob("*.json"))
        if not files:
            raise InputError(f"observed '{path}': directory holds no DEVICE.json lldpctl files")
        return [link for f in files
                for link in lldp_links(_load_json(f), f.name[:-len(".json")], str(f))]
    doc = _load_json(path)
    if isinstance(doc, dict) and "lldp" in doc:
        if not device:
            raise InputError(f"observed '{path}': lldpctl output does not name the local device; "
                             f"pass --device NAME, or give a JSON object {{device: "
                             f"lldpctl_output}} or a directory of DEVICE.json files")
        return lldp_links(doc, device, str(path))
    if not isinstance(doc, dict) or not doc:
        raise InputError(f"observed '{path}': expected lldpctl JSON output or an object "
                         f"{{device: lldpctl_output}}, got {type(doc).__name__}")
    if device:
        raise InputError(f"--device: observed '{path}' is a {{device: lldpctl_output}} object, "
                         f"which names the devices itself; drop --device")
    return [link for dev in sorted(doc) for link in lldp_links(doc[dev], dev, str(path))]


# --------------------------------------------------------------------------- observed: ibnetdiscover

_IB_NODE_RE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR]-[0-9A-Fa-f]+)"\s*(?:#\s*"([^"]*)")?')
_IB_PORT_RE = re.compile(  # infiniband-diags out_switch_port / out_ca_port
    r'^\[(\d+)\](?:\[ext \d+\]|\([0-9A-Fa-f]+\))*\s+"([SHR]-[0-9A-Fa-f]+)"\[(\d+)\]'
    r'(?:\s*\[ext \d+\]|\s*\([0-9A-Fa-f]+\))*\s*(?:#(.*))?$')
_MELLANOX_DESC_RE = re.compile(r"^MF0;([^:]+):")


def ib_device_name(description: str, guid: str) -> str:
    """Device name from an InfiniBand node description: its first word (or host of MF0;host:)."""
    desc = description.strip()
    m = _MELLANOX_DESC_RE.match(desc)
    if m:
        return m.group(1)
    return desc.split()[0] if desc else guid


def parse_ibnetdiscover(text: str, source: str) -> list[RawLink]:
    """Links of ``ibnetdiscover`` output; peers are named by their own block when present,
    otherwise by the description in the port line's comment."""
    names, ports, node = {}, [], None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        m = _IB_NODE_RE.match(line)
        if m:
            node = m.group(3)
            names[node] = ib_device_name(m.group(4) or "", node)
            continue
        if not line.startswith("["):
            continue
        p = _IB_PORT_RE.match(line)
        if not p:
            raise InputError(f"observed '{source}' line {n}: cannot read ibnetdiscover port line "
                             f"{line[:60]!r}; expected '[PORT] \"S-<guid>\"[PEERPORT] # \"desc\" "
                             f"lid N'")
        if node is None:
            raise InputError(f"observed '{source}' line {n}: port line before any Switch/Ca "
                             f"node line")
        descs = re.findall(r'"([^"]*)"', p.group(4) or "")
        ports.append((node, p.group(1), p.group(2), p.group(3), descs[-1] if descs else "", n))
    if not names:
        raise InputError(f"observed '{source}': no 'Switch', 'Ca' or 'Rt' node lines; not "
                         f"ibnetdiscover output")
    return [RawLink(names[node], port, names.get(peer) or ib_device_name(desc, peer),
                    peer_port, f"'{source}' line {n}")
            for node, port, peer, peer_port, desc, n in ports]


# --------------------------------------------------------------------------- observed: dispatch

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
    text = _read_text(path, "observed")
    if text.lstrip().startswith(("{", "[")):
        return "lldp"
    if re.search(r'^\s*(Switch|Ca|Rt)\s+\d+\s+"[SHR]-', text, re.MULTILINE):
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
    text = _read_text(path, "observed")
    return parse_csv(text, str(path)) if fmt == "csv" else parse_ibnetdiscover(text, str(path))


def resolve(raw: list[RawLink], fabric: PlannedFabric, ignore=()) -> list[ObservedLink]:
    """Resolve names and port numbers, drop links touching ``ignore`` globs, merge the two
    directions of a link; InputError when one port is reported on two different links."""
    names = _Names(fabric.cabinet_of)
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


# --------------------------------------------------------------------------- comparison

def _in_scope(link: ObservedLink, scope: str, endpoints: frozenset[str]) -> bool:
    touches_endpoint = link.a[0] in endpoints or link.b[0] in endpoints
    return {"all": True, "network": not touches_endpoint, "endpoint": touches_endpoint}[scope]


def _pair(a: End, b: End) -> tuple[str, str]:
    return (a[0], b[0]) if a[0] <= b[0] else (b[0], a[0])


def _oriented(c: PlannedCable, o: ObservedLink) -> str:
    """The observed link written with the end that corresponds to the planned a-end first."""
    a, b = o.a, o.b
    if b == c.a or a == c.b or (c.a not in (a, b) and c.b not in (a, b)
                                and (b[0] == c.a[0] or a[0] == c.b[0])):
        a, b = b, a
    return fmt_link(a, b)


def _wrong_end(c: PlannedCable, right: End, seen: End) -> str:
    """``wrong-port`` when ``seen`` is on the device planned opposite ``right``, else
    ``wrong-device``."""
    planned = c.b if right == c.a else c.a
    return "wrong-port" if seen[0] == planned[0] else "wrong-device"


class _Comparison:
    """The passes of ``compare`` over the planned cables and observed links still open."""

    def __init__(self, planned: list[PlannedCable], obs: list[ObservedLink], cabinet_of):
        self.planned, self.obs, self.cabinet_of = planned, obs, cabinet_of
        self.owner = {end: i for i, c in enumerate(planned) for end in (c.a, c.b)}
        self.open_cable = [True] * len(planned)
        self.open_link = [True] * len(obs)
        self.link_at = {frozenset((o.a, o.b)): j for j, o in enumerate(obs)}
        self.findings: list[tuple[int, int, Finding]] = []
        self.matched = 0

    def _open_owner(self, end: End) -> int | None:
        i = self.owner.get(end)
        return i if i is not None and self.open_cable[i] else None

    def _report(self, kind: str, cables: list[int], links: list[ObservedLink | None]) -> None:
        cs = [self.planned[i] for i in cables]
        observed = [_oriented(c, o) if o else "not seen" for c, o in zip(cs, links)]
        self.findings.append((KINDS.index(kind), min(cables), Finding(
            kind, " + ".join(c.cable_id for c in cs), " + ".join(c.label for c in cs),
            cs[0].a_cabinet, cs[0].b_cabinet, ", ".join(fmt_link(c.a, c.b) for c in cs),
            ", ".join(observed))))
        for i in cables:
            self.open_cable[i] = False

    def exact(self) -> None:
        for j, o in enumerate(self.obs):
            i = self._open_owner(o.a)
            if i is not None and i == self.owner.get(o.b):
                self.open_cable[i] = self.open_link[j] = False
                self.matched += 1

    def swaps(self) -> None:
        for j, o in enumerate(self.obs):
            i, k = self._open_owner(o.a), self._open_owner(o.b)
            if not self.open_link[j] or i is None or k is None or i == k:
                continue
            ci, ck = self.planned[i], self.planned[k]
            rest = frozenset((ci.b if o.a == ci.a else ci.a, ck.b if o.b == ck.a else ck.a))
            other = self.link_at.get(rest)
            if other is None or not self.open_link[other]:
                continue
            pair = sorted((i, k))
            links = (o, self.obs[other])
            holding_a = [next(link for link in links if self.planned[c].a in (link.a, link.b))
                         for c in pair]
            self._report("swap", pair, holding_a)
            self.open_link[j] = self.open_link[other] = False

    def one_end_right(self) -> None:
        for j, o in enumerate(self.obs):
            if not self.open_link[j]:
                continue
            options = []
            for right, seen in ((o.a, o.b), (o.b, o.a)):
                i = self._open_owner(right)
                if i is not None:
                    kind = _wrong_end(self.planned[i], right, seen)
                    options.append((kind != "wrong-port", i, kind))
            if options:
                _, i, kind = min(options)
                self._report(kind, [i], [o])
                self.open_link[j] = False

    def both_ports_wrong(self) -> None:
        by_pair = defaultdict(list)
        for i in range(len(self.planned) - 1, -1, -1):
            if self.open_cable[i]:
                by_pair[_pair(self.planned[i].a, self.planned[i].b)].append(i)
        for j, o in enumerate(self.obs):
            candidates = by_pair.get(_pair(o.a, o.b))
            while candidates and not self.open_cable[candidates[-1]]:
                candidates.pop()
            if self.open_link[j] and candidates:
                self._report("wrong-port", [candidates.pop()], [o])
                self.open_link[j] = False

    def leftovers(self) -> None:
        for i, still in enumerate(self.open_cable):
            if still:
                self._report("missing", [i], [None])
        for j, o in enumerate(self.obs):
            if self.open_link[j]:
                self.findings.append((KINDS.index("extra"), len(self.planned) + j, Finding(
                    "extra", "", "", self.cabinet_of.get(o.a[0], "?"),
                    self.cabinet_of.get(o.b[0], "?"), "not planned", fmt_link(o.a, o.b))))


def compare(fabric: PlannedFabric, observed: list[ObservedLink],
            scope: str = "all") -> VerifyReport:
    """Classify every planned cable and observed link (passes in the module docstring): each
    physical mistake is one finding, ordered by kind, then by the first cable in plan order."""
    if scope not in SCOPES:
        raise InputError(f"--cables: unknown scope {scope!r}; valid: {', '.join(SCOPES)}")
    endpoints = frozenset(fabric.cabinet_of) - fabric.routers
    planned = [c for c in fabric.cables if scope in ("all", c.kind)]
    obs = sorted((o for o in observed if _in_scope(o, scope, endpoints)),
                 key=lambda o: (o.a, o.b))
    run = _Comparison(planned, obs, fabric.cabinet_of)
    run.exact()
    run.swaps()
    run.one_end_right()
    run.both_ports_wrong()
    run.leftovers()
    run.findings.sort(key=lambda f: f[:2])
    return VerifyReport(len(planned), len(obs), run.matched, tuple(f for _, _, f in run.findings))


def verify(plan_dir, observed_path, fmt: str | None = None, device: str | None = None,
           scope: str = "all", ignore=()) -> VerifyReport:
    """Load the plan, read and resolve the observed file, and compare them."""
    fabric = load_plan(plan_dir)
    return compare(fabric, resolve(read_observed(observed_path, fmt, device), fabric, ignore),
                   scope)
