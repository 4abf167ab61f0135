"""Cheat on the match engine with real Groth16 proofs: the deal in proof, plays, calling
windows on the injected clock, the public turn-over, the openings sealed to the picker and
the chained pick-up; the deck conserved at every line; cheats refused by the table and by
the offline verifier."""
from __future__ import annotations

import json
import random

import pytest

from cheat_engine_helpers import conservation, forge, new_table, step, transcript_with, watch
from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, TranscriptError
from zkbluff.games.cheat.match import Stage
from zkbluff.games.cheat.moves import CallBluff, PassTurn, PlayCards, Proceed
from zkbluff.games.cheat.rules import DECK, Phase
from zkbluff.games.cheat.spec import CheatSpec, seal_hand_over
from zkbluff.games.cheat.witness import ABSORB_KEY, PLAY_KEY
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import canonical, line_hash

SEVEN, THREE = DECK.parse_rank("7"), DECK.parse_rank("3")


def play_to_end(tab, clock, seed, stop_after_hands=None):
    bots = [tab.spec.house_bot(seed + i) if i % 2 == 0 else tab.spec.random_bot(seed + i)
            for i in range(tab.spec.n_seats)]
    rng = random.Random(seed)
    while not tab.over:
        if stop_after_hands is not None and len(tab.rules.s.hand_penalties) >= stop_after_hands:
            break
        step(tab, clock, bots, rng)


def kinds(tab):
    return [e["action"] for e in tab.writer.events]


# ---------------------------------------------------------------- whole tables and hands

@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 6])
def test_a_whole_table_to_the_end_with_real_proofs(n, tmp_path, seed_secrets):
    seed_secrets(1000 + n)  # every party's entropy from one seeded generator: the same table on every run
    path = tmp_path / f"cheat{n}.jsonl"
    tab, clock = new_table(n, hands=3, path=path)
    checks: list[int] = []
    watch(tab, checks)
    play_to_end(tab, clock, seed=10 * n)
    assert tab.over and tab.view.complete
    ks = kinds(tab)
    assert ks[1] == "entropy.dealer" and ks[2:2 + n] == ["entropy.seat"] * n  # the dealer commits first
    assert ks[2 + n:2 + 2 * n] == ["entropy.open"] * n  # then every seat opens, after the last commitment
    # the seeded entropy fixes the deal: this table has a window nobody calls, a call, and a
    # call that catches a lie (a pick_up), so every kind of line is checked below
    assert ks.count("deal") == 3 and "close_window" in ks and "call" in ks and "pick_up" in ks
    # every line after the header, the dealer's and seats' entropies and openings and the first deal was checked
    assert len(checks) == len(ks) - (1 + 1 + 2 * n + 1) and checks[0] == 2 * n + 4
    s = tab.rules.s
    assert len(s.hand_penalties) == 3 and sum(x == 0 for x in s.hand_penalties[0]) >= 1
    report = verify_transcript(path)
    assert report["complete"] and report["scores"] == list(s.penalties)
    assert report["proofs"] == ks.count("deal") + ks.count("play") + ks.count("pick_up")
    for deal in (e for e in tab.writer.events if e["action"] == "deal"):
        assert deal["seat"] is None and len(deal["data"]["sealed_hands"]) == n


@pytest.mark.parametrize("n", [4, 5])
def test_a_whole_hand_with_real_proofs(n, tmp_path):
    path = tmp_path / f"cheat{n}.jsonl"
    tab, clock = new_table(n, hands=3, path=path)
    checks: list[int] = []
    watch(tab, checks)
    play_to_end(tab, clock, seed=n, stop_after_hands=1)
    assert len(tab.rules.s.hand_penalties) == 1 and checks
    end = next(after for _, _, before, after in tab.rules.history if len(after.hand_penalties) > len(before.hand_penalties))
    scores = end.hand_penalties[0]
    assert end.emptied is not None and scores[end.emptied] == 0 and end.hand_sizes[end.emptied] == 0
    assert all(scores[i] == end.hand_sizes[i] > 0 for i in range(n) if i != end.emptied)
    report = verify_transcript(path)  # the part played so far verifies offline
    assert not report["over"] and report["lines"] == len(tab.writer.events)


