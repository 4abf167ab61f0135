"""The statements Mind Bluff's referee and seats prove: pinned counts, the audit, native
twins, every cheat tampered in one named place (TAMPERS) and rejected by the constraints,
and a Groth16 round trip on mcl for each, with a flipped disclosed bit rejected."""
import time

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit import check
from zkbluff.circuit.audit import unconstrained_public_inputs, under_constrained_wires
from zkbluff.errors import InvalidProof, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets.native import commit, poseidon
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
from zkbluff.statements import get_statement
from zkbluff.statements.values import start_draw_native
from repo_root import REPO_ROOT

CHOICE = get_statement("value.choice.v1")
STEP = get_statement("value.counter_step.v1")
COUNT_IS = get_statement("value.counter_is.v1")
DRAW = get_statement("value.start_draw.v1")
MIND_BLUFF = {"value.choice.v1": CHOICE, "value.counter_step.v1": STEP, "value.counter_is.v1": COUNT_IS,
              "value.start_draw.v1": DRAW}

PINNED = {"value.choice.v1": 248, "value.counter_step.v1": 743, "value.counter_is.v1": 253,
          "value.start_draw.v1": 1320}

E_REF, S_REF, E0, E1 = 0x1234567 << 200, 99, 0xABCDEF << 180, 0x42 << 190


def step(old, choice, **over):
    return {"old_count": old, "old_salt": 11, "choice": choice, "choice_salt": 22, "new_salt": 33, "context": 7,
            **over}


def draw(**over):
    return {"referee_entropy": E_REF, "referee_salt": S_REF, "start_salt": 55, "entropy0": E0, "entropy1": E1,
            "context": 7, **over}


def test_pinned_counts():
    assert {k: s.build()[0].n_constraints for k, s in MIND_BLUFF.items()} == PINNED


@pytest.mark.parametrize("key", list(MIND_BLUFF))
def test_audit_every_wire_pinned_and_no_free_public_input(key):
    stmt = MIND_BLUFF[key]
    assert unconstrained_public_inputs(stmt.build()[0]) == []
    inputs = {CHOICE: {"choice": 3, "choice_salt": 5, "claim": 0, "context": 1}, STEP: step(4, 3),
              COUNT_IS: {"count": 1, "salt": 3, "target": 1, "context": 2}, DRAW: draw()}[stmt]
    system, witness = stmt.build(inputs)
    check(system, witness)
    assert under_constrained_wires(system, witness) == []


# ------------------------------------------------------------------ native twins

@settings(max_examples=25)
@given(st.integers(1, 40), st.integers(1, 3), st.integers(0, r - 1))
def test_counter_step_against_native(old, choice, salt):
    inp = step(old, choice, old_salt=salt)
    system, witness = STEP.build(inp)
    pub = dict(zip(STEP.public, witness[1: 1 + system.n_public]))
    assert pub == dict(zip(STEP.public, STEP.public_values(inp)))
    assert pub["ate_last"] == int(choice >= old)
    assert pub["new_commitment"] == commit(0 if choice >= old else old - choice, 33)


@settings(max_examples=15)
@given(st.integers(0, r - 1), st.integers(0, r - 1), st.integers(0, r - 1))
def test_start_draw_against_native(e_ref, e0, e1):
    inp = draw(referee_entropy=e_ref, entropy0=e0, entropy1=e1)
    system, witness = DRAW.build(inp)
    pub = dict(zip(DRAW.public, witness[1: 1 + system.n_public]))
    start, coin = start_draw_native(e_ref, (e0, e1))
    h = poseidon([e_ref, e0, e1])
    assert start == 29 + (h % 2 ** 64) % 3 and coin == (h >> 64) & 1
    assert pub["coin"] == coin and pub["start_commitment"] == commit(start, 55)


# ------------------------------------------------------------------ tampering, one named place

def _set_wire(system, witness, name, value):
    w = list(witness)
    w[system.wire_names.index(name)] = value % r
    return w


