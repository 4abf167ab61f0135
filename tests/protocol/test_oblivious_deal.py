"""The oblivious deal as a message exchange (zkbluff.protocol.oblivious_deal): honest runs
(7+7, and 2+2 with a 5-card board), re-deals, a cheating dealer caught by its own proof or
by the chooser's complaint, a cheating chooser refused, malformed messages refused with
nothing dealt, and the dealer's view independent of the chooser's positions."""
import json
import random

import pytest

from zkbluff.errors import (
    CommitmentMismatch, DealerFault, InvalidComplaint, InvalidProof, MalformedInput, UnsatisfiedConstraint,
)
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.groth16 import prove
from zkbluff.protocol.oblivious_deal import (
    DealShape, ObliviousChooser, ObliviousDealer, deal_context, deal_record, run_deal, verify_complaint,
    verify_deal,
)
from zkbluff.statements import get_statement
from zkbluff.statements.oblivious import chosen_hand_inputs

from oblivious_helpers import chi2_critical, independence_chi2, seeded_keys

STANDARD = DealShape(7, 7)
FIVE_UP = DealShape(2, 2, board=5)


def wire(msg):
    return json.loads(json.dumps(msg))


def parties(mcl, shape=STANDARD, session="match-1", round_no=0, dealer_cls=ObliviousDealer,
            chooser_cls=ObliviousChooser):
    return (dealer_cls(session, round_no, shape, seeded_keys, mcl),
            chooser_cls(session, round_no, shape, seeded_keys, mcl))


def mask(xs):
    return sum(1 << x for x in xs)


def cards_at(dealer, positions):
    return mask(dealer._cards[p] for p in positions)  # the test looks inside the dealer


@pytest.fixture(scope="module")
def standard_deal(mcl):
    d, c = parties(mcl)
    return d, c, run_deal(d, c)


@pytest.fixture(scope="module")
def five_up_deal(mcl):
    d, c = parties(mcl, FIVE_UP)
    return d, c, run_deal(d, c)


# ---------------------------------------------------------------- honest runs

def check_honest(d, c, record, shape):
    assert d.state == c.state == "done"
    assert d.commitments == c.commitments == [commit(card, s) for card, s in zip(d._cards, d._salts)]
    assert bin(c.hand).count("1") == shape.chooser_hand and bin(d.hand).count("1") == shape.dealer_hand
    assert c.hand == cards_at(d, c.secret_positions)            # the chooser got its positions' cards
    assert d.hand == cards_at(d, d.dealer_positions)            # the dealer's hand is its public positions
    assert c.board == d.board == cards_at(d, c.board_positions)
    assert c.hand & d.hand == 0 and (c.hand | d.hand) & c.board == 0
    assert set(c.secret_positions).isdisjoint(c.dealer_positions + c.board_positions)
    assert c.hand_commitment == commit(c.hand, c.hand_salt) == d.chooser_hand_commitment
    assert d.hand_commitment == commit(d.hand, d.hand_salt) == c.dealer_hand_commitment
    assert wire(record) == record
    out = verify_deal(wire(record), seeded_keys)
    assert out == {"board": c.board, "dealer_hand_commitment": d.hand_commitment,
                   "chooser_hand_commitment": c.hand_commitment}
    assert deal_record(c) == record  # both parties hold the same public record


def test_honest_standard_deal(standard_deal):
    d, c, record = standard_deal
    check_honest(d, c, record, STANDARD)
    assert c.board == 0 and record["board_positions"] == []


def test_honest_five_up_two_down_deal(five_up_deal):
    d, c, record = five_up_deal
    check_honest(d, c, record, FIVE_UP)
    assert bin(c.board).count("1") == 5
    assert [o["position"] for o in record["board_openings"]] == c.board_positions