# ---------------------------------------------------------------- the seed's example

def deal_until(n, pred, tries=8, names=None):
    """The first of a few deals (seeded by the caller: the same ones on every run) that ``pred`` likes."""
    for _ in range(tries):
        tab, clock = new_table(n, names=names)
        if pred(tab):
            return tab, clock
    pytest.fail(f"none of {tries} seeded deals has the cards the example needs: seed another")


def test_the_seeds_example_ali_plays_a_7_and_a_3_as_two_sevens(seed_secrets):
    def ali_has(tab):
        ranks = {DECK.rank_of(c) for c in DECK.cards(tab.seats[1].private["hand"])}
        return {SEVEN, THREE} <= ranks

    seed_secrets(7)  # no skip by the luck of the deal (it was < 1e-4): the deals are the same on every run
    tab, clock = deal_until(3, ali_has, names=["Bo", "Ali", "Ayşe"])
    assert tab.to_move == 1  # the player next to the dealer starts
    hand = DECK.cards(tab.seats[1].private["hand"])
    seven = next(c for c in hand if DECK.rank_of(c) == SEVEN)
    three = next(c for c in hand if DECK.rank_of(c) == THREE)
    tab.move(1, PlayCards(SEVEN, (seven, three)))
    assert tab.rules.game.phase == Phase.WINDOW and tab.to_move is None
    tab.move(2, CallBluff(tab.rules.s.play_no))
    tab.move(1, Proceed())  # turned over: the 3 shows
    reveal = tab.writer.events[-1]
    assert reveal["action"] == "reveal" and sorted(reveal["data"]["cards"]) == sorted([seven, three])
    assert tab.rules.s.picker == 1
    tab.move(1, Proceed())  # Ali picks up the two cards (one pick-up proof)
    s = tab.rules.s
    assert s.hand_sizes[1] == 18 and s.pile == () and tab.to_move == 2  # Ayşe starts the next round
    assert DECK.cards(tab.seats[1].private["hand"]) == hand
    text = tab.spec.text
    lines = [text.describe(e, tab.header["seats"]) for e in tab.writer.events]
    assert any("two sevens were a 3 and a 7" in x or "two sevens were a 7 and a 3" in x for x in lines)
    assert "Ali picks up 2 cards" in " ".join(lines) and "Ayşe was right and starts" in " ".join(lines)
    conservation(tab)


# ---------------------------------------------------------------- cheats at a pick-up

@pytest.fixture(scope="module")
def pile_table(tmp_path_factory):
    """Three seats: Ali (1) opens one true card, Ayşe (2) plays one, Bo (0) lies with one;
    Ali calls; Bo picks up a pile of three plays, two of them sealed to him by Ali and Ayşe."""
    tab, clock = new_table(3)
    hands = [DECK.cards(s.private["hand"]) for s in tab.seats]
    rank = DECK.rank_of(hands[1][0])
    lie = next(c for c in hands[0] if DECK.rank_of(c) != rank)
    before_ali = dict(tab.seats[1].private)
    tab.move(1, PlayCards(rank, (hands[1][0],)))
    clock.now = tab.referee.deadline + 0.01  # a timeout comes after its deadline
    tab.poll()
    tab.move(2, PlayCards(rank, (hands[2][0],)))
    clock.now = tab.referee.deadline + 0.01  # a timeout comes after its deadline
    tab.poll()
    tab.move(0, PlayCards(rank, (lie,)))
    tab.move(1, CallBluff(tab.rules.s.play_no))
    tab.move(0, Proceed())
    assert tab.rules.s.picker == 0 and tab.rules.stage == Stage.HAND_OVER and tab.rules.owing == [1, 2]
    tab.move(1, Proceed())
    tab.move(2, Proceed())
    assert tab.rules.stage == Stage.ABSORB and tab.to_move == 0
    return {"tab": tab, "clock": clock, "given": hands[1][0], "before_ali": before_ali,
            "dir": tmp_path_factory.mktemp("pile")}


