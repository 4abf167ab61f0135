"""Liar's Dice's rules by name, on the pure rules: rising bids, Dudo and the count, who
loses a die, ones wild, seats out, the loser starts, the last seat with dice wins; illegal
actions change nothing; random whole matches end with every place given once."""
from __future__ import annotations

import random

import pytest

from zkbluff.errors import IllegalMove
from zkbluff.games.liars_dice.rules import Bid, Count, Dudo, LiarsDiceRules, Phase, Roll, Timeout, bid_above
from zkbluff.games.liars_dice.statements import count_face


def rolled(n: int = 3, wild: bool = True, dice: int = 5) -> LiarsDiceRules:
    rules = LiarsDiceRules(n, wild, dice)
    rules.apply(None, Roll(1))
    return rules


def refused(rules: LiarsDiceRules, seat, action, match: str = "") -> None:
    before = rules.s
    with pytest.raises(IllegalMove, match=match):
        rules.apply(seat, action)
    assert rules.s == before  # nothing changed


def settle(rules: LiarsDiceRules, counts: dict[int, int]) -> None:
    while rules.s.phase is Phase.COUNT:
        seat = rules.to_move
        rules.apply(seat, Count(counts.get(seat, 0)))


def test_a_round_waits_for_the_dealers_roll_and_the_first_seat_starts():
    rules = LiarsDiceRules(3)
    assert rules.to_move is None and rules.s.phase is Phase.ROLL and rules.s.dice == (5, 5, 5)
    refused(rules, 0, Bid(1, 2), "out of turn")
    refused(rules, None, Roll(2), "next round is 1")
    refused(rules, 0, Roll(1), "dealer's line")
    rules.apply(None, Roll(1))
    assert rules.s.phase is Phase.BID and rules.to_move == 0 and rules.s.round == 1


def test_each_bid_is_higher_than_the_last_quantity_first_then_face():
    assert bid_above(3, 2, (2, 6, 0)) and bid_above(2, 5, (2, 4, 0)) and bid_above(1, 1, None)
    assert not bid_above(2, 4, (2, 4, 0)) and not bid_above(2, 3, (2, 4, 0)) and not bid_above(1, 6, (2, 1, 0))
    rules = rolled()
    rules.apply(0, Bid(2, 4))
    refused(rules, 1, Bid(2, 4), "not above")
    refused(rules, 1, Bid(2, 3), "not above")
    refused(rules, 1, Bid(1, 6), "not above")
    rules.apply(1, Bid(2, 5))
    rules.apply(2, Bid(3, 1))  # a higher quantity, any face (ones are the lowest face)
    assert rules.s.bid == (3, 1, 2) and rules.to_move == 0


def test_a_bid_names_a_face_1_to_6_and_at_most_the_dice_in_play():
    rules = rolled(2)
    refused(rules, 0, Bid(1, 0), "face")
    refused(rules, 0, Bid(1, 7), "face")
    refused(rules, 0, Bid(0, 3), "quantity")
    refused(rules, 0, Bid(11, 3), "quantity")
    rules.apply(0, Bid(10, 3))


def test_dudo_needs_a_bid_and_then_every_seat_counts_in_seat_order():
    rules = rolled(3)
    refused(rules, 0, Dudo(), "no bid")
    rules.apply(0, Bid(4, 3))
    rules.apply(1, Dudo())
    assert rules.s.phase is Phase.COUNT and rules.s.caller == 1 and rules.to_move == 0
    refused(rules, 0, Bid(5, 3), "count phase")
    refused(rules, 1, Count(1), "out of turn")
    refused(rules, 0, Count(6), "of 5 dice")
    rules.apply(0, Count(2))
    assert rules.to_move == 1


def test_the_caller_loses_a_die_when_the_total_reaches_the_quantity():
    rules = rolled(3)
    rules.apply(0, Bid(4, 3))
    rules.apply(1, Dudo())
    settle(rules, {0: 2, 1: 1, 2: 1})  # 4 >= 4: the bid stands
    assert rules.s.dice == (5, 4, 5) and rules.s.last.loser == 1 and rules.s.last.total == 4
    assert rules.s.phase is Phase.ROLL and rules.to_move is None


def test_the_bidder_loses_a_die_when_the_total_falls_short():
    rules = rolled(3)
    rules.apply(0, Bid(4, 3))
    rules.apply(1, Dudo())
    settle(rules, {0: 2, 1: 1})  # 3 < 4
    assert rules.s.dice == (4, 5, 5) and rules.s.last.loser == 0


