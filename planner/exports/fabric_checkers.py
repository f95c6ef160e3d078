"""The files the fabric's own checkers compare the running fabric against: the cabling plan in
NVIDIA UFM's NDT format and the topology file of ``ibdiagnet --topo_file``.

- ``ufm/switch_to_switch.ndt`` (network cables) and ``ufm/switch_to_host.ndt`` (endpoint
  cables): CSV files with the columns UFM's NDT plugin reads, ``#Fields:StartDevice``,
  ``StartPort``, ``EndDevice``, ``EndPort`` and ``LinkType`` (``Data``), ports written ``Port
  N``, with each end's cabinet (``rack #``, ``StartDeviceLocation``, ``EndDeviceLocation``),
  rack unit (``U height``, ``U height_1``) and the ordered ``Cable Length`` in metres. The
  header is the full one of the plugin's own ``ndt_file_creator.py`` (Mellanox/ufm_sdk_3.0,
  ``plugins/UFM_NDT_Plugin``); the two file names are the two ``file_type`` values of its
  upload API (NVIDIA UFM Enterprise REST API guide, "NDT Plugin REST API").
- ``ibdiagnet.topo``: an IBDM topology file (ibutils' ``ibdm-topo-file(1)``): one section per
  device, ``TYPE NAME`` then ``P<port> -> TYPE NAME P<port>`` per cable, a blank line after each
  section. A router's type is its catalog model and an endpoint's ``HCA``; ibdiagnet knows a
  type by its IBNL file.

``planner verify`` reads what these tools report back (``planner.verify.ufm_report``,
``planner.verify.net_dump``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from planner.exports._csv import write_csv, write_text

NDT_FOLDER = "ufm"
NDT_FILES = {"network": "switch_to_switch.ndt", "endpoint": "switch_to_host.ndt"}
NDT_COLUMNS = ("rack #", "U height", "#Fields:StartDevice", "StartPort", "StartDeviceLocation",
               "EndDevice", "EndPort", "EndDeviceLocation", "U height_1", "LinkType", "Speed",
               "_2", "Cable Length", "_3", "_4", "_5", "_6", "_7", "State", "Domain")
TOPO_FILE = "ibdiagnet.topo"
ENDPOINT_TYPE = "HCA"


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


def ndt_table(cables: pd.DataFrame) -> pd.DataFrame:
    """The NDT rows of ``cables`` (one per cable, a end first), in NDT_COLUMNS order."""
    text = pd.DataFrame({c: _text(cables[c]) for c in _NDT_SOURCES}, index=cables.index)
    rows = {
        "rack #": text.a_cabinet, "U height": text.a_ru,
        "#Fields:StartDevice": text.a_device, "StartPort": "Port " + text.a_port,
        "StartDeviceLocation": text.a_cabinet,
        "EndDevice": text.b_device, "EndPort": "Port " + text.b_port,
        "EndDeviceLocation": text.b_cabinet, "U height_1": text.b_ru, "LinkType": "Data",
        "Cable Length": text.order_length_m, "State": "Active", "Domain": "In-Scope"}
    table = pd.DataFrame({c: rows.get(c, "") for c in NDT_COLUMNS}, index=cables.index)
    return table.astype(str)


def _system_type(model: str) -> str:
    """An IBDM system type is one word."""
    return "_".join(str(model).split()) or ENDPOINT_TYPE


def topo_text(cables: pd.DataFrame, devices: pd.DataFrame) -> str:
    """The IBDM topology file: a section per a-end device (by name) listing its cables by
    port."""
    router = {name: _system_type(model) for name, kind, model
              in zip(devices.name, devices.kind, devices.model) if kind == "router"}
    system = {name: f"{router.get(name, ENDPOINT_TYPE)} {name}"
              for name in pd.unique(pd.concat([cables.a_device, cables.b_device]))}
    ordered = cables.sort_values(["a_device", "a_port"], kind="stable")
    lines, current = [], None
    for dev, ap, bd, bp in zip(ordered.a_device, ordered.a_port, ordered.b_device,
                               ordered.b_port):
        if dev != current:
            lines += ["", system[dev]] if current is not None else [system[dev]]
            current = dev
        lines.append(f"P{ap} -> {system[bd]} P{bp}")
    return "\n".join(lines) + "\n" if lines else ""


def write(plan, out_dir: Path) -> None:
    """Write ``ufm/*.ndt`` and ``ibdiagnet.topo``."""
    out_dir = Path(out_dir)
    (out_dir / NDT_FOLDER).mkdir(exist_ok=True)
    for kind, name in NDT_FILES.items():
        write_csv(ndt_table(plan.cables[plan.cables.kind == kind]), out_dir / NDT_FOLDER / name)
    write_text(topo_text(plan.cables, plan.devices), out_dir / TOPO_FILE)