def test_the_record_does_not_verify_when_changed(standard_deal):
    """Negative twins of verify_deal: each public part of the record is bound."""
    _, c, record = standard_deal
    other = [p for p in range(52) if p not in record["dealer_positions"]][0]
    changes = {
        "chooser hand commitment": ("chooser_hand", {**record["chooser_hand"], "commitment": "5"}, InvalidProof),
        "dealer hand commitment": ("dealer_hand", {**record["dealer_hand"], "commitment": "5"}, InvalidProof),
        "a dealer position": ("dealer_positions", [other] + record["dealer_positions"][1:], InvalidProof),
        "a commitment": ("commitments", ["1"] + record["commitments"][1:], InvalidProof),
        "the round": ("round", 1, InvalidProof),
        "the session": ("session", "match-2", InvalidProof),
        "the shape": ("shape", {**record["shape"], "chooser_hand": 5}, InvalidProof),
    }
    for name, (key, value, error) in changes.items():
        with pytest.raises(error):
            verify_deal({**record, key: value}, seeded_keys)
            pytest.fail(f"verify_deal accepted a record with {name} changed")


def test_a_wrong_board_opening_fails_the_record(five_up_deal):
    _, _, record = five_up_deal
    openings = [dict(o) for o in record["board_openings"]]
    openings[2]["salt"] = str(int(openings[2]["salt"]) ^ 1)
    with pytest.raises(CommitmentMismatch, match="board opening"):
        verify_deal({**record, "board_openings": openings}, seeded_keys)


def test_a_redeal_is_fresh_and_bound_to_its_round(mcl, standard_deal):
    d0, c0, record0 = standard_deal
    d1, c1 = parties(mcl, round_no=1)
    commit1 = wire(d1.commit())
    assert commit1["commitments"] != record0["commitments"]
    assert deal_context("match-1", 0, "permutation") != deal_context("match-1", 1, "permutation")
    with pytest.raises(MalformedInput, match="round 0, expected session 'match-1' round 1"):
        c1.choose(wire(d0.messages["commit"]))  # a replayed round-0 commit
    assert c1.state == "new"
    hand = c1.finish(wire(d1.transfer(wire(c1.choose(commit1)))))
    d1.accept(wire(hand))
    verify_deal(deal_record(d1), seeded_keys)
    assert d1.state == c1.state == "done"


# ---------------------------------------------------------------- a cheating dealer

def test_a_dealer_with_a_duplicate_card_is_caught_by_its_own_proof(mcl):
    d, c = parties(mcl)
    d._cards[5] = d._cards[6]  # a non-permutation (its commitments would follow the cards)
    with pytest.raises(UnsatisfiedConstraint, match="permutation/equal"):
        d.commit()
    assert d.state == "new" and d.commitments == []


def test_a_proof_for_another_deck_is_refused(mcl, standard_deal):
    """The commitments are bound to the permutation proof: a dealer who swaps two
    positions' commitments after proving (or replays another deck's proof) is refused."""
    d, _, _ = standard_deal
    msg = wire(d.messages["commit"])
    coms = msg["commitments"]
    msg["commitments"] = [coms[1], coms[0]] + coms[2:]
    c = ObliviousChooser("match-1", 0, STANDARD, seeded_keys, mcl)
    with pytest.raises(InvalidProof, match="permutation proof"):
        c.choose(msg)
    assert c.state == "new"
    c.choose(wire(d.messages["commit"]))  # positive twin


def corrupting_dealer(mcl, corrupt):
    """A dealer whose OT payloads pass through ``corrupt(payloads) -> payloads``."""
    d, c = parties(mcl)
    respond = d._ot.respond
    d._ot.respond = lambda request, payloads: respond(request, corrupt(list(payloads)))
    return d, c


def wrong_salts(payloads):
    return [p[:-1] + bytes([p[-1] ^ 1]) for p in payloads]


