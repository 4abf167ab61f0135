"""The point kernel zkbluff._points_native (many G1 points times one scalar, GLV digits
shared by every point, eight points a vector where the CPU has AVX-512 IFMA) and
MclBackend.g1_scale, which a phase-2 contribution uses: equal to MCL's per-point
multiplication and to py_ecc on random and edge inputs, its recoding (zkbluff.curve.glv)
equal to the scalar, exceptional additions redone, bad input refused. Its fixed-base
code (one base, many scalars, G1 and G2: what setup uses) equals the C extension's
fixed_base_mul over MCL's additions."""
import ctypes

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, glv
from zkbluff.errors import BackendUnavailable
from zkbluff.field import p, r

mb = pytest.importorskip("zkbluff.curve.mcl_backend")
fr = pytest.importorskip("zkbluff._fr_native")
pn = pytest.importorskip("zkbluff._points_native")

EDGE = [0, 1, 2, r - 1, r - 2, r, r + 1, -1, glv.LAMBDA, r - glv.LAMBDA, (1 << 128) - 1, 1 << 253]
scalars = st.one_of(st.integers(min_value=0, max_value=r - 1), st.sampled_from(EDGE))
BETA = mb._fp(glv.BETA)
MODES = [False, True] if pn.VECTOR else [False]


def _raw(points):
    return fr.encode_points(points, 32, mb._R2_P, mb._ONE_MONT, mb._addr("mclBnFp_mul"))


def _kernel(points, digits, vector):
    return fr.affine_points(pn.g1_mul_digits(_raw(points), digits, BETA, vector), 32)


def _signed(b: int) -> int:
    return b - 256 if b > 127 else b


# ------------------------------------------------------------------ the recoding
@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(min_value=-(r << 2), max_value=r << 2), st.sampled_from(EDGE)))
def test_split_gives_two_short_halves_of_the_scalar(k):
    k1, k2 = glv.split(k)
    assert (k1 + k2 * glv.LAMBDA - k) % r == 0
    assert abs(k1) < 1 << 128 and abs(k2) < 1 << 128
    # twin: the halves do not stand for a neighbouring scalar
    assert (k1 + k2 * glv.LAMBDA - k - 1) % r != 0


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(1 << 130), max_value=1 << 130))
def test_wnaf_digits_are_odd_sparse_and_sum_to_the_integer(k):
    digits = glv.wnaf(k)
    assert sum(d << i for i, d in enumerate(digits)) == k
    nonzero = [i for i, d in enumerate(digits) if d]
    assert all(d % 2 == 1 and -15 <= d <= 15 for d in digits if d)
    assert all(b - a >= glv.WINDOW for a, b in zip(nonzero, nonzero[1:]))
    assert not digits or digits[-1] != 0


@settings(max_examples=100, deadline=None)
@given(scalars)
def test_digit_pairs_stand_for_the_scalar(k):
    digits = glv.digit_pairs(k)
    assert glv.digits_value(digits) == k % r
    assert len(digits) <= 2 * 130
    # twin: one digit changed is another scalar
    if digits:
        bumped = bytearray(digits)
        bumped[-2] = (_signed(bumped[-2]) + 2) & 0xFF if _signed(bumped[-2]) < 13 else 1
        assert glv.digits_value(bytes(bumped)) != k % r


def test_phi_is_multiplication_by_lambda(mcl):
    G = G1_GENERATOR
    assert mcl.g1_mul(G, glv.LAMBDA) == (glv.BETA * G[0] % p, G[1])
    assert pow(glv.BETA, 3, p) == 1 and glv.BETA != 1
    assert pow(glv.LAMBDA, 3, r) == 1 and glv.LAMBDA != 1
    # twin: the other cube root of unity in Fp belongs to the other lambda
    assert mcl.g1_mul(G, glv.LAMBDA) != (glv.BETA ** 2 * G[0] % p, G[1])


