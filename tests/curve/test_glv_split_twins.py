"""The GLV split of G1 scalars has two copies that must agree: ``glv_split`` in
src/zkbluff/_native/bn254_fp.h (C, the MSM's, with hard-coded lattice constants; exposed as
zkbluff._points_native.glv_split) and zkbluff.curve.glv.split (Python, which derives the
basis from r and LAMBDA and recodes the contribution's one scalar). Both give the same
halves for every scalar below r, and the C entry point refuses what is not a scalar."""
import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.curve import glv
from zkbluff.field import r

pn = pytest.importorskip("zkbluff._points_native")

#: scalars whose halves sit at the edges: near lambda and its multiples, near r, powers of two
EDGE = [0, 1, 2, r - 1, r - 2, glv.LAMBDA, glv.LAMBDA - 1, glv.LAMBDA + 1, r - glv.LAMBDA, glv.LAMBDA ** 2 % r,
        (1 << 127) - 1, 1 << 127, 1 << 128, 1 << 253,
        (r - 1) // 2, (r + 1) // 2]
SCALARS = st.one_of(st.integers(min_value=0, max_value=r - 1), st.sampled_from(EDGE))


def _c_split(k: int) -> tuple[int, int]:
    return pn.glv_split(k.to_bytes(32, "little"))


@settings(max_examples=500, deadline=None)
@given(SCALARS)
def test_c_and_python_split_every_scalar_alike(k):
    k1, k2 = _c_split(k)
    assert (k1, k2) == glv.split(k)
    assert (k1 + k2 * glv.LAMBDA - k) % r == 0
    assert abs(k1) < 1 << 128 and abs(k2) < 1 << 128


@settings(max_examples=100, deadline=None)
@given(SCALARS)
def test_a_neighbouring_scalar_splits_otherwise(k):
    # twin: the comparison above tells scalars apart (k + 1 never splits like k)
    assert _c_split((k + 1) % r) != glv.split(k)


@pytest.mark.parametrize("arg, why", [
    (r.to_bytes(32, "little"), "not below r"),
    (((1 << 256) - 1).to_bytes(32, "little"), "not below r"),
    (bytes(31), "32-byte"),
    (bytes(33), "32-byte"),
])
def test_c_split_refuses_what_is_not_a_scalar(arg, why):
    with pytest.raises(ValueError, match=why):
        pn.glv_split(arg)
    # twin: the largest scalar is taken
    assert _c_split(r - 1) == glv.split(r - 1)


def test_the_shared_header_constants_are_the_fields():
    from zkbluff.field import p

    assert pn.MODULUS == p
    assert pn.MONTGOMERY_R == (1 << 256) % p
    assert pn.CURVE_B == 3 * (1 << 256) % p
    assert pn.MONTGOMERY_INV == -pow(p, -1, 1 << 64) % (1 << 64)
    # twin: r's constants (the other modulus in bn254_fp.h) are not p's
    assert pn.MODULUS != r and pn.MONTGOMERY_R != (1 << 256) % r
