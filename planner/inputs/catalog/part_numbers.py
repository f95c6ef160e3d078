"""Orderable part numbers of link parts: one per stock length, from a table or a template.

Each part with stock lengths has an orderable part number per length: a table (``{3: MCP1600-C003,
...}``) or a template (``MCP1600-C{nv}``, fields in ``LENGTH_FIELDS``). Without one, the SKU is
the part number, which a SKU that looks like a family placeholder (``MCP1600-C0XX``) may not be.
``template_fields`` reads the fields a template uses (also those of a router's interface names,
``planner.inputs.catalog.routers``) and refuses a format width or precision that would make a
text longer than any part number or name may be (``{m:999999999}`` is one line of YAML and
hundreds of MiB of part numbers) or a ``c`` (character) format, which turns a length into a
control character. ``format_part_number`` formats one length and checks the finished part
number like every other name (``planner.inputs.schema.text_problem``): at most ``MAX_TEXT``
characters (several padded fields add up), no control characters.

Whether a number is complete: ``incomplete_reason`` checks it against its vendor family's form
(``VENDOR_PATTERNS``, ``NVIDIA_SUFFIXED``); ``GENERIC_CELL`` is what a generic line's
part-number cell says, ``generic_reference`` how the planner names a generic part per length
and ``spec_text`` its specification in one line (``planner.inputs.catalog.orderable``).
"""

from __future__ import annotations

import math
import re
import string

from planner.inputs.schema import text_problem
from planner.inputs.tuning import MAX_TEXT

#: Fields of a part-number template, for one stock length L: ``{m}`` L in metres as written
#: (``0.5``, ``3``), ``{dm}`` / ``{cm}`` / ``{mm}`` whole decimetres / centimetres /
#: millimetres, ``{nv}`` NVIDIA LinkX's 3-character length code (``00A`` = 0.5 m, ``003`` = 3 m,
#: ``01A`` = 1.5 m, ``030`` = 30 m, ``100`` = 100 m).
LENGTH_FIELDS = ("m", "dm", "cm", "mm", "nv")

#: A part number that still names a family: ``C0XX``, ``*``, ``?``, ``#``, ``...``.
PLACEHOLDER = re.compile(r"XX|xx|[*?#]|\.\.\.|…")


def nvidia_length_code(length_m: float) -> str:
    """NVIDIA LinkX length code: ``003`` for 3 m, ``00A`` for 0.5 m, ``01A`` for 1.5 m."""
    whole = math.floor(length_m + 1e-9)
    if abs(length_m - whole) < 1e-9 and whole < 1000:
        return f"{whole:03d}"
    if abs(length_m - whole - 0.5) < 1e-9 and whole < 100:
        return f"{whole:02d}A"
    raise ValueError(f"{length_m:g} m has no NVIDIA length code (whole or half metres only)")


def length_fields(length_m: float) -> dict[str, object]:
    """The ``LENGTH_FIELDS`` values of one length."""
    try:
        code = nvidia_length_code(length_m)
    except ValueError:
        code = None
    return {"m": f"{length_m:g}", "dm": int(round(length_m * 10)), "cm": int(round(length_m * 100)),
            "mm": int(round(length_m * 1000)), "nv": code}


_NUMBER = re.compile(r"\d+")


def template_fields(template: str) -> set[str]:
    """The field names a part-number template uses (names of ``LENGTH_FIELDS``, e.g. ``nv``);
    ValueError for a format spec with a nested field, a width or precision above ``MAX_TEXT``
    or the ``c`` (character) presentation type."""
    names = set()
    for _, name, spec, _ in string.Formatter().parse(template):
        if name is None:
            continue
        names.add(name)
        if spec and "{" in spec:
            raise ValueError(f"template {template!r} nests a field in the format of {{{name}}}; "
                             f"write the format out (e.g. {{{name}:03d}})")
        widest = max((int(n) for n in _NUMBER.findall(spec or "")), default=0)
        if widest > MAX_TEXT:
            raise ValueError(f"template {template!r} pads {{{name}}} to {widest:,} characters, "
                             f"beyond the {MAX_TEXT} a part number or name may have; use a "
                             f"width such as {{{name}:03d}}")
        if spec and spec.endswith("c"):
            raise ValueError(f"template {template!r} formats {{{name}}} as a character "
                             f"({{{name}:{spec}}}), which makes a number a control character; "
                             f"use a number format such as {{{name}:03d}}")
    return names


def format_part_number(template: str, length_m: float) -> str:
    """The part number ``template`` gives one length; ValueError when the format does not fit
    the field's value or the part number is not bounded text without control characters."""
    try:
        text = template.format(**length_fields(length_m))
    except (ValueError, TypeError, OverflowError) as err:
        raise ValueError(f"template {template!r} cannot format {length_m:g} m ({err}); use the "
                         f"formats of the examples, such as {{nv}}, {{m}} or {{cm:04d}}") from None
    problem = text_problem(text, "part_numbers", fix="change the template")
    if problem:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ValueError(f"template {template!r} makes the {length_m:g} m part number "
                         f"{shown!r}, which {problem}")
    return text


