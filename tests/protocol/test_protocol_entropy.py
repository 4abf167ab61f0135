"""The zk dealer's protocol pieces, tested as the attacks they stop: grinding (the dealer
commits first, late entropy refused), a wrong or missing sealed hand (a complaint any
verifier checks), an early timeout, and the seat's own checks of the deal proof."""
import json

import pytest

from zkbluff.errors import (
    CommitmentMismatch, EarlyTimeout, IllegalMove, LateEntropy, MalformedInput, OutOfOrder, UnfoundedComplaint,
)
from zkbluff.gadgets.native import commit
from zkbluff.protocol import entropy as ent
from zkbluff.statements import get_statement
from zkbluff.statements.deal import deal_native

MATCH = "m-42"
DEAL77 = get_statement("card.deal.v2@deck=52,hands=7-7,board=0,entropies=2")
CHEAT3 = get_statement("card.deal.v2@deck=52,hands=18-17-17,board=0,entropies=4")


class Party:
    def __init__(self):
        self.key, self.public = ent.x25519_keypair()
        self.secret = ent.EntropySecret.fresh()
        self.hand_key = ent.fresh_hand_key()


@pytest.fixture()
def table():
    """Proof or Bluff: the house deals and sits at seat 0; the player (seat 1) is the one entropy seat."""
    dealer, player = Party(), Party()
    commit_msg = ent.dealer_commit(dealer.secret, at=100.0, line=2, window=30.0)
    key_seat = ent.channel_key(player.key, dealer.public, MATCH, 1)
    key_dealer = ent.channel_key(dealer.key, player.public, MATCH, 1)
    assert key_seat == key_dealer
    msg = ent.seat_entropy(1, player.secret, player.hand_key, key_seat, MATCH, commit_msg, at=110.0)
    return dealer, player, commit_msg, msg, key_dealer


def run_phase(commit_msg, *msgs, seats=(1,), now=None):
    phase = ent.accept_dealer_commit(ent.entropy_phase(seats), commit_msg)
    for m in msgs:
        phase = ent.accept_seat_entropy(phase, m)
    return ent.close_entropy_phase(phase, commit_msg.deadline if now is None else now)


def deal_publics(stmt, secrets_in_order, hand_salts, round_no=0):
    inp = {"round": round_no, "context": 7}
    for i, s in enumerate(secrets_in_order):
        inp[f"entropy{i}"], inp[f"entropy{i}_salt"] = s.entropy, s.salt
    for i, salt in enumerate(hand_salts):
        inp[f"hand{i}_salt"] = salt
    return stmt.public_values(inp)


# ---------------------------------------------------------------- keys and sealing

def test_channel_keys_agree_only_between_the_two_parties():
    a, b, c = Party(), Party(), Party()
    k_ab = ent.channel_key(a.key, b.public, MATCH, 1)
    assert k_ab == ent.channel_key(b.key, a.public, MATCH, 1)
    assert k_ab != ent.channel_key(c.key, b.public, MATCH, 1)
    assert k_ab != ent.channel_key(a.key, b.public, MATCH, 2)       # bound to the seat
    assert k_ab != ent.channel_key(a.key, b.public, "m-43", 1)      # and to the match
    psk = ent.channel_key_from_secret(b"sixteen byte key", MATCH, 1)
    assert len(psk) == 32 and psk != ent.channel_key_from_secret(b"sixteen byte key", MATCH, 2)
    with pytest.raises(MalformedInput):
        ent.channel_key_from_secret(b"short", MATCH, 1)
    with pytest.raises(MalformedInput):
        ent.channel_key(a.key, b"\x01" * 31, MATCH, 1)


def test_dealer_opens_the_seats_entropy_and_no_one_else_can(table):
    dealer, player, commit_msg, msg, key = table
    secret, hand_key = ent.open_seat_entropy(key, MATCH, commit_msg, msg)
    assert secret == player.secret and hand_key == player.hand_key
    outsider = ent.channel_key(Party().key, player.public, MATCH, 1)
    with pytest.raises(CommitmentMismatch):
        ent.open_seat_entropy(outsider, MATCH, commit_msg, msg)
    moved = ent.DealerCommit(commit_msg.commitment, commit_msg.deadline, commit_msg.at, commit_msg.line + 1)
    with pytest.raises(CommitmentMismatch):  # bound to the dealer's commitment line
        ent.open_seat_entropy(key, MATCH, moved, msg)


