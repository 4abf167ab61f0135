"""The argument guards of the drawing and permutation gadgets (zkbluff.gadgets.order,
zkbluff.gadgets.permutation), each at its boundary with its accepted twin. Their values
against the native twins, their counts and their tampers are in
tests/statements/test_statement_deal_v2.py and tests/statements/test_statement_oblivious.py.

Found by mutation testing (issue 21, targets gadgets.order and gadgets.permutation): the
statement tests only ever call them with arguments the statements make.
"""
import re

import pytest

from zkbluff.circuit import LC, ConstraintSystem, build, check
from zkbluff.circuit.audit import unsatisfied_after
from zkbluff.errors import UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets import native
from zkbluff.gadgets.order import mixed_radix_digits
from zkbluff.gadgets.permutation import (
    challenge_constraint_count, enforce_permutation_of_range, grand_product, permutation_challenge,
)

from order_gadget_helpers import digits_circuit


def says(message: str) -> str:
    return "^" + re.escape(message) + "$"


@pytest.mark.parametrize("radices", [[], [0], [3, 0, 2], [5, -1]])
def test_mixed_radix_digits_refuse_no_radix_or_one_below_one(radices):
    cs = ConstraintSystem()
    with pytest.raises(ValueError, match=says(f"mixed_radix_digits: radices must be positive, got {radices}")):
        mixed_radix_digits(cs, cs.public("h"), radices)
    assert cs.constraints == []


def test_a_radix_of_one_is_the_constant_digit_zero_and_only_one():
    """7 = 0 + 1 * (1 + 2 * (3 + 4 * 0)): the radices of one give constant zeros (no wire),
    the radix of two a constrained digit 1 (one boolean row, no comparison row)."""
    cs = ConstraintSystem(with_values=True)
    h = cs.public("h", 7)
    digits = mixed_radix_digits(cs, h, [1, 2, 4, 1])
    assert [LC.of(d).value for d in digits] == [0, 1, 3, 0]
    assert [LC.of(d).is_constant() for d in digits] == [True, False, False, True]
    quotient_rows = 2 * ((r - 1) // 8 - 1).bit_length() - 1
    assert len(cs.constraints) == 1 + (2 + 1) + quotient_rows + 1  # digit 1, digit 2, the quotient, recompose


def test_mixed_radix_digits_need_room_for_a_quotient_of_two():
    """N with floor((r - 1) / N) = 2 is the largest product taken; one more and the quotient
    would have no room: refused before any constraint."""
    largest = (r - 1) // 2
    assert (r - 1) // largest == 2 and (r - 1) // (largest + 1) == 1
    cs = ConstraintSystem()
    assert len(mixed_radix_digits(cs, cs.public("h"), [largest])) == 1
    cs = ConstraintSystem()
    with pytest.raises(ValueError, match=says(f"mixed_radix_digits: the product of the radices "
                                              f"({(largest + 1).bit_length()} bits) leaves no room in the field")):
        mixed_radix_digits(cs, cs.public("h"), [largest + 1])
    assert cs.constraints == []


def test_the_grand_product_of_nothing_is_one_and_costs_nothing():
    cs = ConstraintSystem(with_values=True)
    assert LC.of(grand_product(cs, [], 5)).value == 1 and cs.constraints == []
    one = grand_product(cs, [LC.constant(2)], 5)
    assert LC.of(one).value == 3 and cs.constraints == []  # one value: gamma - v, linear


@pytest.mark.parametrize("n", [0, 1])
def test_a_permutation_needs_two_values(n):
    cs = ConstraintSystem()
    gamma = cs.public("gamma")
    values = [cs.private_unchecked(f"v{i}") for i in range(n)]
    with pytest.raises(ValueError, match=says("enforce_permutation_of_range: needs at least two values")):
        enforce_permutation_of_range(cs, values, gamma)
    assert cs.constraints == []
    cs = ConstraintSystem()  # the twin: two values, 2n - 2 = 2 constraints
    gamma = cs.public("gamma")
    enforce_permutation_of_range(cs, [cs.private_unchecked("a"), cs.private_unchecked("b")], gamma)
    assert len(cs.constraints) == 2


@pytest.mark.parametrize("radices", [[1], [2], [52, 51, 50]])
def test_the_gadget_refuses_exactly_the_top_its_twin_refuses(radices):
    """h = Q N - 1 (Q = floor((r - 1) / N)) is the last value with a unique decomposition:
    the gadget proves it with the twin's digits; h = Q N is refused by the quotient's
    bound, as the twin refuses it. For N = 1 the top is h = r - 1 itself."""
    n_total = 1
    for m in radices:
        n_total *= m
    top = ((r - 1) // n_total) * n_total
    digits = native.mixed_radix_digits(top - 1, radices)
    system, witness = build(digits_circuit(radices), {"h": top - 1, **{f"j{d}": j for d, j in enumerate(digits)}})
    check(system, witness)
    with pytest.raises(ValueError, match="refused top"):
        native.mixed_radix_digits(top, radices)
    with pytest.raises(UnsatisfiedConstraint, match="'digits/quotient/le/"):
        build(digits_circuit(radices), {"h": top, **{f"j{d}": 0 for d in range(len(radices))}})


def test_the_grand_product_names_each_factor_by_the_index_of_its_value():
    """prod (gamma - v_i) over three values: the running products are the wires (and rows)
    factor_1 and factor_2, for the values they multiply in; a tampered one is refused by
    its own row."""
    def synth(cs, inp):
        gamma = cs.public("gamma", inp and inp["gamma"])
        vs = [cs.private_unchecked(f"v{i}", inp and inp[f"v{i}"]) for i in range(3)]
        grand_product(cs, vs, gamma)

    system, witness = build(synth, {"gamma": 10, "v0": 1, "v1": 2, "v2": 3})
    factors = [n for n in system.wire_names if "factor" in n]
    assert factors == ["grand_product/factor_1", "grand_product/factor_2"]
    assert [witness[system.wire_names.index(n)] for n in factors] == [9 * 8, 9 * 8 * 7]
    first = system.wire_names.index("grand_product/factor_1")
    assert unsatisfied_after(system, witness, first, witness[first] + 1) == "grand_product/factor_1"


@pytest.mark.parametrize("bits", [1, 11, 23, 6])
def test_the_challenge_packs_as_its_twin_for_widths_that_do_not_divide_the_pack(bits):
    """252 // bits values a pack (the twin's packing): for 1, 11 and 23 bits a pack one bit
    wider would hold one more value, so one value past a full pack tells them apart."""
    per = 252 // bits
    values = [(7 * i + 3) % (1 << bits) for i in range(per + 1)]
    cs = ConstraintSystem(with_values=True)
    wires = [cs.private_unchecked(f"v{i}", v) for i, v in enumerate(values)]
    assert LC.of(permutation_challenge(cs, wires, bits)).value == native.permutation_challenge(values, bits)
    assert len(cs.constraints) == challenge_constraint_count(len(values), bits) == (per + 1) * (bits + 1) + 240
