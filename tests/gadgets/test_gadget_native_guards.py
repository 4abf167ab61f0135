"""The native twins' own refusals (zkbluff.gadgets.native), each at its boundary with its
accepted twin and its whole message: a twin that accepts what its gadget refuses (or the
reverse) makes every "gadget equals twin" test meaningless at that edge.

Found by mutation testing (issue 21, target gadgets.native): the gadget tests compare
values inside the ranges, so these edges could move unnoticed.
"""
import math
import re

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff import gadgets as g
from zkbluff.circuit import LC, ConstraintSystem
from zkbluff.field import r
from zkbluff.gadgets import native


def says(message: str) -> str:
    return "^" + re.escape(message) + "$"


# ---- to_bits -----------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 8, 254])
def test_to_bits_takes_zero_to_two_to_the_n_minus_one(n):
    assert native.to_bits(0, n) == [0] * n
    assert native.to_bits((1 << n) - 1, n) == [1] * n


@pytest.mark.parametrize("x, n", [(1 << 8, 8), (-1, 8), (1, 0), (r, 253)])
def test_to_bits_refuses_what_does_not_fit(x, n):
    with pytest.raises(ValueError, match=says(f"{x} does not fit in {n} bits")):
        native.to_bits(x, n)


@settings(max_examples=30)
@given(st.lists(st.integers(0, 1), max_size=254))
def test_from_bits_is_the_gadgets_twin(bits):
    cs = ConstraintSystem(with_values=True)
    wires = [cs.private_unchecked(f"b{i}", b) for i, b in enumerate(bits)]
    assert native.from_bits(bits) == LC.of(g.from_bits(wires)).value


def test_from_bits_reads_little_endian_and_reduces_mod_r():
    assert native.from_bits([]) == 0 and native.from_bits([0, 1, 1]) == 6
    assert native.from_bits(native.to_bits(r - 1, 254)) == r - 1
    assert native.from_bits([1] * 254) == (1 << 254) - 1 - r  # 2^254 - 1 lies between r and 2r


# ---- poseidon ----------------------------------------------------------------------------------

def test_poseidon_takes_one_to_sixteen_inputs():
    assert native.poseidon([1]) != native.poseidon([1, 0])
    assert 0 <= native.poseidon(list(range(16))) < r
    with pytest.raises(ValueError, match=says("Poseidon takes 1..16 inputs, got 0")):
        native.poseidon([])
    with pytest.raises(ValueError, match=says("Poseidon takes 1..16 inputs, got 17")):
        native.poseidon(list(range(17)))


def test_poseidon_takes_field_elements_only():
    assert native.poseidon([0]) != native.poseidon([r - 1])
    for bad in (r, -1, r + 5):
        with pytest.raises(ValueError, match=says(f"Poseidon input {bad} is not a field element below r")):
            native.poseidon([3, bad])


# ---- mixed_radix_digits ------------------------------------------------------------------------

@pytest.mark.parametrize("radices", [[52, 51, 50], [1], [2, 1, 3]])
def test_mixed_radix_digits_refuse_exactly_the_top_of_the_field(radices):
    """The last value with a unique decomposition is taken, the first without is refused,
    and the message counts the refused values: r - Q N, Q = floor((r - 1) / N)."""
    n_total = math.prod(radices)
    q_max = (r - 1) // n_total
    top = q_max * n_total
    last = native.mixed_radix_digits(top - 1, radices)
    assert last == [m - 1 for m in radices]
    with pytest.raises(ValueError, match=says(f"h lies in the refused top {r - top} values of the field")):
        native.mixed_radix_digits(top, radices)


def test_mixed_radix_digits_read_h_modulo_r():
    radices = [52, 51]
    assert native.mixed_radix_digits(r + 53, radices) == native.mixed_radix_digits(53, radices) == [1, 1]
    assert native.mixed_radix_digits(0, radices) == [0, 0]


# ---- pick_remaining ----------------------------------------------------------------------------

def test_pick_remaining_picks_in_id_order_from_the_first_to_the_last():
    mask = 0b1011_0100
    assert [native.pick_remaining(mask, j) for j in range(4)] == [2, 4, 5, 7]
    assert native.pick_remaining(1, 0) == 0


def test_pick_remaining_refuses_a_negative_index_and_one_past_the_end():
    with pytest.raises(ValueError, match=says("pick_remaining: j must be >= 0, got -1")):
        native.pick_remaining(0b1011, -1)
    with pytest.raises(ValueError, match=says("pick_remaining: 3 cards remain, asked for index 3")):
        native.pick_remaining(0b1011, 3)
    with pytest.raises(ValueError, match=says("pick_remaining: 0 cards remain, asked for index 0")):
        native.pick_remaining(0, 0)


# ---- the permutation twins ---------------------------------------------------------------------

def test_grand_product_of_nothing_is_one_and_reduces_mod_r():
    assert native.grand_product([], 5) == 1
    assert native.grand_product([1, 2], 0) == 2
    assert native.grand_product([r - 1], 0) == 1  # (0 - (r - 1)) mod r


def test_permutation_challenge_packs_by_the_bit_width_and_refuses_a_value_that_does_not_fit():
    """252 // bits values a pack, little-endian: 42 six-bit values fill one pack, the 43rd
    starts a second."""
    forty_two = list(range(42))
    packed = sum(v << (6 * i) for i, v in enumerate(forty_two))
    assert native.permutation_challenge(forty_two, 6) == native.poseidon([packed])
    assert native.permutation_challenge(forty_two + [5], 6) == native.poseidon([packed, 5])
    assert native.permutation_challenge([0, 63], 6) == native.poseidon([63 << 6])
    for bad in (64, -1):
        with pytest.raises(ValueError, match=says(f"{bad} does not fit in 6 bits")):
            native.permutation_challenge([1, bad], 6)


def test_is_permutation_of_range():
    assert native.is_permutation_of_range([2, 0, 1]) and native.is_permutation_of_range([])
    assert not native.is_permutation_of_range([1, 2, 3]) and not native.is_permutation_of_range([0, 0, 1])
