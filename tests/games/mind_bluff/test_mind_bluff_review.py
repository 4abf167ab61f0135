"""The review and Truth Replay as data, and the pure check that a game's reveal opens its
commitments and agrees with every verdict (no proofs here: commitments made natively)."""
import json
import random

import pytest

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, OutcomeMismatch
from zkbluff.gadgets.native import commit
from zkbluff.games.mind_bluff.arena import play_series
from zkbluff.games.mind_bluff.bot import HouseBot, RandomBot
from zkbluff.games.mind_bluff.bowl import after_eat
from zkbluff.games.mind_bluff.review import (
    ChoiceOpening, GameCommitments, GameReveal, build_review, check_reveal, finished_game, truth_replay,
)
from zkbluff.games.mind_bluff.rules import (
    AllDone, AllDoneVerdict, Believe, Claim, Doubt, DoubtVerdict, Eat, EatVerdict, EndReason, EventKind, MindBluffRules,
    StartGame,
)
from zkbluff.statements.values import start_draw_native

SEATS = (11, 22)


def truth(record, start, choices, seed=0):
    """Commitments (as the table saw them) and the reveal for a game's hidden truth."""
    rng = random.Random(seed)
    salts = [rng.getrandbits(250) for _ in range(len(choices) + 1)]
    openings = tuple(ChoiceOpening(c, rng.getrandbits(250)) for c in choices)
    counts, remaining = [], start
    for c, s in zip(choices, salts[1:]):
        remaining = after_eat(c, remaining)
        counts.append(commit(remaining, s))
    com = GameCommitments(record.game, commit(start, salts[0]), [o.commitment for o in openings], counts)
    ent = ent_salt = None
    if record.game == 3:
        ent = next(e for e in range(1, 10 ** 6) if start_draw_native(e, SEATS) == (start, record.first))
        ent_salt = 5
        com.referee_commitment, com.seat_entropies = commit(ent, ent_salt), SEATS
    return com, GameReveal(record.game, start, tuple(salts), openings, ent, ent_salt)


@pytest.mark.parametrize("seed", range(12))
def test_review_of_every_game_matches_the_hidden_truth(seed):
    rec = play_series([HouseBot(seed), RandomBot(seed + 1)] if seed % 2 else [HouseBot(seed), HouseBot(seed + 5)],
                      seed=seed)
    for record, start, choices in zip(rec.rules.games, rec.starts, rec.choices):
        com, rev = truth(record, start, choices, seed)
        review = build_review(record, com, rev)
        eats = [t for t in review.turns if t.action == "eat"]
        assert [t.choice for t in eats] == list(choices)
        assert review.start == start and review.winner == record.winner and review.end_reason == record.reason
        remaining = start
        for t in review.turns:
            assert t.remaining_before == remaining and t.remaining_after >= 0
            remaining = t.remaining_after
            if t.verdict is not None:
                assert (t.verdict == "TRUE") == (t.claim == t.choice)
            if t.forced_honest:
                assert t.claim == t.choice and t.debts_after[t.seat] == t.debts_before[t.seat] - 1
        last = review.turns[-1]
        if record.reason == EndReason.ATE_LAST:
            assert last.ate_last and last.choice >= last.remaining_before and last.remaining_after == 0
        else:
            assert last.action == "all_done" and (last.remaining_before == 1) == last.all_done_won
        json.dumps(review.to_json())  # the review is JSON data
        frames = truth_replay(record, com, rev)
        assert len(frames) == len(record.events)
        assert frames[-1].remaining == remaining
        assert all("truth" in f.text for f in frames if f.kind == "ate")


def scripted_game():
    """Game 1: P1 eats 3 claims 3 (doubted: TRUE), P2 eats 2 claims 2 (forced honest),
    P1 believes, P1 eats 1 claims 3 (doubted: BLUFF), P2 calls All done with 24 left."""
    r = MindBluffRules((False, False))
    r.apply(None, StartGame(1, 0))
    r.apply(0, Eat()), r.apply(None, EatVerdict(False)), r.apply(0, Claim(3, False))
    r.apply(1, Doubt()), r.apply(None, DoubtVerdict(True))
    r.apply(1, Eat()), r.apply(None, EatVerdict(False)), r.apply(1, Claim(2, True)), r.apply(0, Believe())
    r.apply(0, Eat()), r.apply(None, EatVerdict(False)), r.apply(0, Claim(3, False))
    r.apply(1, Doubt()), r.apply(None, DoubtVerdict(False))
    r.apply(1, AllDone())
    return r


