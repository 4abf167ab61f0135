"""The house-blind deal's steps (zkbluff.protocol.house_blind, .elgamal): a whole deal
verifies and each seat opens exactly its own cards; a wrong decryption share, a share for
another card, a rogue key, a missing step are each refused by a named check naming the seat;
a coalition of every seat but one learns nothing of the honest seat's permutation."""
from __future__ import annotations

import dataclasses
import json

import pytest

from zkbluff.curve import get_backend
from zkbluff.errors import InvalidShare, InvalidShuffle
from zkbluff.protocol.elgamal import G, Deck, KeyAnnouncement, card_lookup, initial_deck, joint_key
from zkbluff.protocol.house_blind import (
    BOARD,
    UNDEALT,
    DealLayout,
    DealRecord,
    HouseBlindSeat,
    run_deal,
    verify_deal,
)
from zkbluff.protocol.oblivious_deal import DealRandom
from zkbluff.protocol.shuffle import shuffle_with


@pytest.fixture(scope="module")
def cheat6():
    """A 6-seat, 52-card deal, every seat honest."""
    return run_deal(DealLayout.hands(6, 52), "match-6", rng=DealRandom(b"cheat6" * 6))


@pytest.fixture(scope="module")
def bluffers4():
    """4 seats, a 20-card deck, 4 cards each, 2 on the board, 2 undealt."""
    return run_deal(DealLayout.hands(4, 20, hand=4, board=2), "match-4", rng=DealRandom(b"bluff4" * 6))


def hands_of(seats, record, deck):
    keys = [k.h for k, _prev in record.keys]
    return [seat.open_hand(deck, record.shares, keys) for seat in seats]


def copy_record(record: DealRecord) -> DealRecord:
    return DealRecord(record.match_id, record.round_no, record.layout, list(record.keys), list(record.shuffles),
                      [(list(s), prev) for s, prev in record.shares])


def test_six_seat_deal_verifies_and_every_seat_opens_its_own_cards(cheat6):
    seats, record = cheat6
    opening = verify_deal(record)
    hands = hands_of(seats, record, opening.deck)
    assert [sorted(h) for h in hands] == [record.layout.positions_of(k) for k in range(6)]
    assert sorted(c for h in hands for c in h.values()) == list(range(52))


def test_deal_record_json_round_trip_verifies(cheat6):
    _seats, record = cheat6
    again = DealRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert verify_deal(again).deck == verify_deal(record).deck


def test_bluffers_deal_opens_the_board_to_all_and_no_share_of_an_undealt_card(bluffers4):
    seats, record = bluffers4
    opening = verify_deal(record)
    board = [i for i, o in enumerate(record.layout.owners) if o == BOARD]
    undealt = {i for i, o in enumerate(record.layout.owners) if o == UNDEALT}
    assert sorted(opening.board) == board and len(set(opening.board.values())) == 2
    assert all(s.card not in undealt for shares, _ in record.shares for s in shares)
    hands = hands_of(seats, record, opening.deck)
    dealt = [c for h in hands for c in h.values()] + list(opening.board.values())
    assert len(set(dealt)) == 18


def test_a_wrong_decryption_share_is_refused_and_names_its_seat(bluffers4):
    _seats, record = bluffers4
    bad = copy_record(record)
    shares, prev = bad.shares[2]
    shares[1] = dataclasses.replace(shares[1], D=get_backend().g1_add(shares[1].D, G))
    bad.shares[2] = (shares, prev)
    with pytest.raises(InvalidShare) as err:
        verify_deal(bad)
    assert (err.value.check, err.value.seat, err.value.card) == ("share.proof", 2, shares[1].card)
    verify_deal(record)  # its twin


def test_a_share_of_another_card_in_its_place_is_refused_by_the_card_check(bluffers4):
    _seats, record = bluffers4
    bad = copy_record(record)
    shares, prev = bad.shares[1]
    shares[0], shares[1] = shares[1], shares[0]
    with pytest.raises(InvalidShare) as err:
        verify_deal(bad)
    assert (err.value.check, err.value.seat) == ("share.card", 1)


