"""The batched G2 subgroup check (issue 31): ``batch_rounds()`` secret random combinations of
the points, each tested by the psi criterion (``zkbluff._msm_native.g2_combination_in_subgroup``,
the sum taken on the whole twist), stand for checking every point. It agrees with the
point-by-point check on sets in G2 and on sets with one point outside it anywhere (random,
of small order, look-alikes); one combination can miss a point of small order (why there are
ten); and a .zkey with one B2 point off the subgroup is refused, naming it."""
from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit import build
from zkbluff.curve import G2_GENERATOR, g2_is_on_curve, get_backend, mcl_backend
from zkbluff.curve.g2_subgroup import (
    BATCH_SECURITY_BITS, BATCH_WEIGHT_BITS, COFACTOR, COFACTOR_PRIMES, batch_rounds, batch_weights,
)
from zkbluff.errors import MalformedInput
from zkbluff.field import p, r

from sample_circuits import non_subgroup_g2

MCL = get_backend("mcl")
SMALL = 10069
KERNEL = mcl_backend._g2_subgroup_kernel()
COMBINE = mcl_backend._g2_combination_kernel()
pytestmark = pytest.mark.skipif(COMBINE is None, reason="the C MSM module with the batched check is not built")


def small_order_point(seed: int):
    T = MCL.g2_mul_unreduced(non_subgroup_g2(seed), r * (COFACTOR // SMALL))
    assert T is not None and MCL.g2_mul_unreduced(T, SMALL) is None
    return T


def is_probable_prime(n: int) -> bool:
    if n < 2:
        return False
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41):
        if a % n == 0:
            continue
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def one_by_one(points) -> int:
    old = mcl_backend.G2_BATCH_MIN
    mcl_backend.G2_BATCH_MIN = 1 << 60
    try:
        return MCL.g2_first_outside_subgroup(points)
    finally:
        mcl_backend.G2_BATCH_MIN = old


def weights(ws) -> bytes:
    return b"".join(w.to_bytes(8, "little") for w in ws)


def combine(points, ws, portable=False) -> bool:
    _, consts, digits = KERNEL
    raw = b"".join(map(mcl_backend._g2_bytes, points))
    return COMBINE(raw, len(points), weights(ws), BATCH_WEIGHT_BITS, consts, digits, portable)


# ------------------------------------------------------------------ the argument's numbers
def test_the_cofactor_is_squarefree_and_its_smallest_prime_is_10069():
    assert COFACTOR == 2 * p - r and math.prod(COFACTOR_PRIMES) == COFACTOR
    assert all(is_probable_prime(q) for q in COFACTOR_PRIMES) and len(set(COFACTOR_PRIMES)) == 4
    assert r not in COFACTOR_PRIMES and min(COFACTOR_PRIMES) == SMALL


def test_ten_rounds_of_16_bit_weights_reach_2_to_the_minus_128():
    assert (BATCH_WEIGHT_BITS, BATCH_SECURITY_BITS, batch_rounds()) == (16, 128, 10)
    worst = math.ceil(2**16 / SMALL)  # 7 of the 2^16 weights fall in each class mod 10069, at most
    assert worst == 7 and (worst / 2**16) ** 10 <= 2.0**-128 < (worst / 2**16) ** 9
    assert batch_rounds(128, 64) == 10  # wider weights buy nothing against 10069


def test_weights_are_fresh_and_below_the_bound():
    a, b = batch_weights(1000), batch_weights(1000)
    assert len(a) == 8000 and a != b
    ws = struct.unpack("<1000Q", a)
    assert max(ws) < 2**16 and len(set(ws)) > 900
    with pytest.raises(ValueError):
        batch_weights(3, 12)


# ------------------------------------------------------------------ one combination, fixed weights
def test_one_combination_finds_the_sum_in_g2_or_not_with_either_product():
    inside = [MCL.g2_mul(G2_GENERATOR, k) for k in range(1, 9)] + [None]
    for portable in (False, True):
        assert combine(inside, range(1, 10), portable) is True
        bad = inside[:4] + [MCL.g2_add(inside[4], small_order_point(2))] + inside[5:]
        assert combine(bad, [3] * 9, portable) is False
        assert combine(inside[:3] + [non_subgroup_g2(4)], [1, 2, 3, 65535], portable) is False


def test_one_combination_misses_a_small_order_point_whose_weight_is_a_multiple_of_its_order():
    """The attack on a single combination: a look-alike's order-10069 part vanishes when its
    weight is 0 mod 10069 (1 in 10069 random weights, however wide): hence ten rounds."""
    inside = [MCL.g2_mul(G2_GENERATOR, k) for k in range(1, 5)]
    bad = [MCL.g2_add(inside[0], small_order_point(3))] + inside[1:]
    assert combine(bad, [SMALL * 6, 1, 2, 3]) is True
    assert combine(bad, [SMALL * 6 + 1, 1, 2, 3]) is False


def test_the_combination_kernel_refuses_what_it_cannot_read():
    _, consts, digits = KERNEL
    raw = mcl_backend._g2_bytes(G2_GENERATOR)
    with pytest.raises(ValueError, match="not below 2\\^16"):
        COMBINE(raw, 1, weights([1 << 16]), 16, consts, digits)
    with pytest.raises(ValueError, match="bytes of weights"):
        COMBINE(raw, 1, weights([1, 2]), 16, consts, digits)
    bad = bytearray(raw)
    bad[128] ^= 1
    with pytest.raises(ValueError, match="neither affine"):
        COMBINE(bytes(bad), 1, weights([1]), 16, consts, digits)


# ------------------------------------------------------------------ the batched path
INSIDE = [MCL.g2_mul(G2_GENERATOR, 7 * k + 1) for k in range(120)]


@settings(max_examples=12, deadline=None)
@given(n=st.integers(mcl_backend.G2_BATCH_MIN, 120), at=st.integers(0, 119),
       kind=st.sampled_from(["none", "random", "small", "look-alike"]), seed=st.integers(0, 4))
def test_batched_check_agrees_with_the_one_by_one_check(n, at, kind, seed):
    pts = list(INSIDE[:n])
    at %= n
    if kind == "random":
        pts[at] = non_subgroup_g2(seed)
    elif kind == "small":
        pts[at] = small_order_point(seed)
    elif kind == "look-alike":
        pts[at] = MCL.g2_add(pts[at], small_order_point(seed))
    if kind != "none":
        assert g2_is_on_curve(pts[at])
    expected = n if kind == "none" else at
    assert one_by_one(pts) == expected
    assert MCL.g2_first_outside_subgroup(pts) == expected


def test_below_the_threshold_points_are_checked_one_by_one(monkeypatch):
    calls = []
    monkeypatch.setattr(mcl_backend, "_G2_COMBINATION", lambda *a: calls.append(1) or True)
    assert MCL.g2_first_outside_subgroup(INSIDE[:mcl_backend.G2_BATCH_MIN - 1]) == mcl_backend.G2_BATCH_MIN - 1
    assert calls == []
    MCL.g2_first_outside_subgroup(INSIDE[:mcl_backend.G2_BATCH_MIN])
    assert len(calls) == batch_rounds()


def test_a_kernel_that_accepts_everything_is_not_used(monkeypatch):
    """The self-check refuses a combination kernel that finds a point outside G2 inside it."""
    monkeypatch.setattr(mcl_backend, "_G2_COMBINATION", mcl_backend._UNCHECKED)
    native = mcl_backend._native_msm()

    class Lying:
        def __getattr__(self, name):
            return (lambda *a: True) if name == "g2_combination_in_subgroup" else getattr(native, name)

    monkeypatch.setattr(mcl_backend, "_native_msm", lambda: Lying())
    with pytest.warns(RuntimeWarning, match="batched G2 subgroup check fails its self-check"):
        assert mcl_backend._g2_combination_kernel() is None
    pts = list(INSIDE[:80])
    pts[33] = MCL.g2_add(pts[33], small_order_point(1))
    assert MCL.g2_first_outside_subgroup(pts) == 33


# ------------------------------------------------------------------ the file
def chain(cs, inputs):
    out = cs.public("out", inputs and inputs["out"])
    x = cs.private_unchecked("x", inputs and 3)
    for i in range(90):
        x = cs.mul(x, x + i, f"m{i}")
    cs.enforce_equal(x, out, "out")


@pytest.fixture(scope="module")
def zkey_parts():
    from zkbluff.groth16 import setup

    system = build(chain)[0]
    return system, setup(system, MCL)


@pytest.mark.parametrize("kind", ["none", "random", "look-alike"])
def test_a_zkey_with_one_b2_point_off_the_subgroup_is_refused(zkey_parts, kind):
    from dataclasses import replace

    from zkbluff.ceremony.phase2 import zkey_from_file_bytes
    from zkbluff.groth16.zkey import zkey_to_bytes

    system, pk = zkey_parts
    b2 = list(pk.b_g2_query)
    assert len(b2) >= mcl_backend.G2_BATCH_MIN  # the batched path reads it
    at = max(i for i, Q in enumerate(b2) if Q is not None) - 3
    if kind == "random":
        b2[at] = non_subgroup_g2(7)
    elif kind == "look-alike":
        b2[at] = MCL.g2_add(b2[at], small_order_point(4))
    data = zkey_to_bytes(replace(pk, b_g2_query=tuple(b2)))
    if kind == "none":
        assert zkey_from_file_bytes(data, "k.zkey", system).pk.b_g2_query == pk.b_g2_query
    else:
        with pytest.raises(MalformedInput, match=f"k.zkey B2\\[{at}\\]: on the twist but not in the order-r"):
            zkey_from_file_bytes(data, "k.zkey", system)
