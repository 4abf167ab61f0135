"""The house-blind deal's hand binding (zkbluff.protocol.hand_binding, zkbluff.groth16.committed,
card.hand_binding.v1 under its pinned key): every seat's hand commitment holds exactly the cards
opened to it, and a commitment holding a card not opened to its seat is refused by the named
check ``hand.binding`` (without the sigma proof a seat could commit any hand: the committed
Groth16 proof alone accepts it), as is each tamper in one place: a wrong card in the sigma
proof, a wrong blind, a D from another proof, another seat's positions, a D shifted onto
another hand commitment."""
from __future__ import annotations

import dataclasses
import json

import pytest

from zkbluff.curve import get_backend
from zkbluff.errors import InvalidShare, MalformedInput
from zkbluff.gadgets.native import commit
from zkbluff.groth16.committed import CommittedProof, commitment_bases, prove_committed, verify_committed
from zkbluff.protocol.hand_binding import (
    CHECK, HandMessage, context_scalar, hand_context, hand_message, prove_sigma, targets, verify_hands,
)
from zkbluff.protocol.house_blind import DealLayout, run_deal, verify_deal
from zkbluff.protocol.oblivious_deal import DealRandom
from zkbluff.statements import get_statement
from zkbluff.statements.keys import load_keys

KEY_ID = "card.hand_binding.v1@deck=52,hand=17"
N_COMMITTED = 18
PREV = "hand-prev"


@pytest.fixture(scope="module")
def deal():
    """Three seats, 17 cards each from 52 (one undealt), every seat honest, and each seat's
    honest hand message under the pinned key."""
    be = get_backend()
    stmt = get_statement(KEY_ID)
    pk = load_keys(KEY_ID)
    seats, record = run_deal(DealLayout.hands(3, 52, hand=17), "match-hand", rng=DealRandom(b"hand" * 8))
    opening = verify_deal(record, be)
    keys = [k.h for k, _ in record.keys]
    cards = {s.seat: s.open_hand(opening.deck, record.shares, keys) for s in seats}
    hands = {s.seat: (hand_message(s.key, keys[s.seat], s.seat, record, opening.deck, cards[s.seat],
                                   1000 + s.seat, stmt, pk, PREV, backend=be), PREV) for s in seats}
    return dict(stmt=stmt, pk=pk, seats=seats, record=record, deck=opening.deck, keys=keys, cards=cards,
                hands=hands, be=be)


def refused(d, hands, seat):
    with pytest.raises(InvalidShare) as exc:
        verify_hands(d["record"], d["deck"], hands, d["pk"].vk, N_COMMITTED, d["be"])
    assert exc.value.check == exc.value.code == CHECK
    assert exc.value.seat == seat
    return exc.value


def forged(d, seat, ordered_cards, blind=77, sigma_cards=None, sigma_blind=None, tgts=None):
    """Seat ``seat``'s hand message for ``ordered_cards`` (one per position, in deck order): an
    honest committed proof of those cards, and the sigma proof made with ``sigma_cards`` /
    ``sigma_blind`` (default: the same) against ``tgts`` (default: its own positions)."""
    stmt, pk, be, record = d["stmt"], d["pk"], d["be"], d["record"]
    ctx = hand_context(record, seat, PREV)
    inputs = {**{f"card{i}": c for i, c in enumerate(ordered_cards)}, "blind": blind, "hand_salt": 5,
              "context": context_scalar(ctx)}
    hc = stmt.complete(inputs)["hand_commitment"]
    cp = prove_committed(pk, stmt.witness(inputs), N_COMMITTED, be)
    sigma = prove_sigma(d["seats"][seat].key, d["keys"][seat], sigma_cards or ordered_cards,
                        blind if sigma_blind is None else sigma_blind, pk.vk, cp.d,
                        tgts or targets(record, d["deck"], seat), hc, ctx, backend=be)
    return HandMessage(hc, cp, sigma)


def own_cards(d, seat):
    return [d["cards"][seat][t.position] for t in targets(d["record"], d["deck"], seat)]


