"""Observed links from InfiniBand ``ibnetdiscover`` topology output: ``Switch``/``Ca``/``Rt``
blocks whose port lines ``[17] "S-<guid>"[3] # "r045" lid 7 4xHDR`` name the local port, the
peer GUID and port (the shapes of infiniband-diags' ``out_switch_port``/``out_ca_port``, ``-g``
``[ext N]`` included); device names are the first word of the node description (``"n0001
mlx5_0"`` -> ``n0001``; Mellanox ``"MF0;r012:MQM8700/U1"`` -> ``r012``). A host adapter
described ``"HOST mlx5_K"`` is the host's port K + 1 (``adapter_port``): a GPU server's NICs
are single-port adapters ``mlx5_0 .. mlx5_<N-1>``, each reporting port 1. SHARP aggregation
nodes ("Mellanox Technologies Aggregation Node") show up as extra links; ``--ignore
'Mellanox*'``.

A port line is matched by one pattern whose quantifiers are possessive (they never give back
what they took), so matching is linear in the line's length.

``ibnetdiscover_columns`` reads the same lines with one pass of one pattern over the whole
text (node and port lines in file order, each port given its node by a running maximum) and
hands the file back (None) to ``parse_ibnetdiscover``, which names the line, at the first
thing it does not take as is."""

from __future__ import annotations

import re

import numpy as np

from planner.run.errors import InputError
from planner.verify.fields import checked_columns, raw_link
from planner.verify.values import RawLink

_IB_NODE_RE = re.compile(r'(Switch|Ca|Rt)[ \t]+(\d+)[ \t]+"([SHR]-[0-9A-Fa-f]+)"[ \t]*'
                         r'(?:#[ \t]*"([^"]*)")?')
_IB_PORT_RE = re.compile(  # infiniband-diags out_switch_port / out_ca_port; possessive: linear
    r'\[([0-9]++)\](?:\[ext [0-9]++\]|\([0-9A-Fa-f]++\))*+[ \t]++"([SHR]-[0-9A-Fa-f]++)"'
    r'\[([0-9]++)\](?:[ \t]*+\[ext [0-9]++\]|[ \t]*+\([0-9A-Fa-f]++\))*+[ \t]*+(?:#(.*+))?+')
_LINE_RE = re.compile(  # a node line (groups 1-4) or a whole port line (groups 5-8), stripped
    r'^[^\S\n]*+(?:' + _IB_NODE_RE.pattern.replace('[^"]', '[^"\\n]') + '|'
    + _IB_PORT_RE.pattern + r'[^\S\n]*+$)', re.MULTILINE)
_PORT_LINE_START_RE = re.compile(r"^[^\S\n]*+\[", re.MULTILINE)
_MELLANOX_DESC_RE = re.compile(r"MF0;([^:]+):")
_IB_FIELDS = ("node description", "port", "peer description", "peer port")


def ib_device_name(description: str, guid: str) -> str:
    """Device name from an InfiniBand node description: its first word (or host of MF0;host:)."""
    desc = description.strip()
    m = _MELLANOX_DESC_RE.match(desc)
    if m:
        return m.group(1)
    return desc.split(maxsplit=1)[0] if desc else guid


_ADAPTER_RE = re.compile(r"\S+[ \t]+mlx5_([0-9]{1,5})")


def adapter_port(description: str, port: str) -> str:
    """The host's port of ``port`` on the adapter described ``description``: K + port for
    ``"HOST mlx5_K"`` (the plan's NIC k is adapter ``mlx5_<k-1>``, as
    ``planner.exports.fabric_checkers.hca_description`` writes it), else ``port`` as given."""
    m = _ADAPTER_RE.fullmatch(description.strip())
    if m is None or int(m.group(1)) == 0 or not port.strip().isdigit():
        return port
    return str(int(m.group(1)) + int(port))


def _last_quoted(comment: str) -> str:
    """The last ``"..."`` of a port line's comment (the peer's node description), or ''."""
    pieces = comment.split('"')
    quoted = pieces[1:len(pieces) - 1:2]
    return quoted[-1] if quoted else ""


def parse_ibnetdiscover(text: str, source: str) -> list[RawLink]:
    """Links of ``ibnetdiscover`` output; peers are named by their own block when present,
    otherwise by the description in the port line's comment."""
    names, descriptions, ports, node = {}, {}, [], None
    for n, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        m = _IB_NODE_RE.match(line)
        if m:
            node = m.group(3)
            names[node] = ib_device_name(m.group(4) or "", node)
            descriptions[node] = m.group(4) or ""
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
    return [raw_link(names[node], adapter_port(descriptions[node], port),
                     names.get(peer) or ib_device_name(desc, peer),
                     adapter_port(descriptions.get(peer, desc), peer_port), f"'{source}' line {n}",
                     _IB_FIELDS)
            for node, port, peer, peer_port, desc, n in ports]


def ibnetdiscover_columns(text: str) -> list[np.ndarray] | None:
    """The four checked columns (``checked_columns``) of ``parse_ibnetdiscover``'s links, or
    None where it would raise."""
    import pandas as pd

    found = _LINE_RE.findall(text)
    if not found:
        return None
    rows = np.array(found, dtype=object)
    is_node = rows[:, 0] != ""
    ports = np.flatnonzero(~is_node)
    if len(ports) != len(_PORT_LINE_START_RE.findall(text)) or not is_node[0]:
        return None
    nodes = np.flatnonzero(is_node)
    names = dict(zip(rows[nodes, 2].tolist(),
                     [ib_device_name(d, g) for d, g in zip(rows[nodes, 3], rows[nodes, 2])]))
    own = np.maximum.accumulate(np.where(is_node, np.arange(len(rows)), 0))[ports]
    device = pd.Series(rows[own, 2]).map(names).to_numpy(dtype=object)
    peer_guid = rows[ports, 5]
    peer = pd.Series(peer_guid).map(names).to_numpy(dtype=object)
    unnamed = np.flatnonzero(pd.isna(peer))
    peer_desc = pd.Series(peer_guid).map(dict(zip(rows[nodes, 2], rows[nodes, 3]))) \
        .to_numpy(dtype=object)
    peer_desc[unnamed] = [_last_quoted(c) for c in rows[ports[unnamed], 7]]
    peer[unnamed] = [ib_device_name(d, g) for d, g in zip(peer_desc[unnamed], peer_guid[unnamed])]
    own_desc = rows[own, 3]
    return checked_columns([device, adapter_ports(own_desc, rows[ports, 4]), peer,
                            adapter_ports(peer_desc, rows[ports, 6])])


def adapter_ports(descriptions: np.ndarray, ports: np.ndarray) -> np.ndarray:
    """``adapter_port`` of every row, computed once per distinct description."""
    import pandas as pd

    codes, distinct = pd.factorize(descriptions)
    adapters = np.array([_ADAPTER_RE.fullmatch(d.strip()) is not None for d in distinct]
                        + [False], dtype=bool)[codes]
    out = ports.copy()
    out[adapters] = [adapter_port(d, p) for d, p in zip(descriptions[adapters], ports[adapters])]
    return out
