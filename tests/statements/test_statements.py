"""Soundness of the game statements: every wire pinned, every public input bound,
semantic cheats refused, natives agree, counts pinned."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from zkbluff.circuit import check
from zkbluff.circuit.audit import under_constrained_wires
from zkbluff.errors import InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
from zkbluff.statements import all_statements, get_statement
from zkbluff.statements.cards import NO_RANK, deal_statement, lies_native

from statement_inputs import rank_mask_52, valid_inputs

STATEMENTS = all_statements()

PINNED = {
    "card.play.v1@deck=52,max_play=4": 890,
    "card.claim.v1@deck=52": 403,
    "card.absorb.v1@deck=52": 880,
    "card.absorb_many.v1@deck=52,plays=4": 1759,
    "card.match.v1@deck=52": 498,
    "card.play.v1@deck=20,max_play=3": 794,
    "card.claim.v1@deck=20": 307,
    "value.choice.v1": 248,
    "value.counter_step.v1": 743,
    "value.counter_is.v1": 253,
    "value.chamber.v1@chambers=6": 257,
    "card.deal.v2@deck=52,hands=5-5,board=0,entropies=2": 2490,
    "card.deal.v2@deck=52,hands=7-7,board=0,entropies=2": 2700,
    "card.deal.v2@deck=52,hands=2-2,board=5,entropies=2": 2439,
    "card.deal.v2@deck=52,hands=18-17-17,board=0,entropies=4": 5339,
    "card.deal.v2@deck=52,hands=13-13-13-13,board=0,entropies=5": 6051,
    "card.deal.v2@deck=52,hands=11-11-10-10-10,board=0,entropies=6": 6721,
    "card.deal.v2@deck=52,hands=9-9-9-9-8-8,board=0,entropies=7": 7334,
    "revolver.share.v1@chambers=6": 518,
    "card.pick.v1@deck=20,max_hand=5": 1680,
    "card.deal.v2@deck=20,hands=5-5,board=0,entropies=3": 2434,
    "card.deal.v2@deck=20,hands=5-5-5,board=0,entropies=4": 3051,
    "card.deal.v2@deck=20,hands=5-5-5-5,board=0,entropies=5": 3557,
    "value.start_draw.v1": 1320,
    "card.permutation.v1@deck=52": 13239,
    "card.chosen_hand.v1@deck=52,hand=7": 3349,
    "card.chosen_hand.v1@deck=52,hand=5": 2551,
    "card.chosen_hand.v1@deck=52,hand=2": 1354,
    "card.deal.v2@deck=20,hands=5-5,board=0,entropies=4": 2711,
    "card.deal.v2@deck=20,hands=5-5,board=0,entropies=5": 2976,
    "card.deal.v2@deck=20,hands=5-5-5,board=0,entropies=5": 3316,
    "card.deal.v2@deck=3,hands=1,board=1,entropies=3": 1999,
    "card.deal.v2@deck=3,hands=1,board=1,entropies=4": 2276,
    "card.deal.v2@deck=3,hands=1,board=1,entropies=5": 2541,
    "card.hand_binding.v1@deck=52,hand=17": 1213,
    "card.hand_binding.v1@deck=52,hand=26": 1699,
}


def test_pinned_constraint_counts_and_targets():
    counts = {k: s.build()[0].n_constraints for k, s in STATEMENTS.items()}
    assert counts == PINNED
    assert counts["card.play.v1@deck=52,max_play=4"] <= 2000
    assert counts["card.claim.v1@deck=52"] <= 1000
    assert counts["card.deal.v2@deck=52,hands=7-7,board=0,entropies=2"] <= 25000  # issue 11's target


@pytest.mark.parametrize("key", list(STATEMENTS))
def test_every_private_wire_is_pinned(key):
    stmt = STATEMENTS[key]
    rng = random.Random(key)
    for _ in range(2):
        system, witness = stmt.build(valid_inputs(stmt, rng))
        check(system, witness)
        assert system.n_public == len(stmt.public)
        assert under_constrained_wires(system, witness) == []
        shape, _ = stmt.build()
        assert shape.fingerprint() == system.fingerprint()


def test_no_public_input_is_free():
    from zkbluff.circuit.audit import unconstrained_public_inputs

    for key, stmt in STATEMENTS.items():
        assert unconstrained_public_inputs(stmt.build()[0]) == [], key


def test_the_free_public_input_audit_can_fail():
    from zkbluff.circuit import build
    from zkbluff.circuit.audit import unconstrained_public_inputs

    def leaky(cs, inp):
        cs.public("used")
        cs.public("ignored")
        x = cs.private_unchecked("x")
        cs.enforce(x, x, 0, "sq")

    def uses_first(cs, inp):
        u = cs.public("used")
        cs.public("ignored")
        cs.enforce(u, u, u, "bit")

    assert unconstrained_public_inputs(build(uses_first)[0]) == ["ignored"]
    assert unconstrained_public_inputs(build(leaky)[0]) == ["used", "ignored"]


@pytest.fixture(scope="module")
def keys(mcl):
    return {k: setup_insecure_seeded_for_tests(s.build()[0], k, backend=mcl) for k, s in STATEMENTS.items()}


@pytest.mark.parametrize("key", list(STATEMENTS))
def test_proves_and_every_public_input_is_bound(mcl, keys, key):
    stmt, pk = STATEMENTS[key], keys[key]
    system, witness = stmt.build(valid_inputs(stmt, random.Random(key + "p")))
    public = witness[1: 1 + system.n_public]
    assert public == stmt.public_values(valid_inputs(stmt, random.Random(key + "p")))
    proof = prove(pk, witness, backend=mcl)
    verify(pk.vk, public, proof, backend=mcl)
    for i, name in enumerate(stmt.public):
        changed = list(public)
        changed[i] = (changed[i] + 1) % r
        with pytest.raises(InvalidProof):
            verify(pk.vk, changed, proof, backend=mcl)


@pytest.mark.slow
@pytest.mark.parametrize("key", ["value.choice.v1", "value.counter_is.v1", "value.chamber.v1@chambers=6"])
def test_small_statements_on_pyecc(pyecc, key):
    stmt = STATEMENTS[key]
    system, witness = stmt.build(valid_inputs(stmt, random.Random(1)))
    pk = setup_insecure_seeded_for_tests(system, "pyecc", backend=pyecc)
    proof = prove(pk, witness, backend=pyecc)
    verify(pk.vk, witness[1:5], proof, backend=pyecc)
    bad = witness[1:5]
    bad[2] ^= 1
    with pytest.raises(InvalidProof):
        verify(pk.vk, bad, proof, backend=pyecc)


@settings(max_examples=30)
@given(st.sampled_from(sorted(STATEMENTS)), st.integers(0, 2 ** 32))
def test_every_statement_agrees_with_its_native_twin(key, seed):
    stmt = STATEMENTS[key]
    inputs = valid_inputs(stmt, random.Random(seed))
    system, witness = stmt.build(inputs)
    assert witness[1: 1 + system.n_public] == stmt.public_values(inputs)


# ---------------------------------------------------------------- semantic negatives

PLAY = get_statement("card.play.v1@deck=52,max_play=4")
CLAIM = get_statement("card.claim.v1@deck=52")
# card.deal.v1 is no longer a Proof or Bluff statement (card.deal.v2 deals it); its code stays
DEAL77 = deal_statement(52, (7, 7))
DEAL22 = deal_statement(52, (2, 2), board=5)
ABSORB = get_statement("card.absorb.v1@deck=52")
MATCH = get_statement("card.match.v1")
BPLAY = get_statement("card.play.v1@deck=20,max_play=3")


def play_inputs(hand=0b1011_0110, play=0b0000_0110):
    return {"old_hand": hand, "old_salt": 11, "play": play, "play_salt": 22, "new_salt": 33, "context": 5}


def test_play_valid_and_disclosures():
    inp = play_inputs()
    system, witness = PLAY.build(inp)
    pub = dict(zip(PLAY.public, witness[1:6]))
    assert pub["count"] == 2 and pub["new_hand_commitment"] == commit(0b1011_0000, 33)


def test_play_card_not_in_hand():
    with pytest.raises(UnsatisfiedConstraint, match="subset/bit_0"):
        PLAY.build(play_inputs(play=0b0000_0011))


def test_play_card_twice():
    """After a play the card is gone: playing it again from the new hand is refused."""
    first = play_inputs()
    after = {"old_hand": 0b1011_0000, "old_salt": 33, "play": 0b0000_0100, "play_salt": 44, "new_salt": 55,
             "context": 6}
    PLAY.build(first)
    with pytest.raises(UnsatisfiedConstraint, match="subset"):
        PLAY.build(after)


def test_play_count_that_differs():
    with pytest.raises(UnsatisfiedConstraint, match="count"):
        PLAY.build({**play_inputs(), "count": 3})


def test_play_count_out_of_range():
    with pytest.raises(UnsatisfiedConstraint, match="count_range"):
        PLAY.build(play_inputs(hand=0b1_1111, play=0b1_1111))  # five cards
    with pytest.raises(UnsatisfiedConstraint, match="count_range"):
        PLAY.build(play_inputs(play=0))  # no card


def test_play_new_hand_keeps_a_played_card():
    kept = commit(0b1011_0010, 33)  # card 1 was played but stays in the new hand
    with pytest.raises(UnsatisfiedConstraint, match="new_opens"):
        PLAY.build({**play_inputs(), "new_hand_commitment": kept})


def test_play_wrong_old_hand():
    with pytest.raises(UnsatisfiedConstraint, match="old_opens"):
        PLAY.build({**play_inputs(), "old_hand_commitment": commit(0b1111_1111, 11)})


def test_claim_verdict_that_lies():
    kings = rank_mask_52(11)
    true_play = (1 << 11) | (1 << 24)
    CLAIM.build({"play": true_play, "play_salt": 1, "rank_mask": kings, "verdict": 1, "context": 0})
    with pytest.raises(UnsatisfiedConstraint, match="verdict"):
        CLAIM.build({"play": true_play, "play_salt": 1, "rank_mask": kings, "verdict": 0, "context": 0})
    bluff = (1 << 11) | (1 << 9)
    with pytest.raises(UnsatisfiedConstraint, match="verdict"):
        CLAIM.build({"play": bluff, "play_salt": 1, "rank_mask": kings, "verdict": 1, "context": 0})


def test_claim_against_another_play():
    with pytest.raises(UnsatisfiedConstraint, match="play_opens"):
        CLAIM.build({"play": 1 << 11, "play_salt": 1, "rank_mask": rank_mask_52(11), "context": 0,
                     "play_commitment": commit(1 << 12, 1)})


def deal_inputs(h0, h1, board=0):
    return {"hand0": h0, "hand0_salt": 1, "hand1": h1, "hand1_salt": 2, "board": board, "context": 9}


def test_deal_overlapping_hands():
    h0 = 0b111_1111
    DEAL77.build(deal_inputs(h0, h0 << 7))
    with pytest.raises(UnsatisfiedConstraint, match="disjoint/card_6"):
        DEAL77.build(deal_inputs(h0, h0 << 6))


def test_deal_wrong_hand_size():
    with pytest.raises(UnsatisfiedConstraint, match="hand1/size"):
        DEAL77.build(deal_inputs(0b111_1111, 0b11_1111 << 7))


def test_deal_hand_overlapping_board():
    DEAL22.build(deal_inputs(0b11, 0b1100, board=0b1_1111 << 4))
    with pytest.raises(UnsatisfiedConstraint, match="disjoint"):
        DEAL22.build(deal_inputs(0b11, 0b1100, board=0b1_1111 << 3))
    with pytest.raises(UnsatisfiedConstraint, match="board/size"):
        DEAL22.build(deal_inputs(0b11, 0b1100, board=0b1111 << 4))


def test_five_card_hand_claimed_as_four():
    deal = deal_statement(52, (5, 5))
    with pytest.raises(UnsatisfiedConstraint, match="hand0/size"):
        deal.build(deal_inputs(0b1111, 0b1_1111 << 10))


def test_joker_outside_the_deck():
    """Bluffers' deck has ids 0..19 (18 and 19 the jokers); a card 20 cannot be played."""
    inp = {"old_hand": (1 << 18) | (1 << 19) | 1, "old_salt": 1, "play": 1 << 19, "play_salt": 2, "new_salt": 3,
           "context": 0}
    BPLAY.build(inp)
    with pytest.raises(MalformedInput, match="mask over 20"):
        BPLAY.build({**inp, "old_hand": inp["old_hand"] | (1 << 20), "play": 1 << 20})
    # a cheating prover that commits to card 20 cannot open that commitment in-circuit
    with pytest.raises(UnsatisfiedConstraint, match="old_opens"):
        BPLAY.build({**inp, "old_hand_commitment": commit(inp["old_hand"] | (1 << 20), 1)})