def test_a_wrong_opening_is_caught_and_the_complaint_convinces_a_third_party(mcl):
    d, c = corrupting_dealer(mcl, wrong_salts)
    choose = c.choose(wire(d.commit()))
    transfer = wire(d.transfer(wire(choose)))
    with pytest.raises(DealerFault, match="does not match its commitment") as info:
        c.finish(transfer)
    assert c.state == "chosen" and c.hand == 0  # nothing dealt
    complaint = wire(info.value.complaint)
    assert "does not match its commitment" in verify_complaint(complaint, mcl)
    # negative twins: a lying reveal, and the same complaint against an honest transfer
    lie = {**complaint, "reveal": {**complaint["reveal"], "choice": (complaint["reveal"]["choice"] + 1) % 52}}
    with pytest.raises(InvalidComplaint, match="does not open request"):
        verify_complaint(lie, mcl)


def test_a_complaint_against_an_honest_dealer_is_invalid(mcl, standard_deal):
    d, c, _ = standard_deal
    complaint = wire(c._complaint(c.messages["transfer"], c._ot.reveal(3)))
    with pytest.raises(InvalidComplaint, match="is correct"):
        verify_complaint(complaint, mcl)
    board_complaint = wire(c._complaint(c.messages["transfer"], None))
    with pytest.raises(InvalidComplaint, match="every board opening matches"):
        verify_complaint(board_complaint, mcl)


def test_a_ciphertext_that_does_not_decrypt_is_a_provable_fault(mcl):
    d, c = parties(mcl)
    choose = c.choose(wire(d.commit()))
    transfer = wire(d.transfer(wire(choose)))
    rows = transfer["ot"]["ciphertexts"]
    rows[4] = ["00" * 49] * 52  # garbage for every position of transfer 4
    with pytest.raises(DealerFault, match="transfer 4") as info:
        c.finish(transfer)
    assert "does not decrypt" in verify_complaint(wire(info.value.complaint), mcl)


def test_a_wrong_board_opening_is_caught_with_a_complaint(mcl):
    d, c = parties(mcl, FIVE_UP)
    choose = c.choose(wire(d.commit()))
    transfer = wire(d.transfer(wire(choose)))
    transfer["board_openings"][0]["card"] = (transfer["board_openings"][0]["card"] + 1) % 52
    with pytest.raises(DealerFault, match="board opening") as info:
        c.finish(transfer)
    assert "board opening" in verify_complaint(wire(info.value.complaint), mcl)
    assert c.state == "chosen"


def test_a_dealer_hand_proof_that_fails_is_refused(mcl, standard_deal):
    d, c = parties(mcl)
    choose = c.choose(wire(d.commit()))
    transfer = wire(d.transfer(wire(choose)))
    transfer["dealer_hand"]["commitment"] = str(commit(1, 2))
    with pytest.raises(InvalidProof, match="dealer's hand proof"):
        c.finish(transfer)
    assert c.state == "chosen"


# ---------------------------------------------------------------- a cheating chooser

class PeekingChooser(ObliviousChooser):
    """Fetches one of the dealer's positions through the OT instead of its own."""

    def arrange(self):
        secret, dealer, board = super().arrange()
        return [dealer[0]] + secret[1:], dealer, board


class RepeatingChooser(ObliviousChooser):
    """Fetches the same position twice."""

    def arrange(self):
        secret, dealer, board = super().arrange()
        return [secret[0]] + secret[:-1], dealer, board


@pytest.mark.parametrize("cls, constraint", [(PeekingChooser, "not_excluded"),
                                             (RepeatingChooser, "distinct_positions")])
def test_a_chooser_cannot_prove_a_hand_from_positions_it_may_not_hold(mcl, cls, constraint):
    d, c = parties(mcl, chooser_cls=cls)
    transfer = wire(d.transfer(wire(c.choose(wire(d.commit())))))
    with pytest.raises(UnsatisfiedConstraint, match=constraint):
        c.finish(transfer)


