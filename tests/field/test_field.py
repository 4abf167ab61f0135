import random

import pytest
from hypothesis import given, strategies as st

from zkbluff.errors import MalformedInput
from zkbluff.field import (
    EvaluationDomain, GENERATOR, ROOT_OF_UNITY, batch_inv, canonical, inv, p, r, root_of_unity, S, _is_probable_prime,
)

fr = st.integers(min_value=0, max_value=r - 1)


def test_constants():
    assert r.bit_length() == 254
    assert _is_probable_prime(r)
    assert not _is_probable_prime(r + 2)  # negative twin: the primality check can say no
    assert p.bit_length() == 254 and _is_probable_prime(p)
    assert not _is_probable_prime(p * 3) and not _is_probable_prime(r * p)
    # two-adicity 28 exactly, and ROOT_OF_UNITY of order exactly 2^28
    assert (r - 1) % (1 << S) == 0 and ((r - 1) >> S) % 2 == 1
    assert pow(ROOT_OF_UNITY, 1 << S, r) == 1 and pow(ROOT_OF_UNITY, 1 << (S - 1), r) == r - 1
    w = root_of_unity(S)
    assert pow(w, 1 << S, r) == 1 and pow(w, 1 << (S - 1), r) != 1


@given(fr.filter(bool))
def test_inverse(x):
    assert x * inv(x) % r == 1


def test_inverse_of_zero():
    with pytest.raises(ZeroDivisionError):
        inv(0)
    with pytest.raises(ZeroDivisionError):
        batch_inv([1, 0, 2])


@given(st.lists(fr.filter(bool), max_size=40))
def test_batch_inverse(xs):
    assert batch_inv(xs) == [inv(x) for x in xs]


def test_canonical():
    assert canonical(r - 1) == r - 1
    for bad in (r, -1, r + 5):
        with pytest.raises(MalformedInput):
            canonical(bad)
    with pytest.raises(MalformedInput):
        canonical("5")  # type: ignore[arg-type]


def naive_eval(coeffs, x):
    return sum(c * pow(x, i, r) for i, c in enumerate(coeffs)) % r


@pytest.mark.parametrize("log_n", [0, 1, 2, 3, 5])
def test_ntt_matches_naive_evaluation(log_n):
    d = EvaluationDomain(log_n)
    rng = random.Random(log_n)
    coeffs = [rng.randrange(r) for _ in range(d.size)]
    evals = d.ntt(coeffs)
    assert evals == [naive_eval(coeffs, w) for w in d.elements()]
    shifted = d.coset_ntt(coeffs)
    assert shifted == [naive_eval(coeffs, GENERATOR * w % r) for w in d.elements()]
    # negative twin: a changed coefficient changes the evaluations
    coeffs[0] = (coeffs[0] + 1) % r
    assert d.ntt(coeffs) != evals


@given(st.integers(0, 8), st.randoms(use_true_random=False))
def test_ntt_round_trips(log_n, rnd):
    d = EvaluationDomain(log_n)
    x = [rnd.randrange(r) for _ in range(d.size)]
    assert d.intt(d.ntt(x)) == x
    assert d.coset_intt(d.coset_ntt(x)) == x
    assert d.coset_intt(d.coset_ntt(x, 7), 7) == x


def test_ntt_large_round_trip():
    d = EvaluationDomain(12)
    x = [random.randrange(r) for _ in range(d.size)]
    assert d.intt(d.ntt(x)) == x


def test_lagrange_basis():
    d = EvaluationDomain(3)
    x = random.randrange(r)
    ls = d.lagrange_at(x)
    coeffs = [random.randrange(r) for _ in range(d.size)]
    evals = d.ntt(coeffs)
    assert sum(l * e for l, e in zip(ls, evals)) % r == naive_eval(coeffs, x)
    assert d.lagrange_at(d.elements()[3]) == [0, 0, 0, 1, 0, 0, 0, 0]


def test_domain_bounds():
    with pytest.raises(MalformedInput):
        EvaluationDomain(S + 1)
    assert EvaluationDomain.for_size(5).size == 8
    assert EvaluationDomain.for_size(8).size == 8
    assert EvaluationDomain.for_size(1).size == 1