def test_the_loser_starts_the_next_round():
    rules = rolled(3)
    rules.apply(0, Bid(1, 3))
    rules.apply(1, Bid(2, 3))
    rules.apply(2, Dudo())
    settle(rules, {})  # 0 < 2: seat 1 (the bidder) loses
    rules.apply(None, Roll(2))
    assert rules.to_move == 1 and rules.s.bid is None


def test_ones_are_wild_for_other_faces_and_a_bid_on_ones_counts_only_ones():
    dice = (1, 1, 4, 4, 6)
    assert count_face(dice, 4, wild=True) == 4
    assert count_face(dice, 1, wild=True) == 2
    assert count_face(dice, 4, wild=False) == 2
    assert count_face(dice, 6, wild=False) == 1
    assert count_face((1, 2, 0, 0, 0), 3, wild=True) == 1  # a lost die (0) counts for nothing


def test_a_seat_with_no_dice_is_out_skipped_and_the_last_seat_with_dice_wins():
    rules = rolled(3, dice=1)
    rules.apply(0, Bid(2, 6))
    rules.apply(1, Dudo())
    settle(rules, {})  # seat 0 bid 2 x 6s, none: seat 0 is out
    assert rules.s.dice == (0, 1, 1) and rules.s.out == (0,)
    rules.apply(None, Roll(2))
    assert rules.to_move == 1  # the loser is out: the next seat still in starts
    rules.apply(1, Bid(1, 2))
    assert rules.to_move == 2
    rules.apply(2, Bid(1, 3))
    assert rules.to_move == 1  # seat 0 is skipped
    rules.apply(1, Dudo())
    assert rules.to_move == 1  # seat 0 (out) does not count: seat 1 is the first
    settle(rules, {2: 1})  # the bid stands: the caller (seat 1) is out
    assert rules.over and rules.to_move is None
    res = rules.result()
    assert res.placements == (3, 2, 1) and res.winners == (2,) and res.scores == (0, 0, 1)
    assert rules.legal_actions(2) == [] and rules.legal_actions(None) == []


def test_a_seat_the_clock_times_out_is_out_and_the_round_is_rolled_again():
    rules = rolled(3)
    rules.apply(0, Bid(2, 2))
    refused(rules, None, Timeout(0), "not the seat to move")
    refused(rules, 1, Timeout(1), "referee")
    rules.apply(None, Timeout(1))
    assert rules.s.dice == (5, 0, 5) and rules.s.phase is Phase.ROLL and rules.s.last.void
    rules.apply(None, Roll(2))
    assert rules.to_move == 2  # after the seat timed out


def test_the_dealer_and_the_referee_never_act_for_a_seat():
    rules = rolled(2)
    refused(rules, None, Bid(1, 2), "never act for a seat")
    rules.apply(0, Bid(1, 2))
    refused(rules, None, Dudo(), "never act for a seat")
    rules.apply(1, Dudo())
    refused(rules, None, Count(0), "never act for a seat")


def test_the_legal_actions_are_accepted_and_only_they():
    rules = rolled(2, dice=2)
    rules.apply(0, Bid(2, 5))
    legal = rules.legal_actions(1)
    assert Dudo() in legal and Bid(2, 6) in legal and Bid(2, 5) not in legal and Bid(4, 6) in legal
    assert len(legal) == 1 + 1 + 2 * 6  # dudo, 2 x 6s, quantities 3 and 4 of any face
    assert rules.legal_actions(0) == []


@pytest.mark.parametrize("seed", range(40))
def test_random_whole_matches_end_with_every_place_given(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    rules = LiarsDiceRules(n, wild=rng.random() < 0.5, dice=rng.randint(1, 5))
    for _ in range(20000):
        if rules.over:
            break
        seat = rules.to_move
        if seat is None:
            rules.apply(None, Roll(rules.s.round + 1))
            continue
        if rng.random() < 0.01:
            rules.apply(None, Timeout(seat))
            continue
        rules.apply(seat, rng.choice(rules.legal_actions(seat)[:8]))
        assert sum(rules.s.dice) <= n * 5
    assert rules.over
    res = rules.result()
    assert sorted(res.placements) == list(range(1, n + 1)) and len(rules.s.standing) <= 1
