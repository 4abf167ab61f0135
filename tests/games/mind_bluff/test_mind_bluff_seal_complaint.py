"""Mind Bluff: a sealed choice that never opens no longer stalls the table. The referee
cannot prove an eat's verdict without the choice; it writes ``seal_complaint`` instead, and
the eater answers with the key of its sealed box (anyone then opens it and checks it
against the committed choice) within the ``proof`` limit, or forfeits the series. A true
answer ends the series void with the referee at fault (``transcript verify``:
``referee.fault``); a false one is refused (``seal.answer``). Real proofs, a fake clock."""
from __future__ import annotations

import json

import pytest
from Crypto.PublicKey import ECC
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import CommitmentMismatch, IllegalMove, RefereeAtFault
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.mind_bluff.bot import HouseBot, Move
from zkbluff.games.mind_bluff.referee import RefereeSecrets, seal_choice
from zkbluff.games.mind_bluff.review import ChoiceOpening
from zkbluff.games.mind_bluff.rules import (
    Eat, EatVerdict, MindBluffRules, Phase, SealAnswer, SealComplaint, StartGame, TimeOut,
)
from zkbluff.protocol.signing import sign_line


class Clock:
    def __init__(self, t: float = 9000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def _table(tmp_path, match_id):
    clock = Clock()
    tab = open_match("mind-bluff", {"humans": "none"}, ["ann", "bob"], transcript=tmp_path / "m.jsonl",
                     match_id=match_id, clock=clock)
    assert tab.rules.phase == Phase.TURN and tab.to_move == 0
    return tab, clock


def _missealed_eat(tab):
    """P1's eat line whose box (made with P1's own ephemeral key) is sealed to a key that is
    not the referee's: its range proof holds, its box never opens for the referee."""
    seat = tab.seats[0]
    line = seat.move(Move(Eat(), 2))
    update = seat._pending[1]
    own = ECC.construct(curve="X25519", seed=bytes.fromhex(update["sealKey"]))
    opening = ChoiceOpening(update["opening"]["choice"], int(update["opening"]["salt"]))
    wrong = seal_choice(RefereeSecrets.fresh().channel_public, tab.match_id, 0, 1, 1, opening, own)
    event = {k: v for k, v in line.items() if k != "sig"}
    event["data"] = {"sealed": wrong}
    seat.signed = sign_line(seat.key, event)  # its client made this line (the table's copy of it knows)
    return seat.signed


# ---------------------------------------------------------------- the rules alone

def test_the_rules_give_the_complaint_to_the_referee_at_an_eats_verdict_and_the_answer_to_the_eater():
    r = MindBluffRules((False, False))
    r.apply(NO_SEAT, StartGame(1, 0))
    with pytest.raises(IllegalMove):
        r.check(NO_SEAT, SealComplaint(0))          # no eat awaits a verdict
    r.apply(0, Eat("x"))
    with pytest.raises(IllegalMove, match="did not make the eat"):
        r.check(NO_SEAT, SealComplaint(1))
    with pytest.raises(IllegalMove, match="out of turn"):
        r.check(0, SealComplaint(0))                # the referee's, not the seat's
    assert SealComplaint(0) in r.legal_actions(NO_SEAT)
    r.apply(NO_SEAT, SealComplaint(0))
    assert r.phase == Phase.SEAL_ANSWER and r.to_move == 0 and r.legal_actions(0) == [SealAnswer("")]
    with pytest.raises(IllegalMove):
        r.check(1, SealAnswer("k"))                 # only the accused answers
    with pytest.raises(IllegalMove):
        r.check(NO_SEAT, EatVerdict(False))         # no verdict while the complaint stands
    r.check(NO_SEAT, TimeOut(0))                    # its time runs


def test_a_false_answer_leaves_the_table_waiting_and_a_true_one_voids_the_series():
    r = MindBluffRules((False, False))
    r.apply(NO_SEAT, StartGame(1, 0))
    r.apply(0, Eat("x"))
    r.apply(NO_SEAT, SealComplaint(0))
    r.apply(0, SealAnswer("k"))                     # the spec checks the key; the rules see its effect
    res = r.result()
    assert r.over and res.placements == (1, 1) and "the referee is at fault" in res.reason
    t = MindBluffRules((False, False))
    t.apply(NO_SEAT, StartGame(1, 0))
    t.apply(0, Eat("x"))
    t.apply(NO_SEAT, SealComplaint(0))
    t.apply(NO_SEAT, TimeOut(0))
    res = t.result()
    assert res.placements == (2, 1) and "sealed choice did not open" in res.reason


# ---------------------------------------------------------------- the table

def test_a_sealed_choice_that_never_opens_is_complained_of_and_its_seat_forfeits(tmp_path):
    tab, clock = _table(tmp_path, "seal-missing")
    bad = _missealed_eat(tab)
    clock.t += 1
    tab.submit(bad)                                 # before: the referee could prove nothing and wrote nothing
    complaint = tab.writer.events[-1]
    assert complaint["action"] == "seal_complaint" and complaint["data"] == {"seat": 0} and complaint["seat"] is None
    assert tab.rules.phase == Phase.SEAL_ANSWER and tab.to_move == 0
    assert tab.referee.deadline == complaint["at"] + tab.referee.limits.proof   # the proof limit, not idle
    seat = tab.seats[0]
    with pytest.raises(CommitmentMismatch) as exc:  # its client answers by itself: its own view refuses it
        seat.move(HouseBot(1).act(tab.observation(0)))
    assert exc.value.code == "seal.answer"
    answer = sign_line(seat.key, {"n": tab.view.next_line, "prev": tab.view.head, "seat": 0, "action": "seal_answer",
                                  "data": {"key": seat.private["sealKey"]}, "at": clock.t})
    with pytest.raises(CommitmentMismatch) as exc:  # and so does the referee: its key does not open that box
        tab.submit(answer)
    assert exc.value.code == "seal.answer" and tab.writer.events[-1] == complaint
    clock.t = tab.referee.deadline                  # at the deadline: nothing yet
    assert tab.poll() is None
    clock.t += 0.5
    out = tab.poll()
    assert out["action"] == TimeOut.kind and out["data"] == {"seat": 0} and out["clock"]["limit"] == "proof"
    end = tab.writer.events[-1]
    assert end["action"] == "end" and end["data"]["placements"] == [2, 1]
    assert "sealed choice did not open" in end["data"]["reason"]
    report = verify_transcript(tmp_path / "m.jsonl")
    assert report["complete"] and report["winner"] == 1


def test_an_honest_seat_answers_a_false_complaint_and_the_referee_is_at_fault(tmp_path):
    tab, clock = _table(tmp_path, "seal-lie")
    honest_act = tab.referee.act

    def lying_act():  # the house's referee calls an honest box unopenable
        if tab.rules.phase == Phase.EAT_VERDICT:
            return tab.referee._line(None, SealComplaint.kind, {"seat": tab.rules.actor})
        return honest_act()

    tab.referee.act = lying_act
    clock.t += 1
    tab.move(0, Move(Eat(), 3))
    assert tab.writer.events[-1]["action"] == "seal_complaint"
    wrong = sign_line(tab.seats[0].key, {"n": tab.view.next_line, "prev": tab.view.head, "seat": 0,
                                         "action": "seal_answer", "data": {"key": "11" * 32}, "at": clock.t})
    with pytest.raises(CommitmentMismatch) as exc:  # another key: refused, nothing written
        tab.submit(wrong)
    assert exc.value.code == "seal.answer"
    clock.t += 1
    answer = tab.move(0, HouseBot(7).act(tab.observation(0)))     # the bot's policy answers like a person's
    assert answer["action"] == "seal_answer" and len(answer["data"]["key"]) == 64
    end = tab.writer.events[-1]
    assert end["action"] == "end" and end["data"]["placements"] == [1, 1]
    assert "the referee is at fault" in end["data"]["reason"]
    with pytest.raises(RefereeAtFault) as exc:
        verify_transcript(tmp_path / "m.jsonl")
    assert (exc.value.line, exc.value.code, exc.value.exit_code) == (answer["n"], "referee.fault", 1)
    out = CliRunner().invoke(main, ["transcript", "verify", str(tmp_path / "m.jsonl"), "--json"])
    assert out.exit_code == 1 and json.loads(out.output)["code"] == "referee.fault"


def test_a_persons_prompt_answers_the_complaint_without_asking_and_says_why():
    from zkbluff.games.mind_bluff.spec import MindBluffSpec

    spec = MindBluffSpec({"humans": "both"})
    r = spec.new_rules()
    r.apply(NO_SEAT, StartGame(1, 0))
    r.apply(0, Eat("x"))
    r.apply(NO_SEAT, SealComplaint(0))
    said = []

    def ask(prompt):
        raise AssertionError(f"asked: {prompt}")

    move = spec.text.prompt(spec.observation(r, spec.new_private(), 0), ask, said.append, ["ann", "bob"])
    assert move.action == SealAnswer("") and "does not open" in said[0]
    with pytest.raises(IllegalMove, match="no key"):  # a seat that kept no key has nothing to show
        spec.seat_move(spec.new_private(), r, 0, move)
    line = {"action": "seal_complaint", "data": {"seat": 0}, "seat": None}
    assert "ann's sealed choice does not open" in spec.text.describe(line, ["ann", "bob"])