def refused_everywhere(ctx, line, match, name):
    tab = ctx["tab"]
    at = tab.view.next_line
    with pytest.raises((CommitmentMismatch, IllegalMove), match=match):
        tab.publish(line)
    assert tab.view.next_line == at and len(tab.writer.events) == at - 1  # nothing written
    path = transcript_with(tab, line, ctx["dir"] / f"{name}.jsonl")
    with pytest.raises(TranscriptError, match=f"line {at}"):
        verify_transcript(path)


def honest_pick_up(tab):
    return tab.spec.seat_move(tab.seats[0].private, tab.rules, 0, Proceed())


def test_the_picker_opened_every_sealed_play_and_the_honest_pick_up_verifies(pile_table):
    tab = pile_table["tab"]
    got = {**tab.spec.hand_over_openings(tab.seats[0].private, tab.rules, 0, 1),
           **tab.spec.hand_over_openings(tab.seats[0].private, tab.rules, 0, 2)}
    assert set(got) == {"1", "2"}  # sealed to Bo by Ali and Ayşe; play 3 was his own
    assert all(set(s.private["received"]) == {"3"} for s in tab.seats[1:])  # the others saw only the turn-over
    with pytest.raises(CommitmentMismatch):  # Ayşe cannot open what Ali sealed to Bo
        tab.spec.hand_over_openings(tab.seats[2].private, tab.rules, 2, 1)
    move = honest_pick_up(tab)
    line = forge(tab, 0, "pick_up", move.action.to_data(), ABSORB_KEY, dict(move.proofs[0]))
    path = transcript_with(tab, line, pile_table["dir"] / "honest.jsonl")
    assert verify_transcript(path)["proofs"] >= 5  # the twin of the refusals below


def test_a_picker_who_claims_a_card_it_never_received_is_refused(pile_table):
    tab = pile_table["tab"]
    move = honest_pick_up(tab)
    inputs = dict(move.proofs[0])
    extra = next(c for c in range(DECK.size) if not (inputs["old_hand"] | inputs["play0"] | inputs["play1"]
                                                      | inputs["play2"]) >> c & 1)
    inputs["play0"] |= 1 << extra  # "Ali's play held this card too"
    line = forge(tab, 0, "pick_up", move.action.to_data(), ABSORB_KEY, inputs)
    refused_everywhere(pile_table, line, "play0_commitment", "claims")


def test_a_seat_that_lies_about_its_pick_up_is_refused(pile_table):
    tab = pile_table["tab"]
    move = honest_pick_up(tab)
    inputs = dict(move.proofs[0])
    dropped = DECK.cards(inputs["old_hand"])[:5]
    inputs["old_hand"] &= ~DECK.mask(dropped)  # picks up from a smaller hand than it holds
    line = forge(tab, 0, "pick_up", move.action.to_data(), ABSORB_KEY, inputs)
    refused_everywhere(pile_table, line, "old_hand_commitment", "lies")
    short = forge(tab, 0, "pick_up", {"count": 2, "part": 0}, ABSORB_KEY, dict(move.proofs[0]))
    refused_everywhere(pile_table, short, "pile holds 3", "count")


def test_an_unfounded_dispute_is_refused(pile_table):
    tab = pile_table["tab"]
    picker = tab.seats[0]
    assert tab.spec.hand_over_openings(picker.private, tab.rules, 0, 1)  # Ali's openings are right
    honest = tab.spec.dispute(picker.private, tab.rules, 0, 1)  # the right key of Ali's hand-over, proven
    line = forge(tab, 0, "dispute", honest.to_data())
    refused_everywhere(pile_table, line, "unfounded", "unfounded")


def test_a_dispute_whose_disclosed_key_is_not_proven_is_refused(pile_table):
    """The disclosed point must be the picker's pile key times the hand-over's ephemeral: one
    made with another seat's key (its own proof valid for that key) or a proof that was
    changed would let a picker open any garbage and blame the sender."""
    tab = pile_table["tab"]
    honest = tab.spec.dispute(tab.seats[0].private, tab.rules, 0, 1)
    others = tab.spec.dispute({**tab.seats[0].private, "pileSecret": tab.seats[2].private["pileSecret"]},
                              tab.rules, 0, 1)  # Ayşe's pile key's point, with her key's valid proof
    flipped = honest.proof[:-1] + ("0" if honest.proof[-1] != "0" else "1")
    for name, data in (("another-seat's-key", others.to_data()), ("changed-proof", {**honest.to_data(),
                                                                                  "proof": flipped})):
        refused_everywhere(pile_table, forge(tab, 0, "dispute", data), "does not verify", name)