def undealt_card(d):
    dealt = {c for cs in d["cards"].values() for c in cs.values()}
    (card,) = set(range(52)) - dealt
    return card


def test_every_honest_hand_binds_and_commits_the_seats_own_cards(deal):
    verify_hands(deal["record"], deal["deck"], deal["hands"], deal["pk"].vk, N_COMMITTED, deal["be"])
    for seat, (msg, _prev) in deal["hands"].items():
        mask = sum(1 << c for c in deal["cards"][seat].values())
        assert msg.hand_commitment == commit(mask, 1000 + seat)


def test_a_hand_holding_a_card_not_opened_to_its_seat_is_refused(deal):
    """The attack: seat 1 swaps one of its cards for the undealt one. Its committed Groth16
    proof is honest for that hand (so the proof alone, all there was before the binding,
    accepts it); the sigma proof cannot tie those cards to what was opened to it."""
    cards = own_cards(deal, 1)
    cards[3] = undealt_card(deal)
    msg = forged(deal, 1, cards)
    ctx = hand_context(deal["record"], 1, PREV)
    verify_committed(deal["pk"].vk, [msg.hand_commitment, context_scalar(ctx)], msg.proof, N_COMMITTED)
    err = refused(deal, {**deal["hands"], 1: (msg, PREV)}, 1)
    assert "not the cards opened" in str(err)


def test_a_hand_holding_another_seats_card_is_refused(deal):
    cards = own_cards(deal, 2)
    cards[0] = own_cards(deal, 0)[5]
    refused(deal, {**deal["hands"], 2: (forged(deal, 2, cards), PREV)}, 2)


def test_a_wrong_card_in_the_sigma_proof_is_refused(deal):
    """D commits to the dealt cards; the sigma proof answers with one card changed."""
    cards = own_cards(deal, 0)
    wrong = list(cards)
    wrong[7] = (wrong[7] + 1) % 52
    refused(deal, {**deal["hands"], 0: (forged(deal, 0, cards, sigma_cards=wrong), PREV)}, 0)


def test_a_wrong_blind_in_the_sigma_proof_is_refused(deal):
    cards = own_cards(deal, 0)
    refused(deal, {**deal["hands"], 0: (forged(deal, 0, cards, blind=77, sigma_blind=78), PREV)}, 0)
    forged_ok = forged(deal, 0, cards, blind=77)  # (its twin: the same blind passes)
    verify_hands(deal["record"], deal["deck"], {0: (forged_ok, PREV)}, deal["pk"].vk, N_COMMITTED, deal["be"])


def test_a_d_from_another_proof_is_refused(deal):
    """Seat 0's message with D (and the proof) of a second honest proof of the same hand
    under another blind: the pairing and the sigma no longer answer the same D."""
    msg, _ = deal["hands"][0]
    other = forged(deal, 0, own_cards(deal, 0), blind=99)
    swapped_d = dataclasses.replace(msg, proof=CommittedProof(msg.proof.proof, other.proof.d))
    err = refused(deal, {**deal["hands"], 0: (swapped_d, PREV)}, 0)
    assert "hand proof does not verify" in str(err)
    swapped_proof = dataclasses.replace(msg, proof=other.proof)  # a valid (proof, D), not the sigma's D
    refused(deal, {**deal["hands"], 0: (swapped_proof, PREV)}, 0)


def test_another_seats_positions_are_refused(deal):
    """Seat 0 proves its own cards against seat 1's positions; and seat 0's valid message
    presented as seat 1's."""
    tgts1 = targets(deal["record"], deal["deck"], 1)
    msg = forged(deal, 0, own_cards(deal, 0), tgts=tgts1)
    refused(deal, {**deal["hands"], 0: (msg, PREV)}, 0)
    refused(deal, {**deal["hands"], 1: deal["hands"][0]}, 1)


