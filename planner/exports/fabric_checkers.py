"""The files the fabric's own checkers compare the running fabric against: the cabling plan in
NVIDIA UFM's NDT format and the topology file of ``ibdiagnet --topo_file``.

- ``ufm/switch_to_switch.ndt`` (network cables) and ``ufm/switch_to_host.ndt`` (endpoint
  cables): CSV files with the columns UFM's NDT plugin reads, ``#Fields:StartDevice``,
  ``StartPort``, ``EndDevice``, ``EndPort`` and ``LinkType`` (``Data``), switch ports written
  ``Port N``, with each end's cabinet (``rack #``, ``StartDeviceLocation``,
  ``EndDeviceLocation``), rack unit (``U height``, ``U height_1``) and the ordered ``Cable
  Length`` in metres. The header is the full one of the plugin's own ``ndt_file_creator.py``
  (Mellanox/ufm_sdk_3.0, ``plugins/UFM_NDT_Plugin``); the two file names are the two
  ``file_type`` values of its upload API (NVIDIA UFM Enterprise REST API guide, "NDT Plugin REST
  API"). A host's port is the node description its adapter reports, ``HOST DEVICE`` (the
  plugin's ``parse_ufm_port`` takes a host link end's whole node description as its port, and
  the NDT Plugin manual's switch-to-host example names ``SAT111092710053 ibp11s0f0``): rdma-ndd's
  default ``%h %d`` with the mlx5 driver's device of that port, ``n007 mlx5_0`` for port 1.
- ``ibdiagnet.topo``: an IBDM topology file (ibutils' ``ibdm-topo-file(1)``): one section per
  device, ``TYPE NAME`` then an indented ``P<port> -> TYPE NAME P<port>`` per cable, a blank line
  after each section. IBDM's parser (``IBFabric::parseTopology``) reads a port line only when it
  starts with white space; an unindented one is skipped with a warning.
- ``ibnl/<TYPE>.ibnl``: the system definition (ibutils' ``ibdm-ibnl-file(1)``) of each type the
  topology file names, one switch or CA node with its ports ``P1``..``Pn``, since IBDM refuses a
  system type it has no IBNL file for (``IBDM_IBNL_PATH=PLAN/ibnl``). A router's type is its
  catalog model and an endpoint's the catalog's NIC (``ENDPOINT`` without one): ``HCA``, ``CA``
  and ``SW`` are node-type keywords of the IBNL grammar and cannot name a system.

``planner verify`` reads what these tools report back (``planner.verify.ufm_report``,
``planner.verify.net_dump``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from planner.exports._csv import write_rows, write_text
from planner.exports.tuning import CSV_CHUNK_ROWS

NDT_FOLDER = "ufm"
NDT_FILES = {"network": "switch_to_switch.ndt", "endpoint": "switch_to_host.ndt"}
NDT_COLUMNS = ("rack #", "U height", "#Fields:StartDevice", "StartPort", "StartDeviceLocation",
               "EndDevice", "EndPort", "EndDeviceLocation", "U height_1", "LinkType", "Speed",
               "_2", "Cable Length", "_3", "_4", "_5", "_6", "_7", "State", "Domain")
# The node description of a host adapter's port: rdma-ndd's default "%h %d" (rdma-core,
# rdma-ndd(8)), the mlx5 driver naming each ConnectX port's device mlx5_0, mlx5_1, ...
HCA_DEVICE_PREFIX = "mlx5_"
TOPO_FILE = "ibdiagnet.topo"
IBNL_FOLDER = "ibnl"
ENDPOINT_TYPE = "ENDPOINT"
TOPO_INDENT = "   "
# Words of the IBNL grammar that a system name cannot be (ibdm's ibnl_scanner.ll).
_IBNL_KEYWORDS = frozenset({"SYSTEM", "TOPSYSTEM", "SUBSYSTEM", "NODE", "SW", "CA", "HCA",
                            "1x", "4x", "8x", "12x", "2.5G", "5G", "10G"})


_NDT_SOURCES = ("a_cabinet", "a_ru", "a_device", "a_port", "b_device", "b_port", "b_cabinet",
                "b_ru", "order_length_m")


def _text(values: pd.Series) -> pd.Series:
    """A column as text: missing values empty, a whole rack unit without a decimal point (39,
    not 39.0)."""
    filled = values.astype(object).where(values.notna(), "")
    if values.name.endswith("_ru"):
        filled = filled.map(lambda v: str(int(v)) if isinstance(v, float) and v.is_integer()
                            else v)
    return filled.astype(str)


def hca_description(host: pd.Series, port: pd.Series) -> pd.Series:
    """The node description a host's adapter port reports: ``HOST mlx5_<port - 1>``."""
    return host + f" {HCA_DEVICE_PREFIX}" + (port.astype(int) - 1).astype(str)


