"""Observed links from ibdiagnet's link list, ``ibdiagnet2.net_dump`` (written by ``ibdiagnet
--enable_output net_dump``): a block per switch, its line ``"NODE DESCRIPTION", Vendor, GUID, LID
N``, then one line per port, columns separated by ``:`` ``PORT : IB# : Sta : PhysSta : MTU :
LWA : LSA : FEC mode : Retran : Neighbor Guid : N# : NLID : "Neighbor Description"`` (the layout
UFM's NDT plugin parses, Mellanox/ufm_sdk_3.0 ``plugins/UFM_NDT_Plugin``). A port is read by its
IB port number (``IB#``, the plan's numbering; the first column is the front-panel label, e.g.
``1/16/1`` on a Quantum-2), its peer by ``N#``; ports whose state is ``DOWN`` or that name no
neighbour are not links. Names come from node descriptions as in ``ibnetdiscover``
(``planner.verify.ibnetdiscover.ib_device_name``), a host adapter ``"HOST mlx5_K"``'s port as
the host's port K + 1 (``planner.verify.ibnetdiscover.adapter_port``).

``net_dump_columns`` reads the same lines with one pass of one pattern over the whole text and
hands the file back (None) to ``parse_net_dump``, which names the line, at the first thing it
does not take as is."""

from __future__ import annotations

import re

import numpy as np

from planner.run.errors import InputError
from planner.verify.fields import checked_columns, raw_link
from planner.verify.ibnetdiscover import adapter_port, adapter_ports, ib_device_name
from planner.verify.values import RawLink

_COLUMNS = 12          # PORT ... NLID, before the quoted neighbour description
_FIELDS = ("node description", "IB#", "Neighbor Description", "N#")
_LINE_RE = re.compile(  # stripped: a node line (groups 1-2) or a port line (3-8)
    r'^[^\S\n]*+(?:(")([^\n]*)|(?!#)[^"\n:]*:([^"\n:]*):([^"\n:]*):(?:[^"\n:]*:){6}([^"\n:]*):'
    r'([^"\n:]*):[^"\n]*(?:(")(?:([^\n]*)"[^"\n]*|[^"\n]*))?)$', re.MULTILINE)
_CONTENT_LINE_RE = re.compile(r"^[^\S\n]*+[^\s#]", re.MULTILINE)


def _node(line: str, source: str, n: int) -> str:
    pieces = line.split('"')
    if len(pieces) < 3:
        raise InputError(f"observed '{source}' line {n}: node line without a closing quote; "
                         f'expected \'"NODE DESCRIPTION", Vendor, GUID, LID N\'')
    guid = pieces[2].split(",")[2].strip() if pieces[2].count(",") >= 2 else ""
    return ib_device_name(pieces[1], guid or f"line {n}")


def parse_net_dump(text: str, source: str) -> list[RawLink]:
    """Links of an ``ibdiagnet2.net_dump`` file."""
    links, node = [], None
    for n, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            node = _node(line, source, n)
            continue
        if node is None:
            raise InputError(f"observed '{source}' line {n}: port line before any node line "
                             f"'\"NODE DESCRIPTION\", Vendor, GUID, LID N'; not "
                             f"ibdiagnet2.net_dump")
        head, quote, rest = line.partition('"')
        cols = head.split(":")
        if len(cols) < _COLUMNS:
            raise InputError(f"observed '{source}' line {n}: {len(cols)} ':'-separated columns, "
                             f"expected {_COLUMNS} (PORT : IB# : Sta : ... : N# : NLID) and the "
                             f"neighbour's description")
        if cols[2].strip().upper() == "DOWN" or not quote:
            continue
        description = rest.rpartition('"')[0]
        peer = ib_device_name(description, cols[9].strip())
        links.append(raw_link(node, cols[1], peer, adapter_port(description, cols[10]),
                              f"'{source}' line {n}", _FIELDS))
    if node is None:
        raise InputError(f"observed '{source}': no node lines ('\"NODE DESCRIPTION\", Vendor, "
                         f"GUID, LID N'); not ibdiagnet2.net_dump")
    return links


def _node_name(rest: str) -> str | None:
    """``_node`` of a node line (``rest`` follows its first quote); None where ``_node`` would
    raise or name the node by its line."""
    pieces = ('"' + rest).strip().split('"')
    guid = pieces[2].split(",")[2].strip() if len(pieces) >= 3 and pieces[2].count(",") >= 2 \
        else ""
    return ib_device_name(pieces[1], guid) if guid else None


def net_dump_columns(text: str) -> list[np.ndarray] | None:
    """The four checked columns (``checked_columns``) of ``parse_net_dump``'s links, or None
    where it would raise."""
    import pandas as pd

    found = _LINE_RE.findall(text)
    if not found or len(found) != len(_CONTENT_LINE_RE.findall(text)) or not found[0][0]:
        return None
    rows = np.array(found, dtype=object)
    is_node = rows[:, 0] != ""
    nodes = np.flatnonzero(is_node)
    node_names = [_node_name(rest) for rest in rows[nodes, 1]]
    if None in node_names:
        return None
    name = np.empty(len(rows), dtype=object)
    name[nodes] = node_names
    own = name[np.maximum.accumulate(np.where(is_node, np.arange(len(rows)), 0))]
    state = pd.Series(rows[:, 3]).str.strip().str.upper().to_numpy(dtype=object)
    links = np.flatnonzero(~is_node & (rows[:, 6] != "") & (state != "DOWN"))
    codes, descriptions = pd.factorize(rows[links, 7])
    peer = np.array([ib_device_name(d, "") for d in descriptions], dtype=object)[codes] \
        if len(links) else np.array([], dtype=object)
    unnamed = np.flatnonzero(peer == "")
    peer[unnamed] = [g.strip() for g in rows[links[unnamed], 4]]
    return checked_columns([own[links], rows[links, 2], peer,
                            adapter_ports(rows[links, 7], rows[links, 5])])
