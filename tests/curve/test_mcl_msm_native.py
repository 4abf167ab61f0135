"""The C MSMs (zkbluff._msm_native, Pippenger with batched affine additions on MCL's point
layout, G1 and G2) against MCL's own mulVec and the py_ecc reference, on
hypothesis-generated inputs and the batch-affine edge cases (a point twice, P and -P in
one bucket, points at infinity, zero scalars, r - 1, n = 0, 1, 2), with both of their
multiplications and small windows; the mcl backend's dispatch to them; their self-check
and the loud fallback."""
import ctypes
import importlib
import os
import warnings

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.curve import G1_GENERATOR, G2_GENERATOR
from zkbluff.errors import BackendUnavailable
from zkbluff.field import get_kernel, r

mb = pytest.importorskip("zkbluff.curve.mcl_backend")


def _native():
    try:
        return importlib.import_module("zkbluff._msm_native")
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("zkbluff._msm_native is not built under CI")
        pytest.skip("the C MSM is not built here")


#: lambda, the cube root of unity in Fr that the G1 GLV split uses, and mu = 6 x^2 = p mod r,
#: psi's eigenvalue that the G2 GLS split uses: scalars near them and their multiples split
#: into halves at the edges of their range
LAMBDA = 0x30644e72e131a029048b6e193fd84104cc37a73fec2bc5e9b8ca0b2d36636f23
MU = 6 * 4965661367192848881 ** 2
SCALARS = st.one_of(st.sampled_from([0, 1, 2, r - 1, r - 2, 1 << 253, (r - 1) // 2, LAMBDA, LAMBDA + 1, r - LAMBDA,
                                     LAMBDA * LAMBDA % r, (1 << 127) - 1, 1 << 127, 1 << 128, MU - 1, MU, MU + 1,
                                     MU * MU % r, MU * (MU - 1), r - MU]),
                    st.integers(min_value=0, max_value=r - 1))
#: a term: the point as a small multiple of G (None: infinity; small multiples repeat,
#: and e and r - e are P and -P) and its scalar
TERMS = st.lists(st.tuples(st.one_of(st.none(), st.integers(min_value=1, max_value=6),
                                     st.integers(min_value=r - 6, max_value=r - 1)), SCALARS), max_size=24)


GROUPS = {
    "g1": (G1_GENERATOR, "g1_msm", mb.G1Struct, mb._g1_from_struct, mb._G1_MULVEC),
    "g2": (G2_GENERATOR, "g2_msm", mb.G2Struct, mb._g2_from_struct, mb._G2_MULVEC),
}


def _points(be, es, group="g1"):
    gen = GROUPS[group][0]
    mul = getattr(be, f"{group}_mul")
    return [None if e is None else mul(gen, e) for e in es]


def _ours(mcl, points, ks, window=0, portable=False, group="g1"):
    _, fn, struct_t, from_struct, _ = GROUPS[group]
    prep = getattr(mcl, f"{group}_prepare")(points)
    raw = getattr(_native(), fn)(prep.data, mb._fr_blob(ks), len(points), window, portable)
    return from_struct(struct_t.from_buffer_copy(raw))


def _mcl_mulvec(mcl, points, ks, group="g1"):
    _, _, struct_t, from_struct, mulvec = GROUPS[group]
    prep = getattr(mcl, f"{group}_prepare")(points)
    out = struct_t()
    if points:
        frs = (ctypes.c_uint64 * (4 * len(ks))).from_buffer_copy(mb._fr_blob(ks))
        mulvec(ctypes.addressof(out), ctypes.addressof(prep.data), ctypes.addressof(frs), len(ks))
    return from_struct(out)


@settings(max_examples=40, deadline=None)
@given(TERMS, st.sampled_from([0, 2, 3, 5, 10, 16]), st.booleans())
def test_msm_equals_mcl_mulvec(mcl, terms, window, portable):
    points = _points(mcl, [e for e, _ in terms])
    ks = [k for _, k in terms]
    assert _ours(mcl, points, ks, window, portable) == _mcl_mulvec(mcl, points, ks)