def test_a_forged_chooser_proof_is_refused_by_the_dealer(mcl):
    """A chooser that fetched a dealer position and proves its hand against a smaller
    excluded mask: the dealer checks against the real one and refuses."""
    d, c = parties(mcl, chooser_cls=PeekingChooser)
    transfer = wire(d.transfer(wire(c.choose(wire(d.commit())))))
    payloads = c._ot.receive(transfer["ot"])
    openings = [(p, pl[0], int.from_bytes(pl[1:], "big")) for p, pl in zip(c.secret_positions, payloads)]
    stmt = get_statement(STANDARD.hand_key(7))
    excluded = mask(c.dealer_positions[1:])  # leaves out the position it peeked at
    inputs = chosen_hand_inputs(c.commitments, openings, 99, excluded, 0, deal_context("match-1", 0, "chooser_hand"))
    _, witness = stmt.build(inputs)
    proof = prove(seeded_keys(stmt.key_id), witness, backend=mcl)
    hand = {"type": "oblivious.hand", "version": 1, "session": "match-1", "round": 0,
            "commitment": str(commit(mask(o[1] for o in openings), 99)), "proof": proof.to_json()}
    with pytest.raises(InvalidProof, match="chooser's hand proof"):
        d.accept(wire(hand))
    assert d.state == "transferred"


# ---------------------------------------------------------------- malformed messages

OFF_CURVE = ((1).to_bytes(32, "big") + (3).to_bytes(32, "big")).hex()


def test_malformed_commit_messages_are_refused_and_nothing_changes(mcl, standard_deal):
    d0, _, _ = standard_deal
    good = wire(d0.messages["commit"])
    c = ObliviousChooser("match-1", 0, STANDARD, seeded_keys, mcl)
    bad = {
        "an off-curve A": ({**good, "ot": {"A": OFF_CURVE}}, "not on the curve"),
        "infinity as A": ({**good, "ot": {"A": "00" * 64}}, "infinity"),
        "a short A": ({**good, "ot": {"A": good["ot"]["A"][:-2]}}, "expected 128 hex digits"),
        "51 commitments": ({**good, "commitments": good["commitments"][:51]}, "expected a list of 52"),
        "a commitment >= r": ({**good, "commitments": [str(r)] + good["commitments"][1:]}, "below r"),
        "another shape": ({**good, "shape": FIVE_UP.to_json()}, "shape"),
        "another type": ({**good, "type": "oblivious.choose"}, "expected type 'oblivious.commit'"),
        "no proof": ({k: v for k, v in good.items() if k != "proof"}, "missing field"),
        "a proof point off the curve": ({**good, "proof": {**good["proof"], "pi_a": ["1", "3", "1"]}},
                                        "not on the curve"),
    }
    for name, (msg, message) in bad.items():
        with pytest.raises(MalformedInput, match=message):
            c.choose(msg)
        assert c.state == "new" and c.commitments == [], name
    c.choose(good)  # the untouched message still works
    assert c.state == "chosen"


def test_malformed_choose_messages_are_refused_and_nothing_is_sent(mcl):
    d, c = parties(mcl)
    choose = wire(c.choose(wire(d.commit())))
    dp = choose["dealer_positions"]
    free = [p for p in range(52) if p not in dp]
    bad = {
        "an off-curve B": ({**choose, "ot": {"B": [OFF_CURVE] + choose["ot"]["B"][1:]}}, "not on the curve"),
        "infinity as B": ({**choose, "ot": {"B": ["00" * 64] + choose["ot"]["B"][1:]}}, "infinity"),
        "a long B": ({**choose, "ot": {"B": [choose["ot"]["B"][0] + "00"] + choose["ot"]["B"][1:]}},
                     "expected 128 hex digits"),
        "six requests": ({**choose, "ot": {"B": choose["ot"]["B"][:6]}}, "expected 7 entries, got 6"),
        "six dealer positions": ({**choose, "dealer_positions": dp[:6]}, "expected a list of 7 positions"),
        "a repeated dealer position": ({**choose, "dealer_positions": [dp[0]] + dp[:6]}, "repeat"),
        "a dealer position past the deck": ({**choose, "dealer_positions": [52] + dp[1:]}, "0..51"),
        "a board in a 7+7 deal": ({**choose, "board_positions": free[:1]}, "expected a list of 0 positions"),
        "another round": ({**choose, "round": 3}, "round 3"),
    }
    for name, (msg, message) in bad.items():
        with pytest.raises(MalformedInput, match=message):
            d.transfer(msg)
        assert d.state == "committed" and not d._ot.answered and d.hand == 0, name
    hand = c.finish(wire(d.transfer(choose)))  # the honest message still completes the deal
    d.accept(wire(hand))


