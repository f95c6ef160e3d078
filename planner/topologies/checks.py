"""Parameter checks shared by the builders: one-line ``InputError`` naming family, parameter
and the valid range."""

from __future__ import annotations

import math

from planner.run.errors import InputError
from planner.topologies.gf import is_prime_power, nearest_prime_powers
from planner.topologies.tuning import MAX_ENDPOINTS_PER_ROUTER, MAX_LINKS, MAX_Q, MAX_ROUTERS


def integer(family: str, name: str, value, minimum: int | None = None,
            maximum: int | None = None) -> int:
    """``value`` as an int within [minimum, maximum]; accepts ints and integer strings."""
    if isinstance(value, bool):
        value = repr(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text) if len(text) <= 40 else None
        except ValueError:
            value = None
        if value is None:
            shown = text if len(text) <= 40 else text[:40] + "..."
            raise InputError(f"{family}: parameter '{name}' must be an integer, got {shown!r}")
    if not isinstance(value, int):
        try:
            as_int = int(value)
        except (TypeError, ValueError, OverflowError):  # inf is a float that int() refuses
            as_int = None
        if as_int is None or as_int != value:
            raise InputError(f"{family}: parameter '{name}' must be an integer, got {value!r}")
        value = as_int
    if minimum is not None and value < minimum or maximum is not None and value > maximum:
        bounds = (f"between {minimum} and {maximum}" if minimum is not None and maximum is not None
                  else f">= {minimum}" if minimum is not None else f"<= {maximum}")
        raise InputError(f"{family}: parameter '{name}' must be {bounds}, got {_amount(value)}")
    return value


def prime_power_q(family: str, value, minimum: int = 2, name: str = "q") -> int:
    """A prime power minimum <= q <= MAX_Q (the order of the finite field of the construction)."""
    q = integer(family, name, value, minimum=minimum, maximum=MAX_Q)
    if not is_prime_power(q):
        raise InputError(f"{family}: parameter '{name}'={q} is not a prime power; nearest "
                         f"valid values: {nearest_prime_powers(q)}")
    return q




def endpoints_per_router(family: str, p, default: int, name: str = "p") -> int:
    """Endpoints per (leaf) router: ``default`` when p is None, else an integer >= 1."""
    if p is None:
        return default
    return integer(family, name, integer(family, name, p, minimum=1),
                   maximum=MAX_ENDPOINTS_PER_ROUTER)


def int_list(family: str, name: str, value, minimum: int = 1) -> list[int]:
    """A non-empty list of integers >= minimum from a list or 'AxBxC' / 'A,B,C' text."""
    if isinstance(value, str):
        parts = [t for t in value.replace("x", ",").replace("X", ",").split(",") if t.strip()]
    elif isinstance(value, int) and not isinstance(value, bool):
        parts = [value]
    else:
        try:
            parts = list(value)
        except TypeError:
            raise InputError(f"{family}: parameter '{name}' must be a list of integers such as "
                             f"8x8x8, got {value!r}") from None
    if not parts:
        raise InputError(f"{family}: parameter '{name}' must be a non-empty list of integers "
                         f"such as 8x8x8")
    return [integer(family, name, v, minimum=minimum) for v in parts]




def size_limit(family: str, routers: int, links: int, params: str) -> None:
    """InputError before building anything beyond MAX_ROUTERS routers or MAX_LINKS links."""
    if routers > MAX_ROUTERS or links > MAX_LINKS:
        raise InputError(f"{family}: {params} gives {_amount(routers)} routers and "
                         f"{_amount(links)} links, beyond the supported {MAX_ROUTERS} routers / "
                         f"{MAX_LINKS} links; choose smaller parameters")


def _amount(n: int) -> str:
    """n in full up to 15 digits, else its order of magnitude (huge ints do not print)."""
    return str(n) if abs(n) < 10 ** 15 else f"about 10^{int(abs(n).bit_length() * math.log10(2))}"
