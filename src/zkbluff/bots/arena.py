"""Fast bot-against-bot matches on the pure rules, without cryptography: a native dealer
that knows every hand deals from a seeded generator and settles challenges natively (as
the challenged seat's proof would). For measuring policies (win rates), never as a
stand-in for the prover in end-to-end tests."""
from __future__ import annotations

import random
from typing import Any, Callable, Optional, Sequence

from zkbluff.games.engine.rules import NO_SEAT, Rules
from zkbluff.games.proof_or_bluff.moves import (
    ClassicObservation, FiveUpObservation, PlayCards, ProveClaim,
)
from zkbluff.games.proof_or_bluff.rules import (
    DECK, FIVE_UP_BOARD, FIVE_UP_HAND, MAX_NAMES, MODES, N_RANKS, PROVE, ClassicDeal, ClassicRules, FiveUpDeal,
    FiveUpRules, Play, ProveLies, ProveVerdict,
)
from zkbluff.statements.cards import NO_RANK, lies_native


class _ClassicDealer:
    """Knows both hands; deals from the seeded generator and settles challenges natively."""

    def __init__(self, rules: ClassicRules, rng: random.Random, starting_rank: int):
        self.rules, self.rng, self.start = rules, rng, starting_rank
        self.hands: list[list[int]] = [[], []]
        self.last_play: list[int] = []

    def deal(self) -> None:
        size = self.rules.s.mode.hand_size
        deck = list(range(DECK.size))
        self.rng.shuffle(deck)
        self.hands = [deck[:size], deck[size: 2 * size]]
        first = self.rules.s.round == 0
        self.rules.apply(NO_SEAT, ClassicDeal(self.rules.s.round + 1, self.start if first else None, ()))

    def settle(self) -> None:
        rank = self.rules.s.claim[2]  # type: ignore[index]
        self.rules.apply(self.rules.s.to_move, ProveVerdict(all(DECK.rank_of(c) == rank for c in self.last_play)))

    def observe(self, seat: int) -> ClassicObservation:
        return ClassicObservation(seat, self.rules.public_state(), tuple(self.hands[seat]),
                                  tuple(self.rules.legal_actions(seat)))

    def move(self, seat: int, intent: Any) -> None:
        if isinstance(intent, PlayCards):
            DECK.mask(intent.cards)  # no card twice
            self.rules.apply(seat, Play(len(intent.cards), self.rules.s.required_rank))
            for c in intent.cards:
                self.hands[seat].remove(c)
            self.last_play = list(intent.cards)
        else:
            self.rules.apply(seat, intent)


class _FiveUpDealer:
    def __init__(self, rules: FiveUpRules, rng: random.Random):
        self.rules, self.rng = rules, rng
        self.hands: list[list[int]] = [[], []]

    def deal(self) -> None:
        deck = list(range(DECK.size))
        self.rng.shuffle(deck)
        h = FIVE_UP_HAND
        self.hands = [deck[0:h], deck[h:2 * h]]
        board = DECK.mask(deck[2 * h: 2 * h + FIVE_UP_BOARD])
        self.rules.apply(NO_SEAT, FiveUpDeal(self.rules.s.round + 1, board, ()))

    def settle(self) -> None:
        s = self.rules.s
        names = list(s.claim[1]) + [NO_RANK] * (MAX_NAMES - len(s.claim[1]))  # type: ignore[index]
        hand = DECK.mask(self.hands[s.to_move])
        self.rules.apply(s.to_move, ProveLies(lies_native(hand, s.board, names[0], names[1])))

    def observe(self, seat: int) -> FiveUpObservation:
        return FiveUpObservation(seat, self.rules.public_state(), tuple(self.hands[seat]),
                                 tuple(self.rules.legal_actions(seat)))

    def move(self, seat: int, intent: Any) -> None:
        self.rules.apply(seat, intent)


def _run(rules: Rules, dealer: Any, agents: Sequence[Any], max_moves: int) -> Optional[int]:
    for _ in range(max_moves):
        if rules.over:
            result = rules.result()
            assert result is not None
            return result.winners[0] if len(result.winners) == 1 else None
        seat = rules.to_move
        if seat is NO_SEAT:
            dealer.deal()
        elif rules.public_state().phase == PROVE:
            dealer.settle()
        else:
            intent = agents[seat].act(dealer.observe(seat))
            assert not isinstance(intent, ProveClaim)
            dealer.move(seat, intent)
    raise RuntimeError("match did not end")


def play_classic(agents: Sequence[Any], mode: str = "standard", seed: int = 0, max_moves: int = 5000) -> Optional[int]:
    """Winner seat, or None for a draw."""
    rng = random.Random(seed)
    start = rng.randrange(N_RANKS)
    rules = ClassicRules(MODES[mode])
    return _run(rules, _ClassicDealer(rules, rng, start), agents, max_moves)


def play_five_up(agents: Sequence[Any], mode: str = "standard", seed: int = 0, max_moves: int = 5000) -> Optional[int]:
    """Winner seat, or None for a draw."""
    rng = random.Random(seed)
    rules = FiveUpRules(mode)
    return _run(rules, _FiveUpDealer(rules, rng), agents, max_moves)


def win_rate(play: Callable[..., Optional[int]], make_a: Callable[[int], Any], make_b: Callable[[int], Any],
             matches: int = 100, mode: str = "standard") -> dict[str, Any]:
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
