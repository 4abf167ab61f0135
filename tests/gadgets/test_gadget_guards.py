"""The gadgets' argument guards and edges, each with a test that fails without it.

Found by mutation testing (issue 21, ``make mutate``): a vector pair of unequal length
cut short by ``zip`` (bits left unconstrained), ``less_than`` above 252 bits (unsound),
``mux`` with too many options or none and its padding, ``enforce_range`` at 254 bits and
more. Every check has its positive twin at the boundary.
"""
import pytest
from hypothesis import given, settings, strategies as st

from zkbluff import gadgets as g
from zkbluff.circuit import LC, ConstraintSystem, build
from zkbluff.circuit.audit import unsatisfied_after
from zkbluff.errors import UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets import native


def bits_cs(*masks_and_sizes):
    """A constraint system with one vector of constrained bits per (mask, size)."""
    cs = ConstraintSystem(with_values=True)
    vecs = [[g.alloc_boolean(cs, f"v{j}_{i}", (m >> i) & 1) for i in range(n)] for j, (m, n) in enumerate(masks_and_sizes)]
    return cs, vecs


# ---- sets: vectors of unequal length ----------------------------------------------------------

SET_OPS = [
    ("enforce_subset", lambda cs, a, b: g.enforce_subset(cs, a, b), "subset"),
    ("enforce_disjoint", lambda cs, a, b: g.enforce_disjoint(cs, a, b), "disjoint"),
    ("union_disjoint", lambda cs, a, b: g.union_disjoint(a, b), "union_disjoint"),
    ("difference_of_subset", lambda cs, a, b: g.difference_of_subset(a, b), "difference_of_subset"),
    ("intersection", lambda cs, a, b: g.intersection(cs, a, b), "intersection"),
    ("union", lambda cs, a, b: g.union(cs, a, b), "union"),
    ("difference", lambda cs, a, b: g.difference(cs, a, b), "difference"),
    ("count_outside", lambda cs, a, b: g.count_outside(cs, a, b), "outside"),
]


@pytest.mark.parametrize("op, fn, label", SET_OPS, ids=[o[0] for o in SET_OPS])
@pytest.mark.parametrize("sizes", [(13, 12), (12, 13), (0, 1)])
def test_set_ops_refuse_vectors_of_unequal_length(op, fn, label, sizes):
    """zip would cut the longer vector: its tail bits would be in no constraint."""
    cs, (a, b) = bits_cs((0, sizes[0]), (0, sizes[1]))
    before = len(cs.constraints)
    with pytest.raises(ValueError, match=rf"{label}: sets of {sizes[0]} and {sizes[1]} bits"):
        fn(cs, a, b)
    assert len(cs.constraints) == before  # nothing added before the refusal


@pytest.mark.parametrize("op, fn, label", SET_OPS, ids=[o[0] for o in SET_OPS])
def test_set_ops_accept_equal_lengths_and_empty(op, fn, label):
    cs, (a, b) = bits_cs((0, 5), (0, 5))
    fn(cs, a, b)
    cs, (a, b) = bits_cs((0, 0), (0, 0))
    fn(cs, a, b)


# (a, b) with b a subset of a and the two disjoint where each operation requires it
@settings(max_examples=25)
@given(st.integers(0, (1 << 13) - 1), st.integers(0, (1 << 13) - 1))
def test_zero_constraint_set_ops_match_native_and_cost_nothing(a, b):
    for x, y, fn, twin in ((a & ~b, b, g.union_disjoint, native.mask_union),
                           (a | b, b, g.difference_of_subset, native.mask_difference)):
        cs, (A, B) = bits_cs((x, 13), (y, 13))
        before = len(cs.constraints)
        assert LC.of(g.from_bits(fn(A, B))).value == twin(x, y)
        assert len(cs.constraints) == before


@pytest.mark.parametrize("fn, count", [(g.intersection, 13), (g.union, 13), (g.difference, 13)])
def test_set_op_constraint_counts(fn, count):
    cs, (A, B) = bits_cs((0b1011, 13), (0b0110, 13))
    before = len(cs.constraints)
    fn(cs, A, B)
    assert len(cs.constraints) - before == count


@pytest.mark.parametrize("name, fn, a, b", [
    ("subset", g.enforce_subset, 0b0101, 0b1101),
    ("disjoint", g.enforce_disjoint, 0b0101, 0b1010),
])
def test_set_enforcers_name_each_bit(name, fn, a, b):
    def stmt(cs, inputs):
        A = [g.alloc_boolean(cs, f"a{i}", inputs and (inputs["a"] >> i) & 1) for i in range(4)]
        B = [g.alloc_boolean(cs, f"b{i}", inputs and (inputs["b"] >> i) & 1) for i in range(4)]
        fn(cs, A, B)

    system, witness = build(stmt, {"a": a, "b": b})
    assert system.n_constraints == 4 + 4 + 4
    wire = system.wire_names.index("a1")  # a_1 = 0: setting it breaks exactly bit_1 of the check
    assert unsatisfied_after(system, witness, wire, 1) == f"{name}/bit_1"


