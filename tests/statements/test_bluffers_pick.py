"""The timeout's random card (``card.pick.v1``): the one-card play is the card the seat's
own committed seed picks from its committed hand; nobody else can choose it. Every wire
pinned, tampered witnesses refused by the constraints, the native twin, the pinned count,
the pick's distribution, a Groth16 round trip on mcl."""
import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit import check
from zkbluff.circuit.audit import unconstrained_public_inputs, under_constrained_wires, unsatisfied_after
from zkbluff.errors import InvalidProof, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets.native import commit, poseidon
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
from zkbluff.statements import get_statement
from zkbluff.statements.revolver import PICK_TAG, pick_index_native, picked_card_native

PICK = get_statement("card.pick.v1@deck=20,max_hand=5")


def inputs(rng: random.Random, size=None) -> dict:
    cards = rng.sample(range(20), rng.randint(1, 5) if size is None else size)
    return {"hand": sum(1 << c for c in cards), "hand_salt": rng.getrandbits(250), "play_salt": rng.getrandbits(250),
            "seed": rng.randrange(r), "seed_salt": rng.getrandbits(250), "context": rng.randrange(r)}


def test_pinned_count_and_shape():
    system, _ = PICK.build()
    assert system.n_constraints == 1680
    assert PICK.public == ("hand_commitment", "play_commitment", "seed_commitment", "hand_size", "context")


def test_every_private_wire_is_pinned_and_no_public_input_is_free():
    rng = random.Random(1)
    for size in (1, 3, 5):
        system, witness = PICK.build(inputs(rng, size))
        check(system, witness)
        assert under_constrained_wires(system, witness) == []
    assert unconstrained_public_inputs(PICK.build()[0]) == []


@settings(max_examples=15)
@given(st.integers(0, 2 ** 32))
def test_agrees_with_its_native_twin(seed):
    inp = inputs(random.Random(seed))
    system, witness = PICK.build(inp)
    card = picked_card_native(inp["hand"], inp["seed"], inp["context"])
    assert inp["hand"] >> card & 1
    assert witness[1:1 + system.n_public] == [
        commit(inp["hand"], inp["hand_salt"]), commit(1 << card, inp["play_salt"]),
        commit(inp["seed"], inp["seed_salt"]), bin(inp["hand"]).count("1"), inp["context"]]


def test_another_card_of_the_hand_is_refused_by_the_constraints():
    rng = random.Random(2)
    inp = inputs(rng, 5)
    card = picked_card_native(inp["hand"], inp["seed"], inp["context"])
    PICK.build({**inp, "play_commitment": commit(1 << card, inp["play_salt"])})  # the twin: the picked card
    for other in (c for c in range(20) if inp["hand"] >> c & 1 and c != card):
        with pytest.raises(UnsatisfiedConstraint, match="play_opens"):
            PICK.build({**inp, "play_commitment": commit(1 << other, inp["play_salt"])})


def test_a_wrong_hand_size_or_seed_commitment_is_refused():
    inp = inputs(random.Random(3), 4)
    with pytest.raises(UnsatisfiedConstraint, match="hand_size"):
        PICK.build({**inp, "hand_size": 5})
    with pytest.raises(UnsatisfiedConstraint, match="seed_opens"):
        PICK.build({**inp, "seed_commitment": commit(inp["seed"] + 1, inp["seed_salt"])})
    with pytest.raises(UnsatisfiedConstraint, match="hand_opens"):
        PICK.build({**inp, "hand_commitment": commit(inp["hand"] ^ 1 << 19, inp["hand_salt"])})


def test_a_six_card_hand_is_refused():
    rng = random.Random(4)
    inp = inputs(rng, 5)
    inp["hand"] |= 1 << next(c for c in range(20) if not inp["hand"] >> c & 1)
    with pytest.raises(UnsatisfiedConstraint, match="hand_size_max"):
        PICK.build(inp)


@pytest.mark.parametrize("name", ["index", "quotient", "seed", "hand_salt", "play_salt"])
def test_a_tampered_wire_breaks_a_constraint(name):
    system, witness = PICK.build(inputs(random.Random(5), 5))
    i = system.wire_names.index(name)
    for delta in (1, r - 1):
        assert unsatisfied_after(system, witness, i, witness[i] + delta) is not None


def test_the_hash_bits_cannot_be_an_alias_of_h_plus_r():
    """Reading h + r instead of h would change the low bits and so the pick: the strict
    decomposition refuses it."""
    rng = random.Random(6)
    while True:
        inp = inputs(rng, 5)
        h = poseidon([inp["seed"], PICK_TAG, inp["context"]])
        if h + r < 2 ** 254:
            break
    system, witness = PICK.build(inp)
    w = list(witness)
    for k in range(254):
        w[system.wire_names.index(f"pick_bits/bit_{k}")] = (h + r) >> k & 1
    with pytest.raises(UnsatisfiedConstraint) as e:
        check(system, w)
    assert "strict" in e.value.constraint


def test_the_pick_is_uniform_over_the_hand():
    rng = random.Random(7)
    for size in (2, 3, 5):
        counts = Counter(pick_index_native(rng.randrange(r), rng.randrange(r), size) for _ in range(250 * size))
        stat = sum((counts[i] - 250) ** 2 / 250 for i in range(size))
        assert stat < {2: 10.83, 3: 13.82, 5: 18.47}[size], counts  # p = 0.001
    with pytest.raises(ValueError):
        pick_index_native(1, 2, 0)


def test_round_trip_on_mcl_and_the_wrong_card_has_no_proof(mcl):
    inp = inputs(random.Random(8), 5)
    system, witness = PICK.build(inp)
    pk = setup_insecure_seeded_for_tests(system, "card.pick.v1", backend=mcl)
    public = witness[1:1 + system.n_public]
    proof = prove(pk, witness, backend=mcl)
    verify(pk.vk, public, proof, backend=mcl)
    card = picked_card_native(inp["hand"], inp["seed"], inp["context"])
    other = next(c for c in range(20) if inp["hand"] >> c & 1 and c != card)
    for i, bad in ((1, commit(1 << other, inp["play_salt"])), (3, 4), (4, inp["context"] + 1)):
        changed = list(public)
        changed[i] = bad
        with pytest.raises(InvalidProof):
            verify(pk.vk, changed, proof, backend=mcl)
