"""The native field kernel (C) against the pure-Python reference, kernel by kernel,
on hypothesis-generated inputs with the edge values 0, 1, r-1 and sizes 1..2^k; the
kernel selection (ZKBLUFF_FIELD) and its typed errors; the prover with either kernel."""
import os
import random
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from zkbluff import field
from zkbluff.errors import BackendUnavailable, MalformedInput
from zkbluff.field import (
    GENERATOR, ROOT_OF_UNITY, EvaluationDomain, available_kernels, get_kernel, inv, r, root_of_unity,
)

NATIVE = "native" in available_kernels()
needs_native = pytest.mark.skipif(not NATIVE, reason="the C extension is not built here")

EDGES = [0, 1, 2, r - 1, r - 2, ROOT_OF_UNITY, (1 << 256) % r, (1 << 253)]
fr = st.one_of(st.sampled_from(EDGES), st.integers(min_value=0, max_value=r - 1))
fr_nonzero = fr.filter(bool)
log_sizes = st.integers(min_value=0, max_value=9)


def py():
    return get_kernel("python")


def nat():
    return get_kernel("native")


def both(fn):
    """fn(kernel) for each kernel, as lists of ints."""
    return [k.to_ints(fn(k)) for k in (py(), nat())]


def vectors(log_n=None, count=1):
    """`count` lists of 2^log_n field elements (log_n drawn when not given)."""
    def build(lg):
        return st.tuples(*[st.lists(fr, min_size=1 << lg, max_size=1 << lg) for _ in range(count)])
    return (log_sizes if log_n is None else st.just(log_n)).flatmap(lambda lg: st.tuples(st.just(lg), build(lg)))


# ------------------------------------------------------------------ the CI guard

def test_native_kernel_is_built_in_ci(monkeypatch):
    """Under CI the package build must have compiled the extension: a missing compiler
    or a broken setup.py fails here instead of silently testing the reference twice."""
    if os.environ.get("CI") != "true":
        pytest.skip("only enforced under CI=true")
    assert "native" in available_kernels()
    monkeypatch.delenv("ZKBLUFF_FIELD", raising=False)
    assert get_kernel().name == "native"  # and it is the default


# ------------------------------------------------------------------ conversions

@needs_native
@given(st.lists(fr, max_size=40), st.integers(0, 5))
def test_from_ints_to_ints(xs, pad):
    n = len(xs) + pad
    a, b = both(lambda k: k.from_ints(xs, n))
    assert a == b == xs + [0] * pad


@needs_native
@given(st.lists(st.integers(min_value=-(1 << 300), max_value=1 << 300), max_size=20))
def test_from_ints_reduces_any_int_like_python(xs):
    a, b = both(lambda k: k.from_ints(xs, len(xs)))
    assert a == b == [x % r for x in xs]


@needs_native
def test_from_ints_int_likes_and_rejects():
    xs = [np.int64(-5), True, r, -1]
    a, b = both(lambda k: k.from_ints(xs, 4))
    assert a == b == [r - 5, 1, 0, r - 1]
    for k in (py(), nat()):
        with pytest.raises(TypeError):
            k.from_ints([1, "2"], 2)
        with pytest.raises(TypeError):
            k.from_ints([1.0], 1)
        with pytest.raises(MalformedInput, match="expected at most 2, got 3"):
            k.from_ints([1, 2, 3], 2)
        assert k.to_ints(k.from_ints([], 0)) == []


@needs_native
@given(st.lists(fr, max_size=20))
def test_mont_bytes_is_mcl_layout(mcl, xs):
    """The native vector *is* the Montgomery little-endian layout MCL takes for scalars
    (so the prover can hand it to an MSM unconverted); the reference makes the same bytes.
    (``mcl``: without the backend the test skips, and under CI fails, never passes unchecked.)"""
    from zkbluff.curve import mcl_backend

    expected = b"".join((x * (1 << 256) % r).to_bytes(32, "little") for x in xs)
    assert nat().from_ints(xs, len(xs)) == expected
    assert nat().mont_bytes(nat().from_ints(xs, len(xs))) == expected
    assert py().mont_bytes(py().from_ints(xs, len(xs))) == expected
    assert mcl_backend._fr_blob(xs) == expected