def test_a_share_relabelled_as_another_cards_is_refused_by_its_proof(bluffers4):
    """A valid share of position j, labelled as the share of position i it should be."""
    _seats, record = bluffers4
    bad = copy_record(record)
    shares, prev = bad.shares[0]
    shares[0] = dataclasses.replace(shares[1], card=shares[0].card)
    with pytest.raises(InvalidShare) as err:
        verify_deal(bad)
    assert (err.value.check, err.value.seat) == ("share.proof", 0)


def test_a_share_made_for_another_line_is_refused(bluffers4):
    _seats, record = bluffers4
    bad = copy_record(record)
    bad.shares[3] = (bad.shares[3][0], "another-prev-hash")
    with pytest.raises(InvalidShare) as err:
        verify_deal(bad)
    assert (err.value.check, err.value.seat) == ("share.proof", 3)


def test_withheld_share_and_missing_shuffle_name_the_seat(bluffers4):
    _seats, record = bluffers4
    short = copy_record(record)
    short.shares[2] = (short.shares[2][0][:-1], short.shares[2][1])
    with pytest.raises(InvalidShare) as err:
        verify_deal(short)
    assert (err.value.check, err.value.seat) == ("share.missing", 2)
    no_shuffle = copy_record(record)
    no_shuffle.shuffles = no_shuffle.shuffles[:3]
    no_shuffle.shares = []
    with pytest.raises(InvalidShuffle) as err2:
        verify_deal(no_shuffle)
    assert (err2.value.check, err2.value.seat) == ("shuffle.missing", 3)


def test_a_seat_that_skips_the_shuffle_by_passing_the_deck_on_is_refused(bluffers4):
    _seats, record = bluffers4
    bad = copy_record(record)
    before = bad.shuffles[0][0]
    bad.shuffles[1] = (before, bad.shuffles[1][1], bad.shuffles[1][2])
    with pytest.raises(InvalidShuffle) as err:
        verify_deal(bad)
    assert err.value.seat == 1


def test_a_rogue_key_without_its_proof_of_knowledge_is_refused(bluffers4):
    """Seat 3 announces h' = x'G - (h0 + h1 + h2): the joint key would be x'G, its alone."""
    _seats, record = bluffers4
    be = get_backend()
    others = be.g1_msm([k.h for k, _ in record.keys[:3]], [1, 1, 1])
    rogue = be.g1_add(be.g1_mul(G, 777), be.g1_neg(others))
    ann, prev = record.keys[3]
    bad = copy_record(record)
    bad.keys[3] = (KeyAnnouncement(rogue, ann.T, ann.z), prev)
    with pytest.raises(InvalidShare) as err:
        verify_deal(bad)
    assert (err.value.check, err.value.seat) == ("key.proof", 3)


# ---------------------------------------------------------------------------- the coalition's view

LAYOUT = DealLayout.hands(3, 12, hand=2)  # seats 0, 1, 2: positions 0..5 dealt round-robin, 6..11 undealt
HONEST = 1
SIGMA = [11, 3, 7, 0, 9, 1, 5, 10, 2, 8, 4, 6]  # the coalition's own permutations: chosen, not drawn
SIGMA0 = [4, 9, 1, 7, 0, 11, 6, 2, 10, 5, 3, 8]
PI1 = [6, 0, 9, 3, 11, 1, 8, 4, 2, 10, 7, 5]


def world(pi, leak: str = ""):
    """A deal in which seats 0 and 2 (the coalition, the house among them) act with fixed
    randomness and the honest seat 1 shuffles by ``pi``. ``leak`` plants a bug in the honest
    seat to show the view's check would see it: ``"key"`` (its key left out of the joint
    key), ``"share"`` (it shares its own cards too), ``"rerandomise"`` (it only permutes)."""
    be = get_backend()
    seats = [HouseBlindSeat(k, LAYOUT, "m", 0, DealRandom(bytes([k + 1]) * 32)) for k in range(3)]
    anns = [s.key_message(f"key-{s.seat}") for s in seats]
    H = joint_key([a.h for i, a in enumerate(anns) if not (leak == "key" and i == HONEST)], be)
    decks = [initial_deck(12, H)]
    for seat, order in ((0, SIGMA0), (1, pi), (2, SIGMA)):
        if seat == HONEST and leak == "rerandomise":
            decks.append(Deck(tuple(decks[-1].A[j] for j in order), tuple(decks[-1].B[j] for j in order)))
            continue
        out, _proof, _ = shuffle_with(decks[-1], H, seats[seat].ctx("shuffle", f"s{seat}"), order, seats[seat].rng)
        decks.append(out)
    final = decks[-1]
    shares = [s.share_message(final, f"sh{s.seat}") for s in seats]
    hand = seats[HONEST].open_hand(final, messages(shares), [a.h for a in anns]) if leak != "key" else {}
    if leak == "share":
        shares[HONEST] = shares[HONEST] + honest_own_shares(seats[HONEST], final)
    return seats, decks, shares, hand


