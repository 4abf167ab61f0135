"""The C Poseidon (zkbluff._fr_native.poseidon, behind zkbluff.gadgets.native.poseidon, the
API every twin uses) equals the Python one on every width, and the API keeps its checks."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.errors import BackendUnavailable
from zkbluff.field import get_kernel, r
from zkbluff.gadgets import native
from zkbluff.gadgets.native import poseidon, poseidon_reference

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
    fn = native._native_poseidon(3)
    constants, mds, r_p = fn.args[1], fn.args[2], fn.args[3]
    with pytest.raises(ValueError, match="partial rounds"):
        kernel.poseidon([1, 2, 3], constants, mds, r_p)


def test_a_kernel_that_computes_another_poseidon_is_refused(monkeypatch):
    """The first use of a width compares the C permutation with the Python one."""
    kernel = get_kernel()
    monkeypatch.setattr(native, "_POSEIDON_PACKED", {})
    monkeypatch.setattr(kernel, "poseidon", lambda inputs, c, m, r_p: 12345)
    with pytest.raises(BackendUnavailable, match="differs from the reference"):
        poseidon([1, 2])

