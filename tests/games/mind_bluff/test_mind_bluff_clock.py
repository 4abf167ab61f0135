"""Mind Bluff's time limits: the seed sets none, so this table gives every seat's wait (its
turn, claim, answer, draw entropy, consent) the header's ``idle`` limit, and a seat that
lets it run out forfeits the series (``timeout``, the referee's line, strictly after the
deadline). The rules refuse a timeout of anyone but the seat waited for; the live referee
and the offline verifier refuse one stamped at or before its deadline, re-signed or not.
Real proofs (the eats and verdicts before the timeout), a fake clock."""
from __future__ import annotations

import json

import pytest

from zkbluff.errors import EarlyTimeout, IllegalMove, TranscriptError
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.mind_bluff.bot import Move
from zkbluff.games.mind_bluff.rules import (
    AllDone, AllDoneVerdict, Believe, Claim, Eat, EatVerdict, EventKind, MindBluffRules, Phase, Reveal,
    StartGame, TimeOut,
)
from zkbluff.games.mind_bluff.spec import series_review
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import canonical, line_hash

IDLE = 30.0


class Clock:
    def __init__(self, t: float = 5000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


# ---------------------------------------------------------------- the rules alone

def _turn() -> MindBluffRules:
    r = MindBluffRules((True, True))
    r.apply(NO_SEAT, StartGame(1, 0))
    return r


def test_a_timeout_forfeits_the_series_to_the_other_seat():
    r = _turn()
    r.apply(NO_SEAT, TimeOut(0))
    assert r.over and r.series_winner == 1 and r.timed_out == 0
    res = r.result()
    assert res.placements == (2, 1) and res.scores == (0, 0) and "P1 let its time run out" in res.reason
    assert r.public_state().timed_out == 0 and r.events[-1].kind == EventKind.TIMED_OUT


def test_a_timeout_names_only_the_seat_waited_for_and_only_the_referee_writes_it():
    r = _turn()
    before = r.public_state()
    with pytest.raises(IllegalMove, match="not the seat the table waits for"):
        r.apply(NO_SEAT, TimeOut(1))              # P1 is to move, not P2
    with pytest.raises(IllegalMove, match="only the referee's clock"):
        r.apply(1, TimeOut(0))                    # a seat may not time its opponent out
    with pytest.raises(IllegalMove, match="not the seat"):
        r.apply(NO_SEAT, TimeOut(True))           # a bool is not seat 1
    r.apply(0, Eat("sealed"))                     # now the referee owes a verdict: no seat's time runs
    with pytest.raises(IllegalMove, match="no seat's time runs"):
        r.apply(NO_SEAT, TimeOut(0))
    assert r.phase == Phase.EAT_VERDICT and before.phase == Phase.TURN and not r.over
    r.apply(NO_SEAT, EatVerdict(False))
    r.apply(0, Claim(2, False))
    r.apply(NO_SEAT, TimeOut(1))                  # P2 waited for (Believe or Doubt)
    assert r.series_winner == 0


def test_a_consent_that_never_comes_times_out():
    r = MindBluffRules((False, True))
    r.apply(NO_SEAT, StartGame(1, 0))
    r.apply(0, AllDone())
    r.apply(NO_SEAT, AllDoneVerdict(False))       # P1 loses game 1
    r.apply(NO_SEAT, Reveal(1, 30, (), (), (), "", "", ""))
    assert r.phase == Phase.NEXT_GAME and r.to_move == 1
    with pytest.raises(IllegalMove):
        r.apply(NO_SEAT, TimeOut(0))              # a bot seat is never waited for
    r.apply(NO_SEAT, TimeOut(1))
    assert r.over and r.result().placements == (1, 2) and r.result().scores == (0, 1)
    assert r.phase == Phase.SERIES_OVER and not r.legal_actions(NO_SEAT)
    with pytest.raises(IllegalMove):
        r.apply(NO_SEAT, TimeOut(1))              # one forfeit; nothing more is timed out


# ---------------------------------------------------------------- the engine, real proofs

def _table(tmp_path, clock, humans="none"):
    return open_match("mind-bluff", {"humans": humans}, ["Aiko", "Ben"], transcript=tmp_path / "mb.jsonl",
                      clock=clock, limits=TimeLimits(idle=IDLE))


def _events(tab):
    return [json.loads(json.dumps(e)) for e in tab.writer.events]


def _write(tmp_path, events, name):
    p = tmp_path / name
    p.write_text("\n".join(canonical(e) for e in events) + "\n")
    return p


def _resign_from(events, i, key):
    """Lines ``i``.. re-signed by the referee (the house: it signs the timeout and the end)
    and relinked after a change to line ``i``."""
    out = events[:i]
    for e in events[i:]:
        assert e["seat"] is None  # only the referee's lines follow
        out.append(sign_line(key, {**e, "prev": line_hash(canonical(out[-1]))}))
    return out


def test_a_silent_seat_is_timed_out_strictly_after_its_deadline_and_the_transcript_verifies(tmp_path, match_keys):
    clock = Clock()
    tab = _table(tmp_path, clock)
    clock.t += 1
    tab.move(0, Move(Eat(), 2))
    clock.t += 1
    tab.move(0, Move(Claim(2, False)))
    clock.t += 1
    tab.move(1, Move(Believe()))                  # P2 to move now: it says nothing more
    since = tab.writer.events[-1]
    assert tab.rules.to_move == 1 and tab.referee.deadline == since["at"] + IDLE
    clock.t = since["at"] + IDLE                  # at the deadline: the seat still has its time
    assert tab.poll() is None and not tab.over
    clock.t += 0.5
    line = tab.poll()
    assert line["action"] == "timeout" and line["data"] == {"seat": 1} and line["seat"] is None
    assert line["clock"]["deadline"] == since["at"] + IDLE and line["at"] > line["clock"]["deadline"]
    assert line["clock"]["lastSigned"][0] == since["n"] and line["clock"]["limit"] == "idle"
    assert tab.over and tab.writer.events[-1]["action"] == "end"
    assert tab.writer.events[-1]["data"]["placements"] == [1, 2]
    report = verify_transcript(tab.writer.path)
    assert report["complete"] and report["lines"] == len(tab.writer.events)
    with pytest.raises(IllegalMove):
        tab.move(1, Move(Eat(), 1))               # the series is over

    # the attack: the house times P2 out at its deadline (not after), re-signed: refused offline
    events = _events(tab)
    i = next(k for k, e in enumerate(events) if e["action"] == "timeout")
    early = json.loads(json.dumps(events))
    early[i]["at"] = early[i]["clock"]["deadline"]
    with pytest.raises(TranscriptError, match="not after its deadline") as exc:
        verify_transcript(_write(tmp_path, _resign_from(early, i, tab.referee.key), "early.jsonl"))
    assert exc.value.line == i + 1 and exc.value.code == "timeout.early"
    # and one that lies about its deadline to look late is refused by its clock
    lying = json.loads(json.dumps(events))
    lying[i]["clock"]["deadline"] -= 5
    with pytest.raises(TranscriptError, match="clock") as exc:
        verify_transcript(_write(tmp_path, _resign_from(lying, i, tab.referee.key), "lying.jsonl"))
    assert exc.value.code == "timeout.clock"
    # the twin: the honest lines, re-signed the same way, verify
    verify_transcript(_write(tmp_path, _resign_from(events, i, tab.referee.key), "honest.jsonl"))


def test_a_timeout_before_the_deadline_is_refused_live(tmp_path, match_keys):
    clock = Clock()
    tab = _table(tmp_path, clock)
    start = tab.writer.events[-1]
    assert tab.rules.to_move == 0
    ref = tab.referee
    clock.t = start["at"] + IDLE - 1
    early = ref._line(None, "timeout", TimeOut(0).to_data(), at=clock.t,
                      clock=ref.view.timeout_clock(0, "idle", clock.t))
    n = len(tab.writer.events)
    with pytest.raises(EarlyTimeout):
        tab.publish(early)
    other = ref._line(None, "timeout", TimeOut(1).to_data(), at=clock.t,
                      clock=ref.view.timeout_clock(1, "idle", clock.t))
    with pytest.raises(IllegalMove):                       # P2 is not the seat waited for
        tab.publish(other)
    assert len(tab.writer.events) == n and not tab.over    # nothing written
    tab.move(0, Move(AllDone()))                           # the seat acts in time: no timeout is due
    assert [e["action"] for e in tab.writer.events[n:n + 2]] == ["all_done", "all_done_verdict"]
    assert verify_transcript(tab.writer.path)["lines"] == len(tab.writer.events)


def test_a_consent_that_never_comes_ends_the_series_over_the_clock(tmp_path, match_keys):
    clock = Clock()
    tab = _table(tmp_path, clock, humans="P2")
    clock.t += 1
    tab.move(0, Move(AllDone()))                           # P1 (a bot seat) loses game 1 at once
    assert tab.rules.phase == Phase.NEXT_GAME and tab.to_move == 1
    clock.t += IDLE + 1
    line = tab.poll()
    assert line["data"] == {"seat": 1}
    assert tab.over and tab.rules.result().placements == (1, 2)
    assert "P2 let its time run out" in tab.writer.events[-1]["data"]["reason"]
    assert verify_transcript(tab.writer.path)["complete"]
    said = tab.spec.text.describe(line, ["Aiko", "Ben"])
    assert "Ben let their time run out and forfeits the series" in said
    review = series_review(tab.writer.path)       # game 1's review; the series' result names the timeout
    assert review["complete"] and len(review["games"]) == 1 and "P2 let its time run out" in review["result"]