@settings(max_examples=20, deadline=None)
@given(TERMS, st.sampled_from([0, 2, 3, 5, 10, 16]), st.booleans())
def test_g2_msm_equals_mcl_mulvec(mcl, terms, window, portable):
    points = _points(mcl, [e for e, _ in terms], "g2")
    ks = [k for _, k in terms]
    assert _ours(mcl, points, ks, window, portable, "g2") == _mcl_mulvec(mcl, points, ks, "g2")


@settings(max_examples=8, deadline=None)
@given(TERMS.filter(lambda t: len(t) <= 6), st.sampled_from([0, 2, 3]))
def test_msm_equals_the_pyecc_reference(mcl, pyecc, terms, window):
    es = [e for e, _ in terms]
    ks = [k for _, k in terms]
    assert _ours(mcl, _points(mcl, es), ks, window) == pyecc.g1_msm(_points(pyecc, es), ks)


@settings(max_examples=4, deadline=None)
@given(TERMS.filter(lambda t: len(t) <= 3), st.sampled_from([0, 2]))
def test_g2_msm_equals_the_pyecc_reference(mcl, pyecc, terms, window):
    es = [e for e, _ in terms]
    ks = [k for _, k in terms]
    assert _ours(mcl, _points(mcl, es, "g2"), ks, window, False, "g2") == \
        pyecc.g2_msm(_points(pyecc, es, "g2"), ks)


