"""Shared loading of the YAML input files (catalogs, floors, specs): safe parsing, strict
numbers and one-line errors.

- ``read_yaml`` parses with PyYAML's safe loader, refuses aliases (so "billion laughs" anchor
  bombs cannot expand), every explicit tag (``!include``, and the standard ``!!binary``,
  ``!!set``, ``!!python/...`` alike), duplicate keys (YAML 1.2 forbids them; PyYAML keeps the last),
  nesting deeper than ``MAX_DEPTH`` and anything but a regular file of at most 1 MB (limits:
  ``planner.inputs.tuning``), and wants a mapping at the top. ``1e3`` is a number, as in YAML
  1.2 and JSON (YAML 1.1 wants ``1.0e3``).
- ``resolve`` turns ``NAME|PATH`` into a built-in file (``<folder>/NAME.yaml``) or a path.
- ``validate`` first walks the parsed data against the model (``check_values``): every number
  must be finite and within ``MAX_NUMBER``, and a field the model types as a number takes a
  number only (no ``true``, no quoted text). So every numeric field of every model, including
  fields added later, is checked without code of its own. Then it builds the pydantic model and
  turns the first ``ValidationError`` into an ``InputError`` naming the file, the field
  (``cables[2].stock_lengths``), what is wrong and the fix. Every text of the file (a SKU, a
  name, a part number) is bounded (``MAX_TEXT``) and holds no control characters (``check_text``):
  they would reach terminals, labels, CSV and NetBox files as they are.
- ``extends: NAME`` at the top of a file starts from a built-in (or a path relative to the file)
  and replaces the listed top-level keys, so a variant does not copy the whole file.
"""

from __future__ import annotations

import importlib.util
import math
import re
import typing
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ValidationError
from yaml.constructor import ConstructorError

from planner.inputs.tuning import (LONG_TEXT_FIELDS, MAX_BYTES, MAX_DEPTH, MAX_EXTENDS_DEPTH,
                                   MAX_NUMBER, MAX_TEXT)
from planner.run import guards
from planner.run.errors import InputError
from planner.run.terminal import printable


_FLOAT_TEXT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+"
                         r"|\.?(?:inf|infinity|nan))$", re.IGNORECASE)
_FLOAT_1_2 = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")


class _StrictSafeLoader(yaml.SafeLoader):
    """Safe loader that rejects aliases (anchor bombs), every explicit tag, duplicate keys and
    deep nesting, and reads ``1e3`` as a number."""

    _depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.YAMLError(f"aliases (*name) are not allowed, line {mark.line + 1}; "
                                 "write the value out")
        event = self.peek_event()
        tag = getattr(event, "tag", None)   # a tag written in the file, not one resolved
        if tag in self.yaml_constructors and tag is not None:    # standard: !!binary, !!set
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            raise yaml.YAMLError(f"YAML tag {shown!r} is not allowed, line "
                                 f"{event.start_mark.line + 1}; use plain values")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise yaml.YAMLError(f"nesting deeper than {MAX_DEPTH} levels at line "
                                     f"{mark.line + 1}; flatten the file")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_object(self, node, deep=False):
        if node.tag and node.tag.startswith("!"):
            raise yaml.YAMLError(f"YAML tag {node.tag!r} is not allowed, line "
                                 f"{node.start_mark.line + 1}; use plain values")
        return super().construct_object(node, deep)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first: dict[Any, Any] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    mark = first.setdefault(key, key_node.start_mark)
                except TypeError:       # an unhashable key: the base class reports it
                    continue
                if mark is not key_node.start_mark:
                    raise ConstructorError(None, None, f"key {key!r} given twice (first at line "
                                           f"{mark.line + 1}); give each key once",
                                           key_node.start_mark)
        return super().construct_mapping(node, deep)


_StrictSafeLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_1_2,
                                        list("-+0123456789"))


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
    return Path(__file__).resolve().parents[2] / folder  # a source tree that is not installed


def builtin_names(folder: str) -> list[str]:
    """Sorted names of the ``*.yaml`` files of ``builtin_dir(folder)``."""
    return sorted(p.stem for p in builtin_dir(folder).glob("*.yaml"))


