"""The C Poseidon (zkbluff._fr_native.poseidon, behind zkbluff.gadgets.native.poseidon, the
API every twin uses) equals the Python one on every width, and the API keeps its checks."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.errors import BackendUnavailable
from zkbluff.field import get_kernel, r
from zkbluff.gadgets import native
from zkbluff.gadgets.native import poseidon, poseidon_reference
from zkbluff.gadgets.poseidon_params import params
from zkbluff.gadgets.poseidon_sparse import permute_sparse, sparse_params

pytestmark = pytest.mark.skipif(not getattr(get_kernel(), "has_poseidon", False),
                                reason="the native field kernel is not built")

ELEMENT = st.one_of(st.integers(0, r - 1), st.sampled_from([0, 1, r - 1, r - 2, 2**253]))


@settings(max_examples=60)
@given(st.lists(ELEMENT, min_size=1, max_size=16))
def test_native_poseidon_equals_the_python_one(inputs):
    assert native._native_poseidon(len(inputs) + 1) is not None
    assert poseidon(inputs) == poseidon_reference(inputs)


@pytest.mark.parametrize("width", range(2, 18))
def test_every_width_on_fixed_inputs(width):
    inputs = [(7 ** (i + 3) + i) % r for i in range(width - 1)]
    assert poseidon(inputs) == poseidon_reference(inputs)


def test_circomlib_vector():
    """circomlibjs poseidon([1, 2]) (its test vector)."""
    assert poseidon([1, 2]) == 0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a


@pytest.mark.parametrize("bad", [[], list(range(17)), [r], [-1]])
def test_api_refuses_what_the_python_one_refuses(bad):
    with pytest.raises(ValueError):
        poseidon(bad)


def test_kernel_refuses_constants_of_another_width():
    kernel = get_kernel()
    C, M, r_p = params(3)
    constants, mds = kernel.from_ints(C, len(C)), kernel.from_ints([m for row in M for m in row], 9)
    assert kernel.poseidon([1, 2], constants, mds, r_p) == poseidon_reference([1, 2])
    with pytest.raises(ValueError, match="partial rounds"):
        kernel.poseidon([1, 2, 3], constants, mds, r_p)


def test_sparse_kernel_refuses_constants_of_another_width():
    fn = native._native_poseidon(3)
    packed, r_p = fn.args
    with pytest.raises(ValueError, match="partial rounds"):
        fn([1, 2, 3])
    with pytest.raises(ValueError, match="partial rounds"):
        get_kernel().poseidon_sparse(packed, r_p - 1)([1, 2])
    with pytest.raises(ValueError, match="partial rounds"):
        get_kernel().poseidon_sparse(packed[:-32], r_p)([1, 2])


def test_a_kernel_that_computes_another_poseidon_is_refused(monkeypatch):
    """The first use of a width compares the C permutation with the Python one."""
    kernel = get_kernel()
    monkeypatch.setattr(native, "_POSEIDON_PACKED", {})
    monkeypatch.setattr(kernel, "poseidon_sparse", lambda packed, r_p: (lambda inputs: 12345))
    with pytest.raises(BackendUnavailable, match="differs from the reference"):
        poseidon([1, 2])


def test_an_extension_without_the_sparse_rounds_runs_the_plain_ones(monkeypatch):
    kernel = get_kernel()
    monkeypatch.setattr(native, "_POSEIDON_PACKED", {})
    monkeypatch.setattr(kernel, "has_poseidon_sparse", False)
    assert native._native_poseidon(3).func is native._call_packed
    assert poseidon([1, 2]) == 0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a
    monkeypatch.setattr(kernel, "poseidon", lambda inputs, c, m, r_p: 12345)
    monkeypatch.setattr(native, "_POSEIDON_PACKED", {})
    with pytest.raises(BackendUnavailable, match="differs from the reference"):
        poseidon([1, 2])


# -- the sparse rounds (zkbluff.gadgets.poseidon_sparse): the Python derivation and both C products
@settings(max_examples=40, deadline=None)
@given(st.lists(ELEMENT, min_size=1, max_size=16))
def test_the_sparse_rounds_in_python_equal_the_reference(inputs):
    assert permute_sparse(inputs) == poseidon_reference(inputs)


@settings(max_examples=60, deadline=None)
@given(st.lists(ELEMENT, min_size=1, max_size=16))
def test_the_sparse_kernel_equals_the_reference_with_either_product(inputs):
    kernel, sp = get_kernel(), sparse_params(len(inputs) + 1)
    packed = kernel.from_ints(sp.packed_ints(), len(sp.packed_ints()))
    ref = poseidon_reference(inputs)
    assert kernel.poseidon_sparse(packed, sp.r_p)(inputs) == ref
    assert kernel.poseidon_sparse(packed, sp.r_p, portable=True)(inputs) == ref


def test_the_sparse_constants_move_every_partial_constant_and_thin_every_matrix():
    """What makes the rounds cheaper: one full constant vector for the partial rounds, a
    scalar each after that, and 2t - 1 matrix entries a round after the first."""
    for t in (2, 3, 9, 17):
        sp = sparse_params(t)
        assert len(sp.partial_constants) == t and len(sp.partial_scalars) == sp.r_p
        assert sp.partial_scalars[-1] == 0
        assert len(sp.sparse) == (sp.r_p - 1) * (2 * t - 1)
        assert len(sp.packed_ints()) == 9 * t + sp.r_p + 2 * t * t + (sp.r_p - 1) * (2 * t - 1)

