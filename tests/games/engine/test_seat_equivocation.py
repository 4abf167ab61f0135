"""A seat never signs two different moves that could stand at one position (one line
number after one previous hash). The attack: the house takes a seat's signed move, does
not write it, calls it stale ("your stamp is too old") and asks again; with two signed
moves for one line it could write whichever suits it. The seat refuses a second move
there until a line lands at that number (which makes its first move truly stale), and
gives the same move again, re-stamped, instead. Mind Bluff with real proofs (the eat's
range proof), a fake clock."""
from __future__ import annotations

import pytest

from zkbluff.errors import Equivocation, IllegalMove
from zkbluff.games.engine.parties import Seat
from zkbluff.games.engine.table import open_match
from zkbluff.games.mind_bluff.bot import Move
from zkbluff.games.mind_bluff.rules import AllDone, Consent, Eat, Phase, TimeOut


class Clock:
    def __init__(self, t: float = 7000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def _at_p1s_turn(tmp_path):
    clock = Clock()
    tab = open_match("mind-bluff", {"humans": "none"}, ["ann", "bob"], transcript=tmp_path / "m.jsonl",
                     match_id="equivocation", clock=clock)
    assert tab.rules.phase == Phase.TURN and tab.to_move == 0
    return tab, clock


def _move_of(line):
    return {k: v for k, v in line.items() if k not in ("at", "sig", "received")}


def test_the_house_cannot_get_a_second_signed_move_for_one_line(tmp_path):
    tab, clock = _at_p1s_turn(tmp_path)
    seat = tab.seats[0]
    first = seat.move(Move(Eat(), 1))           # the house takes it and writes nothing
    clock.t += 30                               # "your line is stale: its stamp is 30 s old"
    with pytest.raises(Equivocation, match="already signed") as exc:
        seat.move(Move(Eat(), 3))               # the attack: another move for the same line
    assert isinstance(exc.value, IllegalMove) and exc.value.code == "line.equivocation"
    with pytest.raises(Equivocation):
        seat.move(Move(Eat(), 1))               # even the same intent: a fresh seal is another move
    again = seat.resend()                       # what the seat gives instead: the same move, re-stamped
    assert _move_of(again) == _move_of(first) and again["at"] == clock.t and again["sig"] != first["sig"]
    tab.submit(again)                           # it stands at its line, proof and all
    assert _move_of(tab.writer.events[first["n"] - 1]) == _move_of(first)


def test_a_move_made_stale_by_a_line_that_landed_first_is_made_again_for_the_next_line(tmp_path):
    """After game 1 both human seats may consent, in any order: P2 signs its consent for
    line n, P1's lands there first. P2's line is truly stale (a signed line occupies n), so
    P2 signs its consent again for line n + 1, and it is written there."""
    clock = Clock()
    tab = open_match("mind-bluff", {"humans": "both"}, ["ann", "bob"], transcript=tmp_path / "m.jsonl",
                     match_id="equivocation-stale", clock=clock)
    tab.move(0, Move(AllDone()))                # P1 gives up game 1 at once (30 left: it loses)
    assert tab.rules.phase == Phase.NEXT_GAME
    n = tab.view.next_line
    stale = tab.seats[1].move(Move(Consent()))  # made for line n ...
    clock.t += 1
    landed = tab.move(0, Move(Consent()))       # ... but P1's consent lands at n first
    assert landed["n"] == n and stale["n"] == n
    with pytest.raises(IllegalMove, match="nothing signed"):
        tab.seats[1].resend()                   # its old line can never stand: nothing to resend
    again = tab.move(1, Move(Consent()))        # made again for the next line
    assert again["n"] == n + 1 and again["prev"] != stale["prev"] and again["seat"] == 1
    assert tab.rules.game == 2


def test_a_seat_refuses_to_resend_once_a_line_landed_at_its_number(tmp_path):
    tab, clock = _at_p1s_turn(tmp_path)
    seat = tab.seats[0]
    stale = seat.move(Move(Eat(), 1))           # made, but the referee's clock gets there first
    clock.t += tab.referee.limits.idle + 1
    out = tab.poll()                            # the timeout lands at that number
    assert out["n"] == stale["n"] and out["action"] == TimeOut.kind
    with pytest.raises(IllegalMove, match="nothing signed"):
        seat.resend()


def test_a_seat_resends_only_at_the_position_it_signed_and_its_signed_line_survives_a_restore(tmp_path):
    tab, clock = _at_p1s_turn(tmp_path)
    seat = tab.seats[0]
    with pytest.raises(IllegalMove, match="nothing signed"):
        seat.resend()                           # nothing signed here yet
    first = seat.move(Move(Eat(), 2))
    back = Seat.restore(seat.spec, seat.export(), seat.prover, clock)  # the client restarted
    for e in tab.writer.events:
        back.receive(e, restoring=True)
    with pytest.raises(Equivocation):
        back.move(Move(Eat(), 1))
    assert _move_of(back.resend()) == _move_of(first)


def test_two_lines_one_party_signed_for_one_position_are_evidence_against_it(tmp_path):
    """What a copy of the match and a party's records show (the compare of two copies asks
    this of the lines where they part): a re-stamp is the same move; a seat's line and the
    referee's timeout at one number are a race; two different moves signed by one seat for
    one position convict that seat (an honest seat never signs them)."""
    from zkbluff.errors import TranscriptError
    from zkbluff.games.engine.verifier import equivocation
    from zkbluff.protocol.signing import sign_line

    tab, clock = _at_p1s_turn(tmp_path)
    header, seat = tab.writer.events[0], tab.seats[0]
    first = seat.move(Move(Eat(), 1))
    clock.t += 30
    assert equivocation(header, first, seat.resend()) is None            # a re-stamp: the same move
    forged = sign_line(seat.key, {**{k: v for k, v in first.items() if k != "sig"},
                                  "data": {"sealed": first["data"]["sealed"][:-2] + "00"}})
    found = equivocation(header, first, forged)                          # a seat that signed two moves
    assert isinstance(found, Equivocation) and found.code == "line.equivocation"
    assert "seat 0 (ann)" in str(found) and f"line {first['n']}" in str(found)
    clock.t += tab.referee.limits.idle + 1
    timeout = tab.poll()                                                 # the referee's line at that number
    assert equivocation(header, first, timeout) is None                  # a race, not evidence
    with pytest.raises(TranscriptError) as exc:                          # a line its party did not sign
        equivocation(header, first, {**forged, "seat": 1})
    assert exc.value.code == "line.signature"
    from zkbluff.errors import MalformedInput
    with pytest.raises(MalformedInput, match="not for one position"):
        equivocation(header, first, tab.writer.events[-1])