def test_a_sealed_entropy_that_does_not_match_its_public_commitment_is_refused(table):
    dealer, player, commit_msg, msg, key = table
    other = ent.seat_entropy(1, ent.EntropySecret.fresh(), player.hand_key, key, MATCH, commit_msg, 110.0)
    mixed = ent.SeatEntropy(1, msg.commitment, msg.hand_key_commitment, other.sealed, msg.at)
    with pytest.raises(CommitmentMismatch, match="does not open its public commitment"):
        ent.open_seat_entropy(key, MATCH, commit_msg, mixed)


def test_messages_round_trip_as_json_and_malformed_ones_are_refused(table):
    dealer, player, commit_msg, msg, key = table
    for obj, cls in ((commit_msg, ent.DealerCommit), (msg, ent.SeatEntropy)):
        assert cls.from_data(json.loads(json.dumps(obj.to_data()))) == obj
    bad = [
        {**msg.to_data(), "commitment": str(2 ** 254)},
        {**msg.to_data(), "commitment": 5},
        {**msg.to_data(), "seat": True},
        {**msg.to_data(), "handKeyCommitment": "ab"},
        {**msg.to_data(), "at": float("nan")},
        {**msg.to_data(), "type": "entropy.dealer"},
    ]
    for d in bad:
        with pytest.raises(MalformedInput):
            ent.SeatEntropy.from_data(d)
    with pytest.raises(MalformedInput, match="deadline"):
        ent.DealerCommit.from_data({**commit_msg.to_data(), "deadline": commit_msg.at})


# ---------------------------------------------------------------- grinding

def test_grinding_a_seat_entropy_before_the_dealers_commitment_is_refused(table):
    dealer, player, commit_msg, msg, key = table
    phase = ent.entropy_phase([1])
    with pytest.raises(OutOfOrder, match="before the dealer's commitment"):
        ent.accept_seat_entropy(phase, msg)
    with pytest.raises(OutOfOrder):
        ent.check_commit_order([msg.to_data(), commit_msg.to_data()], [1])
    # in the right order it is accepted, with the dealer's commitment first
    outcome = ent.check_commit_order([commit_msg.to_data(), msg.to_data()], [1], window=30.0)
    assert outcome.commitments == (dealer.secret.commitment, player.secret.commitment)


def test_grinding_late_entropy_is_refused(table):
    dealer, player, commit_msg, msg, key = table
    phase = ent.accept_dealer_commit(ent.entropy_phase([1]), commit_msg)
    on_time = ent.SeatEntropy(1, msg.commitment, msg.hand_key_commitment, msg.sealed, commit_msg.deadline)
    late = ent.SeatEntropy(1, msg.commitment, msg.hand_key_commitment, msg.sealed, commit_msg.deadline + 0.001)
    assert ent.accept_seat_entropy(phase, on_time).received == (on_time,)
    with pytest.raises(LateEntropy, match="after the deadline"):
        ent.accept_seat_entropy(phase, late)
    assert phase.received == ()  # unchanged
    with pytest.raises(LateEntropy):
        ent.check_commit_order([commit_msg.to_data(), late.to_data()], [1])


def test_the_dealer_does_not_choose_the_seats_window(table):
    dealer, player, commit_msg, msg, key = table
    stretched = ent.dealer_commit(dealer.secret, at=100.0, line=2, window=3600.0)
    with pytest.raises(MalformedInput, match="the rules' window 30.0"):
        ent.check_commit_order([stretched.to_data(), msg.to_data()], [1], window=30.0)


def test_grinding_a_second_dealer_commitment_or_second_entropy_is_refused(table):
    dealer, player, commit_msg, msg, key = table
    phase = ent.accept_dealer_commit(ent.entropy_phase([1]), commit_msg)
    regrind = ent.dealer_commit(ent.EntropySecret.fresh(), at=111.0, line=5, window=30.0)
    with pytest.raises(OutOfOrder, match="already recorded"):
        ent.accept_dealer_commit(phase, regrind)
    phase = ent.accept_seat_entropy(phase, msg)
    with pytest.raises(OutOfOrder, match="already recorded"):
        ent.accept_seat_entropy(phase, msg)


