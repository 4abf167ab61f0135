"""Cheat at a house-blind table (``--deal house-blind``, games/engine/house_blind_deal.py) with
real proofs: the seats deal between themselves on signed lines (key, shuffle in seat order,
shares, hand binding) and the house only starts each hand; whole matches verify offline; a
coalition of the house and seats learns nothing of the honest seats' hands; every cheat is
refused by a named check, at the table and by the offline verifier; a seat that withholds its
line is at fault and places last; a seat sent a wrong share complains and any verifier upholds it."""
from __future__ import annotations

import json
import random

import pytest

from cheat_engine_helpers import Clock, conservation, forge, step, transcript_with, watch
from house_blind_helpers import coalition_view, fixed_shuffles, rotation
from zkbluff.curve import get_backend
from zkbluff.errors import (
    InvalidShare, InvalidShuffle, MalformedInput, TranscriptError, UnfoundedComplaint, ZkbluffError,
)
from zkbluff.games.cheat.rules import DECK
from zkbluff.games.engine import house_blind_deal as hbd
from zkbluff.games.engine.house_blind_deal import (
    COMPLAINT, HAND, KEY, SHARES, SHUFFLE, TIMEOUT, HouseBlindDeal,
)
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.elgamal import G, Deck, reencrypt
from zkbluff.protocol.hand_binding import hand_message
from zkbluff.protocol.house_blind import step_context
from zkbluff.protocol.oblivious_deal import DealRandom
from zkbluff.protocol.shuffle import ShuffleSecret, prove_shuffle, shuffle_with
from zkbluff.statements.registry import get_statement

ORIGINAL = HouseBlindDeal._seat_line


def house_blind_table(n, path=None, hold=None, monkeypatch=None, match_id=None, hands="3"):
    """A Cheat table with the house-blind deal; ``hold=(seat, kind)``: that seat withholds that
    line of round 1 (so the table waits there for a test to act in its place)."""
    if hold is not None:
        def held(self, secrets, seat, view, prover):
            due = self.due(view)
            if due is not None and (due[1], due[0], due[2]) == (hold[0], hold[1], 1):
                return None
            return ORIGINAL(self, secrets, seat, view, prover)
        monkeypatch.setattr(HouseBlindDeal, "_seat_line", held)
    clock = Clock()
    tab = open_match("cheat", {"players": str(n), "hands": hands, "window": "1", "deal": "house-blind"}, None,
                     transcript=path, clock=clock, overwrite=True, match_id=match_id)
    return tab, clock


def honest_data(tab, seat):
    """What ``seat`` would send now, honestly (its own party, from its seed)."""
    s = tab.seats[seat]
    return ORIGINAL(tab.spec.deal, s.deal_secrets, seat, tab.view, s.prover)


def refused(tab, line, tmp_path, error, code):
    """The table's referee refuses ``line`` with ``code``, and so does the offline verifier."""
    with pytest.raises(error) as live:
        tab.view.snapshot().apply(line)
    assert live.value.code == code, live.value
    with pytest.raises(TranscriptError) as offline:
        path = transcript_with(tab, line, tmp_path / "bad.jsonl")
        report = verify_transcript(path)
        raise AssertionError(f"verified: {report}")  # a deferred check must still fail the transcript
    assert offline.value.code == code and offline.value.line == line["n"], offline.value


def kinds(tab):
    return [e["action"] for e in tab.writer.events]


# ---------------------------------------------------------------- whole matches

@pytest.mark.slow
def test_a_whole_three_seat_match_with_real_proofs_verifies_offline(tmp_path):
    path = tmp_path / "cheat3.jsonl"
    tab, clock = house_blind_table(3, path)
    checks: list[int] = []
    watch(tab, checks)
    bots = [tab.spec.house_bot(i) for i in range(3)]
    rng = random.Random(3)
    while not tab.over:
        step(tab, clock, bots, rng)
    assert tab.view.complete
    header = tab.writer.events[0]["data"]
    assert header["trust"] == hbd.TRUST and header["deal"]["scheme"] == hbd.SCHEME
    assert header["deal"]["statements"] == ["card.hand_binding.v1@deck=52,hand=17",
                                            "card.hand_binding.v1@deck=52,hand=18"]
    ks = kinds(tab)
    assert ks[1:14] == [KEY] * 3 + [SHUFFLE] * 3 + [SHARES] * 3 + [HAND] * 3 + ["deal"]
    assert ks.count("deal") == 3 and ks.count(HAND) == 9  # three hands, each dealt by the seats
    assert all(e["data"]["sealed_hands"] == [] for e in tab.writer.events if e["action"] == "deal")
    report = verify_transcript(path)
    assert report["complete"] and report["scores"] == list(tab.rules.s.penalties)
    assert report["proofs"] == ks.count(HAND) + ks.count("play") + ks.count("pick_up")


