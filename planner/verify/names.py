"""Device names and port numbers of observed links, resolved to the plan's.

Names: a device matches a plan device after trimming whitespace, case-insensitively on the
letter prefix and ignoring zero padding (``r12`` == ``r012`` == ``R0012``); a fully qualified
name matches by its first label (``r012.fabric.example`` -> ``r012``). Ports are the last
integer in the port name (``swp17``, ``Ethernet1/17``, ``eth17``, ``p17``, ``17``, ``[17]`` ->
17), so they must use the plan's port numbering (``planner.verify.fields.port_number``).
"""

from __future__ import annotations

from planner.verify.fields import name_key
from planner.verify.values import End


class Names:
    """Resolve observed device names to plan device names (see module docstring)."""

    def __init__(self, plan_devices):
        self.exact = set(plan_devices)
        self.by_key = {}
        for name in sorted(self.exact):
            key = name_key(name)
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
            key = name_key(cand)
            if key is not None and key in self.by_key:
                return self.by_key[key]
        return name


def fmt_end(end: End) -> str:
    return f"{end[0]}:{end[1]}"


def fmt_link(a: End, b: End) -> str:
    return f"{fmt_end(a)} - {fmt_end(b)}"
