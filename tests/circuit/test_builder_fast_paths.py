"""The builder's fast paths (issue 31) are its old semantics: the linear-combination algebra
equals a plain dict reference on random expressions, ``cs.mul`` equals the allocation and
constraint it stands for (names, terms, values, under namespaces and repeated names), and the
garbage collector is put back as it was. The registered statements' systems and witnesses
are pinned elsewhere: tests/statements/test_registry.py (the committed .r1cs bytes) and
tests/statements/test_lean_witness.py."""
import gc

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit.builder import LC, ConstraintSystem, build, gc_paused
from zkbluff.errors import UnsatisfiedConstraint
from zkbluff.field import r


# -- the reference: the builder's linear combinations as first written
def ref_combine(a: tuple[dict, int], b: tuple[dict, int], sign: int) -> tuple[dict, int]:
    terms = dict(a[0])
    for w, c in b[0].items():
        v = (terms.get(w, 0) + sign * c) % r
        if v:
            terms[w] = v
        else:
            terms.pop(w, None)
    return terms, (a[1] + sign * b[1]) % r


def ref_const(k: int) -> tuple[dict, int]:
    k %= r
    return ({0: k} if k else {}), k


def ref_scale(a: tuple[dict, int], k: int) -> tuple[dict, int]:
    k %= r
    if k == 0:
        return {}, 0
    return {w: c * k % r for w, c in a[0].items()}, a[1] * k % r


def ref_is_constant(terms: dict) -> bool:
    return all(w == 0 for w in terms)


COEFF = st.one_of(st.integers(-3, 3), st.sampled_from([r - 1, r, r + 1, 2 * r - 1]), st.integers(0, 2 * r))
TERMS = st.dictionaries(st.integers(0, 4), st.integers(1, r - 1), max_size=4)
OPS = st.lists(st.tuples(st.sampled_from(["+k", "k+", "-k", "k-", "+lc", "-lc", "neg", "*k", "k*"]), COEFF, TERMS),
               max_size=12)


@settings(max_examples=300, deadline=None)
@given(TERMS, st.integers(0, r - 1), OPS)
def test_the_algebra_equals_the_dict_reference(terms, value, ops):
    lc, ref = LC(dict(terms), value), (dict(terms), value)
    for op, k, other_terms in ops:
        other, other_ref = LC(dict(other_terms), k % r), (dict(other_terms), k % r)
        if op == "+k":
            lc, ref = lc + k, ref_combine(ref, ref_const(k), 1)
        elif op == "k+":
            lc, ref = k + lc, ref_combine(ref, ref_const(k), 1)
        elif op == "-k":
            lc, ref = lc - k, ref_combine(ref, ref_const(k), -1)
        elif op == "k-":
            lc, ref = k - lc, ref_combine(ref_const(k), ref, -1)
        elif op == "+lc":
            lc, ref = lc + other, ref_combine(ref, other_ref, 1)
        elif op == "-lc":
            lc, ref = lc - other, ref_combine(ref, other_ref, -1)
        elif op == "neg":
            lc, ref = -lc, ref_scale(ref, -1)
        elif op == "*k":
            lc, ref = lc * k, ref_scale(ref, k)
        else:
            lc, ref = k * lc, ref_scale(ref, k)
        assert (lc.terms, lc.value) == ref
        assert lc.is_constant() == ref_is_constant(ref[0])
        assert lc.constant_value() == ref[0].get(0, 0)


def test_an_operand_is_never_changed_in_place():
    a, b = LC({1: 5, 0: 2}, 9), LC({1: r - 5}, 3)
    (a + b, a - b, a + 7, a - 2, 3 - a, -a, a * 4)
    assert (a.terms, a.value, b.terms, b.value) == ({1: 5, 0: 2}, 9, {1: r - 5}, 3)


def slow_mul(cs: ConstraintSystem, a, b, name: str) -> LC:
    """What ``cs.mul`` stands for, through the public allocation and constraint calls."""
    a, b = LC.of(a), LC.of(b)
    if a.is_constant():
        return b * a.constant_value()
    if b.is_constant():
        return a * b.constant_value()
    out = cs.private_unchecked(name, (lambda: a.value * b.value % r) if cs.with_values else None)
    cs.enforce(a, b, out, name)
    return out


def circuit(mul):
    def synth(cs, inputs):
        x = cs.public("x", inputs and inputs["x"])
        y = cs.private_unchecked("y", inputs and inputs["y"])
        with cs.namespace("outer"):
            p = mul(cs, x, y + 1, "p")
            p = mul(cs, p, p, "p")  # a repeated name: p#1 for the wire and the constraint
            with cs.namespace("inner"):
                q = mul(cs, x - x + 5, y, "const left")  # folds: terms cancel to a constant
                q = mul(cs, q, 3, "const right")
                s = mul(cs, q + p, x * 2 - 1, "s")
                cs.private_unchecked("s", inputs and 0)  # a wire named like the product wire
        cs.enforce_equal(s, mul(cs, s, 1, "one"), "s is s")
        cs.enforce(0, 0, 0, "zero")
    return synth


@pytest.mark.parametrize("inputs", [None, {"x": 3, "y": r - 2}])
def test_mul_equals_the_allocation_and_constraint_it_stands_for(inputs):
    fast = build(circuit(lambda cs, a, b, name: cs.mul(a, b, name)), inputs)
    slow = build(circuit(slow_mul), inputs)
    assert fast[1] == slow[1]
    f, s = fast[0], slow[0]
    assert f.constraints == s.constraints and f.constraint_names == s.constraint_names
    assert f.wire_names == s.wire_names and f.public_names == s.public_names
    assert f.fingerprint() == s.fingerprint()
    assert "outer/p#1" in f.wire_names and "outer/inner/s#1" in f.wire_names


def test_an_unsatisfied_constraint_after_a_mul_is_still_named():
    def synth(cs, inputs):
        x = cs.private_unchecked("x", 3)
        with cs.namespace("ns"):
            cs.enforce_equal(cs.mul(x, x, "sq"), 10, "nine")

    with pytest.raises(UnsatisfiedConstraint, match="ns/nine"):
        build(synth, {})


def test_the_collector_is_put_back_as_it_was():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError):
        with gc_paused():
            1 // 0
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # a caller's choice is left alone
    finally:
        gc.enable()
