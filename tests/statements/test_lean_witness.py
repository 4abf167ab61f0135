"""The lean proving path: the witness by a values-only pass equals the full builder's on
every registered statement; an unsatisfied input is refused with the same named
constraint; a pass that cannot stand for the full one falls back to it; the packed MSMs
(zero scalars and points at infinity left out) equal the plain ones."""
import random
import secrets

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit.builder import ConstraintSystem, WitnessSystem, build, build_witness
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR
from zkbluff.errors import MalformedInput, UnsatisfiedConstraint
from zkbluff.field import get_kernel, r
from zkbluff.gadgets import native
from zkbluff.gadgets.poseidon import poseidon
from zkbluff.statements import all_statements, get_statement

from statement_inputs import valid_inputs

STATEMENTS = all_statements()
PLAY = get_statement("card.play.v1@deck=52,max_play=4")


@pytest.mark.parametrize("key", sorted(STATEMENTS))
def test_lean_witness_equals_the_full_builder(key):
    stmt = STATEMENTS[key]
    inputs = valid_inputs(stmt, random.Random("lean " + key))
    system, full = stmt.build_full(inputs)
    lean = stmt.witness(inputs)
    assert lean == full
    assert stmt.system().fingerprint() == system.fingerprint()
    assert stmt.build(inputs) == (stmt.system(), full)


def test_the_system_is_built_once_and_shared():
    assert PLAY.system() is PLAY.system()
    assert PLAY.build()[0] is PLAY.system()


def test_threads_asking_at_once_share_one_build():
    """A server starting many matches asks for a statement's system from several threads
    at once: it is built once, and every thread gets that one."""
    import threading
    import time

    from zkbluff.statements.base import Statement

    shapes = []  # one entry per run of the builder for the shape (values None)

    def synth(cs, inputs, params):
        if inputs is None:
            shapes.append(1)
            time.sleep(0.05)  # a build long enough for the other threads to ask meanwhile
        x = cs.public("x", None if inputs is None else inputs["x"])
        y = cs.private_unchecked("y", None if inputs is None else inputs["y"])
        cs.enforce_equal(cs.mul(y, y, "square"), x, "x is y squared")

    stmt = Statement("test.threads.v1", (), ("x",), ("y",), synth, lambda inp, params: {"x": inp["y"] ** 2 % r})
    start, got = threading.Barrier(8), []

    def ask():
        start.wait()
        got.append(stmt.system())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and all(g is got[0] for g in got)
    assert len(shapes) == 1
    assert got[0].n_constraints == 2  # the square, the equality
    shapes.clear()
    other = Statement("test.threads.v1", (), ("x",), ("y",), synth, lambda inp, params: {"x": 0})
    assert other.system() is not got[0] and len(shapes) == 1  # another statement object under the id: its own


def _play_inputs(**over):
    inp = {"old_hand": 0b1011_0110, "old_salt": 11, "play": 0b0000_0110, "play_salt": 12, "new_salt": 13,
           "context": 99}
    inp.update(over)
    return inp


def test_unsatisfied_input_names_the_same_constraint():
    bad = _play_inputs(count=3)  # two cards played, three claimed
    with pytest.raises(UnsatisfiedConstraint) as full:
        PLAY.build_full(bad)
    with pytest.raises(UnsatisfiedConstraint) as lean:
        PLAY.witness(bad)
    assert lean.value.constraint == full.value.constraint == "count"
    assert PLAY.witness(_play_inputs(count=2))[4] == 2  # its valid twin


def test_card_not_in_hand_refused_by_the_lean_path():
    with pytest.raises(UnsatisfiedConstraint, match="subset"):
        PLAY.witness(_play_inputs(play=0b0000_1001))


def test_malformed_public_refused_like_the_full_builder():
    with pytest.raises(MalformedInput):
        PLAY.witness(_play_inputs(context=r))


def _cancelling(cs, inp):
    x = cs.public("x", inp and inp["x"])
    y = cs.private_unchecked("y", inp and inp["y"])
    folded = cs.mul(x - x + 3, y, "folds")  # a constant only the terms can see
    cs.enforce_equal(cs.mul(folded, y, "sq"), x, "x_is_3y2")


def test_a_lean_pass_that_diverges_falls_back_to_the_full_one():
    shape, _ = build(_cancelling)
    ws = WitnessSystem()
    _cancelling(ws, {"x": 12, "y": 2})
    assert len(ws.values) == shape.n_wires + 1  # the lean pass allocated a wire the full one folded
    w = build_witness(_cancelling, {"x": 12, "y": 2}, shape)
    assert w == build(_cancelling, {"x": 12, "y": 2})[1]
    with pytest.raises(UnsatisfiedConstraint, match="x_is_3y2"):
        build_witness(_cancelling, {"x": 13, "y": 2}, shape)


