"""Shared loading of the YAML input files (catalogs, floors): safe parsing and one-line errors.

- ``read_yaml`` parses with PyYAML's safe loader, refuses aliases (so "billion laughs" anchor
  bombs cannot expand), refuses tags and files over 1 MB, and wants a mapping at the top.
- ``resolve`` turns ``NAME|PATH`` into a built-in file (``<folder>/NAME.yaml``) or a path.
- ``validate`` builds a pydantic model and turns the first ``ValidationError`` into an
  ``InputError`` naming the file, the field (``cables[2].stock_lengths``), what is wrong and the fix.
- ``extends: NAME`` at the top of a file starts from a built-in (or a path relative to the file)
  and replaces the listed top-level keys, so a variant does not copy the whole file.
"""

from __future__ import annotations

import importlib.util
import re
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from planner.errors import InputError

MAX_BYTES = 1_000_000
MAX_EXTENDS_DEPTH = 4


class _StrictSafeLoader(yaml.SafeLoader):
    """Safe loader that rejects aliases (anchor bombs) and every explicit tag."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.YAMLError(f"aliases (*name) are not allowed, line {mark.line + 1}; "
                                 "write the value out")
        return super().compose_node(parent, index)

    def construct_object(self, node, deep=False):
        if node.tag and node.tag.startswith("!"):
            raise yaml.YAMLError(f"YAML tag {node.tag!r} is not allowed, line "
                                 f"{node.start_mark.line + 1}; use plain values")
        return super().construct_object(node, deep)


def builtin_dir(folder: str) -> Path:
    """The built-in files: ``catalogs/`` or ``layouts/`` at the top of the repository, shipped
    in the package as ``planner.catalogs`` / ``planner.layouts`` (pyproject.toml)."""
    try:
        spec = importlib.util.find_spec(f"planner.{folder}")
    except ModuleNotFoundError:
        spec = None
    for location in (spec.submodule_search_locations or []) if spec else []:
        if Path(location).is_dir():
            return Path(location)
    return Path(__file__).resolve().parents[1] / folder  # a source tree that is not installed


def builtin_names(folder: str) -> list[str]:
    """Sorted names of the ``*.yaml`` files of ``builtin_dir(folder)``."""
    return sorted(p.stem for p in builtin_dir(folder).glob("*.yaml"))


def resolve(name_or_path: str | Path, folder: str, what: str) -> Path:
    """A built-in name (``sc14-40g``) or a path to a YAML file; InputError naming the choices."""
    text = str(name_or_path)
    if text in builtin_names(folder):
        return builtin_dir(folder) / f"{text}.yaml"
    path = Path(text)
    if path.is_file():
        return path
    names = ", ".join(builtin_names(folder))
    if path.suffix.lower() in (".yaml", ".yml") or "/" in text or "\\" in text:
        raise InputError(f"{what} file '{text}' does not exist; give an existing YAML file "
                         f"or one of the built-ins: {names}")
    raise InputError(f"unknown {what} '{text}'; choose one of: {names}, or a path to a "
                     f"YAML file")


def read_yaml(path: Path, what: str) -> dict[str, Any]:
    """Parse one YAML file into a dict with the strict safe loader; InputError on any problem."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(f"{what} '{path}': cannot read ({err.strerror})") from None
    if len(raw) > MAX_BYTES:
        raise InputError(f"{what} '{path}': file is {len(raw)} bytes; the limit is {MAX_BYTES}")
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=_StrictSafeLoader)  # noqa: S506 - strict safe loader
    except UnicodeDecodeError as err:
        raise InputError(f"{what} '{path}': not UTF-8 text (byte 0x{err.object[err.start]:02x} "
                         f"at offset {err.start}); save it as UTF-8") from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        fix = ("; tags such as !!python/... are not allowed, use plain values"
               if "constructor for the tag" in str(err.problem) else "")
        raise InputError(f"{what} '{path}': not valid YAML{where}: {err.problem}{fix}") from None
    except yaml.YAMLError as err:
        raise InputError(f"{what} '{path}': not valid YAML: {err}") from None
    if data is None:
        raise InputError(f"{what} '{path}': the file is empty; give its fields (name: ..., "
                         "description: ...), as the built-in files do")
    if not isinstance(data, dict):
        raise InputError(f"{what} '{path}': the top level must be a mapping of fields "
                         f"(name: ..., description: ...), got {type(data).__name__}")
    return data


