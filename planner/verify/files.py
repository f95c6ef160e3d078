"""Input files of verification as text: the size limits and UTF-8 decoding shared by the plan
and the observed readers."""

from __future__ import annotations

from pathlib import Path

from planner.run import guards
from planner.run.errors import InputError

MAX_BYTES = 512 * 2 ** 20
"""Size of a plan's cables.csv or an observed file: a 1M-endpoint plan's cables.csv is about
250 MB (2.1 M cables, benchmarks/RESULTS.md)."""

MAX_FIELD_CHARS = 255
"""Length of a device name or a port name in an observed file: IEEE 802.1AB (LLDP) carries a
chassis ID, port ID and system name in at most 255 octets, and a DNS host name is at most 253
(RFC 1035); InfiniBand node descriptions are 64 bytes."""

MAX_PORT_NUMBER = 65_535
"""Largest port number read (16 bits): InfiniBand numbers ports in 8 bits and the planner
refuses router models over 4,096 ports (``planner.run.guards.MAX_RADIX``)."""


def read_text(path: Path, what: str) -> str:
    raw = guards.read_input(path, f"{what} '{path}'", MAX_BYTES)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"{what} '{path}': not UTF-8 text ({err.reason} at byte "
                         f"{err.start})") from None