@needs_native
def test_mont_bytes_feed_mcl_msm_directly(mcl):
    """Scalars handed to MCL's mulVec as the kernel's bytes give the MSM of the ints."""
    import ctypes

    from zkbluff.curve import G1_GENERATOR, mcl_backend as mb

    be = mcl
    rng = random.Random(5)
    pts = be.g1_mul_many(G1_GENERATOR, [rng.randrange(1, r) for _ in range(33)])
    sc = [0, 1, r - 1] + [rng.randrange(r) for _ in range(30)]
    prep = be.g1_prepare(pts)
    packed = nat().from_ints(sc, len(sc))
    out = mb.G1Struct()
    mb._lib.mclBnG1_mulVec(out, prep.data, (ctypes.c_uint64 * (4 * len(sc))).from_buffer_copy(packed),
                           ctypes.c_size_t(len(sc)))
    assert mb._g1_from_struct(out) == be.g1_msm(prep, sc)
    sc[5] = (sc[5] + 1) % r  # negative twin
    assert mb._g1_from_struct(out) != be.g1_msm(prep, sc)


# ------------------------------------------------------------------ element-wise and batch

@needs_native
@given(st.lists(st.tuples(fr, fr), max_size=40))
def test_elementwise(pairs):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    n = len(xs)
    for op, ref in (("add", lambda x, y: (x + y) % r), ("sub", lambda x, y: (x - y) % r),
                    ("mul", lambda x, y: x * y % r)):
        a, b = both(lambda k: getattr(k, op)(k.from_ints(xs, n), k.from_ints(ys, n)))
        assert a == b == [ref(x, y) for x, y in zip(xs, ys)], op


@needs_native
def test_elementwise_length_mismatch():
    for k in (py(), nat()):
        with pytest.raises(MalformedInput, match="vectors of 2 and 1 elements"):
            k.mul(k.from_ints([1, 2], 2), k.from_ints([1], 1))


@needs_native
@given(st.lists(fr_nonzero, max_size=60))
def test_batch_inv(xs):
    a, b = both(lambda k: k.batch_inv(k.from_ints(xs, len(xs))))
    assert a == b == [inv(x) for x in xs]


@needs_native
@given(st.lists(fr_nonzero, min_size=1, max_size=20), st.data())
def test_batch_inv_of_zero(xs, data):
    xs.insert(data.draw(st.integers(0, len(xs))), 0)
    for k in (py(), nat()):
        with pytest.raises(ZeroDivisionError):
            k.batch_inv(k.from_ints(xs, len(xs)))


@needs_native
@given(st.lists(fr, max_size=40), fr, fr)
def test_scale_powers(xs, c, g):
    a, b = both(lambda k: k.scale_powers(k.from_ints(xs, len(xs)), c, g))
    assert a == b == [x * c * pow(g, i, r) % r for i, x in enumerate(xs)]


@needs_native
@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_sparse_matvec(n_rows, n_cols, data):
    nnz = data.draw(st.integers(0, 40))
    rows = data.draw(st.lists(st.integers(0, n_rows - 1), min_size=nnz, max_size=nnz))
    cols = data.draw(st.lists(st.integers(0, n_cols - 1), min_size=nnz, max_size=nnz))
    vals = data.draw(st.lists(fr, min_size=nnz, max_size=nnz))
    w = data.draw(st.lists(fr, min_size=n_cols, max_size=n_cols))
    expected = [0] * n_rows
    for i, j, v in zip(rows, cols, vals):
        expected[i] = (expected[i] + v * w[j]) % r
    rows_a, cols_a = np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)
    a, b = both(lambda k: k.sparse_matvec(rows_a, cols_a, k.from_ints(vals, nnz), k.from_ints(w, n_cols), n_rows))
    assert a == b == expected


@needs_native
@pytest.mark.parametrize("row,col", [(3, 0), (-1, 0), (0, 2), (0, -1)])
def test_sparse_matvec_out_of_bounds(row, col):
    for k in (py(), nat()):
        with pytest.raises(MalformedInput, match="outside a 3 x 2 matrix"):
            k.sparse_matvec(np.array([0, row], dtype=np.int64), np.array([1, col], dtype=np.int64),
                            k.from_ints([5, 6], 2), k.from_ints([1, 2], 2), 3)


