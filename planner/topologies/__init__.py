"""Topology builders, one module per family, behind one registry: the first stage.

Takes a family name and its parameters, or a file (GraphML, edge-list CSV, BookSim anynet);
hands on a ``Topology`` (routers, links with multiplicity, endpoints per router, roles and
grouping hints) to placement. Beside the builders: ``importers``, ``sizing`` (closed-form
counts, like-for-like sizes, the size guard), ``metrics`` and ``gf`` (GF(q) arithmetic).

``build("slimfly", q=19, p=13)`` checks the family and parameter names, converts text values
(from the command line or a spec string) and calls the builder. ``parse_spec`` reads
``"family:k=v,k=v"`` and ``"file:PATH"`` (GraphML, edge-list CSV, BookSim anynet by extension;
``file:PATH?p=4`` gives a uniform p to files that carry no endpoint counts).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from planner.run.errors import InputError
from planner.topologies.base import Topology
from planner.topologies.dragonfly import dragonfly
from planner.topologies.dragonflyplus import dragonflyplus
from planner.topologies.fattree import fattree
from planner.topologies.galaxyfly import galaxyfly
from planner.topologies.hypercube import hypercube
from planner.topologies.hyperx import hyperx
from planner.topologies.jellyfish import jellyfish
from planner.topologies.mlfm import mlfm
from planner.topologies.multiplane import multiplane
from planner.topologies.oft import oft
from planner.topologies.projective import demipn, pn
from planner.topologies.railfattree import railfattree
from planner.topologies.slimfly import slimfly
from planner.topologies.torus import torus

FAMILIES: dict[str, Callable[..., Topology]] = {
    "slimfly": slimfly,
    "dragonfly": dragonfly,
    "fattree": fattree,
    "hyperx": hyperx,
    "oft": oft,
    "mlfm": mlfm,
    "pn": pn,
    "demipn": demipn,
    "galaxyfly": galaxyfly,
    "jellyfish": jellyfish,
    "torus": torus,
    "hypercube": hypercube,
    "railfattree": railfattree,
    "multiplane": multiplane,
    "dragonflyplus": dragonflyplus,
}
ALIASES = {"polarfly": "demipn", "sf": "slimfly", "df": "dragonfly", "hamming": "hyperx",
           "flattenedbutterfly": "hyperx", "fbfly": "hyperx",
           "rail": "railfattree", "railoptimized": "railfattree", "megafly": "dragonflyplus",
           "dfplus": "dragonflyplus"}

__all__ = ["FAMILIES", "ALIASES", "Topology", "build", "canonical_family", "check_radix",
           "family_parameters", "parse_spec", "split_params"]


def canonical_family(family: str) -> str:
    """Registry name of ``family`` (aliases such as 'polarfly' resolved); InputError if unknown."""
    name = str(family).strip().lower().replace("-", "").replace("_", "")
    name = ALIASES.get(name, name)
    if name not in FAMILIES:
        raise InputError(f"unknown topology family {family!r}; valid families: "
                         f"{', '.join(FAMILIES)} (or file:PATH)")
    return name


def family_parameters(family: str) -> tuple[list[str], list[str]]:
    """(required, optional) parameter names of a family's builder."""
    sig = inspect.signature(FAMILIES[canonical_family(family)])
    required = [n for n, prm in sig.parameters.items() if prm.default is inspect.Parameter.empty]
    optional = [n for n, prm in sig.parameters.items() if prm.default is not inspect.Parameter.empty]
    return required, optional


def _none_if_default(value: Any) -> Any:
    """'none' / 'default' / '' from the command line means "use the default"; other values go
    to the builder, which converts and checks them ('22x22' and '22,22' are lists)."""
    if isinstance(value, str) and value.strip().lower() in ("", "none", "default"):
        return None
    return value


def build(family: str, **params: Any) -> Topology:
    """Build a topology of a registered family; InputError for an unknown family, unknown or
    missing parameters, or values the builder rejects."""
    name = canonical_family(family)
    required, optional = family_parameters(name)
    valid = required + optional
    for key in params:
        if key not in valid:
            raise InputError(f"{name}: unknown parameter {key!r}; valid parameters: "
                             f"{', '.join(valid)}")
    values = {k: _none_if_default(v) for k, v in params.items()}
    missing = [k for k in required if values.get(k) is None]
    if missing:
        raise InputError(f"{name}: missing parameter {missing[0]!r} (required: "
                         f"{', '.join(required)}; optional: {', '.join(optional) or 'none'})")
    top = FAMILIES[name](**{k: v for k, v in values.items() if v is not None or k in required})
    # parameters the builder chose itself (planner.topologies.defaults reports them)
    top.extra["defaulted"] = [k for k in top.params if values.get(k) is None]
    return top


def check_radix(top: Topology, max_radix: int | None) -> Topology:
    """InputError if the topology needs routers of more ports than ``max_radix``."""
    if max_radix is not None and top.radix > max_radix:
        raise InputError(f"{top.family}: parameters {_describe(top.params)} need radix "
                         f"{top.radix} (network {int(top.degree.max())} + endpoint ports), "
                         f"above --max-radix {max_radix}; choose smaller parameters or fewer "
                         f"endpoints per router (p)")
    return top


def _describe(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={'x'.join(map(str, v)) if isinstance(v, list) else v}"
                    for k, v in params.items())


def split_params(text: str, where: str) -> dict[str, str]:
    """'q=19,p=13' -> {'q': '19', 'p': '13'}; a token without '=' continues the previous list
    value ('S=22,22,p=4' -> S='22,22', p='4')."""
    params: dict[str, str] = {}
    last = None
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if "=" in token:
            key, _, value = token.partition("=")
            key = key.strip()
            if not key:
                raise InputError(f"{where}: empty parameter name in {token!r}; write k=v")
            if key in params:
                raise InputError(f"{where}: parameter {key!r} given twice")
            params[key], last = value.strip(), key
        elif last is not None:
            params[last] += "," + token
        else:
            raise InputError(f"{where}: expected k=v, got {token!r}")
    return params


def parse_spec(spec: str) -> Topology:
    """'family:k=v,k=v' (e.g. 'slimfly:q=19,p=13', 'hyperx:S=22x22') or 'file:PATH[?p=N]'."""
    text = str(spec).strip()
    if text.startswith("file:"):
        from planner.topologies.importers import load
        path, _, query = text[5:].partition("?")
        extra = split_params(query.replace("&", ","), f"topology {text!r}") if query else {}
        unknown = sorted(set(extra) - {"p"})
        if unknown:
            raise InputError(f"topology {text!r}: unknown option {unknown[0]!r}; only "
                             f"'?p=N' (uniform endpoints per router) is accepted")
        return load(path, p=extra.get("p"))
    family, _, rest = text.partition(":")
    return build(family, **split_params(rest, f"topology {text!r}"))