def test_count_outside_constant_mask_costs_nothing_and_counts():
    cs, (A,) = bits_cs((0b1101, 4))
    before = len(cs.constraints)
    out = g.count_outside(cs, A, [1, 0, 0, 1])
    assert LC.of(out).value == 1  # bit 2 is in A and outside the mask
    assert len(cs.constraints) == before


# ---- basic: less_than, less_or_equal ------------------------------------------------------------

def test_less_than_refuses_more_than_252_bits():
    """a - b + 2^n needs n + 1 bits; at n = 253 that is 254 bits, past r: the comparison wraps."""
    cs = ConstraintSystem(with_values=True)
    a, b = cs.private_unchecked("a", 1), cs.private_unchecked("b", 2)
    with pytest.raises(ValueError, match="less_than: n must be at most 252"):
        g.less_than(cs, a, b, 253)
    with pytest.raises(ValueError, match="less_than: n must be at most 252"):
        g.less_or_equal(cs, a, b, 252)  # less_or_equal works on n + 1 bits
    assert cs.constraints == []


@pytest.mark.parametrize("a, b", [(0, 0), (0, (1 << 252) - 1), ((1 << 252) - 1, 0), ((1 << 252) - 1, (1 << 252) - 1),
                                  ((1 << 252) - 2, (1 << 252) - 1)])
def test_less_than_at_252_bits(a, b):
    """The boundary: n = 252 is allowed and right at the extremes, with n + 2 constraints."""
    cs = ConstraintSystem(with_values=True)
    out = g.less_than(cs, cs.private_unchecked("a", a), cs.private_unchecked("b", b), 252)
    assert LC.of(out).value == int(a < b)
    assert len(cs.constraints) == 252 + 2


@pytest.mark.parametrize("a, b", [((1 << 251) - 1, (1 << 251) - 1), ((1 << 251) - 1, (1 << 251) - 2), (0, 0), (1, 0)])
def test_less_or_equal_at_251_bits(a, b):
    cs = ConstraintSystem(with_values=True)
    out = g.less_or_equal(cs, cs.private_unchecked("a", a), cs.private_unchecked("b", b), 251)
    assert LC.of(out).value == int(a <= b)
    assert len(cs.constraints) == 251 + 3


def test_less_than_refuses_operand_out_of_range():
    """An operand of n + 1 bits makes a - b + 2^n leave n + 1 bits: unsatisfiable, not a wrong bit."""
    with pytest.raises(UnsatisfiedConstraint, match="less_than/diff/recompose"):
        build(lambda cs, inp: g.less_than(cs, cs.private_unchecked("a", inp and inp["a"]),
                                         cs.private_unchecked("b", inp and inp["b"]), 8), {"a": 0, "b": 300})


# ---- basic: enforce_range, to_bits ----------------------------------------------------------------

def test_enforce_range_refuses_254_bits_and_more():
    for n in (254, 255, 300):
        cs = ConstraintSystem(with_values=True)
        with pytest.raises(ValueError, match="enforce_range: n must be below 254"):
            g.enforce_range(cs, cs.private_unchecked("x", 5), n)
        assert cs.constraints == []


def test_enforce_range_at_253_bits():
    """The boundary: n = 253 works, x < 2^253 passes and 2^253 does not. n + 1 constraints."""
    cs = ConstraintSystem(with_values=True)
    g.enforce_range(cs, cs.private_unchecked("x", (1 << 253) - 1), 253)
    assert len(cs.constraints) == 254
    with pytest.raises(UnsatisfiedConstraint, match="range/recompose"):
        build(lambda cs, inp: g.enforce_range(cs, cs.private_unchecked("x", inp and inp["x"]), 253), {"x": 1 << 253})


@pytest.mark.parametrize("n, count", [(3, 4), (253, 254), (254, 254 + 1 + 253), (300, 254 + 1 + 253)])
def test_to_bits_counts_at_the_strict_boundary(n, count):
    """Below 254 bits: n booleans + recompose; from 254 on: 254 bits, strict against r - 1."""
    cs = ConstraintSystem(with_values=True)
    bits = g.to_bits(cs, cs.private_unchecked("x", 6), n)
    assert len(bits) == min(n, 254)
    assert len(cs.constraints) == count
    assert [LC.of(b).value for b in bits[:3]] == [0, 1, 1]


def test_to_bits_values_and_names():
    x = 0b1011_0110_1101
    cs = ConstraintSystem(with_values=True)
    bits = g.to_bits(cs, cs.private_unchecked("x", x), 12, "dec")
    assert [LC.of(b).value for b in bits] == native.to_bits(x, 12)
    assert LC.of(g.from_bits(bits)).value == x
    names = cs.constraint_names
    assert "dec/bit_0/boolean" in names and "dec/bit_11/boolean" in names and "dec/recompose" in names


