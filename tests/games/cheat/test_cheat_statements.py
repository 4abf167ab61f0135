"""Cheat's statements: the pick-up of a pile (card.absorb_many.v1, chained past four plays),
the public turn-over (a native opening), and the play statement as Cheat uses it.
Counts pinned, every wire pinned, every public input bound, named cheats refused by the
constraints, natives agree, real proofs on mcl."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit import check
from zkbluff.circuit.audit import unconstrained_public_inputs, under_constrained_wires, unsatisfied_after
from zkbluff.errors import CommitmentMismatch, InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
from zkbluff.statements import all_statements, get_statement
from zkbluff.games.cheat.statements import (
    ABSORB_SLOTS, EMPTY_PLAY_COMMITMENT, absorb_chain_inputs, absorb_chain_publics, absorb_many_statement, open_play,
)

DECK = 52  # the statements' deck parameter (the registry's standard deck)
KEY = f"card.absorb_many.v1@deck={DECK},plays={ABSORB_SLOTS}"
ABSORB = get_statement(KEY)
PLAY = get_statement("card.play.v1@deck=52,max_play=4")


def mask(*cards: int) -> int:
    return sum(1 << c for c in cards)


def pile_inputs(old=mask(0, 1, 2), plays=(mask(10, 11), mask(20), mask(30, 31, 32)), context=9) -> dict:
    """A picker holding 0,1,2 picks up a pile of three plays (one slot empty)."""
    inp = {"old_hand": old, "old_salt": 101, "new_salt": 303, "context": context}
    padded = list(plays) + [0] * (ABSORB_SLOTS - len(plays))
    for j, m in enumerate(padded):
        inp[f"play{j}"], inp[f"play{j}_salt"] = m, (200 + j if m else 0)
    return inp


def random_pile(rng: random.Random, slots: int = ABSORB_SLOTS) -> dict:
    cards = list(range(DECK))
    rng.shuffle(cards)
    k = rng.randint(1, slots)
    old = mask(*cards[:rng.randint(0, 20)])
    pos = bin(old).count("1")
    plays = []
    for _ in range(k):
        n = rng.randint(1, 4)
        plays.append(mask(*cards[pos:pos + n]))
        pos += n
    inp = pile_inputs(old, plays, context=rng.randrange(r))
    for j in range(slots):
        if inp[f"play{j}"]:
            inp[f"play{j}_salt"] = rng.getrandbits(250)
    inp["old_salt"], inp["new_salt"] = rng.getrandbits(250), rng.getrandbits(250)
    return inp


# ---------------------------------------------------------------- shape

def test_registered_with_pinned_count_and_the_documented_formula():
    assert KEY in all_statements()
    assert ABSORB.build()[0].n_constraints == 1759
    for k in (1, 2, 4, 8):
        n = absorb_many_statement(DECK, k).build()[0].n_constraints
        assert n == (DECK + 241) * (k + 1) + 241 + DECK + 1
    assert absorb_many_statement(DECK, 1).build()[0].n_constraints == get_statement(
        "card.absorb.v1@deck=52").build()[0].n_constraints  # one slot costs what absorb.v1 costs
    assert ABSORB.public == ("old_hand_commitment", "new_hand_commitment", "play0_commitment", "play1_commitment",
                             "play2_commitment", "play3_commitment", "context")
    with pytest.raises(ValueError):
        absorb_many_statement(DECK, 0)


def test_audit_every_private_wire_pinned_and_no_public_input_free():
    rng = random.Random(13)
    assert unconstrained_public_inputs(ABSORB.build()[0]) == []
    for inp in (pile_inputs(), random_pile(rng), pile_inputs(plays=(mask(5),), old=0)):
        system, witness = ABSORB.build(inp)
        check(system, witness)
        assert under_constrained_wires(system, witness) == []


def test_the_audit_finds_an_unpinned_slot():
    """Twin: a variant that skips the opening of the last slot leaves its wires free."""
    from zkbluff.circuit import build
    from zkbluff.statements.base import alloc_mask, bind_context

    def leaky(cs, inp):
        c = cs.public("context", None if inp is None else inp["context"])
        bind_context(cs, c)
        alloc_mask(cs, inp, "play0", 4)
        cs.private_unchecked("play0_salt", None if inp is None else inp["play0_salt"])

    system, witness = build(leaky, {"context": 3, "play0": 5, "play0_salt": 7})
    assert "play0_salt" in under_constrained_wires(system, witness)


@settings(max_examples=8)
@given(st.integers(0, 2 ** 32))
def test_agrees_with_its_native_twin(seed):
    inp = random_pile(random.Random(seed))
    system, witness = ABSORB.build(inp)
    publics = ABSORB.public_values(inp)
    assert witness[1: 1 + system.n_public] == publics
    union = inp["old_hand"]
    for j in range(ABSORB_SLOTS):
        union |= inp[f"play{j}"]
    assert publics[1] == commit(union, inp["new_salt"])


def test_unused_slots_are_the_empty_play():
    inp = pile_inputs()
    pub = dict(zip(ABSORB.public, ABSORB.public_values(inp)))
    assert pub["play3_commitment"] == EMPTY_PLAY_COMMITMENT == commit(0, 0)
    assert pub["play0_commitment"] != EMPTY_PLAY_COMMITMENT


# ---------------------------------------------------------------- named cheats, refused by the constraints

def test_a_picker_who_claims_a_card_it_never_received():
    inp = pile_inputs()
    ABSORB.build(inp)
    stolen = mask(0, 1, 2, 10, 11, 20, 30, 31, 32, 45)  # 45 was in no play
    with pytest.raises(UnsatisfiedConstraint, match="new_opens"):
        ABSORB.build({**inp, "new_hand_commitment": commit(stolen, 303)})


def test_a_picker_who_slips_a_card_into_a_play_of_the_pile():
    inp = pile_inputs()
    real = ABSORB.public_values(inp)[3]  # play1_commitment: the pile's second play, one card
    with pytest.raises(UnsatisfiedConstraint, match="play1_opens"):
        ABSORB.build({**inp, "play1": mask(20, 45), "play1_commitment": real})


def test_a_new_hand_that_drops_a_pile_card():
    inp = pile_inputs()
    dropped = mask(0, 1, 2, 10, 11, 30, 31, 32)  # 20 left out
    with pytest.raises(UnsatisfiedConstraint, match="new_opens"):
        ABSORB.build({**inp, "new_hand_commitment": commit(dropped, 303)})


def test_a_picker_who_leaves_a_play_out():
    inp = pile_inputs()
    real = ABSORB.public_values(inp)[4]  # play2_commitment
    with pytest.raises(UnsatisfiedConstraint, match="play2_opens"):
        ABSORB.build({**inp, "play2": 0, "play2_salt": 0, "play2_commitment": real})


def test_a_pile_card_already_in_the_hand():
    with pytest.raises(UnsatisfiedConstraint, match="disjoint/card_10"):
        ABSORB.build(pile_inputs(old=mask(0, 10)))
    with pytest.raises(UnsatisfiedConstraint, match="disjoint/card_20"):
        ABSORB.build(pile_inputs(plays=(mask(20), mask(20, 21))))


def test_an_empty_slot_that_hides_cards():
    inp = pile_inputs()
    with pytest.raises(UnsatisfiedConstraint, match="play3_opens"):
        ABSORB.build({**inp, "play3": mask(45), "play3_commitment": EMPTY_PLAY_COMMITMENT})


def test_another_old_hand():
    with pytest.raises(UnsatisfiedConstraint, match="old_opens"):
        ABSORB.build({**pile_inputs(), "old_hand_commitment": commit(mask(0, 1), 101)})


def test_tampered_witness_wires_break_named_constraints():
    system, witness = ABSORB.build(pile_inputs())
    names = system.wire_names
    bit = names.index("play1/bit_20")
    assert unsatisfied_after(system, witness, bit, 0).startswith("play1_commit")  # drop a card: the opening breaks
    assert unsatisfied_after(system, witness, bit, 2) == "play1/bit_20/boolean"
    extra = names.index("play1/bit_45")
    assert unsatisfied_after(system, witness, extra, 1) is not None
    with pytest.raises(UnsatisfiedConstraint):
        bad = list(witness)
        bad[extra] = 1
        check(system, bad)


def test_bad_inputs_are_malformed():
    with pytest.raises(MalformedInput, match="mask over 52"):
        ABSORB.build({**pile_inputs(), "play0": 1 << DECK})
    with pytest.raises(MalformedInput, match="missing"):
        ABSORB.build({k: v for k, v in pile_inputs().items() if k != "play3_salt"})


# ---------------------------------------------------------------- chains

def test_a_pile_of_nine_plays_is_three_chained_proofs():
    rng = random.Random(5)
    cards = list(range(DECK))
    rng.shuffle(cards)
    old = mask(*cards[:5])
    plays = [(mask(cards[5 + i]), 1000 + i) for i in range(9)]
    salts, contexts = [71, 72, 73], [1, 2, 3]
    inputs = absorb_chain_inputs(old, 55, plays, salts, contexts)
    assert len(inputs) == 3 and inputs[2]["play1"] == 0 and inputs[2]["play1_salt"] == 0
    new_commits = []
    for inp in inputs:
        system, witness = ABSORB.build(inp)
        check(system, witness)
        new_commits.append(ABSORB.public_values(inp)[1])
    union = old | mask(*cards[5:14])
    assert new_commits[-1] == commit(union, 73)
    publics = absorb_chain_publics(commit(old, 55), new_commits, [commit(m, s) for m, s in plays], contexts)
    assert publics == [ABSORB.public_values(inp) for inp in inputs]
    with pytest.raises(MalformedInput, match="3 proof"):
        absorb_chain_publics(commit(old, 55), new_commits[:2], [commit(m, s) for m, s in plays], contexts[:2])
    with pytest.raises(MalformedInput):
        absorb_chain_inputs(old, 55, plays, salts[:2], contexts[:2])
    with pytest.raises(MalformedInput):
        absorb_chain_publics(commit(old, 55), [1], [], [1])


def test_a_chain_link_that_does_not_continue_the_last_hand_is_refused():
    """The verifier builds each proof's old hand from the previous proof's new one, so a
    picker that restarts from another hand mid-chain fails the opening of its old hand."""
    plays = [(mask(10 + i), 500 + i) for i in range(5)]
    inputs = absorb_chain_inputs(mask(0), 1, plays, [2, 3], [8, 9])
    other = {**inputs[1], "old_hand": mask(0, 40), "old_salt": 2}  # claims 40 was in its hand
    publics = absorb_chain_publics(commit(mask(0), 1), [ABSORB.public_values(inputs[0])[1],
                                                         ABSORB.public_values(other)[1]],
                                   [commit(m, s) for m, s in plays], [8, 9])
    with pytest.raises(UnsatisfiedConstraint, match="old_opens"):
        ABSORB.build({**other, **dict(zip(ABSORB.public, publics[1]))})


# ---------------------------------------------------------------- the turn-over and the play

def test_a_called_play_is_opened_publicly_against_its_commitment():
    seven, three = 5, 1  # card ids: the 7 and the 3 of clubs
    c = commit(mask(seven, three), 4242)
    assert open_play(c, mask(seven, three), 4242, 2, DECK) == (three, seven)
    with pytest.raises(CommitmentMismatch):
        open_play(c, mask(seven, seven + 13), 4242, 2, DECK)  # "two sevens" it was not
    with pytest.raises(CommitmentMismatch):
        open_play(c, mask(seven, three), 4243, 2, DECK)
    with pytest.raises(MalformedInput, match="2 card"):
        open_play(c, mask(seven, three), 4242, 3, DECK)
    with pytest.raises(MalformedInput, match="set of cards"):
        open_play(c, 1 << DECK, 4242, 1, DECK)
    with pytest.raises(MalformedInput, match="salt"):
        open_play(c, mask(seven, three), r, 2, DECK)
    with pytest.raises(MalformedInput, match="integer"):
        open_play(c, True, 4242, 1, DECK)


def test_the_play_statement_fits_cheat():
    """card.play.v1@deck=52,max_play=4 as Cheat uses it: 1..4 cards from a hand of any size
    (the whole deck after pick-ups), the count public; a picked-up card can be played next,
    and a card given away cannot be played again."""
    whole = (1 << DECK) - 1
    for k in range(1, 5):
        inp = {"old_hand": whole, "old_salt": 1, "play": mask(*range(k)), "play_salt": 2, "new_salt": 3,
               "context": 4}
        assert dict(zip(PLAY.public, PLAY.public_values(inp)))["count"] == k
        PLAY.build(inp)
    with pytest.raises(UnsatisfiedConstraint, match="count_range"):
        PLAY.build({"old_hand": whole, "old_salt": 1, "play": mask(*range(5)), "play_salt": 2, "new_salt": 3})
    # pick up (20, 21) into (0, 1), then play 21: the absorb's new hand is the play's old hand
    pick = pile_inputs(old=mask(0, 1), plays=(mask(20, 21),))
    new_c = ABSORB.public_values(pick)[1]
    after = {"old_hand": mask(0, 1, 20, 21), "old_salt": pick["new_salt"], "play": mask(21), "play_salt": 9,
             "new_salt": 10, "context": 11}
    assert PLAY.public_values(after)[0] == new_c
    PLAY.build(after)
    again = {"old_hand": mask(0, 1, 20), "old_salt": 10, "play": mask(21), "play_salt": 12, "new_salt": 13}
    with pytest.raises(UnsatisfiedConstraint, match="subset"):
        PLAY.build(again)


# ---------------------------------------------------------------- real proofs

@pytest.fixture(scope="module")
def absorb_pk(mcl):
    return setup_insecure_seeded_for_tests(ABSORB.build()[0], KEY, backend=mcl)


def test_proves_verifies_and_binds_every_public_input(mcl, absorb_pk):
    inp = random_pile(random.Random(77))
    system, witness = ABSORB.build(inp)
    public = witness[1: 1 + system.n_public]
    proof = prove(absorb_pk, witness, backend=mcl)
    verify(absorb_pk.vk, public, proof, backend=mcl)
    for i, name in enumerate(ABSORB.public):
        changed = list(public)
        changed[i] = (changed[i] + 1) % r
        with pytest.raises(InvalidProof):
            verify(absorb_pk.vk, changed, proof, backend=mcl)


def test_the_prover_refuses_an_unsatisfied_witness(mcl, absorb_pk):
    system, witness = ABSORB.build(pile_inputs())
    bad = list(witness)
    bad[system.wire_names.index("play0/bit_10")] = 0
    with pytest.raises(UnsatisfiedConstraint):
        prove(absorb_pk, bad, backend=mcl)