def test_grinding_the_dealer_cannot_swap_its_entropy_into_the_deal(table):
    """The house re-draws its entropy after seeing the player's: its deal proof's publics
    then name a commitment that is not the one it published first, and every seat refuses it."""
    dealer, player, commit_msg, msg, key = table
    outcome = run_phase(commit_msg, msg)
    salts = [11, 12]
    honest = deal_publics(DEAL77, [dealer.secret, player.secret], salts)
    ent.check_deal_entropies(DEAL77, honest, outcome)
    ent.check_own_entropy(DEAL77, honest, 1, player.secret)
    reground = deal_publics(DEAL77, [ent.EntropySecret.fresh(), player.secret], salts)
    with pytest.raises(CommitmentMismatch, match="entropy0_commitment"):
        ent.check_deal_entropies(DEAL77, reground, outcome)
    dropped = deal_publics(DEAL77, [dealer.secret, ent.EntropySecret.fresh()], salts)  # the player's left out
    with pytest.raises(CommitmentMismatch, match="entropy1_commitment"):
        ent.check_deal_entropies(DEAL77, dropped, outcome)
    with pytest.raises(CommitmentMismatch):
        ent.check_own_entropy(DEAL77, dropped, 1, player.secret)


def test_a_seat_with_no_entropy_cannot_send_one(table):
    dealer, player, commit_msg, msg, key = table
    phase = ent.accept_dealer_commit(ent.entropy_phase([1]), commit_msg)
    as_dealer_seat = ent.SeatEntropy(0, msg.commitment, msg.hand_key_commitment, msg.sealed, msg.at)
    with pytest.raises(IllegalMove, match="contributes no entropy"):
        ent.accept_seat_entropy(phase, as_dealer_seat)


def test_a_silent_seat_forfeits_before_any_card_is_dealt():
    """Cheat with a referee dealer: seats 0..2 all owe an entropy; seat 2 never sends."""
    dealer = Party()
    seats = [Party() for _ in range(3)]
    commit_msg = ent.dealer_commit(dealer.secret, at=0.0, line=1, window=20.0)
    msgs = [ent.seat_entropy(i, p.secret, p.hand_key, ent.channel_key(p.key, dealer.public, MATCH, i), MATCH,
                             commit_msg, at=5.0 + i) for i, p in enumerate(seats[:2])]
    phase = ent.accept_dealer_commit(ent.entropy_phase([0, 1, 2]), commit_msg)
    for m in msgs:
        phase = ent.accept_seat_entropy(phase, m)
    with pytest.raises(EarlyTimeout, match="still have until"):
        ent.close_entropy_phase(phase, now=19.0)
    outcome = ent.close_entropy_phase(phase, now=20.5)
    assert outcome.forfeited == (2,) and not outcome.complete and outcome.commitments == ()
    recorded = [commit_msg.to_data()] + [m.to_data() for m in msgs]
    assert ent.check_commit_order(recorded, [0, 1, 2]).forfeited == (2,)  # the replay agrees
    with pytest.raises(EarlyTimeout):  # a forfeit declared before the deadline is refused
        ent.check_commit_order(recorded, [0, 1, 2], now=15.0)
    with pytest.raises(IllegalMove, match="forfeited"):
        ent.check_deal_entropies(CHEAT3, [0] * len(CHEAT3.public), outcome)
    # with all three in, the order is the dealer's then the seats' in seat order
    third = ent.seat_entropy(2, seats[2].secret, seats[2].hand_key,
                             ent.channel_key(seats[2].key, dealer.public, MATCH, 2), MATCH, commit_msg, at=6.0)
    full = ent.close_entropy_phase(ent.accept_seat_entropy(phase, third), now=7.0)
    assert full.commitments == (dealer.secret.commitment,) + tuple(p.secret.commitment for p in seats)
    publics = deal_publics(CHEAT3, [dealer.secret] + [p.secret for p in seats], [1, 2, 3])
    ent.check_deal_entropies(CHEAT3, publics, full)


# ---------------------------------------------------------------- sealed hands and complaints

@pytest.fixture()
def dealt(table):
    """The honest deal: the player's hand (seat 1) sealed on the deal's line 4."""
    dealer, player, commit_msg, msg, key = table
    _, hand_key = ent.open_seat_entropy(key, MATCH, commit_msg, msg)
    masks, _ = deal_native([dealer.secret.entropy, player.secret.entropy], 0, (7, 7))
    salt = 987654321
    hand_commitment = commit(masks[1], salt)
    sealed = ent.seal_hand(hand_key, MATCH, 4, masks[1], salt)
    return player, msg, masks[1], salt, hand_commitment, sealed


def test_an_honest_sealed_hand_opens_its_commitment(dealt):
    player, msg, mask, salt, hand_commitment, sealed = dealt
    assert ent.open_hand(player.hand_key, MATCH, 4, sealed, hand_commitment) == (mask, salt)
    with pytest.raises(CommitmentMismatch):  # not on another line
        ent.open_hand(player.hand_key, MATCH, 5, sealed, hand_commitment)