@pytest.mark.parametrize("n", [4, 6])
def test_a_hand_at_four_and_six_seats_every_seat_holds_its_own_cards(n, tmp_path):
    path = tmp_path / f"cheat{n}.jsonl"
    tab, clock = house_blind_table(n, path)
    conservation(tab)  # disjoint hands, sizes as public, each opens its seat's commitment
    held = [tab.seats[i].private["hand"] for i in range(n)]
    assert sum(bin(h).count("1") for h in held) == DECK.size
    bots = [tab.spec.house_bot(i) for i in range(n)]
    rng = random.Random(n)
    for _ in range(12):
        if tab.over:
            break
        step(tab, clock, bots, rng)
    report = verify_transcript(path)
    assert report["lines"] == len(tab.writer.events) and report["proofs"] >= n
    names = [f"s{i}" for i in range(n)]  # the terminal text says every line (a server narrates each)
    said = [tab.spec.text.describe(e, names) for e in tab.writer.events]
    assert "s0 shuffles and re-encrypts the deck" in said[1 + n] and "deals the whole deck" in said[4 * n + 1]


def test_the_dealer_option_is_unchanged_and_an_unknown_deal_is_refused():
    from zkbluff.games.cheat.spec import CheatSpec

    assert CheatSpec({"players": "3"}).options["deal"] == "dealer"
    assert CheatSpec({"players": "3"}).deal.trust != hbd.TRUST
    assert CheatSpec({"players": "3", "deal": "house-blind"}).deal.trust == hbd.TRUST
    with pytest.raises(MalformedInput):
        CheatSpec({"players": "3", "deal": "oblivious"})


# ---------------------------------------------------------------- what a coalition learns

SIGMA = {0: 7, 2: 11}  # the coalition's own (fixed) shuffles: rotations by these


def _rotation(k, n=DECK.size):
    return rotation(k, n)


def coalition_world(honest_order, tmp_path, name):
    """A 4-seat table where seats 0 and 2 (with the house: it holds no deal secret) shuffle by
    fixed permutations and honest seat 1 by ``honest_order``; seat 3 (honest too) by a fixed
    one, so the worlds differ only in seat 1's step. Every shuffle still carries its proof."""
    with fixed_shuffles({0: _rotation(SIGMA[0]), 2: _rotation(SIGMA[2]), 3: _rotation(5), 1: honest_order}):
        tab, _ = house_blind_table(4, tmp_path / f"{name}.jsonl", match_id="coalition-match")
    return tab


def test_a_coalition_of_the_house_and_two_seats_cannot_tell_two_deals_of_the_honest_seats_apart(
        monkeypatch, tmp_path):
    """Every card is dealt at Cheat, so seats that pool all but one hand know that one by
    elimination (docs/house-blind-deal.md): the coalition here is the house and every seat but
    two (0 and 2 of 4). The worlds differ in honest seat 1's permutation, chosen so that seat 1
    and seat 3 each hold one card more and one less — the coalition's own hands identical —
    and the coalition's view is the same in both."""
    pi1 = _rotation(3)
    # the final position p holds, after seats 2 and 3 shuffle, seat 1's output sigma2[sigma3[p]]
    s2, s3 = _rotation(SIGMA[2]), _rotation(5)
    tab0, _ = house_blind_table(4, tmp_path / "probe.jsonl", match_id="probe")
    owners = tab0.view.ledger.deal.current.layout.owners
    p = owners.index(1)
    q = owners.index(3)
    a, b = s2[s3[p]], s2[s3[q]]
    pi2 = list(pi1)
    pi2[a], pi2[b] = pi2[b], pi2[a]
    one = coalition_world(pi1, tmp_path, "one")
    two = coalition_world(pi2, tmp_path, "two")
    hands = [[t.seats[i].private["hand"] for i in range(4)] for t in (one, two)]
    assert hands[0][1] != hands[1][1] and hands[0][3] != hands[1][3]  # the honest hands differ
    assert hands[0][0] == hands[1][0] and hands[0][2] == hands[1][2]  # the coalition's are the same
    view_one, view_two = coalition_view(one, (0, 2)), coalition_view(two, (0, 2))
    assert view_one == view_two
    assert view_one[1] == set()  # no link through an honest step
    final = 4
    mine = [i for i, o in enumerate(owners) if o in (0, 2)]
    assert all(card is None for k, i, card in view_one[0] if k == final and i not in mine)
    assert all(card is not None for k, i, card in view_one[0] if k == final and i in mine)
    # the negative twin: a coalition that also held seat 1's key would see the difference
    assert coalition_view(one, (0, 1, 2)) != coalition_view(two, (0, 1, 2))