# ------------------------------------------------------------------ the kernel against MCL
@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(min_value=1, max_value=r - 1)), max_size=21), scalars)
def test_kernel_equals_mcl_per_point(mcl, exps, k):
    points = [None if e is None else mcl.g1_mul(G1_GENERATOR, e) for e in exps]
    want = mb._batch(points, None, [k] * len(points), mb._g1_bytes, mb._G1_SIZE, mb.G1Struct, mb._G1_MUL,
                     mb._G1_NORM, mb._decode_g1)
    for vector in MODES:
        got = _kernel(points, glv.digit_pairs(k), vector)
        assert got == want
        if points and any(P is not None for P in points) and k % r:
            # twin: the next scalar moves every finite point elsewhere
            other = _kernel(points, glv.digit_pairs(k + 1), vector)
            assert all(a != b for a, b in zip(other, want) if b is not None)


def test_g1_scale_equals_batch_mul_and_py_ecc_across_threads(mcl, pyecc):
    points = mcl.g1_mul_many(G1_GENERATOR, [3 * i + 1 for i in range(333)])
    points[0] = points[100] = None
    for k in (1, r - 1, 0x5DEECE66D << 200, 0):
        got = mcl.g1_scale(points, k)
        assert got == mcl.g1_batch_mul(points, [k] * len(points))
    assert mcl.g1_scale(points[:20], 987654321) == pyecc.g1_scale(points[:20], 987654321)
    assert mcl.g1_scale(points[:20], 987654321) != pyecc.g1_scale(points[:20], 987654322)
    # a few points take MCL's path (below SCALE_MIN), with the same answer
    assert mcl.g1_scale(points[1:4], 77) == [mcl.g1_mul(P, 77) for P in points[1:4]]


def _exceptional_digits(twice: int, last: int) -> bytes:
    """Digits whose every position but the last stands for ``twice / 2`` and whose last
    adds ``last`` (a digit of the d2 channel: lambda times an odd multiple)."""
    half = twice * pow(2, -1, r) % r
    k1, k2 = glv.split(half)
    d1, d2 = [0] + glv.wnaf(k1), [last] + glv.wnaf(k2)
    n = max(len(d1), len(d2))
    d1 += [0] * (n - len(d1))
    d2 += [0] * (n - len(d2))
    return bytes(b & 0xFF for i in reversed(range(n)) for b in (d1[i], d2[i]))


@pytest.mark.parametrize("vector", MODES)
def test_exceptional_last_additions_are_redone(mcl, vector):
    points = mcl.g1_mul_many(G1_GENERATOR, list(range(5, 16)))  # 11 points: a full vector and a partial one
    # before the last step acc = -lambda P, the step adds lambda P: opposite points, infinity
    opposite = _exceptional_digits(-glv.LAMBDA % r, 1)
    assert glv.digits_value(opposite) == 0
    assert _kernel(points, opposite, vector) == [None] * len(points)
    # acc = 3 lambda P and the step adds 3 lambda P: the same point, a doubling
    same = _exceptional_digits(3 * glv.LAMBDA % r, 3)
    assert glv.digits_value(same) == 6 * glv.LAMBDA % r
    assert _kernel(points, same, vector) == [mcl.g1_mul(P, 6 * glv.LAMBDA) for P in points]
    # twin: one step off the exceptional value is an ordinary addition, same answer as MCL
    near = _exceptional_digits(5 * glv.LAMBDA % r, 3)
    assert _kernel(points, near, vector) == [mcl.g1_mul(P, 8 * glv.LAMBDA) for P in points]