# ------------------------------------------------------------------ NTTs

def naive_eval(coeffs, x):
    return sum(c * pow(x, i, r) for i, c in enumerate(coeffs)) % r


@needs_native
@given(vectors())
def test_ntt_equal(case):
    lg, (xs,) = case
    d = EvaluationDomain(lg)
    for omega in (d.omega, d.omega_inv):
        a, b = both(lambda k: k.ntt(k.from_ints(xs, d.size), lg, omega))
        assert a == b
    if lg <= 4:
        assert a == [naive_eval(xs, pow(d.omega_inv, i, r)) for i in range(d.size)]


@needs_native
@settings(max_examples=25)
@given(vectors(), fr_nonzero)
def test_domain_transforms_equal(case, shift):
    lg, (xs,) = case
    d = EvaluationDomain(lg)
    for method in ("ntt_vec", "intt_vec"):
        a, b = both(lambda k: getattr(d, method)(k, k.from_ints(xs, d.size)))
        assert a == b, method
    for method in ("coset_ntt_vec", "coset_intt_vec"):
        a, b = both(lambda k: getattr(d, method)(k, k.from_ints(xs, d.size), shift))
        assert a == b, method
    assert nat().to_ints(d.intt_vec(nat(), d.ntt_vec(nat(), nat().from_ints(xs, d.size)))) == xs


@needs_native
@pytest.mark.parametrize("lg", [10, 12, 13])
def test_ntt_equal_large(lg):
    d = EvaluationDomain(lg)
    rng = random.Random(lg)
    xs = [rng.randrange(r) for _ in range(d.size)]
    xs[:3] = [0, 1, r - 1]
    assert both(lambda k: d.coset_ntt_vec(k, k.from_ints(xs, d.size))) == \
        both(lambda k: k.ntt(k.scale_powers(k.from_ints(xs, d.size), 1, GENERATOR), lg, d.omega))
    a, b = both(lambda k: d.ntt_vec(k, k.from_ints(xs, d.size)))
    assert a == b
    assert a[5] == naive_eval(xs, pow(d.omega, 5, r))


@needs_native
def test_ntt_rejects_bad_sizes():
    for k in (py(), nat()):
        with pytest.raises(MalformedInput, match="expected 2\\^log_n elements"):
            k.ntt(k.from_ints([1, 2, 3], 3), 2, root_of_unity(2))
        with pytest.raises(MalformedInput, match="expected 2\\^log_n elements"):
            k.ntt(k.from_ints([1, 2], 2), 2, root_of_unity(2))
        with pytest.raises(MalformedInput, match="expected 2\\^log_n elements"):
            k.h_step(k.from_ints([1, 2], 2), k.from_ints([1], 1), 1, root_of_unity(1), root_of_unity(2))


@needs_native
@given(vectors(count=2))
def test_h_step_equal(case):
    lg, (xs, ys) = case
    d = EvaluationDomain(lg)
    shift = root_of_unity(lg + 1)
    a, b = both(lambda k: k.h_step(k.from_ints(xs, d.size), k.from_ints(ys, d.size), lg, d.omega, shift))
    assert a == b
    if lg <= 3:  # the definition: interpolate, evaluate on the coset, A*B - C
        cs = [x * y % r for x, y in zip(xs, ys)]
        A, B, C = (py().to_ints(d.intt_vec(py(), py().from_ints(v, d.size))) for v in (xs, ys, cs))
        pts = [shift * pow(d.omega, i, r) % r for i in range(d.size)]
        assert a == [(naive_eval(A, x) * naive_eval(B, x) - naive_eval(C, x)) % r for x in pts]


@needs_native
def test_h_step_large():
    lg = 12
    d = EvaluationDomain(lg)
    rng = random.Random(7)
    xs, ys = ([rng.randrange(r) for _ in range(d.size)] for _ in range(2))
    xs[0], ys[-1] = r - 1, 0
    shift = root_of_unity(lg + 1)
    a, b = both(lambda k: k.h_step(k.from_ints(xs, d.size), k.from_ints(ys, d.size), lg, d.omega, shift))
    assert a == b
    ys[1] = (ys[1] + 1) % r  # negative twin
    assert nat().to_ints(nat().h_step(nat().from_ints(xs, d.size), nat().from_ints(ys, d.size), lg,
                                      d.omega, shift)) != a


