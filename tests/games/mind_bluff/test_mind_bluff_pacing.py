"""Mind Bluff's paced pauses are rules (issue 27 item 11). Seed 001: "Doubt pauses all
manual and automatic play for 4.5 seconds"; game 3's 10-second coin/number animation:
"Closing the animation does not skip the server's waiting period". So no seat's line may
come inside either pause: the referee refuses it live (by the line's stamp and by its own
clock: ``PausedMove``, ``move.paused``), every seat's client refuses to make one, and the
offline verifier refuses a transcript whose stamps were edited into a pause (re-signed by
the seat that made the line). Each pause runs from the stamp of the line that opened it
(the doubt, game 3's ``start_game``), the one the engine's deadlines run from.

Real proofs, an injected clock: nothing here sleeps."""
from __future__ import annotations

import json

import pytest

from zkbluff.errors import PausedMove, TranscriptError
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.mind_bluff.bot import Move
from zkbluff.games.mind_bluff.rules import PACING, AllDone, Claim, Doubt, Eat, Phase, RevealEntropy
from zkbluff.protocol.signing import sign_line, sign_receipt
from zkbluff.protocol.transcript import canonical

DOUBT_S, COIN_S = 4.5, 10.0  # the seed's numbers, not read from the code under test


class Clock:
    def __init__(self, t: float = 7000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def _table(tmp_path, clock):
    return open_match("mind-bluff", {"humans": "none"}, ["Aiko", "Ben"], transcript=tmp_path / "mb.jsonl",
                      clock=clock, limits=TimeLimits(idle=600.0))


def _move(tab, clock, seat, intent, after=1.0):
    clock.t += after
    return tab.move(seat, intent)


def _to_doubt(tmp_path):
    """P1 eats 1 and claims 1; P2 doubts (the referee's verdict follows at once); P2 is to
    move next, inside the doubt's pause."""
    clock = Clock()
    tab = _table(tmp_path, clock)
    _move(tab, clock, 0, Move(Eat(), 1))
    _move(tab, clock, 0, Move(Claim(1, False)))
    doubt = _move(tab, clock, 1, Move(Doubt()))
    assert tab.writer.events[-1]["action"] == "doubt_verdict" and tab.to_move == 1
    return clock, tab, doubt


def _to_game3(tmp_path):
    """P1 calls All done in game 1 and P2 in game 2 (each loses: 30 remain), the seats reveal
    their draw entropies, the referee opens game 3 with its draw proof."""
    clock = Clock()
    tab = _table(tmp_path, clock)
    _move(tab, clock, 0, Move(AllDone()))
    _move(tab, clock, 1, Move(AllDone()))
    while tab.rules.phase == Phase.DRAW:
        _move(tab, clock, tab.to_move, Move(RevealEntropy("")))
    start = tab.writer.events[-1]
    assert start["action"] == "start_game" and start["data"]["game"] == 3 and tab.rules.phase == Phase.TURN
    return clock, tab, start


def _made_anyway(tab, seat, intent, at):
    """Seat ``seat``'s signed line for ``intent`` stamped ``at``, made past its own client's
    guard (as a hostile client would) and taken as its own by the table's copy of it."""
    s = tab.seats[seat]
    move = tab.spec.seat_move(s.private, s.view.rules, seat, intent)
    saved, s.clock = s.clock, (lambda: at)
    try:
        line = s._signed_move(move, seat, s.prover)
    finally:
        s.clock = saved
    s._remember(line)
    s._pending = (line["n"], move.update)
    return line


# ---------------------------------------------------------------- live: the table, the seats, the referee

def test_the_pauses_are_the_seeds():
    assert (PACING.doubt_hold_s, PACING.coin_animation_s) == (DOUBT_S, COIN_S)


def test_attack_a_move_4_4_s_after_a_doubt_is_refused(tmp_path, match_keys):
    clock, tab, doubt = _to_doubt(tmp_path)
    n = len(tab.writer.events)
    clock.t = doubt["at"] + 4.4
    line = _made_anyway(tab, 1, Move(Eat(), 2), clock.t)
    with pytest.raises(PausedMove) as exc:
        tab.submit(line)
    assert exc.value.code == "move.paused" and "4.5" in str(exc.value)
    assert len(tab.writer.events) == n and tab.view.next_line == n + 1  # nothing written
    assert tab.view.paused_until == doubt["at"] + DOUBT_S


def test_attack_a_move_stamped_after_the_pause_but_sent_inside_it_is_refused_by_the_referees_clock(
        tmp_path, match_keys):
    clock, tab, doubt = _to_doubt(tmp_path)
    n = len(tab.writer.events)
    clock.t = doubt["at"] + 1.0                       # the referee's clock: 1 s after the doubt
    line = _made_anyway(tab, 1, Move(Eat(), 2), doubt["at"] + 4.6)  # stamped ahead, within the tolerance
    with pytest.raises(PausedMove, match="referee's clock"):
        tab.submit(line)
    assert len(tab.writer.events) == n
    clock.t = doubt["at"] + 4.6                       # the same line once the pause is over: taken
    assert tab.submit(line)["action"] == "eat"


def test_a_seats_own_client_refuses_to_move_inside_the_pause(tmp_path, match_keys):
    clock, tab, doubt = _to_doubt(tmp_path)
    n = len(tab.writer.events)
    clock.t = doubt["at"] + 4.4
    with pytest.raises(PausedMove):
        tab.move(1, Move(Eat(), 2))
    assert len(tab.writer.events) == n and tab.seats[1].signed_here() is None  # nothing signed either
    assert tab.seats[1].pause_left() == pytest.approx(0.1)


def test_twin_a_move_4_6_s_after_a_doubt_is_taken_and_the_transcript_verifies(tmp_path, match_keys):
    clock, tab, doubt = _to_doubt(tmp_path)
    clock.t = doubt["at"] + 4.6
    assert tab.seats[1].pause_left() == 0.0
    assert tab.move(1, Move(Eat(), 2))["action"] == "eat"
    _move(tab, clock, 1, Move(Claim(2, True)))        # P2 owes an honest claim (TRUE: the doubter's debt)
    assert tab.view.paused_until == doubt["at"] + DOUBT_S  # no pause since
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


def test_the_pause_holds_only_seats_the_referees_verdict_comes_at_once(tmp_path, match_keys):
    clock, tab, doubt = _to_doubt(tmp_path)
    verdict = tab.writer.events[-1]
    assert verdict["action"] == "doubt_verdict" and verdict["at"] == doubt["at"]


def test_attack_a_move_5_s_after_game_3_starts_is_refused(tmp_path, match_keys):
    clock, tab, start = _to_game3(tmp_path)
    first = tab.to_move
    n = len(tab.writer.events)
    clock.t = start["at"] + 5.0
    with pytest.raises(PausedMove):                   # its own client
        tab.move(first, Move(AllDone()))
    line = _made_anyway(tab, first, Move(AllDone()), clock.t)
    with pytest.raises(PausedMove) as exc:            # the referee
        tab.submit(line)
    assert exc.value.code == "move.paused" and len(tab.writer.events) == n


def test_twin_a_move_10_1_s_after_game_3_starts_is_taken(tmp_path, match_keys):
    clock, tab, start = _to_game3(tmp_path)
    clock.t = start["at"] + 10.1
    assert tab.move(tab.to_move, Move(AllDone()))["action"] == "all_done"
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


def test_games_1_and_2_open_without_a_pause(tmp_path, match_keys):
    clock = Clock()
    tab = _table(tmp_path, clock)
    start = tab.writer.events[-1]
    assert start["action"] == "start_game" and tab.view.paused_until <= start["at"]
    clock.t = start["at"] + 0.1
    assert tab.move(0, Move(AllDone()))["action"] == "all_done"
    game2 = tab.writer.events[-1]
    assert game2["action"] == "start_game" and game2["data"]["game"] == 2
    assert tab.move(1, Move(AllDone()))["action"] == "all_done"  # at once: game 2 opens unpaused


# ---------------------------------------------------------------- offline: stamps edited, re-signed

def _restamped(tab, tmp_path, n, at, name):
    """The transcript up to line ``n``, whose stamp is moved to ``at`` and which is re-signed
    by the seat that made it (the offending party), its receipt re-issued at the same time by
    the referee (a house colluding with it): a prefix, so every line before it stands."""
    events = [json.loads(json.dumps(e)) for e in tab.writer.events[:n]]
    line = events[-1]
    line["at"] = at
    signed = sign_line(tab.seats[line["seat"]].key, {k: v for k, v in line.items() if k not in ("sig", "received")})
    events[-1] = sign_receipt(tab.referee.key, signed, at) if "received" in line else signed
    path = tmp_path / name
    path.write_text("\n".join(canonical(e) for e in events) + "\n")
    return path


def _first_seat_line_after(tab, n):
    return next(e for e in tab.writer.events if e["n"] > n and e["seat"] is not None)


def test_attack_offline_a_move_restamped_4_4_s_after_the_doubt_fails_move_paused(tmp_path, match_keys):
    clock, tab, doubt = _to_doubt(tmp_path)
    _move(tab, clock, 1, Move(Eat(), 2), after=DOUBT_S + 1.0)
    eat = _first_seat_line_after(tab, doubt["n"])
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_restamped(tab, tmp_path, eat["n"], doubt["at"] + 4.4, "early.jsonl"))
    assert exc.value.code == "move.paused" and exc.value.line == eat["n"]
    # the twin: the same edit to 4.6 s after the doubt verifies
    report = verify_transcript(_restamped(tab, tmp_path, eat["n"], doubt["at"] + 4.6, "late.jsonl"))
    assert report["lines"] == eat["n"]


