"""Issue 26, item 4: the clock belongs to nobody. Each attack is written as it succeeded on
main, and must now fail for the attacker:

- 4a: a referee whose clock runs 601 s ahead times a seat out early; the seat's own ``Seat``
  took the lines (it kept no receive time) and ``transcript verify`` passed;
- 4b: a seat's line with no ``at`` was accepted, live and offline, so the next deadline ran
  from the line before it: a seat that answers unstamped 14 s into a 15 s wait gets the
  honest seat it answered timed out 0.2 s later;
- 4c: Cheat: a seat back-dates its play by up to the stamp tolerance (5 s); the calling
  window ran from the play's own stamp, so the others' call half a second after the play
  was refused as late.

The toy game (``engine_toy_game``, no proofs) gets a timeout here: the referee ``tick`` s
when the seat to move lets its ``idle`` limit run out.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from engine_toy_game import Clock, Go, timed_table
from zkbluff.errors import ClockDispute, IllegalMove, MalformedInput, TranscriptError, ZkbluffError
from zkbluff.games.engine.referee import STAMP_TOLERANCE, Referee
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import sign_line, sign_receipt
from zkbluff.protocol.transcript import canonical


def kinds(tab) -> list[str]:
    return [e["action"] for e in tab.writer.events]


# ---------------------------------------------------------------- 4a: a skewed referee

def test_attack_4a_a_referee_601_s_ahead_cannot_time_a_seat_out_unnoticed(monkeypatch, tmp_path):
    """The referee's clock jumps 601 s ahead right after seat 0's move (idle 600 s): it
    writes seat 1's timeout at once. Seat 1's clock reads 0.5 s later: it refuses the line
    (``clock.skew``) and keeps the complaint, its own receive times with it."""
    ref = Clock(1000.0)
    tab = timed_table(monkeypatch, tmp_path, ref, idle=600.0)
    mine = Clock(1000.0)
    tab.seats[1].clock = mine
    tab.move(0, Go(1))
    ref.now, mine.now = 1601.5, 1000.5
    with pytest.raises(ClockDispute) as refused:
        tab.poll()
    assert refused.value.code == "clock.skew"
    seat = tab.seats[1]
    assert seat.view.next_line == 3  # its copy did not take the timeout
    [complaint] = seat.disputes
    assert complaint["code"] == "clock.skew" and complaint["line"] == 3
    assert complaint["refereeAt"] == 1601.5 and complaint["receivedAt"] == 1000.5
    assert seat.received_at[2] == 1000.0  # the receive time of the line that started its wait


def test_a_stamp_behind_the_seat_clock_is_a_late_delivery_not_a_skew(monkeypatch, tmp_path):
    """The twin of 4a: a line that reaches a seat 601 s after its stamp in a catch-up (the
    seat was away; its connection began at 1601, after the stamp) is taken. (One that came
    live is refused: tests/games/engine/test_clock_live.py.)"""
    ref = Clock(1000.0)
    tab = timed_table(monkeypatch, tmp_path, ref, idle=600.0)
    tab.seats[1].clock = Clock(1601.0)
    tab.seats[1].connected_at = 1601.0
    tab.move(0, Go(1))
    assert tab.seats[1].view.next_line == 3 and tab.seats[1].disputes == []
    assert tab.seats[1].received_at[2] == 1601.0


def test_a_timeout_within_tolerance_at_each_stamp_is_still_contradicted_by_the_seat_receive_times(
        monkeypatch, tmp_path):
    """Each stamp within the tolerance of the seat's clock, yet the wait ran 12 s by the seat's
    clock, not 20 s: ``timeout.contradicted``, its complaint saved."""
    ref = Clock(1000.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    mine = Clock(1004.0)
    tab.seats[1].clock = mine
    tab.move(0, Go(1))  # the referee receives it at 1000.0, seat 1 at its own 1004.0
    ref.now, mine.now = 1020.1, 1016.0
    with pytest.raises(ClockDispute) as refused:
        tab.poll()
    assert refused.value.code == "timeout.contradicted"
    [complaint] = tab.seats[1].disputes
    assert complaint["code"] == "timeout.contradicted" and complaint["since"] == 2
    assert complaint["sinceReceivedAt"] == 1004.0 and complaint["receivedAt"] == 1016.0


def test_an_honest_timeout_is_taken_by_the_seat_it_times_out(monkeypatch, tmp_path):
    """The twin: the same table, the wait run out on both clocks: the seat takes its timeout."""
    ref = Clock(1000.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    mine = Clock(1004.0)
    tab.seats[1].clock = mine
    tab.move(0, Go(1))
    ref.now, mine.now = 1020.1, 1023.0
    assert tab.poll()["action"] == "tick"
    assert tab.seats[1].view.next_line == 4 and tab.seats[1].disputes == []


def test_a_header_without_a_sane_tolerance_is_refused(monkeypatch, tmp_path):
    ref = Clock(1000.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    header = tab.writer.events[0]
    assert header["data"]["clock"] == {"tolerance": STAMP_TOLERANCE}
    for bad in ({"tolerance": 3600}, {"tolerance": 0}, {"tolerance": True}, {}, {"tolerance": 5, "x": 1}):
        forged = sign_line(tab.referee.key, {**header, "data": {**header["data"], "clock": bad}})
        with pytest.raises(MalformedInput) as refused:
            Referee(forged)
        assert refused.value.code == "header.malformed"


# ---------------------------------------------------------------- 4b: an unstamped line

def _unstamped(line: dict[str, Any], key) -> dict[str, Any]:
    return sign_line(key, {k: v for k, v in line.items() if k not in ("at", "sig")})


def test_attack_4b_an_unstamped_answer_is_refused_and_the_wait_runs_from_its_stamped_resend(
        monkeypatch, tmp_path):
    ref = Clock(100.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    tab.move(0, Go(1))  # the honest line, stamped 100
    ref.now = 119.8
    seat = tab.seats[1]
    unstamped = _unstamped(seat.move(Go(2)), seat.key)
    with pytest.raises(MalformedInput) as refused:
        tab.submit(unstamped)
    assert refused.value.code == "line.stamp"
    assert kinds(tab) == ["header", "go"]  # refused means unchanged
    tab.submit(seat.resend())  # the same move, stamped
    ref.now = 120.2  # where main timed seat 0 out, 0.2 s after the answer
    assert tab.poll() is None
    ref.now = 139.8
    assert tab.poll() is None
    ref.now = 139.9
    assert tab.poll()["clock"]["deadline"] == pytest.approx(139.8)


def test_an_unstamped_line_is_malformed_offline(monkeypatch, tmp_path):
    ref = Clock(100.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    tab.move(0, Go(1))
    ref.now = 101.0
    seat = tab.seats[1]
    unstamped = _unstamped(seat.move(Go(2)), seat.key)
    path = tmp_path / "unstamped.jsonl"
    path.write_text("".join(canonical(e) + "\n" for e in tab.writer.events + [unstamped]))
    with pytest.raises(MalformedInput) as refused:  # exit 2: malformed
        verify_transcript(path)
    assert refused.value.code == "line.stamp" and refused.value.line == 3
    stamped = tmp_path / "stamped.jsonl"  # the twin: the same line stamped and received
    stamped.write_text("".join(canonical(e) + "\n" for e in tab.writer.events +
                               [sign_receipt(tab.referee.key, seat.resend(), 101.0)]))
    assert verify_transcript(stamped)["lines"] == 3


def test_an_unstamped_referee_line_is_malformed_offline(monkeypatch, tmp_path):
    ref = Clock(100.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    tab.move(0, Go(1))
    ref.now = 121.0
    tick = tab.poll()
    view = Referee(tab.writer.events[0])
    view.apply(tab.writer.events[1])
    with pytest.raises(MalformedInput) as refused:
        view.apply(_unstamped(tick, tab.referee.key))
    assert refused.value.code == "line.stamp"


# ---------------------------------------------------------------- receipts

def test_every_seat_line_carries_the_referee_receipt_and_deadlines_run_from_it(monkeypatch, tmp_path):
    ref = Clock(100.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    tab.seats[0].clock = Clock(96.0)  # 4 s behind the referee: within the tolerance
    ref.now = 100.0
    line = tab.move(0, Go(1))
    assert line["at"] == 96.0 and line["received"]["at"] == 100.0
    assert tab.referee.deadline == pytest.approx(120.0)  # from the receipt, not from 96
    assert "received" not in tab.writer.events[0]


@pytest.mark.parametrize("shift", [STAMP_TOLERANCE + 0.1, -(STAMP_TOLERANCE + 0.1)])
def test_a_seat_stamp_beyond_the_tolerance_of_its_receipt_is_refused_offline(monkeypatch, tmp_path, shift):
    """A back-dated (or forward-dated) seat stamp: more than the header's tolerance from the
    referee's signed receipt of the line."""
    ref = Clock(100.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    line = tab.seats[0].move(Go(1))
    view = Referee(tab.writer.events[0])
    bad = sign_receipt(tab.referee.key, line, line["at"] + shift)
    with pytest.raises(IllegalMove) as refused:
        view.apply(bad)
    assert refused.value.code == "line.stamp"
    view.apply(sign_receipt(tab.referee.key, line, line["at"] + STAMP_TOLERANCE))  # the twin: at the tolerance


def test_a_receipt_not_signed_by_the_referee_is_refused(monkeypatch, tmp_path):
    ref = Clock(100.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    line = tab.seats[0].move(Go(1))
    view = Referee(tab.writer.events[0])
    with pytest.raises(ZkbluffError) as refused:
        view.apply(sign_receipt(tab.seats[0].key, line, 100.0))
    assert refused.value.code == "line.signature"
    received = sign_receipt(tab.referee.key, line, 100.0)
    edited = json.loads(json.dumps(received))
    edited["received"]["at"] = 100.5  # the time moved after the referee signed it
    with pytest.raises(ZkbluffError) as refused:
        view.apply(edited)
    assert refused.value.code == "line.signature"
    view.apply(received)


def test_a_seat_cannot_bring_its_own_receipt(monkeypatch, tmp_path):
    ref = Clock(100.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    line = sign_receipt(tab.seats[0].key, tab.seats[0].move(Go(1)), 90.0)
    with pytest.raises(IllegalMove) as refused:
        tab.submit(line)
    assert refused.value.code == "line.malformed" and kinds(tab) == ["header"]


# ---------------------------------------------------------------- 4c: Cheat's back-dated play

def test_attack_4c_a_back_dated_play_does_not_shorten_the_calling_window():
    from cheat_engine_helpers import new_table
    from zkbluff.games.cheat.moves import CallBluff, PlayCards
    from zkbluff.games.cheat.rules import DECK

    tab, clock = new_table(3, window=1)
    clock.now += 10.0
    tab.seats[1].clock = lambda: clock.now - (STAMP_TOLERANCE - 0.1)  # back-dated as far as the referee takes
    hand = DECK.cards(tab.seats[1].private["hand"])
    play = tab.move(1, PlayCards(DECK.rank_of(hand[0]), (hand[0],)))
    assert play["received"]["at"] - play["at"] == pytest.approx(STAMP_TOLERANCE - 0.1)
    clock.now += 0.5
    tab.move(2, CallBluff(tab.rules.s.play_no))  # half a second after the play: in time
    assert tab.rules.s.caller == 2


def test_the_calling_window_still_closes_a_window_after_the_referee_receipt():
    from cheat_engine_helpers import new_table
    from zkbluff.games.cheat.moves import CallBluff, PlayCards
    from zkbluff.games.cheat.rules import DECK

    tab, clock = new_table(3, window=1)
    clock.now += 10.0
    hand = DECK.cards(tab.seats[1].private["hand"])
    tab.move(1, PlayCards(DECK.rank_of(hand[0]), (hand[0],)))
    clock.now += 1.01
    with pytest.raises(IllegalMove, match="closed"):
        tab.move(2, CallBluff(tab.rules.s.play_no))


def test_a_line_as_sent_and_as_received_are_one_move_not_an_equivocation(monkeypatch, tmp_path):
    from zkbluff.games.engine.verifier import equivocation

    ref = Clock(100.0)
    tab = timed_table(monkeypatch, tmp_path, ref)
    header = tab.writer.events[0]
    sent = tab.seats[0].move(Go(1))
    written = tab.submit(sent)
    assert "received" in written and "received" not in sent
    assert equivocation(header, sent, written) is None
    other = sign_line(tab.seats[0].key, {**{k: v for k, v in sent.items() if k != "sig"}, "data": {"step": 2}})
    assert equivocation(header, other, written) is not None  # the twin: another move for the line
