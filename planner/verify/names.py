"""Device names and port numbers of observed links, resolved to the plan's.

Names: a device matches a plan device after trimming whitespace, case-insensitively on the
letter prefix and ignoring zero padding (``r12`` == ``r012`` == ``R0012``); a fully qualified
name matches by its first label (``r012.fabric.example`` -> ``r012``). Ports are the last
integer in the port name (``swp17``, ``Ethernet1/17``, ``eth17``, ``p17``, ``17``, ``[17]`` ->
17), so they must use the plan's port numbering.
"""

from __future__ import annotations

import re
from functools import lru_cache

from planner.run.errors import InputError
from planner.verify.values import End

_NAME_RE = re.compile(r"([A-Za-z_-]*?)0*(\d+)")
LAST_INT_RE = re.compile(r"(\d+)\D*$")


def _name_key(name: str) -> tuple[str, int] | None:
    m = _NAME_RE.fullmatch(name)
    return (m.group(1).lower(), int(m.group(2))) if m else None


def port_number(text: str, where: str) -> int:
    """The last integer in a port name: ``swp17``, ``Ethernet1/17``, ``[17]`` -> 17."""
    number = _last_int(str(text))
    if number is None:
        raise InputError(f"observed {where}: port {str(text)!r} has no port number; "
                         f"expected a name ending in the plan's port number such as "
                         f"'swp17', 'Ethernet17' or '17'")
    return number


@lru_cache(maxsize=4096)
def _last_int(text: str) -> int | None:
    m = LAST_INT_RE.search(text.strip())
    return int(m.group(1)) if m else None


class Names:
    """Resolve observed device names to plan device names (see module docstring)."""

    def __init__(self, plan_devices):
        self.exact = set(plan_devices)
        self.by_key = {}
        for name in sorted(self.exact):
            key = _name_key(name)
            if key is not None:
                self.by_key.setdefault(key, name)
        self.cache: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name not in self.cache:
            self.cache[name] = self._resolve(name)
        return self.cache[name]

    def _resolve(self, name: str) -> str:
        name = str(name).strip()
        for cand in (name, name.split(".", 1)[0]):
            if cand in self.exact:
                return cand
            key = _name_key(cand)
            if key is not None and key in self.by_key:
                return self.by_key[key]
        return name


def fmt_end(end: End) -> str:
    return f"{end[0]}:{end[1]}"


def fmt_link(a: End, b: End) -> str:
    return f"{fmt_end(a)} - {fmt_end(b)}"
