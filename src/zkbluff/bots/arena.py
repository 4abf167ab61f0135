"""Fast bot-against-bot matches on the pure rules, without cryptography: a dealer that
knows every hand settles challenges natively. For measuring policies (win rates), never
as a stand-in for the prover in end-to-end tests."""
from __future__ import annotations

import random
from typing import Optional

from zkbluff.games.proof_or_bluff.rules import MODES, ClassicRules, FiveUpRules
from zkbluff.statements.cards import NO_RANK, lies_native


def _obs(rules, seat: int, hand: list[int]) -> dict:
    from dataclasses import asdict

    obs = {k: v for k, v in asdict(rules.s).items() if k != "mode"}
    obs["target"] = rules.s.mode.target if hasattr(rules.s, "mode") else rules.s.target
    obs.update(seat=seat, hand=list(hand), legal=rules.legal_actions(seat), history=[])
    return obs


class _ClassicDealer:
    """Knows both hands; deals from the seeded generator and settles challenges natively."""

    def __init__(self, rules: ClassicRules, rng: random.Random):
        self.rules, self.rng = rules, rng
        self.hands: list[list[int]] = [[], []]
        self.last_play: list[int] = []

    def deal(self) -> None:
        size = self.rules.s.mode.hand_size
        deck = list(range(52))
        self.rng.shuffle(deck)
        self.hands = [deck[:size], deck[size: 2 * size]]
        self.rules.deal()

    def settle(self) -> None:
        self.rules.resolve(all(c % 13 == self.rules.s.claim[2] for c in self.last_play))

    def move(self, seat: int, action: tuple) -> None:
        cards = list(action[1])
        self.rules.play(seat, len(cards))
        for c in cards:
            self.hands[seat].remove(c)
        self.last_play = cards


class _FiveUpDealer:
    def __init__(self, rules: FiveUpRules, rng: random.Random):
        self.rules, self.rng = rules, rng
        self.hands: list[list[int]] = [[], []]

    def deal(self) -> None:
        deck = list(range(52))
        self.rng.shuffle(deck)
        self.hands = [deck[0:2], deck[2:4]]
        self.rules.deal(sum(1 << c for c in deck[4:9]))

    def settle(self) -> None:
        s = self.rules.s
        names = list(s.claim[1]) + [NO_RANK] * (2 - len(s.claim[1]))
        hand = sum(1 << c for c in self.hands[s.to_move])
        self.rules.resolve(lies_native(hand, s.board, names[0], names[1]))

    def move(self, seat: int, action: tuple) -> None:
        self.rules.claim(seat, tuple(action[1]))


def _run(rules, dealer, agents, max_moves: int) -> Optional[int]:
    for _ in range(max_moves):
        s = rules.s
        if s.phase == "over":
            return s.winner
        if s.phase == "deal":
            dealer.deal()
        elif s.phase == "prove":
            dealer.settle()
        else:
            seat = s.to_move
            action = agents[seat].act(_obs(rules, seat, dealer.hands[seat]))
            if action[0] in ("accept", "challenge"):
                getattr(rules, action[0])(seat)
            else:
                dealer.move(seat, action)
    raise RuntimeError("match did not end")


def play_classic(agents, mode: str = "standard", seed: int = 0, max_moves: int = 5000) -> Optional[int]:
    """Winner seat, or None for a draw."""
    rng = random.Random(seed)
    rules = ClassicRules(MODES[mode], rng.randrange(13))
    return _run(rules, _ClassicDealer(rules, rng), agents, max_moves)


def play_five_up(agents, mode: str = "standard", seed: int = 0, max_moves: int = 5000) -> Optional[int]:
    """Winner seat, or None for a draw."""
    rng = random.Random(seed)
    rules = FiveUpRules(mode)
    return _run(rules, _FiveUpDealer(rules, rng), agents, max_moves)


def win_rate(play, make_a, make_b, matches: int = 100, mode: str = "standard") -> dict:
    """Results of policy A against policy B, A taking each seat half the time."""
    wins = draws = 0
    for i in range(matches):
        a, b = make_a(1000 + i), make_b(2000 + i)
        seat_a = i % 2
        agents = [a, b] if seat_a == 0 else [b, a]
        w = play(agents, mode, seed=i)
        if w is None:
            draws += 1
        elif w == seat_a:
            wins += 1
    return {"matches": matches, "wins": wins, "draws": draws, "losses": matches - wins - draws}