def test_a_wrong_opening_sealed_to_the_picker_forfeits_its_sender(tmp_path):
    path = tmp_path / "dispute.jsonl"
    tab, clock = new_table(3, path=path)
    hands = [DECK.cards(s.private["hand"]) for s in tab.seats]
    rank = DECK.rank_of(hands[1][0])
    tab.move(1, PlayCards(rank, (hands[1][0],)))
    clock.now = tab.referee.deadline + 0.01  # a timeout comes after its deadline
    tab.poll()
    lie = next(c for c in hands[2] if DECK.rank_of(c) != rank)
    tab.move(2, PlayCards(rank, (lie,)))
    tab.move(0, CallBluff(tab.rules.s.play_no))
    tab.move(2, Proceed())  # Ayşe lied and picks up; Ali owes her the opening of play 1
    ali = tab.seats[1].private
    mask, salt = ali["plays"]["1"]
    other = next(c for c in hands[1] if c != hands[1][0])  # "my play was this other card"
    wrong = seal_hand_over(ali["peers"]["2"], ali["dealerCommitment"], 2, 1, 2, {"plays": {"1": [1 << other, salt]}})
    line = forge(tab, 1, "hand_over", wrong.to_data())
    tab.seats[1]._pending = (line["n"], {})  # Ali's client, changed to send it
    tab.publish(line)  # the table cannot see inside
    assert tab.rules.stage == Stage.ABSORB and tab.to_move == 2
    with pytest.raises(CommitmentMismatch, match="not the play's commitment"):
        tab.spec.hand_over_openings(tab.seats[2].private, tab.rules, 2, 1)
    line = tab.move(2, Proceed())  # Ayşe's client disputes instead of proving a pick-up
    assert line["action"] == "dispute" and line["data"]["sender"] == 1
    assert set(line["data"]) == {"sender", "shared", "proof"}  # one hand-over's key point, never a key of the match
    assert tab.rules.s.hand_penalties[-1] == (0, DECK.size, 0) and tab.rules.s.hand_no == 2
    conservation(tab)
    report = verify_transcript(path)  # anyone checks the dispute from the transcript
    assert report["lines"] == len(tab.writer.events)


def test_a_seat_that_plays_a_card_it_gave_away_is_refused(pile_table):
    tab = pile_table["tab"]
    tab.move(0, Proceed())  # the honest pick-up: Bo now holds Ali's card
    s = tab.rules.s
    assert s.hand_sizes == (17 + 2, 18 - 1, 17 - 1) and tab.to_move == 1  # Ali was right: Ali starts
    given, old = pile_table["given"], pile_table["before_ali"]
    assert tab.seats[0].private["hand"] >> given & 1
    with pytest.raises(IllegalMove, match="own hand"):  # Ali's own client refuses
        tab.move(1, PlayCards(DECK.rank_of(given), (given,)))
    inputs = {"old_hand": old["hand"], "old_salt": old["salt"], "play": 1 << given, "play_salt": 5, "new_salt": 6}
    line = forge(tab, 1, "play", {"rank": DECK.rank_of(given), "count": 1}, PLAY_KEY, inputs)
    refused_everywhere(pile_table, line, "old_hand_commitment", "gave-away")
    conservation(tab)


# ---------------------------------------------------------------- the calling window