@needs_native
@settings(max_examples=40)
@given(vectors(count=2))
def test_ntt_and_h_step_portable_product_equals_adx(case):
    """The NTT and the h step run the MULX/ADX product where the CPU has it; the portable C
    product (portable=True) must give the same bytes (both equal the Python reference above)."""
    import zkbluff._fr_native as m

    lg, (xs, ys) = case
    d = EvaluationDomain(lg)
    shift = root_of_unity(lg + 1)
    a, b = nat().from_ints(xs, d.size), nat().from_ints(ys, d.size)
    h_args = (a, b, lg, d.omega, inv(d.omega), inv(1 << lg), shift)
    assert m.h_step(*h_args, True) == m.h_step(*h_args)
    assert py().to_ints(py().h_step(py().from_ints(xs, d.size), py().from_ints(ys, d.size), lg, d.omega, shift)) \
        == nat().to_ints(m.h_step(*h_args, True))
    assert m.ntt(a, lg, d.omega, True) == m.ntt(a, lg, d.omega)


# ------------------------------------------------------------------ selection

@pytest.fixture
def fresh_kernels(monkeypatch):
    monkeypatch.setattr(field, "_KERNELS", {})
    monkeypatch.delenv("ZKBLUFF_FIELD", raising=False)


def test_selection_by_name(fresh_kernels, monkeypatch):
    monkeypatch.setenv("ZKBLUFF_FIELD", "python")
    assert get_kernel().name == "python"
    monkeypatch.setenv("ZKBLUFF_FIELD", "gpu")
    with pytest.raises(BackendUnavailable, match="unknown field kernel 'gpu'"):
        get_kernel()
    with pytest.raises(BackendUnavailable, match="unknown field kernel"):
        get_kernel("Native")
    if NATIVE:
        monkeypatch.setenv("ZKBLUFF_FIELD", "native")
        assert get_kernel().name == "native"
        monkeypatch.delenv("ZKBLUFF_FIELD")
        assert get_kernel().name == "native"  # the default where it is built


def test_native_asked_for_but_not_built(fresh_kernels, monkeypatch):
    monkeypatch.setitem(sys.modules, "zkbluff._fr_native", None)  # import fails as if never built
    with pytest.raises(BackendUnavailable, match="'native' cannot be loaded"):
        get_kernel("native")
    monkeypatch.setenv("ZKBLUFF_FIELD", "native")
    with pytest.raises(BackendUnavailable, match="'native' cannot be loaded"):
        get_kernel()
    monkeypatch.delenv("ZKBLUFF_FIELD")
    assert get_kernel().name == "python"  # by default: the reference
    assert available_kernels() == ["python"]


@needs_native
def test_native_self_check_is_loud(fresh_kernels, monkeypatch):
    """A built extension whose constants disagree with field.py never runs, not even
    by default (no silent fallback that would hide a broken build)."""
    import types

    from zkbluff import _fr_native as real

    fake = types.SimpleNamespace(**{n: getattr(real, n) for n in dir(real) if not n.startswith("__")})
    fake.MODULUS = r + 2
    monkeypatch.setitem(sys.modules, "zkbluff._fr_native", fake)
    with pytest.raises(BackendUnavailable, match="self-check: modulus"):
        get_kernel()
    good = types.SimpleNamespace(**{n: getattr(real, n) for n in dir(real) if not n.startswith("__")})
    good.mul = lambda a, b: real.add(a, b)  # a wrong kernel with the right constants
    monkeypatch.setitem(sys.modules, "zkbluff._fr_native", good)
    with pytest.raises(BackendUnavailable, match="multiplication is wrong"):
        get_kernel("native")


def test_domain_lists_follow_the_selected_kernel(fresh_kernels, monkeypatch):
    d = EvaluationDomain(6)
    xs = [random.randrange(r) for _ in range(d.size)]
    outs = []
    for name in available_kernels():
        monkeypatch.setenv("ZKBLUFF_FIELD", name)
        outs.append((d.ntt(xs), d.intt(xs), d.coset_ntt(xs), d.coset_intt(xs, 7)))
    assert all(o == outs[0] for o in outs)
    assert d.intt(outs[0][0]) == xs