def test_scripted_review_in_detail():
    r = scripted_game()
    with pytest.raises(IllegalMove, match="unavailable before the game ends"):
        finished_game(r, 1)
    r.apply(None, AllDoneVerdict(False))
    record = finished_game(r, 1)
    com, rev = truth(record, 30, (3, 2, 1))
    review = build_review(record, com, rev)
    t = review.turns
    assert [(x.seat, x.choice, x.claim, x.response, x.verdict) for x in t] == [
        (0, 3, 3, "doubt", "TRUE"), (1, 2, 2, "believe", None), (0, 1, 3, "doubt", "BLUFF"),
        (1, None, None, None, None)]
    assert [(x.remaining_before, x.remaining_after) for x in t] == [(30, 27), (27, 25), (25, 24), (24, 24)]
    assert [x.debts_after for x in t] == [(0, 1), (0, 0), (1, 0), (1, 0)]
    assert t[1].forced_honest and t[3].all_done_won is False
    assert review.end_reason == EndReason.ALL_DONE_LOST and review.winner == 0


def test_a_reveal_that_does_not_open_the_commitments_is_refused():
    r = scripted_game()
    r.apply(None, AllDoneVerdict(False))
    record = r.games[0]
    com, rev = truth(record, 30, (3, 2, 1))
    check_reveal(record, com, rev)
    other = GameReveal(1, 30, rev.count_salts, (ChoiceOpening(2, rev.openings[0].salt), *rev.openings[1:]))
    with pytest.raises(CommitmentMismatch, match="eat 1"):
        check_reveal(record, com, other)
    with pytest.raises(CommitmentMismatch, match="start"):
        check_reveal(record, com, GameReveal(1, 30, (rev.count_salts[0] + 1, *rev.count_salts[1:]), rev.openings))
    with pytest.raises(OutcomeMismatch):
        check_reveal(record, com, GameReveal(1, 31, rev.count_salts, rev.openings))


@pytest.mark.parametrize("lie,match", [
    ((3, 2, 3), "BLUFF contradicts"),         # turn 3's claim 3 was in fact eaten: BLUFF was false
    ((2, 2, 1), "TRUE contradicts"),          # turn 1's claim 3 was a lie: TRUE was false
    ((3, 1, 1), "forced-honest claim"),       # the forced-honest claim 2 was not the choice
])
def test_a_truth_that_contradicts_a_verdict_is_refused(lie, match):
    """Commitments consistent with the reveal, but the revealed truth contradicts what the
    rules recorded: the check names the verdict."""
    r = scripted_game()
    r.apply(None, AllDoneVerdict(False))
    com, rev = truth(r.games[0], 30, lie)
    with pytest.raises(OutcomeMismatch, match=match):
        check_reveal(r.games[0], com, rev)


def test_false_all_done_and_false_survived_are_caught_by_the_review():
    r = MindBluffRules((False, False))
    r.apply(None, StartGame(1, 0))
    r.apply(0, AllDone())
    r.apply(None, AllDoneVerdict(True))  # but 30 remain
    com, rev = truth(r.games[0], 30, ())
    with pytest.raises(OutcomeMismatch, match="All-done"):
        check_reveal(r.games[0], com, rev)
    r = MindBluffRules((False, False))
    r.apply(None, StartGame(1, 0))
    r.apply(0, Eat())
    r.apply(None, EatVerdict(True))       # but 3 of 30 does not reach the count
    com, rev = truth(r.games[0], 30, (3,))
    with pytest.raises(OutcomeMismatch, match="ate_last contradicts"):
        check_reveal(r.games[0], com, rev)