def test_attack_offline_a_move_restamped_5_s_after_game_3_starts_fails_move_paused(tmp_path, match_keys):
    clock, tab, start = _to_game3(tmp_path)
    _move(tab, clock, tab.to_move, Move(AllDone()), after=COIN_S + 1.0)
    first = _first_seat_line_after(tab, start["n"])
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_restamped(tab, tmp_path, first["n"], start["at"] + 5.0, "early3.jsonl"))
    assert exc.value.code == "move.paused" and exc.value.line == first["n"]
    report = verify_transcript(_restamped(tab, tmp_path, first["n"], start["at"] + 10.1, "late3.jsonl"))
    assert report["lines"] == first["n"]


# ---------------------------------------------------------------- `zkbluff play` waits it out

def test_zkbluff_play_sleeps_out_the_pause_before_it_asks_or_moves(tmp_path, match_keys):
    from zkbluff.cli.games import wait_out_pause

    clock, tab, doubt = _to_doubt(tmp_path)
    clock.t = doubt["at"] + 0.5
    slept, said = [], []
    assert wait_out_pause(tab, 1, said.append, slept.append) == pytest.approx(4.0)
    assert slept == [pytest.approx(4.0)] and said == ["  (play is paused for 4.0 s)"]
    clock.t = doubt["at"] + DOUBT_S                   # the twin: at the pause's end nothing is slept
    assert wait_out_pause(tab, 1, said.append, slept.append) == 0.0 and len(slept) == 1