# ------------------------------------------------------------------ the prover with each kernel

@pytest.fixture(scope="module")
def small_key():
    from zkbluff.circuit import build
    from zkbluff.groth16 import setup_insecure_seeded_for_tests

    def synth(cs, inputs):
        out = cs.public("out", inputs and inputs["out"])
        x = cs.private_unchecked("x", inputs and inputs["x"])
        for i in range(40):
            x = cs.mul(x, x + i, f"m{i}")
        cs.enforce_equal(x, out, "out")

    x = 3
    for i in range(40):
        x = x * (x + i) % r
    system, witness = build(synth, {"out": x, "x": 3})
    return setup_insecure_seeded_for_tests(system, "field-native"), witness


@needs_native
@pytest.mark.parametrize("kernel", ["python", "native"])
def test_prover_with_each_kernel(small_key, kernel, monkeypatch):
    from zkbluff.errors import InvalidProof, UnsatisfiedConstraint
    from zkbluff.groth16 import prove, verify

    pk, witness = small_key
    monkeypatch.setenv("ZKBLUFF_FIELD", kernel)
    proof = prove(pk, witness)
    verify(pk.vk, [witness[1]], proof)
    with pytest.raises(InvalidProof):
        verify(pk.vk, [(witness[1] + 1) % r], proof)
    bad = list(witness)
    bad[3] = (bad[3] + 1) % r
    with pytest.raises(UnsatisfiedConstraint):
        prove(pk, bad)


@needs_native
def test_prover_polynomials_equal_across_kernels(small_key):
    """The deterministic part of a proof (A w, B w and h) is the same with both kernels."""
    from zkbluff.groth16.qap import CoefficientMatrix, h_vector

    pk, witness = small_key
    m = CoefficientMatrix(pk.coefficients, pk.domain_size)
    d = EvaluationDomain.for_size(pk.domain_size)
    outs = []
    for k in (py(), nat()):
        w = k.from_ints(witness, len(witness))
        a, b = m.evaluate(k, w)
        outs.append((k.to_ints(a), k.to_ints(b), k.to_ints(h_vector(k, d, a, b))))
    assert outs[0] == outs[1]
    assert any(outs[0][2])


@pytest.mark.parametrize("kernel", ["python", "native"])
@pytest.mark.parametrize("bad_value", ["7", -1, r, 2.0])
def test_prover_rejects_malformed_witness_values(small_key, kernel, bad_value, monkeypatch):
    """A value outside Fr or not an int is MalformedInput naming its index, with and
    without the constraint system (the kernel would otherwise reduce it silently)."""
    if kernel not in available_kernels():
        pytest.skip("the C extension is not built here")
    from zkbluff.groth16 import prove
    from zkbluff.groth16.zkey import zkey_from_bytes, zkey_to_bytes

    pk, witness = small_key
    monkeypatch.setenv("ZKBLUFF_FIELD", kernel)
    bad = list(witness)
    bad[2] = bad_value
    bare = zkey_from_bytes(zkey_to_bytes(pk))
    for key in (pk, bare):
        with pytest.raises(MalformedInput, match=r"witness\[2\]: expected 0 <= w < r"):
            prove(key, bad)


@needs_native
def test_seeded_setup_identical_with_either_kernel(small_key, monkeypatch):
    """Setup's field work (Lagrange bases, batch inversions) goes through the kernel: the
    same seed gives byte-identical keys with both."""
    from zkbluff.groth16 import setup_insecure_seeded_for_tests
    from zkbluff.groth16.zkey import zkey_to_bytes

    pk, _ = small_key
    blobs = []
    for kernel in ("python", "native"):
        monkeypatch.setenv("ZKBLUFF_FIELD", kernel)
        blobs.append(zkey_to_bytes(setup_insecure_seeded_for_tests(pk.system, "field-native")))
    assert blobs[0] == blobs[1] == zkey_to_bytes(pk)
    monkeypatch.setenv("ZKBLUFF_FIELD", "native")
    assert zkey_to_bytes(setup_insecure_seeded_for_tests(pk.system, "other seed")) != blobs[0]