def test_game_three_reveal_checks_the_draw():
    for seed in range(40):
        rec = play_series([HouseBot(seed), HouseBot(seed + 3)], seed=seed)
        if len(rec.rules.games) == 3:
            break
    else:
        pytest.fail("no three-game series in 40 seeds")
    record = rec.rules.games[2]
    assert record.events[0].start is None and record.events[-1].start is None  # hidden in public history
    com, rev = truth(record, rec.starts[2], rec.choices[2])
    review = build_review(record, com, rev)
    assert review.start == rec.starts[2]
    wrong = next(s for s in (29, 30, 31) if s != rec.starts[2])
    com2, rev2 = truth(record, wrong, rec.choices[2])
    com2.referee_commitment, com2.seat_entropies = com.referee_commitment, SEATS
    rev2 = GameReveal(3, wrong, rev2.count_salts, rev2.openings, rev.referee_entropy, rev.referee_salt)
    with pytest.raises((OutcomeMismatch, CommitmentMismatch)):
        check_reveal(record, com2, rev2)


def test_replay_events_in_words():
    r = scripted_game()
    r.apply(None, AllDoneVerdict(False))
    com, rev = truth(r.games[0], 30, (3, 2, 1))
    texts = [f.text for f in truth_replay(r.games[0], com, rev, names=("Aiko", "Bot"))]
    assert texts[0].startswith("Game 1 begins with 30 dango; Aiko moves first.")
    assert "Aiko eats in secret. [truth: ate 3, 27 left]" in texts
    assert "Bot claims to have eaten 2 (forced honest, proven)." in texts
    assert any(t.startswith("TRUE! Bot now owes") for t in texts)
    assert any(t.startswith("BLUFF! Aiko now owes") for t in texts)
    assert texts[-1] == "Aiko wins game 1 (All done with two or more dango left)."
    assert [e.kind for e in r.games[0].events].count(EventKind.DOUBTED) == 2


def test_reveal_json_round_trip_and_strictness():
    r = scripted_game()
    r.apply(None, AllDoneVerdict(False))
    _, rev = truth(r.games[0], 30, (3, 2, 1))
    data = json.loads(json.dumps(rev.to_json()))
    assert GameReveal.from_json(data) == rev
    for bad in ({**data, "start": "30"}, {**data, "countSalts": [1]}, {**data, "choices": [{"choice": 1}]},
                {k: v for k, v in data.items() if k != "game"}, {**data, "refereeSalt": "-1"}):
        with pytest.raises(MalformedInput):
            GameReveal.from_json(bad)


FLIPPED = {EventKind.SURVIVED: EventKind.ATE_LAST, EventKind.ATE_LAST: EventKind.SURVIVED}


@pytest.mark.parametrize("seed", range(6))
def test_every_single_false_verdict_in_a_record_is_caught_by_the_reveal_check(seed):
    """For real games: flip any one verdict the record holds (survived/ate the last,
    TRUE/BLUFF, the All-done result) and the honest reveal no longer agrees with it."""
    from dataclasses import replace

    rec = play_series([HouseBot(seed), RandomBot(seed + 9)], seed=seed)
    flips = 0
    for record, start, choices in zip(rec.rules.games, rec.starts, rec.choices):
        com, rev = truth(record, start, choices, seed)
        check_reveal(record, com, rev)
        for i, e in enumerate(record.events):
            if e.kind in FLIPPED:
                bad = replace(e, kind=FLIPPED[e.kind])
            elif e.kind in (EventKind.VERDICT, EventKind.ALL_DONE_RESULT):
                bad = replace(e, outcome=not e.outcome)
            else:
                continue
            events = record.events[:i] + (bad,) + record.events[i + 1:]
            with pytest.raises(OutcomeMismatch):
                check_reveal(replace(record, events=events), com, rev)
            flips += 1
    assert flips >= len(rec.rules.games)


def test_series_review_json_holds_every_game_and_its_reveal():
    from zkbluff.games.mind_bluff.review import series_review_json

    rec = play_series([HouseBot(1), HouseBot(2)], seed=5)
    reviews, reveals = [], []
    for record, start, choices in zip(rec.rules.games, rec.starts, rec.choices):
        com, rev = truth(record, start, choices)
        reviews.append(build_review(record, com, rev))
        reveals.append(rev)
    data = json.loads(json.dumps(series_review_json(reviews, reveals, ("Aiko", "Bot"), rec.rules.result().reason)))
    assert [g["review"]["game"] for g in data["games"]] == [g.game for g in rec.rules.games]
    assert [GameReveal.from_json(g["reveal"]) for g in data["games"]] == reveals
    assert data["result"].startswith(("P1 won", "P2 won"))
    with pytest.raises(MalformedInput):
        series_review_json(reviews, reveals[:-1], ("Aiko", "Bot"), None)