#: each cheat of a referee or a seat: (what, statement, honest inputs, wire -> new value, the constraint
#: that must break). The honest witness satisfies the system; the tampered one must not.
TAMPERS = [
    ("false 'survived' (the eat reached the count)", STEP, step(2, 3), {"ate_last": 0}, "ate_last"),
    ("false 'ate the last' (the eat did not reach it)", STEP, step(10, 2), {"ate_last": 1}, "ate_last"),
    ("the count not lowered by the eat", STEP, step(10, 2), {"new_commitment": commit(10, 33)}, "new_opens"),
    ("a step against another count", STEP, step(10, 2), {"old_commitment": commit(9, 11)}, "old_opens"),
    ("a step with another choice than committed", STEP, step(10, 2), {"choice_commitment": commit(1, 22)},
     "choice_opens"),
    ("false All done win (2 remain)", COUNT_IS, {"count": 2, "salt": 3, "target": 1, "context": 0},
     {"equal": 1}, "equal"),
    ("false All done loss (1 remains)", COUNT_IS, {"count": 1, "salt": 3, "target": 1, "context": 0},
     {"equal": 0}, "equal"),
    ("All done against another count", COUNT_IS, {"count": 1, "salt": 3, "target": 1, "context": 0},
     {"commitment": commit(2, 3)}, "count_opens"),
    ("a game 1 start that is not 30", COUNT_IS, {"count": 30, "salt": 3, "target": 30, "context": 0},
     {"commitment": commit(29, 3)}, "count_opens"),
    ("false TRUE (a bluff)", CHOICE, {"choice": 1, "choice_salt": 4, "claim": 2, "context": 0},
     {"verdict": 1}, "verdict"),
    ("false BLUFF (a true claim)", CHOICE, {"choice": 2, "choice_salt": 4, "claim": 2, "context": 0},
     {"verdict": 0}, "verdict"),
    ("a forced-honest claim that lies", CHOICE, {"choice": 2, "choice_salt": 4, "claim": 3, "context": 0},
     {"verdict": 1}, "verdict"),
    ("a verdict about another choice", CHOICE, {"choice": 2, "choice_salt": 4, "claim": 2, "context": 0},
     {"choice_commitment": commit(3, 4)}, "choice_opens"),
    ("a chosen game 3 start", DRAW, draw(), {"start_commitment": "other_start"}, "start_opens"),
    ("a chosen coin", DRAW, draw(), {"coin": "flip"}, "coin"),
    ("a draw from another referee entropy", DRAW, draw(), {"referee_commitment": commit(E_REF + 1, S_REF)},
     "referee_opens"),
    ("a draw ignoring a seat's entropy", DRAW, draw(), {"entropy1": E1 + 1}, "draw_hash"),
    ("a draw with another remainder", DRAW, draw(), {"mod3/m": "next_m"}, "mod3/m_t"),
]


def _resolve(stmt, inputs, wire, value):
    pub = dict(zip(stmt.public, stmt.public_values(inputs)))
    if value == "flip":
        return 1 - pub[wire]
    if value == "other_start":
        start, _ = start_draw_native(E_REF, (E0, E1))
        return commit(29 if start != 29 else 31, 55)
    if value == "next_m":
        return (start_draw_native(E_REF, (E0, E1))[0] - 29 + 1) % 3 + 3  # out of {0,1,2}
    return value


@pytest.mark.parametrize("what,stmt,inputs,changes,constraint", TAMPERS, ids=[t[0] for t in TAMPERS])
def test_tampered_witness_is_rejected_by_the_constraints(what, stmt, inputs, changes, constraint):
    system, witness = stmt.build(inputs)
    check(system, witness)  # the honest twin holds
    bad = witness
    for wire, value in changes.items():
        bad = _set_wire(system, bad, wire, _resolve(stmt, inputs, wire, value))
    with pytest.raises(UnsatisfiedConstraint) as exc:
        check(system, bad)
    assert exc.value.constraint.endswith(constraint) or exc.value.constraint.startswith(constraint), \
        (what, exc.value.constraint)


PUBLIC_CHEATS = [t for t in TAMPERS if set(t[3]) <= set(t[1].public) and not {"entropy0", "entropy1"} & set(t[3])]


@pytest.mark.parametrize("what,stmt,inputs,changes,constraint", PUBLIC_CHEATS, ids=[t[0] for t in PUBLIC_CHEATS])
def test_prover_refuses_a_false_public_value(what, stmt, inputs, changes, constraint):
    """The same cheats given as the public value the cheater wants: the witness cannot be built."""
    over = {k: _resolve(stmt, inputs, k, v) for k, v in changes.items()}
    with pytest.raises(UnsatisfiedConstraint):
        stmt.build({**inputs, **over})


