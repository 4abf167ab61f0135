"""The C extension's batch multiplication (encode_points, mul_points, then affine_points:
what mcl's g1_batch_mul / g2_batch_mul use when the extension is built) equals the
per-point MCL path it replaced (_batch), on random and edge inputs."""
import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.curve import G1_GENERATOR, G2_GENERATOR
from zkbluff.field import p, r

mb = pytest.importorskip("zkbluff.curve.mcl_backend")
native = pytest.importorskip("zkbluff._fr_native")

scalars = st.one_of(st.integers(min_value=0, max_value=r - 1), st.sampled_from([0, 1, r - 1, r, r + 1, -1, -r]))


def _python_g1(points, ks):
    return mb._batch(points, None, ks, mb._g1_bytes, mb._G1_SIZE, mb.G1Struct, mb._G1_MUL, mb._G1_NORM, mb._decode_g1)


def _python_g2(points, ks):
    return mb._batch(points, None, ks, mb._g2_bytes, mb._G2_SIZE, mb.G2Struct, mb._G2_MUL, mb._G2_NORM, mb._decode_g2)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(min_value=1, max_value=r - 1)), scalars), max_size=12))
def test_native_batch_mul_equals_the_per_point_path(mcl, pairs):
    points = [None if e is None else mcl.g1_mul(G1_GENERATOR, e) for e, _ in pairs]
    ks = [k for _, k in pairs]
    got = mb._batch_mul_native("g1", points, ks)
    assert got == _python_g1(points, ks)
    assert got == [mcl.g1_mul(P, k) for P, k in zip(points, ks)]


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(min_value=1, max_value=r - 1)), scalars), max_size=6))
def test_native_batch_mul_equals_the_per_point_path_in_g2(mcl, pairs):
    points = [None if e is None else mcl.g2_mul(G2_GENERATOR, e) for e, _ in pairs]
    ks = [k for _, k in pairs]
    assert mb._batch_mul_native("g2", points, ks) == _python_g2(points, ks)


def test_many_points_across_threads_and_one_scalar_for_all(mcl):
    points = mcl.g1_mul_many(G1_GENERATOR, list(range(1, 400)))
    ks = [(7 * i + 3) % r for i in range(399)]
    assert mcl.g1_batch_mul(points, ks) == _python_g1(points, ks)
    # one packed scalar for every point
    fsz, one = mb._FIXED_BASE["g1"][0], mb._FIXED_BASE["g1"][1]
    raw = native.encode_points(points, fsz, mb._R2_P, one, mb._addr("mclBnFp_mul"))
    fns = tuple(mb._addr(f) for f in mb._MUL_FNS["g1"])
    k = native.from_ints([12345], 1)
    assert native.affine_points(native.mul_points(raw, k, fsz, one, fns), fsz) == \
        [mcl.g1_mul(P, 12345) for P in points]
    # its negative twin: another scalar gives other points
    assert native.affine_points(native.mul_points(raw, native.from_ints([12346], 1), fsz, one, fns), fsz) != \
        [mcl.g1_mul(P, 12345) for P in points]


def test_non_canonical_coordinates_take_the_python_path(mcl):
    P = mcl.g1_mul(G1_GENERATOR, 5)
    fsz, one = mb._FIXED_BASE["g1"][0], mb._FIXED_BASE["g1"][1]
    for bad in [(P[0] + p, P[1]), (P[0], -1), (P[0], float(P[1])), (P[0],), "xy", (P[0], p)]:
        with pytest.raises(ValueError):
            native.encode_points([bad], fsz, mb._R2_P, one, mb._addr("mclBnFp_mul"))
        assert mb._batch_mul_native("g1", [bad], [3]) is None
    # the backend still answers (the Python path reduces a coordinate mod p, as before)
    assert mcl.g1_batch_mul([(P[0] + p, P[1])], [3]) == [mcl.g1_mul(P, 3)]


def test_mul_points_refuses_mismatched_buffers(mcl):
    fsz, one = mb._FIXED_BASE["g1"][0], mb._FIXED_BASE["g1"][1]
    fns = tuple(mb._addr(f) for f in mb._MUL_FNS["g1"])
    raw = native.encode_points([mcl.g1_mul(G1_GENERATOR, 2)] * 3, fsz, mb._R2_P, one, mb._addr("mclBnFp_mul"))
    with pytest.raises(ValueError):
        native.mul_points(raw, native.from_ints([1, 2], 2), fsz, one, fns)  # 2 scalars for 3 points
    with pytest.raises(ValueError):
        native.mul_points(raw[:-1], native.from_ints([1], 1), fsz, one, fns)  # a torn point
    with pytest.raises(ValueError):
        native.mul_points(raw, native.from_ints([1], 1), 48, one, fns)