def load_data(path: Path, folder: str, what: str, _depth: int = 0) -> dict[str, Any]:
    """``read_yaml`` plus ``extends``: start from another file, replace the keys given here."""
    data = read_yaml(path, what)
    base_name = data.pop("extends", None)
    if base_name is None:
        return data
    if not isinstance(base_name, str):
        raise InputError(f"{what} '{path}': field 'extends' must be a {what} name or path, "
                         f"got {base_name!r}")
    if _depth >= MAX_EXTENDS_DEPTH:
        raise InputError(f"{what} '{path}': field 'extends' nests more than "
                         f"{MAX_EXTENDS_DEPTH} levels; flatten the files")
    base_path = path.parent / base_name
    if not (base_path.suffix in (".yaml", ".yml") and base_path.is_file()):
        try:
            base_path = resolve(base_name, folder, what)
        except InputError as err:
            raise InputError(f"{what} '{path}': field 'extends': {err}") from None
    base = load_data(base_path, folder, what, _depth + 1)
    base.update(data)
    return base


def _unwrap_model(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside ``X``, ``list[X]``, ``X | None``, ``dict[k, X]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _unwrap_model(arg)
        if found is not None:
            return found
    return None


def _model_at(root: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The model class that owns the last element of ``loc``."""
    cls: type[BaseModel] | None = root
    for part in loc[:-1]:
        if cls is None:
            return None
        if isinstance(part, str):
            field = cls.model_fields.get(part)
            cls = _unwrap_model(field.annotation) if field else None
    return cls


def _field_path(loc: tuple, data: dict[str, Any]) -> tuple[str, Any]:
    """``('cables', 2, 'stock_lengths')`` -> (``cables[2].stock_lengths``, SKU of that item)."""
    text, node, sku = "", data, None
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + str(part)
        if isinstance(node, (list, dict)):
            try:
                node = node[part]
            except (IndexError, KeyError, TypeError):
                node = None
            if isinstance(part, int) and isinstance(node, dict) and "sku" in node:
                sku = node["sku"]
    return text, sku


def _named(path: str, sku: Any) -> str:
    return f"field '{path}'" + (f" (sku '{sku}')" if sku is not None else "")


def _describe(error: dict[str, Any], root: type[BaseModel], data: dict[str, Any]) -> str:
    loc = tuple(error["loc"])
    path, sku = _field_path(loc, data)
    kind = error["type"]
    given = error.get("input")
    msg = error["msg"].removeprefix("Value error, ")
    if kind == "missing":
        return f"{_named(path, sku)} is missing; add it"
    if kind == "extra_forbidden":
        owner = _model_at(root, loc)
        valid = (", ".join(f.alias or name for name, f in owner.model_fields.items())
                 if owner else "see the built-in files")
        return f"unknown {_named(path, sku)}; valid fields here: {valid}"
    if kind == "value_error":
        if msg.startswith("field '"):
            sub, _, rest = msg[len("field '"):].partition("'")
            return f"{_named(f'{path}.{sub}' if path else sub, sku)}{rest}"
        return f"{_named(path, sku)} {msg}" if path else msg
    msg = re.sub(r"^\w+ should", "must", msg)
    msg = re.sub(r" after validation, not \d+", "", msg)
    return f"{_named(path, sku)} {msg}, got {given!r}"


def validate(model: type[BaseModel], data: dict[str, Any], path: Path | str, what: str):
    """``model.model_validate(data)``; the first error becomes a one-line InputError."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        raise InputError(f"{what} '{path}': {_describe(first, model, data)}") from None


def load(model: type[BaseModel], name_or_path: str | Path, folder: str, what: str):
    """A built-in (by name) or a YAML file validated into ``model``; the result's ``_source`` is
    the name or path that its error messages give."""
    path = resolve(name_or_path, folder, what)
    data = load_data(path, folder, what)
    shown = path.stem if path.parent == builtin_dir(folder) else str(path)
    loaded = validate(model, data, shown, what)
    loaded._source = shown
    return loaded