def test_a_shape_of_another_circuit_is_refused():
    shape, _ = build(lambda cs, inp: cs.public("x", inp and inp["x"]))
    with pytest.raises(MalformedInput, match="expected"):
        build_witness(_cancelling, {"x": 12, "y": 2}, shape)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, r - 1), st.integers(0, r - 1), st.booleans())
def test_poseidon_values_path_equals_the_gadget(a, b, a_constant):
    def synth(cs, inp):
        x = cs.public("x", inp and inp["x"])
        first = a if a_constant else cs.private_unchecked("a", inp and inp["a"])
        h = poseidon(cs, [first, cs.private_unchecked("b", inp and inp["b"])])
        cs.enforce_equal(h, x, "out")

    inputs = {"x": native.poseidon([a, b]), "a": a, "b": b}
    shape, full = build(synth, inputs)
    ws = WitnessSystem()
    synth(ws, inputs)
    assert ws.values == full and ws.n_constraints == shape.n_constraints
    assert build_witness(synth, inputs, shape) == full
    with pytest.raises(UnsatisfiedConstraint, match="out"):
        build_witness(synth, {**inputs, "x": (inputs["x"] + 1) % r}, shape)


def test_witness_system_has_no_constraint_system():
    with pytest.raises(RuntimeError):
        WitnessSystem().system()
    assert ConstraintSystem().system().n_wires == 1


# ------------------------------------------------------------------ packed MSMs

@pytest.mark.parametrize("group", ["g1", "g2"])
def test_packed_msm_equals_the_plain_one_with_zeros_and_infinity(mcl, group):
    k = get_kernel()
    gen = G1_GENERATOR if group == "g1" else G2_GENERATOR
    mul_many = getattr(mcl, f"{group}_mul_many")
    n = 37
    points = mul_many(gen, [secrets.randbelow(r) for _ in range(n)])
    points[3] = points[20] = None
    scalars = [secrets.randbelow(r) for _ in range(n)]
    scalars[5] = scalars[6] = 0
    scalars[3] = 7  # on a point at infinity
    prepared = getattr(mcl, f"{group}_prepare")(points)
    packed = k.mont_bytes(k.from_ints(scalars, n))
    expected = getattr(mcl, f"{group}_msm")(points, scalars)
    assert getattr(mcl, f"{group}_msm_packed")(prepared, packed) == expected
    scalars[0] = (scalars[0] + 1) % r  # its negative twin: one scalar changed
    assert getattr(mcl, f"{group}_msm_packed")(prepared, k.mont_bytes(k.from_ints(scalars, n))) != expected
    zero = k.mont_bytes(k.from_ints([0] * n, n))
    assert getattr(mcl, f"{group}_msm_packed")(prepared, zero) is None
    with pytest.raises(MalformedInput, match="points"):
        getattr(mcl, f"{group}_msm_packed")(prepared, packed[:-32])


# ------------------------------------------------------------------ fixed-base multiplication

EDGE_SCALARS = [0, 1, 2, 255, 256, 257, (1 << 64) - 1, 1 << 128, 1 << 253, r - 1, r - 2]


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_fixed_base_kernel_equals_one_mcl_call_per_scalar(mcl, group):
    from zkbluff.curve import mcl_backend

    gen = G1_GENERATOR if group == "g1" else G2_GENERATOR
    base = getattr(mcl, f"{group}_mul")(gen, 987654321)  # not only the generator
    scalars = EDGE_SCALARS + [secrets.randbelow(r) for _ in range(80)]
    fast = mcl_backend._fixed_base_many(group, getattr(mcl_backend, f"_{group}_bytes")(base), scalars)
    assert fast is not None, "the C extension is built in this environment"
    ref = [getattr(mcl, f"{group}_mul")(base, k) for k in scalars]
    assert fast == ref
    assert fast[0] is None and fast[1] == base
    assert getattr(mcl, f"{group}_mul_many")(base, scalars) == ref  # the backend's entry point
    assert fast[5] != getattr(mcl, f"{group}_mul")(base, scalars[5] + 1)  # a negative twin


def test_fixed_base_kernel_refuses_wrong_sizes():
    native = pytest.importorskip("zkbluff._fr_native")
    with pytest.raises(ValueError):
        native.fixed_base_table(bytes(95), 32, bytes(32), (1, 2, 3, 4))
    with pytest.raises(ValueError):
        native.fixed_base_mul(bytes(100), bytes(32), 32, bytes(32), (1, 2, 3, 4))
    with pytest.raises(ValueError):
        native.affine_points(bytes(97), 32)