def messages(shares):
    """The share lines as a record holds them: (shares, prev hash) in seat order."""
    return [(sh, f"sh{k}") for k, sh in enumerate(shares)]


def own_cards(seat, deck, shares, seats):
    return seat.open_hand(deck, messages(shares), [s.announcement.h for s in seats])


def honest_own_shares(seat, deck):
    from zkbluff.protocol.elgamal import make_shares

    return make_shares(seat.key, seat.seat, seat.announcement.h, deck, LAYOUT.positions_of(seat.seat),
                       seat.ctx("shares", "x"))


def coalition_knowledge(seats, decks, shares):
    """Everything the coalition (seats 0 and 2, pooling their keys) can compute about cards
    from its view: every ciphertext of every deck decrypted with its keys and every published
    share of that position; and which outputs of the honest step it can link to inputs (a
    ciphertext or a partial decryption that reappears)."""
    be = get_backend()
    x = sum(seats[k].key.x for k in range(3) if k != HONEST)
    lookup = card_lookup(12)
    published: dict[int, list] = {}
    for seat_shares in shares:
        for s in seat_shares:
            if s.seat == HONEST:
                published.setdefault(s.card, []).append(s.D)
    known = []
    partial_of = []
    for k, deck in enumerate(decks):
        partial = [be.g1_add(B, be.g1_neg(be.g1_mul(A, x))) for A, B in zip(deck.A, deck.B)]
        partial_of.append(partial)
        for i, P in enumerate(partial):
            if k == len(decks) - 1:
                for D in published.get(i, []):
                    P = be.g1_add(P, be.g1_neg(D))
            known.append((k, i, lookup.get(P)))
    step_in, step_out = HONEST, HONEST + 1
    links = {(i, j) for i in range(12) for j in range(12)
             if decks[step_out].A[i] == decks[step_in].A[j] or partial_of[step_out][i] == partial_of[step_in][j]}
    return known, links


def second_permutation():
    """PI1 with the two outputs swapped that the coalition's last shuffle sends to the honest
    seat's position 1 and to the undealt position 6: the honest seat's hand differs by one card,
    every card the coalition holds stays the same."""
    pi2 = list(PI1)
    a, b = SIGMA[1], SIGMA[6]
    pi2[a], pi2[b] = pi2[b], pi2[a]
    return pi2


@pytest.mark.parametrize("leak", ["", "key", "share", "rerandomise"])
def test_coalition_of_all_seats_but_one_learns_nothing_of_the_honest_permutation(leak):
    one = world(PI1, leak)
    two = world(second_permutation(), leak)
    if not leak:
        assert one[3] != two[3] and sorted(one[3]) == sorted(two[3]) == [1, 4]  # the honest hands differ
        for k in (0, 2):  # the coalition's own cards are the same in both worlds
            assert own_cards(one[0][k], one[1][-1], one[2], one[0]) == own_cards(two[0][k], two[1][-1], two[2], two[0])
    view_one, view_two = coalition_knowledge(*one[:3]), coalition_knowledge(*two[:3])
    if leak:
        assert view_one != view_two  # the check sees each planted leak
    else:
        assert view_one == view_two
        assert view_one[1] == set()
        final = len(one[1]) - 1
        assert all(card is None for k, i, card in view_one[0] if k == final and LAYOUT.owners[i] in (HONEST, UNDEALT))
        assert all(card is None for k, i, card in view_one[0] if 0 < k < final)  # no shuffled deck decrypts


@pytest.mark.parametrize("change", [
    {"seats": 7}, {"seats": True}, {"owners": [0, 1, True, 3]}, {"owners": [0, 9]}, {"round": "0"},
    {"match": 5}, {"keys": "none"},
], ids=["seven-seats", "bool-seats", "bool-owner", "owner-outside", "round-string", "match-int", "keys-string"])
def test_malformed_deal_record_is_refused_before_any_check(bluffers4, change):
    from zkbluff.errors import MalformedInput

    _seats, record = bluffers4
    obj = dict(record.to_json(), **change)
    with pytest.raises(MalformedInput):
        DealRecord.from_json(obj)
    DealRecord.from_json(record.to_json())  # its twin


