"""Values of as-built verification: the formats, scopes and kinds of mistake, the planned
cables, the observed links (raw and resolved), the findings and the report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

FORMATS = ("csv", "lldp", "ibnetdiscover", "ibdiagnet-net-dump", "ufm-ndt-report")
SCOPES = ("all", "network", "endpoint")
KINDS = ("swap", "wrong-port", "wrong-device", "missing", "extra")
PLAN_COLUMNS = ("cable_id", "label", "kind", "a_device", "a_port", "a_cabinet",
                "b_device", "b_port", "b_cabinet")
CSV_COLUMNS = ("device", "port", "peer_device", "peer_port")

End = tuple[str, int]


class PlannedCable(NamedTuple):
    """One row of the plan's cables.csv, reduced to what verification needs."""

    cable_id: str
    label: str
    kind: str
    a: End
    b: End
    a_cabinet: str
    b_cabinet: str


PORT_SPAN = 65_536
"""End keys: ``device code * PORT_SPAN + port`` (ports are at most ``MAX_PORT_NUMBER``, 65,535),
so an end is one int64 and a million links join and sort as numbers."""


@dataclass(frozen=True, eq=False)
class PlannedFabric:
    """The planned cables as columns, one entry per cable in plan order: ``a_dev``/``b_dev``
    index ``devices`` (the plan's device names); and the cabinet of every planned device."""

    devices: np.ndarray
    a_dev: np.ndarray
    a_port: np.ndarray
    b_dev: np.ndarray
    b_port: np.ndarray
    cable_id: np.ndarray
    label: np.ndarray
    kind: np.ndarray
    a_cabinet: np.ndarray
    b_cabinet: np.ndarray
    cabinet_of: dict[str, str] = field(repr=False)

    def __len__(self) -> int:
        return len(self.kind)

    def cable(self, i: int) -> PlannedCable:
        return PlannedCable(self.cable_id[i], self.label[i], self.kind[i],
                            (self.devices[self.a_dev[i]], int(self.a_port[i])),
                            (self.devices[self.b_dev[i]], int(self.b_port[i])),
                            self.a_cabinet[i], self.b_cabinet[i])

    @cached_property
    def cables(self) -> tuple[PlannedCable, ...]:
        """The cables as ``PlannedCable`` values (built on first use)."""
        return tuple(self.cable(i) for i in range(len(self)))

    @cached_property
    def routers(self) -> frozenset[str]:
        net = self.kind == "network"
        return frozenset(self.devices[np.union1d(self.a_dev[net], self.b_dev[net])])


class RawLink(NamedTuple):
    """One observed neighbour relation as read from a file, before name resolution."""

    device: str
    port: str
    peer_device: str
    peer_port: str
    where: str


class ObservedLink(NamedTuple):
    """A deduplicated observed cable between two resolved ends."""

    a: End
    b: End
    where: str


@dataclass(frozen=True, eq=False)
class LinkTable:
    """Resolved, deduplicated observed links as columns: each link's two ends as end keys
    (``PORT_SPAN``) whose device codes index ``names``: the plan's ``devices`` first, then the
    observed names the plan does not hold."""

    names: np.ndarray
    a: np.ndarray
    b: np.ndarray

    def __len__(self) -> int:
        return len(self.a)

    def end(self, key: int) -> End:
        return self.names[key // PORT_SPAN], int(key % PORT_SPAN)


@dataclass(frozen=True)
class Finding:
    """One physical mistake: the cable(s) it concerns, what was planned against what was
    seen."""

    kind: str
    cable_id: str
    label: str
    a_cabinet: str
    b_cabinet: str
    expected: str
    observed: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class VerifyReport:
    """Result of a comparison: counts and the findings, ordered by kind then plan order."""

    planned: int
    observed: int
    matched: int
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not self.findings

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(KINDS, 0)
        for f in self.findings:
            out[f.kind] += 1
        return out

    def summary(self) -> str:
        head = (f"{self.planned} planned cables, {self.observed} observed links, "
                f"{self.matched} match")
        if self.ok:
            return f"{head}: the fabric matches the plan"
        detail = ", ".join(f"{n} {k}" for k, n in self.counts().items() if n)
        noun = "mistake" if len(self.findings) == 1 else "mistakes"
        return f"{head}; {len(self.findings)} {noun}: {detail}"

    def to_dict(self) -> dict:
        return {"ok": self.ok, "planned": self.planned, "observed": self.observed,
                "matched": self.matched, "counts": self.counts(),
                "findings": [f.to_dict() for f in self.findings]}