def resolve(name_or_path: str | Path, folder: str, what: str) -> Path:
    """A built-in name (``sc14-40g``) or a path to a YAML file; InputError naming the choices."""
    text = str(name_or_path)
    if text in builtin_names(folder):
        return builtin_dir(folder) / f"{text}.yaml"
    path = Path(text)
    try:
        found = path.exists()
    except OSError as err:          # a name longer than the file system allows (ENAMETOOLONG)
        raise InputError(f"{what} file '{text}': {err.strerror}; give a shorter path or one of "
                         f"the built-ins: {', '.join(builtin_names(folder))}") from None
    if found:
        return guards.regular_file(path, f"{what} file '{text}'")
    names = ", ".join(builtin_names(folder))
    if path.is_symlink():
        raise InputError(f"{what} file '{text}' is a symbolic link that leads to no file (a "
                         f"loop of links, or a missing target); point it at a YAML file")
    if path.suffix.lower() in (".yaml", ".yml") or "/" in text or "\\" in text:
        raise InputError(f"{what} file '{text}' does not exist; give an existing YAML file "
                         f"or one of the built-ins: {names}")
    raise InputError(f"unknown {what} '{text}'; choose one of: {names}, or a path to a "
                     f"YAML file")


def read_yaml(path: Path, what: str) -> dict[str, Any]:
    """Parse one YAML file into a dict with the strict safe loader; InputError on any problem."""
    raw = guards.read_input(path, f"{what} '{path}'", MAX_BYTES)
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
    except RecursionError:
        raise InputError(f"{what} '{path}': not valid YAML: nested too deeply; flatten the "
                         "file") from None
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


# ----------------------------------------------------------------------------- strict numbers

def _strip(annotation: Any) -> Any:
    """``X`` of ``Annotated[X, ...]`` (pydantic's PositiveInt, NonNegativeFloat, ...)."""
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _number_kind(annotation: Any) -> str | None:
    """``"an integer"`` / ``"a number"`` when the annotation takes only numbers (and None)."""
    annotation = _strip(annotation)
    if annotation is int:
        return "an integer"
    if annotation is float:
        return "a number"
    origin = typing.get_origin(annotation)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        kinds = {_number_kind(a) for a in typing.get_args(annotation) if a is not type(None)}
        if kinds and None not in kinds:
            return "an integer" if kinds == {"an integer"} else "a number"
    return None


def _bad_number(value: Any, kind: str | None) -> str | None:
    """What is wrong with ``value`` where a field of ``kind`` (None: any type) stands."""
    if isinstance(value, bool):
        return f"must be {kind}, got {str(value).lower()} (a yes/no value)" if kind else None
    if isinstance(value, float):
        if not math.isfinite(value):
            return f"must be a finite number, got {value}"
        if abs(value) > MAX_NUMBER:
            return f"is {value:g}, out of range (at most {MAX_NUMBER:g} in magnitude)"
        return None
    if isinstance(value, int):
        if abs(value) > MAX_NUMBER:
            return f"is {guards._amount(abs(value))}, out of range (at most {MAX_NUMBER:g} in " \
                   "magnitude)"
        return None
    if kind and isinstance(value, str) and _FLOAT_TEXT.match(value.strip()):
        return f"must be {kind}, got {value!r} (text); write the number without quotes"
    return None  # other text: pydantic says it is not a valid number


