"""Bluffers never waits for ever on a seat whose agent is gone. A seat's own choice runs on
the seed's 30 seconds (then ``timeout`` and its automatic move); every line only that
seat's agent can make (the automatic move's proof and its shed, its seed, its reveal, its
share) runs on the header's ``proof`` limit, then the referee's ``forfeit``: the seat is
out, placed as a knock-out, with no points (as if it had left the table), and the round in
progress is void. The rules alone; then a real table with a fake clock and real proofs,
whose forfeit verifies offline and whose early forfeit (re-signed) is refused."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zkbluff.errors import EarlyTimeout, IllegalMove, TranscriptError
from zkbluff.games.bluffers.moves import Proceed
from zkbluff.games.bluffers.rules import (
    AutoMove, CallBluff, CommitSeed, DealHands, Disconnect, DrawTableCard, Forfeit, OpenPlay, Phase, Play, Share,
    ShedCard, TableRules, Timeout, check_invariants,
)
from zkbluff.games.bluffers.spec import BluffersSpec
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import canonical, line_hash

PROOF, IDLE = 10.0, 20.0


def _dealt(n: int) -> TableRules:
    """``n`` seats, seeds committed, round 1 dealt (table card King): seat 0 to move."""
    r = TableRules(n)
    for i in range(n):
        r.apply(i, CommitSeed(1000 + i))
    r.apply(NO_SEAT, DrawTableCard(0))
    r.apply(NO_SEAT, DealHands(0, tuple(range(n)), ("aa",) * n))
    return r


def _refused(r: TableRules, seat, action, match: str) -> None:
    before = r.public_state(), r.extras()
    with pytest.raises(IllegalMove, match=match):
        r.apply(seat, action)
    assert (r.public_state(), r.extras()) == before


# ---------------------------------------------------------------- the rules alone

def test_a_seats_own_choice_times_out_first_then_its_automatic_move_forfeits():
    r = _dealt(3)
    assert r.to_move == 0 and r.overdue() == Timeout(0)
    _refused(r, NO_SEAT, Forfeit(0), "owes no line only it can make")   # its 30 s of choice come first
    r.apply(NO_SEAT, Timeout(0))
    assert r.overdue() == Forfeit(0)                                     # now its agent owes the proof
    assert BluffersSpec({"players": "3"}).timeout(r) == (Forfeit(0), "idle")  # a prompt may still be open
    _refused(r, NO_SEAT, Forfeit(1), "seat 1 owes no line")
    _refused(r, 1, Forfeit(0), "the referee's clock")
    _refused(r, NO_SEAT, Forfeit(True), "owes no line")
    r.apply(NO_SEAT, Forfeit(0))
    snap = r.public_state()
    check_invariants(snap)
    assert snap.forfeited == (True, False, False) and snap.alive == (False, True, True)
    assert snap.places == (3, None, None) and snap.knocked_out == (0,) and snap.fired == (False,) * 3
    assert snap.phase == Phase.DEAL and snap.to_move is NO_SEAT and snap.starter == 1   # the round is void
    assert snap.hand_sizes == (0, 0, 0) and snap.pile == 0 and snap.chambers == (0, 0, 0)
    assert r.extras().timed_out is None and r.overdue() is None
    r.apply(NO_SEAT, DrawTableCard(1))                                   # the match goes on without it
    _refused(r, NO_SEAT, DealHands(1, (0, 1, 2), ("aa",) * 3), "standing seats are")
    r.apply(NO_SEAT, DealHands(1, (1, 2), ("aa", "bb")))
    assert r.to_move == 1 and r.public_state().undealt == 10


def test_a_withheld_share_forfeits_and_the_last_one_standing_wins_with_no_points_for_the_forfeit():
    r = _dealt(2)
    r.apply(0, Play(2))
    r.apply(1, CallBluff())
    r.apply(0, OpenPlay((18, 19), 5))                                    # jokers: seat 1 was wrong, pulls
    assert r.s.phase == Phase.PULL and r.to_move == 1 and r.overdue() == Forfeit(1)
    r.apply(1, Share(7))
    assert r.to_move == 0 and r.overdue() == Forfeit(0)                  # the last share withheld
    r.apply(NO_SEAT, Forfeit(0))
    assert r.over and r.to_move is None and r.s.chambers == [0, 0]      # no pull happened
    res = r.result()
    assert res.placements == (2, 1) and res.scores == (0, 5) and "seat 0 forfeited" in res.reason
    check_invariants(r.public_state())
    _refused(r, NO_SEAT, Forfeit(1), "owes no line")


def test_the_share_proof_a_rerun_owes_is_pinned_to_the_withholders_revolver_at_its_chamber():
    """What every party and the offline verifier pin on a ``share`` line (the spec's
    demand): the puller's revolver at its chamber in the first attempt, the withholder's in
    the re-run. A share proven for the aborted attempt's slot (whose shares, some of them
    opened, are void) has other publics and is refused like any wrong proof."""
    spec = BluffersSpec({"players": "3"})
    ledger = spec.new_ledger({})
    r = _dealt(3)
    r.s.chambers = [0, 2, 1]                                             # seats 1 and 2 clicked before
    r.apply(0, Play(2))
    r.apply(1, CallBluff())
    r.apply(0, OpenPlay((18, 19), 5))                                    # jokers: seat 1 pulls

    def pins(seat: int) -> dict:
        return {k: v for k, v in spec.demand(r, ledger, seat, Share(9))[0].pinned.items()
                if k in ("seed_commitment", "revolver", "pull")}

    assert pins(1) == {"seed_commitment": 1001, "revolver": 1, "pull": 2}
    r.apply(1, Share(3))
    r.apply(2, Share(4))
    r.apply(NO_SEAT, Forfeit(0))                                         # seat 0 withholds the last share
    assert pins(1) == {"seed_commitment": 1001, "revolver": 0, "pull": 0}
    r.apply(1, Share(5))
    assert pins(2) == {"seed_commitment": 1002, "revolver": 0, "pull": 0}
    check_invariants(r.public_state())


def test_a_seed_never_committed_forfeits_before_the_first_deal():
    r = TableRules(3)
    assert r.overdue() == Forfeit(0)                                     # a seed is the agent's own line
    r.apply(NO_SEAT, Forfeit(0))
    assert r.s.phase == Phase.COMMIT and r.to_move == 1 and r.s.starter == 1
    r.apply(1, CommitSeed(5))
    r.apply(NO_SEAT, Forfeit(2))
    assert r.over and r.result().placements == (3, 1, 2) and r.result().scores == (0, 8, 0)
    check_invariants(r.public_state())


def test_a_dropped_seat_whose_agent_is_gone_forfeits_and_a_pending_shed_too():
    spec = BluffersSpec({"players": "3"})
    r = _dealt(3)
    assert spec.timeout(r) == (Timeout(0), "move")
    r.apply(NO_SEAT, Disconnect(0))
    assert r.overdue() == Forfeit(0)                                     # no 30 s: its agent owes the move
    assert spec.timeout(r) == (Forfeit(0), "proof")
    r.apply(0, AutoMove("dropped"))
    assert r.shed_due == 0 and r.to_move == 0 and r.overdue() == Forfeit(0)
    assert spec.timeout(r) == (Forfeit(0), "proof")                       # a new hand: no choice in it
    r.apply(NO_SEAT, Forfeit(0))
    assert r.shed_due is None and r.s.phase == Phase.DEAL and r.s.places[0] == 3
    check_invariants(r.public_state())


@settings(max_examples=60)
@given(st.integers(2, 4), st.randoms(use_true_random=False))
def test_random_timeouts_and_forfeits_keep_the_invariants_and_every_match_ends(n, rnd):
    """A random walk over the proven table's rules in which the clock fires now and then
    (whatever ``overdue`` says is due) and seats drop: the public invariants hold at every
    line, a forfeited seat never moves again, and the match ends with the forfeits scoring 0."""
    r = TableRules(n)
    forfeits: list[int] = []
    for _ in range(5000):
        if r.over:
            break
        check_invariants(r.public_state())
        seat, due = r.to_move, r.overdue()
        assert seat not in forfeits
        if due is not None and rnd.random() < 0.1:
            r.apply(NO_SEAT, due)
            if isinstance(due, Forfeit):
                forfeits.append(due.seat)
            continue
        if seat is NO_SEAT:
            if r.drawn is None:
                r.apply(NO_SEAT, DrawTableCard(rnd.randrange(3)))
            else:
                standing = tuple(r.standing())
                r.apply(NO_SEAT, DealHands(r.drawn, standing, ("aa",) * len(standing)))
        elif r.shed_due is not None:
            r.apply(seat, ShedCard())
        elif r.s.phase == Phase.COMMIT:
            r.apply(seat, CommitSeed(1 + seat + rnd.randrange(1 << 64) * 8))
        elif r.s.phase == Phase.REVEAL:
            r.apply(seat, OpenPlay(tuple(rnd.sample(range(20), r.s.last_play.count)), 1))
        elif r.s.phase == Phase.PULL:
            r.apply(seat, Share(rnd.randrange(1 << 128)))
        elif rnd.random() < 0.03 and not r.s.dropped[seat] and r.extras().timed_out is None:
            r.apply(NO_SEAT, Disconnect(seat))
        else:
            r.apply(seat, rnd.choice(r.legal_actions(seat)))
    assert r.over
    check_invariants(r.public_state())
    res = r.result()
    assert sorted(res.placements) == list(range(1, n + 1))
    assert all(res.scores[i] == 0 and res.placements[i] > 1 for i in forfeits)
    assert r.public_state().forfeited == tuple(i in forfeits for i in range(n))


# ---------------------------------------------------------------- a real table, a fake clock

class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _resign_from(events, i, key):
    out = events[:i]
    for e in events[i:]:
        assert e["seat"] is None  # the referee's lines (the forfeit, the end)
        out.append(sign_line(key, {**e, "prev": line_hash(canonical(out[-1]))}))
    return out


def _write(tmp_path, events, name):
    p = tmp_path / name
    p.write_text("".join(canonical(e) + "\n" for e in events))
    return p


def test_a_vanished_seat_is_timed_out_then_forfeits_and_the_match_ends_verified(tmp_path, mcl, match_keys):
    clock = Clock()
    tab = open_match("bluffers", {"players": "2"}, ["ann", "bob"], transcript=tmp_path / "b.jsonl", clock=clock,
                     backend=mcl, limits=TimeLimits(proof=PROOF, idle=IDLE))
    while tab.rules.s.phase != Phase.TURN:                               # seeds committed, round 1 dealt
        tab.move(tab.to_move, Proceed())
    seat = tab.to_move
    clock.now += 30.1
    line = tab.poll()
    assert line["action"] == "timeout" and line["data"] == {"seat": seat}
    # the seat's agent is gone: its automatic move never comes (it has the idle limit for it)
    ref = tab.referee
    assert tab.spec.timeout(tab.rules) == (Forfeit(seat), "idle")
    early = ref._line(None, "forfeit", Forfeit(seat).to_data(), at=clock.now + IDLE - 1,
                      clock=ref.view.timeout_clock(seat, "idle", clock.now + IDLE - 1))
    clock.now += IDLE - 1
    n = len(tab.writer.events)
    with pytest.raises(EarlyTimeout):
        tab.publish(early)
    assert len(tab.writer.events) == n
    clock.now = line["at"] + IDLE                                        # at the deadline: not yet
    assert tab.poll() is None
    clock.now += 0.01
    forfeit = tab.poll()
    assert forfeit["action"] == "forfeit" and forfeit["data"] == {"seat": seat} and forfeit["seat"] is None
    assert forfeit["clock"]["limit"] == "idle" and forfeit["clock"]["deadline"] == line["at"] + IDLE
    assert forfeit["at"] > forfeit["clock"]["deadline"]
    assert tab.over and tab.writer.events[-1]["action"] == "end"
    result = tab.rules.result()
    assert result.placements[seat] == 2 and result.scores[seat] == 0 and result.scores[1 - seat] == 5
    report = verify_transcript(tab.writer.path)
    assert report["complete"] and report["result"] == result
    said = tab.spec.text.describe(forfeit, ["ann", "bob"])
    assert said.startswith(f"{['ann', 'bob'][seat]} did not make a move only it can make in time")
    assert "no points" in said

    # the house forfeits the seat at its deadline, not after, and re-signs: refused offline
    events = [json.loads(json.dumps(e)) for e in tab.writer.events]
    i = len(events) - 2
    assert events[i]["action"] == "forfeit"
    bad = json.loads(json.dumps(events))
    bad[i]["at"] = bad[i]["clock"]["deadline"]
    with pytest.raises(TranscriptError, match="not after its deadline") as exc:
        verify_transcript(_write(tmp_path, _resign_from(bad, i, ref.key), "early.jsonl"))
    assert exc.value.line == i + 1 and exc.value.code == "timeout.early"
    # a forfeit in place of the timeout (the seat's 30 s of choice skipped), re-signed: refused
    j = i - 1
    assert events[j]["action"] == "timeout"
    skipped = json.loads(json.dumps(events[:j])) + [dict(events[i], n=j + 1)]
    skipped[-1]["clock"] = dict(events[j]["clock"], limit="idle", seconds=IDLE,
                                deadline=events[j]["clock"]["deadline"] - 30 + IDLE)
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(_write(tmp_path, _resign_from(skipped, j, ref.key), "skipped.jsonl"))
    assert exc.value.line == j + 1
    # the twin: the honest lines re-signed the same way verify
    assert verify_transcript(_write(tmp_path, _resign_from(events, i, ref.key), "honest.jsonl"))["complete"]


@pytest.mark.slow
def test_a_share_withheld_at_a_three_seat_table_reruns_the_pull_and_the_end_verifies(tmp_path, mcl, match_keys):
    """The re-run's shares are real ``revolver.share.v1`` proofs for the withholder's revolver
    at its chamber, pinned so by every party and by the offline verifier."""
    clock = Clock()
    tab = open_match("bluffers", {"players": "3"}, transcript=tmp_path / "t.jsonl", clock=clock, backend=mcl,
                     limits=TimeLimits(proof=PROOF, idle=IDLE))
    bots = [tab.spec.house_bot(5 + i) for i in range(3)]
    gone, reran = None, False
    for _ in range(2000):
        if tab.over:
            break
        r = tab.rules
        if gone is None and r.s.phase == Phase.PULL and r.to_move != r.s.puller:
            gone = r.to_move                                  # this seat's agent withholds its share
            chambers, puller, standing = list(r.s.chambers), r.s.puller, sum(r.s.alive)
            clock.now += PROOF + 0.1                          # a share runs on the proof limit
            line = tab.poll()
            assert line["action"] == "forfeit" and line["data"] == {"seat": gone} and line["clock"]["limit"] == "proof"
            assert not r.s.alive[gone]
            if standing == 3:                                        # the pull is re-run between the other two
                assert not tab.over and r.s.phase == Phase.PULL and r.to_move == puller and r.s.shares == []
                assert r.s.share_slot == (gone, chambers[gone]) and r.s.attempt == 1 and r.s.chambers == chambers
                reran = True
            else:                                                    # the puller is the last one standing
                assert tab.over and r.s.alive[puller] and r.s.chambers == chambers
            continue
        seat = tab.to_move
        tab.move(seat, bots[seat].act(tab.observation(seat)))
        check_invariants(tab.rules.public_state())
    assert tab.over and gone is not None and reran
    result = tab.rules.result()
    report = verify_transcript(tab.writer.path)
    assert report["complete"] and report["result"] == result
    assert result.scores[gone] == 0 and result.placements[gone] > 1 and sorted(result.placements) == [1, 2, 3]
    assert sorted(s for i, s in enumerate(result.scores) if i != gone) in ([1, 8], [4, 8])
