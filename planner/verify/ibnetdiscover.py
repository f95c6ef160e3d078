"""Observed links from InfiniBand ``ibnetdiscover`` topology output: ``Switch``/``Ca``/``Rt``
blocks whose port lines ``[17] "S-<guid>"[3] # "r045" lid 7 4xHDR`` name the local port, the
peer GUID and port (the shapes of infiniband-diags' ``out_switch_port``/``out_ca_port``, ``-g``
``[ext N]`` included); device names are the first word of the node description (``"n0001
mlx5_0"`` -> ``n0001``; Mellanox ``"MF0;r012:MQM8700/U1"`` -> ``r012``). SHARP aggregation
nodes ("Mellanox Technologies Aggregation Node") show up as extra links; ``--ignore
'Mellanox*'``."""

from __future__ import annotations

import re

from planner.run.errors import InputError
from planner.verify.values import RawLink

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