# ------------------------------------------------------------------ manufacturer or generic

#: A part's lifecycle status: ``active`` (orderable), ``preview`` (announced, early orders),
#: ``eol`` (end of life announced: last orders only), ``eos`` (end of sale: no longer sold).
#: ``eol``/``eos`` parts are flagged in the BOM and never a catalog's default choice.
LIFECYCLES = ("active", "preview", "eol", "eos")

#: What the BOM's part-number cell of a generic line says: the number the buyer fills in.
GENERIC_CELL = "generic: supplier part number"

#: The vendor name of a generic part: no manufacturer's number, a ``spec`` to quote against.
GENERIC = "generic"

#: Complete orderable numbers per vendor family, as the vendors publish them. NVIDIA: the
#: legacy OPN (``MQM9790-NS2F``, ``MMA4Z00-NS``) or the new 900-/920-/980- ordering number
#: (``920-9B020-00FA-0D3``); its QSFP28/QSFP56 DACs carry their gauge and variant suffix
#: (``MCP1600-C003E26N``: E = LSZH, 26 AWG, N), which a model name such as ``MCP1600-C003``
#: lacks. Edgecore: the ordering code with NOS, PSU and airflow (``7816-64X-O-AC-F``). Arista:
#: the chassis with its airflow (``DCS-7260CX3-64-F``, ``-R``). Cisco: the product ID
#: (``N9K-C9336C-FX2``). APC: the model (``AP8881``, ``AR3300``). Other vendors: any number
#: that is not a family placeholder.
VENDOR_PATTERNS = {
    "nvidia": (re.compile(r"M[A-Z0-9]+-[A-Z0-9]+(-[A-Z0-9]+)?"),
               re.compile(r"9[028]0-[0-9A-Z]{5}-[0-9A-Z]{4}-[0-9A-Z]{3}")),
    "edgecore": (re.compile(r"\d{4}-[0-9A-Z]+-O-(AC|DC)-[FB]"),),
    "arista": (re.compile(r"DCS-[0-9A-Z]+(-[0-9A-Z]+)*-[FR]"),),
    "cisco": (re.compile(r"N9K-C[0-9A-Z]+(-[0-9A-Z]+)*"),),
    "apc": (re.compile(r"A[PR]\d{4}[A-Z0-9]*"),),
}
#: NVIDIA LinkX families whose model name is not yet orderable: the full number adds the
#: jacket, gauge and variant (``MCP1600-C0xxEyy``, ``MCP1650-H0xxEyy`` product specifications).
NVIDIA_SUFFIXED = {"MCP1600-": (re.compile(r"MCP1600-C\d\d[0-9A]E(26|30)[A-Z]"),
                                 "MCP1600-C003E26N"),
                   "MCP1650-": (re.compile(r"MCP1650-[HV]\d\d[0-9A]E(26|30)"),
                                 "MCP1650-H002E26")}

EXAMPLES = {"nvidia": "MCP1600-C003E26N or 920-9B020-00FA-0D3", "edgecore": "7816-64X-O-AC-F",
            "arista": "DCS-7260CX3-64-F", "cisco": "N9K-C9336C-FX2", "apc": "AP8881"}


def incomplete_reason(vendor: str, number: str) -> str:
    """Why ``number`` is not a complete orderable number of ``vendor`` ('' when it is): a
    family placeholder, or not the form ``VENDOR_PATTERNS`` gives for the vendor."""
    if not number.strip() or PLACEHOLDER.search(number):
        return "is a family placeholder, not an orderable number"
    family = vendor.strip().lower()
    patterns = VENDOR_PATTERNS.get(family)
    if patterns is None:
        return ""
    if not any(p.fullmatch(number) for p in patterns):
        return (f"is not a complete {vendor} ordering number (such as {EXAMPLES[family]})")
    if family == "nvidia":
        for prefix, (full, example) in NVIDIA_SUFFIXED.items():
            if number.startswith(prefix) and not full.fullmatch(number):
                return ("lacks the jacket, gauge and variant suffix NVIDIA orders it by "
                        f"(e.g. {example})")
    return ""


def generic_reference(sku: str, length_m: float) -> str:
    """The planner's reference of a generic part at one stock length: ``OM4-MPO12_5m`` (the
    BOM's part-number cell asks for the supplier's number; cables.csv, labels and quotes name
    the line by this). One word, as the ``segments`` of cables.csv list pieces by it."""
    return f"{sku}_{length_m:g}m"


def spec_text(spec: dict | None) -> str:
    """A generic part's specification as one line: ``fibre: OM4; connector: MPO-12 female``."""
    return "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in (spec or {}).items())