# ------------------------------------------------------------------ refusals
def test_kernel_refuses_points_off_the_curve_and_bad_digits(mcl):
    P = mcl.g1_mul(G1_GENERATOR, 9)
    good = _raw([P, P])
    assert fr.affine_points(pn.g1_mul_digits(good, glv.digit_pairs(2), BETA), 32) == [mcl.g1_mul(P, 2)] * 2
    off = _raw([P, (P[0], (P[1] + 1) % p)])
    with pytest.raises(ValueError, match="point 1 is not on the curve"):
        pn.g1_mul_digits(off, glv.digit_pairs(2), BETA)
    jacobian = good[:64] + bytes([2]) + bytes(31) + good[96:]  # z not one
    with pytest.raises(ValueError, match="point 0 is not affine"):
        pn.g1_mul_digits(jacobian, glv.digit_pairs(2), BETA)
    big = (p + 5).to_bytes(32, "little") + good[32:]
    with pytest.raises(ValueError, match="not below p"):
        pn.g1_mul_digits(big, glv.digit_pairs(2), BETA)
    for digits in (bytes([2, 0]), bytes([17, 0]), bytes([0, 0xEF]), bytes([1])):
        with pytest.raises(ValueError):
            pn.g1_mul_digits(good, digits, BETA)
    with pytest.raises(ValueError):
        pn.g1_mul_digits(good[:-1], glv.digit_pairs(2), BETA)
    with pytest.raises(ValueError):
        pn.g1_mul_digits(good, glv.digit_pairs(2), p.to_bytes(32, "little"))


def test_g1_scale_off_the_curve_gives_what_batch_mul_gives(mcl):
    points = mcl.g1_mul_many(G1_GENERATOR, list(range(1, 40)))
    points[7] = (points[7][0], (points[7][1] + 1) % p)
    assert mcl.g1_scale(points, 12345) == mcl.g1_batch_mul(points, [12345] * len(points))


def test_fp_layout_self_check_is_loud():
    mb._fp_layout_self_check()

    class PlainLib:  # an MCL that kept Fp in plain form
        @staticmethod
        def mclBnFp_setInt32(fp, x):
            ctypes.memmove(fp, x.to_bytes(32, "little"), 32)

    with pytest.raises(BackendUnavailable, match="Fp layout"):
        mb._fp_layout_self_check(PlainLib())


@pytest.mark.skipif(not pn.VECTOR, reason="the backend checks (and uses) the kernel only where it runs its IFMA code")
def test_kernel_self_check_is_loud(mcl):
    mb._points_self_check(pn)

    class Skewed:  # a kernel that multiplies by one more than asked
        VECTOR = True

        @staticmethod
        def g1_mul_digits(raw, digits, beta):
            k = glv.digits_value(digits)
            return pn.g1_mul_digits(raw, glv.digit_pairs(k + 1), beta)

    with pytest.raises(BackendUnavailable, match="disagrees with MCL"):
        mb._points_self_check(Skewed())


# ------------------------------------------------------------------ one base, many scalars
def _g1_table():
    fsz, one, table_fns, _ = mb._FIXED_BASE["g1"]
    return fr.fixed_base_table(mb._g1_bytes(G1_GENERATOR), fsz, one, tuple(mb._addr(f) for f in table_fns))


@pytest.mark.skipif(not pn.VECTOR, reason="this CPU has no AVX-512 IFMA")
@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(scalars, st.integers(min_value=0, max_value=255).map(lambda b: b << 248),
                          st.integers(min_value=0, max_value=(1 << 64) - 1)), max_size=19))
def test_fixed_base_equals_the_per_scalar_kernel_and_mcl(mcl, ks):
    table = _g1_table()
    fsz, one, _, mul_fns = mb._FIXED_BASE["g1"]
    blob = fr.from_ints(ks, len(ks))
    got = fr.affine_points(pn.g1_fixed_base(table, blob), 32)
    assert got == fr.affine_points(fr.fixed_base_mul(table, blob, fsz, one, tuple(mb._addr(f) for f in mul_fns)), 32)
    assert got == [mcl.g1_mul(G1_GENERATOR, k) for k in ks]
    # twin: the next scalars give other points
    assert all(a != b for a, b in zip(fr.affine_points(pn.g1_fixed_base(table, fr.from_ints([k + 1 for k in ks],
                                                                                            len(ks))), 32), got))


