"""The bots' arena on the pure rules (dice drawn here, no proofs): the house bot's win
rate against the random bot, seats alternated. ``python -m zkbluff.games.liars_dice.arena
[matches] [players]``; the numbers are in NOTES.md."""
from __future__ import annotations

import random
import sys
from typing import Any

from zkbluff.games.liars_dice.bot import HouseBot, RandomBot
from zkbluff.games.liars_dice.moves import DudoIntent, Observation
from zkbluff.games.liars_dice.rules import FACES, Bid, Count, Dudo, LiarsDiceRules, Phase, Roll
from zkbluff.games.liars_dice.statements import count_face


def play(bots: list[Any], rng: random.Random, wild: bool = True) -> int:
    """One match; the winner's seat."""
    rules = LiarsDiceRules(len(bots), wild)
    dice: list[tuple[int, ...]] = []
    while not rules.over:
        s = rules.s
        if s.phase is Phase.ROLL:
            dice = [tuple(rng.randint(1, FACES) for _ in range(n)) for n in s.dice]
            rules.apply(None, Roll(s.round + 1))
            continue
        seat = s.to_move
        assert seat is not None
        if s.phase is Phase.COUNT:
            assert s.bid is not None
            rules.apply(seat, Count(count_face(dice[seat], s.bid[1], s.wild)))
            continue
        intent = bots[seat].act(Observation(seat, s, dice[seat], tuple(rules.legal_actions(seat))))
        rules.apply(seat, Dudo() if isinstance(intent, DudoIntent) else Bid(intent.quantity, intent.face))
    return rules.s.standing[0]


def house_win_rate(matches: int, players: int = 2, seed: int = 1, wild: bool = True) -> float:
    """The share of matches the house bot (one seat, rotated) wins against random bots."""
    rng, wins = random.Random(seed), 0
    for m in range(matches):
        house = m % players
        bots: list[Any] = [HouseBot(seed * 1000 + m) if i == house else RandomBot(seed * 1000 + m + i + 1)
                           for i in range(players)]
        wins += play(bots, rng, wild) == house
    return wins / matches


def first_seat_share(matches: int, players: int = 2, seed: int = 2) -> float:
    """House bots in every seat: the share of matches seat 0 (the first to bid) wins (1/players if fair)."""
    rng = random.Random(seed)
    return sum(play([HouseBot(seed * 1000 + m * 10 + i) for i in range(players)], rng) == 0
               for m in range(matches)) / matches


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    players = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    print(f"house bot vs {players - 1} random bot(s), {n} matches: {house_win_rate(n, players):.3f}")
    print(f"house bots in all {players} seats, {n} matches: seat 0 wins {first_seat_share(n, players):.3f}")