# ---------------------------------------------------------------- cheats, each refused by a named check

def _shuffle_line(tab, seat, deck, proof, r=1):
    return forge(tab, seat, SHUFFLE, {"round": r, "deck": deck.to_json(), "proof": proof.to_json()})


def _inputs(tab, seat):
    x = tab.view.ledger.deal.current
    return x, x.deck_before(seat), x.joint_key(), step_context(tab.view.match_id, 1, seat, "shuffle", tab.view.head)


def test_a_shuffler_that_drops_a_card_is_refused_by_the_shape_check(monkeypatch, tmp_path):
    tab, _ = house_blind_table(3, hold=(1, SHUFFLE), monkeypatch=monkeypatch)
    honest = honest_data(tab, 1)[1]
    assert verify_transcript(transcript_with(tab, forge(tab, 1, SHUFFLE, honest), tmp_path / "ok.jsonl"))
    short = {**honest, "deck": {"A": honest["deck"]["A"][:-1], "B": honest["deck"]["B"][:-1]}}
    refused(tab, forge(tab, 1, SHUFFLE, short), tmp_path, InvalidShuffle, "shuffle.shape")


def test_a_shuffler_that_duplicates_a_card_is_refused_by_the_product_check(monkeypatch, tmp_path):
    tab, _ = house_blind_table(3, hold=(1, SHUFFLE), monkeypatch=monkeypatch)
    _, deck, H, ctx = _inputs(tab, 1)
    order = list(range(DECK.size))
    order[7] = 0  # position 7 gets card 0 again: card 7 is gone
    secret = ShuffleSecret(tuple(order), tuple(range(1, DECK.size + 1)))
    out = reencrypt(deck, order, secret.rand, H)
    proof = prove_shuffle(deck, out, secret, H, ctx, DealRandom(b"cheat" * 8))
    refused(tab, _shuffle_line(tab, 1, out, proof), tmp_path, InvalidShuffle, "shuffle.permutation-product")


def test_a_shuffler_that_swaps_two_cards_after_proving_is_refused_by_the_reencryption_check(
        monkeypatch, tmp_path):
    tab, _ = house_blind_table(3, hold=(2, SHUFFLE), monkeypatch=monkeypatch)
    _, deck, H, ctx = _inputs(tab, 2)
    out, _proof, secret = shuffle_with(deck, H, ctx, _rotation(9), DealRandom(b"swap" * 8))
    A, B = list(out.A), list(out.B)
    A[0], A[1], B[0], B[1] = A[1], A[0], B[1], B[0]
    swapped = Deck(tuple(A), tuple(B))  # proven against the permutation it did not apply
    proof = prove_shuffle(deck, swapped, secret, H, ctx, DealRandom(b"swap" * 8))
    refused(tab, _shuffle_line(tab, 2, swapped, proof), tmp_path, InvalidShuffle, "shuffle.reencryption")


def test_a_wrong_share_is_refused_by_the_share_check_at_the_table_and_offline(monkeypatch, tmp_path):
    tab, _ = house_blind_table(3, hold=(1, SHARES), monkeypatch=monkeypatch)
    kind, data = honest_data(tab, 1)
    be = get_backend()
    from zkbluff.protocol.elgamal import Share

    shares = [Share.from_json(s) for s in data["shares"]]
    bad = shares[0]
    shares[0] = Share(bad.seat, bad.card, be.g1_add(bad.D, G), bad.T1, bad.T2, bad.z)  # opens to the next card
    line = forge(tab, 1, SHARES, {**data, "shares": [s.to_json() for s in shares]})
    refused(tab, line, tmp_path, InvalidShare, "share.proof")
    assert verify_transcript(transcript_with(tab, forge(tab, 1, SHARES, data), tmp_path / "ok.jsonl"))