def _resolve(annotation: Any, value: Any) -> Any:
    """The option of a union annotation (``Model | None``, ``str | dict[str, Any]``) that a
    mapping or list ``value`` takes; the annotation itself otherwise."""
    annotation = _strip(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        shape = dict if isinstance(value, dict) else list
        fits = [a for a in map(_strip, typing.get_args(annotation))
                if (shape is dict and ((isinstance(a, type) and issubclass(a, BaseModel))
                                       or a is dict or typing.get_origin(a) is dict))
                or (shape is list and (a in (list, tuple, set)
                                       or typing.get_origin(a) in (list, tuple, set)))]
        return fits[0] if len(fits) == 1 else None
    return annotation


def _item_types(annotation: Any) -> tuple[Any, Any]:
    """(key type, value type) of ``dict[K, V]``; (None, X) of ``list[X]``, ``tuple[X, ...]``;
    (None, None) when unknown."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin is dict and len(args) == 2:
        return args[0], args[1]
    if origin in (list, set, frozenset) and args:
        return None, args[0]
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return None, args[0]
    return None, None


def _walk(annotation: Any, value: Any, loc: tuple) -> tuple[tuple, str] | None:
    """(location, problem) of the first bad number in ``value`` read as ``annotation``."""
    problem = _bad_number(value, _number_kind(annotation))
    if problem:
        return loc, problem
    if not isinstance(value, (dict, list)):
        return None
    annotation = _resolve(annotation, value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if not isinstance(value, dict):
            return None
        fields = {name: f.annotation for name, f in annotation.model_fields.items()}
        fields.update({f.alias: f.annotation for f in annotation.model_fields.values() if f.alias})
        items = [(key, None, fields.get(key), item) for key, item in value.items()]
    elif isinstance(value, dict):
        key_type, item_type = _item_types(annotation)
        items = [(key, key_type, item_type, item) for key, item in value.items()]
    else:
        item_type = _item_types(annotation)[1]
        items = [(index, None, item_type, item) for index, item in enumerate(value)]
    for key, key_type, item_type, item in items:
        found = ((_walk(key_type, key, (*loc, key)) if key_type is not None else None)
                 or _walk(item_type, item, (*loc, key)))
        if found:
            return found
    return None


# ----------------------------------------------------------------------------- bounded text

def text_problem(text: str, field: Any, fix: str | None = None) -> str | None:
    """What is wrong with one text of an input file under key ``field``: too long, or a control
    character (``planner.run.terminal.printable`` would escape it; a description may hold line
    breaks and tabs), with ``fix`` (or the edit of the text itself) after the ';'."""
    limit = LONG_TEXT_FIELDS.get(field, MAX_TEXT) if isinstance(field, str) else MAX_TEXT
    if len(text) > limit:
        return (f"is {len(text):,} characters long, beyond the {limit:,} a "
                f"{'text' if limit > MAX_TEXT else 'name, SKU or part number'} may have; "
                f"{fix or 'shorten it'}")
    allowed = "\n\t" if field in LONG_TEXT_FIELDS else ""
    bad = next((ch for ch in text if ch not in allowed and printable(ch) != ch), None)
    if bad is not None:
        return (f"holds the control character {printable(bad)} at position {text.index(bad)}; "
                f"{fix or 'remove it'} (it would reach terminals, labels and NetBox as it is)")
    return None


def _walk_text(value: Any, loc: tuple) -> tuple[tuple, str] | None:
    """(location, problem) of the first bad text (``text_problem``) among the keys and values."""
    if isinstance(value, str):
        problem = text_problem(value, loc[-1] if loc else None)
        return (loc, problem) if problem else None
    items = (value.items() if isinstance(value, dict) else
             enumerate(value) if isinstance(value, list) else ())
    for key, item in items:
        found = ((_walk_text(key, (*loc, key)) if isinstance(key, str) else None)
                 or _walk_text(item, (*loc, key)))
        if found:
            return found
    return None


def check_text(data: dict[str, Any], path: Path | str, what: str) -> None:
    """InputError naming the file and the field of the first text of ``data`` that is too long
    or holds a control character (``text_problem``)."""
    found = _walk_text(data, ())
    if found:
        loc, problem = found
        field, sku = _field_path(loc, data)
        sku = printable(sku) if isinstance(sku, str) and not text_problem(sku, "sku") else None
        raise InputError(f"{what} '{path}': {_named(printable(field), sku)} {problem}")


def check_values(model: type[BaseModel], data: dict[str, Any], path: Path | str,
                 what: str) -> None:
    """InputError naming the file and the field of the first number of ``data`` that is not
    finite, out of range (``MAX_NUMBER``), or not a number where ``model`` wants one."""
    found = _walk(model, data, ())
    if found:
        loc, problem = found
        field, sku = _field_path(loc, data)
        raise InputError(f"{what} '{path}': {_named(field, sku)} {problem}")


def validate(model: type[BaseModel], data: dict[str, Any], path: Path | str, what: str):
    """``check_values`` and ``check_text``, then ``model.model_validate(data)``; the first error
    becomes a one-line InputError."""
    check_values(model, data, path, what)
    check_text(data, path, what)
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
