"""Values of as-built verification: the formats, scopes and kinds of mistake, the planned
cables, the observed links (raw and resolved), the findings and the report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import NamedTuple

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


@dataclass(frozen=True)
class PlannedFabric:
    """The planned cables, and the cabinet of every planned device."""

    cables: tuple[PlannedCable, ...]
    cabinet_of: dict[str, str] = field(repr=False)

    @property
    def routers(self) -> frozenset[str]:
        return frozenset(d for c in self.cables if c.kind == "network" for d in (c.a[0], c.b[0]))


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