def test_overlapping_board_and_dealer_positions_are_refused(mcl):
    d, c = parties(mcl, FIVE_UP)
    choose = wire(c.choose(wire(d.commit())))
    msg = {**choose, "board_positions": sorted([choose["dealer_positions"][0]] + choose["board_positions"][1:])}
    with pytest.raises(MalformedInput, match="overlap"):
        d.transfer(msg)


def test_messages_out_of_order_are_refused(mcl, standard_deal):
    d0, c0, _ = standard_deal
    d, c = parties(mcl)
    with pytest.raises(MalformedInput, match="after commit"):
        d.transfer(wire(c0.messages["choose"]))
    with pytest.raises(MalformedInput, match="after choose"):
        c.finish(wire(d0.messages["transfer"]))
    with pytest.raises(MalformedInput, match="commit\\(\\) after done"):
        d0.commit()


def test_a_malformed_ciphertext_list_is_refused_and_nothing_dealt(mcl):
    d, c = parties(mcl)
    transfer = wire(d.transfer(wire(c.choose(wire(d.commit())))))
    bad = {**transfer, "ot": {"ciphertexts": transfer["ot"]["ciphertexts"][:6]}}
    with pytest.raises(MalformedInput, match="expected 7 entries, got 6"):
        c.finish(bad)
    assert c.state == "chosen" and c.hand == 0
    d.accept(wire(c.finish(transfer)))


# ---------------------------------------------------------------- the dealer's view

def chooser_views(mcl, commit_msg, n, cls=ObliviousChooser):
    """n choose steps against one commit: (secret positions, the choose message)."""
    out = []
    for _ in range(n):
        c = cls("match-1", 0, STANDARD, seeded_keys, mcl)
        msg = c.choose(commit_msg)
        out.append((c.secret_positions, msg))
    return out


def offsets_chi2(views) -> float:
    """Chi-square of (dealer position - secret position) mod 52 against uniform on 1..51."""
    counts = [0] * 52
    for secret, msg in views:
        for p in secret:
            for q in msg["dealer_positions"]:
                counts[(q - p) % 52] += 1
    assert counts[0] == 0
    total = sum(counts)
    return sum((k - total / 51) ** 2 / (total / 51) for k in counts[1:])


def b_by_choice_chi2(views) -> float:
    pairs = [(p, int(x[:64], 16) % 4) for secret, msg in views for p, x in zip(secret, msg["ot"]["B"])]
    return independence_chi2(pairs, 52, 4)


class AdjacentChooser(ObliviousChooser):
    """Leaky: names the dealer's positions right after its own."""

    def arrange(self):
        secret = random.sample(range(0, 52, 2), 7)
        return secret, sorted((p + 1) % 52 for p in secret), []


def test_the_dealers_view_is_independent_of_the_choosers_positions(mcl, standard_deal):
    """Everything the dealer receives before the hand proof (the public positions and the
    OT requests) over many choose steps: the dealer's positions sit at uniform offsets
    from the chooser's secret ones, and the OT points do not depend on the positions.
    (The hand message is a fresh commitment and a zero-knowledge proof.)"""
    d, _, _ = standard_deal
    views = chooser_views(mcl, wire(d.messages["commit"]), 300)
    assert offsets_chi2(views) < chi2_critical(50)
    assert b_by_choice_chi2(views) < chi2_critical(51 * 3)


def test_the_view_test_catches_a_leaky_chooser(mcl, standard_deal):
    d, _, _ = standard_deal
    views = chooser_views(mcl, wire(d.messages["commit"]), 50, AdjacentChooser)
    assert offsets_chi2(views) > chi2_critical(50)