def test_prover_refuses_when_key_and_system_disagree(monkeypatch):
    """The prover's constraint check runs on the matrices it proves with: a key whose
    constraint system is not its coefficients' refuses even a witness of that system."""
    import dataclasses

    from zkbluff.circuit import build
    from zkbluff.errors import UnsatisfiedConstraint
    from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests

    def square(cs, inputs):
        y = cs.public("y", inputs and inputs["y"])
        x = cs.private_unchecked("x", inputs and inputs["x"])
        cs.enforce_equal(cs.mul(x, x, "sq"), y, "out")

    def plus_one(cs, inputs):
        y = cs.public("y", inputs and inputs["y"])
        x = cs.private_unchecked("x", inputs and inputs["x"])
        cs.enforce_equal(cs.mul(x, x + 1, "sq"), y, "out")

    pk = setup_insecure_seeded_for_tests(build(square)[0], "disagree")
    other, w_other = build(plus_one, {"x": 3, "y": 12})
    _, w_square = build(square, {"x": 3, "y": 9})
    for kernel in available_kernels():
        monkeypatch.setenv("ZKBLUFF_FIELD", kernel)
        prove(pk, w_square)  # positive twin: the key's own circuit
        with pytest.raises(UnsatisfiedConstraint, match="disagree"):
            prove(dataclasses.replace(pk, system=other), w_other)


class _PackedScalars:
    """A backend with the packed-scalar MSMs the prover prefers: Montgomery bytes decoded
    here and handed to the wrapped backend's int MSMs (``tamper`` changes one scalar)."""

    def __init__(self, be, tamper=False):
        self._be, self.name, self.tamper, self.calls = be, be.name, tamper, 0

    def __getattr__(self, attr):
        return getattr(self._be, attr)

    def _ints(self, packed: bytes) -> list[int]:
        self.calls += 1
        r_inv = pow(1 << 256, -1, r)
        xs = [int.from_bytes(packed[i:i + 32], "little") * r_inv % r for i in range(0, len(packed), 32)]
        if self.tamper:
            xs[-1] = (xs[-1] + 1) % r
        return xs

    def g1_msm_packed(self, points, packed):
        return self._be.g1_msm(points, self._ints(packed))

    def g2_msm_packed(self, points, packed):
        return self._be.g2_msm(points, self._ints(packed))


@pytest.mark.parametrize("kernel", ["python", "native"])
def test_prover_packed_scalar_path(small_key, kernel, monkeypatch):
    if kernel not in available_kernels():
        pytest.skip("the C extension is not built here")
    from zkbluff.curve import get_backend
    from zkbluff.errors import InvalidProof
    from zkbluff.groth16 import prove, verify

    pk, witness = small_key
    monkeypatch.setenv("ZKBLUFF_FIELD", kernel)
    be = _PackedScalars(get_backend())
    verify(pk.vk, [witness[1]], prove(pk, witness, backend=be), backend=be._be)
    assert be.calls == 3  # A, B in G2, C (with B's G1 points in it): all took packed scalars
    bad = _PackedScalars(get_backend(), tamper=True)
    with pytest.raises(InvalidProof):
        verify(pk.vk, [witness[1]], prove(pk, witness, backend=bad), backend=bad._be)


@pytest.mark.parametrize("packed", [False, True])
def test_prover_split_c_msm(small_key, packed, monkeypatch):
    """C's MSM in two parts on two threads (as for large circuits: B's G1 points with L's, and
    H's) gives valid proofs with int and with packed scalars."""
    import dataclasses
    import importlib

    from zkbluff.curve import get_backend
    from zkbluff.groth16 import prove, verify

    pk, witness = small_key
    # the module, not the function zkbluff.groth16 exports under the same name
    monkeypatch.setattr(importlib.import_module("zkbluff.groth16.prove"), "SPLIT_MSM_AT", 2)
    fresh = dataclasses.replace(pk)  # a new key object: its points are prepared afresh, in two parts
    be = _PackedScalars(get_backend()) if packed else get_backend()
    verify(pk.vk, [witness[1]], prove(fresh, witness, backend=be))
    if packed:
        assert be.calls == 4
