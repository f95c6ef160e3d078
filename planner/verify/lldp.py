"""Observed links from LLDP: the JSON printed by lldpd's ``lldpctl -f json``
(``{"lldp": {"interface": ...}}``, where ``interface`` is an object when there is one neighbour
and a list of one-key objects otherwise) or ``-f json0`` (lists everywhere). lldpctl does not
print the local host name, so the device is named by the caller: ``device=`` for one output,
a JSON object ``{device: lldpctl_output, ...}``, or a directory of ``DEVICE.json`` files.

Every value is checked for its type where it is read: a list holding numbers, strings or null
where lldpctl prints objects is refused with the JSON path of the value
(``lldp.interface[3].swp1.chassis``), since JSON values carry no line numbers once parsed.
"""

from __future__ import annotations

import json
from pathlib import Path

from planner.run.errors import InputError
from planner.verify.fields import last_digits, raw_link
from planner.verify.files import read_text
from planner.verify.values import RawLink

_LLDP_FIELDS = ("device", "interface name", "chassis name", "port id")


def _object(value, where: str, path: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"observed {where}: '{path}' must be an object as lldpctl prints it, "
                         f"got {_kind(value)}; collect it again with 'lldpctl -f json'")
    return value


def _kind(value) -> str:
    return "null" if value is None else type(value).__name__


def _first(value):
    """json0 wraps every value in a list: its first element (None for an empty list)."""
    return (value[0] if value else None) if isinstance(value, list) else value


def _j0(value):
    """Unwrap lldpctl json0 ``[{"value": x}]`` (and plain ``{"value": x}``) to x, a string or
    None."""
    value = _first(value)
    if isinstance(value, dict):
        value = _first(value.get("value"))
    return value if isinstance(value, str) else None


def _port_text(port, where: str, path: str) -> str:
    """Peer port name: the port id unless it is an address, else the port description."""
    port = _object(_first(port), where, path)
    pid = _first(port.get("id"))
    texts = []
    if isinstance(pid, dict) and str(_j0(pid.get("type")) or "").lower() not in ("mac", "ip"):
        texts.append(_j0(pid.get("value")))
    texts.append(_j0(port.get("descr")))
    for text in texts:
        if text and last_digits(text):
            return text
    raise InputError(f"observed {where}: '{path}' has no port number in its id or description; "
                     f"configure lldpd to send the interface name (lldpcli configure lldp "
                     f"portidsubtype ifname)")


def _chassis_name(chassis, where: str, path: str) -> str:
    if isinstance(chassis, list):  # json0
        first = _object(_first(chassis) or {}, where, f"{path}[0]")
        name = _j0(first.get("name")) or _j0(first.get("id"))
    elif isinstance(chassis, dict):
        ident = chassis.get("id")
        if isinstance(ident, dict) and "value" in ident:  # no SysName: fields sit directly here
            name = _j0(ident)
        else:
            name = next(iter(chassis), None)
    else:
        name = None
    if not name:
        raise InputError(f"observed {where}: '{path}' has no chassis name or id")
    return name


def _lldp_interfaces(lldp, where: str):
    """(local interface name, neighbour record, JSON path) of one lldpctl output."""
    if isinstance(lldp, list):  # json0: [{"interface": [{"name": ..., ...}]}]
        for b, block in enumerate(lldp):
            path = f"lldp[{b}]"
            ifaces = _object(block, where, path).get("interface", [])
            if not isinstance(ifaces, list):
                raise InputError(f"observed {where}: '{path}.interface' must be a list as "
                                 f"'lldpctl -f json0' prints it, got {_kind(ifaces)}")
            for i, iface in enumerate(ifaces):
                at = f"{path}.interface[{i}]"
                yield _object(iface, where, at).get("name"), iface, at
        return
    ifaces = _object(lldp, where, "lldp").get("interface", [])
    listed = isinstance(ifaces, list)
    for i, item in enumerate(ifaces if listed else [ifaces]):
        at = f"lldp.interface[{i}]" if listed else "lldp.interface"
        for name, rec in _object(item, where, at).items():
            yield name, rec, f"{at}.{name}"


def lldp_links(doc, device: str, source: str) -> list[RawLink]:
    """Neighbours of ``device`` from one ``lldpctl -f json`` (or json0) output."""
    where = f"'{source}' (device {device})"
    if not isinstance(doc, dict) or "lldp" not in doc:
        raise InputError(f"observed {where}: not lldpctl JSON output (no top-level 'lldp' key); "
                         f"collect it with 'lldpctl -f json'")
    links = []
    for ifname, rec, path in _lldp_interfaces(doc["lldp"], where):
        rec = _object(rec, where, path)
        at = f"{where} '{path}'"
        links.append(raw_link(device, ifname,
                              _chassis_name(rec.get("chassis"), where, f"{path}.chassis"),
                              _port_text(rec.get("port", {}), where, f"{path}.port"),
                              at, _LLDP_FIELDS))
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
    except ValueError as err:  # an integer of more digits than Python converts
        raise InputError(f"observed '{path}': JSON value not readable ({err}); collect it "
                         f"again with 'lldpctl -f json'") from None


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
                         f"{{device: lldpctl_output}}, got {_kind(doc)}")
    if device:
        raise InputError(f"--device: observed '{path}' is a {{device: lldpctl_output}} object, "
                         f"which names the devices itself; drop --device")
    return [link for dev in sorted(doc) for link in lldp_links(doc[dev], dev, str(path))]
