"""The G2 subgroup check by the psi endomorphism (zkbluff.curve.g2_subgroup and the C
kernel ``zkbluff._msm_native.g2_first_outside_subgroup``): its constants follow from the
BN parameter, and it agrees with the slow check (r Q is the point at infinity, py_ecc) on
points of G2, on points of the twist outside it, and on look-alikes (a point of G2 plus
a small-order point of the twist)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from py_ecc import optimized_bn128 as bn

from zkbluff.curve import G2_GENERATOR, g2_is_on_curve, get_backend
from zkbluff.curve.g2_subgroup import (
    BN_X, MU, PSI_X, PSI_Y, XI, fq2_mul, fq2_pow, in_subgroup_dlzz, in_subgroup_psi, kernel_constants, kernel_digits,
    mu_digits, psi,
)
from zkbluff.field import p, r

from sample_circuits import non_subgroup_g2

MCL = get_backend("mcl")
PYECC = get_backend("pyecc")
H2 = 2 * p - r  # the twist's cofactor: its group has order r (2p - r)
SMALL = 10069   # the smallest prime factor of H2


def slow_in_subgroup(Q) -> bool:
    """The reference: r Q is the point at infinity, on the whole twist (py_ecc)."""
    if Q is None:
        return True
    return bn.is_inf(bn.multiply((bn.FQ2(list(Q[0])), bn.FQ2(list(Q[1])), bn.FQ2.one()), r))


def fast_in_subgroup(Q) -> bool:
    return MCL.g2_first_outside_subgroup([Q]) == 1


def small_order_point(seed: int):
    """A point of the twist of order SMALL (outside G2): r (H2 / SMALL) times a twist point."""
    T = MCL.g2_mul_unreduced(non_subgroup_g2(seed), r * (H2 // SMALL))
    assert T is not None and MCL.g2_mul_unreduced(T, SMALL) is None
    return T


# ------------------------------------------------------------------ the constants
def test_bn_parameter_gives_the_field_and_the_group_order():
    x = BN_X
    assert p == 36 * x**4 + 36 * x**3 + 24 * x**2 + 6 * x + 1
    assert r == 36 * x**4 + 36 * x**3 + 18 * x**2 + 6 * x + 1
    assert MU == p % r == 6 * x * x
    assert H2 % SMALL == 0 and all(H2 % q for q in range(2, SMALL))


def test_psi_constants_are_powers_of_xi_and_psi_acts_as_6x2_on_g2():
    assert fq2_pow(PSI_X, 3) == fq2_pow(XI, p - 1)  # gx = xi^((p-1)/3)
    assert fq2_pow(PSI_Y, 2) == fq2_pow(XI, p - 1)  # gy = xi^((p-1)/2)
    assert PSI_X != (1, 0) and PSI_Y != (1, 0)
    assert psi(G2_GENERATOR) == PYECC.g2_mul(G2_GENERATOR, MU)
    R = non_subgroup_g2(3)
    assert g2_is_on_curve(psi(R))  # an endomorphism of the whole twist
    assert psi(R) != MCL.g2_mul_unreduced(R, MU)


def test_digits_and_kernel_constants():
    for k in (BN_X, MU, 1, 7, 2**64 - 1):
        digits = mu_digits(k)
        assert sum(d << i for i, d in enumerate(digits)) == k
        assert all(d in (-1, 0, 1) for d in digits)
        assert all(not (a and b) for a, b in zip(digits, digits[1:]))  # non-adjacent
    assert len(kernel_digits()) == len(mu_digits(BN_X)) == 63
    rp = (1 << 256) % p
    assert kernel_constants(lambda c: (c * rp % p).to_bytes(32, "little"))[:32] == (PSI_X[0] * rp % p).to_bytes(
        32, "little")


# ------------------------------------------------------------------ agrees with the slow check
@settings(max_examples=25)
@given(k=st.integers(1, r - 1), seed=st.integers(0, 10**6), kind=st.sampled_from(["in", "off", "look-alike"]))
def test_fast_check_agrees_with_the_slow_one(k, seed, kind):
    Q = MCL.g2_mul(G2_GENERATOR, k)
    if kind == "off":
        Q = MCL.g2_mul_unreduced(non_subgroup_g2(seed % 50), k)
    elif kind == "look-alike":
        Q = MCL.g2_add(Q, small_order_point(seed % 5))
    expected = slow_in_subgroup(Q)
    assert expected == (kind == "in")
    assert fast_in_subgroup(Q) == expected
    assert in_subgroup_dlzz(Q, MCL) == expected
    assert in_subgroup_psi(Q, MCL) == expected


@pytest.mark.parametrize("seed", range(5))
def test_fast_check_refuses_points_off_the_subgroup(seed):
    """Fails if the check accepts a point of the twist outside G2: a random one, one of
    small order, and a look-alike (a point of G2 plus one of order 10069)."""
    for Q in (non_subgroup_g2(seed), small_order_point(seed),
              MCL.g2_add(MCL.g2_mul(G2_GENERATOR, 1000 + seed), small_order_point(seed))):
        assert g2_is_on_curve(Q) and not slow_in_subgroup(Q)
        assert not fast_in_subgroup(Q)
        assert not MCL.g2_in_subgroup(Q)
        assert not in_subgroup_dlzz(Q, PYECC)


def test_batch_names_the_first_point_outside_on_both_multiplications():
    from zkbluff.curve import mcl_backend

    inside = [MCL.g2_mul(G2_GENERATOR, k) for k in range(1, 300)] + [None]
    fn, consts, digits = mcl_backend._g2_subgroup_kernel()
    for at in (0, 150, 299):
        pts = inside[:at] + [small_order_point(1)] + inside[at:]
        raw = b"".join(map(mcl_backend._g2_bytes, pts))
        assert MCL.g2_first_outside_subgroup(pts) == at
        for portable in (False, True):
            assert fn(raw, len(pts), consts, digits, portable) == at
    assert MCL.g2_first_outside_subgroup(inside) == 300 and PYECC.g2_first_outside_subgroup(inside[:20]) == 20


def test_kernel_refuses_a_point_that_is_not_affine():
    from zkbluff.curve import mcl_backend

    fn, consts, digits = mcl_backend._g2_subgroup_kernel()
    raw = bytearray(mcl_backend._g2_bytes(G2_GENERATOR))
    raw[128] ^= 1  # z is neither one nor zero
    with pytest.raises(ValueError, match="neither affine"):
        fn(bytes(raw), 1, consts, digits)
