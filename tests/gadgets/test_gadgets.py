"""Every gadget against its native twin, pinned constraint counts, and tampering."""

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff import gadgets as g
from zkbluff.circuit import ConstraintSystem, LC, build, check
from zkbluff.circuit.audit import under_constrained_wires, unsatisfied_after
from zkbluff.errors import UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets import native
from zkbluff.gadgets.poseidon import constraint_count

fr = st.integers(0, r - 1)
edges = st.sampled_from([0, 1, 2, r - 1, r - 2, (1 << 8) - 1, 1 << 8, (1 << 16) - 1, 1 << 16])
fr_or_edge = st.one_of(fr, edges)


def run_gadget(fn, publics: dict, privates: dict):
    """Build a one-gadget circuit: inputs private, the output a public input equal to
    the gadget's result. Returns (system, witness, output value)."""

    def stmt(cs, inputs):
        out = cs.public("out", inputs and inputs["__out"])
        vals = {k: cs.private_unchecked(k, inputs and inputs[k]) for k in privates}
        res = fn(cs, vals)
        cs.enforce_equal(res, out, "output")

    # first compute the result natively-in-circuit to learn the output value
    cs = ConstraintSystem(with_values=True)
    cs.public("out", 0)
    vals = {k: cs.private_unchecked(k, v) for k, v in privates.items()}
    out_value = LC.of(fn(cs, vals)).value
    system, witness = build(stmt, {**privates, "__out": out_value})
    return system, witness, out_value


def assert_fully_pinned(system, witness):
    assert under_constrained_wires(system, witness) == []


@settings(max_examples=40)
@given(fr_or_edge)
def test_is_zero(x):
    system, witness, out = run_gadget(lambda cs, v: g.is_zero(cs, v["x"]), {}, {"x": x})
    assert out == native.is_zero(x)
    assert system.n_constraints == 3 + 1
    assert_fully_pinned(system, witness)


def test_is_zero_tampered_output_named():
    system, witness, _ = run_gadget(lambda cs, v: g.is_zero(cs, v["x"]), {}, {"x": 5})
    out_wire = system.wire_names.index("is_zero/out")
    assert unsatisfied_after(system, witness, out_wire, 1) == "is_zero/inverse"


@settings(max_examples=40)
@given(fr_or_edge, st.one_of(fr_or_edge, st.just(None)))
def test_is_equal(a, b):
    b = a if b is None else b
    system, witness, out = run_gadget(lambda cs, v: g.is_equal(cs, v["a"], v["b"]), {}, {"a": a, "b": b})
    assert out == native.is_equal(a, b)
    assert_fully_pinned(system, witness)


@settings(max_examples=40)
@given(st.integers(0, (1 << 16) - 1), st.integers(0, (1 << 16) - 1))
def test_less_than_and_or_equal(a, b):
    for gadget, twin, count in ((g.less_than, native.less_than, 16 + 2), (g.less_or_equal, native.less_or_equal, 16 + 3)):
        system, witness, out = run_gadget(lambda cs, v: gadget(cs, v["a"], v["b"], 16), {}, {"a": a, "b": b})
        assert out == twin(a, b, 16)
        assert system.n_constraints == count + 1
        assert_fully_pinned(system, witness)


def test_less_than_edges():
    n = 8
    for a, b in [(0, 0), (0, 255), (255, 0), (255, 255), (254, 255)]:
        _, _, out = run_gadget(lambda cs, v: g.less_than(cs, v["a"], v["b"], n), {}, {"a": a, "b": b})
        assert out == int(a < b)


@settings(max_examples=40)
@given(st.integers(0, (1 << 16) - 1))
def test_to_bits(x):
    system, witness, out = run_gadget(lambda cs, v: g.from_bits(g.to_bits(cs, v["x"], 16)), {}, {"x": x})
    assert out == x
    bits = [witness[system.wire_names.index(f"bits/bit_{i}")] for i in range(16)]
    assert bits == native.to_bits(x, 16)
    assert system.n_constraints == 16 + 1 + 1


def test_to_bits_out_of_range_rejected():
    for x in (1 << 16, r - 1):
        with pytest.raises(UnsatisfiedConstraint, match="bits/recompose"):
            run_gadget(lambda cs, v: g.from_bits(g.to_bits(cs, v["x"], 16)), {}, {"x": x})


def test_to_bits_tampered_bit_named():
    system, witness, _ = run_gadget(lambda cs, v: g.from_bits(g.to_bits(cs, v["x"], 16)), {}, {"x": 1234})
    wire = system.wire_names.index("bits/bit_3")
    assert unsatisfied_after(system, witness, wire, 2) == "bits/bit_3/boolean"
    assert unsatisfied_after(system, witness, wire, 1 - witness[wire]) == "bits/recompose"