def hca_port(device: str, text: str) -> str | None:
    """The port number (as text) of a host end the NDT plugin names by its node description
    (``n007 mlx5_0`` on ``n007`` is port 1), or None when ``text`` is not one."""
    host, _, name = text.strip().partition(" ")
    number = name[len(HCA_DEVICE_PREFIX):]
    if (host.casefold() != device.strip().casefold() or not name.startswith(HCA_DEVICE_PREFIX)
            or not (number.isascii() and number.isdigit()) or len(number) > 5):
        return None
    return str(int(number) + 1)


def ndt_table(cables: pd.DataFrame, hosts=frozenset()) -> pd.DataFrame:
    """The NDT rows of ``cables`` (one per cable, a end first), in NDT_COLUMNS order; an end on
    one of ``hosts`` names its port by the adapter's node description."""
    text = pd.DataFrame({c: _text(cables[c]) for c in _NDT_SOURCES}, index=cables.index)

    def port(end: str) -> pd.Series:
        on_host = cables[f"{end}_device"].isin(hosts)
        switch = "Port " + text[f"{end}_port"]
        if not on_host.any():
            return switch
        host = hca_description(text[f"{end}_device"][on_host], text[f"{end}_port"][on_host])
        return switch.where(~on_host, host.reindex(switch.index))

    rows = {
        "rack #": text.a_cabinet, "U height": text.a_ru,
        "#Fields:StartDevice": text.a_device, "StartPort": port("a"),
        "StartDeviceLocation": text.a_cabinet,
        "EndDevice": text.b_device, "EndPort": port("b"),
        "EndDeviceLocation": text.b_cabinet, "U height_1": text.b_ru, "LinkType": "Data",
        "Cable Length": text.order_length_m, "State": "Active", "Domain": "In-Scope"}
    table = pd.DataFrame({c: rows.get(c, "") for c in NDT_COLUMNS}, index=cables.index)
    return table.astype(str)


def system_type(model: str) -> str:
    """A part name as an IBDM system type: one word of the characters an IBNL name may hold
    (no ``/``, which the topology file reads as a board separator), starting with a letter,
    and no IBNL keyword."""
    text = "".join(c if c.isascii() and (c.isalnum() or c in "-_.:%@~") else "_"
                   for c in str(model).strip())
    if not text[:1].isalpha():
        text = "T" + text
    return text + "_" if len(text) < 2 or text in _IBNL_KEYWORDS else text


def system_types(plan) -> dict[str, str]:
    """Each device's IBDM system type: a router's its model, an endpoint's the catalog's
    NIC."""
    nic = plan.catalog.nic
    endpoint = system_type(nic.sku) if nic is not None else ENDPOINT_TYPE
    return {name: system_type(model) if kind == "router" else endpoint
            for name, kind, model in zip(plan.devices.name.tolist(), plan.devices.kind.tolist(),
                                         plan.devices.model.tolist())}