def test_absorb():
    ABSORB.build({"old_hand": 0b1010, "old_salt": 1, "play": 0b0101, "play_salt": 2, "new_salt": 3, "context": 0})
    with pytest.raises(UnsatisfiedConstraint, match="disjoint"):
        ABSORB.build({"old_hand": 0b1010, "old_salt": 1, "play": 0b0110, "play_salt": 2, "new_salt": 3,
                      "context": 0, "old_hand_commitment": commit(0b1010, 1)})
    with pytest.raises(UnsatisfiedConstraint, match="new_opens"):
        ABSORB.build({"old_hand": 0b1010, "old_salt": 1, "play": 0b0101, "play_salt": 2, "new_salt": 3,
                      "context": 0, "new_hand_commitment": commit(0b1010, 3)})


def test_match_rules_of_seed_000():
    K = 11
    board = (1 << K) | (1 << 0) | (1 << 14) | (1 << 30) | (1 << 45)   # K of clubs, 2c, 3d, 6h, 8s
    two_kings = (1 << (K + 13)) | (1 << (K + 26))
    assert lies_native(two_kings, board, K, K) == 0     # two Kings against one King: two matches
    assert lies_native(two_kings, board, K, NO_RANK) == 0
    assert lies_native(two_kings, board, K, 0) == 1
    assert lies_native(1 << (K + 13), board, K, K) == 1  # one King cannot match twice
    assert lies_native(1 << 1, board, NO_RANK, NO_RANK) == 0
    for names, lies in (((K, K), 0), ((K, 0), 1), ((0, 1), 2)):
        MATCH.build({"hand": two_kings, "hand_salt": 5, "board": board, "name1": names[0], "name2": names[1],
                     "lies": lies, "context": 1})
        with pytest.raises(UnsatisfiedConstraint, match="lies"):
            MATCH.build({"hand": two_kings, "hand_salt": 5, "board": board, "name1": names[0],
                         "name2": names[1], "lies": (lies + 1) % 3, "context": 1})
    with pytest.raises(UnsatisfiedConstraint, match="named_on_board"):  # a rank not on the board
        MATCH.build({"hand": two_kings, "hand_salt": 5, "board": board, "name1": 5, "name2": NO_RANK, "context": 1})
    with pytest.raises(UnsatisfiedConstraint):
        MATCH.build({"hand": two_kings, "hand_salt": 5, "board": board, "name1": 14, "name2": NO_RANK, "lies": 0,
                     "context": 1})


