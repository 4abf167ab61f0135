"""A Bluffers seat's sealed automatic move (games/bluffers/sealed.py) on a real table with a
fake clock and real proofs: left with the referee, played by it only after the seat's
timeout, valid for one turn only, the seat's own; the transcript verifies offline, and the
verifier names each way a house could misuse a seal."""
from __future__ import annotations

import copy

import pytest

from zkbluff.errors import IllegalMove, TranscriptError
from zkbluff.games.bluffers.moves import Proceed
from zkbluff.games.bluffers.rules import Forfeit, Phase
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey
from zkbluff.protocol.transcript import canonical

from bluffers_table_helpers import Clock
from bluffers_table_helpers import away_turn as _away_turn
from bluffers_table_helpers import dealt as _dealt
from bluffers_table_helpers import play_one as _play_one


def _seal(tab, i):
    """Seat ``i``'s seal for its next turn alone (a chain of one)."""
    from zkbluff.games.bluffers.sealed import make_seal

    chain = make_seal(tab.seats[i], length=1)
    assert chain is not None and len(chain) == 1 and chain[0]["kind"] == "sealed_move"
    return chain[0]


def _write(tmp_path, events, name):
    p = tmp_path / name
    p.write_text("".join(canonical(e) + "\n" for e in events))
    return p


