"""The ``planner plan`` spec file: a YAML file with the same fields as the command line.

```yaml
topology: slimfly:q=19,p=15      # or {family: slimfly, q: 19, p: 15}, or file:net.graphml
catalog: modern-100g             # built-in name or path to a catalog YAML
floor: hot-aisle                 # built-in name or path to a floor YAML
out: plan                        # output folder
strategy: optimize               # hint | partition | optimize
time_limit: 10                   # seconds for placement: sizes its budgets, caps the wall clock
seed: 0
group_endpoints: null            # override the floor's electrical group size (endpoints)
endpoint_cables: true            # false = router-router cables only (the papers' tables)
spares: 0                        # spare cables and fibre, % per BOM line
spares_optics: 0                 # spare transceivers, % per BOM line
spares_switches: 0               # spare switches, % of the switch line
```

Relative paths in a spec file (catalog, floor, ``file:`` topologies, out) are relative to the
spec file's folder. Command-line options override the file; fields left out take the built-in
default, which plans a real ~10K-endpoint Slim Fly (q=19, p=15: 722 routers of radix 44,
10,830 endpoints) on the ``modern-100g`` catalog in the ``hot-aisle`` hall into ``./plan``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, NonNegativeFloat, PositiveFloat, PositiveInt,
                      ValidationError)

from planner.inputs import schema
from planner.inputs.tuning import (DEFAULT_TIME_LIMIT_S, MAX_SEED, MAX_SPARES_PCT,
                                    MAX_TIME_LIMIT_S)
from planner.run import guards, memory
from planner.run.errors import InputError

DEFAULT_TOPOLOGY = "slimfly:q=19,p=15"
DEFAULT_CATALOG = "modern-100g"
DEFAULT_FLOOR = "hot-aisle"
DEFAULT_OUT = "plan"


class Spec(BaseModel):
    """Everything ``planner plan`` needs; field names match the command-line options."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    topology: str | dict[str, Any] = DEFAULT_TOPOLOGY
    catalog: str = DEFAULT_CATALOG
    floor: str = DEFAULT_FLOOR
    out: str = DEFAULT_OUT
    strategy: Literal["hint", "partition", "optimize"] = "optimize"
    time_limit: PositiveFloat = Field(DEFAULT_TIME_LIMIT_S, le=MAX_TIME_LIMIT_S)
    seed: int = Field(0, ge=0, le=MAX_SEED)
    group_endpoints: PositiveInt | None = Field(None, le=guards.MAX_CABLES)
    endpoint_cables: bool = True
    spares: NonNegativeFloat = Field(0.0, le=MAX_SPARES_PCT)
    spares_optics: NonNegativeFloat = Field(0.0, le=MAX_SPARES_PCT)
    spares_switches: NonNegativeFloat = Field(0.0, le=MAX_SPARES_PCT)
    writers: PositiveInt | None = Field(None, le=memory.MAX_WRITERS)


def _relative(value: str, base: Path, prefix: str = "") -> str:
    """``value`` with a relative path part resolved against ``base``."""
    body = value[len(prefix):]
    path = Path(body).expanduser()
    if path.is_absolute():
        return value
    return prefix + str(base / path)


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.lower().endswith((".yaml", ".yml"))


def load_spec(path: str | Path) -> Spec:
    """Read and validate a spec file; InputError with the file and the field otherwise."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"spec file '{path}' does not exist; give a YAML file with the fields "
                         "topology, catalog, floor, out, ...")
    guards.regular_file(path, f"spec file '{path}'")
    data = schema.read_yaml(path, "spec")
    spec = schema.validate(Spec, data, str(path), "spec")
    if isinstance(spec.topology, dict):
        _check_topology_mapping(spec.topology, f"spec '{path}'")
    base = path.parent
    update: dict[str, Any] = {}
    if isinstance(spec.topology, str) and spec.topology.startswith("file:"):
        update["topology"] = _relative(spec.topology, base, "file:")
    for key in ("catalog", "floor"):
        value = getattr(spec, key)
        if key in data and _looks_like_path(value):
            update[key] = _relative(value, base)
    if "out" in data:
        update["out"] = _relative(spec.out, base)
    return spec.model_copy(update=update)


def merge(spec: Spec, overrides: dict[str, Any]) -> Spec:
    """``spec`` with every override that is not None (command-line options win)."""
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Spec.model_validate({**spec.model_dump(), **given})
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        field = str(first["loc"][0]) if first["loc"] else "?"
        msg = first["msg"].removeprefix("Value error, ").replace("Input should", "must")
        given = first.get("input")
        shown = guards._amount(given) if isinstance(given, int) and given > 10 ** 15 else \
            repr(given)
        raise InputError(f"--{field.replace('_', '-')} {msg}, got {shown}") from None


def _check_topology_mapping(topology: dict[str, Any], where: str) -> tuple[str, dict]:
    """(family, parameters) of a ``{family: ..., k: v}`` topology; InputError naming ``where``."""
    params = dict(topology)
    family = params.pop("family", None)
    nested = params.pop("params", None)
    if nested is not None:
        if not isinstance(nested, dict):
            raise InputError(f"{where}: field 'topology.params' must be a mapping of "
                             f"parameters, got {nested!r}")
        twice = sorted(set(params) & set(nested), key=str)
        if twice:
            raise InputError(f"{where}: parameter {twice[0]!r} is given twice, in "
                             "'topology' and in 'topology.params'; give it once")
        params.update(nested)
    if not isinstance(family, str):
        raise InputError(f"{where}: field 'topology.family' is missing; give e.g. "
                         "{family: slimfly, q: 19, p: 15} or 'slimfly:q=19,p=15'")
    return family, params


def topology_of(spec: Spec):
    """Build the spec's topology (``family:k=v,...``, ``file:PATH`` or a mapping)."""
    from planner import topologies
    if isinstance(spec.topology, str):
        return topologies.parse_spec(spec.topology)
    family, params = _check_topology_mapping(spec.topology, "spec")
    return topologies.build(family, **params)


def describe_topology(spec: Spec) -> str:
    """The topology as ``family:k=v,...`` text (for messages and the summary table)."""
    if isinstance(spec.topology, str):
        return spec.topology
    params = dict(spec.topology)
    family = params.pop("family", "?")
    params.update(params.pop("params", None) or {})
    return f"{family}:" + ",".join(f"{k}={v}" for k, v in params.items())
