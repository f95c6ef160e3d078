"""Like-for-like configurations: what ``planner compare`` plans.

A ``Configuration`` is one family and its builder parameters (the ``planner plan --topology``
string). ``nearest_configurations`` sizes every family for the target endpoint count at its
balanced endpoints per router for the switch radix (``planner.topologies.sizing.
like_for_like``) and gives the reason each family that cannot be sized sanely is not compared.
A ``CompareSpec`` file lists a target, explicit configurations, or both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence

from pydantic import (BaseModel, ConfigDict, Field, NonNegativeInt, PositiveFloat,
                      PositiveInt)

from planner.run.errors import InputError


@dataclass(frozen=True)
class Configuration:
    """One topology to plan: a family and its builder parameters (``planner topology`` terms)."""

    family: str
    params: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, family: str, params: dict[str, Any]) -> "Configuration":
        return cls(family, tuple((str(k), tuple(v) if isinstance(v, list) else v)
                                 for k, v in params.items() if v is not None))

    @classmethod
    def parse(cls, spec: str, where: str = "configuration") -> "Configuration":
        """``"slimfly:q=19,p=13"`` -> Configuration (the ``planner plan --topology`` string)."""
        family, _, rest = spec.strip().partition(":")
        if not family or family == "file":
            raise InputError(f"{where}: expected FAMILY:k=v,k=v (e.g. 'slimfly:q=19,p=13'), "
                             f"got {spec!r}")
        params: list[tuple[str, Any]] = []
        for item in filter(None, (s.strip() for s in rest.split(","))):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise InputError(f"{where}: parameter {item!r} in {spec!r} must be k=v")
            params.append((key.strip(), _scalar(value.strip())))
        return cls(family.strip(), tuple(params))

    @property
    def params_text(self) -> str:
        """``q=19,p=13``: the parameters as written after ``FAMILY:``."""
        return ",".join(f"{k}={param_text(v)}" for k, v in self.params)

    @property
    def spec(self) -> str:
        return f"{self.family}:{self.params_text}" if self.params else self.family

    @property
    def slug(self) -> str:
        """Folder name ``<family>-<params>`` (``slimfly-q19-p13``), filesystem-safe."""
        parts = [self.family] + [f"{k}{param_text(v)}" for k, v in self.params]
        return re.sub(r"[^A-Za-z0-9._+-]", "_", "-".join(parts))


def _scalar(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def param_text(value: Any) -> str:
    """A parameter value as a spec writes it: a list as ``8x8x8``."""
    if isinstance(value, (list, tuple)):
        return "x".join(str(v) for v in value)
    return str(value)


def nearest_configurations(endpoints: int, max_radix: int,
                           families: Sequence[str] | None = None
                           ) -> tuple[list[Configuration], list[tuple[str, str]]]:
    """Like-for-like configurations for ``endpoints`` on ``max_radix``-port routers (one per
    family that can be sized sanely, ``sizing.like_for_like``) and (family, reason) for the
    others. InputError when no family is left."""
    from planner.topologies import sizing

    if endpoints <= 0:
        raise InputError(f"--endpoints must be a positive integer, got {endpoints}")
    chosen, excluded = sizing.like_for_like(endpoints, max_radix,
                                            list(families) if families else None)
    if not chosen:
        reasons = "; ".join(f"{f}: {why}" for f, why in excluded)
        raise InputError(f"--endpoints {endpoints} on {max_radix}-port routers: no family can "
                         f"be sized like for like ({reasons}); change --max-radix, --endpoints "
                         "or --families")
    return [Configuration.of(o.family, o.params) for o in chosen], excluded


class CompareSpec(BaseModel):
    """A ``planner compare`` spec file (YAML). Command-line options override its fields.

    Either ``endpoints`` (with optional ``families`` and ``max_radix``: the nearest
    configuration per family) or ``configurations`` (explicit ``FAMILY:k=v,...`` strings), or
    both (explicit ones first).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    title: str | None = None
    endpoints: PositiveInt | None = None
    families: list[str] | None = None
    max_radix: PositiveInt | None = None
    configurations: list[str] = Field(default_factory=list)
    catalog: str | None = None
    floor: str | None = None
    strategy: Literal["hint", "partition", "optimize"] | None = None
    time_limit: PositiveFloat | None = None
    seed: NonNegativeInt | None = None
    group_endpoints: PositiveInt | None = None
    endpoint_cables: bool | None = None


def load_spec(path: str | Path) -> CompareSpec:
    """Read and validate a compare spec file; InputError naming the file and field."""
    from planner.inputs import schema

    path = Path(path)
    if not path.is_file():
        raise InputError(f"compare spec '{path}' does not exist; give a YAML file")
    return schema.validate(CompareSpec, schema.read_yaml(path, "compare spec"), path,
                           "compare spec")


# ----------------------------------------------------------------------------- checked sizes

def refusal(option, catalog, floor, endpoint_cables: bool = True) -> str | None:
    """Why ``planner plan`` would refuse ``option`` (a ``planner.topologies.sizing.SizeOption``)
    on ``catalog`` and ``floor`` before placement, or None when it passes every check that does
    not need a placement: the router model, cabinets and halls, the kW budget, structured
    cabling, cages and breakout (``planner.inputs.feasibility``) and the memory estimate
    (``planner.run.guards``)."""
    from planner.costing import fabric, power
    from planner.inputs import feasibility
    from planner.inputs import floor as floors
    from planner.inputs.parts import structured
    from planner.run import guards

    per_router = option.params.get("p")
    if option.family == "fattree":
        per_router = option.radix // 2
    elif option.family == "railfattree":      # a leaf holds one NIC of each of its servers
        from planner.topologies.railfattree import shape as rail_shape
        per_router = rail_shape(**option.params).per_leaf
    elif option.family in ("multiplane", "dragonflyplus"):   # ⌈R/2⌉ per leaf
        per_router = option.params["radix"] - option.params["radix"] // 2
    shape = feasibility.Shape.of_counts(option.routers, option.endpoints, option.radix,
                                        per_router if isinstance(per_router, int) else None)
    try:
        router_model = catalog.router_for(option.radix)
        guards.check_router_model(catalog, router_model)
        fabric.check_managed(catalog, router_model)
        guards.check_counts(option.spec(), option.links, option.endpoints, option.routers,
                            router_model.radix, endpoint_cables)
        floors.check_capacity(floor, shape, router_model)
        structured.check_catalog(catalog, floor, router_model)
        within = power.fit_budget(floor, shape, catalog, router_model, endpoint_cables)
        feasibility.check(shape, catalog, within, router_model, endpoint_cables, given=floor)
    except InputError as err:
        return str(err)
    return None


def nearest_checked(endpoints: int, max_radix: int, families: Sequence[str] | None,
                    count: int, catalog, floor, endpoint_cables: bool = True):
    """``planner.topologies.sizing.nearest`` keeping only configurations that pass ``refusal``
    on ``catalog`` and ``floor``: (per family, up to ``count`` options best first; the better
    ranked options left out, each with its reason)."""
    from planner.topologies import sizing

    ranked = sizing.nearest(endpoints, max_radix, list(families) if families else None,
                            count=10 ** 9)
    found: dict[str, list] = {}
    refused: list[tuple[Any, str]] = []
    for family, options in ranked.items():
        found[family] = []
        for option in options:
            if len(found[family]) == count:
                break
            why = refusal(option, catalog, floor, endpoint_cables)
            if why is None:
                found[family].append(option)
            else:
                refused.append((option, why))
    return found, refused