def test_wrong_sealed_hand_leads_to_a_verified_complaint(dealt):
    """The dealer seals another hand than the one it committed to in the deal proof."""
    player, msg, mask, salt, hand_commitment, _ = dealt
    other = mask ^ 0b11  # swaps cards in and out
    wrong = ent.seal_hand(player.hand_key, MATCH, 4, other, salt)
    with pytest.raises(CommitmentMismatch, match="does not open the hand commitment"):
        ent.open_hand(player.hand_key, MATCH, 4, wrong, hand_commitment)
    complaint = json.loads(json.dumps(ent.wrong_hand_complaint(1, 4, wrong, player.hand_key)))
    fault = ent.check_wrong_hand_complaint(complaint, match_id=MATCH, hand_key_commitment_recorded=msg.hand_key_commitment,
                                           sealed_on_line=wrong, hand_commitment=hand_commitment)
    assert fault.party == "dealer" and "does not open" in fault.reason


def test_a_sealed_hand_that_does_not_open_leads_to_a_verified_complaint(dealt):
    player, msg, mask, salt, hand_commitment, _ = dealt
    garbage = ent.seal_hand(ent.fresh_hand_key(), MATCH, 4, mask, salt)  # under a key the seat never had
    complaint = ent.wrong_hand_complaint(1, 4, garbage, player.hand_key)
    fault = ent.check_wrong_hand_complaint(complaint, match_id=MATCH, hand_key_commitment_recorded=msg.hand_key_commitment,
                                           sealed_on_line=garbage, hand_commitment=hand_commitment)
    assert fault.party == "dealer"


def test_a_false_complaint_against_an_honest_dealer_is_unfounded(dealt):
    player, msg, mask, salt, hand_commitment, sealed = dealt
    kwargs = dict(match_id=MATCH, hand_key_commitment_recorded=msg.hand_key_commitment, sealed_on_line=sealed,
                  hand_commitment=hand_commitment)
    with pytest.raises(UnfoundedComplaint, match="opens its commitment"):
        ent.check_wrong_hand_complaint(ent.wrong_hand_complaint(1, 4, sealed, player.hand_key), **kwargs)
    # framing with another key: not the committed one
    with pytest.raises(UnfoundedComplaint, match="not the hand key"):
        ent.check_wrong_hand_complaint(ent.wrong_hand_complaint(1, 4, sealed, ent.fresh_hand_key()), **kwargs)
    # framing with a message the seat made itself: not the one on the dealer's line
    forged = ent.seal_hand(player.hand_key, MATCH, 4, mask ^ 1, salt)
    with pytest.raises(UnfoundedComplaint, match="not the one on line"):
        ent.check_wrong_hand_complaint(ent.wrong_hand_complaint(1, 4, forged, player.hand_key), **kwargs)
    with pytest.raises(MalformedInput):
        ent.check_wrong_hand_complaint({**ent.wrong_hand_complaint(1, 4, sealed, player.hand_key), "handKey": "zz"},
                                       **kwargs)


def test_a_dealer_who_never_sends_a_hand_is_found_at_fault():
    complaint = ent.missing_hand_complaint(seat=1, round_no=0, deal_line=4, deadline=130.0, at=131.0)
    fault = ent.check_missing_hand_complaint(complaint, deal_line_at=100.0, hand_window=30.0, deliveries=[(0, 0, 101.0)])
    assert fault.party == "dealer"
    # a hand sent late is still missing at the deadline
    assert ent.check_missing_hand_complaint(complaint, deal_line_at=100.0, hand_window=30.0,
                                            deliveries=[(1, 0, 130.5)]).party == "dealer"
    with pytest.raises(UnfoundedComplaint, match="sent its round-0 hand"):
        ent.check_missing_hand_complaint(complaint, deal_line_at=100.0, hand_window=30.0, deliveries=[(1, 0, 120.0)])
    early = ent.missing_hand_complaint(seat=1, round_no=0, deal_line=4, deadline=130.0, at=129.0)
    with pytest.raises(EarlyTimeout):
        ent.check_missing_hand_complaint(early, deal_line_at=100.0, hand_window=30.0, deliveries=[])
    shortened = ent.missing_hand_complaint(seat=1, round_no=0, deal_line=4, deadline=110.0, at=111.0)
    with pytest.raises(MalformedInput, match="not the deal line's time"):
        ent.check_missing_hand_complaint(shortened, deal_line_at=100.0, hand_window=30.0, deliveries=[])


# ---------------------------------------------------------------- timeouts

LAST = (17, "ab" * 32)