def test_choice_range_proof_discloses_nothing_but_the_range():
    for c in (1, 2, 3):
        _, w = CHOICE.build({"choice": c, "choice_salt": 9, "claim": 0, "context": 0})
        assert dict(zip(CHOICE.public, w[1:5]))["verdict"] == 0
    for bad in (0, 4):
        with pytest.raises(UnsatisfiedConstraint, match="choice_range"):
            CHOICE.build({"choice": bad, "choice_salt": 9, "claim": 0, "context": 0})


# ------------------------------------------------------------------ Groth16 round trips

ROUND_TRIP = {"value.choice.v1": {"choice": 2, "choice_salt": 8, "claim": 3, "context": 5},
              "value.counter_step.v1": step(7, 3),
              "value.counter_is.v1": {"count": 1, "salt": 3, "target": 1, "context": 5},
              "value.start_draw.v1": draw()}
FLIP = {"value.choice.v1": "verdict", "value.counter_step.v1": "ate_last", "value.counter_is.v1": "equal",
        "value.start_draw.v1": "coin"}


@pytest.mark.parametrize("key", list(ROUND_TRIP))
def test_groth16_round_trip_on_mcl(mcl, key, capsys):
    stmt = MIND_BLUFF[key]
    system, witness = stmt.build(ROUND_TRIP[key])
    t0 = time.perf_counter()
    pk = setup_insecure_seeded_for_tests(system, "mind-bluff" + key, backend=mcl)
    t1 = time.perf_counter()
    proof = prove(pk, witness, backend=mcl)
    t2 = time.perf_counter()
    public = witness[1: 1 + system.n_public]
    verify(pk.vk, public, proof, backend=mcl)
    t3 = time.perf_counter()
    with capsys.disabled():
        print(f"\n{key}: {system.n_constraints} constraints, setup {t1 - t0:.3f} s, prove {t2 - t1:.3f} s, "
              f"verify {t3 - t2:.3f} s (mcl)")
    i = stmt.public.index(FLIP[key])
    flipped = list(public)
    flipped[i] ^= 1
    with pytest.raises(InvalidProof):
        verify(pk.vk, flipped, proof, backend=mcl)
    other_context = list(public)
    other_context[stmt.public.index("context")] += 1
    with pytest.raises(InvalidProof):
        verify(pk.vk, other_context, proof, backend=mcl)


@pytest.mark.interop
def test_snarkjs_checks_the_draw_witness_and_verifies_our_draw_proof(snarkjs, mcl, tmp_path):
    """The game-3 draw in the snarkjs formats: the committed .r1cs accepts our witness, and
    snarkjs verifies our proof (and refuses it for the other coin)."""
    import json
    from pathlib import Path

    from nodetools import run
    from zkbluff.circuit.formats import write_wtns

    r1cs = REPO_ROOT / "circuits" / "value.start_draw.v1.r1cs"
    system, witness = DRAW.build(draw())
    write_wtns(tmp_path / "w.wtns", witness)
    assert "WITNESS IS CORRECT" in run(snarkjs + ["wtns", "check", str(r1cs), str(tmp_path / "w.wtns")]).stdout
    pk = setup_insecure_seeded_for_tests(system, "mind-bluff-snarkjs", backend=mcl)
    public = witness[1: 1 + system.n_public]
    (tmp_path / "vk.json").write_text(json.dumps(pk.vk.to_json()))
    (tmp_path / "proof.json").write_text(json.dumps(prove(pk, witness, backend=mcl).to_json()))

    def snarkjs_ok(pub):
        (tmp_path / "public.json").write_text(json.dumps([str(x) for x in pub]))
        res = run(snarkjs + ["groth16", "verify", *(str(tmp_path / f) for f in ("vk.json", "public.json",
                                                                              "proof.json"))], check=False)
        return res.returncode == 0 and "OK" in res.stdout

    assert snarkjs_ok(public)
    other = list(public)
    other[DRAW.public.index("coin")] ^= 1
    assert not snarkjs_ok(other)
