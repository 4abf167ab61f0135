import pytest

from zkbluff.circuit import ConstraintSystem, build, check
from zkbluff.circuit.audit import under_constrained_wires, unsatisfied_after
from zkbluff.circuit.formats import (
    r1cs_from_bytes, r1cs_to_bytes, wtns_from_bytes, wtns_to_bytes,
)
from zkbluff.errors import MalformedInput, UnsatisfiedConstraint
from zkbluff.field import r


def cube_statement(cs: ConstraintSystem, inputs):
    """x^3 + x + 5 = out, with out public."""
    out = cs.public("out", inputs and inputs["out"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    with cs.namespace("cube"):
        x2 = cs.mul(x, x, "x2")
        x3 = cs.mul(x2, x, "x3")
    cs.enforce_equal(x3 + x + 5, out, "result")


def test_one_description_two_jobs():
    shape, none = build(cube_statement)
    system, witness = build(cube_statement, {"x": 3, "out": 35})
    assert none is None
    assert shape.fingerprint() == system.fingerprint()
    assert (system.n_constraints, system.n_public, system.n_private) == (3, 1, 3)
    assert witness == [1, 35, 3, 9, 27]
    check(system, witness)
    assert system.constraint_names == ["cube/x2", "cube/x3", "result"]


def test_unsatisfied_inputs_named_while_building():
    with pytest.raises(UnsatisfiedConstraint) as e:
        build(cube_statement, {"x": 3, "out": 36})
    assert e.value.constraint == "result"


def test_check_names_first_failing_constraint():
    system, witness = build(cube_statement, {"x": 3, "out": 35})
    bad = list(witness)
    bad[3] = 10  # x2
    with pytest.raises(UnsatisfiedConstraint, match="cube/x2") as e:
        check(system, bad)
    assert e.value.index == 0
    with pytest.raises(MalformedInput, match="got 4, expected 5"):
        check(system, witness[:-1])
    with pytest.raises(MalformedInput):
        check(system, [1, 35, 3, 9, 27 + r])
    with pytest.raises(MalformedInput):
        check(system, [2, 35, 3, 9, 27])


def test_audit_finds_free_wire():
    def leaky(cs, inputs):
        out = cs.public("out", inputs and inputs["out"])
        x = cs.private_unchecked("x", inputs and inputs["x"])
        cs.private_unchecked("free", inputs and 7)  # a hint nothing pins
        cs.enforce(x, x, out, "square")

    system, witness = build(leaky, {"x": 3, "out": 9})
    assert under_constrained_wires(system, witness) == ["free"]
    system, witness = build(cube_statement, {"x": 3, "out": 35})
    assert under_constrained_wires(system, witness) == []
    assert unsatisfied_after(system, witness, 2, 4) == "cube/x2"


def test_linear_combinations_are_free():
    cs = ConstraintSystem(with_values=True)
    a = cs.private_unchecked("a", 5)
    b = cs.private_unchecked("b", 7)
    c = (a + b) * 3 - a - 2 + 4 * b
    assert c.value == (12 * 3 - 5 - 2 + 28)
    assert len(cs.constraints) == 0
    assert (a - a).terms == {}
    with pytest.raises(TypeError):
        a * b  # noqa: B018  (not linear)
    assert cs.mul(a, 4, "folded").value == 20 and len(cs.constraints) == 0


def test_public_inputs_come_first():
    cs = ConstraintSystem()
    cs.private_unchecked("x")
    with pytest.raises(RuntimeError, match="declare public inputs first"):
        cs.public("late")


def test_public_input_range_checked():
    cs = ConstraintSystem(with_values=True)
    with pytest.raises(MalformedInput):
        cs.public("x", r)


def test_fingerprint_changes_with_any_constraint():
    def variant(cs, inputs):
        out = cs.public("out")
        x = cs.private_unchecked("x")
        x2 = cs.mul(x, x, "x2")
        cs.enforce_equal(x2 + x + 6, out, "result")

    assert build(variant)[0].fingerprint() != build(cube_statement)[0].fingerprint()


def test_binary_round_trip():
    system, witness = build(cube_statement, {"x": 3, "out": 35})
    back = r1cs_from_bytes(r1cs_to_bytes(system))
    assert back.constraints == system.constraints
    assert (back.n_wires, back.n_public) == (system.n_wires, system.n_public)
    assert back.fingerprint() == system.fingerprint()
    assert wtns_from_bytes(wtns_to_bytes(witness)) == witness
    check(back, witness)


@pytest.mark.parametrize("mutate, why", [
    (lambda b: b"r1cz" + b[4:], "magic"),
    (lambda b: b[:4] + (2).to_bytes(4, "little") + b[8:], "version"),
    (lambda b: b[:-3], "truncated"),
    (lambda b: b + b"\0", "trailing"),
])
def test_r1cs_rejects_malformed(mutate, why):
    system, _ = build(cube_statement)
    with pytest.raises(MalformedInput, match=why):
        r1cs_from_bytes(mutate(r1cs_to_bytes(system)))


def test_wtns_rejects_malformed():
    data = wtns_to_bytes([1, 2, 3])
    with pytest.raises(MalformedInput, match="magic"):
        wtns_from_bytes(b"wtnz" + data[4:])
    with pytest.raises(MalformedInput, match="not below r"):
        wtns_from_bytes(data[:-32] + r.to_bytes(32, "little"))


def test_builds_large_system_quickly():
    import time

    def chain(cs, inputs):
        x = cs.private_unchecked("x", 3 if inputs is not None else None)
        for i in range(1 << 14):
            x = cs.mul(x, x + i, f"m{i}")

    t = time.perf_counter()
    system, witness = build(chain, {})
    assert system.n_constraints == 1 << 14
    check(system, witness)
    # not a timing assertion: just a sanity bound far above the measured ~0.3 s
    assert time.perf_counter() - t < 60
