"""Observed links from InfiniBand ``ibnetdiscover`` topology output: ``Switch``/``Ca``/``Rt``
blocks whose port lines ``[17] "S-<guid>"[3] # "r045" lid 7 4xHDR`` name the local port, the
peer GUID and port (the shapes of infiniband-diags' ``out_switch_port``/``out_ca_port``, ``-g``
``[ext N]`` included); device names are the first word of the node description (``"n0001
mlx5_0"`` -> ``n0001``; Mellanox ``"MF0;r012:MQM8700/U1"`` -> ``r012``). SHARP aggregation
nodes ("Mellanox Technologies Aggregation Node") show up as extra links; ``--ignore
'Mellanox*'``.

A port line is matched by one pattern whose quantifiers are possessive (they never give back
what they took), so matching is linear in the line's length."""

from __future__ import annotations

import re

from planner.run.errors import InputError
from planner.verify.fields import raw_link
from planner.verify.values import RawLink

_IB_NODE_RE = re.compile(r'(Switch|Ca|Rt)[ \t]+(\d+)[ \t]+"([SHR]-[0-9A-Fa-f]+)"[ \t]*'
                         r'(?:#[ \t]*"([^"]*)")?')
_IB_PORT_RE = re.compile(  # infiniband-diags out_switch_port / out_ca_port; possessive: linear
    r'\[([0-9]++)\](?:\[ext [0-9]++\]|\([0-9A-Fa-f]++\))*+[ \t]++"([SHR]-[0-9A-Fa-f]++)"'
    r'\[([0-9]++)\](?:[ \t]*+\[ext [0-9]++\]|[ \t]*+\([0-9A-Fa-f]++\))*+[ \t]*+(?:#(.*+))?+')
_MELLANOX_DESC_RE = re.compile(r"MF0;([^:]+):")
_IB_FIELDS = ("node description", "port", "peer description", "peer port")


def ib_device_name(description: str, guid: str) -> str:
    """Device name from an InfiniBand node description: its first word (or host of MF0;host:)."""
    desc = description.strip()
    m = _MELLANOX_DESC_RE.match(desc)
    if m:
        return m.group(1)
    return desc.split(maxsplit=1)[0] if desc else guid


def _last_quoted(comment: str) -> str:
    """The last ``"..."`` of a port line's comment (the peer's node description), or ''."""
    pieces = comment.split('"')
    quoted = pieces[1:len(pieces) - 1:2]
    return quoted[-1] if quoted else ""


def parse_ibnetdiscover(text: str, source: str) -> list[RawLink]:
    """Links of ``ibnetdiscover`` output; peers are named by their own block when present,
    otherwise by the description in the port line's comment."""
    names, ports, node = {}, [], None
    for n, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        m = _IB_NODE_RE.match(line)
        if m:
            node = m.group(3)
            names[node] = ib_device_name(m.group(4) or "", node)
            continue
        if not line.startswith("["):
            continue
        parts = _IB_PORT_RE.fullmatch(line)
        if parts is None:
            raise InputError(f"observed '{source}' line {n}: cannot read ibnetdiscover port line "
                             f"{line[:60]!r}; expected '[PORT] \"S-<guid>\"[PEERPORT] # \"desc\" "
                             f"lid N'")
        if node is None:
            raise InputError(f"observed '{source}' line {n}: port line before any Switch/Ca "
                             f"node line")
        port, peer, peer_port, comment = parts.groups()
        ports.append((node, port, peer, peer_port, _last_quoted(comment or ""), n))
    if not names:
        raise InputError(f"observed '{source}': no 'Switch', 'Ca' or 'Rt' node lines; not "
                         f"ibnetdiscover output")
    return [raw_link(names[node], port, names.get(peer) or ib_device_name(desc, peer),
                     peer_port, f"'{source}' line {n}", _IB_FIELDS)
            for node, port, peer, peer_port, desc, n in ports]