def test_a_d_shifted_onto_another_hand_commitment_passes_the_pairing_but_not_the_sigma(deal):
    """Why the sigma proof must open D in the committed bases alone: D + t IC[1] makes the
    pairing accept hand commitment ``hc - t`` for a proof of ``hc``."""
    be, vk = deal["be"], deal["pk"].vk
    msg, _ = deal["hands"][0]
    t = 12345
    shifted_d = be.g1_add(msg.proof.d, be.g1_mul(vk.ic[1], t))
    shifted = HandMessage(msg.hand_commitment - t, CommittedProof(msg.proof.proof, shifted_d), msg.sigma)
    ctx = hand_context(deal["record"], 0, PREV)
    verify_committed(vk, [shifted.hand_commitment, context_scalar(ctx)], shifted.proof, N_COMMITTED, be)
    refused(deal, {0: (shifted, PREV)}, 0)


def test_a_message_bound_to_another_line_is_refused(deal):
    msg, _ = deal["hands"][2]
    refused(deal, {**deal["hands"], 2: (msg, "another-prev")}, 2)


def test_a_seat_with_another_hand_size_is_refused_before_any_group_work(deal):
    layout = DealLayout.hands(3, 52, hand=16)
    record = dataclasses.replace(deal["record"], layout=layout)
    with pytest.raises(InvalidShare) as exc:
        verify_hands(record, deal["deck"], {0: deal["hands"][0]}, deal["pk"].vk, N_COMMITTED)
    assert exc.value.check == CHECK and "16 positions" in str(exc.value)


def test_hand_message_json_round_trips_and_malformed_is_refused(deal):
    msg, _ = deal["hands"][1]
    back = HandMessage.from_json(json.loads(json.dumps(msg.to_json())), 17)
    assert back == msg
    verify_hands(deal["record"], deal["deck"], {1: (back, PREV)}, deal["pk"].vk, N_COMMITTED)
    obj = msg.to_json()
    with pytest.raises(MalformedInput):
        HandMessage.from_json({**obj, "hand_commitment": "x"}, 17)
    with pytest.raises(MalformedInput):
        HandMessage.from_json({**obj, "sigma": {**obj["sigma"], "zc": obj["sigma"]["zc"][:-1]}}, 17)
    with pytest.raises(MalformedInput):
        HandMessage.from_json(msg.to_json(), 16)


def test_committed_verification_refuses_d_at_infinity_and_wrong_counts(deal):
    msg, _ = deal["hands"][0]
    vk = deal["pk"].vk
    with pytest.raises(MalformedInput):
        verify_committed(vk, [msg.hand_commitment, 0], CommittedProof(msg.proof.proof, None), N_COMMITTED)
    with pytest.raises(MalformedInput):
        verify_committed(vk, [msg.hand_commitment], msg.proof, N_COMMITTED)
    with pytest.raises(MalformedInput):
        commitment_bases(vk, vk.n_public + 1)


def test_the_existing_key_layout_is_unchanged_for_committed_statements(deal):
    """The committed inputs are the key's last IC points: an ordinary key, the statement's
    disclosed inputs first."""
    stmt, vk = deal["stmt"], deal["pk"].vk
    assert stmt.disclosed == ("hand_commitment", "context")
    assert len(stmt.committed) == N_COMMITTED and vk.n_public == 2 + N_COMMITTED
    assert commitment_bases(vk, N_COMMITTED) == vk.ic[3:]


def test_a_hand_message_with_d_at_infinity_is_malformed(deal):
    msg, _ = deal["hands"][0]
    bad = dataclasses.replace(msg, proof=CommittedProof(msg.proof.proof, None))
    with pytest.raises(MalformedInput):
        verify_hands(deal["record"], deal["deck"], {0: (bad, PREV)}, deal["pk"].vk, N_COMMITTED)


def test_committed_inputs_must_be_the_last_public_inputs(deal):
    stmt = deal["stmt"]
    with pytest.raises(ValueError):
        dataclasses.replace(stmt, committed=("hand_commitment",))
    assert dataclasses.replace(stmt, committed=stmt.committed[1:]).disclosed == stmt.public[:3]
