"""Observed links from LLDP: the JSON printed by lldpd's ``lldpctl -f json``
(``{"lldp": {"interface": ...}}``, where ``interface`` is an object when there is one neighbour
and a list of one-key objects otherwise) or ``-f json0`` (lists everywhere). lldpctl does not
print the local host name, so the device is named by the caller: ``device=`` for one output,
a JSON object ``{device: lldpctl_output, ...}``, or a directory of ``DEVICE.json`` files."""

from __future__ import annotations

import json
from pathlib import Path

from planner.run.errors import InputError
from planner.verify.files import read_text
from planner.verify.names import LAST_INT_RE
from planner.verify.values import RawLink


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
        if text and LAST_INT_RE.search(text.strip()):
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
        return json.loads(read_text(path, "observed"))
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