def test_enforce_bits_le_constant_boundary():
    """bits <= c: c itself passes, c + 1 fails, at the bit where they differ."""
    c = 0b1010_0110

    def stmt(cs, inputs):
        bits = [g.alloc_boolean(cs, f"b{i}", inputs and (inputs["x"] >> i) & 1) for i in range(8)]
        g.enforce_bits_le_constant(cs, bits, c)

    for x in (0, c - 1, c, 0b0111_1111):
        build(stmt, {"x": x})
    for x in (c + 1, 0b1011_0000, 0b1100_0000, 0xFF):
        with pytest.raises(UnsatisfiedConstraint, match="le_const/zero_"):
            build(stmt, {"x": x})
    system, _ = build(stmt, {"x": c})
    assert system.n_constraints == 8 + 7  # booleans, then one per bit below the top set bit of c (bit 7)


# ---- basic: mux ---------------------------------------------------------------------------------

def _mux(index, options, k):
    def fn(cs, inputs):
        bits = g.to_bits(cs, cs.private_unchecked("i", inputs and inputs["i"]), k, "index")
        return g.mux(cs, bits, [cs.private_unchecked(f"o{j}", inputs and inputs[f"o{j}"]) for j in range(len(options))])

    cs = ConstraintSystem(with_values=True)
    out = fn(cs, {"i": index, **{f"o{j}": o for j, o in enumerate(options)}})
    return LC.of(out).value, cs


@pytest.mark.parametrize("n_options, k", [(0, 2), (5, 2), (3, 1), (2, 0)])
def test_mux_refuses_an_option_count_the_index_cannot_address(n_options, k):
    cs = ConstraintSystem(with_values=True)
    bits = [g.alloc_boolean(cs, f"i{j}", 0) for j in range(k)]
    with pytest.raises(ValueError, match=f"mux: {n_options} options for {k} index bits"):
        g.mux(cs, bits, list(range(10, 10 + n_options)))


def test_mux_exactly_two_to_the_k_options():
    options = [11, 22, 33, 44]
    for i in range(4):
        out, cs = _mux(i, options, 2)
        assert out == options[i]
    assert len(cs.constraints) == (2 + 1) + 3  # index bits + recompose, then 2^k - 1 selects


def test_mux_one_option_no_index_bits():
    cs = ConstraintSystem(with_values=True)
    assert LC.of(g.mux(cs, [], [cs.private_unchecked("o", 42)])).value == 42
    assert cs.constraints == []


# selects counted by hand: a select between the padding and itself folds to no constraint
@pytest.mark.parametrize("n_options, k, selects", [(3, 2, 2), (5, 3, 4), (6, 3, 6), (7, 3, 6)])
def test_mux_pads_with_the_last_option(n_options, k, selects):
    """An index past the options selects the last one (the padding), never an earlier one."""
    options = [100 + 7 * j for j in range(n_options)]
    for i in range(1 << k):
        out, cs = _mux(i, options, k)
        assert out == options[min(i, n_options - 1)]
    assert len(cs.constraints) == (k + 1) + selects


# ---- basic: booleans -------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_boolean_gadgets_truth_tables_and_costs(a, b):
    for fn, want, cost in ((g.bool_and, a & b, 1), (g.bool_or, a | b, 1), (g.bool_xor, a ^ b, 1)):
        cs = ConstraintSystem(with_values=True)
        out = fn(cs, cs.private_unchecked("a", a), cs.private_unchecked("b", b))
        assert LC.of(out).value == want and len(cs.constraints) == cost
    assert LC.of(g.bool_not(a)).value == 1 - a


def test_alloc_boolean_refuses_two():
    with pytest.raises(UnsatisfiedConstraint, match="flag/boolean"):
        build(lambda cs, inp: g.alloc_boolean(cs, "flag", inp and inp["v"]), {"v": 2})
    system, _ = build(lambda cs, inp: g.alloc_boolean(cs, "flag", inp and inp["v"]), {"v": 1})
    assert system.n_constraints == 1


def test_is_zero_of_r_minus_one_and_of_zero():
    for x, want in ((0, 1), (1, 0), (r - 1, 0)):
        cs = ConstraintSystem(with_values=True)
        assert LC.of(g.is_zero(cs, cs.private_unchecked("x", x))).value == want
        assert len(cs.constraints) == 3


# ---- a malicious prover's bits (the constraints, not the hint, must refuse them) ------------------

@pytest.mark.parametrize("x", [0, 1, 5])
def test_to_bits_254_refuses_the_bits_of_x_plus_r(monkeypatch, x):
    """A prover that hints the bits of x + r (they recompose to x in the field) is stopped by
    to_bits' own strict check against r - 1: r and r + 1 are the first aliases past it."""
    import zkbluff.gadgets.basic as basic

    def stmt(cs, inputs):
        g.to_bits(cs, cs.private_unchecked("x", inputs and inputs["x"]), 254)

    build(stmt, {"x": x})  # the honest twin
    monkeypatch.setattr(basic, "_bit_hint", lambda v, i: (lambda: ((v.value + r) >> i) & 1))
    with pytest.raises(UnsatisfiedConstraint, match="bits/strict/"):
        build(stmt, {"x": x})
