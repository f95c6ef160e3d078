"""Observed links from ibdiagnet's link list, ``ibdiagnet2.net_dump`` (written by ``ibdiagnet
--enable_output net_dump``): a block per switch, its line ``"NODE DESCRIPTION", Vendor, GUID, LID
N``, then one line per port, columns separated by ``:`` ``PORT : IB# : Sta : PhysSta : MTU :
LWA : LSA : FEC mode : Retran : Neighbor Guid : N# : NLID : "Neighbor Description"`` (the layout
UFM's NDT plugin parses, Mellanox/ufm_sdk_3.0 ``plugins/UFM_NDT_Plugin``). A port is read by its
IB port number (``IB#``, the plan's numbering; the first column is the front-panel label, e.g.
``1/16/1`` on a Quantum-2), its peer by ``N#``; ports whose state is ``DOWN`` or that name no
neighbour are not links. Names come from node descriptions as in ``ibnetdiscover``
(``planner.verify.ibnetdiscover.ib_device_name``)."""

from __future__ import annotations

from planner.run.errors import InputError
from planner.verify.fields import raw_link
from planner.verify.ibnetdiscover import ib_device_name
from planner.verify.values import RawLink

_COLUMNS = 12          # PORT ... NLID, before the quoted neighbour description
_FIELDS = ("node description", "IB#", "Neighbor Description", "N#")


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
        peer = ib_device_name(rest.rpartition('"')[0], cols[9].strip())
        links.append(raw_link(node, cols[1], peer, cols[10], f"'{source}' line {n}", _FIELDS))
    if node is None:
        raise InputError(f"observed '{source}': no node lines ('\"NODE DESCRIPTION\", Vendor, "
                         f"GUID, LID N'); not ibdiagnet2.net_dump")
    return links