def test_a_hand_commitment_holding_a_card_not_opened_to_its_seat_is_refused_by_the_binding_check(
        monkeypatch, tmp_path):
    tab, _ = house_blind_table(3, hold=(0, HAND), monkeypatch=monkeypatch)
    deal = tab.spec.deal
    x = tab.view.ledger.deal.current
    secrets = tab.seats[0].deal_secrets
    p = deal.party(secrets, 0, x.layout, tab.view.match_id, 1, "hand", tab.view.head)
    record = x.record(tab.view.match_id)
    cards = p.open_hand(x.final, record.shares, [k.h for k, _, _ in x.keys])
    other = next(c for c in range(DECK.size) if c not in cards.values())  # another seat's card
    forged = dict(cards)
    forged[next(iter(forged))] = other
    m = len(cards)
    key_id = hbd.binding_key_id(DECK.size, m)
    h = x.keys[0][0].h
    msg = hand_message(p.key, h, 0, record, x.final, forged, 12345, get_statement(key_id),
                       tab.seats[0].prover.key(key_id), tab.view.head)
    refused(tab, forge(tab, 0, HAND, {"round": 1, "hand": msg.to_json()}), tmp_path, InvalidShare, "hand.binding")
    honest = forge(tab, 0, HAND, honest_data(tab, 0)[1])
    assert verify_transcript(transcript_with(tab, honest, tmp_path / "ok.jsonl"))


def test_a_line_of_another_round_or_out_of_turn_is_refused(monkeypatch, tmp_path):
    tab, _ = house_blind_table(3, hold=(1, SHUFFLE), monkeypatch=monkeypatch)
    honest = honest_data(tab, 1)[1]
    with pytest.raises(ZkbluffError) as e:
        tab.view.snapshot().apply(forge(tab, 1, SHUFFLE, {**honest, "round": 2}))
    assert e.value.code == "deal.round"
    with pytest.raises(ZkbluffError) as e:
        tab.view.snapshot().apply(forge(tab, 2, SHUFFLE, honest))
    assert e.value.code == "deal.order"  # seat 2 shuffles after seat 1


# ---------------------------------------------------------------- faults

@pytest.mark.parametrize("kind", [SHUFFLE, SHARES, HAND])
def test_a_seat_that_withholds_its_line_after_the_others_acted_is_at_fault_and_places_last(
        kind, monkeypatch, tmp_path):
    path = tmp_path / "held.jsonl"
    tab, clock = house_blind_table(3, path, hold=(2, kind), monkeypatch=monkeypatch)
    assert kinds(tab)[-1] == (kind if kind != SHUFFLE else SHUFFLE)  # the others acted
    assert tab.poll() is None  # not before the deadline
    clock.now = tab.referee.deadline + 0.01
    tab.poll()
    assert tab.over and kinds(tab)[-2:] == [TIMEOUT, "end"]
    result = tab.view.result()
    assert result.placements == (1, 1, 3)  # the withholder places strictly last: withholding never helps
    report = verify_transcript(path)
    assert report["result"].placements == (1, 1, 3) and "seat 2 withheld" in report["result"].reason


