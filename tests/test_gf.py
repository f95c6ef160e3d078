"""GF(q) tables: field axioms for every prime power up to 128, and the same tables as the
``galois`` library built on our field polynomial (galois is used only here: it is slow to
import)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.run.errors import InputError
from planner.topologies.gf import field, is_prime_power, prime_power, prime_powers

ALL_Q = prime_powers(2, 128)
RNG = np.random.default_rng(7)


def _triples(q: int):
    if q <= 32:
        return np.meshgrid(np.arange(q), np.arange(q), np.arange(q), indexing="ij")
    return tuple(RNG.integers(0, q, size=200_000) for _ in range(3))


def test_prime_powers_up_to_128():
    assert ALL_Q[:12] == [2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19]
    assert {4, 8, 9, 16, 25, 27, 32, 49, 64, 81, 121, 125, 128} <= set(ALL_Q)
    assert not any(is_prime_power(q) for q in (1, 6, 10, 12, 15, 18, 20, 100, 126))
    assert prime_power(81) == (3, 4) and prime_power(128) == (2, 7) and prime_power(127) == (127, 1)


@pytest.mark.parametrize("q", ALL_Q)
def test_field_axioms(q):
    f = field(q)
    e = np.arange(q)
    a, b, c = _triples(q)
    assert (f.add == f.add.T).all() and (f.mul == f.mul.T).all()
    assert (f.add[0] == e).all() and (f.mul[1] == e).all() and (f.mul[0] == 0).all()
    assert (f.add[e, f.neg] == 0).all()
    assert (f.mul[e[1:], f.inv[1:]] == 1).all()
    assert all(sorted(row) == list(e) for row in f.add)          # Latin square
    assert all(sorted(row) == list(e[1:]) for row in f.mul[1:, 1:])  # no zero divisors
    assert (f.add[f.add[a, b], c] == f.add[a, f.add[b, c]]).all()
    assert (f.mul[f.mul[a, b], c] == f.mul[a, f.mul[b, c]]).all()
    assert (f.mul[a, f.add[b, c]] == f.add[f.mul[a, b], f.mul[a, c]]).all()
    assert sorted(f.exp.tolist()) == list(range(1, q))              # ξ is primitive
    assert (f.exp[f.log[e[1:]]] == e[1:]).all()
    assert f.poly[-1] == 1 and len(f.poly) == f.m + 1


@pytest.mark.parametrize("q", [4, 5, 8, 9, 16, 25, 27, 32, 49, 64, 81, 121, 125, 128])
def test_tables_match_galois(q):
    """Same integer representation as galois: compare whole add/mul tables. galois runs in
    'python-calculate' mode without its own verification (its JIT and checks take ~20 s per
    field); irreducibility and primitivity are asked of galois' Poly instead."""
    galois = pytest.importorskip("galois")
    f = field(q)
    prime = galois.GF(f.p, compile="python-calculate", verify=False)
    poly = galois.Poly(list(reversed(f.poly)), field=prime) if f.m > 1 else None
    if poly is not None:
        assert poly.is_irreducible() and poly.is_primitive()
    gf = galois.GF(f.p, f.m, irreducible_poly=poly, primitive_element=f.xi, verify=False,
                   compile="python-calculate")
    x = gf(np.arange(q))
    assert (np.asarray(x[:, None] + x[None, :]) == f.add).all()
    assert (np.asarray(x[:, None] * x[None, :]) == f.mul).all()
    assert (np.asarray(gf(f.xi) ** np.arange(q - 1)) == f.exp).all()


def test_primitive_element_of_galaxyfly_example():
    assert field(5).xi == 2  # Galaxyfly §2.1, step 3


@pytest.mark.parametrize("q, hint", [(6, "5 or 7"), (12, "11 or 13"), (1, "2"), (100, "97 or 101")])
def test_non_prime_power_is_input_error(q, hint):
    with pytest.raises(InputError, match=f"q={q} is not a prime power.*{hint}"):
        field(q)
