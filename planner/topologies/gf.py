"""Finite fields GF(q), q = p^m, as small numpy lookup tables.

The algebraic topologies (Slim Fly / MMS, projective networks, OFT, Galaxyfly) need only
addition, multiplication, negation and inversion in F_q and a primitive element ξ
(docs/topologies.md "Finite fields"). Elements are the integers ``0..q-1``: element ``e`` stands
for the polynomial ``sum_i d_i x^i`` whose coefficients ``d_i`` are the base-p digits of ``e``
(the same "integer representation" the ``galois`` library uses, so tables can be cross-checked).

The field polynomial is found deterministically: the monic degree-m polynomial over Z_p with the
smallest integer encoding for which ``x`` has multiplicative order q-1 (a primitive polynomial,
hence irreducible). ξ is the smallest element of multiplicative order q-1; for prime q this is
the smallest primitive root (ξ = 2 for q = 5, as in Galaxyfly §2.1 step 3).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import gcd, isqrt

import numpy as np

from planner.run.errors import InputError
from planner.topologies.tuning import MAX_Q



def prime_power(q: int) -> tuple[int, int] | None:
    """(p, m) with q = p^m for a prime p and m >= 1, or None if q is not a prime power."""
    if q < 2:
        return None
    p = next((d for d in range(2, isqrt(q) + 1) if q % d == 0), q)
    m, rest = 0, q
    while rest % p == 0:
        rest //= p
        m += 1
    return (p, m) if rest == 1 else None


def is_prime_power(q: int) -> bool:
    return prime_power(q) is not None


def prime_powers(lo: int, hi: int) -> list[int]:
    """All prime powers q with lo <= q <= hi, increasing."""
    return [q for q in range(max(lo, 2), hi + 1) if is_prime_power(q)]


def nearest_prime_powers(q: int) -> str:
    """'a or b': the prime powers just below and above q, for error messages."""
    below = next((c for c in range(q - 1, 1, -1) if is_prime_power(c)), None)
    above = next(c for c in range(max(q + 1, 2), 2 * q + 3) if is_prime_power(c))
    return f"{below} or {above}" if below else str(above)


@dataclass(frozen=True, eq=False)
class Field:
    """GF(q) as lookup tables over the integer representation 0..q-1.

    q, p, m:  order, characteristic, degree.
    poly:     coefficients (low degree first, monic) of the field polynomial; [0, 1] for m = 1.
    add, mul: (q, q) tables; neg, inv: (q,) tables (inv[0] = 0 is unused);
    xi:       the primitive element ξ; exp[i] = ξ^i for i in 0..q-2, log[exp[i]] = i.
    """

    q: int
    p: int
    m: int
    poly: tuple[int, ...]
    add: np.ndarray
    mul: np.ndarray
    neg: np.ndarray
    inv: np.ndarray
    xi: int
    exp: np.ndarray
    log: np.ndarray

    def sub(self, a, b):
        """a - b elementwise (numpy arrays or ints)."""
        return self.add[a, self.neg[b]]


def _digits(values: np.ndarray, p: int, m: int) -> np.ndarray:
    """(len, m) base-p digits, least significant first."""
    return (values[:, None] // p ** np.arange(m)) % p


def _undigits(digits: np.ndarray, p: int) -> np.ndarray:
    return (digits * p ** np.arange(digits.shape[-1])).sum(axis=-1)


def _powers_of_x(p: int, m: int, low: np.ndarray) -> list[int] | None:
    """Powers x^0, x^1, ... modulo x^m + low(x) until they return to 1; None if order < q-1."""
    q = p ** m
    cur = np.zeros(m, dtype=np.int64)
    cur[0] = 1
    seq = [1]
    for _ in range(q - 2):
        top = cur[-1]
        cur = np.concatenate([[0], cur[:-1]])
        cur = (cur - top * low) % p
        code = int(_undigits(cur, p))
        if code == 1:
            return None
        seq.append(code)
    return seq


def _primitive_polynomial(p: int, m: int) -> tuple[tuple[int, ...], list[int]]:
    """Smallest-encoded monic primitive polynomial of degree m over Z_p and the powers of x."""
    q = p ** m
    for code in range(1, q):
        if code % p == 0:  # x would divide the polynomial: x is then not a unit
            continue
        low = _digits(np.array([code]), p, m)[0]
        seq = _powers_of_x(p, m, low)
        if seq is not None and len(set(seq)) == q - 1:  # x is a unit of order q-1
            return tuple(int(c) for c in low) + (1,), seq
    raise AssertionError(f"no primitive polynomial of degree {m} over GF({p})")


@lru_cache(maxsize=None)
def field(q: int) -> Field:
    """The field GF(q); InputError naming the nearest prime powers if q is not one."""
    pm = prime_power(q) if isinstance(q, int) else None
    if pm is None:
        raise InputError(f"q={q} is not a prime power; nearest valid values: "
                         f"{nearest_prime_powers(q) if isinstance(q, int) and q > 1 else '2, 3, 4, 5, 7'}")
    if q > MAX_Q:
        raise InputError(f"q={q} is too large; finite fields up to q={MAX_Q} are supported")
    p, m = pm
    elems = np.arange(q, dtype=np.int64)
    dig = _digits(elems, p, m)
    add = _undigits((dig[:, None, :] + dig[None, :, :]) % p, p)
    neg = _undigits((-dig) % p, p)
    if m == 1:
        poly = (0, 1)
        mul = np.outer(elems, elems) % p
        xi = next(g for g in range(1, q) if len({pow(g, k, q) for k in range(q - 1)}) == q - 1) \
            if q > 2 else 1
        exp = np.array([pow(xi, k, q) for k in range(q - 1)], dtype=np.int64)
    else:
        poly, seq = _primitive_polynomial(p, m)
        xpow = np.array(seq, dtype=np.int64)
        xlog = np.zeros(q, dtype=np.int64)
        xlog[xpow] = np.arange(q - 1)
        la, lb = np.meshgrid(xlog[1:], xlog[1:], indexing="ij")
        mul = np.zeros((q, q), dtype=np.int64)
        mul[1:, 1:] = xpow[(la + lb) % (q - 1)]
        order = (q - 1) // np.gcd(xlog[1:], q - 1)
        xi = int(1 + np.flatnonzero(order == q - 1)[0])
        k = xlog[xi]
        exp = xpow[(k * np.arange(q - 1)) % (q - 1)]
    log = np.zeros(q, dtype=np.int64)
    log[exp] = np.arange(q - 1)
    inv = np.zeros(q, dtype=np.int64)
    inv[exp] = exp[(-np.arange(q - 1)) % (q - 1)]
    tables = [a.astype(np.int64) for a in (add, mul, neg, inv, exp, log)]
    for t in tables:
        t.setflags(write=False)
    add, mul, neg, inv, exp, log = tables
    assert gcd(int(log[xi]), q - 1) == 1
    return Field(q=q, p=p, m=m, poly=poly, add=add, mul=mul, neg=neg, inv=inv, xi=int(xi),
                 exp=exp, log=log)