def strict_bits_statement(cs, inputs):
    x = cs.public("x", inputs and inputs["x"])
    bits = [g.alloc_boolean(cs, f"b{i}", inputs and inputs["bits"][i]) for i in range(254)]
    cs.enforce_equal(g.from_bits(bits), x, "recompose")
    g.enforce_bits_le_constant(cs, bits, r - 1, "strict")


@pytest.mark.parametrize("x", [0, 5, r - 1, r - 2, (1 << 253) + 12345])
def test_strict_decomposition(x):
    system, witness = build(strict_bits_statement, {"x": x, "bits": native.to_bits(x, 254)})
    check(system, witness)
    # the full gadget agrees
    _, _, out = run_gadget(lambda cs, v: g.from_bits(g.to_bits(cs, v["x"], 254)), {}, {"x": x})
    assert out == x


@pytest.mark.parametrize("x", [0, 5, (1 << 254) - 1 - r])
def test_to_bits_alias_attack_rejected(x):
    """The bits of x + r recompose to x in the field; the strict check must refuse them."""
    with pytest.raises(UnsatisfiedConstraint, match="strict"):
        build(strict_bits_statement, {"x": x, "bits": native.to_bits(x + r, 254)})


def test_to_bits_254_count():
    system, _, _ = run_gadget(lambda cs, v: g.from_bits(g.to_bits(cs, v["x"], 254)), {}, {"x": 7})
    pinned = 254 + 1 + 253 + 1  # booleans, recompose, strict scan below the top bit, output
    assert system.n_constraints == pinned


def test_range():
    cs = ConstraintSystem(with_values=True)
    g.enforce_range(cs, cs.private_unchecked("x", 255), 8)
    assert len(cs.constraints) == 9
    with pytest.raises(UnsatisfiedConstraint):
        cs2 = ConstraintSystem(with_values=True)
        g.enforce_range(cs2, cs2.private_unchecked("x", 256), 8)


@given(st.integers(0, 1), st.integers(0, 1))
def test_boolean_logic(a, b):
    for gadget, twin in ((g.bool_and, native.bool_and), (g.bool_or, native.bool_or), (g.bool_xor, native.bool_xor)):
        system, witness, out = run_gadget(lambda cs, v: gadget(cs, v["a"], v["b"]), {}, {"a": a, "b": b})
        assert out == twin(a, b)
        assert system.n_constraints == 2
    _, _, out = run_gadget(lambda cs, v: g.bool_not(v["a"]), {}, {"a": a})
    assert out == native.bool_not(a)


def test_enforce_boolean_rejects_two():
    cs = ConstraintSystem(with_values=True)
    with pytest.raises(UnsatisfiedConstraint, match="flag"):
        g.alloc_boolean(cs, "flag", 2)


@given(st.integers(0, 1), fr, fr)
def test_select(c, a, b):
    system, witness, out = run_gadget(lambda cs, v: g.select(cs, v["c"], v["a"], v["b"]), {}, {"c": c, "a": a, "b": b})
    assert out == native.select(c, a, b)
    assert system.n_constraints == 2


@settings(max_examples=30)
@given(st.integers(1, 8), st.data())
def test_mux(n_options, data):
    k = max(1, (n_options - 1).bit_length())
    index = data.draw(st.integers(0, n_options - 1))
    options = data.draw(st.lists(fr, min_size=n_options, max_size=n_options))

    def fn(cs, v):
        bits = g.to_bits(cs, v["i"], k, "index")
        return g.mux(cs, bits, [v[f"o{j}"] for j in range(n_options)])

    system, witness, out = run_gadget(fn, {}, {"i": index, **{f"o{j}": o for j, o in enumerate(options)}})
    assert out == native.mux(index, options)
    if n_options == 1 << k and len(set(options)) == n_options:  # no padding, no folding
        assert system.n_constraints == (k + 1) + ((1 << k) - 1) + 1


@given(st.lists(st.integers(0, 1), max_size=60))
def test_popcount(bits):
    _, _, out = run_gadget(lambda cs, v: g.popcount([v[f"b{i}"] for i in range(len(bits))]), {},
                           {f"b{i}": b for i, b in enumerate(bits)})
    assert out == native.popcount(bits)


masks = st.integers(0, (1 << 13) - 1)