def test_a_late_call_is_refused_by_the_table_and_the_verifier(tmp_path):
    tab, clock = new_table(3, window=3)
    hand = DECK.cards(tab.seats[1].private["hand"])
    tab.move(1, PlayCards(DECK.rank_of(hand[0]), (hand[0],)))
    play_no, opened = tab.rules.s.play_no, tab.referee.deadline
    assert opened == pytest.approx(clock.now + 3)
    call = tab.seats[2].move(CallBluff(play_no))  # made in time, kept back
    clock.now = opened + 0.01
    with pytest.raises(IllegalMove, match="closed"):
        tab.move(2, CallBluff(play_no))  # the clock is read first: the window closes, then the call
    assert kinds(tab)[-1] == "close_window" and tab.rules.game.phase == Phase.PLAY
    with pytest.raises(IllegalMove):
        tab.publish(call)  # the call drafted before the close does not follow the close
    late = forge(tab, 2, "call", {"play": play_no})
    with pytest.raises(IllegalMove, match="closed"):
        tab.publish(late)
    path = transcript_with(tab, late, tmp_path / "late.jsonl")
    with pytest.raises(TranscriptError, match=f"line {late['n']}.*closed"):
        verify_transcript(path)
    ok = tmp_path / "ok.jsonl"
    ok.write_text("".join(canonical(e) + "\n" for e in tab.writer.events))
    assert verify_transcript(ok)["lines"] == len(tab.writer.events)


def test_the_first_of_two_simultaneous_calls_wins():
    tab, clock = new_table(4)
    hand = DECK.cards(tab.seats[1].private["hand"])
    tab.move(1, PlayCards(DECK.rank_of(hand[0]), (hand[0],)))
    play_no = tab.rules.s.play_no
    first, second = tab.seats[3].move(CallBluff(play_no)), tab.seats[2].move(CallBluff(play_no))
    assert first["n"] == second["n"]  # both made against the same line
    tab.publish(first)
    with pytest.raises(IllegalMove, match="does not follow"):
        tab.publish(second)
    assert tab.rules.s.caller == 3 and tab.rules.game.phase == Phase.TURNOVER
    with pytest.raises(IllegalMove, match="already called"):  # re-made on the new line: still refused
        tab.move(2, CallBluff(play_no))


def test_nobody_calls_in_time_and_the_window_closes_on_the_clock_not_before():
    tab, clock = new_table(3, window=5)
    hand = DECK.cards(tab.seats[1].private["hand"])
    tab.move(1, PlayCards(DECK.rank_of(hand[0]), (hand[0],)))
    clock.now += 4.9
    assert tab.poll() is None and tab.rules.game.phase == Phase.WINDOW
    clock.now += 0.2
    assert tab.poll()["action"] == "close_window" and tab.to_move == 2
    tab.move(2, PassTurn())
    assert tab.to_move == 0


def test_a_withheld_opening_forfeits_the_hand():
    tab, clock = new_table(3)
    hands = [DECK.cards(s.private["hand"]) for s in tab.seats]
    rank = DECK.rank_of(hands[1][0])
    tab.move(1, PlayCards(rank, (hands[1][0],)))
    clock.now = tab.referee.deadline + 0.01  # a timeout comes after its deadline
    tab.poll()
    lie = next(c for c in hands[2] if DECK.rank_of(c) != rank)
    tab.move(2, PlayCards(rank, (lie,)))
    tab.move(0, CallBluff(tab.rules.s.play_no))
    tab.move(2, Proceed())  # Ayşe lied: she picks up, Ali owes her his opening
    assert tab.rules.stage == Stage.HAND_OVER and tab.to_move == 1
    with pytest.raises(IllegalMove, match="nothing is expected"):
        tab.move(2, Proceed())
    with pytest.raises(IllegalMove, match="seat 1 still owes the picker"):  # the rules, on a line
        tab.publish(forge(tab, 2, "pick_up", {"count": 2, "part": 0}))
    clock.now += 59
    assert tab.poll() is None
    clock.now += 2  # the proof limit (60 s) passes
    line = tab.poll()
    assert line["action"] == "forfeit" and line["data"]["seat"] == 1
    assert tab.rules.s.hand_penalties[-1] == tuple(DECK.size if i == 1 else 0 for i in range(3))
    assert tab.rules.s.phase == Phase.PLAY and tab.rules.s.hand_no == 2  # the next hand was dealt


# ---------------------------------------------------------------- transcripts

