"""The fields of an observed link, checked: each a text of at most ``MAX_FIELD_CHARS``
characters, and port numbers of at most ``MAX_PORT_NUMBER``; parsed by scanning each field once
(no backtracking regular expression), so a hostile 40 KB name costs microseconds, not minutes.

Takes the raw values a reader found (from CSV cells, JSON values, text lines); hands on a
``RawLink`` or an ``InputError`` naming the file, the line (or JSON path) and the field.
"""

from __future__ import annotations

import re
from functools import lru_cache

from planner.run.errors import InputError
from planner.verify.files import MAX_FIELD_CHARS, MAX_PORT_NUMBER
from planner.verify.values import RawLink

_DIGITS = frozenset("0123456789")
_DIGIT_RUNS = re.compile(r"[0-9]+")
_NAME_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-")
_PORT_DIGITS = len(str(MAX_PORT_NUMBER))


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def text_field(value, field: str, where: str) -> str:
    """``value`` stripped, if it is a non-empty string of at most MAX_FIELD_CHARS characters."""
    if value.__class__ is str:
        text = value.strip()
        if text and len(text) <= MAX_FIELD_CHARS:
            return text
    if not isinstance(value, str):
        raise InputError(f"observed {where}: field '{field}' must be text, got "
                         f"{'null' if value is None else type(value).__name__} {_shown(value)}")
    text = value.strip()
    if not text:
        raise InputError(f"observed {where}: field '{field}' is empty; the two devices and two "
                         f"ports of a link must all be set")
    raise InputError(f"observed {where}: field '{field}' is {len(text):,} characters long "
                     f"({_shown(text)}); a device or port name has at most {MAX_FIELD_CHARS}")


def raw_link(device, port, peer_device, peer_port, where: str,
             fields: tuple[str, str, str, str] = ("device", "port", "peer_device",
                                                  "peer_port")) -> RawLink:
    """A checked ``RawLink``; ``fields`` name the four values as the file calls them."""
    dev = text_field(device, fields[0], where)
    prt = text_field(port, fields[1], where)
    peer = text_field(peer_device, fields[2], where)
    peer_prt = text_field(peer_port, fields[3], where)
    if _port_value(prt) < 0:
        port_number(prt, where, fields[1])
    if _port_value(peer_prt) < 0:
        port_number(peer_prt, where, fields[3])
    return RawLink(dev, prt, peer, peer_prt, where)


def last_digits(text: str) -> str:
    """The last run of ASCII digits in ``text`` ('' if none): ``Ethernet1/17`` -> ``17``
    (``findall`` visits each character once)."""
    if text.isdigit() and text.isascii():
        return text
    runs = _DIGIT_RUNS.findall(text)
    return runs[-1] if runs else ""


@lru_cache(maxsize=65_536)
def _port_value(text: str) -> int:
    """The port number of a port name; -1 without digits, -2 above MAX_PORT_NUMBER. Cached:
    a fabric repeats the same few hundred port names."""
    digits = last_digits(text)
    if not digits:
        return -1
    digits = digits.lstrip("0") or "0"
    return -2 if len(digits) > _PORT_DIGITS or int(digits) > MAX_PORT_NUMBER else int(digits)


def port_number(text: str, where: str, field: str = "port") -> int:
    """The last integer in a port name: ``swp17``, ``Ethernet1/17``, ``[17]`` -> 17."""
    text = str(text)
    value = _port_value(text)
    if value == -1:
        raise InputError(f"observed {where}: field '{field}' {_shown(text)} has no port "
                         f"number; expected a name ending in the plan's port number such as "
                         f"'swp17', 'Ethernet17' or '17'")
    if value == -2:
        digits = last_digits(text).lstrip("0")
        raise InputError(f"observed {where}: field '{field}' {_shown(text)} has port "
                         f"number {digits[:12]}{'...' if len(digits) > 12 else ''}, above "
                         f"{MAX_PORT_NUMBER:,}; give the plan's port numbers")
    return value


def name_key(name: str) -> tuple[str, int] | None:
    """(letter prefix lower-cased, number) of a name that is letters then digits
    (``R0012`` -> ``('r', 12)``), else None."""
    if len(name) > MAX_FIELD_CHARS:
        return None
    cut = 0
    while cut < len(name) and name[cut] in _NAME_LETTERS:
        cut += 1
    digits = name[cut:]
    if not digits or not all(c in _DIGITS for c in digits):
        return None
    return name[:cut].lower(), int(digits)