def topo_lines(cables: pd.DataFrame, types: dict[str, str], rows: int):
    """The IBDM topology file's text, ``rows`` cables at a time: a section per a-end device (by
    name) listing its cables by port, each port line indented."""
    ordered = cables[["a_device", "a_port", "b_device", "b_port"]].sort_values(
        ["a_device", "a_port"], kind="stable")
    current, first = None, True
    for lo in range(0, len(ordered), rows):
        part = ordered.iloc[lo:lo + rows]
        lines = []
        for dev, ap, bd, bp in zip(part.a_device.tolist(), part.a_port.tolist(),
                                   part.b_device.tolist(), part.b_port.tolist()):
            if dev != current:
                lines += ([""] if current is not None else []) + [f"{types[dev]} {dev}"]
                current = dev
            lines.append(f"{TOPO_INDENT}P{ap} -> {types[bd]} {bd} P{bp}")
        yield ("" if first else "\n") + "\n".join(lines)
        first = False
    if not first:
        yield "\n"


def ibnl_texts(cables: pd.DataFrame, types: dict[str, str], kinds: dict[str, str],
               radix: int) -> dict[str, str]:
    """Per system type, its IBNL file: one node (``SW`` for a router, ``CA`` for an endpoint)
    named ``U1`` whose port n is the system port ``Pn``; a router type has the model's radix
    (or its highest cabled port, if higher), an endpoint type its highest cabled port."""
    ends = pd.DataFrame({"device": pd.concat([cables.a_device, cables.b_device]),
                         "port": pd.concat([cables.a_port, cables.b_port]).astype(int)})
    highest = ends.groupby("device", sort=False).port.max()
    devices = pd.DataFrame({"port": highest, "type": highest.index.map(types),
                            "node": highest.index.map(kinds).map({"router": "SW"}).fillna("CA")})
    texts = {}
    for (typ, node), group in devices.groupby(["type", "node"], sort=True):
        ports = max(int(group.port.max()), radix if node == "SW" else 1)
        lines = ["", f"TOPSYSTEM {typ}", "", f"NODE {node} {ports} {typ} U1"]
        lines += [f"{TOPO_INDENT}{n} -> P{n}" for n in range(1, ports + 1)]
        texts[typ] = "\n".join(lines) + "\n"
    return texts


def write(plan, out_dir: Path) -> None:
    """Write ``ufm/*.ndt``, ``ibdiagnet.topo`` and ``ibnl/*.ibnl``; the first two
    ``tuning.CSV_CHUNK_ROWS`` cables at a time."""
    out_dir = Path(out_dir)
    (out_dir / NDT_FOLDER).mkdir(exist_ok=True)
    hosts = frozenset(plan.devices.name[plan.devices.kind == "endpoint"])
    cables = plan.cables
    on_host = {end: cables[f"{end}_device"].isin(hosts).to_numpy() for end in "ab"}
    for kind, name in NDT_FILES.items():
        with open(out_dir / NDT_FOLDER / name, "w", encoding="utf-8", newline="") as fh:
            for lo in range(0, max(len(cables), 1), CSV_CHUNK_ROWS):
                hi = lo + CSV_CHUNK_ROWS
                part = cables.iloc[lo:hi]
                near = frozenset().union(*(part[f"{end}_device"].to_numpy()[on_host[end][lo:hi]]
                                           for end in "ab"))   # the chunk's hosts: O(chunk)
                write_rows(fh, ndt_table(part[part.kind == kind], near), header=lo == 0)
    types = system_types(plan)
    with open(out_dir / TOPO_FILE, "w", encoding="utf-8", newline="") as fh:
        fh.writelines(topo_lines(cables, types, CSV_CHUNK_ROWS))
    (out_dir / IBNL_FOLDER).mkdir(exist_ok=True)
    kinds = dict(zip(plan.devices.name.tolist(), plan.devices.kind.tolist()))
    for typ, text in ibnl_texts(plan.cables, types, kinds, plan.router_model.radix).items():
        write_text(text, out_dir / IBNL_FOLDER / f"{typ}.ibnl")