def test_values():
    choice = get_statement("value.choice.v1")
    choice.build({"choice": 2, "choice_salt": 1, "claim": 2, "verdict": 1, "context": 0})
    with pytest.raises(UnsatisfiedConstraint, match="verdict"):
        choice.build({"choice": 2, "choice_salt": 1, "claim": 3, "verdict": 1, "context": 0})
    with pytest.raises(UnsatisfiedConstraint, match="choice_range"):
        choice.build({"choice": 4, "choice_salt": 1, "claim": 4, "context": 0})
    step = get_statement("value.counter_step.v1")
    sys_, w = step.build({"old_count": 2, "old_salt": 1, "choice": 3, "choice_salt": 2, "new_salt": 3, "context": 0})
    assert dict(zip(step.public, w[1:6]))["ate_last"] == 1
    with pytest.raises(UnsatisfiedConstraint, match="ate_last"):
        step.build({"old_count": 5, "old_salt": 1, "choice": 3, "choice_salt": 2, "new_salt": 3, "context": 0,
                    "ate_last": 1})
    with pytest.raises(UnsatisfiedConstraint, match="new_opens"):
        step.build({"old_count": 5, "old_salt": 1, "choice": 3, "choice_salt": 2, "new_salt": 3, "context": 0,
                    "new_commitment": commit(3, 3)})
    chamber = get_statement("value.chamber.v1")
    with pytest.raises(UnsatisfiedConstraint, match="chamber"):
        chamber.build({"chamber": 6, "salt": 1, "pull": 6, "context": 0})
    with pytest.raises(UnsatisfiedConstraint, match="fired"):
        chamber.build({"chamber": 2, "salt": 1, "pull": 2, "fired": 0, "context": 0})
    alldone = get_statement("value.counter_is.v1")
    with pytest.raises(UnsatisfiedConstraint, match="equal"):
        alldone.build({"count": 2, "salt": 1, "target": 1, "equal": 1, "context": 0})


