"""The house-blind roll at the table, with real proofs: whole matches verify; the house
holds nothing secret; and the attacks, each refused at its line by the offline verifier
(the line signed again by its own party, so the signature is no obstacle): an opening that
does not open its commitment, a line out of order, a line of an earlier round replayed, a
roll proof for entropy the seat chose, a dice commitment other than the proof's, the
dealer starting a round before every roll is proven. Withholding an opening is a fault:
the referee times the seat out after the deal limit, and it places last."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import match_harness as mh
from zkbluff.errors import ZkbluffError
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.liars_dice.roll import COMMIT, DICE, OPEN, TIMEOUT
from zkbluff.games.liars_dice.statements import ROLL_ID, derive_dice, pack_dice, unpack_dice
from zkbluff.gadgets import native as nat


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    path = tmp_path_factory.mktemp("liars") / "match.jsonl"
    tab = mh.finished_match("liars-dice", path, {"players": "3", "dice": "2"}, seed=5)
    return tab, path, mh.lines(path)


def refused_at(tmp: Path, events: list, i: int) -> ZkbluffError:
    """The transcript ``events[:i] + [events[i]]`` is refused at line ``i + 1``."""
    with pytest.raises(ZkbluffError) as exc:
        verify_transcript(mh.write(tmp / "forged.jsonl", events[:i + 1]))
    assert getattr(exc.value, "line", None) == i + 1, exc.value
    return exc.value


def index(events: list, action: str, nth: int = 0) -> int:
    return [k for k, e in enumerate(events) if e["action"] == action][nth]


def test_a_whole_match_verifies_and_every_count_is_proven(match):
    tab, path, events = match
    report = verify_transcript(path)
    assert report["complete"] and report["over"] and report["lines"] == len(events)
    counts = [e for e in events if e["action"] == "count"]
    rolls = [e for e in events if e["action"] == DICE]
    assert counts and all(len(e["proofs"]) == 1 for e in counts) and rolls
    assert report["proofs"] == len(counts) + len(rolls)


def test_the_house_holds_nothing_secret_and_no_die_is_ever_written(match):
    tab, path, events = match
    assert tab.dealer.state == {"matchId": tab.view.match_id}  # the seats sent the house nothing
    text = path.read_text()
    for seat in tab.seats:
        assert seat.deal_secrets["secret"] not in text and seat.deal_secrets["salt"] not in text
        for pack, salt in seat.deal_secrets["dice"].values():
            assert salt not in text
    assert not any(e["action"] == "close" for e in events)  # nothing is revealed after the match either


def test_the_dice_a_seat_holds_are_the_ones_its_secret_and_the_joint_entropy_give(match):
    tab, _, events = match
    seat = tab.seats[0]
    last = max(int(k) for k in seat.deal_secrets["dice"])
    pack, _ = seat.deal_secrets["dice"][str(last)]
    assert tab.view.ledger.deal.round == last
    n = len([d for d in unpack_dice(pack) if d])
    assert n >= 1
    assert pack == pack_dice(derive_dice(int(seat.deal_secrets["secret"]), tab.view.ledger.deal.entropy, n))


def test_an_opening_that_does_not_open_its_commitment_is_refused(match, tmp_path):
    tab, _, events = match
    i = index(events, OPEN)
    forged = events[:i] + [mh.signed_again(tab, mh.tampered(events, i, "entropy")[i], events[i])]
    forged[i]["data"]["entropy"] = "ab" * 32
    forged[i] = mh.signed_again(tab, forged[i], events[i])
    refused_at(tmp_path, forged, i)
    assert verify_transcript(mh.write(tmp_path / "twin.jsonl", events[:i + 1]))["lines"] == i + 1  # the twin


def test_an_opening_before_every_seat_has_committed_is_refused(match, tmp_path):
    tab, _, events = match
    first_commit = index(events, COMMIT)
    opening = dict(events[index(events, OPEN)], n=events[first_commit]["n"], prev=events[first_commit]["prev"])
    refused_at(tmp_path, events[:first_commit] + [mh.signed_again(tab, opening, events[index(events, OPEN)])],
               first_commit)


def test_a_commitment_of_an_earlier_round_replayed_is_refused(match, tmp_path):
    tab, _, events = match
    first, later = index(events, COMMIT, 0), index(events, COMMIT, 3)  # round 1's, then round 2's first
    assert events[later]["data"]["round"] == 2 and events[later]["seat"] == events[first]["seat"]
    replayed = dict(events[later], data=events[first]["data"])
    err = refused_at(tmp_path, events[:later] + [mh.signed_again(tab, replayed, events[later])], later)
    assert "replayed" in str(err)


def test_a_roll_proof_for_entropy_the_seat_chose_is_refused(match, tmp_path):
    tab, _, events = match
    i = index(events, DICE)
    e, seat = events[i], tab.seats[events[i]["seat"]]
    secrets = seat.deal_secrets
    chosen = 12345  # entropy that gives this seat the dice it wants
    inputs = {"secret": int(secrets["secret"]), "secret_salt": int(secrets["salt"]), "dice_salt": 1, "entropy": chosen,
              "n_dice": 2}
    proof = seat.prover.prove(ROLL_ID, inputs, tab.view.match_id, e["n"], e["prev"], e["seat"])
    dice = nat.commit(pack_dice(derive_dice(int(secrets["secret"]), chosen, 2)), 1)
    forged = dict(e, data={"round": e["data"]["round"], "dice": str(dice), "proof": proof})
    err = refused_at(tmp_path, events[:i] + [mh.signed_again(tab, forged, e)], i)
    assert err.code == "proof.public"


def test_a_dice_commitment_other_than_the_proofs_is_refused(match, tmp_path):
    tab, _, events = match
    i = index(events, DICE)
    forged = json.loads(json.dumps(events[i]))
    forged["data"]["dice"] = str(int(forged["data"]["dice"]) + 1)
    err = refused_at(tmp_path, events[:i] + [mh.signed_again(tab, forged, events[i])], i)
    assert err.code == "proof.public"


def test_the_dealer_cannot_start_a_round_before_every_roll_is_proven(match, tmp_path):
    tab, _, events = match
    roll = index(events, "roll")
    last_dice = roll - 1
    assert events[last_dice]["action"] == DICE
    early = dict(events[roll], n=events[last_dice]["n"], prev=events[last_dice]["prev"])
    refused_at(tmp_path, events[:last_dice] + [mh.signed_again(tab, early, events[roll])], last_dice)


def test_a_seat_that_withholds_its_opening_is_timed_out_and_places_last(tmp_path):
    path = tmp_path / "withheld.jsonl"
    tab, clock = mh.seeded_match("liars-dice", {"players": "3", "dice": "2"}, 3, path)
    mh.play_to_end(tab, clock, until=lambda t: t.rules.s.phase.value == "count")
    holdout = tab.seats[2]
    honest = holdout.deal_line

    def withhold():
        owed = tab.spec.deal.owed(holdout.view)
        return None if owed is not None and owed[0] == OPEN else honest()

    holdout.deal_line = withhold  # type: ignore[method-assign]
    mh.play_to_end(tab, clock, until=lambda t: (tab.spec.deal.owed(t.view) or ("",))[0] == OPEN)
    assert tab.spec.deal.owed(tab.view)[:2] == (OPEN, [2])
    held = tuple(tab.rules.s.dice)  # the dice each seat holds at the fault
    deadline = tab.referee.deadline
    clock.now = deadline
    assert tab.poll() is None  # at the deadline: not yet
    clock.now = deadline + 1
    line = tab.poll()
    assert line["action"] == TIMEOUT and line["data"]["seat"] == 2 and line["data"]["line"] == OPEN
    assert tab.over
    result = tab.view.result()
    # strictly last; the others placed by the dice they hold (more dice, a better place), as at
    # a dealer's fault: withholding lifts nobody and ties no leader
    others = [s for s in range(3) if s != 2]
    assert result.placements[2] == 3 and "seat 2 sent no roll.open" in result.reason
    assert all(result.placements[s] == 1 + sum(held[t] > held[s] for t in others) for s in others)
    assert verify_transcript(path)["over"]


def test_a_dealer_that_holds_back_the_round_is_timed_out_and_the_match_settled_on_the_dice_held(tmp_path):
    from zkbluff.errors import TranscriptError

    path = tmp_path / "dealer.jsonl"
    tab, clock = mh.seeded_match("liars-dice", {"players": "2", "dice": "2"}, 4, path)
    mh.play_to_end(tab, clock, until=lambda t: t.rules.s.phase.value == "count")
    tab.dealer.act = lambda: None  # type: ignore[method-assign]  # every roll proven, no round started
    mh.play_to_end(tab, clock, until=lambda t: (tab.spec.deal.owed(t.view) or ("",))[0] == "roll")
    assert tab.spec.deal.owed(tab.view)[1] == [None]
    clock.now = tab.referee.deadline + 1
    line = tab.poll()
    assert line["action"] == TIMEOUT and line["data"]["seat"] is None and tab.over
    dice = tab.rules.s.dice
    result = tab.view.result()
    assert "settled on the dice held" in result.reason
    assert result.placements == tuple(1 + sum(d > x for d in dice) for x in dice)
    with pytest.raises(TranscriptError) as exc:  # the house's fault, shown by its own transcript
        verify_transcript(path)
    assert exc.value.line == line["n"]