def test_a_seat_sent_a_wrong_share_complains_and_any_verifier_upholds_it(monkeypatch, tmp_path):
    """A house that does not check (its referee writes a wrong share of seat 2's card from
    seat 1, as the offline verifier replays a share line: checked only once a hand needs it):
    seat 2 finds it when it opens its cards and complains before anyone binds a hand; the
    verifier's replay re-checks the share from its line and finds seat 1 at fault."""
    tab, _ = house_blind_table(3, hold=(1, SHARES), monkeypatch=monkeypatch)
    kind, data = honest_data(tab, 1)
    from zkbluff.protocol.elgamal import Share

    shares = [Share.from_json(s) for s in data["shares"]]
    owners = tab.view.ledger.deal.current.layout.owners
    i = next(k for k, s in enumerate(shares) if owners[s.card] == 2)
    bad = shares[i]
    shares[i] = Share(bad.seat, bad.card, get_backend().g1_add(bad.D, G), bad.T1, bad.T2, bad.z)
    view = tab.view.snapshot()
    view.verify_now = False  # as the offline verifier replays it
    bad_line = forge(tab, 1, SHARES, {**data, "shares": [s.to_json() for s in shares]})
    view.apply(bad_line)
    s2 = tab.seats[2]
    kind, d = ORIGINAL(tab.spec.deal, s2.deal_secrets, 2, view, s2.prover)
    assert kind == SHARES
    view.apply(_signed(tab, view, 2, kind, d))
    # seat 0 is due to bind, but a hand line relies on every share: the batch names seat 1's line
    s0 = tab.seats[0]
    v = view.snapshot()
    k0, d0 = ORIGINAL(tab.spec.deal, s0.deal_secrets, 0, v, s0.prover)
    with pytest.raises(InvalidShare) as e:
        v.apply(_signed(tab, v, 0, k0, d0))
    assert e.value.code == "share.proof" and e.value.seat == 1 and e.value.line == bad_line["n"]
    # unfounded complaints are refused: about a share that verifies, about another seat's card
    mine = next(s for s in shares if owners[s.card] == 0)
    with pytest.raises(UnfoundedComplaint):
        view.snapshot().apply(_signed(tab, view, 0, COMPLAINT, {"round": 1, "sender": 1, "position": mine.card}))
    with pytest.raises(MalformedInput):
        view.snapshot().apply(_signed(tab, view, 0, COMPLAINT, {"round": 1, "sender": 1, "position": bad.card}))
    # seat 2's complaint, made by its own party from its seed and the lines
    kind, d = ORIGINAL(tab.spec.deal, s2.deal_secrets, 2, view, s2.prover)
    assert (kind, d) == (COMPLAINT, {"round": 1, "sender": 1, "position": bad.card})
    line = _signed(tab, view, 2, kind, d)
    view.apply(line)
    assert tab.spec.deal.fault(view.ledger)[0] == line["n"] and "seat 1" in tab.spec.deal.fault(view.ledger)[1]
    assert view.over and view.result().placements == (1, 3, 1)  # the sender of the wrong share places strictly last


def _signed(tab, view, seat, kind, data):
    from zkbluff.protocol.signing import sign_line

    event = {"n": view.next_line, "prev": view.head, "seat": seat, "action": kind, "data": data,
             "at": tab.referee.clock()}
    return sign_line(tab.seats[seat].key, json.loads(json.dumps(event)))


def test_a_wrong_share_fails_the_transcript_at_its_line_even_when_a_timeout_follows(monkeypatch, tmp_path):
    """A house that does not check its share lines writes seat 1's wrong share of one of
    seat 0's cards, drops seat 0's complaint and times seat 0 out: the offline verifier does
    not blame the victim — the transcript fails at the share line (share.proof); the same
    match with seat 1's honest share verifies, seat 0 at fault (the negative twin)."""
    from zkbluff.protocol.elgamal import Share

    def run(path, wrong):
        def line(self, secrets, seat, view, prover):
            due = self.due(view)
            if seat == 0 and due is not None and due[0] == HAND:
                return None  # the house censors seat 0's complaint and hand line
            out = ORIGINAL(self, secrets, seat, view, prover)
            if wrong and out is not None and seat == 1 and out[0] == SHARES:
                owners = self._wanted(view)[1].owners
                sh = [Share.from_json(s) for s in out[1]["shares"]]
                i = next(k for k, s in enumerate(sh) if owners[s.card] == 0)
                b = sh[i]
                sh[i] = Share(b.seat, b.card, get_backend().g1_add(b.D, G), b.T1, b.T2, b.z)
                out = (out[0], {**out[1], "shares": [s.to_json() for s in sh]})
            return out
        with monkeypatch.context() as m:
            m.setattr(HouseBlindDeal, "_seat_line", line)
            m.setattr(HouseBlindDeal, "_verify_shares", lambda *a, **k: None)  # the house's referee does not check
            tab, clock = house_blind_table(3, path)
            clock.now = tab.referee.deadline + 0.01
            tab.poll()
        assert kinds(tab)[-2:] == [TIMEOUT, "end"]
        return tab

    tab = run(tmp_path / "bad.jsonl", True)
    bad = next(e for e in tab.writer.events if e["action"] == SHARES and e["seat"] == 1)
    with pytest.raises(TranscriptError) as e:
        report = verify_transcript(tmp_path / "bad.jsonl")
        raise AssertionError(f"verified: {report['result']}")
    assert e.value.code == "share.proof" and e.value.line == bad["n"], e.value
    run(tmp_path / "ok.jsonl", False)
    report = verify_transcript(tmp_path / "ok.jsonl")
    assert report["complete"] and report["result"].placements == (3, 1, 1)
    assert "seat 0 withheld its hand binding" in report["result"].reason