def test_a_sealed_move_is_played_after_the_timeout_and_the_seat_plays_on(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    hand = tab.seats[s].private["hand"]
    tab.leave_seal(s, _seal(tab, s))
    assert tab.spec.make_seal(tab.seats[s]) is None                      # made once per hand
    clock.now += 30.1
    assert tab.poll()["action"] == "timeout"
    sealed = tab.writer.events[-1]
    assert sealed["action"] == "sealed_move" and sealed["seat"] is None and sealed["data"]["seat"] == s
    assert len(sealed["proofs"]) == 2 and all(p["signer"] == s for p in sealed["proofs"])
    assert "sealed in advance" in tab.spec.text.describe(sealed, ["ann", "bob"])
    mine = tab.seats[s].private
    assert bin(mine["hand"]).count("1") == 4 and mine["hand"] | mine["play"] == hand and mine["seals"] == []
    assert tab.rules.s.last_play.auto and tab.rules.s.hand_sizes[s] == 4 and tab.to_move == 1 - s
    _play_one(tab, 1 - s)                                                # the other seat accepts and plays
    line = _play_one(tab, s)                                             # back: it plays on with its hand
    assert line["seat"] == s and tab.rules.s.hand_sizes[s] == 3
    report = verify_transcript(tab.writer.path)
    assert report["lines"] == len(tab.writer.events)


def test_a_seal_left_before_a_restart_is_played_after_it(tmp_path, mcl, match_keys):
    from zkbluff.games.engine.table import resume_match

    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    tab.leave_seal(s, _seal(tab, s))                                     # saved with the referee's secrets
    again = resume_match(tab.writer.path, backend=mcl, clock=clock, limits=TimeLimits(proof=10.0, idle=20.0))
    clock.now += 30.1
    assert again.poll()["action"] == "timeout"
    assert again.writer.events[-1]["action"] == "sealed_move" and again.writer.events[-1]["data"]["seat"] == s
    assert verify_transcript(again.writer.path)["lines"] == len(again.writer.events)


def test_without_a_seal_the_timeout_falls_back_to_the_seats_own_agent(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    clock.now += 30.1
    assert tab.poll()["action"] == "timeout"
    assert tab.writer.events[-1]["action"] == "timeout"                   # nothing sealed to play
    assert tab.spec.timeout(tab.rules) == (Forfeit(s), "idle")


def test_a_seal_opened_before_the_timeout_is_refused_and_the_verifier_names_it(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    seal = _seal(tab, s)
    tab.leave_seal(s, seal)
    early = tab.referee.open_seal(seal)                                  # the house plays it at once
    n = len(tab.writer.events)
    with pytest.raises(IllegalMove) as exc:
        tab.publish(early)
    assert exc.value.code == "sealed.early" and len(tab.writer.events) == n
    events = copy.deepcopy(tab.writer.events) + [early]
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_write(tmp_path, events, "early.jsonl"))
    assert exc.value.code == "sealed.early" and exc.value.line == early["n"]


def test_a_seal_replayed_on_a_later_turn_is_refused(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    old = _seal(tab, s)
    tab.leave_seal(s, old)
    _play_one(tab, s)                                                    # it plays itself: the seal is stale
    _play_one(tab, 1 - s)
    assert str(s) in tab.referee.private["seals"]                        # still held by the referee
    clock.now += 30.1
    assert tab.poll()["action"] == "timeout"                             # its turn times out
    assert tab.writer.events[-1]["action"] == "timeout"                  # and the stale seal is not played:
    assert str(s) not in tab.referee.private["seals"]                    # dropped, its own agent owes the move
    with pytest.raises(IllegalMove) as exc:                              # left again: refused on receipt
        tab.leave_seal(s, old)
    assert exc.value.code == "proof.replayed"
    replay = tab.referee.open_seal(old)
    with pytest.raises(IllegalMove) as exc:
        tab.publish(replay)
    assert exc.value.code == "proof.replayed"
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_write(tmp_path, copy.deepcopy(tab.writer.events) + [replay], "replay.jsonl"))
    assert exc.value.code == "proof.replayed" and exc.value.line == replay["n"]


def test_a_forged_sealed_move_is_refused(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    seal = _seal(tab, s)
    forged = copy.deepcopy(seal)                                         # re-signed by another key (the house's)
    d = forged["data"]
    from zkbluff.games.bluffers.sealed import seal_message
    d["sig"] = SigningKey.generate().sign(seal_message(tab.match_id, s, d["context"], d["play_commitment"],
                                                        d["hand_commitment"]))
    with pytest.raises(IllegalMove) as exc:
        tab.leave_seal(s, forged)
    assert exc.value.code == "sealed.signature"
    other = _seal(tab, 1 - s)                                            # the other seat's seal in its name
    other["data"]["seat"] = s
    with pytest.raises(IllegalMove):
        tab.leave_seal(s, other)
    clock.now += 30.1
    assert tab.poll()["action"] == "timeout" and tab.writer.events[-1]["action"] == "timeout"
    line = tab.referee.open_seal(forged)
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_write(tmp_path, copy.deepcopy(tab.writer.events) + [line], "forged.jsonl"))
    assert exc.value.code == "sealed.signature" and exc.value.line == line["n"]
    tab.leave_seal(s, seal)                                              # the twin: its own seal is played
    assert tab.writer.events[-1]["action"] == "sealed_move"
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


# ---------------------------------------------------------------- the rules alone

def _rules_dealt():
    from zkbluff.games.bluffers.rules import CommitSeed, DealHands, DrawTableCard, TableRules
    from zkbluff.games.engine.rules import NO_SEAT

    r = TableRules(2)
    for i in range(2):
        r.apply(i, CommitSeed(1000 + i))
    r.apply(NO_SEAT, DrawTableCard(0))
    r.apply(NO_SEAT, DealHands(0, (0, 1), ("aa", "bb")))
    return r


def _sealed(seat):
    from zkbluff.games.bluffers.rules import SealedMove

    return SealedMove(seat, 1, 2, 3, "00")


def test_the_rules_open_a_seal_only_for_the_timed_out_seat_whose_automatic_move_is_a_card():
    from zkbluff.games.bluffers.rules import AutoMove, Play, Timeout
    from zkbluff.games.engine.rules import NO_SEAT

    r = _rules_dealt()
    for who, action in ((NO_SEAT, _sealed(0)), (NO_SEAT, _sealed(1)), (0, _sealed(0))):
        with pytest.raises(IllegalMove):
            r.check(who, action)
    with pytest.raises(IllegalMove) as exc:
        r.check(NO_SEAT, _sealed(0))
    assert exc.value.code == "sealed.early"
    r.apply(NO_SEAT, Timeout(0))
    with pytest.raises(IllegalMove):                                     # the other seat's seal: not its turn
        r.check(NO_SEAT, _sealed(1))
    r.apply(NO_SEAT, _sealed(0))                                         # the twin: after its timeout
    s = r.public_state()
    assert s.hand_sizes == (4, 5) and s.last_play.auto and s.to_move == 1 and r.extras().timed_out is None
    assert r.extras().shed_due is None                                   # the seal carries the new hand
    r.apply(1, Play(3))
    r.apply(0, Play(3))
    r.apply(1, Play(2))                                                  # seat 0 alone holds cards: it must call
    r.apply(NO_SEAT, Timeout(0))
    assert r.must_call(0)
    with pytest.raises(IllegalMove) as exc:
        r.check(NO_SEAT, _sealed(0))
    assert exc.value.code == "sealed.early"
    r.apply(0, AutoMove("timeout"))                                      # its automatic move is the call


# ---------------------------------------------------------------- away for several turns: a chain of seals

def test_a_seat_away_for_three_turns_is_played_by_its_chain_of_seals_and_plays_on(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    hand = tab.seats[s].private["hand"]
    chain = tab.spec.make_seal(tab.seats[s])
    assert isinstance(chain, list) and len(chain) == 5                   # one per card of the hand: every turn of it
    tab.leave_seal(s, chain)
    for turn in range(3):                                                # away for three of its turns
        assert _away_turn(tab, clock, s) == ["timeout", "sealed_move"], turn
        assert tab.rules.s.hand_sizes[s] == 4 - turn
        _play_one(tab, 1 - s)                                            # the other seat plays on (never calls)
    mine = tab.seats[s].private
    assert bin(mine["hand"]).count("1") == 2 and len(mine["played"]) == 3
    assert mine["hand"] | sum(1 << c for c in mine["played"]) == hand   # the three sealed cards, each once
    assert len(tab.referee.private["seals"][str(s)]) == 2               # the rest of its chain is still held
    line = _play_one(tab, s)                                             # back: it plays on with its hand
    assert line["seat"] == s and tab.rules.s.hand_sizes[s] == 1
    assert tab.spec.make_seal(tab.seats[s]) is not None                  # a new hand: a new chain (of one)
    report = verify_transcript(tab.writer.path)
    assert report["lines"] == len(tab.writer.events)


def test_a_chain_seal_is_refused_out_of_its_turn(tmp_path, mcl, match_keys):
    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    chain = tab.spec.make_seal(tab.seats[s])
    with pytest.raises(IllegalMove) as exc:                              # the second seal before the first is played
        tab.leave_seal(s, chain[1:])
    assert exc.value.code == "proof.replayed"
    swapped = [chain[1], chain[0]] + chain[2:]
    with pytest.raises(IllegalMove):
        tab.leave_seal(s, swapped)
    assert str(s) not in tab.referee.private.get("seals", {})
    clock.now += 30.1
    tab.poll()                                                           # its timeout: nothing sealed is held
    assert tab.writer.events[-1]["action"] == "timeout"
    early = tab.referee.open_seal(chain[1])                              # the house plays seal 2 at turn 1
    with pytest.raises(IllegalMove) as exc:
        tab.publish(early)
    assert exc.value.code == "proof.replayed"
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_write(tmp_path, copy.deepcopy(tab.writer.events) + [early], "ahead.jsonl"))
    assert exc.value.code == "proof.replayed"
    tab.leave_seal(s, chain)                                             # the twin: the chain in order
    assert tab.writer.events[-1]["action"] == "sealed_move"
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


def test_an_away_seat_whose_sealed_play_is_called_forfeits_and_its_card_stays_secret(tmp_path, mcl, match_keys):
    """What an away seat owes and cannot seal: the reveal of its called play (a sealed opening
    would hand the referee the card before the call). Its limit runs out: it forfeits."""
    from zkbluff.games.bluffers.rules import CallBluff

    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    tab.leave_seal(s, tab.spec.make_seal(tab.seats[s]))
    assert _away_turn(tab, clock, s) == ["timeout", "sealed_move"]
    tab.move(1 - s, CallBluff())                                         # the other seat calls the sealed play
    assert tab.rules.s.phase == Phase.REVEAL and tab.to_move == s
    assert tab.spec.timeout(tab.rules) == (Forfeit(s), "proof")
    clock.now += 10.1
    assert tab.poll()["action"] == "forfeit" and tab.over
    assert not any(e["action"] == "reveal" for e in tab.writer.events)   # nobody opened its card
    assert tab.rules.result().scores[s] == 0
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


def _round_two(tmp_path, mcl):
    """Three seats: round 1 played to its pull with everyone there (seat ``c``, neither the
    caller nor the called, leaves its chain and gives its share), round 2 dealt."""
    from zkbluff.games.bluffers.rules import CallBluff

    clock = Clock()
    tab = open_match("bluffers", {"players": "3"}, ["ann", "bob", "cid"], transcript=tmp_path / "b.jsonl",
                     clock=clock, backend=mcl, limits=TimeLimits(proof=10.0, idle=20.0),
                     seed=1)  # round 1's pull clicks (a bang would leave two seats, and c's forfeit would end it)
    while tab.rules.s.phase != Phase.TURN:
        tab.move(tab.to_move, Proceed())
    a = tab.to_move
    _play_one(tab, a)
    b = tab.to_move
    c = 3 - a - b
    tab.leave_seal(c, tab.spec.make_seal(tab.seats[c]))                  # its chain for round 1's hand
    tab.move(b, CallBluff())
    while tab.rules.s.phase != Phase.TURN:                               # the reveal, the pull, round 2's deal
        tab.move(tab.to_move, Proceed())
    assert tab.rules.s.round == 2 and all(tab.rules.s.alive)
    while tab.to_move != c:
        _play_one(tab, tab.to_move)
    return tab, clock, c


def test_an_away_seat_cannot_play_a_new_round_it_forfeits_at_the_idle_limit(tmp_path, mcl, match_keys):
    """A new round's hand is sealed to the seat's own device: away, nobody can seal its moves
    for it. Its chain from the round before is never played in the new one."""
    tab, clock, c = _round_two(tmp_path, mcl)
    assert len(tab.referee.private["seals"][str(c)]) == 5                # round 1's chain, never played
    assert _away_turn(tab, clock, c) == ["timeout"]                      # its 30 seconds: round 1's chain is stale
    assert str(c) not in tab.referee.private.get("seals", {})            # and dropped, not played
    assert tab.spec.timeout(tab.rules) == (Forfeit(c), "idle")
    clock.now += 20.1
    line = tab.poll()                                                    # (then round 3 is dealt to the two left)
    assert line["action"] == "forfeit" and line["data"]["seat"] == c
    assert tab.rules.s.forfeited[c] and not tab.over                     # out, no points; the match goes on
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


def test_the_twin_a_seat_there_at_the_new_deal_seals_its_new_hand_and_is_played_away(tmp_path, mcl, match_keys):
    tab, clock, c = _round_two(tmp_path, mcl)
    tab.leave_seal(c, tab.spec.make_seal(tab.seats[c]))                  # its client opened the new hand: a new chain
    assert _away_turn(tab, clock, c) == ["timeout", "sealed_move"]
    assert not tab.rules.s.forfeited[c]
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


def test_a_chain_is_one_to_five_seals_never_more_than_the_hand_holds(tmp_path, mcl, match_keys):
    from zkbluff.errors import MalformedInput

    tab, clock = _dealt(tmp_path, mcl)
    s = tab.to_move
    chain = tab.spec.make_seal(tab.seats[s])
    for bad in ([], chain + chain[:1]):
        with pytest.raises(MalformedInput):
            tab.leave_seal(s, bad)
    tab.leave_seal(s, chain)
    assert _away_turn(tab, clock, s) == ["timeout", "sealed_move"]      # four cards left, four seals held
    with pytest.raises(IllegalMove) as exc:                              # five seals for a hand of four
        tab.leave_seal(s, chain[1:] + chain[1:2])
    assert "holds 4 card(s)" in str(exc.value)
    tab.leave_seal(s, chain[1:])                                         # the twin: the rest of its chain
    assert len(tab.referee.private["seals"][str(s)]) == 4