def test_early_timeout_is_refused():
    record = ent.timeout_record(seat=1, since_line=18, since_at=500.0, limit=60.0, last_signed=LAST, at=559.9)
    with pytest.raises(EarlyTimeout, match="not after its deadline 560.0"):
        ent.check_timeout(record, since_at=500.0, limit=60.0, last_signed=LAST)
    at_deadline = ent.timeout_record(seat=1, since_line=18, since_at=500.0, limit=60.0, last_signed=LAST, at=560.0)
    with pytest.raises(EarlyTimeout):
        ent.check_timeout(at_deadline, since_at=500.0, limit=60.0, last_signed=LAST)


def test_a_timeout_after_its_deadline_is_accepted_and_states_what_it_rests_on():
    record = json.loads(json.dumps(ent.timeout_record(seat=1, since_line=18, since_at=500.0, limit=60.0,
                                                      last_signed=LAST, at=560.5)))
    assert record["deadline"] == 560.0 and record["lastSignedLine"] == 17
    ent.check_timeout(record, since_at=500.0, limit=60.0, last_signed=LAST)


def test_a_timeout_that_misstates_its_clock_or_the_seats_last_line_is_refused():
    record = ent.timeout_record(seat=1, since_line=18, since_at=500.0, limit=60.0, last_signed=LAST, at=600.0)
    with pytest.raises(MalformedInput, match="transcript says 520.0"):  # the clock started later
        ent.check_timeout(record, since_at=520.0, limit=60.0, last_signed=LAST)
    with pytest.raises(MalformedInput, match="rules 90.0"):  # the rules give more time
        ent.check_timeout(record, since_at=500.0, limit=90.0, last_signed=LAST)
    with pytest.raises(MalformedInput, match="last signed line"):  # the seat signed a later line
        ent.check_timeout(record, since_at=500.0, limit=60.0, last_signed=(19, "cd" * 32))
    with pytest.raises(MalformedInput, match="deadline"):
        ent.check_timeout({**record, "deadline": 540.0}, since_at=500.0, limit=60.0, last_signed=LAST)
    never = ent.timeout_record(seat=1, since_line=3, since_at=10.0, limit=5.0, last_signed=None, at=16.0)
    ent.check_timeout(never, since_at=10.0, limit=5.0, last_signed=None)


# ---------------------------------------------------------------- the whole phase with a real proof

def test_entropy_phase_to_a_verified_deal_proof_and_opened_hands(mcl):
    """X25519 channels, the commit order, the dealer's deal proof (Groth16 on mcl, no
    mock), each seat's checks of the publics and of its sealed hand."""
    from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
    from zkbluff.statements.deal import deal_v2_inputs

    dealer, player = Party(), Party()
    commit_msg = ent.dealer_commit(dealer.secret, at=0.0, line=2, window=30.0)
    msg = ent.seat_entropy(1, player.secret, player.hand_key, ent.channel_key(player.key, dealer.public, MATCH, 1),
                           MATCH, commit_msg, at=3.0)
    outcome = ent.check_commit_order([commit_msg.to_data(), msg.to_data()], [1])
    opened, hand_key = ent.open_seat_entropy(ent.channel_key(dealer.key, player.public, MATCH, 1), MATCH,
                                             commit_msg, msg)
    contributors = ent.deal_contributors(dealer.secret, {1: opened}, outcome)
    with pytest.raises(CommitmentMismatch):  # the dealer cannot slip in a fresh entropy of its own
        ent.deal_contributors(ent.EntropySecret.fresh(), {1: opened}, outcome)
    salts = [101, 202]
    inputs = deal_v2_inputs([(c.entropy, c.salt) for c in contributors], salts, round_no=0, context=99)
    system, witness = DEAL77.build(inputs)
    pk = setup_insecure_seeded_for_tests(system, "entropy-e2e", backend=mcl)
    proof = prove(pk, witness, backend=mcl)
    publics = witness[1:1 + system.n_public]
    verify(pk.vk, publics, proof, backend=mcl)
    # the seat's checks
    ent.check_deal_entropies(DEAL77, publics, outcome)
    ent.check_own_entropy(DEAL77, publics, 1, player.secret)
    masks, _ = deal_native([c.entropy for c in contributors], 0, (7, 7))
    sealed = ent.seal_hand(hand_key, MATCH, 4, masks[1], salts[1])
    commitment = publics[DEAL77.public.index("hand1_commitment")]
    assert ent.open_hand(player.hand_key, MATCH, 4, sealed, commitment) == (masks[1], salts[1])
    with pytest.raises(CommitmentMismatch):  # seat 0's hand does not pass for seat 1's
        ent.open_hand(player.hand_key, MATCH, 4, ent.seal_hand(hand_key, MATCH, 4, masks[0], salts[0]), commitment)