def test_bad_inputs_are_malformed():
    with pytest.raises(MalformedInput, match="missing"):
        PLAY.build({"old_hand": 1})
    with pytest.raises(MalformedInput, match="unknown"):
        PLAY.build({**play_inputs(), "extra": 1})
    with pytest.raises(MalformedInput, match="0 <= x < r"):
        PLAY.build({**play_inputs(), "old_salt": r})
    with pytest.raises(MalformedInput, match="unknown statement"):
        get_statement("card.nope.v1")
    assert get_statement("card.chosen_hand.v1").key_id == "card.chosen_hand.v1@deck=52,hand=7"  # the first set
    assert get_statement("card.match.v1") is MATCH


@settings(max_examples=25)
@given(st.integers(0, 2 ** 52 - 1), st.data())
def test_play_and_claim_agree_with_native(hand, data):
    cards = [c for c in range(52) if hand >> c & 1]
    if not cards:
        return
    chosen = data.draw(st.lists(st.sampled_from(cards), min_size=1, max_size=min(4, len(cards)), unique=True))
    play = sum(1 << c for c in chosen)
    system, witness = PLAY.build(play_inputs(hand, play))
    assert witness[1:6] == PLAY.public_values(play_inputs(hand, play))
    assert witness[4] == len(chosen)
    rank = data.draw(st.integers(0, 12))
    inp = {"play": play, "play_salt": 3, "rank_mask": rank_mask_52(rank), "context": 0}
    system, witness = CLAIM.build(inp)
    assert witness[3] == int(all(c % 13 == rank for c in chosen))