EDGE_CASES = {
    "n=0": ([], []),
    "n=1": ([3], [r - 1]),
    "n=1 scalar 0": ([3], [0]),
    "n=1 infinity": ([None], [5]),
    "n=2 P and P": ([4, 4], [7, 7]),
    "n=2 P and -P": ([4, r - 4], [7, 7]),
    "n=2 P and -P, scalar r-1": ([4, r - 4], [r - 1, r - 1]),
    "all scalars zero": ([1, 2, 3, 4], [0, 0, 0, 0]),
    "all points infinity": ([None, None, None], [1, 2, 3]),
    "one point many times": ([5] * 40, [9] * 40),
    "P and -P many times (sum infinity)": ([5, r - 5] * 20, [11] * 40),
    "P, P, -P, P, -P": ([2, 2, r - 2, 2, r - 2], [1, 1, 1, 1, 1]),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
@pytest.mark.parametrize("window", [0, 2, 3])
@pytest.mark.parametrize("portable", [False, True])
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_msm_edge_cases(mcl, case, window, portable, group):
    es, ks = EDGE_CASES[case]
    points = _points(mcl, es, group)
    want = getattr(mcl, f"{group}_mul")(GROUPS[group][0], sum(k * e for e, k in zip(es, ks) if e is not None) % r)
    assert _ours(mcl, points, ks, window, portable, group) == want == _mcl_mulvec(mcl, points, ks, group)


#: the bucket reduction's edge cases (small scalars keep their value through the split, so
#: scalar d lands in bucket d of window 0): with windows of 8 and 10 bits a window's
#: buckets form segments of 2 and 8 whose running sums run side by side in batched affine
#: additions, where the running sum can meet its next bucket (a doubling) or its negative,
#: the total can meet the running sum or its negative, and runs pass empty buckets
REDUCTION_CASES = {
    "run meets its next bucket (doubling)": ([5, 5], [3, 2]),
    "run meets the negative of its next bucket": ([5, r - 5, 7], [3, 2, 1]),
    "total meets the running sum (an empty bucket below)": ([5], [2]),
    "total meets the negative of the running sum": ([1, r - 2, 3], [3, 2, 1]),
    "buckets in several segments and windows": ([2, 2, r - 2, 3, 3, 4], [9, 17, 100, 511, 512, 3 + (2 << 10)]),
    "negative digits and carries": ([6, 6, r - 6], [513, 1023, (1 << 20) - 1]),
    "the same point in every bucket of a segment": ([4] * 8, [1, 2, 3, 4, 5, 6, 7, 8]),
}


@pytest.mark.parametrize("case", sorted(REDUCTION_CASES))
@pytest.mark.parametrize("window", [8, 10])
@pytest.mark.parametrize("portable", [False, True])
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_msm_bucket_reduction_edge_cases(mcl, case, window, portable, group):
    es, ks = REDUCTION_CASES[case]
    points = _points(mcl, es, group)
    want = getattr(mcl, f"{group}_mul")(GROUPS[group][0], sum(k * e for e, k in zip(es, ks)) % r)
    assert _ours(mcl, points, ks, window, portable, group) == want == _mcl_mulvec(mcl, points, ks, group)
    # and a changed scalar changes the sum (the case is not passing by accident)
    assert _ours(mcl, points, [ks[0] + 1, *ks[1:]], window, portable, group) != want


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_a_changed_scalar_or_point_changes_the_sum(mcl, group):
    """The negative twin of the equalities: they are not met by a constant answer."""
    points = _points(mcl, [1, 2, 3], group)
    base = _ours(mcl, points, [5, 6, 7], group=group)
    assert _ours(mcl, points, [5, 6, 8], group=group) != base
    assert _ours(mcl, _points(mcl, [1, 2, 4], group), [5, 6, 7], group=group) != base
    assert base == getattr(mcl, f"{group}_mul")(GROUPS[group][0], 5 + 12 + 21)


def test_malformed_inputs_are_refused(mcl):
    native = _native()
    prep = mcl.g1_prepare(_points(mcl, [1, 2]))
    ks = mb._fr_blob([1, 2])
    with pytest.raises(ValueError, match="bytes of points"):
        native.g1_msm(prep.data, ks[:32], 2)
    with pytest.raises(ValueError, match="bytes of points"):
        native.g1_msm(bytes(prep.data)[:100], ks, 2)
    with pytest.raises(ValueError, match="window of 17 bits"):
        native.g1_msm(prep.data, ks, 2, 17)
    jac = bytearray(prep.data)
    jac[64:96] = mb._fp(2)  # z = 2: a Jacobian point, not affine
    with pytest.raises(ValueError, match="neither affine"):
        native.g1_msm(bytes(jac), ks, 2)
    assert native.g1_msm(prep.data, ks, 2) != native.g1_msm(prep.data, mb._fr_blob([1, 3]), 2)


def test_malformed_g2_inputs_are_refused(mcl):
    native = _native()
    prep = mcl.g2_prepare(_points(mcl, [1, 2], "g2"))
    ks = mb._fr_blob([1, 2])
    with pytest.raises(ValueError, match="bytes of points"):
        native.g2_msm(bytes(prep.data)[:300], ks, 2)
    jac = bytearray(prep.data)
    jac[128:160] = mb._fp(2)  # z = 2: a Jacobian point, not affine
    with pytest.raises(ValueError, match="neither affine"):
        native.g2_msm(bytes(jac), ks, 2)


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_the_backend_sends_large_msms_to_it_and_small_ones_to_mcl(mcl, monkeypatch, group):
    """From NATIVE_MSM_MIN (G1) / NATIVE_G2_MSM_MIN (G2) live terms on, the packed, the int
    and the many MSMs go through the C MSM, below through MCL's mulVec; both give MCL's
    answer (one packed vector with zeros and a point at infinity, as a prover has)."""
    native = _native()
    monkeypatch.setattr(mb, "_NATIVE_MSM", native)
    least = mb.NATIVE_MSM_MIN if group == "g1" else mb.NATIVE_G2_MSM_MIN
    n = least + 200  # still above it without the zeros and the infinity
    gen, fn = GROUPS[group][0], GROUPS[group][1]
    es = [(7 * i) % 997 + 1 for i in range(n)]
    points = getattr(mcl, f"{group}_mul_many")(gen, es)
    points[3] = None
    ks = [0 if i % 50 == 0 else (i * 0x9E3779B97F4A7C15 + 1) % r for i in range(n)]
    want = getattr(mcl, f"{group}_mul")(gen, sum(k * e for i, (e, k) in enumerate(zip(es, ks)) if i != 3) % r)
    calls = []
    real = getattr(native, fn)
    monkeypatch.setattr(native, fn, lambda *a: calls.append(a[2]) or real(*a))
    prep = getattr(mcl, f"{group}_prepare")(points)
    k = get_kernel()
    packed = k.mont_bytes(k.from_ints(ks, n))
    msm, msm_packed, msm_many = (getattr(mcl, f"{group}_{x}") for x in ("msm", "msm_packed", "msm_many"))
    assert msm_packed(prep, packed) == want
    assert msm(prep, ks) == want
    assert msm_many([(points, ks), (points[:10], ks[:10])]) == [want, msm(points[:10], ks[:10])]
    assert len(calls) == 3 and all(c >= least for c in calls)
    calls.clear()
    small = least - 100
    assert msm_packed(getattr(mcl, f"{group}_prepare")(points[:small]), packed[:32 * small]) == \
        msm(points[:small], ks[:small])
    assert calls == []  # small: MCL's mulVec
    monkeypatch.setattr(mb, "_NATIVE_MSM", None)  # the fallback gives the same answer
    assert msm_packed(prep, packed) == want


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_the_self_check_passes_and_catches_a_wrong_msm(group):
    native = _native()
    assert mb._msm_self_check(native) == []

    def flipped(fn):
        def wrong(points, scalars, n, window=0, portable=False):
            raw = bytearray(fn(points, scalars, n, window, portable))
            raw[0] ^= 1  # another x
            return bytes(raw)
        return staticmethod(wrong)

    class Wrong:
        FP_MODULUS = native.FP_MODULUS
        g1_msm = flipped(native.g1_msm) if group == "g1" else staticmethod(native.g1_msm)
        g2_msm = flipped(native.g2_msm) if group == "g2" else staticmethod(native.g2_msm)

    problems = mb._msm_self_check(Wrong)
    assert problems and all(x.startswith(group.upper()) and "differs from MCL's mulVec" in x for x in problems)

    class WrongModulus(Wrong):
        FP_MODULUS = r

    assert mb._msm_self_check(WrongModulus) == ["the extension's base field modulus is not p"]


def test_a_failed_self_check_or_a_missing_build_falls_back_loudly(monkeypatch):
    monkeypatch.setattr(mb, "_msm_self_check", lambda native: ["G1 MSM differs"])
    monkeypatch.delenv("ZKBLUFF_MSM", raising=False)
    with pytest.warns(RuntimeWarning, match="fails its self-check.*G1 MSM differs"):
        assert mb._load_native_msm() is None
    monkeypatch.setenv("ZKBLUFF_MSM", "native")
    with pytest.raises(BackendUnavailable, match="fails its self-check"):
        mb._load_native_msm()
    monkeypatch.setenv("ZKBLUFF_MSM", "mcl")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mb._load_native_msm() is None  # asked for: quietly
    monkeypatch.setenv("ZKBLUFF_MSM", "fast")
    with pytest.raises(BackendUnavailable, match="expected one of native, mcl"):
        mb._load_native_msm()

    def no_module(name):
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(mb.importlib, "import_module", no_module)
    monkeypatch.delenv("ZKBLUFF_MSM")
    with pytest.warns(RuntimeWarning, match="cannot be loaded"):
        assert mb._load_native_msm() is None
    monkeypatch.setenv("ZKBLUFF_MSM", "native")
    with pytest.raises(BackendUnavailable, match="cannot be loaded"):
        mb._load_native_msm()


def test_the_self_check_passes_when_it_should(monkeypatch):
    """The twin of the fallback: a good build loads, with no warning."""
    _native()
    monkeypatch.delenv("ZKBLUFF_MSM", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mb._load_native_msm() is not None


def test_lambda_is_the_endomorphism_the_split_assumes(mcl):
    """(beta x, y) = lambda (x, y): the C split's constants agree with the curve (an MSM
    with scalar lambda is lambda P; a wrong lambda or beta would make it differ)."""
    P = mcl.g1_mul(G1_GENERATOR, 12345)
    assert pow(LAMBDA, 3, r) == 1 != LAMBDA
    assert _ours(mcl, [P], [LAMBDA]) == mcl.g1_mul(P, LAMBDA)
    assert _ours(mcl, [P], [LAMBDA]) != mcl.g1_mul(P, LAMBDA * LAMBDA % r)  # the other root


def test_mu_is_the_endomorphism_the_g2_split_assumes(mcl):
    """psi(Q) = mu Q with mu = p mod r: an MSM with scalar mu (split 0 + 1 mu) is mu Q."""
    from zkbluff.field import p

    Q = mcl.g2_mul(G2_GENERATOR, 54321)
    assert MU == p % r
    for k in (MU, MU + 7, MU * 3 + 2):
        assert _ours(mcl, [Q], [k], group="g2") == mcl.g2_mul(Q, k)
    assert _ours(mcl, [Q], [MU], group="g2") != mcl.g2_mul(Q, MU + 1)


def test_the_window_grows_with_the_number_of_terms():
    native = _native()
    windows = [native.window_bits(1 << k) for k in range(0, 21)]
    assert windows == sorted(windows) and 2 <= windows[0] < windows[-1] <= 16
    assert native.window_bits(1 << 16) > native.window_bits(1 << 10)


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_a_large_msm_with_repeated_and_opposite_points(mcl, group):
    """2^14 terms: the bucket trees run over several cache-sized runs of buckets, some
    buckets meet a point twice or a point and its negative; deterministic inputs."""
    n = 1 << 14
    gen = GROUPS[group][0]
    es = [(i * 7919) % 4093 + 1 for i in range(n)]  # every multiple of G about 4 times
    es = [r - e if i % 3 == 0 else e for i, e in enumerate(es)]  # and some negated
    ks = [(i * 0x9E3779B97F4A7C15 + 12345) % r if i % 5 else 77 for i in range(n)]
    points = getattr(mcl, f"{group}_mul_many")(gen, es)
    got = _ours(mcl, points, ks, group=group)
    assert got == _mcl_mulvec(mcl, points, ks, group) == \
        getattr(mcl, f"{group}_mul")(gen, sum(e * k for e, k in zip(es, ks)) % r)
    assert _ours(mcl, points, ks, 0, True, group) == got


def test_two_msms_at_once_in_two_threads(mcl):
    """The prover runs two MSMs at a time (the GIL is let go inside): each thread gets its
    own answer."""
    from concurrent.futures import ThreadPoolExecutor

    native = _native()
    n = 3000
    prep = mcl.g1_prepare(mcl.g1_mul_many(G1_GENERATOR, [i + 1 for i in range(n)]))
    prep2 = mcl.g2_prepare(mcl.g2_mul_many(G2_GENERATOR, [i + 1 for i in range(n)]))
    blobs = [mb._fr_blob([(i * j + 1) % r for i in range(n)]) for j in (3, 5, 7, 11)]
    jobs = [(native.g1_msm, prep, b) for b in blobs] + [(native.g2_msm, prep2, b) for b in blobs[:2]]
    alone = [fn(pts.data, b, n) for fn, pts, b in jobs]
    with ThreadPoolExecutor(max_workers=2) as pool:
        together = list(pool.map(lambda job: job[0](job[1].data, job[2], n), jobs))
    assert together == alone and len(set(alone)) == 6


def test_the_self_check_waits_for_the_first_large_msm(mcl, monkeypatch):
    """Loading the backend does not run the self-check (a verifier never pays for it): the
    first MSM large enough for the C one does, once."""
    _native()
    runs = []
    real = mb._load_native_msm
    monkeypatch.setattr(mb, "_load_native_msm", lambda: runs.append(1) or real())
    monkeypatch.setattr(mb, "_NATIVE_MSM", mb._UNCHECKED)
    points = mcl.g1_mul_many(G1_GENERATOR, list(range(1, 21)))
    mcl.g1_msm(points, list(range(20)))
    assert runs == []  # small: MCL's, nothing loaded
    n = mb.NATIVE_MSM_MIN
    points = mcl.g1_mul_many(G1_GENERATOR, [i + 1 for i in range(n)])
    prep = mcl.g1_prepare(points)
    assert mcl.g1_msm(prep, [1] * n) == mcl.g1_mul(G1_GENERATOR, n * (n + 1) // 2)
    assert mcl.g1_msm(prep, [2] * n) == mcl.g1_mul(G1_GENERATOR, n * (n + 1))
    assert runs == [1] and mb._NATIVE_MSM is not mb._UNCHECKED