def test_malformed_records_and_complaints_are_refused(standard_deal):
    d, c, record = standard_deal
    for bad, message in (({k: v for k, v in record.items() if k != "chooser_hand"}, "missing field"),
                         ({**record, "version": 2}, "expected version 1"),
                         ({**record, "type": "oblivious.hand"}, "expected type 'oblivious.record'"),
                         ({**record, "shape": {"dealer_hand": 30, "chooser_hand": 30, "board": 0, "deck": 52}},
                          "do not fit"),
                         ({**record, "dealer_positions": record["dealer_positions"][:6]}, "expected a list of 7"),
                         ("not a record", "expected an object")):
        with pytest.raises(MalformedInput, match=message):
            verify_deal(bad, seeded_keys)
    complaint = wire(c._complaint(c.messages["transfer"], c._ot.reveal(0)))
    for bad, message in (({**complaint, "reveal": {"transfer": 0, "choice": 52, "b": "1"}}, "choice in 0..51"),
                         ({**complaint, "reveal": {"transfer": 9, "choice": 1, "b": "1"}}, "transfer 9"),
                         ({**complaint, "commit": {**complaint["commit"], "round": 4}}, "round 4"),
                         ({k: v for k, v in complaint.items() if k != "choose"}, "missing field")):
        with pytest.raises(MalformedInput, match=message):
            verify_complaint(bad)


def test_deal_shapes():
    assert DealShape.from_json(FIVE_UP.to_json()) == FIVE_UP
    for bad in ({"dealer_hand": 7}, {"dealer_hand": True, "chooser_hand": 7, "board": 0, "deck": 52},
                {"dealer_hand": 0, "chooser_hand": 7, "board": 0, "deck": 52}):
        with pytest.raises(MalformedInput):
            DealShape.from_json(bad)
    with pytest.raises(ValueError):
        DealShape(26, 26, board=1)


# ---------------------------------------------------------------- two commits answered for one round

def _seeded_chooser(mcl, seed=b"s" * 32):
    from zkbluff.protocol.oblivious_deal import DealRandom
    return ObliviousChooser("match-1", 0, STANDARD, seeded_keys, mcl, rng=DealRandom(seed))


def test_attack_two_commits_answered_for_one_round_do_not_link_the_positions(mcl, standard_deal):
    """The attack (issue 26 item 6): a chooser that keeps only its seed (it lost its
    transcript) is shown a second dealer commit for a round it answered. Its positions and
    OT blinders came from the seed, the match and the round only, so both answers carried
    the same arrangement and the same blinded points: the house learned every position.
    Now they depend on the commit answered: nothing links the two answers."""
    d0 = standard_deal[0]
    d1 = ObliviousDealer("match-1", 0, STANDARD, seeded_keys, mcl)  # another permutation, same round
    first, second = wire(d0.messages["commit"]), wire(d1.commit())
    assert first["commitments"] != second["commitments"]
    a, b = _seeded_chooser(mcl), _seeded_chooser(mcl)
    ca, cb = a.choose(first), b.choose(second)
    assert a.secret_positions != b.secret_positions
    assert (ca["dealer_positions"], ca["board_positions"]) != (cb["dealer_positions"], cb["board_positions"])
    # the blinders: with the same b_i, B_i - B'_i = c_i (A - A') gives c_i to a dealer that knows a and a'
    assert set(a._ot._b).isdisjoint(b._ot._b) and set(ca["ot"]["B"]).isdisjoint(cb["ot"]["B"])


def test_the_same_commit_answered_again_from_the_seed_gives_the_same_answer(mcl, standard_deal):
    """Twin: a seat rebuilds its side from its seed and the transcript, so the same commit
    gets the same answer, positions and blinders alike."""
    first = wire(standard_deal[0].messages["commit"])
    assert _seeded_chooser(mcl).choose(first) == _seeded_chooser(mcl).choose(first)
    assert _seeded_chooser(mcl).choose(first) != _seeded_chooser(mcl, b"t" * 32).choose(first)