def test_a_rewritten_line_is_refused(tmp_path):
    path = tmp_path / "t.jsonl"
    tab, clock = new_table(3, path=path)
    hand = DECK.cards(tab.seats[1].private["hand"])
    tab.move(1, PlayCards(DECK.rank_of(hand[0]), (hand[0],)))
    clock.now = tab.referee.deadline + 0.01  # a timeout comes after its deadline
    tab.poll()
    events = [json.loads(x) for x in path.read_text().splitlines()]
    assert verify_transcript(path)["lines"] == len(events)
    i = next(k for k, e in enumerate(events) if e["action"] == "play")

    def write(forged):
        out, prev = [canonical(e) for e in forged[:i]], None
        prev = line_hash(out[-1])
        for e in forged[i:]:
            e = {**e, "prev": prev}
            key = tab.seats[e["seat"]].key if e["seat"] is not None else tab.referee.key
            e = sign_line(key, e)
            out.append(canonical(e))
            prev = line_hash(out[-1])
        p = tmp_path / "forged.jsonl"
        p.write_text("\n".join(out) + "\n")
        return p

    forged = json.loads(json.dumps(events))
    forged[i]["data"]["count"] = 2  # "two cards", re-signed by the seat itself
    with pytest.raises(TranscriptError, match=f"line {i + 1}"):
        verify_transcript(write(forged))
    forged = json.loads(json.dumps(events))
    forged[i]["data"]["rank"] = (forged[i]["data"]["rank"] + 1) % 13  # another rank: not signed again
    p = tmp_path / "unsigned.jsonl"
    out = [canonical(e) for e in forged[:i + 1]]
    p.write_text("\n".join(out) + "\n")
    with pytest.raises(TranscriptError, match=f"line {i + 1}"):
        verify_transcript(p)
    assert verify_transcript(write(json.loads(json.dumps(events))))["lines"] == len(events)  # the twin


def test_options_are_checked():
    assert CheatSpec({"players": "6"}).n_seats == 6
    for bad in ({"players": "7"}, {"hands": "4"}, {"window": "2"}, {"players": 3}):
        with pytest.raises(MalformedInput):
            CheatSpec(bad)


def test_the_dealer_commits_first_and_a_malformed_entropy_line_is_refused():
    from zkbluff.field import r
    from zkbluff.games.engine.parties import Dealer, RefereeParty, Seat
    from zkbluff.games.engine.table import Table
    from zkbluff.protocol.transcript import TranscriptWriter

    spec = CheatSpec({"players": "3"})
    seats = [Seat(spec, i, f"s{i}") for i in range(3)]
    for seat in seats:
        seat.sends_deal_lines = False  # held back: the test writes them
    tab = Table(RefereeParty(spec), Dealer(spec), seats, TranscriptWriter(None))
    tab.start()
    assert [e["action"] for e in tab.writer.events] == ["header", "entropy.dealer"] and not tab.view.deal_ready
    seat = tab.seats[0]
    kind, good = spec.deal.seat_line(seat.deal_secrets, 0, tab.view.ledger, tab.match_id, 0.0)
    assert kind == "entropy.seat" and set(good) == {"commitment", "handKeyCommitment", "channelKey",
                                                    "pileKey"}  # no opening: it comes after every commitment
    at = tab.view.next_line
    off_curve = "00" * 63 + "05"  # (0, 5): 25 != 0 + 3
    for bad, why in (({"commitment": str(r)}, "field element"), ({"pileKey": "zz" * 64}, "128 lowercase hex"),
                     ({"pileKey": "ab" * 32}, "a G1 point"),  # an X25519 key (the old pile key) is no G1 key
                     ({"pileKey": off_curve}, "not on the curve"), ({"pileKey": "00" * 64}, "infinity"),
                     ({"commitment": "-1"}, "decimal string")):
        with pytest.raises(MalformedInput, match=why):
            tab.publish(seat._line(0, kind, {**good, **bad}))
    without = {k: v for k, v in good.items() if k != "pileKey"}  # no pile key: no hand-over could reach it
    with pytest.raises(MalformedInput, match="pileKey"):
        tab.publish(seat._line(0, kind, without))
    with pytest.raises(IllegalMove, match="entropy phase"):  # no card before every seat's entropy
        tab.publish(forge(tab, 0, "play", {"rank": 0, "count": 1}))
    assert tab.view.next_line == at
    tab.publish(seat._remember(seat._line(0, kind, good)))  # the twin: the seat's own entropy line
    assert tab.writer.events[-1]["action"] == "entropy.seat" and 0 in tab.view.ledger.deal.seats