def mask_bits(cs, m_name, v, n=13):
    return [g.alloc_boolean(cs, f"{m_name}{i}", (v[m_name].value >> i) & 1 if cs.with_values else None)
            for i in range(n)]


@settings(max_examples=40)
@given(masks, masks)
def test_set_operations(a, b):
    def body(op):
        def fn(cs, v):
            A, B = mask_bits(cs, "a", v), mask_bits(cs, "b", v)
            cs.enforce_equal(g.from_bits(A), v["a"], "ra")
            cs.enforce_equal(g.from_bits(B), v["b"], "rb")
            return g.from_bits(op(cs, A, B))
        return fn

    for op, twin in ((g.union, native.mask_union), (g.difference, native.mask_difference),
                     (g.intersection, native.mask_intersection)):
        system, witness, out = run_gadget(body(op), {}, {"a": a, "b": b})
        assert out == twin(a, b)
        assert_fully_pinned(system, witness)

    def subset(cs, v):
        A, B = mask_bits(cs, "a", v), mask_bits(cs, "b", v)
        g.enforce_subset(cs, A, B)
        return 0

    def disjoint(cs, v):
        A, B = mask_bits(cs, "a", v), mask_bits(cs, "b", v)
        g.enforce_disjoint(cs, A, B)
        return 0

    for fn, twin, name in ((subset, native.mask_is_subset, "subset"), (disjoint, native.mask_is_disjoint, "disjoint")):
        if twin(a, b):
            run_gadget(fn, {}, {"a": a, "b": b})
        else:
            with pytest.raises(UnsatisfiedConstraint, match=name):
                run_gadget(fn, {}, {"a": a, "b": b})


@settings(max_examples=30)
@given(masks, masks)
def test_count_outside(a, m):
    def fn(cs, v):
        A, M = mask_bits(cs, "a", v), mask_bits(cs, "m", v)
        cs.enforce_equal(g.from_bits(A), v["a"], "ra")
        cs.enforce_equal(g.from_bits(M), v["m"], "rm")
        return g.count_outside(cs, A, M)

    _, _, out = run_gadget(fn, {}, {"a": a, "m": m})
    assert out == bin(a & ~m).count("1")


# circomlib's partial rounds per width t = 2..17; 3 constraints per S-box, t S-boxes in each
# of 8 full rounds and 1 per partial round, less the first round's constant capacity S-box
CIRCOMLIB_PARTIAL_ROUNDS = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68]
POSEIDON_COUNTS = [213, 240, 261, 297, 321, 354, 381, 402, 417, 459, 465, 504, 543, 537, 573, 609]


def test_poseidon_counts_every_width():
    assert POSEIDON_COUNTS == [3 * (8 * (n + 1) + CIRCOMLIB_PARTIAL_ROUNDS[n - 1]) - 3 for n in range(1, 17)]
    from zkbluff.gadgets.poseidon import constraint_count
    assert [constraint_count(n) for n in range(1, 17)] == POSEIDON_COUNTS


@pytest.mark.parametrize("n_inputs, count", [(1, 213), (2, 240), (3, 261), (16, 609)])
def test_poseidon_pinned_counts(n_inputs, count):
    assert constraint_count(n_inputs) == count
    system, _, _ = run_gadget(lambda cs, v: g.poseidon(cs, [v[f"x{i}"] for i in range(n_inputs)]), {},
                              {f"x{i}": i for i in range(n_inputs)})
    assert system.n_constraints == count + 1


@settings(max_examples=6)
@given(st.integers(1, 16), st.randoms(use_true_random=False))
def test_poseidon_matches_native(n, rnd):
    xs = [rnd.choice([0, 1, r - 1, rnd.randrange(r)]) for _ in range(n)]
    system, witness, out = run_gadget(lambda cs, v: g.poseidon(cs, [v[f"x{i}"] for i in range(n)]), {},
                                      {f"x{i}": x for i, x in enumerate(xs)})
    assert out == native.poseidon(xs)


def test_poseidon_tamper_named_and_pinned():
    system, witness, _ = run_gadget(lambda cs, v: g.commit(cs, v["m"], v["s"]), {}, {"m": 12, "s": 99})
    assert_fully_pinned(system, witness)
    wire = system.wire_names.index("commit/r30_0/x4")
    assert unsatisfied_after(system, witness, wire, witness[wire] + 1) == "commit/r30_0/x4"


def test_commit_is_salted():
    assert native.commit(5, 1) != native.commit(5, 2)
    assert native.commit(5, 1) == native.poseidon([5, 1])
    with pytest.raises(ValueError):
        native.poseidon([])
    with pytest.raises(ValueError):
        native.poseidon([r])
