"""Issue 27 items 7, 9, 10, 12 over the server: which seats are people (bots kept off the
leaderboard), Leave Table and a forfeit scoring no points, rooms that start with the
players who are in, Mind Bluff's consent asked of every human seat. No proofs: fast."""
from __future__ import annotations

import pytest

from zkbluff.games.bluffers.rules import BluffersRules, Phase
from zkbluff.games.engine.rules import Result
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.results import seat_results


def _header(n):
    keys = [SigningKey.generate().public_hex for _ in range(n)]
    return {"seats": [f"p{i}" for i in range(n)], "parties": {"seats": keys}}


def _over(n, places, left=(), forfeited=()):
    rules = BluffersRules(n)
    rules.s.phase, rules.s.places = Phase.OVER, list(places)
    for i in left:
        rules.s.left[i] = True
    for i in forfeited:
        rules.s.forfeited[i] = True
    return rules.result()


# ---------------------------------------------------------------- (9) Leave Table: no points

def test_attack_a_seat_that_left_the_table_scores_its_places_points():
    """Seed: "If you leave the table you earn no points from that match". The old
    seat_results gave the leaver its place's points (2nd of 2: 1; 2nd of 4: 6)."""
    result = _over(4, (1, 2, 3, 4), left=(1,))
    rows = seat_results(result, _header(4), [False] * 4)
    assert [r.points for r in rows] == [10, 0, 3, 1]
    assert result.scores[1] == 0 and rows[1].place == 2  # the place stands; the points do not


def test_attack_a_seat_forfeited_by_the_clock_scores_its_places_points():
    result = _over(2, (2, 1), forfeited=(1,))
    assert [r.points for r in seat_results(result, _header(2), [False, False])] == [1, 0]


def test_twin_seats_that_stayed_score_their_places():
    result = _over(3, (3, 1, 2))
    assert result.no_points == (False, False, False)
    assert [r.points for r in seat_results(result, _header(3), [False] * 3)] == [1, 8, 4]
    # a game that marks nobody (no_points empty) keeps the table
    assert [r.points for r in seat_results(Result((1, 2), (0, 0), "x"), _header(2), [False, False])] == [5, 1]
