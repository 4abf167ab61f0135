"""Mind Bluff: the referee is on the clock like every other party (issue 26 item 6). A
referee that holds back a verdict used to stall the series forever: no line let a seat
say so. Now a seat claims ``referee_timeout`` once the header's ``proof`` limit has run
from the last line's stamp; the series ends void and ``transcript verify`` names the
referee at fault (``referee.fault``). Real proofs, a fake clock."""
from __future__ import annotations

import copy
import json

import pytest

from zkbluff.errors import EarlyTimeout, IllegalMove, RefereeAtFault, TranscriptError
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.mind_bluff.bot import Move
from zkbluff.games.mind_bluff.rules import Eat, MindBluffRules, Phase, RefereeTimeOut
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import canonical


class Clock:
    def __init__(self, t: float = 9000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture(scope="module")
def stalled(tmp_path_factory):
    """Seat 0 eats; the referee never gives the verdict. Seat 1's view holds the eat line."""
    path = tmp_path_factory.mktemp("mb") / "m.jsonl"
    clock = Clock()
    tab = open_match("mind-bluff", {"humans": "none"}, ["ann", "bob"], transcript=path, match_id="mb-stall",
                     clock=clock)
    assert tab.rules.phase == Phase.TURN and tab.to_move == 0
    clock.t += 1
    eat = tab.seats[0].move(Move(Eat(), 2))
    bob = tab.seats[1]
    bob.receive(json.loads(json.dumps(eat)))  # what the stalling referee sent before it went silent
    assert bob.view.rules.phase == Phase.EAT_VERDICT and bob.view.rules.to_move is NO_SEAT
    events = [json.loads(x) for x in path.read_text().splitlines()] + [eat]
    return tab, clock, bob, events


def _claim(bob, at):
    bob.signed = None
    return bob._line(bob.seat, "referee_timeout", {}, at=at)


def _write(tmp_path, events):
    path = tmp_path / "claimed.jsonl"
    path.write_text("".join(canonical(e) + "\n" for e in events))
    return path


def test_attack_a_stalling_referee_is_named_at_fault_by_the_seats_claim(stalled, tmp_path):
    """The attack: the referee holds back its verdict. Before, no seat line could end the
    wait (the series stalled forever). Now the seat's claim after the proof limit ends it
    void and the verifier names the referee."""
    tab, clock, bob, events = stalled
    view = copy.deepcopy(bob.view)
    limit = view.header["limits"]["proof"]
    claim = _claim(bob, view.head_at + limit + 0.5)
    view.apply(claim)
    assert view.rules.over and view.rules.referee_timed_out == 1
    result = view.rules.result()
    assert result.placements == (1, 1) and "referee is at fault" in result.reason
    with pytest.raises(RefereeAtFault) as exc:
        verify_transcript(_write(tmp_path, events + [claim]))
    assert exc.value.line == claim["n"] and exc.value.code == "referee.fault"


def test_a_claim_before_the_proof_limit_is_refused(stalled):
    """Negative twin: a seat may not claim the referee's time ran out before it did."""
    tab, clock, bob, events = stalled
    view = copy.deepcopy(bob.view)
    limit = view.header["limits"]["proof"]
    for at in (view.head_at + 1.0, view.head_at + limit):
        with pytest.raises(EarlyTimeout) as exc:
            view.apply(_claim(bob, at))
        assert exc.value.code == "timeout.early"
    assert view.rules.phase == Phase.EAT_VERDICT  # refused: unchanged


def test_a_claim_while_a_seat_is_to_move_is_refused(stalled):
    """Nor while the table waits on a seat (that is the referee's own timeout to write)."""
    tab, clock, bob, events = stalled
    view = copy.deepcopy(tab.seats[1].view)
    view_before = copy.deepcopy(tab.view)  # the table itself: seat 0 to move, nothing waits on the referee
    assert view_before.rules.to_move == 0
    claim = tab.seats[1]._line(1, "referee_timeout", {}, at=view_before.head_at + 10_000)
    claim["n"], claim["prev"] = view_before.next_line, view_before.head
    claim = sign_line(tab.seats[1].key, {k: v for k, v in claim.items() if k != "sig"})
    with pytest.raises(IllegalMove, match="not on the referee"):
        view_before.apply(claim)
    del view


def test_rules_referee_timeout_only_by_a_seat_while_the_referee_is_waited_on():
    r = MindBluffRules(humans=(True, True))
    assert r.phase == Phase.START and r.referee_waited()  # a human seat waits for game 1's start
    with pytest.raises(IllegalMove, match="a seat's claim"):
        r.check(NO_SEAT, RefereeTimeOut())
    r.check(0, RefereeTimeOut())
    bots = MindBluffRules(humans=(False, False))
    assert not bots.referee_waited()  # with no human seat, the room owner starts games when it likes
    with pytest.raises(IllegalMove, match="not on the referee"):
        bots.check(0, RefereeTimeOut())