def test_a_seat_refuses_a_wrong_share_of_its_own_card_and_names_the_sender(bluffers4):
    """Unchecked, a share off by G opens to the card below the dealt one (the attack is
    real: shown with the unchecked opening); the seat checks first and names seat 1."""
    from zkbluff.protocol.elgamal import open_cards

    seats, record = bluffers4
    deck = record.shuffles[-1][0]
    keys = [k.h for k, _ in record.keys]
    mine = record.layout.positions_of(0)[0]
    bad = copy_record(record)
    k = next(i for i, s in enumerate(bad.shares[1][0]) if s.card == mine)
    bad.shares[1][0][k] = dataclasses.replace(bad.shares[1][0][k], D=get_backend().g1_add(bad.shares[1][0][k].D, G))
    true_card = seats[0].open_hand(deck, record.shares, keys)[mine]
    unchecked = open_cards(seats[0].key, deck, {mine: [sh[0][[s.card for s in sh[0]].index(mine)]
                                                       for sh in bad.shares[1:]]})
    assert true_card > 0 and unchecked[mine] == true_card - 1  # D + G takes one G more: M_c - G = M_(c-1)
    with pytest.raises(InvalidShare) as err:
        seats[0].open_hand(deck, bad.shares, keys)
    assert (err.value.check, err.value.seat, err.value.card) == ("share.proof", 1, mine)


def test_a_key_whose_proof_does_not_verify_is_refused_though_the_rest_of_the_deal_does(bluffers4):
    """The right key with a wrong proof of knowledge (every shuffle and share was made under it)."""
    _seats, record = bluffers4
    ann, prev = record.keys[2]
    bad = copy_record(record)
    bad.keys[2] = (dataclasses.replace(ann, z=(ann.z + 1)), prev)
    with pytest.raises(InvalidShare) as err:
        verify_deal(bad)
    assert (err.value.check, err.value.seat) == ("key.proof", 2)
    replayed = copy_record(record)
    replayed.keys[2] = (ann, "another-prev-hash")
    with pytest.raises(InvalidShare):
        verify_deal(replayed)


def test_verify_shares_names_a_share_in_the_wrong_place(bluffers4):
    from zkbluff.protocol.elgamal import verify_shares
    from zkbluff.protocol.house_blind import expected_shares, step_context

    _seats, record = bluffers4
    keys = [k.h for k, _ in record.keys]
    deck = record.shuffles[-1][0]
    shares, prev = record.shares[1]
    expected = expected_shares(record.layout, 1)

    def ctx_of(seat):
        return step_context(record.match_id, record.round_no, seat, "shares", prev)

    verify_shares(shares, keys, deck, expected, ctx_of)
    swapped = [shares[1], shares[0]] + list(shares[2:])
    with pytest.raises(InvalidShare) as err:
        verify_shares(swapped, keys, deck, expected, ctx_of)
    assert (err.value.check, err.value.seat, err.value.card) == ("share.card", 1, expected[0][1])


def test_the_reference_backend_makes_the_same_deal_and_verifies_it():
    """pyecc (the reference) and mcl give the same record for the same randomness, and each
    verifies the other's (4 cards, 2 seats: pyecc is slow)."""
    layout = DealLayout.hands(2, 4, hand=1, board=1)
    records = {}
    for name in ("pyecc", "mcl"):
        be = get_backend(name)
        _seats, record = run_deal(layout, "ref", rng=DealRandom(b"reference" * 4), backend=be)
        records[name] = record
    assert records["pyecc"].to_json() == records["mcl"].to_json()
    assert verify_deal(records["mcl"], get_backend("pyecc")).board == verify_deal(records["pyecc"], get_backend("mcl")).board
    bad = copy_record(records["mcl"])
    bad.shares[0][0][0] = dataclasses.replace(bad.shares[0][0][0], z=bad.shares[0][0][0].z ^ 1)
    with pytest.raises(InvalidShare):
        verify_deal(bad, get_backend("pyecc"))