@pytest.mark.skipif(not pn.VECTOR, reason="this CPU has no AVX-512 IFMA")
def test_fixed_base_through_the_backend_and_its_refusals(mcl):
    ks = [(1 << 200) // (i + 1) + i for i in range(300)]  # enough for the fixed-base path, two threads
    assert mcl.g1_mul_many(G1_GENERATOR, ks) == [mcl.g1_mul(G1_GENERATOR, k) for k in ks]
    # a non-canonical packed scalar whose value is r: the last addition meets its opposite
    assert fr.affine_points(pn.g1_fixed_base(_g1_table(), r.to_bytes(32, "little")), 32) == [None]
    with pytest.raises(ValueError, match="32 x 255"):
        pn.g1_fixed_base(_g1_table()[:-96], fr.from_ints([1], 1))
    with pytest.raises(ValueError, match="32 x 255"):
        pn.g1_fixed_base(_g1_table(), b"\x01" * 31)


def test_fixed_base_self_check_is_loud(mcl):
    class Skewed:  # right for one scalar and many points, wrong for one base and many scalars
        VECTOR = True
        g1_mul_digits = staticmethod(pn.g1_mul_digits)

        @staticmethod
        def g1_fixed_base(table, ks):
            return pn.g1_fixed_base(table, ks[32:] + ks[:32]) if pn.VECTOR else b""

    with pytest.raises(BackendUnavailable, match="fixed-base code"):
        mb._points_self_check(Skewed())


def _g2_table():
    fsz, one, table_fns, _ = mb._FIXED_BASE["g2"]
    return fr.fixed_base_table(mb._g2_bytes(G2_GENERATOR), fsz, one, tuple(mb._addr(f) for f in table_fns))


@pytest.mark.skipif(not pn.VECTOR, reason="this CPU has no AVX-512 IFMA")
@settings(max_examples=15, deadline=None)
@given(st.lists(st.one_of(scalars, st.integers(min_value=0, max_value=255).map(lambda b: b << 248)), max_size=11))
def test_g2_fixed_base_equals_mcl(mcl, ks):
    table = _g2_table()
    fsz, one, _, mul_fns = mb._FIXED_BASE["g2"]
    blob = fr.from_ints(ks, len(ks))
    raw, exceptional = pn.g2_fixed_base(table, blob)
    assert exceptional == []  # canonical scalars never meet an exceptional addition
    got = fr.affine_points(raw, 64)
    assert got == fr.affine_points(fr.fixed_base_mul(table, blob, fsz, one, tuple(mb._addr(f) for f in mul_fns)), 64)
    assert got == [mcl.g2_mul(G2_GENERATOR, k) for k in ks]
    other = fr.affine_points(pn.g2_fixed_base(table, fr.from_ints([k + 1 for k in ks], len(ks)))[0], 64)
    assert all(a != b for a, b in zip(other, got))


@pytest.mark.skipif(not pn.VECTOR, reason="this CPU has no AVX-512 IFMA")
def test_g2_fixed_base_through_the_backend_and_its_exceptions(mcl):
    ks = [(1 << 190) // (i + 1) + 3 * i for i in range(200)]
    assert mcl.g2_mul_many(G2_GENERATOR, ks) == [mcl.g2_mul(G2_GENERATOR, k) for k in ks]
    # a non-canonical packed scalar whose value is r: the kernel leaves it to the caller
    blob = fr.from_ints([5], 1) + r.to_bytes(32, "little") + fr.from_ints([7], 1)
    raw, exceptional = pn.g2_fixed_base(_g2_table(), blob)
    assert exceptional == [1]
    got = fr.affine_points(raw, 64)
    assert got[0] == mcl.g2_mul(G2_GENERATOR, 5) and got[2] == mcl.g2_mul(G2_GENERATOR, 7) and got[1] is None
    # the backend's helper redoes it through MCL (with the scalar it was given)
    table = _g2_table()
    assert mb._fixed_base_vector(pn, fr, "g2", mb._g2_bytes(G2_GENERATOR), table, blob, [5, 11, 7])[1] == \
        mcl.g2_mul(G2_GENERATOR, 11)
    with pytest.raises(ValueError, match="32 x 255"):
        pn.g2_fixed_base(table[:-192], fr.from_ints([1], 1))
